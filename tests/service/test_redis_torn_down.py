"""redis-py 8.1's write on a connection torn down under it (``'NoneType'
object has no attribute 'writelines'``, seen during Cluster failovers) is a
connection error to the store: retried, and UNAVAILABLE if it persists, never
INTERNAL (issue 20, item 2). The error here is the real one, raised by
redis-py's own connection code; tests/replicas/test_redis_cluster_replicas.py
meets it in a real failover."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import pytest
from ramino.api.errors import status_for
from ramino.store import GameSummary, StoreUnavailable
from ramino.store.redis import UNREACHABLE, RedisStore
from ramino.store.redis import retry as redis_retry
from redis.asyncio import Redis, RedisCluster
from redis.asyncio.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError

from tests.support.redis_cluster import RedisClusterServers
from tests.support.redis_server import RedisServer


async def torn_down_error() -> AttributeError:
    """redis-py's own: a write on a connection whose writer a disconnect has
    just dropped."""
    try:
        await Connection()._send_packed_command([b"PING"])
    except AttributeError as e:
        assert str(e) == "'NoneType' object has no attribute 'writelines'"
        return e
    raise AssertionError("redis-py wrote on a connection it does not have")


def failing(
    monkeypatch: pytest.MonkeyPatch, client: type, times: int, error: Callable[[], Awaitable[Any]]
) -> list[int]:
    """``client.execute_command`` raises ``error()`` ``times`` times, then
    runs; the list counts the calls that raised."""
    real = client.execute_command  # type: ignore[attr-defined]
    raised: list[int] = []

    async def execute_command(self: Any, *args: Any, **kwargs: Any) -> Any:
        if len(raised) < times:
            raised.append(1)
            raise await error()
        return await real(self, *args, **kwargs)

    monkeypatch.setattr(client, "execute_command", execute_command)
    return raised


def summary(game_id: str) -> GameSummary:
    return GameSummary(game_id, "rummy", "waiting", 1.0, open_seats=1, seats=2)


async def with_game(url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[RedisStore]:
    """A store on ``url`` holding game ``g``; the patches undone before it closes."""
    store = RedisStore(url, prefix=f"t{uuid.uuid4().hex[:8]}:")
    try:
        await store.create(summary("g"), "e1")
        yield store
    finally:
        monkeypatch.undo()
        await store.close()


@pytest.fixture
async def on_cluster(
    redis_cluster: RedisClusterServers, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[RedisStore]:
    async for store in with_game(redis_cluster.url, monkeypatch):
        yield store


@pytest.fixture
async def on_one_redis(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[RedisStore]:
    async for store in with_game(redis_server.url, monkeypatch):
        yield store


async def test_a_cluster_read_torn_down_under_its_write_is_retried(
    on_cluster: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    raised = failing(monkeypatch, RedisCluster, 3, torn_down_error)
    assert await on_cluster.version("g") == 1
    assert len(raised) == 3


async def test_a_command_torn_down_until_the_budget_is_spent_is_unavailable(
    on_cluster: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_retry, "RECONNECT_BUDGET", 0.3)
    raised = failing(monkeypatch, RedisCluster, 10**6, torn_down_error)
    with pytest.raises(StoreUnavailable) as err:
        await on_cluster.version("g")
    assert len(raised) > 1  # tried again meanwhile
    assert isinstance(err.value.__cause__, UNREACHABLE)
    assert isinstance(err.value.__cause__, RedisConnectionError)
    assert isinstance(err.value.__cause__.__cause__, AttributeError)
    status = status_for(err.value)
    assert status is not None and status.code == grpc.StatusCode.UNAVAILABLE


async def test_one_redis_answers_a_torn_down_write_as_a_connection_error(
    on_one_redis: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing(monkeypatch, Redis, 1, torn_down_error)
    with pytest.raises(StoreUnavailable) as err:
        await on_one_redis.version("g")
    assert isinstance(err.value.__cause__, RedisConnectionError)
    assert await on_one_redis.version("g") == 1


async def test_an_attribute_error_of_any_other_code_is_not_taken_for_one(
    on_cluster: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same message from outside redis-py's connection module is a bug
    to show, not a connection to retry: raised at once, as it is."""

    async def ours() -> AttributeError:
        try:
            None.writelines([b"PING"])  # type: ignore[attr-defined]
        except AttributeError as e:
            return e
        raise AssertionError

    raised = failing(monkeypatch, RedisCluster, 10**6, ours)
    with pytest.raises(AttributeError, match="writelines"):
        await on_cluster.version("g")
    assert len(raised) == 1
