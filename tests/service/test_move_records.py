"""A move's request record keeps the move's facts, not the transport's
bytes, and a retry of the request gets the first answer to the byte: from
the replica that made the move, from a replica started afresh on the same
store, and from a record kept by an older server (its MoveResult's bytes)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest
from ramino.api.messages import Messages
from ramino.app import GameApp, SeatSpec
from ramino.engine import DrawFromStock
from ramino.store import RequestRecord, open_store
from ramino.store.memory import MemoryStore
from ramino.v1 import game_pb2

SEED = 20261201
ANSWER = game_pb2.DrawFromStockResponse


def record_of(seat: int, request_id: str = "draw-1") -> RequestRecord:
    return RequestRecord(request_id, f"seat:{seat}", "DrawFromStock", "print")


async def seated(app: GameApp) -> tuple[str, int]:
    game = await app.create("rummy", {}, [SeatSpec("ann", None), SeatSpec("bo", None)])
    for seat, who in enumerate(("ann", "bo")):
        await app.join(game.game_id, seat, who)
    loaded = await app.load(game.game_id)
    assert loaded.engine is not None and loaded.engine.turn is not None
    return game.game_id, loaded.engine.turn


async def answer(app: GameApp, game_id: str, seat: int) -> bytes:
    outcome = await app.move(game_id, seat, DrawFromStock(), None, record_of(seat))
    return Messages().move_response(outcome, ANSWER).SerializeToString()


@pytest.mark.parametrize("snapshot_every", [200, 1])
async def test_the_record_keeps_the_moves_facts_and_a_restart_answers_the_same(
    tmp_path: Path, snapshot_every: int
) -> None:
    """(Every entry snapshotted: the restarted replica's game comes from a
    snapshot at the move's version, which holds none of its events.)"""
    url = f"sqlite:{tmp_path / 'games.db'}"
    app = GameApp(
        open_store(url), seed_source=lambda: SEED, run_duties=False, snapshot_every=snapshot_every
    )
    game_id, seat = await seated(app)
    first = await answer(app, game_id, seat)
    assert await answer(app, game_id, seat) == first
    kept = await app.store.request(game_id, "draw-1")
    assert kept is not None
    facts = orjson.loads(kept.response)["move"]
    version = (await app.load(game_id)).version
    assert facts == {"seat": seat, "before": version - 1, "version": version, "events": 1}
    await app.close()
    restarted = GameApp(
        open_store(url), seed_source=lambda: SEED, run_duties=False, snapshot_every=snapshot_every
    )
    loaded = await restarted.load(game_id)
    assert loaded.engine is not None
    assert (len(loaded.engine.record.events) == 0) == (snapshot_every == 1)
    assert await answer(restarted, game_id, seat) == first
    await restarted.close()


async def test_a_replay_after_the_game_moved_on_is_the_first_answer() -> None:
    app = GameApp(MemoryStore(), seed_source=lambda: SEED, run_duties=False)
    game_id, seat = await seated(app)
    first = await answer(app, game_id, seat)
    game = await app.load(game_id)
    assert game.engine is not None
    discard = next(m for m in game.engine.legal_moves(seat) if type(m).__name__ == "Discard")
    await app.move(game_id, seat, discard, None, None)
    assert await answer(app, game_id, seat) == first


async def test_a_record_kept_by_an_older_server_is_answered_as_kept() -> None:
    store = MemoryStore()
    app = GameApp(store, seed_source=lambda: SEED, run_duties=False)
    game_id, seat = await seated(app)
    first = await answer(app, game_id, seat)
    # What an older server kept: the MoveResult's bytes as the response.
    result = ANSWER.FromString(first).result.SerializeToString()
    kept = store._requests[game_id]
    old = RequestRecord.from_bytes(kept["draw-1"])
    kept["draw-1"] = dataclasses.replace(old, response=result).to_bytes()
    app.cache.forget(game_id)
    assert await answer(app, game_id, seat) == first
