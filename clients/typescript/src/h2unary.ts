/**
 * The Node transport's unary calls, made straight on a kept node:http2
 * session: the request's HEADERS and its one DATA frame (with END_STREAM)
 * written in one go, the answer read from the stream's events. Connect-node's
 * own unary path runs each call through web `Headers`, linked abort signals,
 * and async-iterable pipelines that write the body and its end in separate
 * turns of the event loop: about three times the client CPU of the call
 * itself (bench/sdk_latency.py measures both). Streams (watches, sessions)
 * stay on Connect's gRPC transport, on the same session.
 */
/// <reference types="node" />
import type { ClientHttp2Stream, IncomingHttpHeaders } from "node:http2";
import { constants } from "node:http2";
import {
  create,
  fromBinary,
  isMessage,
  toBinary,
  type DescMessage,
  type DescMethodUnary,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  type ContextValues,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { validateResponse, validateTrailer } from "@connectrpc/connect/protocol-grpc";
import type { Http2SessionManager } from "@connectrpc/connect-node";

type AnyUnaryFn = (request: UnaryRequest) => Promise<UnaryResponse>;

/** A Headers of a node:http2 header block, without its pseudo-headers. */
function webHeaders(node: IncomingHttpHeaders | undefined): Headers {
  const headers = new Headers();
  if (node === undefined) return headers;
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith(":") || value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.append(key, String(value));
  }
  return headers;
}

/** The error of a stream reset before its answer (by the server, or a connection lost). */
function resetError(stream: ClientHttp2Stream): ConnectError {
  const code = stream.rstCode;
  if (code === constants.NGHTTP2_CANCEL) return new ConnectError("the call was cancelled", Code.Canceled);
  if (code === constants.NGHTTP2_ENHANCE_YOUR_CALM) {
    return new ConnectError("the server asked to calm down (ENHANCE_YOUR_CALM)", Code.ResourceExhausted);
  }
  // A refused stream, or a connection that went away: the call may be made again.
  return new ConnectError(`the stream closed before its answer (HTTP/2 code ${String(code)})`, Code.Unavailable);
}

/** The one message of a unary answer's body (5-byte envelope, uncompressed). */
function unenvelope(body: Buffer): Uint8Array {
  if (body.length < 5) throw new ConnectError("the answer has no message", Code.Unimplemented);
  if ((body[0]! & 0x01) !== 0) throw new ConnectError("the answer is compressed, which was not asked for", Code.Internal);
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) throw new ConnectError("the answer is not one message", Code.Unimplemented);
  return body.subarray(5);
}

/** The Node request headers of a call: gRPC's, then the caller's. */
function requestHeaders(path: string, timeoutMs: number | undefined, header: Headers | HeadersInit | undefined) {
  const out: Record<string, string | string[]> = {
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc+proto",
    te: "trailers",
  };
  if (timeoutMs !== undefined && timeoutMs > 0) out["grpc-timeout"] = `${Math.ceil(timeoutMs)}m`;
  const add = (key: string, value: string): void => {
    const k = key.toLowerCase();
    const had = out[k];
    out[k] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  };
  if (header instanceof Headers) header.forEach((value, key) => add(key, value));
  else if (Array.isArray(header)) for (const [key, value] of header) add(key!, value!);
  else if (header !== undefined) for (const [key, value] of Object.entries(header)) add(key, value);
  return out;
}

/**
 * One unary gRPC call on `session`: resolves with the answer's headers,
 * message bytes and trailers, or rejects with the ConnectError of its status.
 */
