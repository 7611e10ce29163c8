"""A hosted game as one replica holds it: folded from its log
(:mod:`ramino.app.log`), caught up with what others appended, dealt, and
snapshotted; the value both halves of the application share, the games'
and quick play's."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ramino.app.log import GameCreated, Header, public_header
from ramino.engine import Event, Game, Record, event_from_data
from ramino.store import Entry

__all__ = ["HostedGame"]


@dataclass
class HostedGame:
    """A hosted game folded from its log, as one replica holds it."""

    header: Header
    players: list[str | None]
    """Who sits in each seat; ``None`` while the seat is open."""
    version: int
    last_at: float
    engine: Game | None = None
    timed_out: set[int] = field(default_factory=set)
    ended: str | None = None
    """Why the game ended before its match did (:data:`END_REASONS`), if it did."""
    person_at: float = 0.0
    """When a person last acted in the game: created it, joined it, or played
    a move of their own (not one a turn timer played for them); the creation
    time when unset."""
    legal: tuple[int, int, Any] | None = field(default=None, compare=False, repr=False)
    """The last legal moves and hint computed in this game: ``(version,
    seat, LegalMoves)`` (see ``ramino.app.games.moves``). Kept only with the game
    object, which is dropped whenever its state is not the store's (a
    failed append), so a version names one state."""

    def __post_init__(self) -> None:
        if not self.person_at:
            self.person_at = self.header.created_at

    player_ids: dict[int, str] = field(default_factory=dict)
    """The verified player of each seat joined by one (servers that know
    players only)."""
    tail: str | None = None
    """The text of the log entry at :attr:`version`, as this replica wrote or
    read it (``None`` when unknown: a game loaded from a snapshot alone). A
    replica that finds another text there in a shared store holds a write the
    store lost (a Redis failover) and folds the game again."""

    _public: GameCreated | None = field(default=None, compare=False, repr=False)

    @property
    def game_id(self) -> str:
        return self.header.game_id

    def public_header(self) -> GameCreated:
        """:func:`public_header` of this game's header, made once."""
        if self._public is None:
            self._public = public_header(self.header)
        return self._public

    @property
    def open_seats(self) -> list[int]:
        return [i for i, p in enumerate(self.players) if p is None]

    @property
    def status(self) -> str:
        if self.ended is not None:
            return "finished"
        if self.engine is None:
            return "waiting"
        return "finished" if self.engine.finished else "playing"

    @classmethod
    def fold(cls, entries: Sequence[Entry]) -> HostedGame:
        first = json.loads(entries[0].data)
        header = Header.from_data(first["header"])
        game = cls(
            header=header,
            players=header.initial_players(),
            version=entries[0].version,
            last_at=first["at"],
            player_ids=header.bound_players(),
        )
        events: list[Event] = []
        for e in entries[1:]:
            data = json.loads(e.data)
            game.note(data)
            if data["kind"] == "engine":
                events.append(event_from_data(data["event"]))
            game.version = e.version
        game.tail = entries[-1].data
        if events:
            game.engine = Game.from_record(game.record(events))
        return game

    def record(self, events: Sequence[Event] = ()) -> Record:
        """The engine's record of this game (its setup), with ``events``."""
        h = self.header
        return Record(
            variant=h.variant,
            overrides=dict(h.overrides),
            players=tuple(p or "" for p in self.players),
            seed=h.seed,
            decks=h.decks,
            events=list(events),
        )

    def snapshot(self) -> str:
        """This game at its version, for :meth:`from_snapshot`."""
        return json.dumps(
            {
                "header": self.header.to_data(),
                "players": self.players,
                "version": self.version,
                "last_at": self.last_at,
                "timed_out": sorted(self.timed_out),
                "ended": self.ended,
                "person_at": self.person_at,
                "player_ids": {str(k): v for k, v in self.player_ids.items()},
                "engine": None if self.engine is None else self.engine.snapshot(),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_snapshot(cls, text: str, after: Sequence[Entry]) -> HostedGame:
        """The game of a snapshot, caught up with the entries after it."""
        data = json.loads(text)
        header = Header.from_data(data["header"])
        game = cls(
            header=header,
            players=list(data["players"]),
            version=int(data["version"]),
            last_at=float(data["last_at"]),
            timed_out=set(data["timed_out"]),
            ended=data.get("ended"),
            person_at=float(data.get("person_at", 0.0)),
            player_ids={int(k): str(v) for k, v in data.get("player_ids", {}).items()},
        )
        if data["engine"] is not None:
            game.engine = Game.from_snapshot(game.record(), data["engine"])
        if not game.catch_up(after):
            raise ValueError("a snapshot taken before the deal cannot be caught up")
        return game

    def wrote(self, version: int, entries: Sequence[str]) -> None:
        """This replica appended ``entries``, the last of them at ``version``:
        the game's version and :attr:`tail` move together."""
        self.version, self.tail = version, entries[-1]

    def note(self, data: dict[str, Any]) -> None:
        """Folds the service's own facts of one entry (not the engine's)."""
        kind = data["kind"]
        at = data["at"]
        if kind == "engine":
            event = data["event"]
            seat = event.get("seat")
            # A resignation restarts the abandon time of the seats still in,
            # whoever played it: a seat's own, or the server's for a seat that
            # forfeits a rated game (``ramino.app.games.moves``), timed out or not.
            if isinstance(seat, int) and (
                self.is_person(seat)
                or (event.get("type") == "Resigned" and self.header.seats[seat].bot is None)
            ):
                self.person_at = at
        elif kind == "joined":
            self.players[data["seat"]] = data["player_name"]
            self.person_at = at
            if "player_id" in data:
                self.player_ids[data["seat"]] = data["player_id"]
        elif kind == "timed_out":
            self.timed_out.add(data["seat"])
        elif kind == "reclaimed":
            self.timed_out.discard(data["seat"])
            self.person_at = at
        elif kind == "ended":
            self.ended = data["reason"]
        self.last_at = at

    def is_person(self, seat: int) -> bool:
        """Whether ``seat``'s moves are a person's own: not a bot's, nor played
        by a turn timer for its person."""
        seats = self.header.seats
        return 0 <= seat < len(seats) and seats[seat].bot is None and seat not in self.timed_out

    def catch_up(self, entries: Iterable[Entry]) -> bool:
        """Applies entries appended by another writer; False when they start
        the engine (the caller then folds the log again)."""
        for e in entries:
            data = json.loads(e.data)
            if data["kind"] == "engine":
                if self.engine is None:
                    return False
                self.engine.absorb([event_from_data(data["event"])])
            self.note(data)
            self.version = e.version
            self.tail = e.data
        return True

    def start(self) -> list[Event]:
        """Deals the first round once every seat is taken: the engine's first
        events."""
        assert self.engine is None and not self.open_seats
        self.engine = Game.new(
            self.header.variant,
            [p or "" for p in self.players],
            seed=self.header.seed,
            overrides=self.header.overrides,
            decks=self.header.decks,
        )
        return list(self.engine.record.events)
