"""Conversions between the core's and the engine's values and API messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.protobuf import timestamp_pb2, unknown_fields

import ramino
from ramino import limits
from ramino import reasons as R
from ramino.api.errors import ApiError
from ramino.errors import excerpt
from ramino.v1 import game_pb2, types_pb2

BOTS = {
    game_pb2.BOT_LEVEL_RANDOM: "random",
    game_pb2.BOT_LEVEL_GREEDY: "greedy",
    game_pb2.BOT_LEVEL_EASY: "easy",
    game_pb2.BOT_LEVEL_MEDIUM: "medium",
    game_pb2.BOT_LEVEL_HARD: "hard",
    game_pb2.BOT_LEVEL_EXPERT: "expert",
}
BOT_LEVELS = {v: k for k, v in BOTS.items()}

SUITS: dict[str, types_pb2.Suit] = {
    "S": types_pb2.SUIT_SPADES,
    "H": types_pb2.SUIT_HEARTS,
    "D": types_pb2.SUIT_DIAMONDS,
    "C": types_pb2.SUIT_CLUBS,
}
_CARD_CACHE: dict[str, ramino.Card] = {}


def invalid(reason: str, message: str) -> ApiError:
    return ApiError(reason, message)


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


# The values of the parameters that are a choice, by enum number.
CHOICES: dict[str, dict[int, str]] = {
    "scoring": {
        types_pb2.SCORING_PENALTY: "penalty",
        types_pb2.SCORING_WINNER_COLLECTS: "winner_collects",
    },
    "stock_exhausted": {
        types_pb2.STOCK_EXHAUSTED_RESHUFFLE: "reshuffle",
        types_pb2.STOCK_EXHAUSTED_TURN_OVER: "turn_over",
    },
}
CHOICE_NUMBERS = {name: {v: k for k, v in c.items()} for name, c in CHOICES.items()}
_PARAMETER_FIELDS = types_pb2.VariantParameters.DESCRIPTOR.fields_by_name
assert set(_PARAMETER_FIELDS) == set(limits.KINDS), set(_PARAMETER_FIELDS) ^ set(limits.KINDS)


def overrides(message: types_pb2.VariantParameters | None) -> dict[str, Any]:
    """The fields set in ``message`` as parameter overrides, each checked
    against the variant's parameters (:func:`limits.parameter`); a field the
    server does not know (a newer client's) is INVALID_ARGUMENT."""
    if message is None:
        return {}
    if len(unknown_fields.UnknownFieldSet(message)):
        raise invalid(
            R.UNKNOWN_PARAMETER,
            "the variant parameters hold a field this server does not know",
        )
    out: dict[str, Any] = {}
    for fd, value in message.ListFields():
        name = fd.name
        choices = CHOICES.get(name)
        if choices is not None:
            if value not in choices:
                raise limits.bad_parameter(name, f"expected one of {', '.join(choices.values())}")
            value = choices[value]
        elif name == "hand_sizes":
            value = list(value)
        out[name] = limits.parameter(name, value)
    return out


def parameters_message(values: Mapping[str, Any]) -> types_pb2.VariantParameters:
    """Parameter ``values`` by name (overrides, or a whole variant's
    ``to_dict``) as a message; names that are not parameters are left out."""
    msg = types_pb2.VariantParameters()
    for name, value in values.items():
        if name not in _PARAMETER_FIELDS:
            continue
        numbers = CHOICE_NUMBERS.get(name)
        if numbers is not None:
            setattr(msg, name, numbers[value])
        elif isinstance(value, list | tuple):
            getattr(msg, name).extend(value)
        else:
            setattr(msg, name, value)
    return msg


def variant(name: str, message: types_pb2.VariantParameters | None = None) -> ramino.Variant:
    return ramino.Variant(preset(name), **overrides(message))


def preset(name: str) -> str:
    """A preset's name (the default one for ""), checked."""
    if not name:
        return "ramino51"
    if name.lower() not in _PRESETS:
        raise invalid(
            R.UNKNOWN_VARIANT,
            f"unknown variant {excerpt(name)} (known: {', '.join(ramino.PRESETS)})",
        )
    return name


_PRESETS = frozenset(p.lower() for p in ramino.PRESETS)


def variant_message(v: ramino.Variant, with_parameters: bool = True) -> types_pb2.Variant:
    """``v`` as a message: its name, and with ``with_parameters`` every
    parameter and the deck's size."""
    msg = types_pb2.Variant(name=v.name)
    if with_parameters:
        msg.parameters.CopyFrom(parameters_message(v.to_dict()))
        msg.deck_size = v.deck_size
    return msg


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    ts.FromNanoseconds(int(seconds * 1e9))
    return ts


def end_value(name: str) -> types_pb2.End:
    return types_pb2.END_FIRST if name == "start" else types_pb2.END_LAST
