"""``ramino gateway``: Envoy's gRPC-web in front of a real ``ramino serve``
(issue 15). A watch lasts a whole match, however long nobody moves: the
gateway's config turns off each of Envoy's timeouts that applies to a live
stream. Envoy's defaults, named: the route's ``timeout`` (15 s), the
connection manager's ``stream_idle_timeout`` (300 s); the route's
``idle_timeout``, the ``request_timeout`` and ``max_stream_duration`` (off by
default, off here too). The connections' ``idle_timeout`` (1 h) only counts
while no stream is open."""

from __future__ import annotations

import base64
import http.client
import os
import queue
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from ramino.gateway import kubernetes_config, render
from ramino.v1 import game_pb2, game_pb2_grpc

from tests.support.gateway import Ended, GatewayProcess, GrpcWebCall
from tests.support.servers import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
ENVOY = ROOT / ".venv" / "bin" / "envoy"

# Envoy's default route timeout: the first to cut a silent watch.
DEFAULT_ROUTE_TIMEOUT = 15
# Envoy's default stream idle timeout; waiting it out takes five minutes, so
# the test waits RAMINO_SILENT_WATCH_SECONDS (default: past the route's
# default) and shows with a gateway set to a short one that it would cut.
DEFAULT_STREAM_IDLE_TIMEOUT = 300
SILENT_SECONDS = float(os.environ.get("RAMINO_SILENT_WATCH_SECONDS", DEFAULT_ROUTE_TIMEOUT + 5))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("gateway-server")
    s = ServerProcess("memory", folder / "server.log")
    s.start()
    yield s
    s.stop()


def start_gateway(server: ServerProcess, tmp_path: Path, *args: str) -> GatewayProcess:
    g = GatewayProcess(server.address, tmp_path / "gateway.log", *args)
    g.start()
    return g


@pytest.fixture
def gateway(server: ServerProcess, tmp_path: Path) -> Iterator[GatewayProcess]:
    g = start_gateway(server, tmp_path)
    yield g
    g.stop()


class Game:
    """A dealt two-person game, moved directly on the server (not through
    the gateway), so the watch under test sees nothing but its own stream."""

    def __init__(self, server: ServerProcess) -> None:
        self.channel = grpc.insecure_channel(server.address)
        self.stub = game_pb2_grpc.GameServiceStub(self.channel)
        created = self.stub.CreateGame(
            game_pb2.CreateGameRequest(
                variant="ramino51",
                seats=[game_pb2.SeatConfig(player_name=n) for n in ("ada", "bo")],
            )
        )
        self.name = created.game.name
        self.tokens: dict[int, str] = {}
        for who in ("ada", "bo"):
            joined = self.stub.JoinGame(game_pb2.JoinGameRequest(name=self.name, player_name=who))
            self.tokens[joined.seat] = joined.seat_token
        self.view = joined.view

    def auth(self, seat: int) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {self.tokens[seat]}")]

    def move(self) -> int:
        """The turn's seat makes a move; returns the game's new version."""
        seat = self.stub.GetGame(game_pb2.GetGameRequest(name=self.name)).view.turn
        legal = self.stub.GetLegalMoves(
            game_pb2.GetLegalMovesRequest(name=self.name), metadata=self.auth(seat)
        )
        kinds = [m.WhichOneof("move") for m in legal.moves]
        if "draw_from_stock" in kinds:
            r = self.stub.DrawFromStock(
                game_pb2.DrawFromStockRequest(name=self.name), metadata=self.auth(seat)
            ).result
        else:
            card = legal.moves[kinds.index("discard")].discard.card_id
            r = self.stub.Discard(
                game_pb2.DiscardRequest(name=self.name, card_id=card), metadata=self.auth(seat)
            ).result
        return int(r.view.version)

    def close(self) -> None:
        self.channel.close()


@pytest.fixture
def game(server: ServerProcess) -> Iterator[Game]:
    g = Game(server)
    yield g
    g.close()


def watch(gateway: GatewayProcess, game: Game) -> tuple[GrpcWebCall, int]:
    """A spectator's watch through the gateway, past its snapshot."""
    call = GrpcWebCall(gateway.port, "WatchGame", game_pb2.WatchGameRequest(name=game.name))
    first = call.next()
    assert isinstance(first, bytes), first
    snapshot = game_pb2.WatchGameResponse.FromString(first)
    assert snapshot.WhichOneof("payload") == "snapshot"
    return call, int(snapshot.version)


