"""The embedded default store: one SQLite file in WAL mode, so games survive
a restart of the server. One server process per file (subscribers are woken
in-process); the redis store is the one for many replicas."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import structlog

from ramino.store.base import (
    REQUESTS_KEPT,
    Archive,
    DuplicateRequest,
    Entry,
    GameExists,
    GameNotFound,
    GameSummary,
    Page,
    RequestRecord,
    VersionConflict,
    decode_page_token,
    encode_page_token,
)
from ramino.store.local import Leases, Notifier, follow

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    variant TEXT NOT NULL,
    status TEXT NOT NULL,
    open_seats INTEGER NOT NULL,
    version INTEGER NOT NULL,
    duty_at REAL,
    finished_at REAL,
    summary TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_creation ON games (created_at, game_id);
CREATE INDEX IF NOT EXISTS games_by_duty ON games (duty_at) WHERE duty_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS games_by_finish ON games (finished_at) WHERE finished_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS entries (
    game_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
) WITHOUT ROWID;
-- A rowid table: its rows (a request's record, with a move's whole answer,
-- a kilobyte or two) are appended in order, and only the small indexes go by
-- game and request id, and by game in the order of appending (to prune the
-- oldest past the bound kept per game).
CREATE TABLE IF NOT EXISTS requests (
    game_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    response BLOB NOT NULL,
    UNIQUE (game_id, request_id)
);
CREATE INDEX IF NOT EXISTS requests_by_game ON requests (game_id);
CREATE TABLE IF NOT EXISTS snapshots (
    game_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    data TEXT NOT NULL
);
"""


log = structlog.get_logger("ramino.store")

CHECKPOINT_EVERY = 0.5
"""Seconds between two passive checkpoints of the write-ahead log."""
WAL_LIMIT = 64 * 1024 * 1024
"""Bytes the write-ahead log's file never passes (64 MiB, 67.1 MB), however
busy the writers: past half of it the checkpointer catches up with them and
starts the log again from its beginning, cut back to half of it
(``journal_size_limit``); writers that outrun it wait from three quarters
of it (without blocking the event loop), so that the one commit that may
land after their check still fits."""
TICK = 0.1
"""Seconds between two looks at the log's size."""
CATCH_UP_PASSES = 8
HELD_FRAMES = 256
"""A catch-up's passive passes beside the writer stop once at most this many
pages of log are left (or after ``CATCH_UP_PASSES``): the held part copies
only those."""


def restart_size(limit: int) -> int:
    """Bytes a log started again is cut back to, and past which the
    checkpointer catches up: half the limit."""
    return limit // 2


def hold_size(limit: int) -> int:
    """Bytes of log from which the store's writers wait for the checkpointer:
    three quarters of the limit (a commit's worth of room below it)."""
    return limit * 3 // 4


