"""structlog set-up: JSON lines off a terminal, readable lines on one.

Fields bound for the rest of a task's work (an RPC's game, seat, request
hash) are kept by :func:`bind_context` in one context variable and merged
into every line; :func:`info` logs a line through the configured processors
without structlog's logger objects (the canonical line of every RPC)."""

from __future__ import annotations

import asyncio
import atexit
import logging
import sys
import threading
import time
from collections.abc import Mapping, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TextIO

import orjson
import structlog

_NOTHING: Mapping[str, Any] = {}
_CONTEXT: ContextVar[Mapping[str, Any]] = ContextVar("ramino_log_context", default=_NOTHING)
"""The fields bound to the lines of the current task: never changed in
place (a task started meanwhile keeps what was bound when it started)."""


def clear_context() -> None:
    """No field bound from here on (an RPC starts)."""
    _CONTEXT.set(_NOTHING)


def bind_context(**fields: Any) -> None:
    """``fields`` added to every line logged from here on in this task."""
    _CONTEXT.set({**_CONTEXT.get(), **fields})


def _merge_context(logger: Any, name: str, event: MutableMapping[str, Any]) -> Mapping[str, Any]:
    for key, value in _CONTEXT.get().items():
        event.setdefault(key, value)
    return event


def _dumps(event: Any, **kw: Any) -> str:
    """One JSON line by orjson (what is not JSON becomes its ``repr``)."""
    return orjson.dumps(event, default=repr).decode()


_second: tuple[int, str] = (-1, "")  # the last whole second seen, and its ISO text


def _timestamp(logger: Any, name: str, event: MutableMapping[str, Any]) -> Mapping[str, Any]:
    """``timestamp``: UTC in ISO 8601 with microseconds, as structlog's
    ``TimeStamper(fmt="iso", utc=True)`` writes it, the seconds' text made once a second."""
    global _second
    now = time.time()
    second, text = _second
    if int(now) != second:
        second = int(now)
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _second = (second, text)
    event["timestamp"] = f"{text}.{int((now - second) * 1e6):06d}Z"
    return event


PIPE_BUF = 4096
"""A write of at most this many bytes to a pipe is never interleaved with
another process's (the workers of ``ramino serve --workers N`` share one
stderr)."""


class BatchedWriteLogger:
    """structlog's ``WriteLogger``, except that the lines logged during one
    turn of the event loop go out together at its end: one write (of at most
    :data:`PIPE_BUF` bytes, whole lines) for many lines, rather than a write
    and a flush a line. Outside a running loop (start-up, threads) a line is
    written at once, after any waiting ones; whatever waits is written at
    exit too."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._lines: list[str] = []
        self._lock = threading.Lock()

    def msg(self, message: str) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        with self._lock:
            self._lines.append(message)
            first = len(self._lines) == 1
        if loop is None:
            self.flush()
        elif first:
            loop.call_soon(self.flush)

    log = debug = info = warn = warning = err = error = critical = exception = fatal = msg

    def flush(self) -> None:
        with self._lock:
            lines, self._lines = self._lines, []
            if not lines:
                return
            chunk: list[str] = []
            size = 0
            for line in lines:
                n = (len(line) if line.isascii() else len(line.encode())) + 1
                if chunk and size + n > PIPE_BUF:
                    self._write(chunk)
                    chunk, size = [], 0
                chunk.append(line)
                size += n
            self._write(chunk)

    def _write(self, chunk: list[str]) -> None:
        try:
            self._out.write("\n".join(chunk) + "\n")
            self._out.flush()
        except ValueError:
            pass  # the stream was closed (at exit): nothing more can be said


_logger: BatchedWriteLogger | None = None
"""The logger of the last :func:`configure`."""


@dataclass(frozen=True)
class _Pipeline:
    processors: list[Any]
    """The list given to structlog (replaced when it is set up otherwise)."""
    level: int
    logger: BatchedWriteLogger
    factory: object


_pipeline: _Pipeline | None = None
"""What the last :func:`configure` set up, for :func:`info`."""


def info(fallback: Any, event: str, **fields: Any) -> None:
    """``fallback.info(event, **fields)`` (a structlog logger), the same
    line made by the configured processors directly: several times cheaper,
    for the line logged on every RPC. With structlog set up otherwise since
    (reset, or capturing logs), the line goes through ``fallback``."""
    pipeline = _pipeline
    config = structlog.get_config()
    if (
        pipeline is None
        or config["processors"] is not pipeline.processors
        or config["logger_factory"] is not pipeline.factory
    ):
        fallback.info(event, **fields)
        return
    if pipeline.level > logging.INFO:
        return
    line: Any = fields
    line["event"] = event
    try:
        # The list structlog holds (a test capturing logs changes it in place).
        for processor in pipeline.processors:
            line = processor(pipeline.logger, "info", line)
    except structlog.DropEvent:
        return
    pipeline.logger.msg(line)


@atexit.register
def flush() -> None:
    """Writes the lines still waiting for the end of the loop's turn (at
    exit, and where a process ends without running ``atexit``: the
    workers of ``ramino serve --workers N``)."""
    if _logger is not None:
        _logger.flush()


def configure(
    level: str = "info",
    json: bool | None = None,
    stream: TextIO | None = None,
    cache: bool = True,
    fields: Mapping[str, Any] | None = None,
) -> None:
    """Logs go to ``stream`` (stderr by default), as JSON lines unless it is a
    terminal. With ``cache`` each logger keeps this set-up from its first use
    on (fast); without, a later ``configure`` applies to it too (tests).
    ``fields`` are added to every line (a worker's number and pid)."""
    global _logger, _pipeline
    out = sys.stderr if stream is None else stream
    if _logger is not None:
        _logger.flush()
    logger = _logger = BatchedWriteLogger(out)
    use_json = not out.isatty() if json is None else json
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer(serializer=_dumps)
        if use_json
        else structlog.dev.ConsoleRenderer()
    )
    processors: list[structlog.types.Processor] = [_merge_context]
    if fields:
        constant = dict(fields)

        def add_fields(
            logger: Any, name: str, event: MutableMapping[str, Any]
        ) -> Mapping[str, Any]:
            event.update(constant)
            return event

        processors.append(add_fields)
    processors += [
        structlog.processors.add_log_level,
        _timestamp,
        structlog.processors.format_exc_info,
        renderer,
    ]
    level_number = logging.getLevelNamesMapping()[level.upper()]
    factory = lambda *args: logger  # noqa: E731
    _pipeline = _Pipeline(processors, level_number, logger, factory)
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(level_number),
        # whole lines in one write: the workers of ``ramino serve --workers N``
        # share one stderr, and their lines must not interleave
        logger_factory=factory,
        cache_logger_on_first_use=cache,
    )
