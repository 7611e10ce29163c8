"""A replica's watch feeds on Redis (issue 45, item 2): the Redis connections
one replica holds while it serves many watched games, and how soon a move
made on another replica reaches their watchers. Figures only, nothing
asserted.

For each server named by ``--python LABEL=PYTHON`` (each checkout's
python importing that checkout's ramino, so that two trees are measured side
by side in one run) it starts a fresh Redis and two ``ramino serve`` on it:
A takes the moves, B the watchers. It creates ``--games`` two-person rummy
games on A, opens a spectator's WatchGame stream of each on B (from a
separate process, 100 streams a connection) and waits until every stream has
its snapshot; then it counts the TCP connections from B's process to Redis
(from /proc: the sockets of its file descriptors), and Redis's own
``connected_clients`` and ``blocked_clients``. Then a mover plays
``--movers`` of those games on A, closed loop, for ``--seconds``: each move's
answer time on A and the time its event reaches B's stream give the push
latency (from the move's send, p50 and p99; one clock, CLOCK_MONOTONIC).
B's and Redis's CPU over that window are printed a move.

    .venv/bin/python bench/redis_feeds.py --games 5000
    .venv/bin/python bench/redis_feeds.py --games 5000 \\
        --python before=/tmp/base/python --python after=.venv/bin/python
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import load
import redis
import watchers
from ramino.v1 import game_pb2, game_pb2_grpc

PER_CONNECTION = 100
"""Streams a client connection (the servers' --max-streams-per-connection)."""


@dataclass
class Figures:
    label: str
    games: int
    ready: int
    connections: int
    redis_clients: int
    redis_blocked: int
    moves: int
    answer_p50: float
    answer_p99: float
    push_p50: float
    push_p99: float
    server_ms: float
    redis_ms: float


def redis_connections(pid: int, port: int) -> int:
    """TCP connections from process ``pid`` to 127.0.0.1:``port``."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    count = 0
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            remote_port = int(fields[2].rsplit(":", 1)[1], 16)
            if remote_port == port and fields[9] in inodes and fields[3] == "01":  # ESTABLISHED
                count += 1
    return count


def watch_all(*args: Any) -> None:
    asyncio.run(_watch_all(*args))


async def _watch_all(
    address: str, names: list[str], moving: set[str], ready_seconds: float, pipe: Any
) -> None:
    """Opens a spectator stream of every game, says how many have their
    snapshot once each has (or ``ready_seconds`` have passed), then notes
    when each event of a moving game arrives until told "stop", and sends
    those times ``{(name, version): t}``."""
    arrived: dict[tuple[str, int], float] = {}
    snapshots = asyncio.Semaphore(0)
    channels: list[Any] = []
    failed: list[str] = []

    async def follow(call: Any, name: str) -> None:
        first = True
        try:
            async for raw in call:
                if first:
                    snapshots.release()
                    first = False
                elif name in moving:
                    now = time.monotonic()
                    version = game_pb2.WatchGameResponse.FromString(raw).version
                    arrived.setdefault((name, version), now)
        except grpc.aio.AioRpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                failed.append(f"{e.code().name}: {e.details()}")
                if first:
                    snapshots.release()

    tasks = []
    for i, name in enumerate(names):
        if i % PER_CONNECTION == 0:
            # A connection of its own (not the process's shared subchannel).
            options = [("grpc.use_local_subchannel_pool", 1)]
            channels.append(grpc.aio.insecure_channel(address, options=options))
        watch: Any = channels[-1].unary_stream(
            "/ramino.v1.GameService/WatchGame",
            request_serializer=game_pb2.WatchGameRequest.SerializeToString,
            response_deserializer=None,
        )
        tasks.append(asyncio.create_task(follow(watch(game_pb2.WatchGameRequest(name=name)), name)))
    ready = 0
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(ready_seconds):
            for _ in names:
                await snapshots.acquire()
                ready += 1
    loop = asyncio.get_running_loop()
    pipe.send((ready, failed[:3]))
    assert await loop.run_in_executor(None, pipe.recv) == "stop"
    pipe.send(arrived)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()


async def make_games(address: str, count: int) -> list[tuple[str, list[Any]]]:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        made: list[tuple[str, list[Any]]] = []
        while len(made) < count:
            batch = min(64, count - len(made))
            made += await asyncio.gather(*(watchers.two_people(stub) for _ in range(batch)))
        return made


async def move_for(
    address: str, games: list[tuple[str, list[Any]]], seconds: float
) -> list[tuple[str, int, float, float]]:
    """Plays ``games`` closed loop for ``seconds``: each move's (game, version
    after it, send time, answer time)."""
    done: list[tuple[str, int, float, float]] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        end = time.monotonic() + seconds

        async def play(name: str, metadata: list[Any]) -> None:
            state: dict[str, Any] = {}
            while time.monotonic() < end:
                sent = time.monotonic()
                if not await watchers.move(stub, name, metadata, state):
                    return
                view = state.get("view")
                if view is not None:
                    done.append((name, view.version, sent, time.monotonic()))

        await asyncio.gather(*(play(n, md) for n, md in games))
    return done


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


def redis_cpu(port: int) -> float:
    with redis.Redis(port=port) as r:
        info = r.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def measure(label: str, python: str, args: argparse.Namespace, procs: load.Processes) -> Figures:
    url = load.start_redis(procs)
    port = procs.redis_ports[0]
    extra = [
        "--max-streams", str(args.games * 2 + 1000),
        "--max-streams-per-address", "0",
        "--max-streams-per-prefix", "0",
        "--max-streams-per-connection", str(PER_CONNECTION),
    ]  # fmt: skip
    env = dict(os.environ, RAMINO_TOKEN_SECRET="b" * 64)
    a_port, b_port = load.free_port(), load.free_port()
    log = procs.dir / f"{label}.log"
    a = watchers.start_server(python, a_port, extra, log, store=url, env=env, cwd=procs.dir)
    b = watchers.start_server(python, b_port, extra, log, store=url, env=env, cwd=procs.dir)
    try:
        games = asyncio.run(make_games(f"127.0.0.1:{a_port}", args.games))
        moving = games[: args.movers]
        parent, child = multiprocessing.Pipe()
        spectators = multiprocessing.Process(
            target=watch_all,
            args=(
                f"127.0.0.1:{b_port}",
                [n for n, _ in games],
                {n for n, _ in moving},
                args.ready_seconds,
                child,
            ),
        )
        spectators.start()
        ready, failed = parent.recv()
        if ready < len(games):
            print(f"  {label}: {ready} of {len(games)} streams had their snapshot", file=sys.stderr)
        if failed:
            print(f"  {label}: some streams failed: {failed}", file=sys.stderr)
        connections = redis_connections(b.pid, port)
        with redis.Redis(port=port) as r:
            clients = r.info("clients")
        cpu0, rcpu0 = watchers.proc_cpu(b.pid), redis_cpu(port)
        moves = asyncio.run(move_for(f"127.0.0.1:{a_port}", moving, args.seconds))
        # The last pushes of the window are on their way: let them land.
        time.sleep(0.5)
        cpu1, rcpu1 = watchers.proc_cpu(b.pid), redis_cpu(port)
        parent.send("stop")
        arrived = parent.recv()
        spectators.join(30)
    finally:
        watchers.stop_server(a)
        watchers.stop_server(b)
    answers = [answered - sent for _, _, sent, answered in moves]
    pushes = [arrived[(n, v)] - sent for n, v, sent, _ in moves if (n, v) in arrived]
    count = max(len(moves), 1)
    return Figures(
        label,
        args.games,
        ready,
        connections,
        int(clients["connected_clients"]),
        int(clients["blocked_clients"]),
        len(moves),
        pct(answers, 50),
        pct(answers, 99),
        pct(pushes, 50),
        pct(pushes, 99),
        (cpu1 - cpu0) * 1000 / count,
        (rcpu1 - rcpu0) * 1000 / count,
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=5000, help="games watched on replica B")
    p.add_argument("--movers", type=int, default=32, help="of them, games played on A")
    p.add_argument("--seconds", type=float, default=10.0, help="the movers' window")
    p.add_argument(
        "--ready-seconds",
        type=float,
        default=180.0,
        help="how long the streams may take to get their snapshots (a server that cannot "
        "serve them all goes on with those that did)",
    )
    p.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="LABEL=PYTHON",
        help="a server to measure (repeatable; default: this checkout's)",
    )
    p.add_argument("--keep", action="store_true", help="keep the temp dir (logs)")
    args = p.parse_args(argv)
    pythons = [tuple(x.split("=", 1)) for x in args.python] or [("this", sys.executable)]
    print(f"{os.cpu_count()} cores; {args.games} games watched on B, {args.movers} moved on A")
    rows = []
    procs = load.Processes(keep=args.keep)
    try:
        for label, python in pythons:
            rows.append(measure(label, python, args, procs))
    finally:
        procs.close()
    print(
        f"{'server':<10} {'games':>6} {'ready':>6} {'B->Redis':>9} {'clients':>8} {'blocked':>8} "
        f"{'moves':>6} {'answer p50/p99 ms':>18} {'push p50/p99 ms':>16} "
        f"{'B ms/move':>10} {'Redis ms/move':>14}"
    )
    for f in rows:
        print(
            f"{f.label:<10} {f.games:>6} {f.ready:>6} {f.connections:>9} {f.redis_clients:>8} "
            f"{f.redis_blocked:>8} {f.moves:>6} "
            f"{f.answer_p50 * 1000:>8.2f}/{f.answer_p99 * 1000:<9.2f} "
            f"{f.push_p50 * 1000:>7.2f}/{f.push_p99 * 1000:<8.2f} "
            f"{f.server_ms:>10.3f} {f.redis_ms:>14.3f}"
        )
    print("(ready: streams with their snapshot; B->Redis: TCP connections of replica B's")
    print(" process to Redis with every stream open; clients/blocked: Redis's INFO, all")
    print(" processes; push: a move's send on A to its event on B's stream; B ms/move: B's")
    print(" CPU in the movers' window a move, its feeds' share)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
