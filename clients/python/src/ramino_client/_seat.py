"""What both flavours of a seat share: its identity and one method per move.

Each move method builds its :class:`~ramino_client.moves.Move` and returns
what the flavour's :meth:`SeatBase.play` returns: a ``MoveResult`` in the
blocking client, a coroutine of one (to be awaited) in the asyncio client.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Generic, TypeVar

from ramino_client import _wire
from ramino_client import models as m
from ramino_client import moves as mv
from ramino_client.models import End

C = TypeVar("C")
R = TypeVar("R")


class SeatBase(Generic[C, R]):
    """One seat of one game, acting with its seat token, over client ``C``;
    a move answers ``R``."""

    def __init__(
        self,
        client: C,
        name: str,
        seat: int,
        token: str,
        view: m.GameView | None = None,
    ) -> None:
        self.client = client
        self.name = name
        """``games/{id}``."""
        self.seat = seat
        self.token = token
        self.last_view = view
        """The latest view this object received (join, moves, ``view()``)."""

    def _after_move(self, result: mv.MoveResult) -> mv.MoveResult:
        """``result`` with the variant's parameters the seat last saw (see
        :func:`with_known_variant`)."""
        view = with_known_variant(result.view, self.last_view)
        if view is not result.view:
            result = dataclasses.replace(result, view=view)
        self.last_view = result.view
        return result

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, seat={self.seat})"

    @property
    def game_id(self) -> str:
        return self.name.partition("/")[2]

    def play(
        self,
        move: mv.Move,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
    ) -> R:
        """Any move, e.g. one of ``legal_moves()``."""
        raise NotImplementedError

    def draw_from_stock(self, *, expected_version: int | None = None) -> R:
        return self.play(mv.DrawFromStock(), expected_version=expected_version)

    def take_discard(self, *, expected_version: int | None = None) -> R:
        return self.play(mv.TakeDiscard(), expected_version=expected_version)

    def turn_over_discard_pile(self, *, expected_version: int | None = None) -> R:
        return self.play(mv.TurnOverDiscardPile(), expected_version=expected_version)

    def lay_melds(
        self, melds: Sequence[Sequence[_wire.CardRef]], *, expected_version: int | None = None
    ) -> R:
        """Lays new melds, each a list of card ids in meld order (a run ascending)."""
        ids = tuple(tuple(_wire.card_id(c) for c in x) for x in melds)
        return self.play(mv.LayMelds(ids), expected_version=expected_version)

    def lay_off(
        self,
        card: _wire.CardRef,
        meld_index: int,
        end: End | str = End.LAST,
        *,
        expected_version: int | None = None,
    ) -> R:
        move = mv.LayOff(_wire.card_id(card), meld_index, End.parse(end))
        return self.play(move, expected_version=expected_version)

    def swap_joker(
        self,
        card: _wire.CardRef,
        meld_index: int,
        joker: _wire.CardRef,
        *,
        expected_version: int | None = None,
    ) -> R:
        move = mv.SwapJoker(_wire.card_id(card), meld_index, _wire.card_id(joker))
        return self.play(move, expected_version=expected_version)

    def discard(self, card: _wire.CardRef, *, expected_version: int | None = None) -> R:
        return self.play(mv.Discard(_wire.card_id(card)), expected_version=expected_version)

    def resign(self, *, expected_version: int | None = None) -> R:
        return self.play(mv.Resign(), expected_version=expected_version)

    def pass_upcard(self, *, expected_version: int | None = None) -> R:
        """Gin: decline the first upcard, or the upcard at the wall (a draw)."""
        return self.play(mv.PassUpcard(), expected_version=expected_version)

    def knock(
        self,
        discard: _wire.CardRef | None,
        melds: Sequence[Sequence[_wire.CardRef]],
        *,
        expected_version: int | None = None,
    ) -> R:
        """Gin: discard ``discard`` (``None``: big gin) and lay ``melds``."""
        ids = tuple(tuple(_wire.card_id(c) for c in x) for x in melds)
        dropped = None if discard is None else _wire.card_id(discard)
        return self.play(mv.Knock(dropped, ids), expected_version=expected_version)

    def accept_layout(self, *, expected_version: int | None = None) -> R:
        """Gin: the defender is done laying off and melding."""
        return self.play(mv.AcceptLayout(), expected_version=expected_version)


def with_known_variant(view: m.GameView, known: m.GameView | None) -> m.GameView:
    """``view`` with the variant's parameters of ``known``, the view seen
    before it: a move's answer and the options a session pushes name the
    variant only (its parameters never change in a game, and come with the
    join and ``view()``)."""
    if not view.variant.parameters and known is not None:
        return dataclasses.replace(view, variant=known.variant)
    return view
