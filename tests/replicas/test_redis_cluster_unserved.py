"""A shard with no replica (issue 46, defect 6): once its primary is
killed, nothing but that node's return serves its games, so a call on one
of them is not held for the store's whole reconnecting budget (it took
6.5-9.9 s, until the node was back, and 30 s when it stayed down): it is
answered UNAVAILABLE ``SHARD_UNAVAILABLE`` within a second, with a retry
hint (``google.rpc.RetryInfo`` and the ErrorInfo's ``retry_after_ms``), and
served again once the node is back."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.store.redis import RedisStore
from ramino.store.redis.retry import RECONNECT_BUDGET
from ramino.v1 import game_pb2, game_pb2_grpc

from tests.replicas.test_redis_cluster_replicas import game_slot
from tests.service.conftest import SECRET, SEED
from tests.support.redis_cluster import RedisClusterServers

FAST = RECONNECT_BUDGET / 2
"""Seconds a call on the dead shard may take: well short of the store's
reconnecting budget (30 s), which it took before (32-35 s); the store gives
up on it after 0.5 s of attempts, and the rest is a loaded machine's slack,
so that the bound tells the two apart without timing the machine."""


@pytest.fixture
def lone_cluster(tmp_path: Path) -> Iterator[RedisClusterServers]:
    """Three primaries and no replica."""
    cluster = RedisClusterServers(tmp_path / "redis-cluster", replicas=0, node_timeout_ms=1500)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
async def stub(
    lone_cluster: RedisClusterServers,
) -> AsyncIterator[game_pb2_grpc.GameServiceStub]:
    store = RedisStore(lone_cluster.url + "?wait=1&wait_timeout_ms=200", prefix="ramino:")
    app = GameApp(store, seed_source=lambda: SEED)
    running = await create_server("127.0.0.1:0", GameServicer(app, TokenIssuer(SECRET)))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield game_pb2_grpc.GameServiceStub(channel)
    finally:
        await running.stop(0)
        await app.close()


async def test_redis_cluster_read_of_a_shard_without_replica_fails_fast(
    lone_cluster: RedisClusterServers, stub: game_pb2_grpc.GameServiceStub
) -> None:
    # No replica: a create under ?wait=1 is NOT_REPLICATED (the write is
    # on the primary all the same); the game is there to read.
    name = ""
    try:
        created = await stub.CreateGame(
            game_pb2.CreateGameRequest(
                variant="rummy", seats=[game_pb2.SeatConfig(player_name=f"p{i}") for i in range(2)]
            )
        )
        name = created.game.name
    except grpc.aio.AioRpcError as refused:
        assert refused.code() == grpc.StatusCode.UNAVAILABLE
    if not name:
        page = await stub.ListGames(game_pb2.ListGamesRequest())
        name = page.games[0].name
    await stub.GetGame(game_pb2.GetGameRequest(name=name))
    node = lone_cluster.primary_of_slot(game_slot(name))
    node.kill()
    for _ in range(3):
        start = time.monotonic()
        with pytest.raises(grpc.aio.AioRpcError) as failed:
            await stub.GetGame(game_pb2.GetGameRequest(name=name), timeout=40)
        took = time.monotonic() - start
        assert failed.value.code() == grpc.StatusCode.UNAVAILABLE, failed.value
        assert took < FAST, f"GetGame on a shard without replica took {took:.2f} s"
        status = rpc_status.from_call(failed.value)
        assert status is not None
        info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
        assert status.details[0].Unpack(info)
        assert info.reason == "SHARD_UNAVAILABLE"
        assert info.metadata["retry_after_ms"] == "1000"
        assert status.details[1].Unpack(retry)
        assert retry.retry_delay.ToMilliseconds() == 1000
    node.start()
    deadline = time.monotonic() + 60
    while True:
        try:
            got = await stub.GetGame(game_pb2.GetGameRequest(name=name), timeout=40)
            break
        except grpc.aio.AioRpcError as failed:
            assert failed.code() == grpc.StatusCode.UNAVAILABLE, failed
            assert time.monotonic() < deadline, "the game was not served once its node was back"
            await asyncio.sleep(1.0)
    assert got.view.name == name
