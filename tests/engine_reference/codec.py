"""Commands and events as plain JSON data and back.

An object becomes ``{"type": <class name>, <field>: <value>, ...}`` with tuples
as lists. Reading checks every field against the class's type hints, so a bad
document is refused with one clear error instead of failing later in the fold.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, cast

from ramino import reasons

from tests.engine_reference.commands import COMMAND_TYPES, Command
from tests.engine_reference.errors import MalformedCommand, RecordError
from tests.engine_reference.events import EVENT_TYPES, Event

__all__ = ["to_data", "event_from_data", "command_from_data"]

_HINTS: dict[type, dict[str, Any]] = {}


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def to_data(obj: Event | Command) -> dict[str, object]:
    """``obj`` as a JSON-ready dict with its class name under ``"type"``."""
    data: dict[str, object] = {"type": type(obj).__name__}
    for f in dataclasses.fields(obj):
        data[f.name] = _plain(getattr(obj, f.name))
    return data


class _Mismatch(Exception):
    pass


def _convert(value: object, hint: Any) -> object:
    origin = typing.get_origin(hint)
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _Mismatch(f"expected an integer, got {value!r}")
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise _Mismatch(f"expected true or false, got {value!r}")
    if hint is str:
        if isinstance(value, str):
            return value
        raise _Mismatch(f"expected a string, got {value!r}")
    if hint is type(None):
        if value is None:
            return None
        raise _Mismatch(f"expected null, got {value!r}")
    if origin is typing.Literal:
        if value in typing.get_args(hint) and isinstance(value, str):
            return value
        raise _Mismatch(f"expected one of {typing.get_args(hint)}, got {value!r}")
    if origin is typing.Union or origin is types.UnionType:
        for option in typing.get_args(hint):
            try:
                return _convert(value, option)
            except _Mismatch:
                continue
        raise _Mismatch(f"unexpected value {value!r}")
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list | tuple):
            raise _Mismatch(f"expected a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(v, args[0]) for v in value)
        raise _Mismatch("fixed-length tuples are not used")  # pragma: no cover
    raise _Mismatch(f"unsupported field type {hint!r}")  # pragma: no cover


def _build(data: object, registry: Mapping[str, type], fail: Callable[[str], Exception]) -> object:
    if not isinstance(data, dict):
        raise fail(f"expected an object, got {type(data).__name__}")
    name = data.get("type")
    if not isinstance(name, str) or name not in registry:
        raise fail(f"unknown type {name!r}")
    cls = registry[name]
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = hints
    kwargs: dict[str, object] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is not dataclasses.MISSING:
                continue
            raise fail(f"{name}: missing field {f.name!r}")
        try:
            kwargs[f.name] = _convert(data[f.name], hints[f.name])
        except _Mismatch as e:
            raise fail(f"{name}.{f.name}: {e}") from None
    extra = set(data) - {f.name for f in dataclasses.fields(cls)} - {"type"}
    if extra:
        raise fail(f"{name}: unknown fields {sorted(extra)}")
    return cls(**kwargs)


def event_from_data(data: object) -> Event:
    """The event ``data`` describes; :class:`RecordError` if it describes none."""
    return cast(Event, _build(data, EVENT_TYPES, lambda m: RecordError(m, reasons.RECORD_FORMAT)))


def command_from_data(data: object) -> Command:
    """The command ``data`` describes; :class:`MalformedCommand` if none."""

    def fail(message: str) -> Exception:
        reason = reasons.UNKNOWN_COMMAND if "unknown type" in message else reasons.BAD_FIELD
        return MalformedCommand(message, reason)

    return cast(Command, _build(data, COMMAND_TYPES, fail))
