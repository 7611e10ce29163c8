"""The SDK's exceptions: one class per gRPC status the server answers with,
each carrying the server's ``google.rpc.ErrorInfo`` reason.

Branch on the class for the kind of failure and on ``reason`` (a stable
UPPER_SNAKE code such as ``NOT_YOUR_TURN``) for the rule that refused it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from ramino_client import reasons

__all__ = [
    "ServiceError",
    "InvalidArgument",
    "MoveRejected",
    "StaleVersion",
    "NotFound",
    "AlreadyExists",
    "Unauthenticated",
    "PermissionDenied",
    "Unavailable",
    "error_from_rpc",
]


class ServiceError(Exception):
    """The server refused a call, or could not be reached.

    ``reason`` is the ErrorInfo reason (the status code's name when the
    answer carried none), ``message`` the server's explanation, ``metadata``
    the ErrorInfo metadata.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str = "",
        metadata: Mapping[str, str] | None = None,
        domain: str = "",
    ) -> None:
        super().__init__(f"{reason}: {message}" if message else reason)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata: Mapping[str, str] = dict(metadata or {})
        self.domain = domain


class InvalidArgument(ServiceError, ValueError):
    """INVALID_ARGUMENT: the request cannot be meant (unknown card id, empty meld...)."""


class MoveRejected(ServiceError):
    """FAILED_PRECONDITION: a well-formed move the rules refuse now."""


class StaleVersion(ServiceError):
    """ABORTED: ``expected_version`` is not the game's version any more."""

    @property
    def expected(self) -> int | None:
        return _int_or_none(self.metadata.get("expected"))

    @property
    def actual(self) -> int | None:
        return _int_or_none(self.metadata.get("actual"))


class NotFound(ServiceError):
    """NOT_FOUND: no such game."""


class AlreadyExists(ServiceError):
    """ALREADY_EXISTS."""


class Unauthenticated(ServiceError):
    """UNAUTHENTICATED: the seat token is missing, forged or expired."""


class PermissionDenied(ServiceError):
    """PERMISSION_DENIED: the token acts for another game or seat."""


class Unavailable(ServiceError):
    """UNAVAILABLE, still, after every retry."""


_BY_CODE: dict[grpc.StatusCode, type[ServiceError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.FAILED_PRECONDITION: MoveRejected,
    grpc.StatusCode.ABORTED: StaleVersion,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
}


def _int_or_none(value: str | None) -> int | None:
    try:
        return None if value is None else int(value)
    except ValueError:
        return None


def _error_info(call: Any) -> tuple[str, str, dict[str, str]]:
    """(reason, domain, metadata) of the first ErrorInfo in the status details."""
    try:
        status = rpc_status.from_call(call)
    except ValueError:  # details whose code disagrees with the call's
        return "", "", {}
    if status is None:
        return "", "", {}
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return (
                str(info.reason),
                str(info.domain),
                {str(k): str(v) for k, v in info.metadata.items()},
            )
    return "", "", {}


def error_from_rpc(error: grpc.RpcError) -> ServiceError:
    """The SDK exception for a failed call (sync ``grpc.RpcError`` or ``AioRpcError``)."""
    call: Any = error
    code = call.code() if callable(getattr(call, "code", None)) else grpc.StatusCode.UNKNOWN
    message = call.details() if callable(getattr(call, "details", None)) else ""
    reason, domain, metadata = _error_info(call)
    cls = _BY_CODE.get(code, ServiceError)
    return cls(code, reason or code.name, message or "", metadata, domain)


RESUMABLE_WATCH_REASONS = reasons.RESUMABLE_WATCH
"""Reasons that end a watch stream which a resume (``after_version``) continues."""


def watch_resumable(error: grpc.RpcError) -> bool:
    """Whether a watch that ended with ``error`` continues when resumed: the
    server was unavailable or cancelled the call (it stopped), or it ended
    a stream that fell too far behind."""
    failure = error_from_rpc(error)
    return failure.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED) or (
        failure.reason in RESUMABLE_WATCH_REASONS
    )
