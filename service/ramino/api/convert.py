"""Conversions between the core's and the engine's values and API messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import grpc
from google.protobuf import struct_pb2

import ramino
from ramino.api import limits
from ramino.api.errors import ApiError, excerpt
from ramino.v1 import types_pb2

SUITS: dict[str, types_pb2.Suit] = {
    "S": types_pb2.SUIT_SPADES,
    "H": types_pb2.SUIT_HEARTS,
    "D": types_pb2.SUIT_DIAMONDS,
    "C": types_pb2.SUIT_CLUBS,
}
_CARD_CACHE: dict[str, ramino.Card] = {}


def invalid(reason: str, message: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, reason, message)


def card(code: str, card_id: int | None = None) -> types_pb2.Card:
    c = _CARD_CACHE.get(code)
    if c is None:
        c = _CARD_CACHE[code] = ramino.Card(code)
    msg = types_pb2.Card(
        code=str(c),
        rank=c.rank or 0,
        suit=SUITS.get(c.suit or "", types_pb2.SUIT_UNSPECIFIED),
        joker=c.is_joker,
    )
    if card_id is not None:
        msg.id = card_id
    return msg


def meld(m: ramino.Meld, ids: Sequence[int] | None = None) -> types_pb2.Meld:
    return types_pb2.Meld(
        kind=types_pb2.MELD_KIND_RUN if m.kind == "run" else types_pb2.MELD_KIND_SET,
        value=m.value,
        cards=[card(c, None if ids is None else ids[i]) for i, c in enumerate(m.cards)],
        jokers=[types_pb2.JokerRole(index=j.index, stands_for=j.stands_for) for j in m.jokers],
        closed=m.closed,
        pure=m.pure,
    )


def melds(ms: Sequence[Sequence[str]], variant: ramino.Variant) -> list[types_pb2.Meld]:
    return [meld(ramino.validate_meld(list(m), variant)) for m in ms]


def deadwood(d: ramino.Deadwood, variant: ramino.Variant) -> types_pb2.Deadwood:
    return types_pb2.Deadwood(
        value=d.value, melds=melds(d.melds, variant), deadwood=[card(c) for c in d.deadwood]
    )


def opening(o: ramino.Opening, variant: ramino.Variant) -> types_pb2.Opening:
    return types_pb2.Opening(value=o.value, melds=melds(o.melds, variant))


def overrides(struct: struct_pb2.Struct | None) -> dict[str, Any]:
    """Struct values as parameter overrides, each checked against the
    variant's parameters (:func:`limits.parameter`): numbers become ints."""
    if struct is None:
        return {}
    return {key: limits.parameter(key, _plain(value)) for key, value in struct.fields.items()}


def _plain(value: struct_pb2.Value) -> Any:
    """A ``google.protobuf.Value`` as a plain value: a number stays a float
    (NaN and infinities too, refused by the parameter's check); a struct,
    which no parameter takes, becomes None."""
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        return value.number_value
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "list_value":
        return [_plain(v) for v in value.list_value.values]
    return None


def variant(name: str, struct: struct_pb2.Struct | None = None) -> ramino.Variant:
    return ramino.Variant(preset(name), **overrides(struct))


def preset(name: str) -> str:
    """A preset's name (the default one for ""), checked."""
    if not name:
        return "ramino51"
    if name.lower() not in _PRESETS:
        raise invalid(
            "UNKNOWN_VARIANT",
            f"unknown variant {excerpt(name)} (known: {', '.join(ramino.PRESETS)})",
        )
    return name


_PRESETS = frozenset(p.lower() for p in ramino.PRESETS)


def variant_message(v: ramino.Variant) -> types_pb2.Variant:
    params = struct_pb2.Struct()
    params.update(_params(v.to_dict()))
    return types_pb2.Variant(name=v.name, parameters=params)


def _params(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != "name"}


def end_value(name: str) -> types_pb2.End:
    return types_pb2.END_FIRST if name == "start" else types_pb2.END_LAST
