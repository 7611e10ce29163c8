"""The one place where errors become gRPC statuses.

Every status carries a ``google.rpc.ErrorInfo`` with a stable UPPER_SNAKE
``reason`` and the domain ``ramino.v1``. Its code is the reason's in the one
registry, :mod:`ramino.reasons`, and nowhere else: malformed input
INVALID_ARGUMENT, a version the game has not reached OUT_OF_RANGE, an
illegal move FAILED_PRECONDITION, a stale version ABORTED, an unknown game
NOT_FOUND, a bad token UNAUTHENTICATED, acting for another seat
PERMISSION_DENIED. An error's class adds only the data a client acts on
(the versions of a conflict, the version a watch resumes after, when to
retry).
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from ramino import reasons
from ramino.app.games.fanout import WatcherTooSlow, WatchInterrupted
from ramino.app.values import VersionConflict
from ramino.errors import InputError, Interrupted, RaminoError
from ramino.reasons import Code

DOMAIN = "ramino.v1"
MAX_MESSAGE = 400
"""Longest status message: past it a message is cut (a safety net behind
:func:`excerpt`, so that no error outgrows a client's metadata limit)."""


class ApiError(RaminoError):
    """An error decided by the transport itself (tokens, lookups, limits):
    a :class:`~ramino.errors.RaminoError` like every other, its reason one
    of :mod:`ramino.reasons`, which gives its status code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message, reason)

    @property
    def code(self) -> grpc.StatusCode:
        """The status code the registry gives its reason."""
        return _grpc_code(reasons.code_of(self.reason))

    def __reduce__(self) -> tuple[type[ApiError], tuple[str, str]]:
        return (type(self), (self.reason, str(self)))


def _grpc_code(code: Code) -> grpc.StatusCode:
    result: grpc.StatusCode = grpc.StatusCode[code.value]
    return result


def make_status(
    reason: str,
    message: str,
    metadata: dict[str, str] | None = None,
    retry_after: float | None = None,
    *,
    as_input: bool = False,
) -> grpc.Status:
    """The status of an error of ``reason`` (raised as bad input if
    ``as_input``), with the code the registry gives it: its ErrorInfo first
    (``reason``, the domain, ``metadata``), then, with ``retry_after``
    (seconds), a ``google.rpc.RetryInfo`` saying when to try again (also in
    the ErrorInfo's metadata, as ``retry_after_ms``, for a client that reads
    only that)."""
    code = reasons.code_of(reason, as_input=as_input)
    if code is Code.OK:
        raise ValueError(f"{reason} is answered in a field, never as a status")
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
    status = status_pb2.Status(code=_grpc_code(code).value[0], message=message, details=details)
    result: grpc.Status = rpc_status.to_status(status)
    return result


def _metadata(exc: RaminoError) -> dict[str, str]:
    """What a client acts on beside the reason, as data (the message says
    it too)."""
    match exc:
        case VersionConflict():
            return {"expected": str(exc.expected), "actual": str(exc.actual)}
        case WatcherTooSlow() | WatchInterrupted():
            return {"after_version": str(exc.after_version)}
        case _:
            return {}


def status_for(exc: BaseException) -> grpc.Status | None:
    """The status for an expected error: a
    :class:`~ramino.errors.RaminoError` with the code the registry gives its
    reason. ``None`` for a bug: anything else, or an error whose reason is
    not registered, is INTERNAL (a store error without a status of its own)
    or is only ever answered in a field (a meld's reason)."""
    if not isinstance(exc, RaminoError):
        return None
    as_input = isinstance(exc, InputError)
    if reasons.code_of(exc.reason, as_input=as_input) in (Code.INTERNAL, Code.OK):
        return None
    # The store's Interrupted (NotReplicated, StoreUnavailable) are not
    # acknowledged: the client retries with its request id and gets the first
    # answer if the write did land. ShardUnavailable says when to try again.
    retry_after = getattr(exc, "retry_after", None) if isinstance(exc, Interrupted) else None
    return make_status(exc.reason, str(exc), _metadata(exc), retry_after, as_input=as_input)
