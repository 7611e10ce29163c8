/**
 * `@ramino/client/node`: the SDK over native gRPC (HTTP/2), for Node.
 *
 *     import { connect, BotLevel } from "@ramino/client/node";
 *     const client = connect("127.0.0.1:50051");
 */
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";
import type { Interceptor, Transport } from "@connectrpc/connect";
import { Client, type ClientOptions } from "./client.js";

export * from "./index.js";

export interface NodeOptions extends Omit<ClientOptions, "transport" | "onClose"> {
  /** TLS (https) instead of plaintext h2c. */
  tls?: boolean | undefined;
  /** Connect interceptors run on every call (logging, extra metadata...). */
  interceptors?: Interceptor[] | undefined;
}

/** `http://host:port` from `host:port` (a URL is kept as given). */
export function baseUrl(target: string, tls = false): string {
  return /^https?:\/\//.test(target) ? target : `${tls ? "https" : "http"}://${target}`;
}

/**
 * A gRPC transport to `target` ("host:port" or a URL) and the session that
 * carries it (abort it to close the connection).
 */
export function grpcTransport(
  target: string,
  tls = false,
  interceptors: Interceptor[] = [],
): { transport: Transport; session: Http2SessionManager } {
  const url = baseUrl(target, tls);
  const session = new Http2SessionManager(url, { pingIntervalMs: 30_000 });
  const transport = createGrpcTransport({ baseUrl: url, sessionManager: session, interceptors });
  return { transport, session };
}

/** A {@link Client} talking native gRPC to `target` ("127.0.0.1:50051" or a URL). */
export function connect(target = "localhost:50051", options: NodeOptions = {}): Client {
  const { tls, interceptors, ...rest } = options;
  const { transport, session } = grpcTransport(target, tls ?? false, interceptors);
  return new Client({ ...rest, transport, onClose: () => session.abort() });
}