def route(config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The connection manager and the gRPC route of a live Envoy's config dump."""
    for section in config["configs"]:
        if section["@type"].endswith("ListenersConfigDump"):
            listener = section["static_listeners"][0]["listener"]
            manager = listener["filter_chains"][0]["filters"][0]["typed_config"]
            grpc_route = manager["route_config"]["virtual_hosts"][0]["routes"][0]
            return manager, grpc_route
    raise AssertionError("no listeners in the config dump")


def test_the_live_gateway_has_every_stream_timeout_off(gateway: GatewayProcess) -> None:
    manager, grpc_route = route(gateway.config_dump())
    assert grpc_route["match"]["prefix"] == "/ramino.v1."
    assert grpc_route["route"]["timeout"] == "0s"  # default 15 s
    assert grpc_route["route"]["idle_timeout"] == "0s"
    assert "max_stream_duration" not in grpc_route["route"]
    assert manager["stream_idle_timeout"] == "0s"  # default 300 s
    assert manager["request_timeout"] == "0s"
    assert "max_stream_duration" not in manager.get("common_http_protocol_options", {})


def test_a_silent_watch_outlives_the_gateways_default_timeouts_and_delivers_the_next_event(
    gateway: GatewayProcess, game: Game
) -> None:
    call, version = watch(gateway, game)
    try:
        # Nothing moves for longer than Envoy's default route timeout (15 s);
        # with the defaults, the stream would have been cut by now.
        assert SILENT_SECONDS > DEFAULT_ROUTE_TIMEOUT
        with pytest.raises(queue.Empty):
            call.next(timeout=SILENT_SECONDS)
        moved = game.move()
        message = call.next()
        assert isinstance(message, bytes), message
        event = game_pb2.WatchGameResponse.FromString(message)
        assert event.WhichOneof("payload") == "event"
        assert event.version == moved == version + 1
    finally:
        call.close()


@pytest.mark.parametrize(
    ("flag", "default"),
    [
        ("--route-timeout", DEFAULT_ROUTE_TIMEOUT),
        ("--stream-idle-timeout", DEFAULT_STREAM_IDLE_TIMEOUT),
        ("--route-idle-timeout", DEFAULT_STREAM_IDLE_TIMEOUT),
    ],
)
def test_the_timeout_the_gateway_turns_off_would_cut_a_silent_watch(
    server: ServerProcess, game: Game, tmp_path: Path, flag: str, default: int
) -> None:
    """The control: the same gateway with one of those timeouts set to 1 s
    (instead of Envoy's default ``default``) ends the silent watch."""
    g = start_gateway(server, tmp_path, flag, "1")
    try:
        call, _ = watch(g, game)
        ended = call.next(timeout=60)
        assert isinstance(ended, Ended), "an event came though nobody moved"
        assert ended.status != 0
        call.close()
    finally:
        g.stop()


def test_the_pages_origin_may_call_and_another_may_not(gateway: GatewayProcess) -> None:
    def preflight(origin: str) -> dict[str, str]:
        c = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=10)
        c.request(
            "OPTIONS",
            "/ramino.v1.GameService/WatchGame",
            headers={
                "origin": origin,
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type,x-grpc-web,authorization",
            },
        )
        r = c.getresponse()
        r.read()
        c.close()
        return {k.lower(): v for k, v in r.getheaders()}

    allowed = preflight("http://127.0.0.1:8080")
    assert allowed["access-control-allow-origin"] == "http://127.0.0.1:8080"
    assert "authorization" in allowed["access-control-allow-headers"]
    refused = preflight("http://evil.example")
    assert "access-control-allow-origin" not in refused


def test_a_refused_move_reaches_the_browser_with_its_reason(
    gateway: GatewayProcess, game: Game
) -> None:
    """NOT_YOUR_TURN: the status and its details (google.rpc.Status with the
    ErrorInfo reason), readable by the page: CORS exposes those headers."""
    seat = game.stub.GetGame(game_pb2.GetGameRequest(name=game.name)).view.turn
    other = 1 - seat
    call = GrpcWebCall(
        gateway.port,
        "DrawFromStock",
        game_pb2.DrawFromStockRequest(name=game.name),
        token=game.tokens[other],
        origin="http://127.0.0.1:8080",
    )
    ended = call.next()
    call.close()
    assert isinstance(ended, Ended)
    assert ended.status == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    details = ended.trailers["grpc-status-details-bin"]
    assert b"NOT_YOUR_TURN" in base64.b64decode(details + "==")
    exposed = call.headers["access-control-expose-headers"]
    assert "grpc-status-details-bin" in exposed


def test_the_gateway_serves_the_page(server: ServerProcess, tmp_path: Path) -> None:
    page = tmp_path / "dist"
    page.mkdir()
    (page / "index.html").write_text("<!doctype html><title>Ramino</title>")
    g = GatewayProcess(server.address, tmp_path / "gateway.log", page=page)
    g.start()
    try:
        with urllib.request.urlopen(f"{g.origin}/", timeout=10) as r:
            assert "<title>Ramino</title>" in r.read().decode()
    finally:
        g.stop()


def test_envoy_accepts_the_local_and_the_kubernetes_configs(tmp_path: Path) -> None:
    local = tmp_path / "local.yaml"
    local.write_text(
        subprocess.run(
            [str(ROOT / ".venv" / "bin" / "ramino"), "gateway", "--print-config"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    for path in (local, ROOT / "deploy" / "base" / "gateway" / "envoy.yaml"):
        result = subprocess.run(
            [str(ENVOY), "--mode", "validate", "-c", str(path), "--log-level", "error"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, f"{path.name}: {result.stdout}{result.stderr}"


def test_the_kubernetes_gateway_config_is_the_one_ramino_gateway_makes() -> None:
    committed = (ROOT / "deploy" / "base" / "gateway" / "envoy.yaml").read_text()
    assert committed == render(kubernetes_config()), (
        "deploy/base/gateway/envoy.yaml is stale: "
        "ramino gateway --print-config --kubernetes > deploy/base/gateway/envoy.yaml"
    )
