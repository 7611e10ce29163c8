"""Connections and file descriptors (issue 20, item 7), on real loopback
sockets: a client address past its limit has its newest connections shut,
another address still gets in; past the total limit gRPC closes a new
connection as it is accepted; ``ramino serve`` raises its soft file limit
to the hard one and says so."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ramino.api.connections import ConnectionGuard
from ramino.api.server import RunningServer, create_server

from tests.support.redis_server import free_port

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc")


def silent(port: int, source: str) -> socket.socket:
    """A TCP connection from ``source`` that sends nothing (no HTTP/2 preface)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def is_shut(sock: socket.socket) -> bool:
    """Whether the server has closed ``sock``: what it sent (its HTTP/2
    settings) read to the end, waiting up to 10 s for the end to come."""
    sock.settimeout(10)
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def is_open(sock: socket.socket) -> bool:
    """Whether ``sock`` is open: what the server sent read, and no end."""
    sock.setblocking(False)
    try:
        while sock.recv(4096):
            pass
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


async def check(port: int) -> int:
    """A health Check on a connection of its own."""
    options = [("grpc.use_local_subchannel_pool", 1)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
        answer = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=10
        )
        return int(answer.status)


async def accepted(running: RunningServer, count: int, address: str = "127.0.0.2") -> None:
    """Waits until the server holds ``count`` connections from ``address``."""
    guard = ConnectionGuard(running.port, 0)
    for _ in range(1000):
        if len(guard.connections().get(address, {})) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the server did not accept {count} connections")


@contextmanager
def closing(sockets: list[socket.socket]) -> Iterator[list[socket.socket]]:
    try:
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


async def test_an_address_past_its_limit_has_its_newest_connections_shut_and_others_get_in() -> (
    None
):
    running = await create_server("127.0.0.1:0", max_connections_per_address=3)
    assert running.guard is not None
    running.guard.stop()  # its sweeps are made here, one at a time
    try:
        with closing([silent(running.port, "127.0.0.2") for _ in range(4)]) as crowd:
            await accepted(running, 4)
            assert running.guard.sweep() == 1
            # One of the four (seen in the same sweep) is shut, silent as it was.
            shut = [s for s in crowd if not is_open(s)]
            assert len(shut) == 1 and is_shut(shut[0])
            crowd.remove(shut[0])
            shut[0].close()
            # Another address is served meanwhile.
            assert await check(running.port) == health_pb2.HealthCheckResponse.SERVING
            # The address at its limit gets no further connection (the newest
            # is the one shut), until one of its own closes.
            crowd.append(silent(running.port, "127.0.0.2"))
            await accepted(running, 4)
            assert running.guard.sweep() == 1 and is_shut(crowd[3])
            assert [is_open(s) for s in crowd[:3]] == [True, True, True]
            crowd[0].close()
            crowd.append(silent(running.port, "127.0.0.2"))
            await accepted(running, 3)
            assert running.guard.sweep() == 0
            assert [is_open(s) for s in crowd[1:3] + crowd[4:]] == [True, True, True]
    finally:
        await running.stop(0)


async def test_past_the_total_limit_a_new_connection_is_closed_as_it_is_accepted() -> None:
    running = await create_server("127.0.0.1:0", max_connections=3)
    try:
        with closing([silent(running.port, "127.0.0.2") for _ in range(3)]) as held:
            await accepted(running, 3)
            late = silent(running.port, "127.0.0.3")
            with closing([late]):
                assert is_shut(late)
            assert [is_open(s) for s in held] == [True, True, True]
            held[0].close()
            # The server counts a connection until it sees it closed.
            guard = ConnectionGuard(running.port, 0)
            for _ in range(1000):
                if len(guard.connections().get("127.0.0.2", {})) <= 2:
                    break
                await asyncio.sleep(0.01)
            assert await check(running.port) == health_pb2.HealthCheckResponse.SERVING
    finally:
        await running.stop(0)


def test_serve_raises_its_soft_file_limit_to_the_hard_one_and_logs_it(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard <= 256:
        pytest.skip(f"the hard file limit here is {hard}")
    low = min(soft, hard // 2, 512)

    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))

    port = free_port()
    env = {**os.environ, "RAMINO_TOKEN_SECRET": "connections-test-secret-of-32-bytes!"}
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "ramino", "serve", "--port", str(port), "--store", "memory"],
            env=env,
            stdout=out,
            stderr=out,
            preexec_fn=lower,
        )
    try:
        lines: list[dict[str, object]] = []
        for _ in range(600):
            lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
            if any(line.get("event") == "serving" for line in lines) or server.poll() is not None:
                break
            time.sleep(0.05)
        raised = [line for line in lines if line.get("event") == "raised the open file limit"]
        assert raised, log.read_text()[-2000:]
        assert (raised[0]["soft_was"], raised[0]["soft"]) == (low, hard)
        limits = Path(f"/proc/{server.pid}/limits").read_text()
        row = next(line for line in limits.splitlines() if line.startswith("Max open files"))
        assert row.split()[3:5] == [str(hard), str(hard)]
        serving = next(line for line in lines if line.get("event") == "serving")
        assert serving["max_connections"] == hard - 256
    finally:
        server.terminate()
        server.wait(30)
