"""Several `ramino serve` processes on a real Redis Cluster (three primaries,
a replica each): games spread over every shard, and a primary killed with
SIGKILL mid-play loses no acknowledged move where appends wait for a replica."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from ramino.store.redis import Layout
from ramino.v1 import game_pb2, game_pb2_grpc
from redis.crc import key_slot

from tests.replicas.test_redis_replicas import (
    Acks,
    Cluster,
    check_records,
    close_cluster,
    create,
    play_people,
    wait_finished,
)
from tests.support.redis_cluster import RedisClusterServers
from tests.support.servers import ServerProcess

PREFIX = "ramino:"
"""The servers' key prefix (the store's default)."""


def game_slot(name: str) -> int:
    """The Cluster slot that holds every key of the game ``games/ID``."""
    return int(key_slot(Layout(PREFIX, 64).key(name.split("/")[1], "log").encode()))


async def open_servers(store_url: str, tmp: Path, replicas: int, bot_delay: float) -> Cluster:
    servers = [
        ServerProcess(store_url, tmp / f"replica{i}.log", bot_delay, allow_bot_games=True)
        for i in range(replicas)
    ]
    for s in servers:
        s.start()
    cluster = Cluster(store_url, servers)
    for s in servers:
        ch = grpc.aio.insecure_channel(s.address)
        cluster.channels.append(ch)
        cluster.stubs.append(game_pb2_grpc.GameServiceStub(ch))
    return cluster


def flush(redis_cluster: RedisClusterServers) -> None:
    for node in redis_cluster.primaries():
        with node.client() as c:
            c.flushall()


@pytest.fixture
async def on_cluster(
    redis_cluster: RedisClusterServers, tmp_path: Path
) -> AsyncIterator[tuple[Cluster, RedisClusterServers]]:
    flush(redis_cluster)
    c = await open_servers(redis_cluster.url, tmp_path, 3, bot_delay=0.002)
    yield c, redis_cluster
    await close_cluster(c)


async def test_games_on_a_cluster_spread_over_every_shard_and_all_finish(
    on_cluster: tuple[Cluster, RedisClusterServers],
) -> None:
    cluster, servers = on_cluster
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 240
    variants = ["ramino51", "rami51", "rummy"]
    bot_games = [await create(cluster, variants[i % 3], 0, 2) for i in range(24)]
    people_games = [await create(cluster, variants[i % 3], 2, 0) for i in range(6)]
    names = [n for n, _ in bot_games + people_games]
    # Each game's keys are in the slot its bucket's tag names; those slots
    # are served by more than one primary (here: by all three).
    shards = {servers.primary_of_slot(game_slot(n)).port for n in names}
    assert len(shards) > 1
    assert len(shards) == len(servers.primaries()) == 3
    for node in servers.primaries():
        with node.client() as c:
            assert c.dbsize() > 0, f"no game on {node.address}"
    acks = {name: Acks() for name, _ in people_games}
    await asyncio.gather(
        *(
            play_people(cluster, name, tokens, acks[name], deadline)
            for name, tokens in people_games
        ),
        *(wait_finished(cluster, name, deadline) for name, _ in bot_games),
    )
    await check_records(cluster.redis_url, names, acks)
    # The lobby lists every game once, page by page, across the shards.
    listed: list[str] = []
    token = ""
    while True:
        page = await cluster.call(
            "ListGames", game_pb2.ListGamesRequest(page_size=7, page_token=token)
        )
        listed += [g.name for g in page.games]  # type: ignore[attr-defined]
        token = page.next_page_token  # type: ignore[attr-defined]
        if not token:
            break
    assert sorted(listed) == sorted(names)


async def test_a_primary_killed_mid_play_loses_no_acknowledged_move_when_appends_wait(
    own_cluster: RedisClusterServers, tmp_path: Path
) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 240
    # Appends wait for one replica (WAIT 1), on nodes with appendfsync always;
    # while the killed node is away its shard's appends wait (up to 30 s)
    # for it to come back as the new primary's replica.
    url = own_cluster.url + "?wait=1&wait_timeout_ms=30000"
    cluster = await open_servers(url, tmp_path, 2, bot_delay=0.05)
    try:
        bot_games = [await create(cluster, "ramino51", 0, 2) for _ in range(6)]
        people_games = [await create(cluster, "rummy", 2, 0, rounds=3) for _ in range(6)]
        names = [n for n, _ in bot_games + people_games]
        acks = {name: Acks() for name, _ in people_games}
        players = [
            asyncio.create_task(play_people(cluster, name, tokens, acks[name], deadline))
            for name, tokens in people_games
        ]
        # The primary holding the most people games dies once play is under way.
        by_primary: dict[int, int] = {}
        for name, _ in people_games:
            port = own_cluster.primary_of_slot(game_slot(name)).port
            by_primary[port] = by_primary.get(port, 0) + 1
        busiest = max(by_primary, key=lambda port: by_primary[port])
        victim = next(n for n in own_cluster.nodes if n.port == busiest)
        while sum(len(a.events) for a in acks.values()) < 40:
            for p in players:
                if p.done():
                    p.result()  # a player that stopped early: show why
            await asyncio.sleep(0.05)
        before = sum(len(a.events) for a in acks.values())
        assert not any(p.done() for p in players)
        victim.kill()
        await asyncio.to_thread(own_cluster.wait_promoted, victim)
        # The killed node comes back as its successor's replica, so that
        # appends on its shard are replicated (and acknowledged) again.
        await asyncio.to_thread(victim.start)
        await asyncio.gather(*players, *(wait_finished(cluster, n, deadline) for n, _ in bot_games))
        assert sum(len(a.events) for a in acks.values()) > before
        assert victim.info("replication")["role"] == "slave"
        # The appends did wait for their replica: every live primary that ran
        # the append script also ran WAIT (which primaries hold games depends
        # on the games' random ids, so only those that appended are asked).
        appended = 0
        for node in own_cluster.primaries():
            calls = node.command_calls()
            if calls.get("evalsha", 0) + calls.get("eval", 0) > 0:
                appended += 1
                assert calls.get("wait", 0) > 0, node.address
        assert appended > 0
        await check_records(cluster.redis_url, names, acks)
    finally:
        await close_cluster(cluster)


def test_the_cluster_launcher_serves_every_slot_from_three_primaries(
    redis_cluster: RedisClusterServers,
) -> None:
    ranges = redis_cluster.slot_ranges()
    assert len(ranges) == 3
    assert sum(b - a + 1 for rs in ranges.values() for a, b in rs) == 16384
    roles = [n.info("replication") for n in redis_cluster.nodes]
    assert sorted(r["role"] for r in roles) == ["master"] * 3 + ["slave"] * 3
    assert all(r["master_link_status"] == "up" for r in roles if r["role"] == "slave")


async def test_reads_through_a_failover_get_answers_never_an_internal_error(
    own_cluster: RedisClusterServers,
) -> None:
    """64 coroutines read through the store while a primary is killed: each
    read is answered (the store waits the failover out). A write on a
    connection torn down under it (redis-py 8.1: AttributeError ...
    'writelines') used to escape as INTERNAL for 13-27 of them."""
    from ramino.store import GameSummary
    from ramino.store.redis import RedisStore

    # Creates wait for a replica, so the promoted one has every game.
    store = RedisStore(own_cluster.url + "?wait=1", prefix="f:")
    loop = asyncio.get_running_loop()
    try:
        games = [f"g{i:02d}" for i in range(48)]
        for g in games:
            await store.create(GameSummary(g, "rummy", "waiting", 1.0, open_seats=1, seats=2), "e1")
        slots = {int(key_slot(store.layout.key(g, "log").encode())) for g in games}
        victim = own_cluster.primary_of_slot(min(slots))
        served = {
            g
            for g in games
            if own_cluster.primary_of_slot(int(key_slot(store.layout.key(g, "log").encode())))
            is victim
        }
        assert served, "no game on the primary to kill"
        stop = asyncio.Event()
        go = asyncio.Event()
        go.set()
        errors: list[BaseException] = []
        reads = [0] * 64

        async def reader(i: int) -> None:
            while not stop.is_set():
                await go.wait()
                g = games[i % len(games)] if i % 2 else sorted(served)[i % len(served)]
                try:
                    assert await store.version(g) == 1
                    assert [e.version for e in await store.read(g)] == [1]
                except Exception as e:  # noqa: BLE001 - every failure is the finding
                    errors.append(e)
                reads[i] += 1

        async def follower(g: str) -> None:
            """A watch feed of a game on the killed shard, across the failover:
            it must see the entry appended after the promotion."""
            try:
                async for e in store.subscribe(g, 0):
                    if e.version == 2:
                        return
            except Exception as e:  # noqa: BLE001 - every failure is the finding
                errors.append(e)

        tasks = [asyncio.create_task(reader(i)) for i in range(64)]
        followers = [asyncio.create_task(follower(g)) for g in sorted(served)]
        while min(reads) < 3:
            await asyncio.sleep(0.01)
        # Idle past the clients' health-check interval (5 s), so that the
        # first command on each pooled connection pings first: the await
        # during which a failover's disconnect can drop its writer.
        go.clear()
        await asyncio.sleep(6)
        go.set()
        victim.kill()
        await asyncio.to_thread(own_cluster.wait_promoted, victim)
        # Every reader answered after the promotion, on its shard too.
        after = list(reads)
        deadline = loop.time() + 60
        while any(r <= a + 2 for r, a in zip(reads, after, strict=True)):
            assert loop.time() < deadline, "readers stopped answering"
            await asyncio.sleep(0.05)
        stop.set()
        await asyncio.gather(*tasks)
        # The shard has no replica now: these appends do not wait for one.
        writer = RedisStore(own_cluster.url, prefix="f:")
        try:
            for g in sorted(served):
                summary = GameSummary(g, "rummy", "waiting", 1.0, open_seats=1, seats=2)
                assert await writer.append(g, 1, ["e2"], summary) == 2
        finally:
            await writer.close()
        await asyncio.wait_for(asyncio.gather(*followers), 60)
        assert not errors, [repr(e) for e in errors[:5]]
    finally:
        await store.close()


def test_the_cluster_launcher_returns_once_every_replica_has_synced(
    own_cluster: RedisClusterServers,
) -> None:
    """start() returns once each replica's first sync is done and every node
    knows who replicates whom: a primary killed at once is failed over."""
    primaries = own_cluster.primaries()
    replicas = [n for n in own_cluster.nodes if n not in primaries]
    online = {port for p in primaries for port in p.replicas_online()}
    assert online == {r.port for r in replicas}
    ids = {n.port: n.node_id() for n in own_cluster.nodes}
    for viewer in own_cluster.nodes:
        view = viewer.cluster_nodes()
        for r in replicas:
            master = int(r.info("replication")["master_port"])
            flags, master_id, _ = view[ids[r.port]]
            assert "slave" in flags and master_id == ids[master], (viewer.address, r.address)
    victim = primaries[0]
    victim.kill()
    own_cluster.wait_promoted(victim)
