"""The server's stream budget (issue 46, defect 3): one client made the
server hold 24,509 streams and 1 GB from one address, and filled a game's
1,000 spectator places; there was a limit per connection and per seat,
none server-wide. Now every stream takes a slot of a server-wide budget,
of which one address and one network hold at most a share, and a game's
spectator places are shared the same way; each refusal is
RESOURCE_EXHAUSTED with its reason, a log line and a metric."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import pytest
from prometheus_client import REGISTRY
from ramino import reasons
from ramino.api.auth import TokenIssuer
from ramino.api.errors import ApiError
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.api.stream_budget import (
    StreamBudget,
    default_max_streams,
    default_stream_shares,
    peer_address,
)
from ramino.app import GameApp, Limits
from ramino.app.games.watch import spectator_shares
from ramino.store import open_store
from ramino.v1 import game_pb2, game_pb2_grpc

from tests.service.conftest import CALLER, SECRET, SEED, Harness, auth, reason_of, seated_game
from tests.support.servers import ServerProcess


@asynccontextmanager
async def serving(
    streams: StreamBudget | None, limits: Limits | None = None
) -> AsyncIterator[Harness]:
    app = GameApp(open_store("memory"), seed_source=lambda: SEED, limits=limits or Limits())
    tokens = TokenIssuer(SECRET)
    running = await create_server("127.0.0.1:0", GameServicer(app, tokens), streams=streams)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            yield Harness(running, app, tokens, game_pb2_grpc.GameServiceStub(channel))
    finally:
        await running.stop(0)
        await app.close()


async def watch(h: Harness, name: str) -> grpc.aio.UnaryStreamCall:  # type: ignore[type-arg]
    """A spectator's stream, open once its snapshot came."""
    call = h.stub.WatchGame(game_pb2.WatchGameRequest(name=name))
    await call.read()
    return call


async def refused(h: Harness, name: str) -> grpc.aio.AioRpcError:
    call = h.stub.WatchGame(game_pb2.WatchGameRequest(name=name))
    with pytest.raises(grpc.aio.AioRpcError) as failed:
        await call.read()
    assert failed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, failed.value
    return failed.value


def refusals(scope: str) -> float:
    return REGISTRY.get_sample_value("ramino_streams_refused_total", {"scope": scope}) or 0.0


async def test_the_server_holds_at_most_its_stream_budget_of_every_kind(
    logs: io.StringIO,
) -> None:
    async with serving(StreamBudget(5, None, None)) as h:
        name, tokens = await seated_game(h, "rummy", 2)
        calls = [await watch(h, name) for _ in range(4)]
        # A seat's session is a stream of the same budget.
        session = h.stub.PlayGame(metadata=auth(tokens[0]))
        await session.write(game_pb2.PlayGameRequest(start=game_pb2.PlayGameStart(name=name)))
        await session.read()
        before = refusals("server")
        error = await refused(h, name)
        assert reason_of(error) == reasons.SERVER_STREAMS_FULL
        assert refusals("server") == before + 1
        lines = [json.loads(line) for line in logs.getvalue().splitlines()]
        assert any(
            line.get("rpc") == "WatchGame" and line.get("reason") == reasons.SERVER_STREAMS_FULL
            for line in lines
        ), lines
        assert any(line.get("event", "").startswith("streams refused") for line in lines)
        # A stream that ends gives its slot back.
        calls.pop().cancel()
        for _ in range(100):
            if h.server.streams is not None and h.server.streams.open < 5:
                break
            await asyncio.sleep(0.01)
        calls.append(await watch(h, name))
        for call in calls:
            call.cancel()
        session.cancel()


async def test_one_address_holds_at_most_its_share_of_the_budget() -> None:
    async with serving(StreamBudget(100, 3, None)) as h:
        name, _ = await seated_game(h, "rummy", 2)
        calls = [await watch(h, name) for _ in range(3)]
        before = refusals("address")
        error = await refused(h, name)
        assert reason_of(error) == reasons.TOO_MANY_CLIENT_STREAMS
        assert refusals("address") == before + 1
        for call in calls:
            call.cancel()


