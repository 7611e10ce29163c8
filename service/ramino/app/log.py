"""A hosted game's log: the entries a store keeps for it (the game they fold
into is :class:`~ramino.app.hosted.HostedGame`).

The log wraps the engine's record with what only the service knows: who sits
where (people join, bots are seated at creation), the seed's published hash,
turn timers, and when each entry landed. Entries are JSON objects with a
``kind``:

- ``created``: the header (variant, overrides, seats, the secret seed, its
  hash, the turn timer), always version 1;
- ``joined``: a person took a seat (with ``player_id``, the verified
  player, when the server knows players; never shown to watchers);
- ``engine``: one event of the engine's record (``event`` in the engine's
  stable JSON form);
- ``timed_out`` / ``reclaimed``: a seat's turn timer ran out and a bot played
  its turn / its owner acted again;
- ``ended``: the game ended before its match did, with a ``reason``
  (:data:`END_REASONS`): no person acted in it for the server's abandon time
  (a rated game in play is not ended so: its absent seats forfeit, see
  ``ramino.app.games.moves``), or its creator cancelled it. Nothing can follow it.

Every entry carries ``at``, the server's clock when it was appended (used
only for turn timers, never by the rules).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import orjson

from ramino.engine import Event, Seen, event_from_data, see_event, to_data

__all__ = [
    "SeatSpec",
    "Header",
    "seed_hash",
    "entry",
    "public_entry",
    "public_header",
    "log_event",
    "GameCreated",
    "SeatJoined",
    "SeatTimedOut",
    "SeatReclaimed",
    "GameEnded",
    "LogEvent",
    "END_EVENTS",
    "END_REASONS",
]

END_REASONS = ("abandoned", "cancelled")
"""Why a game ends before its match: the ``reason`` of an ``ended`` entry."""

END_EVENTS = frozenset({"MatchEnded", "GameEnded"})
"""The event types after which nothing follows in a game."""


@functools.lru_cache(maxsize=4096)
def seed_hash(seed: int) -> str:
    """SHA-256 of the seed's decimal digits: published at creation, so that
    anyone can check the seed revealed at the end."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class SeatSpec:
    name: str
    bot: str | None
    """``random`` or ``greedy`` for a bot seat, ``None`` for a person."""
    player_id: str | None = None
    """The verified player the seat is bound to from the game's creation (a
    quick-play match: ``ramino.app.quick.matchmaker``); never shown to watchers."""


@dataclass(frozen=True, slots=True)
class Header:
    game_id: str
    variant: str
    overrides: dict[str, Any]
    seats: tuple[SeatSpec, ...]
    seed: int
    turn_timer_seconds: int
    created_at: float
    decks: tuple[tuple[int, ...], ...] = ()
    """Fixed deck orders of the first rounds: only tests stack a deal."""
    spectators_disabled: bool = False
    """Only seats may watch the game."""
    fixed_deal: bool = False
    """Created by a server in test mode (``--test-seed``): its seed was known
    in advance, so it is not a fair game."""
    rated: bool = False
    """The game changes its players' ratings when its match ends
    (``ramino.app.quick.ratings``)."""
    quick_play: bool = False
    """A public table whose creator lets quick play fill its open seats
    (joinOrCreate: ``ramino.app.quick.matchmaker``)."""
    invite_hash: str = ""
    """A private game's: SHA-256 (hex) of the secret of its invite code
    (:mod:`ramino.app.games.invites`; the code itself is never in the log). Empty
    for a public game."""

    @property
    def private(self) -> bool:
        """Never listed; joined only with its invite code."""
        return bool(self.invite_hash)

    @property
    def seed_hash(self) -> str:
        return seed_hash(self.seed)

    def initial_players(self) -> list[str | None]:
        """Who sits in each seat at creation: bots and bound players (an open
        seat ``None``)."""
        return [s.name if s.bot or s.player_id else None for s in self.seats]

    def bound_players(self) -> dict[int, str]:
        return {i: s.player_id for i, s in enumerate(self.seats) if s.player_id}

    def to_data(self) -> dict[str, Any]:
        data = {
            "game_id": self.game_id,
            "variant": self.variant,
            "overrides": self.overrides,
            "seats": [
                {"name": s.name, "bot": s.bot, **({"player": s.player_id} if s.player_id else {})}
                for s in self.seats
            ],
            "seed": str(self.seed),
            "seed_hash": self.seed_hash,
            "turn_timer_seconds": self.turn_timer_seconds,
            "created_at": self.created_at,
            "decks": [list(d) for d in self.decks],
        }
        if self.spectators_disabled:
            data["spectators_disabled"] = True
        if self.fixed_deal:
            data["fixed_deal"] = True
        if self.rated:
            data["rated"] = True
        if self.quick_play:
            data["quick_play"] = True
        if self.invite_hash:
            data["invite_hash"] = self.invite_hash
        return data

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> Header:
        return cls(
            game_id=d["game_id"],
            variant=d["variant"],
            overrides=dict(d["overrides"]),
            seats=tuple(SeatSpec(s["name"], s["bot"], s.get("player")) for s in d["seats"]),
            seed=int(d["seed"]),
            turn_timer_seconds=int(d["turn_timer_seconds"]),
            created_at=float(d["created_at"]),
            decks=tuple(tuple(x) for x in d.get("decks", ())),
            spectators_disabled=bool(d.get("spectators_disabled", False)),
            fixed_deal=bool(d.get("fixed_deal", False)),
            rated=bool(d.get("rated", False)),
            quick_play=bool(d.get("quick_play", False)),
            invite_hash=str(d.get("invite_hash", "")),
        )


