"""``?wait=N`` on a real primary and replica: a retry of a write whose WAIT
timed out is not acknowledged until the replica has the write (issue 20)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
import redis
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.store import DuplicateRequest, GameSummary, RequestRecord
from ramino.store.redis import NotReplicated, RedisStore
from ramino.v1 import game_pb2, game_pb2_grpc

from tests.service.conftest import (
    SECRET,
    SEED,
    Harness,
    auth,
    draw_again_later,
    reason_of,
    seated_game,
)
from tests.support.redis_server import RedisServer

# Long enough for a replica on a loaded machine to acknowledge a write it has;
# each check against the paused replica waits this long.
WAIT = "?wait=1&wait_timeout_ms=2000"


class Pair:
    """A primary and its replica, each a redis-server of its own."""

    def __init__(self, root: Path) -> None:
        self.primary = RedisServer(root / "primary")
        self.primary.start()
        self.replica = RedisServer(root / "replica", replica_of=self.primary.port)
        self.replica.start()

    def replica_client(self) -> redis.Redis:
        return redis.Redis(port=self.replica.port, socket_timeout=5)

    def stop(self) -> None:
        self.replica.stop()
        self.primary.stop()


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    servers = Pair(tmp_path)
    try:
        yield servers
    finally:
        servers.stop()


def summary(game_id: str) -> GameSummary:
    return GameSummary(game_id, "rummy", "waiting", 1.0, open_seats=1, seats=2)


async def test_a_retry_of_a_write_not_replicated_waits_for_the_replica_too(pair: Pair) -> None:
    store = RedisStore(pair.primary.url + WAIT, prefix=f"r{uuid.uuid4().hex[:8]}:")
    first = RequestRecord("r1", "seat:g:0", "Draw", "print", b"answer")
    try:
        await store.create(summary("g"), "e1")
        pair.replica.pause()
        with pytest.raises(NotReplicated):
            await store.append("g", 1, ["e2"], summary("g"), first)
        # The move is on the primary only: neither the append's duplicate
        # branch nor the record's lookup may answer it yet.
        with pytest.raises(NotReplicated) as again:
            await store.append("g", 1, ["e2"], summary("g"), first)
        assert (again.value.wanted, again.value.acked) == (1, 0)
        with pytest.raises(NotReplicated):
            await store.request("g", "r1")
        # A request id the game never saw is no write to wait for.
        assert await store.request("g", "never-sent") is None
        pair.replica.resume()
        with pytest.raises(DuplicateRequest) as dup:
            await store.append("g", 1, ["e2"], summary("g"), first)
        assert dup.value.record == first
        assert await store.request("g", "r1") == first
        assert [e.data for e in await store.read("g")] == ["e1", "e2"]
        with pair.replica_client() as replica:
            assert replica.xlen(store.layout.key("g", "log")) == 2
    finally:
        pair.replica.resume()
        await store.close()


@pytest.fixture
async def waiting(pair: Pair) -> AsyncIterator[Harness]:
    """A real GameService server whose store waits for the replica."""
    store = RedisStore(pair.primary.url + WAIT, prefix=f"s{uuid.uuid4().hex[:8]}:")
    app = GameApp(store, seed_source=lambda: SEED)
    tokens = TokenIssuer(SECRET)
    running = await create_server("127.0.0.1:0", GameServicer(app, tokens))
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield Harness(running, app, tokens, game_pb2_grpc.GameServiceStub(channel))
    finally:
        pair.replica.resume()
        await running.stop(0)
        await app.close()
        await store.close()


async def not_replicated(call: object) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call  # type: ignore[misc]
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert reason_of(err.value) == "NOT_REPLICATED"


@pytest.mark.parametrize("at_version", [False, True], ids=["any version", "at a version"])
async def test_a_move_retried_while_the_replica_lags_is_not_acknowledged(
    waiting: Harness, pair: Pair, at_version: bool
) -> None:
    """The retry meets a game that has moved on (the move is on the primary):
    the answer comes from the request's record, which must wait too."""
    h = waiting
    name, tokens = await seated_game(h, "rummy", 2)
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    md = auth(tokens[view.turn])
    request = game_pb2.DrawFromStockRequest(name=name, request_id="draw-1")
    if at_version:
        request.expected_version = view.version
    pair.replica.pause()
    await not_replicated(h.stub.DrawFromStock(request, metadata=md))
    for _ in range(2):
        await not_replicated(h.stub.DrawFromStock(request, metadata=md))
    pair.replica.resume()
    answered = await h.stub.DrawFromStock(request, metadata=md)
    assert answered == await h.stub.DrawFromStock(request, metadata=md)
    # Applied once, at the version the first attempt was decided on.
    assert answered.result.view.version == view.version + 1
    assert len(answered.result.view.hand) == 11
    now = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=md)).view
    assert (now.version, len(now.hand)) == (view.version + 1, 11)


async def test_a_move_retried_when_it_is_legal_again_waits_for_the_replica(
    waiting: Harness, pair: Pair
) -> None:
    """The retry is legal again (the turn came back to a draw): the store's
    append finds the request id, and that answer must wait too."""
    h = waiting
    name, tokens = await seated_game(h, "rummy", 2)
    first, draw, before = await draw_again_later(h, name, tokens, "draw-once")
    mover = before.turn
    # The first attempt's record was replicated long ago; the replica is
    # paused now, and the retry is still not acknowledged before it acks.
    pair.replica.pause()
    await not_replicated(h.stub.DrawFromStock(draw, metadata=auth(tokens[mover])))
    pair.replica.resume()
    assert await h.stub.DrawFromStock(draw, metadata=auth(tokens[mover])) == first
    after = (
        await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=auth(tokens[mover]))
    ).view
    assert after == before


async def test_a_create_retried_while_the_replica_lags_is_not_acknowledged(
    waiting: Harness, pair: Pair
) -> None:
    h = waiting
    request = game_pb2.CreateGameRequest(
        variant="rummy", seats=[game_pb2.SeatConfig(player_name="a")] * 2, request_id="c-1"
    )
    md = (("ramino-caller-key", "the-test-caller-s-own-random-key"),)
    pair.replica.pause()
    await not_replicated(h.stub.CreateGame(request, metadata=md))
    await not_replicated(h.stub.CreateGame(request, metadata=md))
    pair.replica.resume()
    created = await h.stub.CreateGame(request, metadata=md)
    again = await h.stub.CreateGame(request, metadata=md)
    assert created.game.name == again.game.name
