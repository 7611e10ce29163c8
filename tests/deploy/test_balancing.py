"""Client-side load balancing in the Python SDK (a target of several
addresses, as a headless Service gives, with round_robin), the server's max
connection age that makes long-lived connections move, and the SDK making a
call again when a stopping server cancelled it."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from ramino.api.rules_servicer import RulesServicer
from ramino.v1 import rules_pb2, rules_pb2_grpc
from ramino_client import AsyncClient, Client

from tests.deploy.players import consecutive, play_game
from tests.support.redis_server import free_port
from tests.support.servers import TOKEN_SECRET, ServerProcess


class MeteredServer(ServerProcess):
    """`ramino serve` with its metrics port and extra flags."""

    def __init__(self, log: Path, *flags: str) -> None:
        super().__init__("memory", log)
        self.metrics_port = free_port()
        self.flags = flags

    def start(self) -> None:
        command = [
            sys.executable,
            "-m",
            "ramino",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--store",
            self.store,
            "--metrics-port",
            str(self.metrics_port),
            "--grace",
            "1",
            "--log-level",
            "warning",
            *self.flags,
        ]
        env = {"RAMINO_TOKEN_SECRET": TOKEN_SECRET, "PATH": "/usr/bin:/bin"}
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, env=env, stdout=out, stderr=out)
        self.wait_serving()

    def calls(self, method: str) -> float:
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as r:
            text = r.read().decode()
        pattern = rf'ramino_rpcs_total\{{.*method="(?:[\w./]*/)?{method}".*\}} (\S+)'
        return sum(float(m[1]) for m in re.finditer(pattern, text))


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[MeteredServer]]:
    started = [MeteredServer(tmp_path / f"server{i}.log") for i in range(3)]
    try:
        for s in started:
            s.start()
        yield started
    finally:
        for s in started:
            s.stop()


async def test_round_robin_spreads_calls_over_every_address_of_the_target(
    servers: list[MeteredServer],
) -> None:
    target = "ipv4:" + ",".join(s.address for s in servers)
    async with AsyncClient(target) as client:
        for _ in range(100):
            await asyncio.gather(*(client.rules.list_variants() for _ in range(6)))
            if all(s.calls("ListVariants") > 0 for s in servers):
                break
    assert all(s.calls("ListVariants") > 0 for s in servers)


def test_pick_first_keeps_every_call_on_one_server(servers: list[MeteredServer]) -> None:
    """The policy is the client's choice; gRPC's default sends every call
    down one connection, which is why the SDK asks for round_robin."""
    target = "ipv4:" + ",".join(s.address for s in servers)
    with Client(target, load_balancing="pick_first") as client:
        for _ in range(30):
            client.rules.list_variants()
    served = sorted(s.calls("ListVariants") for s in servers)
    assert served == [0, 0, 30]


def test_a_dns_target_is_resolved_and_served(servers: list[MeteredServer]) -> None:
    """dns:/// as for a headless Service (here `localhost`, which may also
    resolve to ::1, where nothing listens: round_robin uses what answers)."""
    with Client(f"dns:///localhost:{servers[0].port}") as client:
        variants = client.rules.list_variants()
    assert {v.name for v in variants} >= {"ramino51", "rummy"}


async def test_an_aged_connection_moves_and_the_watch_resumes_without_a_gap(
    tmp_path: Path,
) -> None:
    server = MeteredServer(
        tmp_path / "server.log", "--max-connection-age", "0.5", "--max-connection-age-grace", "0.5"
    )
    server.start()
    try:
        async with AsyncClient(server.address) as client:
            # The person joins once the spectator's stream has been cut by
            # the connection's age and resumed on a new connection.
            game = play_game(client, join_when=lambda watch: watch.reconnects > 0)
            run = await asyncio.wait_for(game, 120)
    finally:
        server.stop()
    assert run.finished
    assert run.spectator_reconnects > 0
    assert consecutive(run.seen)


class CancelsTheFirstCall(RulesServicer):
    """The rules service, cancelling the first call it gets as a stopping
    server cancels the calls it had received but not started."""

    def __init__(self) -> None:
        self.calls = 0

    async def ListVariants(  # noqa: N802
        self, request: rules_pb2.ListVariantsRequest, context: grpc.aio.ServicerContext
    ) -> rules_pb2.ListVariantsResponse:
        self.calls += 1
        if self.calls == 1:
            await context.abort(grpc.StatusCode.CANCELLED, "server shutting down")
        return await super().ListVariants(request, context)


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
async def test_a_call_a_stopping_server_cancelled_is_made_again(flavour: str) -> None:
    server = grpc.aio.server()
    rules = CancelsTheFirstCall()
    rules_pb2_grpc.add_RulesServiceServicer_to_server(rules, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        if flavour == "sync":
            with Client(f"127.0.0.1:{port}") as client:
                variants = await asyncio.to_thread(client.rules.list_variants)
        else:
            async with AsyncClient(f"127.0.0.1:{port}") as aclient:
                variants = await aclient.rules.list_variants()
    finally:
        await server.stop(0)
    assert rules.calls == 2
    assert "ramino51" in {v.name for v in variants}
