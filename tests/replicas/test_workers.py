"""``ramino serve --workers N`` (issue 17): N processes on one port sharing
games through Redis; a store that cannot be shared is refused at start."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ramino.v1 import game_pb2_grpc

from tests.replicas.test_redis_replicas import (
    Acks,
    Cluster,
    check_records,
    create,
    play_people,
    wait_finished,
)
from tests.service.test_sessions import Seen, assert_played, play_seat, two_people, version_of
from tests.support.redis_server import RedisServer, free_port
from tests.support.servers import ServerProcess

LOCAL = [("grpc.use_local_subchannel_pool", 1)]  # a channel of its own: its own connection
RPCS = re.compile(r'^ramino_rpcs_total\{code="([A-Z_]+)",method="([^"]+)"\} ([0-9.e+]+)$', re.M)


def rpcs(metrics_port: int) -> dict[str, float]:
    """RPCs a worker has handled, by method, from its own metrics port."""
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as r:
        text = r.read().decode()
    counts: dict[str, float] = {}
    for _code, method, value in RPCS.findall(text):
        counts[method] = counts.get(method, 0.0) + float(value)
    return counts


def log_events(log: Path, event: str) -> list[dict[str, object]]:
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
    return [x for x in lines if x.get("event") == event]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


@pytest.fixture
async def two_workers(redis_server: RedisServer, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    """``ramino serve --workers 2`` on a fresh Redis database, given no token
    secret (the parent makes one up for both workers), logging at info."""
    db = 15
    with redis.Redis(port=redis_server.port, db=db) as client:
        client.flushdb()
    server = ServerProcess(
        f"redis://127.0.0.1:{redis_server.port}/{db}",
        tmp_path / "workers.log",
        bot_delay=0.002,
        allow_bot_games=True,
        workers=2,
        metrics_port=free_port(2),  # worker i serves metrics on its port + i
        log_level="info",
        token_secret=None,
    )
    server.start()  # one worker answers health checks
    deadline = time.monotonic() + 60
    while len(log_events(server.log, "serving")) < 2:  # the other may still be starting
        assert time.monotonic() < deadline, server.log.read_text()[-2000:]
        await asyncio.sleep(0.05)
    yield server
    server.stop()


async def connections_on_both_workers(
    server: ServerProcess, channels: list[grpc.aio.Channel]
) -> list[grpc.aio.Channel]:
    """A channel (its own connection) on each worker, in worker order: new
    connections, each checked once, until each worker's count of health
    checks has gone up for one of them (the kernel spreads connections).
    Every channel opened is added to ``channels``."""
    assert server.metrics_port is not None
    ports = [server.metrics_port + i for i in (0, 1)]
    on: dict[int, grpc.aio.Channel] = {}
    for _ in range(64):  # one worker getting all of 64 connections: 2 ** -63
        before = [rpcs(p).get("Check", 0) for p in ports]
        channel = grpc.aio.insecure_channel(server.address, options=LOCAL)
        channels.append(channel)
        answer = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=10
        )
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
        after = [rpcs(p).get("Check", 0) for p in ports]
        grew = [i for i in (0, 1) if after[i] > before[i]]
        assert len(grew) == 1, (before, after)
        on.setdefault(grew[0], channel)
        if len(on) == 2:
            return [on[0], on[1]]
    raise AssertionError("64 connections all went to one worker")


async def test_two_workers_share_the_port_and_play_games_across_both(
    two_workers: ServerProcess,
) -> None:
    server = two_workers
    assert server.metrics_port is not None
    channels: list[grpc.aio.Channel] = []
    try:
        # one connection to each worker: calls alternate between the two, so
        # every game is created on one, joined on both, and its seat tokens
        # from either are used on both
        pair = await connections_on_both_workers(server, channels)
        cluster = Cluster(
            server.store, [server, server], pair, [game_pb2_grpc.GameServiceStub(c) for c in pair]
        )
        deadline = asyncio.get_running_loop().time() + 120
        people_games = [await create(cluster, "ramino51", 2, 0) for _ in range(4)]
        bot_games = [await create(cluster, "rummy", 0, 2) for _ in range(4)]
        acks = {name: Acks() for name, _ in people_games}
        await asyncio.gather(
            *(play_people(cluster, n, tokens, acks[n], deadline) for n, tokens in people_games),
            *(wait_finished(cluster, n, deadline) for n, _ in bot_games),
        )
        await check_records(server.store, [n for n, _ in people_games + bot_games], acks)
    finally:
        for channel in channels:
            await channel.close()
    per_worker = [rpcs(server.metrics_port + i) for i in (0, 1)]
    for counts in per_worker:
        assert counts.get("CreateGame", 0) > 0, per_worker
        assert counts.get("JoinGame", 0) > 0, per_worker
    serving = log_events(server.log, "serving")
    pids = {int(str(x["pid"])) for x in serving}
    assert len(pids) == 2 and {x["port"] for x in serving} == {server.port}
    # every call's log line names the worker that handled it: both did
    assert {x.get("pid") for x in log_events(server.log, "rpc")} == pids


async def test_a_games_two_sessions_on_the_two_workers_tell_each_version_once_in_order(
    two_workers: ServerProcess,
) -> None:
    """Each seat's PlayGame on its own worker: the moves of one arrive at the
    other through the shared store, each version once and in order."""
    server = two_workers
    assert server.metrics_port is not None
    channels: list[grpc.aio.Channel] = []
    try:
        pair = await connections_on_both_workers(server, channels)
        stubs = [game_pb2_grpc.GameServiceStub(c) for c in pair]
        name, tokens = await two_people(stubs[0])
        until = await version_of(stubs[0], name) + 20
        seen = [Seen(), Seen()]
        await asyncio.gather(
            *(play_seat(stubs[i], name, tokens[i], until, seen[i], f"worker{i}") for i in (0, 1))
        )
    finally:
        for channel in channels:
            await channel.close()
    assert_played(seen, until)
    for i in (0, 1):
        assert rpcs(server.metrics_port + i).get("PlayGame", 0) > 0, i


async def test_sigterm_stops_every_worker_and_the_parent_exits_zero(
    two_workers: ServerProcess,
) -> None:
    server = two_workers
    assert server.process is not None
    pids = [int(str(x["pid"])) for x in log_events(server.log, "serving")]
    assert len(pids) == 2 and all(alive(p) for p in pids)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(30) == 0
    assert not any(alive(p) for p in pids)
    assert len(log_events(server.log, "draining")) == 2
    assert len(log_events(server.log, "worker_stopped")) == 2


async def test_a_worker_that_dies_stops_the_others_and_the_parent_exits_one(
    two_workers: ServerProcess,
) -> None:
    server = two_workers
    assert server.process is not None
    pids = [int(str(x["pid"])) for x in log_events(server.log, "serving")]
    os.kill(pids[0], signal.SIGKILL)
    assert server.process.wait(30) == 1
    assert not alive(pids[1])
    died = log_events(server.log, "worker_died")
    assert [(x["pid"], x["exitcode"]) for x in died] == [(pids[0], -signal.SIGKILL)]


@pytest.mark.parametrize(
    ("store", "reason"),
    [
        ("memory", "the memory store lives in one process and is not shared"),
        ("sqlite:{tmp}/games.db", "group commit and cached games assume one writer process"),
    ],
)
def test_workers_with_a_store_not_shared_across_processes_are_refused(
    store: str, reason: str, tmp_path: Path
) -> None:
    answer = subprocess.run(
        [sys.executable, "-m", "ramino", "serve", "--workers", "2", "--port", "1"]
        + ["--store", store.format(tmp=tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert answer.returncode != 0
    assert "--workers 2 needs a store shared across processes" in answer.stderr
    assert reason in answer.stderr
    assert not (tmp_path / "games.db").exists()  # refused before opening anything


def test_workers_on_port_zero_are_refused() -> None:
    answer = subprocess.run(
        [sys.executable, "-m", "ramino", "serve", "--workers", "2", "--port", "0"]
        + ["--store", "redis://127.0.0.1:1/0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert answer.returncode != 0
    assert "--workers needs a fixed --port" in answer.stderr
