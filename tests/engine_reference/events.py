"""What happened: the facts a game's record is made of.

Events carry outcomes, not intentions: the deal and every reshuffle carry the
resulting card order, and a round's end carries its scores, so a record folds
into the same state without re-running any search. Hidden information lives in
a few fields (the stock's order, the cards of a hand, a card drawn from the
stock); :func:`project` blanks them for a viewer who may not see them. The
class names are stable: they are the ``type`` of an event in JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, TypeAlias

__all__ = [
    "RoundStarted",
    "DrewFromStock",
    "TookDiscard",
    "DiscardPileTurnedOver",
    "StockReshuffled",
    "MeldsLaid",
    "LaidOff",
    "JokerSwapped",
    "Discarded",
    "Resigned",
    "PassedUpcard",
    "Knocked",
    "LayoutAccepted",
    "RoundEnded",
    "MatchEnded",
    "Event",
    "EVENT_TYPES",
    "WENT_OUT",
    "STOCK_EXHAUSTED",
    "RESIGNATIONS",
    "TURN_LIMIT",
    "KNOCK",
    "GIN",
    "BIG_GIN",
    "UNDERCUT",
    "DRAWN",
    "project",
]

# How a round ended (RoundEnded.ending).
WENT_OUT: Final = "went_out"
STOCK_EXHAUSTED: Final = "stock_exhausted"
RESIGNATIONS: Final = "resignations"
TURN_LIMIT: Final = "turn_limit"
"""No winner after ``max_turns_per_round`` turns."""
# Knocking play (gin).
KNOCK: Final = "knock"
"""The knocker's unmatched total was below the defender's (or equal: no winner)."""
GIN: Final = "gin"
BIG_GIN: Final = "big_gin"
UNDERCUT: Final = "undercut"
"""The defender's unmatched total was below the knocker's: the defender wins."""
DRAWN: Final = "drawn"
"""A pass at the wall, or both players in succession taking the upcard and
discarding it back: nobody scores."""


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A round is dealt. ``hands[seat]`` is that seat's hand in deal order
    (empty for a seat not dealt in; ``None`` where the viewer may not see it);
    ``stock`` is the stock with its top card last (``None`` when projected)."""

    round: int
    dealer: int
    first_player: int
    hands: tuple[tuple[int, ...] | None, ...]
    hand_sizes: tuple[int, ...]
    upcard: int | None
    stock_size: int
    stock: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class DrewFromStock:
    """``card`` is ``None`` for everyone but the drawing seat."""

    seat: int
    card: int | None


@dataclass(frozen=True, slots=True)
class TookDiscard:
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class DiscardPileTurnedOver:
    """The discard pile, turned over unshuffled, is the new stock (its bottom
    card on top). ``rebuild`` counts the stock's rebuilds this round."""

    seat: int
    rebuild: int


@dataclass(frozen=True, slots=True)
class StockReshuffled:
    """All of the discard pile but its top card ``kept`` is shuffled into a new
    stock (top card last; ``None`` when projected)."""

    rebuild: int
    kept: int
    stock_size: int
    stock: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class MeldsLaid:
    """New table melds, indexed from the current number of melds on."""

    seat: int
    melds: tuple[tuple[int, ...], ...]
    opening: bool


@dataclass(frozen=True, slots=True)
class LaidOff:
    seat: int
    card: int
    meld: int
    end: str


@dataclass(frozen=True, slots=True)
class JokerSwapped:
    """``card`` took the place of table joker ``joker``, now in ``seat``'s hand."""

    seat: int
    card: int
    meld: int
    joker: int


@dataclass(frozen=True, slots=True)
class Discarded:
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class Resigned:
    seat: int


@dataclass(frozen=True, slots=True)
class PassedUpcard:
    """``seat`` declined the upcard (the first upcard, or at the wall)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Knocked:
    """``seat`` knocked: discarded ``discard`` (``None`` for big gin) and laid
    ``melds``, new table melds indexed from the current number on; the cards
    left in its hand are its unmatched cards, worth ``deadwood``."""

    seat: int
    discard: int | None
    melds: tuple[tuple[int, ...], ...]
    deadwood: int


@dataclass(frozen=True, slots=True)
class LayoutAccepted:
    """The defender finished laying off and melding."""

    seat: int


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """``scores`` per seat for this round; ``hands`` are the cards left in each
    hand, shown to everyone for the count."""

    round: int
    ending: str
    winner: int | None
    closed_hand: bool
    scores: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class MatchEnded:
    totals: tuple[int, ...]
    winners: tuple[int, ...]


Event: TypeAlias = (
    RoundStarted
    | DrewFromStock
    | TookDiscard
    | DiscardPileTurnedOver
    | StockReshuffled
    | MeldsLaid
    | LaidOff
    | JokerSwapped
    | Discarded
    | Resigned
    | PassedUpcard
    | Knocked
    | LayoutAccepted
    | RoundEnded
    | MatchEnded
)

EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        RoundStarted,
        DrewFromStock,
        TookDiscard,
        DiscardPileTurnedOver,
        StockReshuffled,
        MeldsLaid,
        LaidOff,
        JokerSwapped,
        Discarded,
        Resigned,
        PassedUpcard,
        Knocked,
        LayoutAccepted,
        RoundEnded,
        MatchEnded,
    )
}


def project(event: Event, viewer: int | None) -> Event:
    """The event as ``viewer`` (a seat, or ``None`` for a spectator) may see it."""
    if isinstance(event, RoundStarted):
        hands = tuple(h if s == viewer else None for s, h in enumerate(event.hands))
        return replace(event, hands=hands, stock=None)
    if isinstance(event, DrewFromStock):
        return event if event.seat == viewer else replace(event, card=None)
    if isinstance(event, StockReshuffled):
        return replace(event, stock=None)
    return event
