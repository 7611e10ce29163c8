"""structlog set-up: JSON lines off a terminal, readable lines on one."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Mapping, MutableMapping
from typing import Any, TextIO

import orjson
import structlog


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
    out = sys.stderr if stream is None else stream
    use_json = not out.isatty() if json is None else json
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer(serializer=_dumps)
        if use_json
        else structlog.dev.ConsoleRenderer()
    )
    processors: list[structlog.types.Processor] = [structlog.contextvars.merge_contextvars]
    if fields:
        constant = dict(fields)

        def add_fields(
            logger: Any, name: str, event: MutableMapping[str, Any]
        ) -> Mapping[str, Any]:
            event.update(constant)
            return event

        processors.append(add_fields)
    structlog.configure(
        processors=[
            *processors,
            structlog.processors.add_log_level,
            _timestamp,
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        # a line and its newline in one write: the workers of ``ramino serve
        # --workers N`` share one stderr, and their lines must not interleave
        logger_factory=structlog.WriteLoggerFactory(out),
        cache_logger_on_first_use=cache,
    )
