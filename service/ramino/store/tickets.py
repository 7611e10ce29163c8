"""Quick-play tickets and the matches made of them, kept in the store so
that every replica matches the same queues.

A ticket is *waiting* until a match claims it (*matching*), then *matched*
once its game exists; or it ends *cancelled* or *expired* while waiting.
Every store gives the same guarantees:

- :meth:`TicketStore.claim` moves all of a match's tickets from waiting to
  matching in one atomic step, or none (a ticket already claimed, cancelled
  or expired): a ticket is in at most one match, so it never yields two
  seats;
- a match stays in the store (:meth:`TicketStore.forming`) from its claim
  until :meth:`TicketStore.complete` marks its tickets matched, so a replica
  that dies in between leaves it for the next replica to finish (its game is
  created under the match's id, all its seats bound at creation: see
  ``ramino.app.matchmaker``);
- a player holds at most ``limit`` waiting or matching tickets at once
  (:class:`TooManyTickets`);
- waiting tickets are listed oldest first (by submission time, then id);
- a ticket is *followed* while a stream on some replica notes so in the store
  (:meth:`TicketStore.touch`); its last-followed time is the last such note,
  or its submission time if none came. A claim or an end given a time checks
  the tickets' last-followed times against it in the same atomic step, so a
  stream that notes a ticket at that moment is never lost (see
  :func:`followed_at`).

A ticket's id starts with its queue (``QUEUE.RANDOM``), so a store finds a
ticket's queue from its id alone (on Redis, the hash slot of its keys).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import orjson

from ramino.store.ratings import beside, connect_beside

__all__ = [
    "ACTIVE",
    "CANCELLED",
    "ENDED_KEPT",
    "EXPIRED",
    "MATCHED",
    "MATCHING",
    "WAITING",
    "Match",
    "MatchSeat",
    "MemoryTickets",
    "SqliteTickets",
    "Ticket",
    "TicketExists",
    "TicketStore",
    "TooManyTickets",
    "followed_at",
    "new_ticket_id",
    "queue_of",
]

WAITING = "waiting"
MATCHING = "matching"
MATCHED = "matched"
CANCELLED = "cancelled"
EXPIRED = "expired"
ACTIVE = (WAITING, MATCHING)
"""The states a ticket counts against its player's bound in."""
ENDED_KEPT = 600.0
"""Seconds an ended ticket stays readable (a client reconnecting to its
stream learns how it ended), then it is dropped."""
_QUEUE_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyz-_")


class TicketExists(Exception):
    pass


class TooManyTickets(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"a player holds at most {limit} tickets at once")
        self.limit = limit


def followed_at(ticket: Ticket, touched: float) -> float:
    """When a stream last followed the ticket (``touched``: the store's
    note, 0 for none), or its submission when none did since."""
    return max(touched, ticket.created_at)


def new_ticket_id(queue: str) -> str:
    return f"{queue}.{secrets.token_hex(12)}"


def queue_of(ticket_id: str) -> str | None:
    """The queue of a ticket id this store made; ``None`` for any other text."""
    queue, sep, rest = ticket_id.partition(".")
    if (
        not sep
        or not 1 <= len(queue) <= 64
        or not set(queue) <= _QUEUE_CHARS
        or len(rest) != 24
        or not set(rest) <= _QUEUE_CHARS
    ):
        return None
    return queue


