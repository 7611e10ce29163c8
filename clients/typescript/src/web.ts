/**
 * `@ramino/client/web`: the SDK over gRPC-web, for browsers, through a
 * gateway that translates gRPC-web to gRPC (Envoy's grpc_web filter).
 *
 *     import { connect, BotLevel } from "@ramino/client/web";
 *     const client = connect("https://games.example.com");
 */
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import type { Interceptor, Transport } from "@connectrpc/connect";
import { Client, type ClientOptions } from "./client.js";

export * from "./index.js";

export interface WebOptions extends Omit<ClientOptions, "transport" | "onClose" | "bidiStreams"> {
  /** Connect interceptors run on every call. */
  interceptors?: Interceptor[] | undefined;
}

/** A gRPC-web transport to the gateway at `baseUrl` (binary format). */
export function grpcWebTransport(baseUrl: string, interceptors: Interceptor[] = []): Transport {
  return createGrpcWebTransport({ baseUrl, useBinaryFormat: true, interceptors });
}

/**
 * A {@link Client} talking gRPC-web to the gateway at `baseUrl`. gRPC-web
 * has no bidirectional streams: a seat's session plays through the unary
 * moves and the seat's watch.
 */
export function connect(baseUrl: string, options: WebOptions = {}): Client {
  const { interceptors, ...rest } = options;
  return new Client({ ...rest, transport: grpcWebTransport(baseUrl, interceptors), bidiStreams: false });
}
