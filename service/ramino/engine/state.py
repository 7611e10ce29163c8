"""The state of a game as Python data: what the kernel's fold of the events
gives (``ramino._core.GameKernel.state``), for views, snapshots and tests.

The kernel (``core_rs/ramino-core/src/game/fold.rs``) is the only code that
changes a game's state; this module only describes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from ramino.engine.events import RoundEnded

__all__ = [
    "DRAW",
    "PLAY",
    "BETWEEN_ROUNDS",
    "OVER",
    "LAYOFF",
    "TableMeld",
    "Seat",
    "State",
]

# Phases. A round is always in DRAW or PLAY for the seat whose turn it is;
# BETWEEN_ROUNDS lasts only until the next deal, which follows at once.
DRAW: Final = "draw"
PLAY: Final = "play"
BETWEEN_ROUNDS: Final = "between_rounds"
OVER: Final = "over"
LAYOFF: Final = "layoff"
"""Knocking play: the defender lays off, melds and accepts the layout."""


@dataclass(slots=True)
class TableMeld:
    owner: int
    cards: list[int]
    kind: str
    closed: bool
    jokers: dict[int, tuple[str, ...]]
    """Card id of each joker in the meld -> the cards it stands for."""
    value: int
    view: object = field(default=None, compare=False, repr=False)
    """The meld's public view, built once (see :mod:`ramino.engine.views`)."""


@dataclass(slots=True)
class Seat:
    name: str
    hand: list[int] = field(default_factory=list)
    opened: bool = False
    first_laid_turn: int = 0
    """The seat's turn number (from 1) in which it first put cards on the
    table this round; 0 while it has laid nothing."""
    turns: int = 0
    """Turns this seat has started this round, the current one included."""
    resigned: bool = False
    total: int = 0


@dataclass(slots=True)
class State:
    seats: list[Seat]
    round: int = 0
    dealer: int = -1
    first_player: int = -1
    turn: int = -1
    phase: str = BETWEEN_ROUNDS
    stock: list[int] = field(default_factory=list)
    """Top card last."""
    discard: list[int] = field(default_factory=list)
    """Top card last."""
    melds: list[TableMeld] = field(default_factory=list)
    rebuilds: int = 0
    taken: int | None = None
    """The card taken from the discard pile this turn."""
    must_open: bool = False
    """The discard was taken before opening: this turn must open with it."""
    pending_joker: int | None = None
    """A joker taken by a swap this turn, not yet laid in a new meld."""
    opened_this_turn: bool = False
    results: list[RoundEnded] = field(default_factory=list)
    winners: tuple[int, ...] = ()
    version: int = 0
    # Knocking play (gin); all reset by each deal.
    first_upcard: bool = False
    """The first upcard is being offered (before any draw of the round)."""
    passes: int = 0
    """Passes on the first upcard this round."""
    repeated: bool = False
    """The last turn took the upcard and discarded it back."""
    drawn: bool = False
    """The hand is a draw (a pass at the wall, or the upcard taken and
    discarded back twice in succession): the round ends with no winner."""
    wall_take: bool = False
    """The upcard was taken at the wall: this turn must knock."""
    knocker: int | None = None
    knock_melds: int = 0
    """The knocker's melds are the first ``knock_melds`` table melds."""
    big_gin: bool = False
    defender_melded: bool = False
    accepted: bool = False
