"""Conversions between the core's and the engine's values and API messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import grpc
from google.protobuf import struct_pb2
from google.protobuf.json_format import MessageToDict

import ramino
from ramino.api.errors import ApiError
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
    """Struct values as parameter overrides: integral numbers become ints."""
    if struct is None:
        return {}
    out: dict[str, Any] = {}
    for key, value in MessageToDict(struct).items():
        out[key] = _plain(key, value)
    return out


def _plain(key: str, value: Any) -> Any:
    if isinstance(value, float):
        if not value.is_integer():
            raise invalid("BAD_PARAMETER", f"parameter {key} must be a whole number")
        return int(value)
    if isinstance(value, list):
        return [_plain(key, v) for v in value]
    return value


def variant(name: str, struct: struct_pb2.Struct | None = None) -> ramino.Variant:
    return ramino.Variant(name or "ramino51", **overrides(struct))


def variant_message(v: ramino.Variant) -> types_pb2.Variant:
    params = struct_pb2.Struct()
    params.update(_params(v.to_dict()))
    return types_pb2.Variant(name=v.name, parameters=params)


def _params(d: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != "name"}


def end_value(name: str) -> types_pb2.End:
    return types_pb2.END_FIRST if name == "start" else types_pb2.END_LAST
