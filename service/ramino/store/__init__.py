"""Stores behind one interface: ``memory``, ``sqlite:PATH``, ``redis://`` and
``redis+cluster://`` (over TLS: ``rediss://`` and ``rediss+cluster://``)."""

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
    ShardUnavailable,
    Store,
    StoreError,
    StoreUnavailable,
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
    "ShardUnavailable",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "VersionConflict",
    "open_store",
]


def open_store(url: str) -> Store:
    """A store from its URL: ``memory``, ``sqlite:PATH``, ``redis://HOST:PORT/DB``
    or ``redis+cluster://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...]`` (the
    startup nodes of a Redis Cluster). The Redis ones take ``?wait=N`` (acknowledge a write once
    N replicas have it), ``wait_timeout_ms=MS`` and, on a cluster,
    ``buckets=B`` (index shards; see :mod:`ramino.store.redis`). ``rediss://``
    and ``rediss+cluster://`` are the same over TLS, with ``tls_ca_file``,
    ``tls_cert_file``, ``tls_key_file`` and ``tls_server_name`` options
    (:class:`ramino.store.redis.RedisTls`)."""
    if url == "memory":
        from ramino.store.memory import MemoryStore

        return MemoryStore()
    if url.startswith("sqlite:"):
        from ramino.store.sqlite import SqliteStore

        return SqliteStore(url.removeprefix("sqlite:").removeprefix("//") or "var/ramino.db")
    if url.startswith(("redis://", "redis+cluster://", "rediss://", "rediss+cluster://")):
        from ramino.store.redis import RedisStore

        return RedisStore(url)
    raise ValueError(
        f"unknown store {url[:40]!r}: use memory, sqlite:PATH, "
        "redis://HOST:PORT/DB or redis+cluster://HOST:PORT[,HOST:PORT...] "
        "(rediss:// and rediss+cluster:// over TLS)"
    )
