"""Logs and metrics: one canonical JSON line per RPC, Prometheus counters and
histograms, in process and from ``ramino serve`` itself."""

from __future__ import annotations

import asyncio
import io
import json
import re
import time
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

import grpc
import pytest
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY
from ramino.api.game_servicer import request_hash
from ramino.logs import bind_context, clear_context, info
from ramino.v1 import game_pb2, game_pb2_grpc

from tests.client.conftest import ProcessServer, free_port

from .conftest import Harness, auth, reason_of, seated_game

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


def rpc_lines(text: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [line for line in lines if line.get("event") == "rpc"]


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_fields_bound_in_a_task_reach_its_lines_and_not_a_task_it_started_before(
    logs: io.StringIO,
) -> None:
    log = structlog.get_logger("test")
    clear_context()
    bind_context(game="g1")
    go = asyncio.Event()

    async def child() -> None:
        await go.wait()
        log.info("child")

    task = asyncio.create_task(child())  # started with game bound, not seat
    bind_context(seat=1)
    go.set()
    await task
    log.info("parent")
    await asyncio.sleep(0)  # lines are written at the end of the loop's turn
    lines = {d["event"]: d for d in map(json.loads, logs.getvalue().splitlines())}
    assert lines["child"]["game"] == "g1" and "seat" not in lines["child"]
    assert (lines["parent"]["game"], lines["parent"]["seat"]) == ("g1", 1)
    clear_context()
    log.info("after")
    await asyncio.sleep(0)
    after = json.loads(logs.getvalue().splitlines()[-1])
    assert after["event"] == "after" and "game" not in after and "seat" not in after


async def test_the_rpc_line_goes_through_whatever_structlog_is_set_up_with(
    logs: io.StringIO,
) -> None:
    with structlog.testing.capture_logs() as captured:
        info(structlog.get_logger("test"), "rpc", rpc="X", status="OK", latency_ms=0.1)
    assert captured == [
        {"rpc": "X", "status": "OK", "latency_ms": 0.1, "event": "rpc", "log_level": "info"}
    ]
    await asyncio.sleep(0)
    assert "rpc" not in logs.getvalue()


async def test_every_rpc_logs_one_canonical_json_line(harness: Harness, logs: io.StringIO) -> None:
    h = harness
    name, tokens = await seated_game(h, "rummy", 2)  # CreateGame, JoinGame twice
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    mover, other = view.turn, 1 - view.turn
    draw = game_pb2.DrawFromStockRequest(name=name, request_id="draw-1")
    await h.stub.DrawFromStock(draw, metadata=auth(tokens[mover]))
    with pytest.raises(grpc.aio.AioRpcError):
        await h.stub.Discard(
            game_pb2.DiscardRequest(name=name, card_id=0, request_id="not-yours"),
            metadata=auth(tokens[other]),
        )
    lines = rpc_lines(logs.getvalue())
    assert [line["rpc"] for line in lines] == [
        "CreateGame",
        "JoinGame",
        "JoinGame",
        "GetGame",
        "DrawFromStock",
        "Discard",
    ]
    game_id = name.partition("/")[2]
    for line in lines:
        assert line["level"] == "info" and ISO_UTC.match(line["timestamp"]), line
        assert isinstance(line["latency_ms"], float) and line["latency_ms"] >= 0, line
        assert line["game"] == game_id, line
    drew, refused = lines[-2], lines[-1]
    stamped = datetime.fromisoformat(drew["timestamp"].replace("Z", "+00:00"))
    assert abs(stamped.timestamp() - time.time()) < 60
    # Request ids are logged as a short hash of the id, never the id itself.
    assert (drew["seat"], drew["request_hash"], drew["status"]) == (
        mover,
        request_hash("draw-1"),
        "OK",
    )
    assert (refused["seat"], refused["request_hash"]) == (other, request_hash("not-yours"))
    assert refused["status"] == "FAILED_PRECONDITION"
    assert "draw-1" not in logs.getvalue() and "not-yours" not in logs.getvalue()


async def test_metrics_count_rpcs_by_method_and_code_and_moves(harness: Harness) -> None:
    h = harness
    before = {
        "ok": sample("ramino_rpcs_total", method="DrawFromStock", code="OK"),
        "refused": sample("ramino_rpcs_total", method="Discard", code="FAILED_PRECONDITION"),
        "latency": sample("ramino_rpc_latency_seconds_count", method="DrawFromStock"),
        "moves": sample("ramino_moves_applied_total", command="DrawFromStock"),
    }
    name, tokens = await seated_game(h, "rummy", 2)
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    await h.stub.DrawFromStock(
        game_pb2.DrawFromStockRequest(name=name), metadata=auth(tokens[view.turn])
    )
    with pytest.raises(grpc.aio.AioRpcError):
        await h.stub.Discard(
            game_pb2.DiscardRequest(name=name, card_id=0), metadata=auth(tokens[1 - view.turn])
        )
    assert sample("ramino_rpcs_total", method="DrawFromStock", code="OK") == before["ok"] + 1
    refused = sample("ramino_rpcs_total", method="Discard", code="FAILED_PRECONDITION")
    assert refused == before["refused"] + 1
    latency = sample("ramino_rpc_latency_seconds_count", method="DrawFromStock")
    assert latency == before["latency"] + 1
    assert sample("ramino_moves_applied_total", command="DrawFromStock") == before["moves"] + 1
    assert sample("ramino_active_games") >= 1


def test_ramino_serve_logs_json_lines_and_serves_its_metrics(tmp_path: Path) -> None:
    metrics_port = free_port()
    log = tmp_path / "server.log"
    server = ProcessServer(
        "memory", log, log_level="info", extra=["--metrics-port", str(metrics_port)]
    )
    server.start()
    try:
        with grpc.insecure_channel(server.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            health.Check(health_pb2.HealthCheckRequest(), wait_for_ready=True, timeout=30)
            games = game_pb2_grpc.GameServiceStub(channel)
            seats = [
                game_pb2.SeatConfig(player_name="a"),
                game_pb2.SeatConfig(bot=game_pb2.BOT_LEVEL_GREEDY),
            ]
            created = games.CreateGame(
                game_pb2.CreateGameRequest(variant="rummy", seats=seats), timeout=10
            )
            games.JoinGame(  # the game starts
                game_pb2.JoinGameRequest(name=created.game.name, player_name="a"), timeout=10
            )
        url = f"http://127.0.0.1:{metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            text = response.read().decode()
    finally:
        server.stop()  # SIGTERM: drains, then exits
    assert 'ramino_rpcs_total{code="OK",method="CreateGame"} 1.0' in text
    assert 'ramino_rpc_latency_seconds_count{method="CreateGame"} 1.0' in text
    assert "ramino_active_games 1.0" in text
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    create = [line for line in lines if line.get("event") == "rpc" and line["rpc"] == "CreateGame"]
    assert len(create) == 1
    assert create[0]["game"] == created.game.name.partition("/")[2]
    assert create[0]["status"] == "OK" and ISO_UTC.match(create[0]["timestamp"])
    events = [line.get("event") for line in lines]
    assert "draining" in events and events[-1] == "stopped"


async def test_an_unexpected_error_is_internal_logged_once_and_counted(
    harness: Harness, logs: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = harness
    name, _ = await seated_game(h, "rummy", 2)
    before = sample("ramino_rpcs_total", method="GetGame", code="INTERNAL")

    async def broken(game_id: str) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(h.app, "load", broken)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await h.stub.GetGame(game_pb2.GetGameRequest(name=name))
    assert err.value.code() == grpc.StatusCode.INTERNAL
    assert reason_of(err.value) == "INTERNAL" and "a bug" not in (err.value.details() or "")
    assert sample("ramino_rpcs_total", method="GetGame", code="INTERNAL") == before + 1
    lines = [json.loads(line) for line in logs.getvalue().splitlines() if line.strip()]
    errors = [line for line in lines if line.get("event") == "unexpected error"]
    assert len(errors) == 1 and "a bug" in errors[0]["exception"]
    assert rpc_lines(logs.getvalue())[-1]["status"] == "INTERNAL"
