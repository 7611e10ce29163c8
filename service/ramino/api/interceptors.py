"""Server interceptors: one canonical log line and metrics per RPC, expected
errors mapped to their status, and anything unexpected turned into INTERNAL
and logged once. A call its client cancelled ends CANCELLED, an ordinary
end, even when gRPC fails a send the handler had under way (a session's
``context.write``).

Requests reach the wrapped handlers as bytes and are decoded there, inside
the error mapping: a request over the server's size limit is
RESOURCE_EXHAUSTED (``REQUEST_TOO_LARGE``) and one that does not decode is
INVALID_ARGUMENT (``MALFORMED_REQUEST``), each with its ErrorInfo, log line
and metric like any other answer. gRPC's own transport limit is set above
the server's (see :func:`transport_limit`); a message past *that* hard cap
is refused by gRPC itself before any handler runs (RESOURCE_EXHAUSTED with
no ErrorInfo, no log line, no metric)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc
import structlog
from google.rpc import error_details_pb2, status_pb2
from prometheus_client import Counter, Histogram

from ramino import logs
from ramino import reasons as R
from ramino.api.errors import ApiError, make_status, status_for

log = structlog.get_logger("ramino.rpc")
if TYPE_CHECKING:
    from ramino.api.stream_budget import StreamBudget

    Context = grpc.aio.ServicerContext[Any, Any]
    Handler = grpc.RpcMethodHandler[Any, Any]
else:
    Context = grpc.aio.ServicerContext
    Handler = grpc.RpcMethodHandler

RPCS = Counter("ramino_rpcs", "RPCs handled, by method and status code", ["method", "code"])
LATENCY = Histogram(
    "ramino_rpc_latency_seconds",
    "RPC latency (to the first message for streams)",
    ["method"],
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)


DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024
"""The largest request, refused by its length before it is decoded: a
request is decoded on the event loop holding the GIL (a thread would stall
the loop as long: the protobuf library does not release it), so what the
loop decodes is kept small. The largest request a client needs is far
below it: AnalyzeHand at its limits (30 cards, 64 melds of 20) is 6.7 kB,
a move under 1 kB."""


def transport_limit(max_message_bytes: int) -> int:
    """gRPC's receive limit for a server whose requests are refused past
    ``max_message_bytes``: twice that, so that a request somewhat over the
    limit still reaches the handler and is refused with an ErrorInfo; only
    past the transport limit does gRPC refuse it bare."""
    return 2 * max_message_bytes


def _code(context: Context, exc: BaseException | None = None) -> str:
    code = context.code()
    if code is None:
        # A handler's task cancelled by gRPC (its client cancelled, or the
        # server stopped), or a stream's generator closed before its end
        # (gRPC stopped taking its messages), set no code of its own: the
        # call ended CANCELLED.
        gone = isinstance(exc, asyncio.CancelledError | GeneratorExit)
        return "CANCELLED" if gone else "OK"
    return code.name if isinstance(code, grpc.StatusCode) else str(code)


def _client_gone(exc: BaseException, context: Context) -> bool:
    """Whether ``exc`` is gRPC's own failure to send on a call that is gone:
    a write's ``ExecuteBatchError`` (an ``InternalError``: the core refused
    the batch of a call its client cancelled, or that the connection or the
    server's stop ended; raised before gRPC tells the handler's task of the
    cancel, so ``context.cancelled()`` is not yet true), or another of
    gRPC's own errors once the call says it was cancelled. An ordinary end,
    not a bug: an error of the server's own code stays unexpected,
    cancelled call or not."""
    if isinstance(exc, grpc.aio.AbortError):
        return False
    return isinstance(exc, grpc.aio.InternalError) or (
        isinstance(exc, grpc.aio.BaseError) and context.cancelled()
    )


def _status_of(exc: BaseException, method: str) -> grpc.Status:
    """The status answering ``exc``: its own, or INTERNAL (logged) for
    anything unexpected."""
    status = status_for(exc)
    if status is None:
        log.exception("unexpected error", rpc=method)
        status = make_status(R.INTERNAL, "internal error")
    # The canonical log line says why, as the ErrorInfo does.
    logs.bind_context(reason=_reason(status))
    return status


def _reason(status: grpc.Status) -> str | None:
    """The ErrorInfo reason of a status made by :func:`make_status`."""
    for key, value in status.trailing_metadata:
        if key == "grpc-status-details-bin":
            info = error_details_pb2.ErrorInfo()
            details = status_pb2.Status.FromString(value).details
            if details and details[0].Unpack(info):
                return str(info.reason)
    return None


class ServiceInterceptor(grpc.aio.ServerInterceptor):
    def __init__(
        self,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        streams: StreamBudget | None = None,
    ) -> None:
        """``streams``: the server's stream budget, a slot of which every
        stream takes before its handler runs (None: no budget)."""
        self.max_message_bytes = max_message_bytes
        self.streams = streams
        # Wrapped handlers by method, built on the first call and kept while
        # the server hands out the same handler for that method.
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        found = await continuation(details)
        if found is None:
            return None
        cached = self._wrapped.get(details.method)
        if cached is not None and cached[0] is found:
            return cached[1]
        wrapped = wrap_handler(
            found, details.method.rsplit("/", 1)[-1], self.max_message_bytes, self.streams
        )
        self._wrapped[details.method] = (found, wrapped)
        return wrapped


class _Rpc:
    """Around one RPC's handler: the context variables cleared first; an
    expected error mapped to its status, anything else reported as INTERNAL;
    the log line and metrics last."""

    __slots__ = ("_method", "_context", "_start")

    def __init__(self, method: str, context: Context) -> None:
        self._method, self._context = method, context

    async def __aenter__(self) -> None:
        logs.clear_context()
        self._start = time.perf_counter()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> bool:
        if not isinstance(exc, Exception) or isinstance(exc, grpc.aio.AbortError):
            _done(self._method, _code(self._context, exc), self._start)
            return False
        if _client_gone(exc, self._context):
            # Nothing to answer: the client is gone, as its cancel said.
            _done(self._method, "CANCELLED", self._start)
            return True
        status = _status_of(exc, self._method)
        code = status.code.name if isinstance(status.code, grpc.StatusCode) else str(status.code)
        # The line is logged before the status goes out (lines are written
        # at the end of the loop's turn: see ramino.logs).
        _done(self._method, code, self._start)
        await self._context.abort_with_status(status)
        return True


def _decoder(deserialize: Callable[[bytes], Any] | None, limit: int) -> Callable[[bytes], Any]:
    """The request from its bytes, checked against the size ``limit``;
    raises the ApiError of an over-size or undecodable request."""
    if deserialize is None:
        inner: Callable[[bytes], Any] = lambda raw: raw  # noqa: E731
    else:
        inner = deserialize

    def decode(raw: bytes) -> Any:
        if len(raw) > limit:
            raise ApiError(
                R.REQUEST_TOO_LARGE,
                f"a request is at most {limit} bytes, this one {len(raw)}",
            )
        try:
            return inner(raw)
        except Exception:
            raise ApiError(
                R.MALFORMED_REQUEST,
                "the request does not decode as the method's request message",
            ) from None

    return decode


def _passing_bytes(serialize: Callable[[Any], bytes] | None) -> Callable[[Any], bytes]:
    """A stream's response serializer that sends bytes as they are: what a
    watch fans out is serialized once per viewer class, not per stream."""

    def serializer(message: Any) -> bytes:
        if isinstance(message, bytes) or serialize is None:
            return message  # type: ignore[no-any-return]
        return serialize(message)

    return serializer


def wrap_handler(
    found: Handler,
    method: str,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    streams: StreamBudget | None = None,
) -> Handler:
    """``found`` with the canonical log line, metrics and error mapping of
    every RPC (what the interceptor serves in its place). The request
    arrives as bytes and is decoded inside the error mapping. A stream
    holds one of ``streams``' slots while it is open, taken inside the
    error mapping too (a refusal has its ErrorInfo, log line and metric)."""
    handler: Any = found

    def slot(context: Context) -> contextlib.AbstractContextManager[None]:
        if streams is None:
            return contextlib.nullcontext()
        return streams.held(context.peer())

    decode = _decoder(handler.request_deserializer, max_message_bytes)
    if handler.unary_unary is not None:
        inner = handler.unary_unary

        async def unary(raw: bytes, context: Context) -> Any:
            async with _Rpc(method, context):
                return await inner(decode(raw), context)

        return grpc.unary_unary_rpc_method_handler(
            unary, response_serializer=handler.response_serializer
        )
    if handler.unary_stream is not None:
        inner_stream = handler.unary_stream

        async def stream(raw: bytes, context: Context) -> AsyncIterator[Any]:
            async with _Rpc(method, context):
                with slot(context):
                    answers = inner_stream(decode(raw), context)
                    if inspect.isawaitable(answers):
                        # A handler that sends with context.write (the stock
                        # health servicer's Watch), not by yielding.
                        await answers
                        return
                    async for item in answers:
                        yield item

        return grpc.unary_stream_rpc_method_handler(
            stream, response_serializer=_passing_bytes(handler.response_serializer)
        )
    if handler.stream_stream is not None:
        inner_bidi = handler.stream_stream

        async def decoded(requests: AsyncIterator[bytes]) -> AsyncIterator[Any]:
            async for raw in requests:
                yield decode(raw)

        if inspect.iscoroutinefunction(inner_bidi):
            # A handler that sends with context.write (PlayGame): no
            # generator between it and the call, a write a message.
            async def writing(requests: AsyncIterator[bytes], context: Context) -> None:
                async with _Rpc(method, context):
                    with slot(context):
                        await inner_bidi(decoded(requests), context)

            return grpc.stream_stream_rpc_method_handler(
                writing, response_serializer=_passing_bytes(handler.response_serializer)
            )

        async def bidi(requests: AsyncIterator[bytes], context: Context) -> AsyncIterator[Any]:
            # Each client message is checked and decoded as a unary request is;
            # one that is not ends the stream with its error.
            async with _Rpc(method, context):
                with slot(context):
                    async for item in inner_bidi(decoded(requests), context):
                        yield item

        return grpc.stream_stream_rpc_method_handler(
            bidi, response_serializer=_passing_bytes(handler.response_serializer)
        )
    return found


# The metrics' children by labels, looked up once (``labels`` takes a lock).
_COUNTERS: dict[tuple[str, str], Any] = {}
_HISTOGRAMS: dict[str, Any] = {}


def _done(method: str, code: str, start: float) -> None:
    latency = time.perf_counter() - start
    counter = _COUNTERS.get((method, code))
    if counter is None:
        counter = _COUNTERS[method, code] = RPCS.labels(method, code)
    counter.inc()
    histogram = _HISTOGRAMS.get(method)
    if histogram is None:
        histogram = _HISTOGRAMS[method] = LATENCY.labels(method)
    histogram.observe(latency)
    logs.info(log, "rpc", rpc=method, status=code, latency_ms=round(latency * 1000, 3))
