"""The transport's floor (issue 4, speed): how this machine's grpc.aio serves
calls that do no work, measured from outside by ghz (a Go client). Figures
only, nothing asserted.

A bare ``grpc.aio`` server in this process (no interceptor, no log line, no
game) answers two calls:

- ``grpc.health.v1.Health/Check``, from the standard health servicer: the
  baseline of ``bench/load.py``;
- ``ramino.v1.GameService/DrawFromStock`` shaped like a real move: it reads
  the seat token from the metadata, parses the request, waits one turn of the
  event loop (as a move waits for its commit) and answers with the bytes of a
  real move's answer, made at start by the real service in this process.

ghz drives each in a closed loop (``--concurrency`` calls always in flight)
and paced (``--rps``), and this prints calls/s, p50, p99 and the server's CPU
per call (this process's CPU over the run; ghz is another process). What a
real move costs above the move-shaped call is the service's own work, which
``bench/move_cpu.py`` measures without the transport.

    go install github.com/bojand/ghz/cmd/ghz@v0.120.0
    .venv/bin/python bench/floor_server.py                 # ghz from PATH or ~/go/bin
    .venv/bin/python bench/floor_server.py --seconds 10 --rps 300 --concurrency 64
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import FileDescriptor
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from move_cpu import Context, served
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.app import GameApp
from ramino.logs import configure
from ramino.store import open_store
from ramino.v1 import game_pb2

MOVE = "/ramino.v1.GameService/DrawFromStock"


async def real_move() -> tuple[bytes, str, str]:
    """A real DrawFromStock answer, with the seat token and game name it was
    made with (from the real service, in this process, on the memory store)."""
    app = GameApp(open_store("memory"), run_duties=False)
    servicer = GameServicer(app, TokenIssuer(os.urandom(32)))

    async def call(method: str, request: Any, token: str = "") -> Any:
        metadata = (("authorization", f"Bearer {token}"),) if token else ()
        return await served(servicer, method)(request, Context(metadata))

    seats = [game_pb2.SeatConfig(player_name=n) for n in ("a", "b")]
    created = await call("CreateGame", game_pb2.CreateGameRequest(variant="rummy", seats=seats))
    name = created.game.name
    tokens = {}
    for seat in (0, 1):
        request = game_pb2.JoinGameRequest(name=name, seat=seat, player_name=f"p{seat}")
        joined = await call("JoinGame", request)
        tokens[seat] = joined.seat_token
    turn = joined.view.turn
    answer = await call("DrawFromStock", game_pb2.DrawFromStockRequest(name=name), tokens[turn])
    await app.close()
    return answer, tokens[turn], name


def protoset(path: Path) -> None:
    """The descriptors ghz needs (health, and the game API with its imports)."""
    files: dict[str, FileDescriptor] = {}

    def add(fd: FileDescriptor) -> None:
        for dep in fd.dependencies:
            add(dep)
        files.setdefault(fd.name, fd)

    add(health_pb2.DESCRIPTOR)
    add(game_pb2.DESCRIPTOR)
    out = descriptor_pb2.FileDescriptorSet()
    for fd in files.values():
        fd.CopyToProto(out.file.add())
    path.write_bytes(out.SerializeToString())


async def serve(answer: bytes) -> tuple[grpc.aio.Server, int]:
    async def move(request: game_pb2.DrawFromStockRequest, context: Any) -> bytes:
        token = next((v for k, v in context.invocation_metadata() if k == "authorization"), "")
        if not token or not request.name:
            raise RuntimeError("the move-shaped call wants a token and a game name")
        await asyncio.sleep(0)  # one turn of the event loop, as a move waits for its commit
        return answer

    server = grpc.aio.server()
    checks = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    handler: Any = grpc.unary_unary_rpc_method_handler(
        move, request_deserializer=game_pb2.DrawFromStockRequest.FromString
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("ramino.v1.GameService", {"DrawFromStock": handler}),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    await checks.set("", health_pb2.HealthCheckResponse.SERVING)
    return server, port


async def ghz(argv: list[str]) -> dict[str, Any]:
    """Runs ghz (while this loop keeps serving) and returns its JSON report."""
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"ghz failed ({proc.returncode}): {err.decode()[-400:]}")
    report: dict[str, Any] = json.loads(out)
    return report


def percentile_ms(report: dict[str, Any], p: int) -> float:
    for row in report.get("latencyDistribution") or []:
        if row["percentage"] == p:
            return float(row["latency"]) / 1e6
    return float("nan")


async def main_async(args: argparse.Namespace, exe: str) -> None:
    answer, token, name = await real_move()
    server, port = await serve(answer)
    try:
        await measure(args, exe, answer, token, name, port)
    finally:
        await server.stop(None)
    print(
        "  (errors: calls not OK, usually those cut by ghz's end of run; CPU: this process, "
        "all its threads)"
    )


async def measure(
    args: argparse.Namespace, exe: str, answer: bytes, token: str, name: str, port: int
) -> None:
    with tempfile.TemporaryDirectory(prefix="ramino-floor-") as tmp:
        descriptors = Path(tmp) / "api.protoset"
        protoset(descriptors)
        calls = {
            "Health/Check": ["--call", "grpc.health.v1.Health/Check"],
            "move-shaped": [
                "--call",
                "ramino.v1.GameService/DrawFromStock",
                "-d",
                json.dumps({"name": name, "request_id": "floor"}),
                "-m",
                json.dumps({"authorization": f"Bearer {token}"}),
            ],
        }
        print(
            f"ramino floor: {platform.python_implementation()} {platform.python_version()}, "
            f"grpcio {grpc.__version__}, {os.cpu_count()} cores; a move's answer is "
            f"{len(answer)} bytes; {args.concurrency} calls in flight, {args.seconds:g} s a run"
        )
        print(
            f"  {'call':<14} {'load':<12} {'calls':>7} {'calls/s':>8} {'p50 ms':>7} "
            f"{'p99 ms':>7} {'errors':>6} {'server CPU/call':>16}"
        )
        for load in ("closed loop", f"{args.rps}/s paced"):
            for label, call in calls.items():
                argv = [exe, "--insecure", "--protoset", str(descriptors), *call]
                argv += ["-c", str(args.concurrency), "-z", f"{args.seconds}s", "-O", "json"]
                if load != "closed loop":
                    argv += ["--rps", str(args.rps)]
                argv.append(f"127.0.0.1:{port}")
                cpu0 = time.process_time()
                report = await ghz(argv)
                cpu = time.process_time() - cpu0
                count = int(report.get("count", 0))
                ok = int((report.get("statusCodeDistribution") or {}).get("OK", 0))
                print(
                    f"  {label:<14} {load:<12} {count:>7} {float(report.get('rps', 0)):>8.0f} "
                    f"{percentile_ms(report, 50):>7.2f} {percentile_ms(report, 99):>7.2f} "
                    f"{count - ok:>6} {cpu / max(count, 1) * 1e3:>13.3f} ms"
                )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ghz", help="the ghz binary (default: ghz on PATH, then ~/go/bin/ghz)")
    p.add_argument("--seconds", type=float, default=6.0, help="seconds a run")
    p.add_argument("--concurrency", type=int, default=64, help="calls in flight (ghz -c)")
    p.add_argument("--rps", type=int, default=300, help="calls/s of the paced runs")
    args = p.parse_args()
    exe = args.ghz or shutil.which("ghz") or str(Path.home() / "go/bin/ghz")
    if not Path(exe).exists():
        p.error(f"no ghz at {exe}: go install github.com/bojand/ghz/cmd/ghz@v0.120.0")
    configure("warning", json=True)
    asyncio.run(main_async(args, exe))
    return 0


if __name__ == "__main__":
    sys.exit(main())
