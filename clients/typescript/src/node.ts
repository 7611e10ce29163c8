/**
 * `@ramino/client/node`: the SDK over native gRPC (HTTP/2), for Node.
 *
 *     import { connect, BotLevel } from "@ramino/client/node";
 *     const client = connect("127.0.0.1:50051");
 */
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";
import type { Interceptor, StreamResponse, Transport } from "@connectrpc/connect";
import type { DescMessage, DescMethodStreaming, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import type { ContextValues } from "@connectrpc/connect";
import { Client, type ClientOptions } from "./client.js";
import { fastUnaryTransport } from "./h2unary.js";

export * from "./index.js";

/**
 * TLS toward the server. Every field is optional: `{}` (or `tls: true`)
 * trusts the system's CAs and checks the target's host name.
 */
export interface TlsOptions {
  /** PEM of the CAs that sign the server's certificate, instead of the system's. */
  ca?: string | Uint8Array | undefined;
  /** A client certificate (PEM chain), for a server that asks for one (mutual TLS). */
  cert?: string | Uint8Array | undefined;
  /** The PEM private key of `cert`. */
  key?: string | Uint8Array | undefined;
  /** The name the server's certificate must carry (and SNI), when not the target's host. */
  serverName?: string | undefined;
}

export interface NodeOptions extends Omit<ClientOptions, "transport" | "onClose"> {
  /** TLS (https) instead of plaintext h2c: `true` for the system's CAs, or {@link TlsOptions}. */
  tls?: boolean | TlsOptions | undefined;
  /** Connect interceptors run on every call (logging, extra metadata...). */
  interceptors?: Interceptor[] | undefined;
  /**
   * Streams (watches, sessions, ticket waits) put on one connection before
   * another is opened: {@link DEFAULT_STREAMS_PER_CONNECTION} by default;
   * keep it below the server's `--max-streams-per-connection`.
   */
  streamsPerConnection?: number | undefined;
}

/**
 * Streams a client puts on one connection before it opens another. The
 * server refuses a connection's streams past its `--max-streams-per-connection`
 * (100 by default) with TOO_MANY_STREAMS; half of it leaves room for the
 * streams a client has closed and the server has not yet let go of.
 */
export const DEFAULT_STREAMS_PER_CONNECTION = 50;

/**
 * The streams of one client spread over HTTP/2 sessions (connections): each
 * stream goes on the first session with fewer than `most` open, a new one
 * opened when all are full, so that no connection reaches the server's
 * per-connection limit however many seats a process plays. A stream's place
 * is given back when its answer ends (read to its end, failed, or left) or
 * its call is aborted.
 */
export class StreamSessions implements Transport {
  /** The sessions opened, the first (the unary calls') included. */
  readonly sessions: Http2SessionManager[];
  private readonly transports: Transport[];
  private readonly open: number[];

  constructor(
    private readonly url: string,
    private readonly tls: boolean | TlsOptions,
    private readonly interceptors: Interceptor[],
    private readonly most: number,
    first: Http2SessionManager,
  ) {
    if (!Number.isInteger(most) || most < 1) {
      throw new RangeError(`streamsPerConnection must be an integer of at least 1, not ${String(most)}`);
    }
    this.sessions = [first];
    this.transports = [createGrpcTransport({ baseUrl: url, sessionManager: first, interceptors })];
    this.open = [0];
  }

  /** The streams open on each session. */
  get streams(): readonly number[] {
    return [...this.open];
  }

  unary: Transport["unary"] = (method, signal, timeoutMs, header, input, contextValues) =>
    this.transports[0]!.unary(method, signal, timeoutMs, header, input, contextValues);

  async stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: AsyncIterable<MessageInitShape<I>>,
    contextValues?: ContextValues,
  ): Promise<StreamResponse<I, O>> {
    const i = this.take();
    let given = false;
    const giveBack = (): void => {
      if (!given) {
        given = true;
        this.open[i]! -= 1;
        signal?.removeEventListener("abort", giveBack);
      }
    };
    signal?.addEventListener("abort", giveBack, { once: true });
    try {
      const response = await this.transports[i]!.stream(method, signal, timeoutMs, header, input, contextValues);
      const messages = response.message;
      async function* released(): AsyncGenerator<MessageShape<O>> {
        try {
          yield* messages;
        } finally {
          giveBack();
        }
      }
      return { ...response, message: released() };
    } catch (e) {
      giveBack();
      throw e;
    }
  }

  /** Closes every session. */
  abort(): void {
    for (const s of this.sessions) s.abort();
  }

  private take(): number {
    let i = this.open.findIndex((n) => n < this.most);
    if (i < 0) {
      const session = new Http2SessionManager(this.url, { pingIntervalMs: 30_000 }, tlsSessionOptions(this.tls) as ConstructorParameters<typeof Http2SessionManager>[2]);
      this.sessions.push(session);
      this.transports.push(createGrpcTransport({ baseUrl: this.url, sessionManager: session, interceptors: this.interceptors }));
      this.open.push(0);
      i = this.open.length - 1;
    }
    this.open[i]! += 1;
    return i;
  }
}

/** `http://host:port` from `host:port` (a URL is kept as given). */
export function baseUrl(target: string, tls = false): string {
  return /^https?:\/\//.test(target) ? target : `${tls ? "https" : "http"}://${target}`;
}

/** The options of node:http2's `connect` that {@link TlsOptions} set. */
export interface TlsSessionOptions {
  ca?: string | Uint8Array;
  cert?: string | Uint8Array;
  key?: string | Uint8Array;
  servername?: string;
}

/** node:http2's options for `tls` (none for plaintext or the defaults). */
export function tlsSessionOptions(tls: boolean | TlsOptions): TlsSessionOptions | undefined {
  if (typeof tls === "boolean") return undefined;
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    throw new TypeError("TLS options: cert and key go together (a client certificate and its key)");
  }
  const options: TlsSessionOptions = {};
  if (tls.ca !== undefined) options.ca = tls.ca;
  if (tls.cert !== undefined) options.cert = tls.cert;
  if (tls.key !== undefined) options.key = tls.key;
  if (tls.serverName !== undefined) options.servername = tls.serverName;
  return options;
}

/**
 * A gRPC transport to `target` ("host:port" or a URL) and the sessions that
 * carry it (abort them to close the connections): unary calls straight on
 * the first kept HTTP/2 session (see h2unary.ts), streams through Connect's
 * gRPC transport, spread over sessions as they fill ({@link StreamSessions}).
 */
export function grpcTransport(
  target: string,
  tls: boolean | TlsOptions = false,
  interceptors: Interceptor[] = [],
  streamsPerConnection = DEFAULT_STREAMS_PER_CONNECTION,
): { transport: Transport; session: Http2SessionManager; streams: StreamSessions } {
  const url = baseUrl(target, tls !== false);
  const session = new Http2SessionManager(url, { pingIntervalMs: 30_000 }, tlsSessionOptions(tls) as ConstructorParameters<typeof Http2SessionManager>[2]);
  const streams = new StreamSessions(url, tls, interceptors, streamsPerConnection, session);
  return { transport: fastUnaryTransport(url, session, streams, interceptors), session, streams };
}

/** A {@link Client} talking native gRPC to `target` ("127.0.0.1:50051" or a URL). */
export function connect(target = "localhost:50051", options: NodeOptions = {}): Client {
  const { tls, interceptors, streamsPerConnection, ...rest } = options;
  const { transport, streams } = grpcTransport(target, tls ?? false, interceptors, streamsPerConnection);
  return new Client({ ...rest, transport, onClose: () => streams.abort() });
}
