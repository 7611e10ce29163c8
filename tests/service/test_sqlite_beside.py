"""The tickets and ratings beside a sqlite game store write on connections
of their own to the same file. The game store's appends of one event-loop
turn share a transaction committed at the turn's end, so a write beside it
in that turn would wait for a commit only the event loop can make, the loop
held, until its busy timeout: it settles the batch first."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ramino.store import GameSummary
from ramino.store.sqlite import SqliteStore
from ramino.store.tickets import TicketStore, tickets_beside


def summary(game_id: str) -> GameSummary:
    return GameSummary(game_id, "rummy", "waiting", 1.0, open_seats=1, seats=2)


async def test_a_ticket_written_in_the_turn_of_a_games_append_settles_its_batch(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "games.db")
    tickets: TicketStore = tickets_beside(store)
    try:
        await store.create(summary("g"), "e1")
        appending = asyncio.create_task(store.append("g", 1, ["e2"], summary("g")))
        await asyncio.sleep(0)  # the append has opened this turn's batch, not committed it
        assert store._batch is not None
        # In the same turn: without the settle, "database is locked" after 5 s.
        await tickets.touch("rummy-q.t1", 1.0)
        assert store._batch is None  # committed by the ticket's write
        assert await appending == 2
        assert await tickets.touched("rummy-q.t1") == 1.0
        assert [e.data for e in await store.read("g")] == ["e1", "e2"]
    finally:
        await tickets.close()
        await store.close()
