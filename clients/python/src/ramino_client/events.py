"""Events of a game as typed values, and what WatchGame streams.

Each event carries ``version``, the game's version once it is applied, and
``seat``, the seat that acted (if any). Card fields are card ids; the cards
themselves appear in views (:class:`~ramino_client.models.GameView`). A type
this SDK does not know yet arrives as :class:`UnknownEvent`, never an error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ramino_client.models import End, GameStatus, GameView

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
    "event_from_data",
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
    melds: tuple[tuple[int, ...], ...]
    opening: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class LaidOff(Event):
    card: int
    meld: int
    end: End


@dataclass(frozen=True, slots=True, kw_only=True)
class JokerSwapped(Event):
    card: int
    meld: int
    joker: int


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
    laying ``melds`` (new table melds); ``deadwood`` is its unmatched total."""

    discard: int | None
    melds: tuple[tuple[int, ...], ...]
    deadwood: int


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


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchEnded(Event):
    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(Event):
    """The game ended before its match did: ``reason`` is ``"abandoned"`` (no
    person acted in it for the server's abandon time) or ``"cancelled"`` (by
    its creator). Nothing follows it."""

    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class UnknownEvent(Event):
    """An event type newer than this SDK, with its fields as sent."""

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


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {value!r}")
    return int(value)


def _opt_int(value: Any) -> int | None:
    return None if value is None else _int(value)


def _ints(value: Any) -> tuple[int, ...]:
    return tuple(_int(v) for v in value or ())


def _int_lists(value: Any) -> tuple[tuple[int, ...], ...]:
    return tuple(_ints(v) for v in value or ())


def _game_created(version: int, seat: int | None, d: Mapping[str, Any]) -> Event:
    seats = list(d.get("seats") or ())
    return GameCreated(
        version=version,
        seat=seat,
        variant=str(d.get("variant", "")),
        overrides=dict(d.get("overrides") or {}),
        players=tuple(str(s.get("name") or "") for s in seats),
        bots=tuple(s.get("bot") or None for s in seats),
        seed_hash=str(d.get("seed_hash", "")),
        turn_timer_seconds=_int(d.get("turn_timer_seconds", 0)),
    )


def _round_started(version: int, seat: int | None, d: Mapping[str, Any]) -> Event:
    hands = list(d.get("hands") or ())
    mine = [h for h in hands if h is not None]
    return RoundStarted(
        version=version,
        seat=seat,
        round=_int(d["round"]),
        dealer=_int(d["dealer"]),
        first_player=_int(d["first_player"]),
        hand=_ints(mine[0]) if mine else None,
        hand_sizes=_ints(d.get("hand_sizes")),
        upcard=_opt_int(d.get("upcard")),
        stock_size=_int(d.get("stock_size", 0)),
    )


_Parser = Callable[[int, int | None, Mapping[str, Any]], Event]

_PARSERS: dict[str, _Parser] = {
    "GameCreated": _game_created,
    "SeatJoined": lambda v, s, d: SeatJoined(
        version=v, seat=s, player_name=str(d.get("player_name", ""))
    ),
    "SeatTimedOut": lambda v, s, d: SeatTimedOut(version=v, seat=s),
    "SeatReclaimed": lambda v, s, d: SeatReclaimed(version=v, seat=s),
    "RoundStarted": _round_started,
    "DrewFromStock": lambda v, s, d: DrewFromStock(version=v, seat=s, card=_opt_int(d.get("card"))),
    "TookDiscard": lambda v, s, d: TookDiscard(version=v, seat=s, card=_int(d["card"])),
    "DiscardPileTurnedOver": lambda v, s, d: DiscardPileTurnedOver(
        version=v, seat=s, rebuild=_int(d.get("rebuild", 0))
    ),
    "StockReshuffled": lambda v, s, d: StockReshuffled(
        version=v,
        seat=s,
        rebuild=_int(d.get("rebuild", 0)),
        kept=_int(d["kept"]),
        stock_size=_int(d.get("stock_size", 0)),
    ),
    "MeldsLaid": lambda v, s, d: MeldsLaid(
        version=v, seat=s, melds=_int_lists(d.get("melds")), opening=bool(d.get("opening"))
    ),
    "LaidOff": lambda v, s, d: LaidOff(
        version=v,
        seat=s,
        card=_int(d["card"]),
        meld=_int(d["meld"]),
        end=End.parse(str(d.get("end", "end"))),
    ),
    "JokerSwapped": lambda v, s, d: JokerSwapped(
        version=v, seat=s, card=_int(d["card"]), meld=_int(d["meld"]), joker=_int(d["joker"])
    ),
    "Discarded": lambda v, s, d: Discarded(version=v, seat=s, card=_int(d["card"])),
    "Resigned": lambda v, s, d: Resigned(version=v, seat=s),
    "PassedUpcard": lambda v, s, d: PassedUpcard(version=v, seat=s),
    "Knocked": lambda v, s, d: Knocked(
        version=v,
        seat=s,
        discard=_opt_int(d.get("discard")),
        melds=_int_lists(d.get("melds")),
        deadwood=_int(d.get("deadwood", 0)),
    ),
    "LayoutAccepted": lambda v, s, d: LayoutAccepted(version=v, seat=s),
    "RoundEnded": lambda v, s, d: RoundEnded(
        version=v,
        seat=s,
        round=_int(d["round"]),
        ending=str(d.get("ending", "")),
        winner=_opt_int(d.get("winner")),
        closed_hand=bool(d.get("closed_hand")),
        scores=_ints(d.get("scores")),
        hands=_int_lists(d.get("hands")),
    ),
    "MatchEnded": lambda v, s, d: MatchEnded(
        version=v, seat=s, totals=_ints(d.get("totals")), winners=_ints(d.get("winners"))
    ),
    "GameEnded": lambda v, s, d: GameEnded(version=v, seat=s, reason=str(d.get("reason", ""))),
}


def event_from_data(
    version: int, type_name: str, data: Mapping[str, Any], seat: int | None = None
) -> Event:
    """A typed event from its type and fields (JSON numbers may be floats)."""
    if seat is None and isinstance(data.get("seat"), int | float):
        seat = _int(data["seat"])
    parser = _PARSERS.get(type_name)
    if parser is None:
        return UnknownEvent(version=version, seat=seat, name=type_name, data=dict(data))
    try:
        return parser(version, seat, data)
    except (KeyError, TypeError, ValueError):
        # A field this SDK reads differently: keep the event rather than lose it.
        return UnknownEvent(version=version, seat=seat, name=type_name, data=dict(data))


def ends_match(item: WatchItem) -> bool:
    """Whether nothing can follow ``item``: the match has ended, or the game."""
    if isinstance(item, Snapshot):
        return item.view.status is GameStatus.FINISHED
    return isinstance(item, MatchEnded | GameEnded)