function call(
  session: Http2SessionManager,
  path: string,
  headers: Record<string, string | string[]>,
  body: Uint8Array,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<{ header: IncomingHttpHeaders; bytes: Uint8Array; trailer: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let stream: ClientHttp2Stream | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fail = (error: ConnectError): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (stream !== undefined && !stream.closed) stream.close(constants.NGHTTP2_CANCEL);
      reject(error);
    };
    const onAbort = (): void => fail(ConnectError.from(signal?.reason ?? "aborted", Code.Canceled));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined && timeoutMs > 0) {
      timer = setTimeout(() => fail(new ConnectError(`no answer within ${timeoutMs} ms`, Code.DeadlineExceeded)), timeoutMs);
    }
    const envelope = Buffer.allocUnsafe(5 + body.length);
    envelope[0] = 0;
    envelope.writeUInt32BE(body.length, 1);
    envelope.set(body, 5);
    session.request("POST", path, headers, {}).then(
      (s) => {
        stream = s;
        if (settled) {
          s.close(constants.NGHTTP2_CANCEL);
          return;
        }
        let response: IncomingHttpHeaders | undefined;
        let trailers: IncomingHttpHeaders | undefined;
        const chunks: Buffer[] = [];
        s.on("response", (h) => (response = h));
        s.on("trailers", (t) => (trailers = t));
        s.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          session.notifyResponseByteRead(s);
        });
        s.on("error", (e: Error) => fail(new ConnectError(e.message, Code.Unavailable, undefined, undefined, e)));
        s.on("close", () => {
          if (settled) return;
          if (response === undefined) return fail(resetError(s));
          try {
            // The common answer (200, gRPC, status 0 in its trailers) is read
            // as it is; anything else through Connect's checks, for its error.
            const ok =
              Number(response[":status"]) === 200 &&
              String(response["content-type"] ?? "").startsWith("application/grpc") &&
              response["grpc-status"] === undefined &&
              trailers?.["grpc-status"] === "0";
            if (!ok) {
              const header = webHeaders(response);
              const { foundStatus, headerError } = validateResponse(Number(response[":status"] ?? 0), header);
              if (headerError) throw headerError;
              if (foundStatus) throw new ConnectError("the answer has no message", Code.Unimplemented);
              if (trailers === undefined) throw resetError(s);
              validateTrailer(webHeaders(trailers), header);
            }
            const bytes = unenvelope(Buffer.concat(chunks));
            settled = true;
            if (timer !== undefined) clearTimeout(timer);
            signal?.removeEventListener("abort", onAbort);
            resolve({ header: response, bytes, trailer: trailers ?? {} });
          } catch (e) {
            fail(ConnectError.from(e));
          }
        });
        s.end(envelope);
      },
      (e: unknown) => fail(ConnectError.from(e, Code.Unavailable)),
    );
  });
}

/** A unary response whose header and trailer are made into `Headers` only when read. */
function answered<O extends DescMessage>(
  method: DescMethodUnary<DescMessage, O>,
  message: MessageShape<O>,
  header: IncomingHttpHeaders,
  trailer: IncomingHttpHeaders,
): UnaryResponse<DescMessage, O> {
  let headers: Headers | undefined;
  let trailers: Headers | undefined;
  return {
    stream: false,
    service: method.parent,
    method,
    message,
    get header() {
      return (headers ??= webHeaders(header));
    },
    get trailer() {
      return (trailers ??= webHeaders(trailer));
    },
  } as UnaryResponse<DescMessage, O>;
}

/**
 * `streams` (Connect's gRPC transport on `session`) with its unary calls
 * made by {@link call}, through `interceptors` as Connect runs them.
 */
export function fastUnaryTransport(
  baseUrl: string,
  session: Http2SessionManager,
  streams: Transport,
  interceptors: Interceptor[],
): Transport {
  const base = baseUrl.replace(/\/+$/, "");
  async function unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: MessageInitShape<I>,
    contextValues?: ContextValues,
  ): Promise<UnaryResponse<I, O>> {
    const path = `/${method.parent.typeName}/${method.name}`;
    const message = (isMessage(input, method.input) ? input : create(method.input, input)) as MessageShape<I>;
    if (interceptors.length === 0) {
      const answer = await call(session, path, requestHeaders(path, timeoutMs, header), toBinary(method.input, message), signal, timeoutMs);
      const response = answered(method, fromBinary(method.output, answer.bytes), answer.header, answer.trailer);
      return response as unknown as UnaryResponse<I, O>;
    }
    const next: AnyUnaryFn = async (request) => {
      const answer = await call(
        session,
        path,
        requestHeaders(path, timeoutMs, request.header),
        toBinary(request.method.input, request.message),
        request.signal,
        timeoutMs,
      );
      return answered(request.method, fromBinary(request.method.output, answer.bytes), answer.header, answer.trailer);
    };
    type Next = Parameters<Interceptor>[0];
    const chain = interceptors
      .concat()
      .reverse()
      .reduce((n, i) => i(n), next as unknown as Next) as unknown as AnyUnaryFn;
    const request = {
      stream: false as const,
      service: method.parent,
      method,
      requestMethod: "POST",
      url: base + path,
      signal: signal ?? new AbortController().signal,
      header: new Headers(header),
      contextValues: contextValues ?? createContextValues(),
      message,
    } as unknown as UnaryRequest;
    return (await chain(request)) as unknown as UnaryResponse<I, O>;
  }
  return { unary, stream: streams.stream.bind(streams) };
}
