/**
 * The SDK's errors: one class per gRPC status the server answers with, each
 * carrying the server's `google.rpc.ErrorInfo` reason.
 *
 * Branch on the class (or `code`) for the kind of failure and on `reason` (a
 * stable UPPER_SNAKE code such as `NOT_YOUR_TURN`) for the rule that refused it.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { RESUMABLE_WATCH_REASONS } from "./reasons.js";

/** gRPC's names of the status codes, as the server's reasons default to. */
export const CODE_NAMES: Readonly<Record<Code, string>> = {
  [Code.Canceled]: "CANCELLED",
  [Code.Unknown]: "UNKNOWN",
  [Code.InvalidArgument]: "INVALID_ARGUMENT",
  [Code.DeadlineExceeded]: "DEADLINE_EXCEEDED",
  [Code.NotFound]: "NOT_FOUND",
  [Code.AlreadyExists]: "ALREADY_EXISTS",
  [Code.PermissionDenied]: "PERMISSION_DENIED",
  [Code.ResourceExhausted]: "RESOURCE_EXHAUSTED",
  [Code.FailedPrecondition]: "FAILED_PRECONDITION",
  [Code.Aborted]: "ABORTED",
  [Code.OutOfRange]: "OUT_OF_RANGE",
  [Code.Unimplemented]: "UNIMPLEMENTED",
  [Code.Internal]: "INTERNAL",
  [Code.Unavailable]: "UNAVAILABLE",
  [Code.DataLoss]: "DATA_LOSS",
  [Code.Unauthenticated]: "UNAUTHENTICATED",
};

/**
 * The server refused a call, or could not be reached.
 *
 * `reason` is the ErrorInfo reason (the status code's name when the answer
 * carried none), `detail` the server's explanation, `metadata` the ErrorInfo
 * metadata.
 */
export class ServiceError extends Error {
  override name = "ServiceError";
  constructor(
    /** The gRPC status code (Connect's `Code`). */
    readonly code: Code,
    readonly reason: string,
    readonly detail: string = "",
    readonly metadata: Readonly<Record<string, string>> = {},
    readonly domain: string = "",
    options?: { cause?: unknown },
  ) {
    super(detail ? `${reason}: ${detail}` : reason, options);
  }

  /** The status code's gRPC name: `FAILED_PRECONDITION`, `ABORTED`... */
  get codeName(): string {
    return CODE_NAMES[this.code] ?? "UNKNOWN";
  }
}

/** INVALID_ARGUMENT: the request cannot be meant (unknown card id, empty meld...). */
export class InvalidArgument extends ServiceError {
  override name = "InvalidArgument";
}

/** FAILED_PRECONDITION: a well-formed move the rules refuse now (`NOT_YOUR_TURN`...). */
export class MoveRejected extends ServiceError {
  override name = "MoveRejected";
}

/** ABORTED: `expectedVersion` is not the game's version any more. */
export class StaleVersion extends ServiceError {
  override name = "StaleVersion";
  /** The version the call expected. */
  get expected(): bigint | undefined {
    return toBigInt(this.metadata["expected"]);
  }
  /** The game's version when the call was refused. */
  get actual(): bigint | undefined {
    return toBigInt(this.metadata["actual"]);
  }
}

/** NOT_FOUND: no such game. */
export class NotFound extends ServiceError {
  override name = "NotFound";
}

/** ALREADY_EXISTS. */
export class AlreadyExists extends ServiceError {
  override name = "AlreadyExists";
}

/** UNAUTHENTICATED: the seat token is missing, forged or expired. */
export class Unauthenticated extends ServiceError {
  override name = "Unauthenticated";
}

/** PERMISSION_DENIED: the token acts for another game or seat. */
export class PermissionDenied extends ServiceError {
  override name = "PermissionDenied";
}

/** RESOURCE_EXHAUSTED: too many watchers, too large a request, the server busy. */
export class ResourceExhausted extends ServiceError {
  override name = "ResourceExhausted";
}

/** UNAVAILABLE, still, after every retry. */
export class Unavailable extends ServiceError {
  override name = "Unavailable";
}

type ErrorClass = new (
  code: Code,
  reason: string,
  detail?: string,
  metadata?: Readonly<Record<string, string>>,
  domain?: string,
  options?: { cause?: unknown },
) => ServiceError;

const BY_CODE: Partial<Record<Code, ErrorClass>> = {
  [Code.InvalidArgument]: InvalidArgument,
  [Code.FailedPrecondition]: MoveRejected,
  [Code.Aborted]: StaleVersion,
  [Code.NotFound]: NotFound,
  [Code.AlreadyExists]: AlreadyExists,
  [Code.Unauthenticated]: Unauthenticated,
  [Code.PermissionDenied]: PermissionDenied,
  [Code.ResourceExhausted]: ResourceExhausted,
  [Code.Unavailable]: Unavailable,
};

function toBigInt(value: string | undefined): bigint | undefined {
  if (value === undefined || !/^-?\d+$/.test(value)) return undefined;
  return BigInt(value);
}

