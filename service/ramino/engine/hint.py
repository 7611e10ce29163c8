"""Advice on a seat's hand: the :class:`Hint` that
:meth:`ramino.engine.Game.hint` gives, and the policies it is made with.

Both are the kernel's (``core_rs/ramino-core/src/game/hint.rs`` and
``policy.rs``). One discard policy lives there (:func:`discard_scores`,
:func:`best_discards`): the hint, the turn timer's move, the greedy bots and
the bots' playouts all discard by it. It reads only a hand and the card taken
this turn, so a bot that sees only its seat's view can use it as well as the
engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ramino
from ramino import _core
from ramino.engine.commands import Knock, LayOff
from ramino.engine.context import Rules

__all__ = [
    "Hint",
    "discardable",
    "discard_scores",
    "best_discards",
    "keep_one",
    "knock_unmatched",
]


@dataclass(frozen=True, slots=True)
class Hint:
    """What a careful player would do with a seat's hand (cards by id)."""

    melds: tuple[tuple[int, ...], ...]
    """The melds to lay: before the seat has opened, the best opening (none
    when it cannot open); afterwards the melds of the least deadwood that
    may be laid together (a swapped joker's meld first while one waits).
    None in gin, where melds are laid by knocking."""
    melds_value: int
    """Their meld value (the opening's value before opening)."""
    opening: bool
    """Whether laying :attr:`melds` is the seat's opening."""
    deadwood: ramino.Deadwood
    """The least deadwood of the whole hand (cards by code)."""
    layoffs: tuple[LayOff, ...]
    """Legal lay-offs now of cards outside :attr:`melds`, one per card."""
    discard: int
    """The card to discard at the end of the turn: the best by the discard
    policy among those the rules let the seat discard (never the card taken
    from the discard pile or its twin where that rule holds, never a swapped
    joker waiting for its meld), outside :attr:`melds` while there is one."""
    knock: Knock | None
    """Gin: the legal knock of least unmatched total, when there is one."""
    knock_unmatched: int
    """The unmatched total of :attr:`knock` (0 without one)."""


def keep_one(melds: list[list[str]], variant: ramino.Variant) -> list[list[str]]:
    """Every card melds but going out needs a discard: the melds less one
    card kept back (an end of a long run, a card of a set of four), else less
    the meld of least value."""
    return _core.keep_one(melds, variant)


def knock_unmatched(rules: Rules, hand: Sequence[int], knock: Knock) -> int:
    """The unmatched total that ``knock`` shows of ``hand``."""
    melds = [list(m) for m in knock.melds]
    return _core.knock_unmatched(rules.kernel, list(hand), knock.discard, melds)


def discardable(
    rules: Rules, hand: Sequence[int], taken: int | None, pending_joker: int | None
) -> list[int]:
    """The cards of ``hand`` worth offering to end the turn, in hand order:
    not a swapped joker waiting for its meld; not the card taken from the
    discard pile nor its twin (RULES.md section 5); in gin, where the taken
    card may be discarded back, it is kept while there is another choice
    (throwing back what was just taken wastes the turn, and twice in
    succession draws the hand)."""
    return _core.discardable(rules.kernel, list(hand), taken, pending_joker)


def discard_scores(
    rules: Rules,
    hand: Sequence[int],
    allowed: Sequence[int],
) -> dict[int, int]:
    """How good a discard each card of ``allowed`` (cards of ``hand``) is,
    higher better: deadwood before melded cards, high penalties first, lone
    cards before cards with partners (another suit of the rank, or the suit
    within two ranks). A joker last while there is another choice."""
    return _core.discard_scores(rules.kernel, list(hand), list(allowed))


def best_discards(rules: Rules, hand: Sequence[int], allowed: Sequence[int]) -> list[int]:
    """The cards of ``allowed`` that :func:`discard_scores` ranks best, in
    the order given (a bot draws among them; the hint takes the first)."""
    return _core.best_discards(rules.kernel, list(hand), list(allowed))
