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

from .log import HostedGame

__all__ = ["Hint", "Melds", "LegalMoves", "MoveOutcome", "AnswerCodec", "legal_moves"]

A = TypeVar("A")


@dataclass(frozen=True, slots=True)
class Melds:
    """Melds a seat that has opened may lay, and their value."""

    value: int
    melds: list[list[str]]


@dataclass(frozen=True, slots=True)
class Hint:
    """The meld search on a seat's hand (cards by code and id)."""

    opening: ramino.Opening | Melds | None
    """The melds to lay: the best opening while the seat has not opened (and
    can), the melds of the least deadwood once it has."""
    deadwood: ramino.Deadwood
    discard: tuple[str, int]
    """The deadwood card that costs the most: the discard to make."""
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
    moves: list[tuple[Command, int]] = []
    best_knock: tuple[Knock, int] | None = None
    for m in engine.legal_moves(seat):
        value = 0
        if isinstance(m, LayMelds):
            value = sum(ramino.validate_meld([deck[c] for c in x], variant).value for x in m.melds)
        elif isinstance(m, Knock):
            used = {c for x in m.melds for c in x}
            value = engine.rules.penalty([c for c in ids if c != m.discard and c not in used])
            if best_knock is None:
                best_knock = (m, value)  # the engine lists the knocks best first
        moves.append((m, value))
    hint = None
    if ids:
        hand = [deck[c] for c in ids]
        opened = view.seats[seat].opened or variant.knocking
        deadwood = ramino.min_deadwood(hand, variant)
        opening: ramino.Opening | Melds | None = None
        if not opened:
            opening = ramino.best_opening(hand, variant)
        elif not variant.knocking and deadwood.melds:
            value = sum(ramino.validate_meld(m, variant).value for m in deadwood.melds)
            opening = Melds(value, deadwood.melds)
        worst = max(deadwood.deadwood or hand, key=variant.card_penalty)
        hint = Hint(opening, deadwood, (worst, ids[hand.index(worst)]), best_knock)
    return LegalMoves(game.version, tuple(moves), hint)
