"""Server interceptors: one canonical log line and metrics per RPC, expected
errors mapped to their status, and anything unexpected turned into INTERNAL
and logged once."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc
import structlog
from prometheus_client import Counter, Histogram

from ramino.api.errors import make_status, status_for

log = structlog.get_logger("ramino.rpc")
if TYPE_CHECKING:
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


def _code(context: Context) -> str:
    code = context.code()
    if code is None:
        return "OK"
    return code.name if isinstance(code, grpc.StatusCode) else str(code)


async def _handle(exc: BaseException, context: Context, method: str) -> None:
    status = status_for(exc)
    if status is None:
        log.exception("unexpected error", rpc=method)
        status = make_status(grpc.StatusCode.INTERNAL, "INTERNAL", "internal error")
    await context.abort_with_status(status)


def _serializer(serialize: Callable[[Any], bytes] | None) -> Callable[[Any], bytes] | None:
    """The method's serializer, letting through a response the handler already
    serialized (the move RPCs answer with the bytes the store keeps, and a
    watch stream sends each event as encoded once for its viewer class)."""
    if serialize is None:
        return None
    inner = serialize

    def serializer(message: Any) -> bytes:
        return message if type(message) is bytes else inner(message)

    return serializer


class ServiceInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self) -> None:
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
        wrapped = wrap_handler(found, details.method.rsplit("/", 1)[-1])
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
        structlog.contextvars.clear_contextvars()
        self._start = time.perf_counter()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> bool:
        try:
            if not isinstance(exc, Exception) or isinstance(exc, grpc.aio.AbortError):
                return False
            await _handle(exc, self._context, self._method)  # aborts the RPC
            return True
        finally:
            _done(self._method, self._context, self._start)


def wrap_handler(found: Handler, method: str) -> Handler:
    """``found`` with the canonical log line, metrics and error mapping of
    every RPC (what the interceptor serves in its place)."""
    handler: Any = found
    if handler.unary_unary is not None:
        inner = handler.unary_unary

        async def unary(request: Any, context: Context) -> Any:
            async with _Rpc(method, context):
                return await inner(request, context)

        return grpc.unary_unary_rpc_method_handler(
            unary,
            request_deserializer=handler.request_deserializer,
            response_serializer=_serializer(handler.response_serializer),
        )
    if handler.unary_stream is not None:
        inner_stream = handler.unary_stream

        async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
            async with _Rpc(method, context):
                async for item in inner_stream(request, context):
                    yield item

        return grpc.unary_stream_rpc_method_handler(
            stream,
            request_deserializer=handler.request_deserializer,
            response_serializer=_serializer(handler.response_serializer),
        )
    return found


# The metrics' children by labels, looked up once (``labels`` takes a lock).
_COUNTERS: dict[tuple[str, str], Any] = {}
_HISTOGRAMS: dict[str, Any] = {}


def _done(method: str, context: Context, start: float) -> None:
    latency = time.perf_counter() - start
    code = _code(context)
    counter = _COUNTERS.get((method, code))
    if counter is None:
        counter = _COUNTERS[method, code] = RPCS.labels(method, code)
    counter.inc()
    histogram = _HISTOGRAMS.get(method)
    if histogram is None:
        histogram = _HISTOGRAMS[method] = LATENCY.labels(method)
    histogram.observe(latency)
    log.info("rpc", rpc=method, status=code, latency_ms=round(latency * 1000, 3))
