"""Tickets in the sqlite store's file, beside its games."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from pathlib import Path

from ramino.store.beside import connect_beside
from ramino.store.tickets.base import (
    ACTIVE,
    ENDED_KEPT,
    MATCHING,
    WAITING,
    Changes,
    Match,
    PartyRecord,
    TicketExists,
    TicketRecord,
    TicketRequestReused,
    followed_at,
    matched,
    over_bound,
)

__all__ = ["SqliteTickets"]

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
CREATE TABLE IF NOT EXISTS ticket_members (
    player_id TEXT NOT NULL,
    ticket_id TEXT NOT NULL,
    PRIMARY KEY (player_id, ticket_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ticket_members_by_ticket ON ticket_members (ticket_id);
CREATE TABLE IF NOT EXISTS party_holds (
    player_id TEXT PRIMARY KEY,
    party_id TEXT NOT NULL,
    at REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ticket_requests (
    player_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    ticket_id TEXT NOT NULL,
    PRIMARY KEY (player_id, request_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ticket_requests_by_ticket ON ticket_requests (ticket_id);
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
CREATE TABLE IF NOT EXISTS parties (
    party_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    expires_at REAL NOT NULL,
    data TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS parties_by_expiry ON parties (expires_at);
CREATE TABLE IF NOT EXISTS quick_tables (
    queue TEXT NOT NULL,
    game_id TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (queue, game_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS quick_tables_by_time ON quick_tables (queue, at, game_id);
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

    def __init__(self, path: str | Path, settle: Callable[[], None] | None = None) -> None:
        """``settle``: the game store's beside which this one lives
        (:func:`~ramino.store.beside.connect_beside`)."""
        self._db = connect_beside(path, SCHEMA, settle)
        self._changes = Changes()

    def _write(self, ticket: TicketRecord) -> None:
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

    def _get(self, ticket_id: str) -> TicketRecord | None:
        row = self._db.execute(
            "SELECT data FROM tickets WHERE ticket_id = ?", (ticket_id,)
        ).fetchone()
        return None if row is None else TicketRecord.from_json(row[0])

    async def submit(self, ticket: TicketRecord, limit: int) -> TicketRecord:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            first = self._first(ticket)
            if first is not None:
                db.execute("ROLLBACK")
                return first
            if self._get(ticket.ticket_id) is not None:
                raise TicketExists(ticket.ticket_id)
            over_bound(ticket, {p: self._active(p) for p in ticket.players}, limit)
            old = "SELECT ticket_id FROM tickets WHERE ended_at > 0 AND ended_at < ?"
            before = (ticket.created_at - ENDED_KEPT,)
            db.execute(f"DELETE FROM ticket_streams WHERE ticket_id IN ({old})", before)
            db.execute(f"DELETE FROM ticket_requests WHERE ticket_id IN ({old})", before)
            db.execute(f"DELETE FROM ticket_members WHERE ticket_id IN ({old})", before)
            db.execute("DELETE FROM tickets WHERE ended_at > 0 AND ended_at < ?", before)
            self._write(ticket)
            db.executemany(
                "INSERT OR IGNORE INTO ticket_members VALUES (?, ?)",
                [(m[0], ticket.ticket_id) for m in ticket.members],
            )
            if ticket.request_id:
                db.execute(
                    "INSERT OR REPLACE INTO ticket_requests VALUES (?, ?, ?)",
                    (ticket.player_id, ticket.request_id, ticket.ticket_id),
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return ticket

    def _first(self, ticket: TicketRecord) -> TicketRecord | None:
        """The ticket the player's request id made before, if it is kept
        (:class:`TicketRequestReused` if it asked for something else)."""
        if not ticket.request_id:
            return None
        row = self._db.execute(
            "SELECT ticket_id FROM ticket_requests WHERE player_id = ? AND request_id = ?",
            (ticket.player_id, ticket.request_id),
        ).fetchone()
        first = None if row is None else self._get(row[0])
        if first is not None and first.fingerprint != ticket.fingerprint:
            raise TicketRequestReused()
        return first

    async def live(self, player_id: str) -> list[TicketRecord]:
        rows = self._db.execute(
            "SELECT data FROM tickets WHERE player_id = ? AND state IN (?, ?) "
            "ORDER BY created_at, ticket_id",
            (player_id, *ACTIVE),
        ).fetchall()
        return [TicketRecord.from_json(r[0]) for r in rows]

    async def ticket(self, ticket_id: str) -> TicketRecord | None:
        return self._get(ticket_id)

    async def waiting(self, queue: str) -> list[TicketRecord]:
        rows = self._db.execute(
            "SELECT data FROM tickets WHERE queue = ? AND state = ? "
            "ORDER BY created_at, ticket_id",
            (queue, WAITING),
        ).fetchall()
        return [TicketRecord.from_json(r[0]) for r in rows]

    async def waiting_count(self, queue: str) -> int:
        row = self._db.execute(
            "SELECT COUNT(*) FROM tickets WHERE queue = ? AND state = ?", (queue, WAITING)
        ).fetchone()
        return int(row[0])

    async def queues(self) -> list[str]:
        rows = self._db.execute(
            "SELECT queue FROM tickets WHERE state = ? UNION SELECT queue FROM matches "
            "UNION SELECT queue FROM rated_in_play",
            (WAITING,),
        ).fetchall()
        return sorted(str(r[0]) for r in rows)

    def _followed_at(self, ticket: TicketRecord) -> float:
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

    async def release(self, match: Match) -> bool:
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
                self._write(replace(t, state=WAITING, match_id=""))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._changes.tell(match.queue, match.ticket_ids)
        return True

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
        self._changes.tell(match.queue, match.ticket_ids)
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

    async def offer_table(self, queue: str, game_id: str, at: float) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO quick_tables VALUES (?, ?, ?)", (queue, game_id, at)
        )

    async def tables(self, queue: str, limit: int) -> list[str]:
        rows = self._db.execute(
            "SELECT game_id FROM quick_tables WHERE queue = ? ORDER BY at, game_id LIMIT ?",
            (queue, limit),
        ).fetchall()
        return [str(r[0]) for r in rows]

    async def withdraw_table(self, queue: str, game_id: str) -> None:
        self._db.execute(
            "DELETE FROM quick_tables WHERE queue = ? AND game_id = ?", (queue, game_id)
        )

    async def end(
        self, ticket_id: str, state: str, now: float, unfollowed_since: float | None = None
    ) -> TicketRecord | None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            t = self._get(ticket_id)
            ended = (
                t is not None
                and t.state == WAITING
                and (unfollowed_since is None or self._followed_at(t) < unfollowed_since)
            )
            if ended:
                assert t is not None
                t = replace(t, state=state, ended_at=now)
                self._write(t)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if ended and t is not None:
            self._changes.tell(t.queue, [ticket_id])
        return t

    def changes(self, queue: str) -> AsyncIterator[list[str]]:
        """Within this process: another process on the same file is not
        heard (its changes reach the streams by their slow look)."""
        return self._changes.follow(queue)

    def _active(self, player_id: str) -> int:
        """The player's active tickets: their own, and their parties' (a
        member's rows in ``ticket_members``)."""
        (n,) = self._db.execute(
            "SELECT COUNT(*) FROM tickets WHERE state IN (?, ?) AND (player_id = ? OR "
            "ticket_id IN (SELECT ticket_id FROM ticket_members WHERE player_id = ?))",
            (*ACTIVE, player_id, player_id),
        ).fetchone()
        return int(n)

    async def hold_party(
        self, player_id: str, party_id: str, now: float, replacing: str = ""
    ) -> tuple[str, float]:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(
                "INSERT INTO party_holds VALUES (?, ?, ?) ON CONFLICT (player_id) DO UPDATE "
                "SET party_id = excluded.party_id, at = excluded.at "
                "WHERE party_holds.party_id IN (?, ?)",
                (player_id, party_id, now, party_id, replacing),
            )
            row = db.execute(
                "SELECT party_id, at FROM party_holds WHERE player_id = ?", (player_id,)
            ).fetchone()
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return str(row[0]), float(row[1])

    async def release_party(self, player_id: str, party_id: str) -> None:
        self._db.execute(
            "DELETE FROM party_holds WHERE player_id = ? AND party_id = ?", (player_id, party_id)
        )

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

    async def party(self, party_id: str, now: float) -> PartyRecord | None:
        row = self._db.execute(
            "SELECT data FROM parties WHERE party_id = ? AND expires_at > ?", (party_id, now)
        ).fetchone()
        return None if row is None else PartyRecord.from_json(row[0])

    async def put_party(self, party: PartyRecord, now: float) -> bool:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute(
                "SELECT version FROM parties WHERE party_id = ? AND expires_at > ?",
                (party.party_id, now),
            ).fetchone()
            if (0 if row is None else int(row[0])) != party.version - 1:
                db.execute("ROLLBACK")
                return False
            db.execute("DELETE FROM parties WHERE expires_at <= ?", (now,))
            db.execute(
                "INSERT OR REPLACE INTO parties VALUES (?, ?, ?, ?)",
                (party.party_id, party.version, party.expires_at, party.to_json().decode()),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return True

    async def close(self) -> None:
        self._db.close()
