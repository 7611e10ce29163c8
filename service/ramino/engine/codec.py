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
from ramino.engine.commands import COMMAND_TYPES, Command
from ramino.engine.errors import MalformedCommand, RecordError
from ramino.engine.events import EVENT_TYPES, Event

__all__ = ["to_data", "event_from_data", "command_from_data"]


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # A value inside an event (a score's part): its fields, its class
        # known from the event's type hints.
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def to_data(obj: Event | Command) -> dict[str, object]:
    """``obj`` as a JSON-ready dict with its class name under ``"type"``."""
    data: dict[str, object] = {"type": type(obj).__name__}
    for f in dataclasses.fields(obj):
        data[f.name] = _plain(getattr(obj, f.name))
    return data


class _Mismatch(Exception):
    pass


Convert = Callable[[object], object]
_CONVERTERS: dict[Any, Convert] = {}
_SHAPES: dict[type, tuple[tuple[tuple[str, Convert, bool], ...], frozenset[str]]] = {}
"""Each class's fields as read (name, converter, whether it has a default)
and the names a document of it may hold, found once per class: a long
game's fold, snapshot and catch-up read thousands of events."""


def _converter(hint: Any) -> Convert:
    """What reads a value as ``hint``, made once per hint: a long game's
    fold, snapshot and catch-up read thousands of fields of a few hints."""
    found = _CONVERTERS.get(hint)
    if found is None:
        found = _CONVERTERS[hint] = _make_converter(hint)
    return found


def _make_converter(hint: Any) -> Convert:
    if hint is int:

        def integer(value: object) -> object:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            raise _Mismatch(f"expected an integer, got {value!r}")

        return integer
    if hint is bool:

        def boolean(value: object) -> object:
            if isinstance(value, bool):
                return value
            raise _Mismatch(f"expected true or false, got {value!r}")

        return boolean
    if hint is str:

        def string(value: object) -> object:
            if isinstance(value, str):
                return value
            raise _Mismatch(f"expected a string, got {value!r}")

        return string
    if hint is type(None):

        def null(value: object) -> object:
            if value is None:
                return None
            raise _Mismatch(f"expected null, got {value!r}")

        return null
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Literal:

        def literal(value: object) -> object:
            if value in args and isinstance(value, str):
                return value
            raise _Mismatch(f"expected one of {args}, got {value!r}")

        return literal
    if origin is typing.Union or origin is types.UnionType:
        options = [_converter(option) for option in args]

        def union(value: object) -> object:
            for option in options:
                try:
                    return option(value)
                except _Mismatch:
                    continue
            raise _Mismatch(f"unexpected value {value!r}")

        return union
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _converter(args[0])

        def items(value: object) -> object:
            if not isinstance(value, list | tuple):
                raise _Mismatch(f"expected a list, got {value!r}")
            return tuple(item(v) for v in value)

        return items

    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        cls = hint

        def nested(value: object) -> object:
            if not isinstance(value, dict):
                raise _Mismatch(f"expected an object, got {value!r}")
            return _fields(cls, value, _Mismatch)

        return nested

    def unsupported(value: object) -> object:  # pragma: no cover
        if origin is tuple:
            if not isinstance(value, list | tuple):
                raise _Mismatch(f"expected a list, got {value!r}")
            raise _Mismatch("fixed-length tuples are not used")
        raise _Mismatch(f"unsupported field type {hint!r}")

    return unsupported


def _shape(cls: type) -> tuple[tuple[tuple[str, Convert, bool], ...], frozenset[str]]:
    shape = _SHAPES.get(cls)
    if shape is None:
        hints = typing.get_type_hints(cls)
        fields = dataclasses.fields(cls)
        shape = _SHAPES[cls] = (
            tuple(
                (f.name, _converter(hints[f.name]), f.default is not dataclasses.MISSING)
                for f in fields
            ),
            frozenset(f.name for f in fields) | {"type"},
        )
    return shape


def _fields(cls: type, data: dict[str, object], fail: Callable[[str], Exception]) -> object:
    """An instance of ``cls`` from ``data``'s fields (a field with a default
    may be missing: a document written before the field was)."""
    name = cls.__name__
    fields, names = _shape(cls)
    kwargs: dict[str, object] = {}
    for field, convert, has_default in fields:
        if field not in data:
            if has_default:
                continue
            raise fail(f"{name}: missing field {field!r}")
        try:
            kwargs[field] = convert(data[field])
        except _Mismatch as e:
            raise fail(f"{name}.{field}: {e}") from None
    if not names.issuperset(data):
        raise fail(f"{name}: unknown fields {sorted(set(data) - names)}")
    return cls(**kwargs)


def _build(data: object, registry: Mapping[str, type], fail: Callable[[str], Exception]) -> object:
    if not isinstance(data, dict):
        raise fail(f"expected an object, got {type(data).__name__}")
    name = data.get("type")
    if not isinstance(name, str) or name not in registry:
        raise fail(f"unknown type {name!r}")
    return _fields(registry[name], data, fail)


def event_from_data(data: object) -> Event:
    """The event ``data`` describes; :class:`RecordError` if it describes none."""
    return cast(Event, _build(data, EVENT_TYPES, lambda m: RecordError(m, reasons.RECORD_FORMAT)))


def command_from_data(data: object) -> Command:
    """The command ``data`` describes; :class:`MalformedCommand` if none."""

    def fail(message: str) -> Exception:
        reason = reasons.UNKNOWN_COMMAND if "unknown type" in message else reasons.BAD_FIELD
        return MalformedCommand(message, reason)

    return cast(Command, _build(data, COMMAND_TYPES, fail))
