"""Stores behind one interface: ``memory``, ``sqlite:PATH`` and ``redis://``."""

from __future__ import annotations

from ramino.store.base import (
    REQUESTS_KEPT,
    DuplicateRequest,
    Entry,
    GameExists,
    GameNotFound,
    GameSummary,
    Page,
    RequestRecord,
    Store,
    StoreError,
    VersionConflict,
)

__all__ = [
    "REQUESTS_KEPT",
    "DuplicateRequest",
    "Entry",
    "GameExists",
    "GameNotFound",
    "GameSummary",
    "Page",
    "RequestRecord",
    "Store",
    "StoreError",
    "VersionConflict",
    "open_store",
]


def open_store(url: str) -> Store:
    """A store from its URL: ``memory``, ``sqlite:PATH``, ``redis://HOST:PORT/DB``."""
    if url == "memory":
        from ramino.store.memory import MemoryStore

        return MemoryStore()
    if url.startswith("sqlite:"):
        from ramino.store.sqlite import SqliteStore

        return SqliteStore(url.removeprefix("sqlite:").removeprefix("//") or "var/ramino.db")
    if url.startswith("redis://"):
        from ramino.store.redis import RedisStore

        return RedisStore(url)
    raise ValueError(f"unknown store {url!r}: use memory, sqlite:PATH or redis://HOST:PORT/DB")
