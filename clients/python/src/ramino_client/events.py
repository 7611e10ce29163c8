"""Events of a game as typed values, and what WatchGame streams.

Each event carries ``version``, the game's version once it is applied, and
``seat``, the seat that acted (if any); each is read from its typed message
of ``GameEvent.event``. Card fields are card ids; the cards
themselves appear in views (:class:`~ramino_client.models.GameView`). A type
this SDK does not know yet arrives as :class:`UnknownEvent`, never an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ramino_client.models import End, GameStatus, GameView, MeldDescription, ScorePart

__all__ = [
    "Event",
    "GameCreated",
    "SeatJoined",
    "SeatTimedOut",
    "SeatReclaimed",
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
    "GameEnded",
    "UnknownEvent",
    "Snapshot",
    "WatchItem",
    "ends_match",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    version: int
    seat: int | None = None

    @property
    def type(self) -> str:
        return type(self).__name__


@dataclass(frozen=True, slots=True, kw_only=True)
class GameCreated(Event):
    variant: str
    overrides: Mapping[str, Any]
    players: tuple[str, ...]
    bots: tuple[str | None, ...]
    seed_hash: str
    turn_timer_seconds: int
    fixed_deal: bool = False
    """Created by a server in test mode: its deals were known in advance."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatJoined(Event):
    player_name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatTimedOut(Event):
    """The seat's turn timer ran out: a bot plays its turns until it acts again."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatReclaimed(Event):
    """The seat acted again after timing out."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundStarted(Event):
    round: int
    dealer: int
    first_player: int
    hand: tuple[int, ...] | None
    """The viewer's dealt hand; ``None`` for a spectator."""
    hand_sizes: tuple[int, ...]
    upcard: int | None
    stock_size: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DrewFromStock(Event):
    card: int | None
    """``None`` for everyone but the drawing seat."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TookDiscard(Event):
    card: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DiscardPileTurnedOver(Event):
    rebuild: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StockReshuffled(Event):
    rebuild: int
    kept: int
    stock_size: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MeldsLaid(Event):
    """``described``: each of ``melds`` as the server validated it (empty
    from a server before it said)."""

    melds: tuple[tuple[int, ...], ...]
    opening: bool
    described: tuple[MeldDescription, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class LaidOff(Event):
    """``described``: the table meld the lay-off made (``None`` from a server
    before it said)."""

    card: int
    meld: int
    end: End
    described: MeldDescription | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class JokerSwapped(Event):
    """``described``: the table meld the swap made (``None`` from a server
    before it said)."""

    card: int
    meld: int
    joker: int
    described: MeldDescription | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Discarded(Event):
    card: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Resigned(Event):
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class PassedUpcard(Event):
    """Gin: the seat declined the upcard."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Knocked(Event):
    """Gin: the seat knocked, discarding ``discard`` (``None``: big gin) and
    laying ``melds`` (new table melds); ``deadwood`` is its unmatched total;
    ``described`` as :class:`MeldsLaid`'s."""

    discard: int | None
    melds: tuple[tuple[int, ...], ...]
    deadwood: int
    described: tuple[MeldDescription, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class LayoutAccepted(Event):
    """Gin: the defender finished laying off and melding."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundEnded(Event):
    round: int
    ending: str
    winner: int | None
    closed_hand: bool
    scores: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    parts: tuple[tuple[ScorePart, ...], ...] = ()
    """Each seat's score's parts, summing to its score (empty from a server
    that did not say)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchEnded(Event):
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    parts: tuple[tuple[ScorePart, ...], ...] = ()
    """Each seat's total's parts: the rounds' scores and the match's bonuses."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(Event):
    """The game ended before its match did: ``reason`` is ``"abandoned"`` (no
    person acted in it for the server's abandon time) or ``"cancelled"`` (by
    its creator). Nothing follows it."""

    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class UnknownEvent(Event):
    """An event type newer than this SDK: ``name`` is its field of
    ``GameEvent.event`` (``""`` when this SDK's messages do not know it)."""

    name: str
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def type(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The whole game as the watcher may see it, at ``version``."""

    version: int
    view: GameView


WatchItem: TypeAlias = Snapshot | Event


def ends_match(item: WatchItem) -> bool:
    """Whether nothing can follow ``item``: the match has ended, or the game."""
    if isinstance(item, Snapshot):
        return item.view.status is GameStatus.FINISHED
    return isinstance(item, MatchEnded | GameEnded)