@dataclass(frozen=True, slots=True)
class Ticket:
    """One player's wish to play, in one queue."""

    ticket_id: str
    player_id: str
    name: str
    queue: str
    min_seats: int
    max_seats: int
    properties: dict[str, str]
    """Must equal, key by key, those of every ticket it is matched with
    (a key one ticket does not set accepts any value)."""
    rating: float
    """The player's leaderboard score when the ticket was submitted."""
    created_at: float
    variant: str = ""
    """The queue's games: its variant, overrides and whether rated (every
    ticket carries them, so any replica can create its match's game)."""
    overrides: dict[str, Any] = field(default_factory=dict)
    rated: bool = False
    bots: bool = True
    """Bots may fill its game after the matchmaker's wait."""
    state: str = WAITING
    match_id: str = ""
    game_id: str = ""
    seat: int = -1
    ended_at: float = 0.0

    def to_json(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def from_json(cls, data: str | bytes) -> Ticket:
        return cls(**orjson.loads(data))


@dataclass(frozen=True, slots=True)
class MatchSeat:
    """A seat of a match: a ticket's player, or a bot (empty ticket id)."""

    ticket_id: str
    player_id: str
    name: str
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class Match:
    """Tickets claimed together, and everything needed to create their game
    (whichever replica finishes it)."""

    match_id: str
    queue: str
    variant: str
    overrides: dict[str, Any]
    rated: bool
    seats: tuple[MatchSeat, ...]
    created_at: float
    turn_timer_seconds: int = 0

    @property
    def ticket_ids(self) -> list[str]:
        return [s.ticket_id for s in self.seats if s.ticket_id]

    def to_json(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def from_json(cls, data: str | bytes) -> Match:
        d = orjson.loads(data)
        d["seats"] = tuple(MatchSeat(**s) for s in d["seats"])
        return cls(**d)


class TicketStore(Protocol):
    """Tickets and matches (memory, sqlite, redis)."""

    async def submit(self, ticket: Ticket, limit: int) -> None:
        """Adds a waiting ticket; :class:`TooManyTickets` when its player
        holds ``limit`` active tickets already, :class:`TicketExists` for a
        ticket id in use (Redis's store: by another ticket; the same ticket
        again is its submission run again by the client's retry, done)."""
        ...

    async def ticket(self, ticket_id: str) -> Ticket | None: ...

    async def waiting(self, queue: str) -> list[Ticket]:
        """The queue's waiting tickets, oldest first."""
        ...

    async def queues(self) -> list[str]:
        """The queues with a waiting ticket or a forming match."""
        ...

    async def claim(self, match: Match, followed_since: float | None = None) -> bool:
        """Claims all of ``match``'s tickets, if every one is still waiting
        and, given ``followed_since``, was followed at or after it
        (:func:`followed_at`, read in the same atomic step): True; or none
        (False)."""
        ...

    async def forming(self, queue: str) -> list[Match]:
        """The queue's claimed matches whose tickets are not matched yet."""
        ...

    async def complete(self, match: Match, game_id: str, now: float) -> bool:
        """Marks the match's tickets matched to ``game_id``, each with its
        seat, and, for a rated match, keeps the game among the queue's
        *rated games in play* (see :meth:`in_play`); False when it was
        completed before (nothing changes)."""
        ...

    async def in_play(self, queue: str, before: float, limit: int) -> list[str]:
        """The queue's rated games in play last looked at before ``before``,
        longest unseen first: the matchmaker records the ratings of those
        that finished (a replica that died between a game's last move and
        its ratings left them unrecorded) and looks at the others again later."""
        ...

    async def looked_at(self, queue: str, game_id: str, now: float | None) -> None:
        """The game was looked at ``now`` (still in play), or is done with
        (``None``: its ratings are recorded, or it is gone)."""
        ...

    async def end(
        self, ticket_id: str, state: str, now: float, unfollowed_since: float | None = None
    ) -> Ticket | None:
        """Ends a waiting ticket as ``state`` (cancelled or expired) and
        answers it; a ticket no longer waiting, or, given
        ``unfollowed_since``, followed at or after it (:func:`followed_at`,
        read in the same atomic step), is answered unchanged; an unknown one
        ``None``."""
        ...

    async def active(self, player_id: str) -> int:
        """How many waiting or matching tickets the player holds."""
        ...

    async def touch(self, ticket_id: str, now: float) -> None:
        """Notes that a stream follows the ticket now (any replica's)."""
        ...

    async def touched(self, ticket_id: str) -> float:
        """When a stream last followed the ticket (0: never)."""
        ...

    async def touched_many(self, ticket_ids: Sequence[str]) -> list[float]:
        """:meth:`touched` of each ticket, in one read of the store."""
        ...

    async def close(self) -> None: ...


def matched(ticket: Ticket, match: Match, game_id: str, now: float) -> Ticket:
    seat = next(i for i, s in enumerate(match.seats) if s.ticket_id == ticket.ticket_id)
    return replace(ticket, state=MATCHED, game_id=game_id, seat=seat, ended_at=now)


@dataclass
class _Queue:
    tickets: dict[str, Ticket] = field(default_factory=dict)
    matches: dict[str, Match] = field(default_factory=dict)
    in_play: dict[str, float] = field(default_factory=dict)


class MemoryTickets:
    """Tickets in this process's memory (tests, the memory store): every
    method runs in one step of the event loop."""

    def __init__(self) -> None:
        self._queues: dict[str, _Queue] = {}
        self._tickets: dict[str, Ticket] = {}
        self._touched: dict[str, float] = {}

    def _prune(self, now: float) -> None:
        old = [
            t.ticket_id
            for t in self._tickets.values()
            if t.state not in ACTIVE and t.ended_at < now - ENDED_KEPT
        ]
        for tid in old:
            del self._tickets[tid]
            self._touched.pop(tid, None)

    async def submit(self, ticket: Ticket, limit: int) -> None:
        if ticket.ticket_id in self._tickets:
            raise TicketExists(ticket.ticket_id)
        if await self.active(ticket.player_id) >= limit:
            raise TooManyTickets(limit)
        self._prune(ticket.created_at)
        self._tickets[ticket.ticket_id] = ticket
        self._queues.setdefault(ticket.queue, _Queue()).tickets[ticket.ticket_id] = ticket

    async def ticket(self, ticket_id: str) -> Ticket | None:
        return self._tickets.get(ticket_id)

    async def waiting(self, queue: str) -> list[Ticket]:
        q = self._queues.get(queue)
        found = [] if q is None else [t for t in q.tickets.values() if t.state == WAITING]
        return sorted(found, key=lambda t: (t.created_at, t.ticket_id))

    async def queues(self) -> list[str]:
        return sorted(
            name for name, q in self._queues.items() if q.tickets or q.matches or q.in_play
        )

    def _set(self, ticket: Ticket) -> None:
        self._tickets[ticket.ticket_id] = ticket
        q = self._queues[ticket.queue]
        if ticket.state == WAITING:
            q.tickets[ticket.ticket_id] = ticket
        else:
            q.tickets.pop(ticket.ticket_id, None)

    def _followed_at(self, ticket: Ticket) -> float:
        return followed_at(ticket, self._touched.get(ticket.ticket_id, 0.0))

    async def claim(self, match: Match, followed_since: float | None = None) -> bool:
        tickets = [self._tickets.get(t) for t in match.ticket_ids]
        if any(t is None or t.state != WAITING or t.queue != match.queue for t in tickets):
            return False
        for t in tickets:
            assert t is not None
            if followed_since is not None and self._followed_at(t) < followed_since:
                return False
        for t in tickets:
            assert t is not None
            self._set(replace(t, state=MATCHING, match_id=match.match_id))
        self._queues[match.queue].matches[match.match_id] = match
        return True

    async def forming(self, queue: str) -> list[Match]:
        q = self._queues.get(queue)
        return [] if q is None else sorted(q.matches.values(), key=lambda m: m.created_at)

    async def complete(self, match: Match, game_id: str, now: float) -> bool:
        q = self._queues.get(match.queue)
        if q is None or q.matches.pop(match.match_id, None) is None:
            return False
        for tid in match.ticket_ids:
            self._set(matched(self._tickets[tid], match, game_id, now))
        if match.rated:
            q.in_play[game_id] = now
        return True

    async def in_play(self, queue: str, before: float, limit: int) -> list[str]:
        q = self._queues.get(queue)
        games = [] if q is None else [(at, g) for g, at in q.in_play.items() if at < before]
        return [g for _, g in sorted(games)[:limit]]

    async def looked_at(self, queue: str, game_id: str, now: float | None) -> None:
        q = self._queues.get(queue)
        if q is None or game_id not in q.in_play:
            return
        if now is None:
            del q.in_play[game_id]
        else:
            q.in_play[game_id] = now

    async def end(
        self, ticket_id: str, state: str, now: float, unfollowed_since: float | None = None
    ) -> Ticket | None:
        t = self._tickets.get(ticket_id)
        if t is None or t.state != WAITING:
            return t
        if unfollowed_since is not None and self._followed_at(t) >= unfollowed_since:
            return t
        ended = replace(t, state=state, ended_at=now)
        self._set(ended)
        return ended

    async def active(self, player_id: str) -> int:
        return sum(
            1 for t in self._tickets.values() if t.player_id == player_id and t.state in ACTIVE
        )

    async def touch(self, ticket_id: str, now: float) -> None:
        if ticket_id in self._tickets:
            self._touched[ticket_id] = now

    async def touched(self, ticket_id: str) -> float:
        return self._touched.get(ticket_id, 0.0)

    async def touched_many(self, ticket_ids: Sequence[str]) -> list[float]:
        return [self._touched.get(tid, 0.0) for tid in ticket_ids]

    async def close(self) -> None:
        pass


SCHEMA = """
CREATE TABLE IF NOT EXISTS tickets (
    ticket_id TEXT PRIMARY KEY,
    queue TEXT NOT NULL,
    player_id TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at REAL NOT NULL,
    ended_at REAL NOT NULL,
    data TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tickets_waiting ON tickets (queue, state, created_at, ticket_id);
CREATE INDEX IF NOT EXISTS tickets_by_player ON tickets (player_id, state);
CREATE INDEX IF NOT EXISTS tickets_ended ON tickets (ended_at) WHERE ended_at > 0;
CREATE TABLE IF NOT EXISTS ticket_streams (
    ticket_id TEXT PRIMARY KEY,
    at REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rated_in_play (
    game_id TEXT PRIMARY KEY,
    queue TEXT NOT NULL,
    at REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rated_in_play_by_time ON rated_in_play (queue, at);
CREATE TABLE IF NOT EXISTS matches (
    match_id TEXT PRIMARY KEY,
    queue TEXT NOT NULL,
    created_at REAL NOT NULL,
    data TEXT NOT NULL
) WITHOUT ROWID;
"""


class SqliteTickets:
    """Tickets in the sqlite store's file, on a connection of their own;
    each change is one ``BEGIN IMMEDIATE`` transaction."""

    def __init__(self, path: str | Path) -> None:
        self._db = connect_beside(path, SCHEMA)

    def _write(self, ticket: Ticket) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO tickets VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                ticket.ticket_id,
                ticket.queue,
                ticket.player_id,
                ticket.state,
                ticket.created_at,
                ticket.ended_at,
                ticket.to_json().decode(),
            ),
        )

    def _get(self, ticket_id: str) -> Ticket | None:
        row = self._db.execute(
            "SELECT data FROM tickets WHERE ticket_id = ?", (ticket_id,)
        ).fetchone()
        return None if row is None else Ticket.from_json(row[0])

    async def submit(self, ticket: Ticket, limit: int) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if self._get(ticket.ticket_id) is not None:
                raise TicketExists(ticket.ticket_id)
            if self._active(ticket.player_id) >= limit:
                raise TooManyTickets(limit)
            db.execute(
                "DELETE FROM ticket_streams WHERE ticket_id IN (SELECT ticket_id FROM tickets "
                "WHERE ended_at > 0 AND ended_at < ?)",
                (ticket.created_at - ENDED_KEPT,),
            )
            db.execute(
                "DELETE FROM tickets WHERE ended_at > 0 AND ended_at < ?",
                (ticket.created_at - ENDED_KEPT,),
            )
            self._write(ticket)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    async def ticket(self, ticket_id: str) -> Ticket | None:
        return self._get(ticket_id)

    async def waiting(self, queue: str) -> list[Ticket]:
        rows = self._db.execute(
            "SELECT data FROM tickets WHERE queue = ? AND state = ? "
            "ORDER BY created_at, ticket_id",
            (queue, WAITING),
        ).fetchall()
        return [Ticket.from_json(r[0]) for r in rows]

    async def queues(self) -> list[str]:
        rows = self._db.execute(
            "SELECT queue FROM tickets WHERE state = ? UNION SELECT queue FROM matches "
            "UNION SELECT queue FROM rated_in_play",
            (WAITING,),
        ).fetchall()
        return sorted(str(r[0]) for r in rows)

    def _followed_at(self, ticket: Ticket) -> float:
        row = self._db.execute(
            "SELECT at FROM ticket_streams WHERE ticket_id = ?", (ticket.ticket_id,)
        ).fetchone()
        return followed_at(ticket, 0.0 if row is None else float(row[0]))

    async def claim(self, match: Match, followed_since: float | None = None) -> bool:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            tickets = [self._get(t) for t in match.ticket_ids]
            if any(
                t is None
                or t.state != WAITING
                or t.queue != match.queue
                or (followed_since is not None and self._followed_at(t) < followed_since)
                for t in tickets
            ):
                db.execute("ROLLBACK")
                return False
            for t in tickets:
                assert t is not None
                self._write(replace(t, state=MATCHING, match_id=match.match_id))
            db.execute(
                "INSERT INTO matches VALUES (?, ?, ?, ?)",
                (match.match_id, match.queue, match.created_at, match.to_json().decode()),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return True

    async def forming(self, queue: str) -> list[Match]:
        rows = self._db.execute(
            "SELECT data FROM matches WHERE queue = ? ORDER BY created_at, match_id", (queue,)
        ).fetchall()
        return [Match.from_json(r[0]) for r in rows]

    async def complete(self, match: Match, game_id: str, now: float) -> bool:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            gone = db.execute("DELETE FROM matches WHERE match_id = ?", (match.match_id,))
            if gone.rowcount == 0:
                db.execute("ROLLBACK")
                return False
            for tid in match.ticket_ids:
                t = self._get(tid)
                assert t is not None
                self._write(matched(t, match, game_id, now))
            if match.rated:
                db.execute(
                    "INSERT OR REPLACE INTO rated_in_play VALUES (?, ?, ?)",
                    (game_id, match.queue, now),
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return True

    async def in_play(self, queue: str, before: float, limit: int) -> list[str]:
        rows = self._db.execute(
            "SELECT game_id FROM rated_in_play WHERE queue = ? AND at < ? "
            "ORDER BY at, game_id LIMIT ?",
            (queue, before, limit),
        ).fetchall()
        return [str(r[0]) for r in rows]

    async def looked_at(self, queue: str, game_id: str, now: float | None) -> None:
        if now is None:
            self._db.execute("DELETE FROM rated_in_play WHERE game_id = ?", (game_id,))
        else:
            self._db.execute("UPDATE rated_in_play SET at = ? WHERE game_id = ?", (now, game_id))

    async def end(
        self, ticket_id: str, state: str, now: float, unfollowed_since: float | None = None
    ) -> Ticket | None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            t = self._get(ticket_id)
            if (
                t is not None
                and t.state == WAITING
                and (unfollowed_since is None or self._followed_at(t) < unfollowed_since)
            ):
                t = replace(t, state=state, ended_at=now)
                self._write(t)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return t

    def _active(self, player_id: str) -> int:
        (n,) = self._db.execute(
            "SELECT COUNT(*) FROM tickets WHERE player_id = ? AND state IN (?, ?)",
            (player_id, *ACTIVE),
        ).fetchone()
        return int(n)

    async def active(self, player_id: str) -> int:
        return self._active(player_id)

    async def touch(self, ticket_id: str, now: float) -> None:
        self._db.execute("INSERT OR REPLACE INTO ticket_streams VALUES (?, ?)", (ticket_id, now))

    async def touched(self, ticket_id: str) -> float:
        row = self._db.execute(
            "SELECT at FROM ticket_streams WHERE ticket_id = ?", (ticket_id,)
        ).fetchone()
        return 0.0 if row is None else float(row[0])

    async def touched_many(self, ticket_ids: Sequence[str]) -> list[float]:
        found: dict[str, float] = {}
        ids = list(ticket_ids)
        for i in range(0, len(ids), 500):  # within sqlite's bound on parameters
            chunk = ids[i : i + 500]
            rows = self._db.execute(
                "SELECT ticket_id, at FROM ticket_streams WHERE ticket_id IN "
                f"({', '.join('?' * len(chunk))})",
                chunk,
            ).fetchall()
            found.update((str(tid), float(at)) for tid, at in rows)
        return [found.get(tid, 0.0) for tid in ids]

    async def close(self) -> None:
        self._db.close()


def tickets_beside(store: object) -> TicketStore:
    """The ticket store beside a game store (:func:`~ramino.store.ratings.beside`)."""
    from ramino.store.tickets_redis import RedisTickets

    memory: Callable[[], TicketStore] = MemoryTickets
    return beside(store, memory, SqliteTickets, RedisTickets)
