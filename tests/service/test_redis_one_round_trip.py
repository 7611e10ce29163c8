"""A move on a shared store is one round trip (issue 45, item 1): decided on
the replica's copy of the game and appended over the entry it was decided
on, so that another replica's write, or a failover that lost the entry this
replica saw, fails the append; only then is the game loaded and the move
decided again. A refusal decided on the copy is confirmed against the store
before it is answered."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis
from ramino.app import GameApp
from ramino.engine import Discard, DrawFromStock, IllegalMove, TakeDiscard
from ramino.engine.state import DRAW
from ramino.store import GameSummary, VersionConflict
from ramino.store.base import TailConflict
from ramino.store.memory import MemoryStore
from ramino.store.redis import RedisStore

from tests.service.test_lost_writes import lose_writes_after
from tests.service.test_move_records import SEED, seated
from tests.support.redis_server import RedisServer


def summary(game_id: str) -> GameSummary:
    return GameSummary(game_id, "rummy", "waiting", 1.0, open_seats=1, seats=2)


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[RedisStore]:
    found = RedisStore(redis_server.url, prefix=f"t{uuid.uuid4().hex[:8]}:")
    try:
        yield found
    finally:
        await found.close()


@pytest.mark.parametrize("kind", ["redis", "memory"])
async def test_an_append_over_another_entry_at_its_version_is_a_tail_conflict(
    kind: str, redis_server: RedisServer
) -> None:
    shared = RedisStore(redis_server.url, prefix=f"t{uuid.uuid4().hex[:8]}:")
    store = shared if kind == "redis" else MemoryStore()
    try:
        await store.create(summary("g"), "e1")
        assert await store.append("g", 1, ["e2"], summary("g"), tail="e1") == 2
        with pytest.raises(TailConflict) as refused:
            await store.append("g", 2, ["e3"], summary("g"), tail="not e2")
        assert isinstance(refused.value, VersionConflict)
        assert refused.value.reason == "VERSION_MISMATCH"
        assert [e.data for e in await store.read("g")] == ["e1", "e2"]  # nothing written
        assert await store.append("g", 2, ["e3"], summary("g"), tail="e2") == 3
    finally:
        await shared.close()


async def test_a_game_written_without_a_tail_digest_is_checked_against_its_log(
    store: RedisStore, redis_server: RedisServer
) -> None:
    # A game written by a server before the digest was kept (or whose meta
    # names another version's digest): its log's last entry is compared.
    await store.create(summary("g"), "e1")
    await store.append("g", 1, ["e2"], summary("g"))
    admin = redis.Redis(port=redis_server.port)
    try:
        admin.hdel(store.layout.key("g", "meta"), "tail")
    finally:
        admin.close()
    with pytest.raises(TailConflict):
        await store.append("g", 2, ["e3"], summary("g"), tail="e1")
    assert await store.append("g", 2, ["e3"], summary("g"), tail="e2") == 3


SCRIPTS_OWN = {"hget", "hset", "xadd", "xrevrange", "zadd", "zrem", "spublish", "rpush"}
"""What the append script runs inside (any read of the log from the replica
would be an ``xrange`` of its own)."""


def counted(redis_server: RedisServer) -> dict[str, int]:
    admin = redis.Redis(port=redis_server.port)
    try:
        stats = admin.info("commandstats")
    finally:
        admin.close()
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


async def test_a_move_on_the_replicas_copy_is_one_script_and_no_read(
    redis_server: RedisServer,
) -> None:
    app = GameApp(
        RedisStore(redis_server.url, prefix=f"t{uuid.uuid4().hex[:8]}:"),
        seed_source=lambda: SEED,
        run_duties=False,
    )
    try:
        game_id, seat = await seated(app)
        await app.load(game_id)  # the replica's copy, caught up
        before = counted(redis_server)
        await app.move(game_id, seat, DrawFromStock(), None, None)
        after = counted(redis_server)
        sent = {k: after.get(k, 0) - before.get(k, 0) for k in after}
        # (less the admin connection's own: hello, client|setinfo, info)
        sent = {k: n for k, n in sent.items() if n and k not in ("info", "hello", "client|setinfo")}
        # (Redis counts the commands its scripts run too.)
        assert sent.pop("evalsha") == 1
        assert set(sent) <= SCRIPTS_OWN, sent
    finally:
        await app.close()


async def replicas(url: str) -> tuple[GameApp, GameApp]:
    prefix = f"t{uuid.uuid4().hex[:8]}:"
    return tuple(  # type: ignore[return-value]
        GameApp(RedisStore(url, prefix=prefix), seed_source=lambda: SEED, run_duties=False)
        for _ in range(2)
    )


async def test_a_move_on_a_copy_another_replica_moved_past_is_decided_on_the_stores_game(
    redis_server: RedisServer,
) -> None:
    one, two = await replicas(redis_server.url)
    try:
        game_id, seat = await seated(one)
        stale = await one.load(game_id)
        await two.move(game_id, seat, DrawFromStock(), None, None)
        # One's copy still has the draw to make; the store has the discard to make.
        assert stale.engine is not None and stale.engine.state.phase == DRAW
        fresh = await two.load(game_id)
        assert fresh.engine is not None
        card, version = fresh.engine.state.seats[seat].hand[0], fresh.version
        outcome = await one.move(game_id, seat, Discard(card), None, None)
        assert getattr(outcome, "version", None) == version + 1
        assert (await two.load(game_id)).version == version + 1
    finally:
        await one.close()
        await two.close()


async def test_a_move_the_copy_allows_but_the_store_does_not_is_refused_as_the_store_decides(
    redis_server: RedisServer,
) -> None:
    one, two = await replicas(redis_server.url)
    try:
        game_id, seat = await seated(one)
        await one.load(game_id)
        await two.move(game_id, seat, DrawFromStock(), None, None)
        # A draw is legal on one's copy, not on the store's game.
        with pytest.raises(IllegalMove):
            await one.move(game_id, seat, DrawFromStock(), None, None)
        store_game = await two.load(game_id)
        assert (await one.load(game_id)).version == store_game.version
    finally:
        await one.close()
        await two.close()


async def test_a_move_on_a_copy_whose_entry_a_failover_lost_is_decided_again(
    redis_server: RedisServer,
) -> None:
    # The replica wrote a draw; a failover loses it and another replica writes
    # another entry at that same version: the versions agree, the entries do
    # not, and the replica's append over its own lost entry is refused.
    one, two = await replicas(redis_server.url)
    try:
        game_id, seat = await seated(one)
        kept = (await one.load(game_id)).version
        await one.move(game_id, seat, DrawFromStock(), None, None)
        drawn = await one.load(game_id)
        store = one.store
        assert isinstance(store, RedisStore)
        lose_writes_after(redis_server.url, store, game_id, kept)
        await two.move(game_id, seat, TakeDiscard(), None, None)
        theirs = await two.load(game_id)
        version = theirs.version
        assert version == drawn.version  # the same version, another entry
        assert drawn.engine is not None
        card = drawn.engine.state.seats[seat].hand[-1]  # the card one's lost draw gave
        assert theirs.engine is not None
        assert card not in theirs.engine.state.seats[seat].hand
        with pytest.raises(IllegalMove):
            await one.move(game_id, seat, Discard(card), None, None)
        card = theirs.engine.state.seats[seat].hand[0]
        outcome = await one.move(game_id, seat, Discard(card), None, None)
        assert getattr(outcome, "version", None) == version + 1
        final = await two.load(game_id)
        assert final.engine is not None and final.engine.state.discard[-1] == card
    finally:
        await one.close()
        await two.close()


async def test_the_appends_of_one_loop_turn_go_in_one_pipeline_each_with_its_own_answer(
    store: RedisStore, redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = [f"g{i}" for i in range(8)]
    for game_id in games:
        await store.create(summary(game_id), "e1")
    pipelines: list[int] = []
    client = store.client
    real = client.pipeline

    def counting(*args: Any, **kwargs: Any) -> Any:
        pipe = real(*args, **kwargs)
        execute = pipe.execute

        async def counted_execute(*a: Any, **k: Any) -> Any:
            pipelines.append(len(pipe.command_stack))
            return await execute(*a, **k)

        pipe.execute = counted_execute
        return pipe

    monkeypatch.setattr(client, "pipeline", counting)
    admin = redis.Redis(port=redis_server.port)
    try:
        admin.script_flush()  # the first batch meets a Redis without the script
    finally:
        admin.close()
    # g7's append is at a stale version: refused alone, the others written.
    answers = await asyncio.gather(
        *(
            store.append(g, 1 if g != "g7" else 5, [f"{g}-e2"], summary(g), tail="e1")
            for g in games
        ),
        return_exceptions=True,
    )
    assert pipelines == [8]
    assert answers[:7] == [2] * 7
    assert isinstance(answers[7], VersionConflict) and answers[7].actual == 1
    for game_id in games[:7]:
        assert [e.data for e in await store.read(game_id)] == ["e1", f"{game_id}-e2"]
    assert [e.data for e in await store.read("g7")] == ["e1"]
