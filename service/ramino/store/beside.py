"""What lives beside a game store (ratings, tickets): in the same sqlite
file, on the same Redis, or in memory."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["beside", "connect_beside"]

T = TypeVar("T")


_WRITES = ("BEGIN", "INSERT", "UPDATE", "DELETE", "REPLACE")


class _Settling(sqlite3.Connection):
    """A connection whose writes first settle the game store's open batch
    (:meth:`~ramino.store.sqlite.SqliteStore.settle`): the batch's
    transaction stays open until the end of the event loop's turn, and a
    write of this connection in that turn would otherwise wait for it, the
    event loop held, until its busy timeout (5 s) and fail."""

    settle: Callable[[], None] | None = None

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if self.settle is not None and sql.lstrip()[:7].upper().startswith(_WRITES):
            self.settle()
        return super().execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if self.settle is not None:
            self.settle()
        return super().executemany(sql, *args)


def connect_beside(
    path: str | Path, schema: str, settle: Callable[[], None] | None = None
) -> sqlite3.Connection:
    """A connection of its own to the sqlite store's file (WAL, as the game
    store's), with ``schema`` created; ``settle``: the game store's, called
    before each write (see :class:`_Settling`)."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(
        str(path), isolation_level=None, check_same_thread=False, factory=_Settling
    )
    db.settle = settle
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # as the game store: WAL keeps it safe
    db.execute("PRAGMA busy_timeout=5000")
    db.executescript(schema)
    return db


def beside(
    store: object,
    memory: Callable[[], T],
    sqlite: Callable[[str, Callable[[], None]], T],
    redis: Callable[[Any, str], T],
) -> T:
    """What lives beside a game store: in the same sqlite file (``:memory:``
    databases are private to their connection, so beside one of those, in
    memory), the same Redis (its client and prefix), or in memory."""
    from ramino.store.redis import RedisStore
    from ramino.store.sqlite import SqliteStore

    if isinstance(store, SqliteStore) and store.path != ":memory:":
        return sqlite(store.path, store.settle)
    if isinstance(store, RedisStore):
        return redis(store.client, store.layout.prefix)
    return memory()
