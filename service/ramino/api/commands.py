"""The engine command of each move request, its fields checked: one
decoder for a unary move and the same move sent on a session."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ramino
from ramino import reasons
from ramino.api import convert
from ramino.api.requests import card_id, meld_index
from ramino.engine import (
    AcceptLayout,
    Command,
    Discard,
    DrawFromStock,
    Knock,
    LayMelds,
    LayOff,
    PassUpcard,
    Resign,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
)
from ramino.v1 import game_pb2, types_pb2

__all__ = ["command_of", "MOVE_REQUESTS"]


def _melds(request: Any, what: str) -> tuple[tuple[int, ...], ...]:
    if any(not m.card_ids for m in request.melds):
        raise convert.invalid(reasons.EMPTY_MELD, f"each meld of {what} has its card ids")
    if sum(len(m.card_ids) for m in request.melds) > ramino.MAX_HAND:
        raise convert.invalid(
            reasons.TOO_MANY_CARDS,
            f"a hand never holds more than {ramino.MAX_HAND} cards to lay",
        )
    return tuple(tuple(card_id(c) for c in m.card_ids) for m in request.melds)


def _lay_melds(request: game_pb2.LayMeldsRequest) -> Command:
    if not request.melds or any(not m.card_ids for m in request.melds):
        raise convert.invalid(reasons.EMPTY_MELD, "lay at least one meld, each with its card ids")
    return LayMelds(_melds(request, "a lay"))


def _lay_off(request: game_pb2.LayOffRequest) -> Command:
    return LayOff(
        card_id(request.card_id),
        meld_index(request.meld_index, "table meld"),
        "start" if request.end == types_pb2.END_FIRST else "end",
    )


def _swap_joker(request: game_pb2.SwapJokerRequest) -> Command:
    return SwapJoker(
        card_id(request.card_id),
        meld_index(request.meld_index, "table meld"),
        card_id(request.joker_id),
    )


def _knock(request: game_pb2.KnockRequest) -> Command:
    melds = _melds(request, "a knock")
    dropped = card_id(request.discard_card_id) if request.HasField("discard_card_id") else None
    return Knock(dropped, melds)


MOVE_REQUESTS: dict[type[Any], Callable[[Any], Command]] = {
    game_pb2.DrawFromStockRequest: lambda _: DrawFromStock(),
    game_pb2.TakeDiscardRequest: lambda _: TakeDiscard(),
    game_pb2.TurnOverDiscardPileRequest: lambda _: TurnOverDiscardPile(),
    game_pb2.LayMeldsRequest: _lay_melds,
    game_pb2.LayOffRequest: _lay_off,
    game_pb2.SwapJokerRequest: _swap_joker,
    game_pb2.DiscardRequest: lambda r: Discard(card_id(r.card_id)),
    game_pb2.ResignRequest: lambda _: Resign(),
    game_pb2.PassUpcardRequest: lambda _: PassUpcard(),
    game_pb2.KnockRequest: _knock,
    game_pb2.AcceptLayoutRequest: lambda _: AcceptLayout(),
}
"""Each move request's decoder, by its message type."""


def command_of(request: Any) -> Command:
    """The command of a move request; raises the INVALID_ARGUMENT of a
    field that no command can carry."""
    return MOVE_REQUESTS[type(request)](request)
