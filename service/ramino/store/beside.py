"""What lives beside a game store (ratings, tickets): in the same sqlite
file, on the same Redis, or in memory."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["beside", "connect_beside"]

T = TypeVar("T")


def connect_beside(path: str | Path, schema: str) -> sqlite3.Connection:
    """A connection of its own to the sqlite store's file (WAL, as the game
    store's), with ``schema`` created."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # as the game store: WAL keeps it safe
    db.execute("PRAGMA busy_timeout=5000")
    db.executescript(schema)
    return db


def beside(
    store: object,
    memory: Callable[[], T],
    sqlite: Callable[[str], T],
    redis: Callable[[Any, str], T],
) -> T:
    """What lives beside a game store: in the same sqlite file (``:memory:``
    databases are private to their connection, so beside one of those, in
    memory), the same Redis (its client and prefix), or in memory."""
    from ramino.store.redis import RedisStore
    from ramino.store.sqlite import SqliteStore

    if isinstance(store, SqliteStore) and store.path != ":memory:":
        return sqlite(store.path)
    if isinstance(store, RedisStore):
        return redis(store.client, store.layout.prefix)
    return memory()
