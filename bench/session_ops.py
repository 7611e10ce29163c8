"""The server's event-loop work a session move costs (issue 32): figures
only, nothing asserted.

A server (GameApp, GameServicer and grpc.aio on a loopback port, the
memory store) runs in this process on an event loop that counts what it
is asked to do: each callback scheduled (``call_soon``: a task resumed
after an await, a future's done callback, gRPC's own wake-ups) and each
future made. ``bench/load.py --target`` drives it from another process
(64 two-seat rummy games, each seat on its PlayGame session), and this
prints, over the measured window, callbacks and futures per move applied
(``ramino_moves_applied``): the awaited operations a move costs the
server, before and after a change, whatever the machine's load.

    .venv/bin/python bench/session_ops.py                      # the lean session
    .venv/bin/python bench/session_ops.py --session-hints      # as the SDKs ask
    PYTHONPATH=OTHER/service .venv/bin/python bench/session_ops.py   # another checkout's server
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import structlog
from prometheus_client import REGISTRY
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.store import open_store

LOAD = Path(__file__).resolve().parent / "load.py"


class CountingLoop(asyncio.SelectorEventLoop):
    """An event loop that counts the callbacks it schedules and the futures it makes."""

    def __init__(self) -> None:
        super().__init__()
        self.scheduled = 0
        self.futures = 0

    def call_soon(  # type: ignore[override]
        self, callback: Any, *args: Any, context: Any = None
    ) -> asyncio.Handle:
        self.scheduled += 1
        return super().call_soon(callback, *args, context=context)

    def create_future(self) -> asyncio.Future[Any]:
        self.futures += 1
        return super().create_future()


def moves_applied() -> float:
    return sum(
        s.value
        for m in REGISTRY.collect()
        if m.name == "ramino_moves_applied"
        for s in m.samples
        if s.name.endswith("_total")
    )


async def run(args: argparse.Namespace) -> None:
    loop = asyncio.get_running_loop()
    assert isinstance(loop, CountingLoop)
    app = GameApp(open_store("memory"))
    await app.start()
    servicer = GameServicer(app, TokenIssuer(b"s" * 32))
    running = await create_server("127.0.0.1:0", servicer)
    argv = [
        sys.executable, str(LOAD), "--target", f"127.0.0.1:{running.port}",
        "--store", "memory", "--games", str(args.games), "--session",
        "--seconds", str(args.seconds + args.warmup + 2), "--warmup", "0",
        "--connections", "2",
    ]  # fmt: skip
    if args.session_hints:
        argv.append("--session-hints")
    # The client is this checkout's, whatever server PYTHONPATH chose.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    client = await asyncio.create_subprocess_exec(
        *argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    # load.py's baseline phase (Check loops) first, then the games: measured
    # once they have played for the warm-up.
    while moves_applied() == 0:
        await asyncio.sleep(0.2)
    await asyncio.sleep(args.warmup)
    moves, scheduled, futures = moves_applied(), loop.scheduled, loop.futures
    start = time.perf_counter()
    await asyncio.sleep(args.seconds)
    window = time.perf_counter() - start
    moved = moves_applied() - moves
    calls, made = loop.scheduled - scheduled, loop.futures - futures
    client.terminate()
    await client.wait()
    await running.stop(0)
    await app.close()
    what = "asking hints and views" if args.session_hints else "asking neither"
    print(
        f"session ({what}): {moved:.0f} moves in {window:.1f} s; "
        f"{calls / max(moved, 1):.1f} callbacks scheduled and "
        f"{made / max(moved, 1):.1f} futures made a move"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=64)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--warmup", type=float, default=3.0)
    p.add_argument("--session-hints", action="store_true")
    args = p.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with asyncio.Runner(loop_factory=CountingLoop) as runner:
        runner.run(run(args))


if __name__ == "__main__":
    main()
