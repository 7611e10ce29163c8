"""The Redis store on a real Redis Cluster: what the contract tests cannot
show from outside (the key layout, the merged index shards, WAIT)."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator

import pytest
import redis
from ramino.store import GameSummary, RequestRecord, Store, open_store
from ramino.store.memory import MemoryStore
from ramino.store.migrate import migrate
from ramino.store.migrate import run as run_migration
from ramino.store.redis import Layout, NotReplicated, RedisStore
from redis.crc import key_slot

from tests.support.redis_cluster import RedisClusterServers
from tests.support.redis_server import RedisServer

PARTS = ("meta", "log", "req", "reqs", "snap", "lease", "expiring")


def summary(game_id: str, created_at: float, variant: str, open_seats: int) -> GameSummary:
    return GameSummary(game_id, variant, "waiting", created_at, open_seats=open_seats, seats=2)


def slot(key: str) -> int:
    return int(key_slot(key.encode()))


@pytest.fixture
async def cluster_store(redis_cluster: RedisClusterServers) -> AsyncIterator[RedisStore]:
    s = RedisStore(redis_cluster.url, prefix=f"t{uuid.uuid4().hex[:8]}:", buckets=4)
    yield s
    await s.close()


def test_every_key_of_a_game_shares_one_slot_with_its_bucket_indexes() -> None:
    layout = Layout("ramino:", 64)
    slots_seen = set()
    for i in range(200):
        game_id = f"{i:04x}-game"
        slots = {slot(layout.key(game_id, part)) for part in PARTS}
        slots |= {slot(layout.game_index(name, game_id)) for name in ("games", "duties")}
        assert len(slots) == 1, game_id
        slots_seen |= slots
        assert layout.key(game_id, "log").endswith(f":g:{game_id}:log")
    # The games spread over many buckets, each a slot of its own.
    assert len(slots_seen) > 32
    # One Redis keeps the layout of every earlier version.
    assert Layout("ramino:").key("abc", "log") == "ramino:g:{abc}:log"
    assert Layout("ramino:").index("games") == "ramino:games"


async def test_cluster_lobby_pages_merge_the_buckets_in_one_stable_order(
    cluster_store: RedisStore,
) -> None:
    reference = MemoryStore()
    rng = random.Random(16)
    for i in range(200):
        # Ties on creation time, past a batch (16) in every bucket: 100 share t=0.
        created = 0.0 if i < 100 else float(rng.randrange(20))
        s = summary(f"g{i:03d}", created, rng.choice(["rummy", "rami51"]), rng.randrange(3))
        for store in (cluster_store, reference):
            await store.create(GameSummary.from_json(s.to_json()), "e1")
    for size, variant, open_only in ((7, "", False), (20, "rummy", True), (1, "rami51", False)):
        pages: list[list[list[str]]] = []
        for store in (cluster_store, reference):
            got: list[list[str]] = []
            token = ""
            while True:
                page = await store.list_games(size, token, variant=variant, open_only=open_only)
                got.append([g.game_id for g in page.games])
                token = page.next_page_token
                if not token:
                    break
            pages.append(got)
        assert pages[0] == pages[1], (size, variant, open_only)
        listed = [g for p in pages[0] for g in p]
        assert len(listed) == len(set(listed)) > 0


async def test_cluster_due_games_merge_the_buckets_soonest_first(
    cluster_store: RedisStore,
) -> None:
    reference = MemoryStore()
    for i in range(40):
        s = summary(f"d{i:02d}", float(i), "rummy", 1)
        for store in (cluster_store, reference):
            await store.create(GameSummary.from_json(s.to_json()), "e1")
            s.duty_at = float((i * 7) % 13)
            await store.append(s.game_id, 1, ["e2"], GameSummary.from_json(s.to_json()))
    for now, limit in ((5.0, 100), (12.0, 10), (0.0, 3)):
        assert await cluster_store.due_games(now, limit) == await reference.due_games(now, limit)


def replica_of(servers: RedisClusterServers, key: str) -> redis.Redis:
    primary = servers.primary_of_slot(slot(key))
    for node in servers.nodes:
        repl = node.info("replication")
        if repl["role"] == "slave" and int(repl["master_port"]) == primary.port:
            return node.client()
    raise LookupError(f"no replica of {primary.address}")


async def test_a_write_that_waits_is_on_the_replica_when_it_is_acknowledged(
    redis_cluster: RedisClusterServers,
) -> None:
    store = RedisStore(redis_cluster.url + "?wait=1", prefix=f"w{uuid.uuid4().hex[:8]}:")
    try:
        for i in range(10):
            game_id = f"w{i}"
            await store.create(summary(game_id, 1.0, "rummy", 1), "e1")
            await store.append(game_id, 1, ["e2"], summary(game_id, 1.0, "rummy", 1))
            # Read straight from the replica: no later write can have helped.
            log_key = store.layout.key(game_id, "log")
            with replica_of(redis_cluster, log_key) as replica:
                replica.execute_command("READONLY")
                assert replica.xlen(log_key) == 2, game_id
    finally:
        await store.close()


async def test_a_write_no_replica_confirms_is_not_acknowledged_nor_is_its_retry(
    redis_server: RedisServer,
) -> None:
    store = RedisStore(
        redis_server.url + "?wait=1&wait_timeout_ms=100", prefix=f"n{uuid.uuid4().hex[:8]}:"
    )
    first = RequestRecord("r1", "seat:g:0", "Draw", "print", b"answer")
    try:
        with pytest.raises(NotReplicated) as err:
            await store.create(summary("g", 1.0, "rummy", 1), "e1")
        assert (err.value.wanted, err.value.acked) == (1, 0)
        with pytest.raises(NotReplicated):
            await store.append("g", 1, ["e2"], summary("g", 1.0, "rummy", 1), first)
        # It landed on the primary, but no replica has it: its retry is not
        # acknowledged either (tests/service/test_redis_wait.py: answered once
        # a replica has it), and nothing is written twice.
        with pytest.raises(NotReplicated):
            await store.append("g", 1, ["e2"], summary("g", 1.0, "rummy", 1), first)
        with pytest.raises(NotReplicated):
            await store.request("g", first.request_id)
        assert [e.data for e in await store.read("g")] == ["e1", "e2"]
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis+cluster://", "at least one HOST:PORT"),
        ("redis+cluster://localhost", "HOST:PORT"),
        ("redis+cluster://h:1,h:x", "HOST:PORT"),
        ("redis+cluster://h:1?wait=one", "wait must be a whole number"),
        ("redis+cluster://h:1?bucket=3", "unknown cluster store option 'bucket'"),
        ("redis+cluster://h:1?buckets=0", "buckets must be at least 1"),
        ("redis://h:1/0?wait_timeout_ms=-5", "wait_timeout_ms must be a whole number"),
    ],
)
def test_cluster_store_urls_name_what_is_wrong(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        open_store(url)


def test_a_cluster_store_prefix_has_no_braces() -> None:
    with pytest.raises(ValueError, match="no braces"):
        RedisStore("redis+cluster://127.0.0.1:1", prefix="{x}:")


async def test_open_store_takes_a_cluster_url(redis_cluster: RedisClusterServers) -> None:
    store: Store = open_store(redis_cluster.url + "?buckets=8")
    try:
        assert isinstance(store, RedisStore) and store.layout.buckets == 8
        game_id = uuid.uuid4().hex
        await store.create(summary(game_id, 1.0, "rummy", 1), "e1")
        assert await store.version(game_id) == 1
    finally:
        await store.close()


async def test_a_single_redis_deployment_migrates_to_the_cluster_whole(
    redis_server: RedisServer, redis_cluster: RedisClusterServers
) -> None:
    prefix = f"m{uuid.uuid4().hex[:8]}:"
    old = RedisStore(redis_server.url, prefix=prefix)
    new = RedisStore(redis_cluster.url, prefix=prefix)
    try:
        for i in range(12):
            game_id = f"m{i:02d}"
            s = summary(game_id, float(i), "rummy" if i % 2 else "rami51", i % 3)
            await old.create(s, "e1", RequestRecord(f"c{i}", "caller:k", "CreateGame", "p"))
            s.duty_at = float(i) if i % 4 == 0 else None
            s.finished_at = 5.0 if i == 3 else None
            rec = RequestRecord(f"r{i}", "seat:0", "Draw", "p", b"first")
            await old.append(game_id, 1, ["e2", "e3"], s, rec)
            await old.save_snapshot(game_id, 2, f"snap{i}")
        copied = await migrate(old, new)
        assert sorted(copied) == [f"m{i:02d}" for i in range(12)]
        # Run again: nothing doubles.
        assert sorted(await migrate(old, new)) == sorted(copied)
        for i, game_id in enumerate(sorted(copied)):
            assert await new.read(game_id) == await old.read(game_id)
            assert await new.load_snapshot(game_id) == await old.load_snapshot(game_id)
            assert await new.request(game_id, f"r{i}") == await old.request(game_id, f"r{i}")
            assert await new.request(game_id, f"r{i}") is not None
            assert await new.requests_kept(game_id) == 2
        lobby = [(await s.list_games(50, open_only=True)).games for s in (old, new)]
        assert [g.to_json() for g in lobby[0]] == [g.to_json() for g in lobby[1]]
        assert await new.due_games(100.0) == await old.due_games(100.0) == ["m00", "m04", "m08"]
        assert await new.expire_finished(6.0) == ["m03"]
        # The copies take appends at the version they had.
        s = summary("m05", 5.0, "rummy", 2)
        assert await new.append("m05", 3, ["e4"], s) == 4
    finally:
        await old.close()
        await new.close()


async def test_the_migrate_command_copies_every_game_and_says_how_many(
    redis_server: RedisServer,
    redis_cluster: RedisClusterServers,
    capsys: pytest.CaptureFixture[str],
) -> None:
    prefix = f"c{uuid.uuid4().hex[:8]}:"
    old = RedisStore(redis_server.url, prefix=prefix)
    for i in range(3):
        await old.create(summary(f"c{i}", float(i), "rummy", 1), "e1")
    await old.close()
    assert await run_migration(redis_server.url, redis_cluster.url, prefix) == 0
    assert "copied 3 games" in capsys.readouterr().out


async def test_watchers_of_games_on_every_shard_see_another_stores_appends(
    redis_cluster: RedisClusterServers,
) -> None:
    prefix = f"s{uuid.uuid4().hex[:8]}:"
    watcher = RedisStore(redis_cluster.url, prefix=prefix)
    writer = RedisStore(redis_cluster.url, prefix=prefix)
    try:
        # Games until every primary holds one.
        games: dict[int, str] = {}
        i = 0
        while len(games) < 3:
            game_id = f"s{i}"
            port = redis_cluster.primary_of_slot(slot(watcher.layout.key(game_id, "log"))).port
            games.setdefault(port, game_id)
            i += 1
        seen: dict[str, list[str]] = {g: [] for g in games.values()}

        async def watch(game_id: str) -> None:
            async for entry in watcher.subscribe(game_id, 0):
                seen[game_id].append(entry.data)
                if entry.version == 11:
                    return

        for game_id in games.values():
            await writer.create(summary(game_id, 1.0, "rummy", 1), "e1")
        tasks = [asyncio.create_task(watch(g)) for g in games.values()]
        for v in range(1, 11):
            for game_id in games.values():
                await writer.append(game_id, v, [f"e{v + 1}"], summary(game_id, 1.0, "rummy", 1))
        await asyncio.wait_for(asyncio.gather(*tasks), 10)
        assert all(entries == [f"e{v}" for v in range(1, 12)] for entries in seen.values())
    finally:
        await watcher.close()
        await writer.close()


async def test_a_watcher_whose_feed_connection_is_killed_reads_on_without_a_gap(
    redis_server: RedisServer,
) -> None:
    # A failover, a restart or a node that drops its clients closes the feed's
    # pub/sub connection: the notices sent meanwhile are lost with it, and
    # the feed reads them from the log once it is subscribed again.
    store = RedisStore(redis_server.url, prefix=f"u{uuid.uuid4().hex[:8]}:")
    admin = redis.Redis(port=redis_server.port)
    try:
        await store.create(summary("g", 1.0, "rummy", 1), "e1")
        seen: list[int] = []

        async def watch() -> None:
            async for entry in store.subscribe("g", 0):
                seen.append(entry.version)
                if entry.version == 4:
                    return

        task = asyncio.create_task(watch())
        for _ in range(500):
            if len(seen) == 1 and store.feeds.connections == 1:
                break
            await asyncio.sleep(0.01)
        assert seen == [1] and store.feeds.connections == 1
        killed = admin.client_kill_filter(_type="pubsub")
        assert killed == 1
        # Written while the feed has no connection: no notice reaches it.
        await store.append("g", 1, ["e2"], summary("g", 1.0, "rummy", 1))
        await store.append("g", 2, ["e3"], summary("g", 1.0, "rummy", 1))
        for _ in range(500):
            if seen == [1, 2, 3]:
                break
            await asyncio.sleep(0.01)
        await store.append("g", 3, ["e4"], summary("g", 1.0, "rummy", 1))
        await asyncio.wait_for(task, 10)
        assert seen == [1, 2, 3, 4]
    finally:
        admin.close()
        await store.close()


def test_a_write_not_replicated_is_unavailable_so_the_client_retries_it() -> None:
    """NotReplicated reaches a client as UNAVAILABLE with reason NOT_REPLICATED
    (the SDK retries UNAVAILABLE with the same request id), never INTERNAL."""
    import grpc
    from google.rpc import error_details_pb2, status_pb2
    from ramino.api.errors import status_for
    from ramino.store.redis import NotReplicated

    status = status_for(NotReplicated(1, 0))
    assert status is not None and status.code == grpc.StatusCode.UNAVAILABLE
    (details,) = [v for k, v in status.trailing_metadata if k == "grpc-status-details-bin"]
    info = error_details_pb2.ErrorInfo()
    assert status_pb2.Status.FromString(details).details[0].Unpack(info)
    assert info.reason == "NOT_REPLICATED"
