"""Sustained writes to a sqlite store, as fast as it takes them: the load
of the write-ahead log's bound, shared by ``tests/service/test_sqlite_wal_bound.py``
and ``bench/sqlite_wal.py``."""

from __future__ import annotations

import asyncio

from ramino.store import GameSummary, RequestRecord
from ramino.store.sqlite import SqliteStore

GAMES = 64
"""Games a batch of moves writes to at once."""
ANSWER = b"a" * 1500
"""A move's answer, as its request record keeps it."""
ENTRY = '{"t":"drew","seat":0,"card":17,"at":1764590000.0}' * 3


def summary(game_id: str) -> GameSummary:
    return GameSummary(game_id, "rummy", "playing", 1.0, open_seats=0, seats=2)


async def prepare(store: SqliteStore, kind: str) -> None:
    """The games that ``kind`` "moves" appends to."""
    if kind == "moves":
        for g in range(GAMES):
            await store.create(summary(f"g{g}"), "e1")


async def burst(store: SqliteStore, kind: str, count: int, sizes: list[int]) -> None:
    """``count`` moves (appends, ``GAMES`` games at once, each with its
    move's record, as group commit batches them) or creates (each with its
    CreateGame record), as fast as the store takes them, after
    :func:`prepare`; the log's file size after each batch goes to ``sizes``."""
    assert store.checkpointer is not None
    done = 0
    version = 1
    while done < count:
        n = min(GAMES, count - done)
        if kind == "moves":
            await asyncio.gather(
                *(
                    store.append(
                        f"g{g}",
                        version,
                        [ENTRY, ENTRY],
                        summary(f"g{g}"),
                        RequestRecord(f"r{version}", "seat:0", "Draw", "p", ANSWER),
                    )
                    for g in range(n)
                )
            )
            version += 2
        else:
            await asyncio.gather(
                *(
                    store.create(
                        summary(f"c{done + i}"),
                        ENTRY * 4,
                        RequestRecord(f"c{done + i}", "caller:k", "CreateGame", "p", ANSWER),
                    )
                    for i in range(n)
                )
            )
        done += n
        sizes.append(store.checkpointer.wal_size())
