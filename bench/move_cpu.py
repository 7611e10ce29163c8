"""A move's server-side CPU without the transport (issue 4, speed): figures
only, nothing asserted.

It plays N concurrent bot-vs-bot games with the client loop of
``bench/load.py`` against a ``GameServicer`` in this process. Every call goes
through the handler the server's interceptor serves (log line, metrics, error
mapping, and the decoding of the request, which the wrapped handler does),
the app and the store, as in ``ramino serve``; what is left out is gRPC
itself: no sockets, no HTTP/2. The log lines go to a file, as the server's
do in ``bench/load.py``.

It prints the moves and the process's CPU per move, and the part of it that
is the client's (choosing a move, parsing the answer), timed and taken off:
what remains is the server's own work per move, the part that the transport
floor of ``bench/floor_server.py`` adds to.

    .venv/bin/python bench/move_cpu.py                  # sqlite, 64 games, 3 runs of 8,000 moves
    .venv/bin/python bench/move_cpu.py --store memory --moves 20000 --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

import grpc
import load
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.interceptors import wrap_handler
from ramino.app import GameApp
from ramino.logs import configure
from ramino.store import open_store
from ramino.v1 import game_pb2

SERVICE = game_pb2.DESCRIPTOR.services_by_name["GameService"]
REQUESTS = {m.name: getattr(game_pb2, m.input_type.name) for m in SERVICE.methods}
RESPONSES = {m.name: getattr(game_pb2, m.output_type.name) for m in SERVICE.methods}


class Context:
    """What the handlers use of a ``grpc.aio.ServicerContext``."""

    def __init__(self, metadata: Any) -> None:
        self._metadata = tuple(metadata or ())

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def code(self) -> None:
        return None  # the handlers succeed, or raise

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise RuntimeError(f"refused: {status.details!r}")


def served(servicer: GameServicer, method: str) -> Callable[[Any, Context], Awaitable[Any]]:
    """The servicer's unary ``method`` as the server's interceptor serves it."""
    plain: Any = grpc.unary_unary_rpc_method_handler(
        getattr(servicer, method), request_deserializer=REQUESTS[method].FromString
    )
    handler: Any = wrap_handler(plain, method)
    return cast(Callable[[Any, Context], Awaitable[Any]], handler.unary_unary)


class InProcessCaller(load.Caller):
    """``bench/load.py``'s caller, calling the wrapped handlers directly."""

    def __init__(self, servicer: GameServicer, result: load.PhaseResult) -> None:
        self.handlers = {
            m.name: served(servicer, m.name) for m in SERVICE.methods if not m.server_streaming
        }
        self.result = result
        self.recording = True
        self.client_seconds = 0.0

    async def call(
        self, rpc: str, request: Any, metadata: Any = None, pin: int | None = None
    ) -> Any:
        # A turn of the event loop per call, as a call arriving from a socket
        # has: a store that never waits (memory) would never let others run.
        await asyncio.sleep(0)
        start = time.process_time()
        raw = request.SerializeToString()  # the client's work
        self.client_seconds += time.process_time() - start
        answer = await self.handlers[rpc](raw, Context(metadata))
        start = time.process_time()
        if type(answer) is bytes:  # a move's answer, serialized by the handler
            answer = RESPONSES[rpc].FromString(answer)
        self.client_seconds += time.process_time() - start
        if rpc in load.MOVE_RPCS:
            self.result.moves += 1
        return answer


async def run(store: str, games: int, moves: int, variant: str) -> tuple[int, float, float]:
    """Moves made, process CPU seconds and client CPU seconds, after a warm-up."""
    app = GameApp(open_store(store))
    servicer = GameServicer(app, TokenIssuer(b"bench-secret-" * 4))
    result = load.PhaseResult()
    caller = InProcessCaller(servicer, result)
    choose = load.choose

    def timed_choose(legal: load.Legal, name: str, request_id: str) -> tuple[str, Any]:
        start = time.process_time()
        try:
            return choose(legal, name, request_id)
        finally:
            caller.client_seconds += time.process_time() - start

    load.choose = timed_choose  # play_game looks it up at each move
    spec = load.PhaseSpec(
        kind="games",
        addresses=[],
        concurrency=games,
        variant=variant,
        warmup=0.0,
        seconds=0.0,
        moves=0,
        max_seconds=0.0,
        request_ids=True,
        start_at=0.0,
    )
    stop = asyncio.Event()
    tasks = [asyncio.create_task(load.games_worker(caller, spec, stop, i)) for i in range(games)]
    try:
        while result.moves < moves // 4:  # warm-up: caches, the first games
            await asyncio.sleep(0.02)
        m0, cpu0, client0 = result.moves, time.process_time(), caller.client_seconds
        while result.moves < m0 + moves:
            await asyncio.sleep(0.02)
        m1, cpu1, client1 = result.moves, time.process_time(), caller.client_seconds
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        load.choose = choose
        await app.close()
    if result.client_errors or result.games_abandoned:
        print(f"  client errors: {dict(result.client_errors)}", file=sys.stderr)
    return m1 - m0, cpu1 - cpu0, client1 - client0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--store", default="sqlite", help="memory or sqlite (a file in a temp dir)")
    p.add_argument("--games", type=int, default=64, help="concurrent games")
    p.add_argument("--moves", type=int, default=8000, help="measured moves per run")
    p.add_argument("--runs", type=int, default=3, help="runs (a fresh store each)")
    p.add_argument("--variant", default="rummy")
    args = p.parse_args()
    if args.store not in ("memory", "sqlite"):
        p.error("--store is memory or sqlite")
    with tempfile.TemporaryDirectory(prefix="ramino-move-cpu-") as tmp:
        log = open(Path(tmp) / "server.log", "w")  # noqa: SIM115 - closed below
        configure("info", json=True, stream=log)
        print(
            f"ramino move_cpu: {platform.python_implementation()} {platform.python_version()}, "
            f"store {args.store}, {args.games} games of {args.variant}, "
            f"{args.moves} moves a run after {args.moves // 4} of warm-up"
        )
        print(f"  {'run':>3}  {'moves':>6}  {'CPU/move':>9}  {'client':>8}  {'server':>8}")
        servers = []
        for i in range(args.runs):
            store = "memory" if args.store == "memory" else f"sqlite:{tmp}/run{i}.db"
            n, cpu, client = asyncio.run(run(store, args.games, args.moves, args.variant))
            server = (cpu - client) / n
            servers.append(server)
            print(
                f"  {i + 1:>3}  {n:>6}  {cpu / n * 1e3:>6.3f} ms  {client / n * 1e3:>5.3f} ms"
                f"  {server * 1e3:>5.3f} ms"
            )
        log.close()
    print(f"  server's CPU a move (process minus client), fastest run: {min(servers) * 1e3:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
