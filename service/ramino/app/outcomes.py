"""What a move or a question about a game answers, in the game's own terms.

The application layer returns these; the transport (``ramino.api``) encodes
them. A move's answer is also what a retry of its request id gets again:
the application keeps it through the :class:`AnswerCodec` it is given,
encoded once, with the move's entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, TypeVar

import ramino
from ramino.engine import Command, Event, Knock, LayMelds, View
from ramino.engine.hint import knock_unmatched

from .log import HostedGame

__all__ = ["Hint", "Melds", "LegalMoves", "MoveOutcome", "AnswerCodec", "legal_moves"]

A = TypeVar("A")


@dataclass(frozen=True, slots=True)
class Melds:
    """Melds to lay (by card code), and their meld value."""

    value: int
    melds: list[list[str]]


@dataclass(frozen=True, slots=True)
class Hint:
    """The meld search on a seat's hand (cards by code and id)."""

    opening: Melds | None
    """The melds to lay (:attr:`ramino.engine.Hint.melds`): the best opening
    while the seat has not opened (and can), the melds of the least deadwood
    once it has."""
    deadwood: ramino.Deadwood
    discard: tuple[str, int]
    """The discard to make, by the engine's one discard policy."""
    knock: tuple[Knock, int] | None
    """Gin: the knock with the least unmatched total, and that total."""


@dataclass(frozen=True, slots=True)
class LegalMoves:
    """The moves a seat may make at ``version``: each command with its value
    (the meld value of a LayMelds, the unmatched total of a Knock, else 0)."""

    version: int
    moves: tuple[tuple[Command, int], ...]
    hint: Hint | None
    """Absent when the seat holds no card."""


@dataclass(frozen=True, slots=True)
class MoveOutcome:
    """What one move did, for the seat that made it."""

    game: HostedGame
    """The game after the move."""
    seat: int
    events: tuple[Event, ...]
    """The engine's events of the move (the mover sees them projected)."""
    view: View | None
    """The mover's view after the move."""
    legal: LegalMoves | None
    """While the turn is still the mover's: its next moves and the hint."""


class AnswerCodec(Protocol[A]):
    """How the transport answers a move, and keeps that answer for a retry."""

    def answer(self, outcome: MoveOutcome) -> A: ...

    def dump(self, answer: A) -> bytes: ...

    def load(self, data: bytes) -> A: ...


def legal_moves(game: HostedGame, seat: int, view: View) -> LegalMoves:
    """``seat``'s legal moves in ``game`` and the hint on its hand (its
    searches take milliseconds on a large hand: see ``POOLED_HAND``)."""
    engine = game.engine
    assert engine is not None
    variant = engine.rules.variant
    deck = view.deck
    ids = list(view.hand or ())
    legal = engine.legal_moves(seat)
    moves: list[tuple[Command, int]] = []
    for m in legal:
        value = 0
        if isinstance(m, LayMelds):
            value = sum(ramino.validate_meld([deck[c] for c in x], variant).value for x in m.melds)
        elif isinstance(m, Knock):
            value = knock_unmatched(engine.rules, ids, m)
        moves.append((m, value))
    found = engine.hint(seat, legal)
    hint = None
    if found is not None:
        melds = [[deck[c] for c in m] for m in found.melds]
        hint = Hint(
            Melds(found.melds_value, melds) if melds else None,
            found.deadwood,
            (deck[found.discard], found.discard),
            None if found.knock is None else (found.knock, found.knock_unmatched),
        )
    return LegalMoves(game.version, tuple(moves), hint)
