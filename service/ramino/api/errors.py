"""The one place where errors become gRPC statuses.

Every status carries a ``google.rpc.ErrorInfo`` with a stable UPPER_SNAKE
``reason`` and the domain ``ramino.v1``: malformed input INVALID_ARGUMENT, a
version the game has not reached OUT_OF_RANGE, an illegal move
FAILED_PRECONDITION, a stale version ABORTED, an unknown game NOT_FOUND, a
bad token UNAUTHENTICATED, acting for another seat PERMISSION_DENIED.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from ramino.app.fanout import WatcherTooSlow, WatchInterrupted
from ramino.app.values import (
    GameExists,
    GameNotFound,
    StoreError,
    TicketExists,
    VersionConflict,
)
from ramino.engine.errors import IllegalMove
from ramino.errors import (
    Busy,
    InputError,
    Interrupted,
    NotFound,
    NotPermitted,
    OutOfRange,
    RaminoError,
)

DOMAIN = "ramino.v1"
MAX_MESSAGE = 400
"""Longest status message: past it a message is cut (a safety net behind
:func:`excerpt`, so that no error outgrows a client's metadata limit)."""


class ApiError(RaminoError):
    """An error decided by the transport itself (tokens, lookups, limits),
    with its status code: a :class:`~ramino.errors.RaminoError` like every
    other, its reason one of :mod:`ramino.reasons`."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str) -> None:
        super().__init__(message, reason)
        self.code, self.message = code, message

    def __reduce__(self) -> tuple[type[ApiError], tuple[grpc.StatusCode, str, str]]:  # type: ignore[override]
        return (type(self), (self.code, self.reason, self.message))


def make_status(
    code: grpc.StatusCode,
    reason: str,
    message: str,
    metadata: dict[str, str] | None = None,
    retry_after: float | None = None,
) -> grpc.Status:
    """The status of an error: its ErrorInfo first (``reason``, the
    domain, ``metadata``), then, with ``retry_after`` (seconds), a
    ``google.rpc.RetryInfo`` saying when to try again (also in the
    ErrorInfo's metadata, as ``retry_after_ms``, for a client that reads
    only that)."""
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    metadata = dict(metadata or {})
    if retry_after is not None:
        metadata["retry_after_ms"] = str(round(retry_after * 1000))
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    if retry_after is not None:
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.FromNanoseconds(round(retry_after * 1e9))
        details.append(any_pb2.Any())
        details[-1].Pack(retry)
    status = status_pb2.Status(code=code.value[0], message=message, details=details)
    result: grpc.Status = rpc_status.to_status(status)
    return result


def status_for(exc: BaseException) -> grpc.Status | None:
    """The status for an expected error, by its class under
    :class:`~ramino.errors.RaminoError`; ``None`` for a bug (a store error
    without a status of its own, or anything else)."""
    match exc:
        case ApiError():
            return make_status(exc.code, exc.reason, exc.message)
        case VersionConflict():
            return make_status(
                grpc.StatusCode.ABORTED,
                exc.reason,
                str(exc),
                {"expected": str(exc.expected), "actual": str(exc.actual)},
            )
        case GameNotFound():
            return make_status(grpc.StatusCode.NOT_FOUND, exc.reason, str(exc))
        case WatcherTooSlow() | WatchInterrupted():
            # The version to resume after, as data (the message says it too).
            code = (
                grpc.StatusCode.UNAVAILABLE
                if isinstance(exc, WatchInterrupted)
                else grpc.StatusCode.RESOURCE_EXHAUSTED
            )
            return make_status(
                code, exc.reason, str(exc), {"after_version": str(exc.after_version)}
            )
        case GameExists() | TicketExists():
            return make_status(grpc.StatusCode.ALREADY_EXISTS, exc.reason, str(exc))
        case Interrupted():
            # The store's too (NotReplicated, StoreUnavailable): not
            # acknowledged, so the client retries with its request id and
            # gets the first answer if the write did land.
            # ShardUnavailable says when to try again.
            retry_after = getattr(exc, "retry_after", None)
            return make_status(
                grpc.StatusCode.UNAVAILABLE, exc.reason, str(exc), retry_after=retry_after
            )
        case StoreError():
            return None
        case IllegalMove():
            return make_status(grpc.StatusCode.FAILED_PRECONDITION, exc.reason, str(exc))
        case OutOfRange():  # bad input, but not for ever: before InputError
            return make_status(grpc.StatusCode.OUT_OF_RANGE, exc.reason, str(exc))
        case InputError():
            return make_status(grpc.StatusCode.INVALID_ARGUMENT, exc.reason, str(exc))
        case NotPermitted():
            return make_status(grpc.StatusCode.PERMISSION_DENIED, exc.reason, str(exc))
        case NotFound():
            return make_status(grpc.StatusCode.NOT_FOUND, exc.reason, str(exc))
        case Busy():
            return make_status(grpc.StatusCode.RESOURCE_EXHAUSTED, exc.reason, str(exc))
        case RaminoError():
            return make_status(grpc.StatusCode.FAILED_PRECONDITION, exc.reason, str(exc))
        case _:
            return None
