"""The server's stream budget (issue 46, defect 3): how many streams one
client address makes a server hold, and what each costs it.

For each case it starts a fresh ``ramino serve`` (memory store, on a free
loopback port, the case's flags), creates a rummy game of two people, then
opens spectators' WatchGame streams on it from this process, all from
127.0.0.1: ``--connections`` connections (each its own, not pooled) of
``--per-connection`` streams, opened 20 at a time, each counted held once
its snapshot came or refused with its reason. It prints the streams held
and refused (by reason) and the server's resident memory before and after,
and per stream held. Nothing asserted.

The default cases: ``unbounded``, the server as it was (no stream budget:
every stream the per-connection limit lets through is held), and ``1GiB``,
the budget a server in a 1 GiB pod gets by default (half of it at 48 KiB a
stream: 10,922, of which one address holds an eighth: 1,365); ``places``,
a game's 1,000 spectator places (the default), of which one address holds
an eighth. Otherwise a game's spectator places are raised above what is
opened (``--max-watchers-per-game``) so that the server-wide budget is what
is measured.

    .venv/bin/python bench/stream_budget.py
    .venv/bin/python bench/stream_budget.py --connections 20 --per-connection 100 \\
        --case "small=--max-streams=1000"
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from ramino.v1 import game_pb2, game_pb2_grpc
from watchers import start_server, stop_server

CASES = {
    "unbounded": "--max-streams=100000000 --max-streams-per-address=0 --max-streams-per-prefix=0",
    "1GiB": "--max-streams=10922",
    "places": "--max-streams=100000000 --max-watchers-per-game=1000",
}
PAGE = 4096


def rss(pid: int) -> int:
    """Resident bytes of process ``pid``."""
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def reason(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)
    info = error_details_pb2.ErrorInfo()
    if status is not None and status.details and status.details[0].Unpack(info):
        return str(info.reason)
    return error.code().name  # no ErrorInfo: refused by gRPC itself


async def open_streams(
    port: int, connections: int, per_connection: int
) -> tuple[int, Counter[str], list[grpc.aio.Channel], list[object]]:
    """Opens the streams; returns how many are held, the refusals by
    reason, and the channels and calls to close."""
    address = f"127.0.0.1:{port}"
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        created = await stub.CreateGame(
            game_pb2.CreateGameRequest(
                variant="rummy", seats=[game_pb2.SeatConfig(player_name=f"p{i}") for i in range(2)]
            )
        )
    name = created.game.name
    channels = [
        grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(connections)
    ]
    held, refused, calls = 0, Counter[str](), []

    async def opened(call: grpc.aio.UnaryStreamCall) -> bool:  # type: ignore[type-arg]
        nonlocal held
        try:
            await call.read()
        except grpc.aio.AioRpcError as error:
            refused[reason(error)] += 1
            return False
        held += 1
        return True

    for channel in channels:
        stub = game_pb2_grpc.GameServiceStub(channel)
        for start in range(0, per_connection, 20):
            batch = [
                stub.WatchGame(game_pb2.WatchGameRequest(name=name))
                for _ in range(min(20, per_connection - start))
            ]
            kept = await asyncio.gather(*(opened(call) for call in batch))
            calls += [call for call, ok in zip(batch, kept, strict=True) if ok]
    return held, refused, channels, calls


async def measure(label: str, flags: list[str], args: argparse.Namespace, log: Path) -> None:
    port = free_port()
    server = start_server(
        sys.executable,
        port,
        # One address holds an eighth of a game's places: raised so that the
        # server-wide budget is what is measured (a case's own flag wins).
        [f"--max-watchers-per-game={8 * args.connections * args.per_connection + 8}", *flags],
        log,
    )
    try:
        before = rss(server.pid)
        start = time.monotonic()
        held, refused, channels, calls = await open_streams(
            port, args.connections, args.per_connection
        )
        took = time.monotonic() - start
        await asyncio.sleep(1.0)
        after = rss(server.pid)
        per = (after - before) / held if held else 0.0
        print(
            f"{label:>10}: held {held:6d}, refused {sum(refused.values()):6d} "
            f"{dict(refused)}; server RSS {before / 1e6:.0f} -> {after / 1e6:.0f} MB, "
            f"{per / 1024:.1f} KiB a stream held ({took:.1f} s to open)",
            flush=True,
        )
        for call in calls:
            call.cancel()  # type: ignore[attr-defined]
        for channel in channels:
            await channel.close()
    finally:
        stop_server(server)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=100)
    parser.add_argument("--per-connection", type=int, default=100)
    parser.add_argument(
        "--case",
        action="append",
        metavar="LABEL=FLAGS",
        help="a server's flags, measured under LABEL (repeatable; default: "
        + "; ".join(f"{k}={v}" for k, v in CASES.items())
        + ")",
    )
    args = parser.parse_args()
    cases = dict(c.split("=", 1) for c in args.case) if args.case else CASES
    print(
        f"{args.connections} connections x {args.per_connection} WatchGame streams "
        "from 127.0.0.1"
    )
    with tempfile.TemporaryDirectory() as folder:
        for label, flags in cases.items():
            await measure(label, flags.split(), args, Path(folder) / f"{label}.log")


if __name__ == "__main__":
    asyncio.run(main())
