"""Heavy rules calls beside a health check (issue 10): figures only, nothing
asserted.

Starts ``ramino serve --store memory`` on a free loopback port, then, for
``--seconds``, keeps ``--senders`` AnalyzeHand calls in flight, each of a
30-card hand whose search takes milliseconds (the hardest shape found), while
one client sends health Checks one after another. It prints the Checks' p50,
p99 and max latency and the AnalyzeHand answers per second, and how many were
refused (SERVER_BUSY, or a size limit); then the same Checks with no sender,
for scale. ``--table N`` adds a table of N melds to each AnalyzeHand (the
issue's 70,000 melds: refused at once where the table limit holds).

    .venv/bin/python bench/heavy_rules.py
    .venv/bin/python bench/heavy_rules.py --senders 8 --seconds 10 --work-threads 2
    .venv/bin/python bench/heavy_rules.py --table 70000
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ramino.v1 import rules_pb2, rules_pb2_grpc

HAND = (
    "3C 4C 2C 4H 4D 2S 5S 5H 5D 4S AD 2D 2H AH 5D 3H 3C 3D 3S AC 3D 2D 2C AS 2S AH 5C JK JK JK"
).split()


REFUSALS = (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INVALID_ARGUMENT)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


async def wait_serving(address: str) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for _ in range(300):
            try:
                await stub.Check(health_pb2.HealthCheckRequest(), timeout=0.5)
                return
            except grpc.aio.AioRpcError:
                await asyncio.sleep(0.1)
    raise RuntimeError(f"no server on {address}")


async def phase(
    address: str, senders: int, seconds: float, table: int
) -> tuple[list[float], int, int]:
    """Check latencies (ms), AnalyzeHand answers and refusals."""
    stop = asyncio.Event()
    answered = busy = 0
    async with grpc.aio.insecure_channel(address) as channel:
        rules = rules_pb2_grpc.RulesServiceStub(channel)
        health = health_pb2_grpc.HealthStub(channel)
        melds = [rules_pb2.MeldCodes(cards=["5H", "6H", "7H"])] * table
        request = rules_pb2.AnalyzeHandRequest(variant="rami51", hand=HAND, table=melds)

        async def send() -> None:
            nonlocal answered, busy
            while not stop.is_set():
                try:
                    await rules.AnalyzeHand(request)
                    answered += 1
                except grpc.aio.AioRpcError as e:
                    if e.code() not in REFUSALS:
                        raise
                    busy += 1
                    await asyncio.sleep(0.001)

        tasks = [asyncio.create_task(send()) for _ in range(senders)]
        await asyncio.sleep(0.5)  # the senders get going
        answered = busy = 0
        checks: list[float] = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            start = time.perf_counter()
            await health.Check(health_pb2.HealthCheckRequest())
            checks.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.005)
        stop.set()
        await asyncio.gather(*tasks)
    return checks, answered, busy


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--senders", type=int, default=4)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--work-threads", type=int, default=None)
    p.add_argument("--table", type=int, default=0, help="melds on the table of each call")
    args = p.parse_args()
    port = free_port()
    address = f"127.0.0.1:{port}"
    command = [sys.executable, "-m", "ramino", "serve", "--store", "memory", "--port", str(port)]
    if args.work_threads:
        command += ["--work-threads", str(args.work_threads)]
    env = dict(os.environ, RAMINO_LOG_LEVEL="warning", RAMINO_TOKEN_SECRET="b" * 32)
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    try:
        asyncio.run(wait_serving(address))
        print(
            f"ramino heavy_rules: {platform.python_implementation()} "
            f"{platform.python_version()}, {os.cpu_count()} cores, {args.seconds:g} s a phase, "
            f"table of {args.table} melds"
        )
        for senders in (args.senders, 0):
            checks, answered, busy = asyncio.run(phase(address, senders, args.seconds, args.table))
            print(
                f"  {senders} senders: Check p50 {percentile(checks, 0.5):.2f} ms, "
                f"p99 {percentile(checks, 0.99):.2f} ms, max {max(checks):.2f} ms "
                f"({len(checks)} checks); AnalyzeHand {answered / args.seconds:.0f}/s, "
                f"{busy} refused"
            )
    finally:
        server.terminate()
        server.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
