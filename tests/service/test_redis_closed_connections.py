"""A Redis connection torn down under a command (a Cluster failover closes
every connection of a node, those in use too) is a connection error from the
socket up: redis-py 8.1 would raise ``AttributeError: 'NoneType' object has
no attribute 'writelines'`` (or ``'readline'`` in the middle of a reply),
which used to escape a store call as INTERNAL (issue 20, item 2; issue 36,
item 5). Every connection of the store's clients is guarded, so every call
retries it, and once the budget is spent answers the store's own
StoreUnavailable (UNAVAILABLE): the games', the tickets' and the ratings'
alike. The errors here are redis-py's own, raised by its own code on a
connection a real disconnect has just dropped;
tests/replicas/test_redis_cluster_failover_calls.py meets them in real
failovers."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from ramino.api.errors import status_for
from ramino.store import GameSummary, StoreUnavailable
from ramino.store.ratings.redis import RedisRatings
from ramino.store.redis import UNREACHABLE, RedisStore
from ramino.store.redis import retry as redis_retry
from ramino.store.redis import store as redis_store_module
from ramino.store.tickets.redis import RedisTickets
from redis._parsers.base import _AsyncRESPBase
from redis._parsers.hiredis import _AsyncHiredisParser
from redis.asyncio.connection import Connection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.utils import HIREDIS_AVAILABLE

from tests.support.redis_cluster import RedisClusterServers
from tests.support.redis_server import RedisServer, free_port


class Tearing:
    """Counts the tear-downs made and the ones still to make."""

    def __init__(self, times: int) -> None:
        self.left, self.made = times, 0

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        self.made += 1
        return True


def torn_after_health_check(monkeypatch: pytest.MonkeyPatch, times: int) -> Tearing:
    """The next ``times`` commands find their connection disconnected during
    the health check that comes before their write (the await in which a
    failover's disconnect drops a pooled connection's writer): redis-py
    then writes on its writer, None."""
    tearing = Tearing(times)
    real = Connection.check_health

    async def check_health(self: Connection) -> None:
        await real(self)
        if tearing.take():
            await self.disconnect()

    monkeypatch.setattr(Connection, "check_health", check_health)
    return tearing


def torn_mid_reply(monkeypatch: pytest.MonkeyPatch, header: bytes, times: int) -> Tearing:
    """The next ``times`` replies with a bulk string of header ``header``
    lose their stream after that line (a disconnect between the two reads
    of one string): redis-py then reads the string from its stream, None."""
    tearing = Tearing(times)
    if HIREDIS_AVAILABLE:
        # hiredis's parser (what the store's clients use: it is a dependency)
        # reads chunks: the chunk that holds the header is cut after its line.
        async def read_from_socket(self: _AsyncHiredisParser) -> bool:
            buffer = await self._stream.read(self._read_size)
            if not buffer or not isinstance(buffer, bytes):
                raise RedisConnectionError("the stream ended") from None
            at = buffer.find(header + b"\r\n")
            if at >= 0 and tearing.take():
                self._reader.feed(buffer[: at + len(header) + 2])
                self._stream = None
                return True
            self._reader.feed(buffer)
            return True

        monkeypatch.setattr(_AsyncHiredisParser, "read_from_socket", read_from_socket)
        return tearing
    real = _AsyncRESPBase._readline

    async def readline(self: _AsyncRESPBase) -> bytes:
        line: bytes = await real(self)
        if line == header and tearing.take():
            self._stream = None
        return line

    monkeypatch.setattr(_AsyncRESPBase, "_readline", readline)
    return tearing


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


@pytest.fixture(params=["cluster", "one"])
def store(request: pytest.FixtureRequest) -> RedisStore:
    found: RedisStore = request.getfixturevalue(
        "on_cluster" if request.param == "cluster" else "on_one_redis"
    )
    return found


async def test_redis_py_writes_on_a_torn_down_connection_with_an_attribute_error() -> None:
    """The premise: redis-py 8.1's write on a connection a disconnect has
    dropped is an AttributeError (the guard's reason to be)."""
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'writelines'"):
        await Connection()._send_packed_command([b"PING"])


async def test_a_write_torn_down_under_a_command_is_retried(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    tearing = torn_after_health_check(monkeypatch, 3)
    assert await store.version("g") == 1
    assert [e.data for e in await store.read("g")] == ["e1"]
    assert tearing.made == 3


async def test_a_reply_torn_down_in_its_middle_is_retried(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = [f"entry-{v:05d}" for v in range(2, 8)]
    assert await store.append("g", 1, entries, summary("g")) == 7
    tearing = torn_mid_reply(monkeypatch, b"$11", 2)  # an entry's text
    assert [e.data for e in await store.read("g")] == ["e1", *entries]
    assert tearing.made == 2


async def test_the_guard_turns_the_errors_into_connection_errors_at_the_connection(
    on_cluster: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where it happens: the connection's own send raises redis-py's
    connection error, caused by the AttributeError."""
    node = on_cluster.client.get_default_node()
    if node is None:
        await on_cluster.ping()
        node = on_cluster.client.get_default_node()
    connection = node.acquire_connection()
    try:
        await connection.connect()
        torn_after_health_check(monkeypatch, 1)
        with pytest.raises(RedisConnectionError, match="closed under a write") as err:
            await connection.send_command("PING")
        assert isinstance(err.value.__cause__, AttributeError)
        assert err.value.__cause__.obj is None
        monkeypatch.undo()
        await connection.send_command("PING")  # it reconnects
        assert await connection.read_response() == b"PONG"
    finally:
        node.release(connection)


async def test_a_command_torn_down_until_the_budget_is_spent_is_unavailable(
    on_cluster: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_retry, "RECONNECT_BUDGET", 0.3)
    tearing = torn_after_health_check(monkeypatch, 10**6)
    with pytest.raises(StoreUnavailable) as err:
        await on_cluster.version("g")
    assert tearing.made > 1  # tried again meanwhile
    # The last of redis-py's errors: the lost connection, or the Cluster's
    # slot map that could not be reloaded over lost connections.
    assert isinstance(err.value.__cause__, UNREACHABLE)
    status = status_for(err.value)
    assert status is not None and status.code == grpc.StatusCode.UNAVAILABLE


async def test_tickets_and_ratings_beside_the_games_are_unavailable_as_the_store_is(
    on_cluster: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """They run on the store's client: the same guard, the same answer."""
    prefix = on_cluster.layout.prefix
    tickets = RedisTickets(on_cluster.client, prefix)
    ratings = RedisRatings(on_cluster.client, prefix)
    assert await tickets.waiting("q") == []
    assert await ratings.rating("rummy", "p1") is None
    monkeypatch.setattr(redis_retry, "RECONNECT_BUDGET", 0.3)
    torn_after_health_check(monkeypatch, 10**6)
    for call in (lambda: tickets.waiting("q"), lambda: ratings.rating("rummy", "p1")):
        with pytest.raises(StoreUnavailable) as err:
            await call()
        assert isinstance(err.value.__cause__, UNREACHABLE)
    monkeypatch.undo()
    assert await tickets.waiting("q") == []


async def test_one_redis_out_of_reach_is_unavailable_from_its_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One Redis: redis-py retries (about half a minute; none here), and
    then the client itself answers the store's StoreUnavailable, to the
    tickets beside the games too."""
    monkeypatch.setattr(redis_store_module, "client_retry", lambda: Retry(NoBackoff(), 0))
    store = RedisStore(f"redis://127.0.0.1:{free_port()}/0", prefix="t:")
    try:
        for call in (
            lambda: store.version("g"),
            lambda: store.client.get("anything"),
            lambda: RedisTickets(store.client, "t:").waiting("q"),
        ):
            with pytest.raises(StoreUnavailable) as err:
                await call()
            assert isinstance(err.value.__cause__, RedisConnectionError)
    finally:
        await store.close()


async def test_an_attribute_error_of_any_other_object_is_not_taken_for_one(
    on_cluster: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An AttributeError on something that is not None, even under a send,
    is a bug to show, not a connection to retry: raised at once, as it is."""
    calls: list[int] = []

    async def broken(self: Connection, command: Any) -> None:
        calls.append(1)
        "text".writelines(command)  # type: ignore[attr-defined]

    monkeypatch.setattr(Connection, "_send_packed_command", broken)
    with pytest.raises(AttributeError, match="'str' object has no attribute 'writelines'"):
        await on_cluster.version("g")
    assert len(calls) == 1
    assert not redis_retry.torn_down(AttributeError("x", name="x", obj="text"))
    assert redis_retry.torn_down(AttributeError("x", name="x", obj=None))
