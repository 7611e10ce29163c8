package dev.ramino.client

import dev.ramino.client.internal.rpc.RpcErrorInfo
import dev.ramino.client.internal.rpc.RpcStatus
import io.grpc.Metadata
import io.grpc.Status
import io.grpc.StatusException
import io.grpc.StatusRuntimeException

/**
 * A call the server refused (or that could not reach it), by its gRPC code:
 * `when (e) { is RaminoException.FailedPrecondition -> ...}`. [reason] is the
 * `google.rpc.ErrorInfo` reason the server sent (`NOT_YOUR_TURN`...; the
 * code's name when the status had no ErrorInfo), with its [domain] and
 * [metadata]; [detail] is the status message, for people.
 */
public sealed class RaminoException private constructor(p: Parts) : Exception(p.text(), p.cause) {
    public val code: Status.Code = p.code
    public val reason: String = p.reason
    public val detail: String = p.detail
    public val domain: String = p.domain
    public val metadata: Map<String, String> = p.metadata

    /** The canonical name of [code] (`FAILED_PRECONDITION`), as the other SDKs print it. */
    public val codeName: String get() = code.name

    /** INVALID_ARGUMENT: bad input (BAD_CARD_ID, UNKNOWN_VARIANT...); nothing changed. */
    public class InvalidArgument internal constructor(p: Parts) : RaminoException(p)

    /** NOT_FOUND: no such game (GAME_NOT_FOUND). */
    public class NotFound internal constructor(p: Parts) : RaminoException(p)

    /** ALREADY_EXISTS. */
    public class AlreadyExists internal constructor(p: Parts) : RaminoException(p)

    /** PERMISSION_DENIED: the token may not do this (WRONG_GAME, NOT_CREATOR, SPECTATING_DISABLED...). */
    public class PermissionDenied internal constructor(p: Parts) : RaminoException(p)

    /** UNAUTHENTICATED: no token or a token the server did not issue (TOKEN_MISSING, TOKEN_INVALID). */
    public class Unauthenticated internal constructor(p: Parts) : RaminoException(p)

    /** FAILED_PRECONDITION: a move the rules refuse now (NOT_YOUR_TURN, MATCH_OVER...). */
    public class FailedPrecondition internal constructor(p: Parts) : RaminoException(p)

    /**
     * ABORTED: the game is not at the version the move expected
     * (VERSION_MISMATCH); nothing changed. [expected] and [actual] come from
     * the ErrorInfo metadata.
     */
    public class Aborted internal constructor(p: Parts) : RaminoException(p) {
        public val expected: Long? get() = metadata["expected"]?.toLongOrNull()
        public val actual: Long? get() = metadata["actual"]?.toLongOrNull()
    }

    /** RESOURCE_EXHAUSTED: a limit of the server (too many games, watchers...). */
    public class ResourceExhausted internal constructor(p: Parts) : RaminoException(p)

    /** UNAVAILABLE, after the client's retries ran out. */
    public class Unavailable internal constructor(p: Parts) : RaminoException(p)

    /** CANCELLED by the server, after the client's retries ran out. */
    public class Cancelled internal constructor(p: Parts) : RaminoException(p)

    /** DEADLINE_EXCEEDED: the call took longer than the client's timeout. */
    public class DeadlineExceeded internal constructor(p: Parts) : RaminoException(p)

    /** Any other code (INTERNAL, UNKNOWN, UNIMPLEMENTED, OUT_OF_RANGE, DATA_LOSS). */
    public class Other internal constructor(p: Parts) : RaminoException(p)

    internal class Parts(
        val code: Status.Code,
        val reason: String,
        val detail: String,
        val domain: String,
        val metadata: Map<String, String>,
        val cause: Throwable?,
    ) {
        fun text(): String = if (detail.isEmpty()) "ramino: $reason ($code)" else "ramino: $reason ($code): $detail"
    }

    public companion object {
        private val DETAILS_KEY: Metadata.Key<ByteArray> =
            Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER)
        private const val ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"

        /** The typed error of a gRPC status and its trailers (ErrorInfo from `grpc-status-details-bin`). */
        public fun of(status: Status, trailers: Metadata?, cause: Throwable? = null): RaminoException {
            var reason = ""
            var domain = ""
            var metadata = emptyMap<String, String>()
            val details = trailers?.get(DETAILS_KEY)
            if (details != null) {
                val parsed = runCatching { RpcStatus.parseFrom(details) }.getOrNull()
                val info = parsed?.detailsList?.firstOrNull { it.typeUrl == ERROR_INFO_TYPE }
                if (info != null) {
                    runCatching { RpcErrorInfo.parseFrom(info.value) }.getOrNull()?.let {
                        reason = it.reason
                        domain = it.domain
                        metadata = it.metadataMap.toMap()
                    }
                }
            }
            if (reason.isEmpty()) reason = status.code.name
            return make(status.code, reason, status.description ?: "", domain, metadata, cause)
        }

        /** The typed error of a `google.rpc.Status` (a session's refused move), its ErrorInfo from its details. */
        public fun of(status: com.google.rpc.Status): RaminoException {
            val parsed = RpcStatus.parseFrom(status.toByteArray())
            val code = Status.fromCodeValue(parsed.code).code
            val info = parsed.detailsList.firstOrNull { it.typeUrl == ERROR_INFO_TYPE }
                ?.let { runCatching { RpcErrorInfo.parseFrom(it.value) }.getOrNull() }
            return make(
                code,
                info?.reason?.takeIf { it.isNotEmpty() } ?: code.name,
                parsed.message,
                info?.domain ?: "",
                info?.metadataMap?.toMap() ?: emptyMap(),
            )
        }

        /** The typed error of a grpc-java exception, or null when [t] is not a status. */
        public fun from(t: Throwable): RaminoException? = when (t) {
            is RaminoException -> t
            is StatusException -> of(t.status, t.trailers, t)
            is StatusRuntimeException -> of(t.status, t.trailers, t)
            else -> null
        }

        internal fun make(
            code: Status.Code,
            reason: String,
            detail: String,
            domain: String = "",
            metadata: Map<String, String> = emptyMap(),
            cause: Throwable? = null,
        ): RaminoException {
            val p = Parts(code, reason, detail, domain, metadata, cause)
            return when (code) {
                Status.Code.INVALID_ARGUMENT -> InvalidArgument(p)
                Status.Code.NOT_FOUND -> NotFound(p)
                Status.Code.ALREADY_EXISTS -> AlreadyExists(p)
                Status.Code.PERMISSION_DENIED -> PermissionDenied(p)
                Status.Code.UNAUTHENTICATED -> Unauthenticated(p)
                Status.Code.FAILED_PRECONDITION -> FailedPrecondition(p)
                Status.Code.ABORTED -> Aborted(p)
                Status.Code.RESOURCE_EXHAUSTED -> ResourceExhausted(p)
                Status.Code.UNAVAILABLE -> Unavailable(p)
                Status.Code.CANCELLED -> Cancelled(p)
                Status.Code.DEADLINE_EXCEEDED -> DeadlineExceeded(p)
                else -> Other(p)
            }
        }
    }
}