class Checkpointer:
    """Checkpoints a WAL database from a thread of its own, on a connection of
    its own. SQLite's automatic checkpoint runs inside the commit that crosses
    its threshold, and its fsync (about 12 ms here, once per ~1,000 pages)
    would stall the event loop and every call waiting on it; a passive
    checkpoint here runs beside the writer (the sqlite3 module lets go of the
    GIL while SQLite works) and never blocks it.

    A passive checkpoint never catches up with a busy writer, though, and the
    log only grows: past half of ``limit`` (:func:`restart_size`; or once the
    writes stop), the thread copies what it can beside the writer, then asks
    the store to hold its writers (they wait on the event loop, which goes on
    serving everything else), checkpoints the rest, starts the log again from
    its beginning (its file cut back to half of ``limit``, or to nothing when
    idle), and lets the writers go. A store whose log reaches three quarters
    of ``limit`` before that holds its writers itself
    (:meth:`SqliteStore._writable`), so that the file never passes ``limit``
    (WAL_LIMIT)."""

    def __init__(self, path: str, every: float = CHECKPOINT_EVERY, limit: int = WAL_LIMIT) -> None:
        self.path, self.every, self.limit = path, every, limit
        self.wal = Path(path + "-wal")
        self.done = 0
        """Checkpoints run (for tests)."""
        self.restarted = 0
        """Catch-ups that started the log again from its beginning (for tests)."""
        self.held = threading.Event()
        """Set by the store's event loop once its writers are held."""
        self._gate: tuple[asyncio.AbstractEventLoop, SqliteStore] | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sqlite-checkpoint", daemon=True)
        self._thread.start()

    def attach(self, loop: asyncio.AbstractEventLoop, store: SqliteStore) -> None:
        """The loop of the store whose writers a catch-up holds."""
        self._gate = (loop, store)

    def wal_size(self) -> int:
        try:
            return self.wal.stat().st_size
        except FileNotFoundError:
            return 0

    def urge(self) -> None:
        """Catch up now (the store holds its writers already)."""
        self._wake.set()

    def _run(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        # A truncating checkpoint waits for the store's readers (never for its
        # writers: they are held first).
        db.execute("PRAGMA busy_timeout=5000")
        db.execute(f"PRAGMA journal_size_limit={restart_size(self.limit)}")
        # As the store's: its one write (see _catch_up) syncs the log's
        # header, not also its commit.
        db.execute("PRAGMA synchronous=NORMAL")
        since, last_version = 0.0, None
        try:
            while not self._stop.is_set():
                self._wake.wait(TICK)
                self._wake.clear()
                if self._stop.is_set():
                    break
                since += TICK
                try:
                    version = None
                    if self.held.is_set() or self.wal_size() > restart_size(self.limit):
                        self._catch_up(db, idle=False)
                    elif since >= self.every:
                        since = 0.0
                        version = db.execute("PRAGMA data_version").fetchone()[0]
                        if version == last_version and self.wal_size() > 0:
                            self._catch_up(db, idle=True)  # no commit since the last look
                        else:
                            db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                            self.done += 1
                    if version is not None:
                        last_version = version
                except sqlite3.Error as failed:
                    log.warning("sqlite checkpoint failed", path=self.path, error=str(failed))
        finally:
            db.close()

    def _catch_up(self, db: sqlite3.Connection, idle: bool) -> None:
        """Checkpoints the whole log with the writers held, and starts it
        again from its beginning (``RESTART``: its file cut back to half of
        ``limit`` by the first commit after, made here; ``TRUNCATE`` when
        ``idle``: to nothing)."""
        gate = self._gate
        if gate is None:
            return  # nothing written through the store yet: nothing to catch up
        loop, store = gate
        if not self.held.is_set():
            # The bulk beside the writer, pass after pass (each copies what
            # the writer added during the last), so that little is left for
            # the held part.
            for _ in range(CATCH_UP_PASSES):
                _busy, frames, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                self.done += 1
                if frames - copied <= HELD_FRAMES:
                    break
            try:
                loop.call_soon_threadsafe(store._hold_writers)
            except RuntimeError:
                return  # the loop is closed
            while not self.held.wait(TICK):
                if self._stop.is_set():
                    break
        try:
            if self.held.is_set():
                mode = "TRUNCATE" if idle else "RESTART"
                db.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()
                self.done += 1
                self.restarted += 1
                # The first write to a log started again syncs its header:
                # made here (a page rewritten as it is), not in a commit on
                # the event loop.
                version = int(db.execute("PRAGMA user_version").fetchone()[0])
                db.execute(f"PRAGMA user_version={version}")
        finally:
            self.held.clear()
            # After the hold, if it came late: the loop runs them in order.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(store._release_writers)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join()


class SqliteStore:
    shared = False

    def __init__(
        self, path: str | Path, requests_kept: int = REQUESTS_KEPT, wal_limit: int = WAL_LIMIT
    ) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        # A log that restarts from its beginning is cut back to this size.
        self._db.execute(f"PRAGMA journal_size_limit={restart_size(wal_limit)}")
        self._db.executescript(SCHEMA)
        self.checkpointer: Checkpointer | None = None
        if str(path) != ":memory:":
            # Checkpoints leave the commits (and the event loop) for a thread;
            # a log left by the last run is folded in now, before serving.
            self._db.execute("PRAGMA wal_autocheckpoint=0")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            self.checkpointer = Checkpointer(str(path), limit=wal_limit)
        self._notifier = Notifier()
        self._leases = Leases()
        self._batch: asyncio.Future[None] | None = None
        self._hold: asyncio.Future[None] | None = None
        """While set, writers wait: the checkpointer truncates the log."""
        self._attached = False
        self._requests_kept = requests_kept

    async def _writable(self) -> None:
        """Returns once this store may write: at once, unless the
        checkpointer is truncating the log (or must: the log has reached
        three quarters of its limit, a writer faster than the checkpoints)."""
        checkpointer = self.checkpointer
        if checkpointer is None:
            return
        if not self._attached:
            checkpointer.attach(asyncio.get_running_loop(), self)
            self._attached = True
        while True:
            if self._hold is None and checkpointer.wal_size() > hold_size(checkpointer.limit):
                self._hold_writers()
                checkpointer.urge()
            if self._hold is None:
                return
            # Shielded: a waiter that goes away must not cancel the hold.
            # Then it looks again: the writers let go together must not all
            # write past the size that holds them.
            await asyncio.shield(self._hold)

    def _hold_writers(self) -> None:
        """On the event loop: commits the open batch, holds new writes until
        :meth:`_release_writers`, and tells the checkpointer."""
        if self._hold is not None:
            return  # held already, and the checkpointer told so then
        self._commit_batch()
        self._hold = asyncio.get_running_loop().create_future()
        assert self.checkpointer is not None
        self.checkpointer.held.set()

    def _release_writers(self) -> None:
        hold, self._hold = self._hold, None
        if hold is not None and not hold.done():
            hold.set_result(None)

    def _version(self, game_id: str) -> int:
        row = self._db.execute("SELECT version FROM games WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            raise GameNotFound(game_id)
        return int(row[0])

    def _put_summary(self, summary: GameSummary) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                summary.game_id,
                summary.created_at,
                summary.variant,
                summary.status,
                summary.open_seats,
                summary.version,
                summary.duty_at,
                summary.finished_at,
                summary.to_json(),
            ),
        )

    async def create(
        self, summary: GameSummary, first: str, request: RequestRecord | None = None
    ) -> None:
        summary.version = 1
        await self._writable()
        try:
            self._commit_batch()
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                exists = self._db.execute(
                    "SELECT 1 FROM games WHERE game_id = ?", (summary.game_id,)
                ).fetchone()
                if exists:
                    raise GameExists(summary.game_id)
                self._put_summary(summary)
                self._db.execute("INSERT INTO entries VALUES (?, 1, ?)", (summary.game_id, first))
                if request is not None:
                    self._db.execute(
                        "INSERT INTO requests VALUES (?, ?, ?)",
                        (summary.game_id, request.request_id, request.to_bytes()),
                    )
        finally:
            self._notifier.notify(summary.game_id)

    async def append(
        self,
        game_id: str,
        expected_version: int,
        entries: Sequence[str],
        summary: GameSummary,
        request: RequestRecord | None = None,
        tail: str | None = None,
    ) -> int:
        # ``tail`` goes unchecked: this process is the database's only writer.
        version = expected_version + len(entries)
        request_id = None if request is None else request.request_id
        summary.version = version
        await self._writable()
        batch = self._join_batch()
        # No savepoint: each step that can refuse the append comes before
        # anything of it is written, or undoes what it wrote. Any other
        # failure rolls the whole batch back (its appends all fail).
        try:
            if request is not None:
                try:
                    self._db.execute(
                        "INSERT INTO requests VALUES (?, ?, ?)",
                        (game_id, request.request_id, request.to_bytes()),
                    )
                except sqlite3.IntegrityError:
                    first = self._request(game_id, request.request_id)
                    assert first is not None
                    raise DuplicateRequest(game_id, first) from None
            # The summary row carries the version: updating it only at the
            # expected version is the check.
            updated = self._db.execute(
                "UPDATE games SET status = ?, open_seats = ?, version = ?, duty_at = ?, "
                "finished_at = ?, summary = ? WHERE game_id = ? AND version = ?",
                (
                    summary.status,
                    summary.open_seats,
                    version,
                    summary.duty_at,
                    summary.finished_at,
                    summary.to_json(),
                    game_id,
                    expected_version,
                ),
            ).rowcount
            if updated != 1:
                if request_id is not None:
                    self._db.execute(
                        "DELETE FROM requests WHERE game_id = ? AND request_id = ?",
                        (game_id, request_id),
                    )
                raise VersionConflict(game_id, expected_version, self._version(game_id))
            self._db.executemany(
                "INSERT INTO entries VALUES (?, ?, ?)",
                [(game_id, expected_version + i + 1, e) for i, e in enumerate(entries)],
            )
            if request_id is not None:
                self._prune_requests(game_id)
        except (DuplicateRequest, VersionConflict, GameNotFound):
            raise  # refused: nothing of this append was left written
        except BaseException as exc:
            self._abort_batch(exc)
            raise
        # Answered only once the batch is committed; shielded, so that a caller
        # that goes away does not cancel the commit of the others.
        await asyncio.shield(batch)
        self._notifier.notify(game_id)
        return version

    def _prune_requests(self, game_id: str) -> None:
        """Drops the game's request records older than the most recent
        ``requests_kept`` (rowids grow in the order of appending)."""
        self._db.execute(
            "DELETE FROM requests WHERE game_id = ? AND rowid < ("
            "SELECT rowid FROM requests WHERE game_id = ? ORDER BY rowid DESC LIMIT 1 OFFSET ?)",
            (game_id, game_id, self._requests_kept - 1),
        )

    async def requests_kept(self, game_id: str) -> int:
        """How many request records the game keeps (for tests)."""
        row = self._db.execute(
            "SELECT count(*) FROM requests WHERE game_id = ?", (game_id,)
        ).fetchone()
        return int(row[0])

    def settle(self) -> None:
        """Commits the open batch of appends now (its appends are answered
        as at the end of the turn): for a writer on another connection to
        the same file (the tickets and ratings beside the games), which
        would otherwise wait, holding the event loop, for a commit that
        only the event loop can make."""
        self._commit_batch()

    def _join_batch(self) -> asyncio.Future[None]:
        """The open batch of appends, opened here when there is none.

        Appends made in the same turn of the event loop share one transaction,
        committed at the end of that turn (group commit): a commit writes the
        changed pages to the WAL once for them all. A refused append writes
        nothing of its own (see :meth:`append`)."""
        if self._batch is None:
            loop = asyncio.get_running_loop()
            self._db.execute("BEGIN IMMEDIATE")
            self._batch = loop.create_future()
            loop.call_soon(self._commit_batch)
        return self._batch

    def _abort_batch(self, exc: BaseException) -> None:
        """Rolls back the open batch: its appends all fail with ``exc``."""
        batch, self._batch = self._batch, None
        if batch is not None:
            self._fail(batch, exc)

    def _commit_batch(self) -> None:
        batch, self._batch = self._batch, None
        if batch is None:
            return  # committed already, by a writer that could not wait
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._fail(batch, exc)
        else:
            batch.set_result(None)

    def _fail(self, batch: asyncio.Future[None], exc: BaseException) -> None:
        self._db.execute("ROLLBACK")
        batch.set_exception(exc)
        batch.exception()  # retrieved: an append that went away must not warn

    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[Entry]:
        rows = self._db.execute(
            "SELECT version, data FROM entries WHERE game_id = ? AND version > ? "
            "ORDER BY version LIMIT ?",
            (game_id, after_version, -1 if limit is None else limit),
        ).fetchall()
        if not rows:
            self._version(game_id)
        return [Entry(int(v), str(d)) for v, d in rows]

    async def version(self, game_id: str) -> int:
        return self._version(game_id)

    async def request(self, game_id: str, request_id: str) -> RequestRecord | None:
        return self._request(game_id, request_id)

    def _request(self, game_id: str, request_id: str) -> RequestRecord | None:
        row = self._db.execute(
            "SELECT response FROM requests WHERE game_id = ? AND request_id = ?",
            (game_id, request_id),
        ).fetchone()
        return None if row is None else RequestRecord.from_bytes(bytes(row[0]))

    def subscribe(self, game_id: str, after_version: int) -> AsyncIterator[Entry]:
        return follow(self.read, self._notifier, game_id, after_version)

    async def list_games(
        self,
        page_size: int,
        page_token: str = "",
        variant: str = "",
        status: str = "",
        open_only: bool = False,
    ) -> Page:
        cursor = decode_page_token(page_token)
        # A private game is never listed (its summary's extra.private).
        where: list[str] = ["json_extract(summary, '$.extra.private') IS NULL"]
        args: list[object] = []
        if cursor is not None:
            where.append("(created_at, game_id) > (?, ?)")
            args += [cursor[0], cursor[1]]
        if variant:
            where.append("variant = ?")
            args.append(variant)
        if status:
            where.append("status = ?")
            args.append(status)
        if open_only:
            where.append("open_seats > 0")
        rows = self._db.execute(
            f"SELECT summary FROM games WHERE {' AND '.join(where)} "
            "ORDER BY created_at, game_id LIMIT ?",
            (*args, page_size + 1),
        ).fetchall()
        games = [GameSummary.from_json(r[0]) for r in rows[:page_size]]
        more = len(rows) > page_size
        token = encode_page_token(games[-1].created_at, games[-1].game_id) if more else ""
        return Page(games, token)

    async def save_snapshot(self, game_id: str, version: int, data: str) -> None:
        await self._writable()
        self._db.execute(
            "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)", (game_id, version, data)
        )

    async def load_snapshot(self, game_id: str) -> tuple[int, str] | None:
        row = self._db.execute(
            "SELECT version, data FROM snapshots WHERE game_id = ?", (game_id,)
        ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    async def due_games(self, now: float, limit: int = 100) -> list[str]:
        rows = self._db.execute(
            "SELECT game_id FROM games WHERE duty_at IS NOT NULL AND duty_at <= ? "
            "ORDER BY duty_at, game_id LIMIT ?",
            (now, limit),
        ).fetchall()
        return [str(r[0]) for r in rows]

    async def acquire_lease(self, game_id: str, owner: str, ttl: float) -> bool:
        return self._leases.acquire(game_id, owner, ttl, time.monotonic())

    async def release_lease(self, game_id: str, owner: str) -> None:
        self._leases.release(game_id, owner)

    async def expire_finished(self, before: float, archive: Archive | None = None) -> list[str]:
        rows = self._db.execute(
            "SELECT game_id FROM games WHERE finished_at IS NOT NULL AND finished_at < ?",
            (before,),
        ).fetchall()
        gone = [str(r[0]) for r in rows]
        for game_id in gone:
            if archive is not None:
                await archive(game_id, await self.read(game_id))
            await self._writable()
            self._commit_batch()
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                for table in ("entries", "requests", "snapshots", "games"):
                    self._db.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
        return gone

    async def close(self) -> None:
        self._commit_batch()
        if self.checkpointer is not None:
            self.checkpointer.stop()
        self._release_writers()
        self._db.close()