@dataclass(frozen=True, slots=True)
class GameCreated:
    """The game was created: its header as everyone may see it (no seed, no
    stacked deck)."""

    variant: str
    overrides: dict[str, Any]
    seats: tuple[SeatSpec, ...]
    seed_hash: str
    turn_timer_seconds: int
    created_at: float
    spectators_disabled: bool
    fixed_deal: bool = False
    """Created in test mode: a known seed (see :attr:`Header.fixed_deal`)."""


@dataclass(frozen=True, slots=True)
class SeatJoined:
    seat: int
    player_name: str


@dataclass(frozen=True, slots=True)
class SeatTimedOut:
    seat: int


@dataclass(frozen=True, slots=True)
class SeatReclaimed:
    seat: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game ended before its match did, for ``reason`` (:data:`END_REASONS`)."""

    reason: str


LogEvent: TypeAlias = Event | GameCreated | SeatJoined | SeatTimedOut | SeatReclaimed | GameEnded
"""An entry of the log as a viewer may see it: the service's own events and
the engine's (projected for the viewer)."""


def entry(kind: str, at: float, **fields: Any) -> str:
    """One entry as compact JSON with sorted keys."""
    data = {"kind": kind, "at": at, **fields}
    try:
        return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # an integer past 64 bits (the header's seed): the slower encoder
        return json.dumps(data, separators=(",", ":"), sort_keys=True)


def public_header(h: Header) -> GameCreated:
    """The header as everyone may see it: no seed, no stacked deck, no
    seat's player id."""
    return GameCreated(
        variant=h.variant,
        overrides=h.overrides,
        seats=tuple(SeatSpec(s.name, s.bot) for s in h.seats),
        seed_hash=h.seed_hash,
        turn_timer_seconds=h.turn_timer_seconds,
        created_at=h.created_at,
        spectators_disabled=h.spectators_disabled,
        fixed_deal=h.fixed_deal,
    )


def log_event(data: dict[str, Any]) -> LogEvent:
    """The event of one entry, unprojected (an engine event as its record
    holds it, the header without its seed)."""
    kind = data["kind"]
    if kind == "created":
        return public_header(Header.from_data(data["header"]))
    if kind == "engine":
        return event_from_data(data["event"])
    if kind == "joined":
        return SeatJoined(data["seat"], data["player_name"])
    if kind == "timed_out":
        return SeatTimedOut(data["seat"])
    if kind == "reclaimed":
        return SeatReclaimed(data["seat"])
    if kind == "ended":
        return GameEnded(data["reason"])
    raise ValueError(f"unknown log entry kind {kind!r}")


def public_entry(data: dict[str, Any], viewer: int | None) -> Seen[LogEvent]:
    """The entry as ``viewer`` may see it, through the engine's filter."""
    return see_event(log_event(data), viewer)


def engine_entries(
    events: Iterable[Event], at: float, turns: Sequence[int | None] = ()
) -> list[str]:
    """The entries of engine events, each with whose turn it is after it
    (``turns``, the engine's :attr:`~ramino.engine.Game.turns`), which the
    watch streams tell their viewers with the event."""
    if not turns:
        return [entry("engine", at, event=to_data(e)) for e in events]
    return [
        entry("engine", at, event=to_data(e), turn=t) for e, t in zip(events, turns, strict=True)
    ]


def entry_turn(data: dict[str, Any]) -> int | None:
    """Whose turn it is after an entry, as its writer logged it (None: no
    seat is to play, or an entry logged before servers said)."""
    turn = data.get("turn")
    return turn if isinstance(turn, int) else None
