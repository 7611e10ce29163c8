"""A stream's catch-up over a long finished game (issue 36): the server's
CPU a message of a spectator's watch, a seat's watch and a seat's session
(PlayGame) read from ``after_version=1``, at several game lengths, and
how long another call waits meanwhile. Figures only, nothing asserted.

For each length it builds one finished rummy game of two greedy bots of
at least that many versions in a sqlite file (in this process, with this
checkout's ramino), then, for each server measured side by side
(``--checkout LABEL=PATH``: a ``ramino serve`` importing that checkout's
ramino, over the same file), opens each kind of stream in turn, reads
its first ``--messages`` messages (raw bytes, not parsed) and takes the
server's CPU seconds before and after (``/proc``), ``--repeat`` times (the
least counts: on a shared machine, the run the other jobs disturbed least). Meanwhile a GetGame
of another game every 10 ms times how long the server keeps a call
waiting (its median, 99th percentile and longest): a catch-up that holds
the server's event loop holds them (on a shared machine the other jobs
stall them too: the longest is the noisy figure). The seat's tokens are
made with the secret given to the servers.

The issue's target: a seat's catch-up costs at most a spectator's per
message (plus the seat's options once at the end), flat within 20% from
1,000 to 20,000 versions.

Run from the repository root (the other checkout with its extension and
generated code copied in, e.g. ``git worktree add --detach /tmp/before
<commit>``):

    .venv/bin/python bench/catchup.py
    .venv/bin/python bench/catchup.py --checkout before=/tmp/before --checkout this=.
    .venv/bin/python bench/catchup.py --versions 5000 --messages 0
    .venv/bin/python bench/catchup.py --versions 3000 --streams 4 --kinds "seat watch"
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import load
import watchers
from ramino.api.auth import TokenIssuer
from ramino.app import GameApp, Limits, SeatSpec
from ramino.store import open_store
from ramino.v1 import game_pb2
from watchers import proc_cpu

SECRET = b"the-catch-up-bench-s-secret-of-32-bytes-or-more"
OVERRIDES = {"target_score": 1_000_000, "max_rounds": 100_000}
"""A match that outlasts the longest game asked for."""
KINDS = ("spectator watch", "seat watch", "seat session")


@dataclass
class Figures:
    messages: int
    seconds: float
    server_cpu: float
    waits: list[float]
    """Seconds each GetGame took meanwhile."""

    @property
    def cpu_ms(self) -> float:
        return 1000 * self.server_cpu / max(self.messages, 1)


async def build(path: Path, versions: int) -> tuple[str, int, str]:
    """A finished game of at least ``versions`` versions in the sqlite file
    ``path``: its id and its last version; and the id of another game, a
    small one waiting for its people (what GetGame reads meanwhile)."""
    store = open_store(f"sqlite:{path}")
    app = GameApp(store, limits=Limits(allow_bot_games=True))
    await app.start()
    try:
        seats = [SeatSpec("", "greedy"), SeatSpec("", "greedy")]
        game = await app.create("rummy", dict(OVERRIDES), seats)
        while await store.version(game.game_id) < versions:
            await asyncio.sleep(0.02)
        ended = await app.end(game.game_id, "cancelled")
        other = await app.create("rummy", {}, [SeatSpec("ann", None), SeatSpec("bo", None)])
        return game.game_id, ended.version, other.game_id
    finally:
        await app.close()


def start_server(checkout: Path, port: int, db: Path, log: Path) -> subprocess.Popen[bytes]:
    """The server of ``checkout`` (its own ``ramino``) on the sqlite file ``db``."""
    root = checkout.resolve()
    env = dict(
        os.environ,
        PYTHONPATH=f"{root / 'service'}:{root / 'clients/python/src'}:{root}",
        RAMINO_TOKEN_SECRET=SECRET.decode(),
    )
    return watchers.start_server(sys.executable, port, [], log, f"sqlite:{db}", env, root)


async def catch_up(
    channel: grpc.aio.Channel,
    pid: int,
    game_id: str,
    other: str,
    kind: str,
    messages: int,
    streams: int = 1,
) -> Figures:
    """The server's CPU for the first ``messages`` messages (0: all) of
    ``streams`` streams of ``kind`` at once from ``after_version=1``, and
    the waits of GetGame of game ``other`` meanwhile (one every 10 ms: a
    small share of the CPU)."""
    name = f"games/{game_id}"
    seat = kind.startswith("seat")
    metadata = (("authorization", f"Bearer {TokenIssuer(SECRET).issue(game_id, 0)}"),)
    play: Any = channel.stream_stream(
        "/ramino.v1.GameService/PlayGame",
        request_serializer=game_pb2.PlayGameRequest.SerializeToString,
        response_deserializer=None,
    )
    watch: Any = channel.unary_stream(
        "/ramino.v1.GameService/WatchGame",
        request_serializer=game_pb2.WatchGameRequest.SerializeToString,
        response_deserializer=None,
    )
    start = game_pb2.PlayGameRequest(start=game_pb2.PlayGameStart(name=name, after_version=1))

    async def requests() -> Any:
        yield start
        await asyncio.Event().wait()  # no move: the session ends with the game

    def opened() -> Any:
        if kind == "seat session":
            return play(requests(), metadata=metadata)
        request = game_pb2.WatchGameRequest(name=name, after_version=1)
        return watch(request, metadata=metadata if seat else None)

    async def read(call: Any) -> int:
        got = 0
        async for _ in call:
            got += 1
            if got == messages:
                break
        call.cancel()
        return got

    get: Any = channel.unary_unary(
        "/ramino.v1.GameService/GetGame",
        request_serializer=game_pb2.GetGameRequest.SerializeToString,
        response_deserializer=None,
    )
    waits: list[float] = []
    done = asyncio.Event()

    async def probe() -> None:
        while not done.is_set():
            t = time.perf_counter()
            await get(game_pb2.GetGameRequest(name=f"games/{other}"))
            waits.append(time.perf_counter() - t)
            await asyncio.sleep(0.01)

    cpu0, t0 = proc_cpu(pid), time.perf_counter()
    prober = asyncio.create_task(probe())
    calls = [opened() for _ in range(streams)]
    try:
        got = sum(await asyncio.gather(*(read(call) for call in calls)))
    finally:
        t1, cpu1 = time.perf_counter(), proc_cpu(pid)
        done.set()
        for call in calls:
            call.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await prober
    return Figures(got, t1 - t0, cpu1 - cpu0, waits)


async def measure(
    checkout: Path,
    db: Path,
    games: tuple[str, str],
    kinds: list[str],
    messages: int,
    repeat: int,
    streams: int,
    log: Path,
) -> dict[str, Figures]:
    """Each kind's figures on a fresh server of ``checkout``: the least CPU
    a message of ``repeat`` catch-ups (the run the machine's other jobs
    disturbed least), and the waits of all of them."""
    port = load.free_port()
    server = start_server(checkout, port, db, log)
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            # One warm-up catch-up (imports, first encodings), not measured.
            await catch_up(channel, server.pid, *games, "spectator watch", 50)
            figures = {}
            for kind in kinds:
                runs = [
                    await catch_up(channel, server.pid, *games, kind, messages, streams)
                    for _ in range(repeat)
                ]
                best = min(runs, key=lambda f: f.cpu_ms)
                waits = [w for f in runs for w in f.waits]
                figures[kind] = Figures(best.messages, best.seconds, best.server_cpu, waits)
            return figures
    finally:
        watchers.stop_server(server)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--versions", default="1000,5000,20000", help="game lengths, one game each")
    p.add_argument(
        "--messages",
        type=int,
        default=1000,
        help="messages read per stream from after_version=1 (0: the whole game)",
    )
    p.add_argument(
        "--streams",
        type=int,
        default=1,
        help="streams of a kind caught up at once (the issue's case: 4, of one seat)",
    )
    p.add_argument(
        "--repeat", type=int, default=3, help="catch-ups per stream kind (the least CPU counts)"
    )
    p.add_argument("--kinds", default=",".join(KINDS), help="streams measured: " + ", ".join(KINDS))
    p.add_argument(
        "--checkout",
        action="append",
        help="LABEL=PATH: a checkout whose server is measured (repeatable, side by side; "
        "default: this one)",
    )
    p.add_argument("--log", default="/tmp/ramino-bench-catchup.log", help="the servers' output")
    args = p.parse_args(argv)
    lengths = [int(x) for x in args.versions.split(",") if x.strip()]
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        p.error(f"unknown kinds {sorted(unknown)}: use {', '.join(KINDS)}")
    checkouts = [
        (label, Path(path))
        for label, path in (
            x.split("=", 1) if "=" in x else (x, x) for x in args.checkout or ["this=."]
        )
    ]
    print(
        f"# a stream's catch-up from after_version=1: {platform.machine()}, "
        f"{os.cpu_count()} CPUs, {args.streams} stream(s) at once, "
        + (f"the first {args.messages} messages; " if args.messages else "every message; ")
        + ", ".join(f"{label} = {path}" for label, path in checkouts)
    )
    print(
        "| versions | stream | "
        + " | ".join(
            f"{label} CPU ms/message | {label} GetGame p50 / p99 / max ms" for label, _ in checkouts
        )
        + " |"
    )
    print("|---:|---|" + "---:|---:|" * len(checkouts))
    with tempfile.TemporaryDirectory(prefix="ramino-catchup-") as tmp:
        for n in lengths:
            db = Path(tmp) / f"game-{n}.db"
            game_id, last, other = asyncio.run(build(db, n))
            figures = {
                label: asyncio.run(
                    measure(
                        path,
                        db,
                        (game_id, other),
                        kinds,
                        args.messages,
                        args.repeat,
                        args.streams,
                        Path(args.log),
                    )
                )
                for label, path in checkouts
            }
            for kind in kinds:
                cells = []
                for label, _ in checkouts:
                    f = figures[label][kind]
                    waits = sorted(f.waits) or [0.0]
                    p99 = waits[min(len(waits) - 1, int(0.99 * len(waits)))]
                    cells.append(
                        f"{f.cpu_ms:.3f} ({f.messages} in {f.seconds:.1f} s) | "
                        f"{1000 * statistics.median(waits):.1f} / {1000 * p99:.1f} / "
                        f"{1000 * waits[-1]:.1f}"
                    )
                print(f"| {last} | {kind} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
