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
from typing import Final, Literal, TypeAlias, get_args

__all__ = [
    "RoundStarted",
    "DrewFromStock",
    "TookDiscard",
    "DiscardPileTurnedOver",
    "StockReshuffled",
    "MeldDescription",
    "MeldJoker",
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
    "ScorePart",
    "ScorePartKind",
    "SCORE_PART_KINDS",
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
class MeldJoker:
    """A joker of a meld: its ``index`` in the meld's cards and the natural
    cards it ``stands_for``, in notation (one in a run; in a set any missing
    suit)."""

    index: int
    stands_for: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MeldDescription:
    """What the kernel decided of a meld it put on the table or changed
    there (its meld validation's answer), so that no client works the rules
    out again: set or run, its value, each joker's role, whether it is
    ``closed`` (a set of four) and ``pure`` (a run without a joker)."""

    kind: Literal["set", "run"]
    value: int
    jokers: tuple[MeldJoker, ...]
    closed: bool
    pure: bool


@dataclass(frozen=True, slots=True)
class MeldsLaid:
    """New table melds, indexed from the current number of melds on;
    ``described``: each as the kernel validated it (empty in a record
    written before the kernel said)."""

    seat: int
    melds: tuple[tuple[int, ...], ...]
    opening: bool
    described: tuple[MeldDescription, ...] = ()


@dataclass(frozen=True, slots=True)
class LaidOff:
    """``described``: the table meld the lay-off made (``None`` in a record
    written before the kernel said)."""

    seat: int
    card: int
    meld: int
    end: str
    described: MeldDescription | None = None


@dataclass(frozen=True, slots=True)
class JokerSwapped:
    """``card`` took the place of table joker ``joker``, now in ``seat``'s
    hand; ``described``: the table meld the swap made (``None`` in a record
    written before the kernel said)."""

    seat: int
    card: int
    meld: int
    joker: int
    described: MeldDescription | None = None


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
    left in its hand are its unmatched cards, worth ``deadwood``;
    ``described`` as :class:`MeldsLaid`'s."""

    seat: int
    discard: int | None
    melds: tuple[tuple[int, ...], ...]
    deadwood: int
    described: tuple[MeldDescription, ...] = ()


@dataclass(frozen=True, slots=True)
class LayoutAccepted:
    """The defender finished laying off and melding."""

    seat: int


ScorePartKind: TypeAlias = Literal[
    "went_out",
    "closed_hand",
    "hand_penalty",
    "never_opened",
    "closed_hand_multiplier",
    "hand_collected",
    "rummy_multiplier",
    "opponent_deadwood",
    "own_deadwood",
    "gin_bonus",
    "big_gin_bonus",
    "undercut_bonus",
    "rounds",
    "box_bonus",
    "game_bonus",
    "shutout_multiplier",
]
"""What a part of a score counts (the kernel's ``ScorePartKind``)."""

SCORE_PART_KINDS: Final[tuple[str, ...]] = get_args(ScorePartKind)
"""Every :data:`ScorePartKind`, in the kernel's order."""


@dataclass(frozen=True, slots=True)
class ScorePart:
    """One part of a seat's score, as the kernel decided it: ``points`` is
    what it adds; ``base``, ``factor`` and ``seat`` what it was worked from,
    where its kind says so (``never_opened``: the hand's penalty it replaces
    as ``base``; a multiplier: the score before as ``base``, the multiplier
    as ``factor``; ``box_bonus``: the bonus a hand as ``base``, the hands won
    as ``factor``; ``hand_collected`` and ``opponent_deadwood``: the other
    ``seat``), else 0, 0 and ``None``."""

    kind: ScorePartKind
    points: int
    base: int = 0
    factor: int = 0
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """``scores`` per seat for this round; ``hands`` are the cards left in each
    hand, shown to everyone for the count; ``parts`` what each seat's score
    is made of, summing to it (empty in a round logged before the kernel
    said)."""

    round: int
    ending: str
    winner: int | None
    closed_hand: bool
    scores: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    parts: tuple[tuple[ScorePart, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """``parts``: what each seat's total is made of (the rounds' scores and
    the bonuses of the match's end), summing to it; empty in a match logged
    before the kernel said."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]
    parts: tuple[tuple[ScorePart, ...], ...] = ()


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
