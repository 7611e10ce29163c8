"""A watch feed outlives the death of the node redis-py asks where a
command's keys are (issue 36, item 5). XREAD's keys are found by ``COMMAND
GETKEYS`` on one node, the default node of the client's last reload; when a
failover kills that node, the lookup fails before any node is chosen, redis-py
never reloads for it, and every watch feed of the replica used to wait for
ever (seen once in about four runs of 20 kills:
tests/replicas/test_redis_cluster_failover_calls.py). The store's cluster
client reloads between its tries, the key lookup's node too."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from ramino.store import GameSummary
from ramino.store.redis import RedisStore
from ramino.store.redis import retry as redis_retry
from redis.asyncio.cluster import ClusterNode

from tests.support.redis_cluster import RedisClusterServers
from tests.support.redis_server import free_port


@pytest.fixture
async def store(redis_cluster: RedisClusterServers) -> AsyncIterator[RedisStore]:
    found = RedisStore(redis_cluster.url, prefix=f"k{uuid.uuid4().hex[:8]}:")
    try:
        yield found
    finally:
        await found.close()


async def test_a_feed_reads_on_when_the_node_that_finds_its_keys_is_gone(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = GameSummary("g", "rummy", "waiting", 1.0, open_seats=1, seats=2)
    await store.create(summary, "e1")
    feed = store.subscribe("g", 0)
    assert (await anext(feed)).version == 1
    blocking = store._blocking
    await blocking.initialize()
    # The node that answers the key lookups dies (a port nothing serves).
    dead = ClusterNode("127.0.0.1", free_port(), **blocking.nodes_manager.connection_kwargs)
    blocking.commands_parser.node = dead
    # Without a reload the feed's reads would fail until their budget is
    # spent, and again for ever after (a feed outlasts the budget).
    monkeypatch.setattr(redis_retry, "RECONNECT_BUDGET", 3.0)
    await store.append("g", 1, ["e2"], summary)
    try:
        entry = await asyncio.wait_for(anext(feed), 20)
    except TimeoutError:  # pragma: no cover - the failure this test is for
        pytest.fail("the feed did not reload the node that finds its keys")
    assert entry.version == 2
    assert blocking.commands_parser.node is not dead
    await feed.aclose()
    await dead.disconnect()
