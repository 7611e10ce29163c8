/**
 * `@ramino/client/node`: the SDK over native gRPC (HTTP/2), for Node.
 *
 *     import { connect, BotLevel } from "@ramino/client/node";
 *     const client = connect("127.0.0.1:50051");
 */
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";
import type { Interceptor, Transport } from "@connectrpc/connect";
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
 * A gRPC transport to `target` ("host:port" or a URL) and the session that
 * carries it (abort it to close the connection): unary calls straight on
 * the kept HTTP/2 session (see h2unary.ts), streams through Connect's gRPC
 * transport on the same session.
 */
export function grpcTransport(
  target: string,
  tls: boolean | TlsOptions = false,
  interceptors: Interceptor[] = [],
): { transport: Transport; session: Http2SessionManager } {
  const url = baseUrl(target, tls !== false);
  const session = new Http2SessionManager(url, { pingIntervalMs: 30_000 }, tlsSessionOptions(tls) as ConstructorParameters<typeof Http2SessionManager>[2]);
  const streams = createGrpcTransport({ baseUrl: url, sessionManager: session, interceptors });
  return { transport: fastUnaryTransport(url, session, streams, interceptors), session };
}

/** A {@link Client} talking native gRPC to `target` ("127.0.0.1:50051" or a URL). */
export function connect(target = "localhost:50051", options: NodeOptions = {}): Client {
  const { tls, interceptors, ...rest } = options;
  const { transport, session } = grpcTransport(target, tls ?? false, interceptors);
  return new Client({ ...rest, transport, onClose: () => session.abort() });
}