/** The fields of a `google.rpc.ErrorInfo`. */
export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

const ERROR_INFO_TYPE = "google.rpc.ErrorInfo";

/**
 * Decodes a `google.rpc.ErrorInfo` from its wire bytes: reason = 1,
 * domain = 2, metadata = 3 (a map: entries of key = 1, value = 2).
 */
export function decodeErrorInfo(bytes: Uint8Array): ErrorInfo {
  const info: ErrorInfo = { reason: "", domain: "", metadata: {} };
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) {
      info.reason = reader.string();
    } else if (field === 2 && wireType === WireType.LengthDelimited) {
      info.domain = reader.string();
    } else if (field === 3 && wireType === WireType.LengthDelimited) {
      const entry = new BinaryReader(reader.bytes());
      let key = "";
      let value = "";
      while (entry.pos < entry.len) {
        const [f, w] = entry.tag();
        if (f === 1 && w === WireType.LengthDelimited) key = entry.string();
        else if (f === 2 && w === WireType.LengthDelimited) value = entry.string();
        else entry.skip(w, f);
      }
      info.metadata[key] = value;
    } else {
      reader.skip(wireType, field);
    }
  }
  return info;
}

/** The first ErrorInfo among a ConnectError's details, if any. */
export function errorInfo(error: ConnectError): ErrorInfo | undefined {
  for (const d of error.details) {
    if ("type" in d && d.type === ERROR_INFO_TYPE) {
      return decodeErrorInfo(d.value);
    }
  }
  return undefined;
}

/**
 * Node's codes of a connection or stream lost on the way (reset, refused,
 * closed by a GOAWAY, a stream refused unprocessed): the call may not have
 * reached the server, or its answer was lost.
 */
const LOST_ON_THE_WAY: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ERR_HTTP2_STREAM_ERROR",
  "ERR_HTTP2_STREAM_CANCEL",
  "ERR_HTTP2_GOAWAY_SESSION",
  "ERR_HTTP2_SESSION_ERROR",
  "ERR_HTTP2_INVALID_SESSION",
  "ERR_HTTP2_ERROR",
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

/**
 * Whether `error` failed in the transport rather than by the server's
 * answer. Connect-node reports such failures as INTERNAL (a stream refused
 * by a server going away) or ABORTED (a connection reset); gRPC's own
 * clients report them as UNAVAILABLE, and so does this SDK, so that they are
 * retried (with the same request id) instead of read as a stale version.
 */
function lostOnTheWay(error: ConnectError): boolean {
  let e: unknown = error.cause;
  for (let depth = 0; depth < 8 && typeof e === "object" && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && LOST_ON_THE_WAY.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The SDK error for a `google.rpc.Status` carried in a message (a session's
 * refused move): the same class, reason and metadata as the unary call's
 * error would have, from its ErrorInfo detail.
 */
export function errorFromStatus(status: {
  readonly code: number;
  readonly message: string;
  readonly details: readonly { readonly typeUrl: string; readonly value: Uint8Array }[];
}): ServiceError {
  const code = (status.code in CODE_NAMES ? status.code : Code.Unknown) as Code;
  const detail = status.details.find((d) => d.typeUrl.endsWith(`/${ERROR_INFO_TYPE}`));
  const info = detail === undefined ? undefined : decodeErrorInfo(detail.value);
  const cls = BY_CODE[code] ?? ServiceError;
  return new cls(code, info?.reason || CODE_NAMES[code] || "UNKNOWN", status.message, info?.metadata ?? {}, info?.domain ?? "");
}

/** The SDK error for a failed call (anything thrown by a Connect client). */
export function errorFromRpc(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const connect = ConnectError.from(error);
  const info = errorInfo(connect);
  const code =
    info === undefined && connect.code !== Code.Unavailable && connect.code !== Code.Canceled && lostOnTheWay(connect)
      ? Code.Unavailable
      : connect.code;
  const cls = BY_CODE[code] ?? ServiceError;
  return new cls(
    code,
    info?.reason || CODE_NAMES[code] || "UNKNOWN",
    connect.rawMessage,
    info?.metadata ?? {},
    info?.domain ?? "",
    { cause: error },
  );
}

export { RESUMABLE_WATCH_REASONS };

/**
 * The codes after which a call is made again: UNAVAILABLE (the server
 * restarting, a dropped connection) and CANCELLED, which this client never
 * causes on its own unary calls: a server that stops (a rolling update)
 * cancels the calls it had received but not yet started. Every call is safe
 * to repeat: reads, and writes with their `requestId`.
 */
export const RETRYABLE_CODES: ReadonlySet<Code> = new Set([Code.Unavailable, Code.Canceled]);

/**
 * Whether a watch that ended with `error` continues when resumed: the
 * server was unavailable or cancelled the call (it stopped), or it ended a
 * stream that fell too far behind.
 */
export function watchResumable(error: ServiceError): boolean {
  return RETRYABLE_CODES.has(error.code) || RESUMABLE_WATCH_REASONS.has(error.reason);
}
