"""A blocking read outlives the death of the node redis-py asks where a
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


async def test_a_blocking_read_goes_on_when_the_node_that_finds_its_keys_is_gone(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The game feeds no longer block in XREAD (one pub/sub connection a node:
    # ramino.store.redis.feeds); the ticket store's change feeds still do, on
    # the store's blocking client.
    key = store.layout.index("changes-probe", 0)
    await store.client.xadd(key, {"ids": "a"}, id="1-0")
    blocking = store.blocking
    await blocking.initialize()
    # The node that answers the key lookups dies (a port nothing serves).
    dead = ClusterNode("127.0.0.1", free_port(), **blocking.nodes_manager.connection_kwargs)
    blocking.commands_parser.node = dead
    # Without a reload the reads would fail until their budget is spent, and
    # again for ever after (a change feed outlasts the budget).
    monkeypatch.setattr(redis_retry, "RECONNECT_BUDGET", 3.0)
    try:
        found = await asyncio.wait_for(blocking.xread({key: "0-0"}, block=1000, count=1), 20)
    except TimeoutError:  # pragma: no cover - the failure this test is for
        pytest.fail("the blocking client did not reload the node that finds its keys")
    assert [entry_id for _, rows in found for entry_id, _ in rows] == [b"1-0"]
    assert blocking.commands_parser.node is not dead
    await dead.disconnect()