def test_the_budget_shares_among_addresses_and_networks() -> None:
    budget = StreamBudget(10, per_address=3, per_prefix=5)

    def peer(address: str) -> str:
        return f"ipv4:{address}:4000"

    held = []
    for _ in range(3):
        held.append(budget.held(peer("10.0.0.1")))
        held[-1].__enter__()
    with pytest.raises(ApiError) as failed:
        budget.held(peer("10.0.0.1")).__enter__()
    assert failed.value.reason == reasons.TOO_MANY_CLIENT_STREAMS
    # Its network (10.0.0.0/24) has 2 places left, whichever address.
    for _ in range(2):
        held.append(budget.held(peer("10.0.0.2")))
        held[-1].__enter__()
    with pytest.raises(ApiError) as failed:
        budget.held(peer("10.0.0.3")).__enter__()
    assert "network" in str(failed.value)
    # Another network gets in until the server's budget is spent.
    for i in range(5):
        held.append(budget.held(peer(f"10.0.{i + 1}.1")))
        held[-1].__enter__()
    with pytest.raises(ApiError) as failed:
        budget.held(peer("10.9.9.9")).__enter__()
    assert failed.value.reason == reasons.SERVER_STREAMS_FULL
    assert budget.open == 10
    for slot in held:
        slot.__exit__(None, None, None)
    assert budget.open == 0 and len(budget._clients) == 0
    with budget.held("ipv6:[::ffff:10.0.0.1]:4000"):
        assert budget.open == 1


def test_the_defaults_come_from_memory_and_are_shared() -> None:
    assert default_max_streams(8 << 30) == 87381  # half of 8 GiB at 48 KiB a stream
    assert default_max_streams(8 << 30, processes=4) == 21845
    assert default_max_streams(1 << 20) == 256
    assert default_stream_shares(80_000, None, None) == (10_000, 20_000)
    assert default_stream_shares(80_000, 0, 0) == (None, None)
    assert default_stream_shares(100, 40, None) == (40, 40)
    assert peer_address("ipv6:[::1]:5") == "::1"
    assert peer_address("ipv4:127.0.0.2:5") == "127.0.0.2"
    assert peer_address("unix:/tmp/s") is None


async def test_one_address_cannot_fill_a_games_spectator_places() -> None:
    places = 200
    address_share, network_share = spectator_shares(places)
    assert (address_share, network_share) == (25, 50)
    async with serving(None, Limits(max_watchers_per_game=places)) as h:
        name, _ = await seated_game(h, "rummy", 2)
        game_id = name.split("/")[1]
        calls = [await watch(h, name) for _ in range(address_share)]
        error = await refused(h, name)
        assert reason_of(error) == reasons.TOO_MANY_WATCHERS
        assert "address" in (error.details() or "")
        # Another client still gets a place.
        other = h.app.watching.watch(
            game_id,
            None,
            None,
            True,
            _encode,
            origin=("10.1.2.3", "10.1.2.0/24"),
        )
        first = await anext(other)
        assert first.game is not None
        assert h.app.watching.watchers(game_id) == address_share + 1
        await other.aclose()
        for call in calls:
            call.cancel()


def _encode(*args: object) -> bytes:
    return b""


def test_a_small_games_places_are_not_shared() -> None:
    assert spectator_shares(3) == (3, 3)
    assert spectator_shares(16) == (16, 16)
    assert spectator_shares(1000) == (125, 250)


def test_ramino_serve_takes_its_budget_from_its_flags(tmp_path: Path) -> None:
    """``--max-streams`` and its shares reach the server (its stream
    budget's log line, and the refusal past it)."""
    server = ServerProcess(
        "memory",
        tmp_path / "server.log",
        log_level="info",
        extra_args=["--max-streams", "3", "--max-streams-per-address", "2"],
    )
    server.start()
    try:
        with server.channel() as channel:
            stub = game_pb2_grpc.GameServiceStub(channel)
            created = stub.CreateGame(
                game_pb2.CreateGameRequest(
                    variant="rummy",
                    seats=[game_pb2.SeatConfig(player_name=f"p{i}") for i in range(2)],
                ),
                metadata=CALLER,
            )
            calls = []
            for _ in range(2):
                calls.append(stub.WatchGame(game_pb2.WatchGameRequest(name=created.game.name)))
                next(calls[-1])
            third = stub.WatchGame(game_pb2.WatchGameRequest(name=created.game.name))
            with pytest.raises(grpc.RpcError) as failed:
                next(third)
            assert failed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
            assert "this client's address holds 2 streams" in failed.value.details()  # type: ignore[attr-defined]
            for call in calls:
                call.cancel()
    finally:
        server.stop()
    serving = [
        json.loads(line)
        for line in (tmp_path / "server.log").read_text().splitlines()
        if line.startswith("{") and '"serving"' in line
    ]
    assert serving and serving[0]["max_streams"] == 3, serving
    assert (serving[0]["max_streams_per_address"], serving[0]["max_streams_per_prefix"]) == (2, 2)
