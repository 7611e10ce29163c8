"""Watch fan-out (issues 10 and 20): moves/s of one mover with 0 / 50 / 200 /
1000 watch streams. Figures only, nothing asserted.

For each stream count and mode it starts a fresh ``ramino serve`` (memory
store, on a free loopback port), creates a rummy game of two people and
joins both seats, opens the streams from a separate client process
(``--per-connection`` streams per connection, each connection its own),
waits until every one has its snapshot, then plays the game's moves from one
closed-loop mover (the choice of bench/load.py, both seats in turn) for
``--seconds`` after ``--warmup``. Modes: ``one``, spectators of the mover's
game that leave ``batch_events`` unset (the server sends them a message per
event until the replica's ``--spectator-messages`` budget is spent, then
batches: issue 36); ``batch``, the same asking for batches (a message per
``--spectator-interval`` within the budget); ``stalled``, streams that
never read, on another game that a second mover plays meanwhile (a client
that stops reading must cost the first game nothing).
It prints the mover's moves/s, its ratio to that with no stream (the
issues' target: at least 0.5 with 1000 spectators, whether they ask for
batches or not), the server's CPU use, and the messages the streams
received per second; then, for the largest count, the mover's rate with
no spectator, with spectators that do not ask for batches and with
spectators that do, side by side. The server's CPU milliseconds per move
are the figure that the other processes on the machine (the mover, the
spectators' client) do not blur.

Run from the repository root; ``--python LABEL=PYTHON`` (repeatable) names
the servers measured side by side, each checkout's virtualenv python
importing that checkout's ramino:

    .venv/bin/python bench/watchers.py
    .venv/bin/python bench/watchers.py --spectators 0,1000 --modes one,batch
    .venv/bin/python bench/watchers.py --python main=/work/main/.venv/bin/python \\
        --python this=.venv/bin/python --modes stalled --spectators 0,100
    .venv/bin/python bench/watchers.py --spectators 0,1000 --server-arg=--max-watchers-per-game=2000
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import load
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ramino.v1 import game_pb2, game_pb2_grpc

# A match long enough to outlast a measured window.
OVERRIDES = {"target_score": 10000, "max_rounds": 500}
CLK_TCK = os.sysconf("SC_CLK_TCK")


@dataclass
class Figures:
    spectators: int
    moves: int
    seconds: float
    server_cpu: float  # server CPU seconds in the window
    events: int  # events the spectators received in the window
    note: str = ""

    @property
    def rate(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def start_server(
    python: str,
    port: int,
    extra: list[str],
    log: Path,
    store: str = "memory",
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.Popen[bytes]:
    """``ramino serve`` of ``python`` on ``port`` (``env`` and ``cwd``: its
    environment and folder, by default this process's), once its health
    check answers SERVING."""
    command = [
        python,
        "-m",
        "ramino",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--store",
        store,
        "--log-level",
        "warning",
        "--grace",
        "0",
        *extra,
    ]
    with log.open("ab") as out:
        server = subprocess.Popen(command, stdout=out, stderr=out, env=env, cwd=cwd)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text()[-2000:]}")
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = health_pb2_grpc.HealthStub(channel)
                if stub.Check(health_pb2.HealthCheckRequest(), timeout=0.5).status == 1:
                    return server
        except grpc.RpcError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not come up")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    """Stops a server of :func:`start_server`: terminated, killed if it has
    not ended 10 s later."""
    server.terminate()
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()


# --- the spectators (their own process) ------------------------------------------------


def spectate(*args: Any) -> None:
    """Opens ``count`` spectator streams (asking for batches with
    ``batch``), says "ready" once each has its snapshot (or, when it
    ``reads`` nothing, once they are open), then counts the messages
    received until told the window's start ("mark") and end ("stop"), and
    sends the count (the arguments: those of :func:`_spectate`)."""
    asyncio.run(_spectate(*args))


async def _spectate(
    address: str,
    name: str,
    count: int,
    per_connection: int,
    pipe: Any,
    batch: bool,
    reads: bool,
    window: int,
) -> None:
    received = 0
    channels = []
    calls = []
    snapshots = asyncio.Semaphore(0)

    async def follow(call: Any) -> None:
        nonlocal received
        if not reads:  # a client that never reads: its window fills, then nothing
            snapshots.release()
            await asyncio.Event().wait()
        first = True
        async for _ in call:
            if first:
                snapshots.release()
                first = False
            else:
                received += 1

    tasks = []
    for i in range(count):
        if i % per_connection == 0:
            options = [("grpc.use_local_subchannel_pool", 1)]
            if window:  # a client whose transport, too, stops taking what it does not read
                options += [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", window)]
            channels.append(grpc.aio.insecure_channel(address, options=options))
        # Raw bytes, not parsed: the spectators' process is kept cheap, since
        # it shares the machine with the server.
        watch: Any = channels[-1].unary_stream(
            "/ramino.v1.GameService/WatchGame",
            request_serializer=game_pb2.WatchGameRequest.SerializeToString,
            response_deserializer=None,
        )
        call = watch(game_pb2.WatchGameRequest(name=name, batch_events=batch))
        calls.append(call)
        tasks.append(asyncio.create_task(follow(call)))
    for _ in range(count):
        await snapshots.acquire()
    loop = asyncio.get_running_loop()
    pipe.send("ready")
    marks = {}
    for what in ("mark", "stop"):
        message = await loop.run_in_executor(None, pipe.recv)
        assert message == what, message
        marks[what] = received
    pipe.send(marks["stop"] - marks["mark"])
    failed = sum(1 for t in tasks if t.done() and t.exception() is not None)
    cut = sum(1 for call in calls if call.done())  # ended by the server (a stalled stream)
    for call in calls:
        call.cancel()
    for task in tasks:
        task.cancel()  # the ones that never read wait for nothing else
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()
    pipe.send((failed, cut))


# --- the mover -------------------------------------------------------------------------


async def two_people(stub: game_pb2_grpc.GameServiceStub) -> tuple[str, list[Any]]:
    seats = [game_pb2.SeatConfig(player_name=f"p{i}") for i in range(2)]
    request = game_pb2.CreateGameRequest(variant="rummy", seats=seats, overrides=OVERRIDES)
    try:
        created = await stub.CreateGame(request)
    except grpc.aio.AioRpcError as e:
        if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
            raise
        created = await stub.CreateGame(game_pb2.CreateGameRequest(variant="rummy", seats=seats))
    name = created.game.name
    metadata = []
    for seat in range(2):
        joined = await stub.JoinGame(
            game_pb2.JoinGameRequest(name=name, seat=seat, player_name=f"p{seat}")
        )
        metadata.append((("authorization", f"Bearer {joined.seat_token}"),))
    return name, metadata


async def move(
    stub: game_pb2_grpc.GameServiceStub, name: str, metadata: list[Any], state: dict[str, Any]
) -> bool:
    """One move of the seat whose turn it is; False once the match is over."""
    view = state.get("view")
    if view is None or not view.HasField("turn"):
        view = (await stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return False
        if not view.HasField("turn"):
            await asyncio.sleep(0.001)
            state["view"] = None
            return True
    md = metadata[view.turn]
    legal = state.get("legal")
    if legal is None or legal.version != view.version:
        got = await stub.GetLegalMoves(game_pb2.GetLegalMovesRequest(name=name), metadata=md)
        legal = load.Legal(got.version, got.moves, got.hint)
    rpc, request = load.choose(legal, name, "")
    answer = (await getattr(stub, rpc)(request, metadata=md)).result
    state["view"] = answer.view
    state["legal"] = (
        load.Legal(answer.view.version, answer.legal_moves, answer.hint)
        if answer.legal_moves
        else None
    )
    return bool(answer.view.status != game_pb2.GAME_STATUS_FINISHED)


async def keep_moving(stub: game_pb2_grpc.GameServiceStub, name: str, metadata: list[Any]) -> None:
    """The other game's mover, until cancelled."""
    state: dict[str, Any] = {}
    while await move(stub, name, metadata, state):
        pass


async def measure(
    args: argparse.Namespace, python: str, spectators: int, mode: str, log: Path
) -> Figures:
    """The mover's figures with ``spectators`` streams: on its own game
    (``mode`` one or batch), or (``mode`` stalled) streams that never read
    on another game, which a second mover plays meanwhile."""
    port = load.free_port()
    server = start_server(python, port, args.server_arg or [], log)
    address = f"127.0.0.1:{port}"
    watcher = None
    other = None
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = game_pb2_grpc.GameServiceStub(channel)
            name, metadata = await two_people(stub)
            watched = name
            if mode == "stalled":
                watched, other_metadata = await two_people(stub)
                other = asyncio.create_task(keep_moving(stub, watched, other_metadata))
            ours, theirs = multiprocessing.Pipe()
            if spectators:
                watcher = multiprocessing.get_context("spawn").Process(
                    target=spectate,
                    args=(
                        address,
                        watched,
                        spectators,
                        args.per_connection,
                        theirs,
                        mode == "batch",
                        mode != "stalled",
                        args.window if mode == "stalled" else 0,
                    ),
                )
                watcher.start()
                if not ours.poll(120):
                    raise RuntimeError("the spectators did not all get their snapshot")
                assert ours.recv() == "ready"
            state: dict[str, Any] = {}
            note = ""
            end = time.perf_counter() + args.warmup
            while time.perf_counter() < end:
                if not await move(stub, name, metadata, state):
                    raise RuntimeError("the match ended in the warm-up")
            if watcher is not None:
                ours.send("mark")
            cpu0, t0 = proc_cpu(server.pid), time.perf_counter()
            moves = 0
            while time.perf_counter() - t0 < args.seconds:
                moves += 1
                if not await move(stub, name, metadata, state):
                    note = "the match ended early"
                    break
            t1, cpu1 = time.perf_counter(), proc_cpu(server.pid)
            events = 0
            if watcher is not None:
                ours.send("stop")
                events = ours.recv()
                failed, cut = ours.recv()
                if failed:
                    note += f" {failed} streams failed"
                if cut and mode == "stalled":
                    note += f" {cut} streams ended by the server"
                watcher.join(30)
            return Figures(spectators, moves, t1 - t0, cpu1 - cpu0, events, note.strip())
    finally:
        if other is not None:
            other.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await other
        if watcher is not None and watcher.is_alive():
            watcher.kill()
        stop_server(server)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--spectators", default="0,50,200,1000", help="spectator counts, one run each")
    p.add_argument(
        "--modes",
        default="one,batch",
        help="one: the streams leave batch_events unset (a message per event within the "
        "server's budget); batch: the streams ask for batches (batch_events); "
        "stalled: the streams never read, on another game a second mover plays",
    )
    p.add_argument(
        "--window",
        type=int,
        default=0,
        help="stalled streams' flow-control window in bytes (gRPC's lookahead, BDP probing "
        "off); 0: gRPC's default, whose transport keeps taking what the client never reads",
    )
    p.add_argument("--seconds", type=float, default=8.0, help="measured seconds per run")
    p.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds per run")
    p.add_argument("--per-connection", type=int, default=50, help="spectator streams a connection")
    p.add_argument(
        "--python",
        action="append",
        help="LABEL=PYTHON: a server to measure (repeatable, side by side; default: this one)",
    )
    p.add_argument("--server-arg", action="append", help="a flag for ramino serve (repeatable)")
    p.add_argument("--log", default="/tmp/ramino-bench-watchers.log", help="the servers' output")
    args = p.parse_args(argv)
    counts = [int(x) for x in args.spectators.split(",") if x.strip()]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    servers = [
        tuple(x.split("=", 1)) if "=" in x else (x, x) for x in args.python or [sys.executable]
    ]
    print(
        f"# watch fan-out: {platform.machine()}, {os.cpu_count()} CPUs, "
        f"{args.seconds:g} s per run; "
        + ", ".join(f"{label} = {python}" for label, python in servers)
    )
    print(
        "| server | streams | mode | moves/s | vs 0 | server CPU | server CPU ms/move "
        "| messages/s received | note |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---|")
    rates: dict[tuple[str, int, str], float] = {}
    for n in counts:
        for mode in modes if n else modes[:1]:
            for label, python in servers:
                f = asyncio.run(measure(args, python, n, mode, Path(args.log)))
                rates[label, n, mode if n else "-"] = f.rate
                if n == 0:
                    BASE[label, mode == "stalled"] = f.rate
                base = BASE.get((label, mode == "stalled"))
                ratio = f"{f.rate / base:.2f}" if base else "-"
                print(
                    f"| {label} | {n} | {mode if n else '-'} | {f.rate:.0f} | {ratio} | "
                    f"{100 * f.server_cpu / f.seconds:.0f}% | "
                    f"{1000 * f.server_cpu / max(f.moves, 1):.2f} | "
                    f"{f.events / f.seconds:.0f} | {f.note} |",
                    flush=True,
                )
    most = max(counts, default=0)
    if most and 0 in counts:
        print(f"\n# the mover's moves/s with {most} spectators (vs none), side by side")
        for label, _ in servers:
            none = rates.get((label, 0, "-"), 0.0)
            cells = [f"none {none:.0f}"]
            for mode, what in (("one", "not asking for batches"), ("batch", "asking for batches")):
                rate = rates.get((label, most, mode))
                if rate is not None:
                    ratio = f" ({rate / none:.2f})" if none else ""
                    cells.append(f"{what} {rate:.0f}{ratio}")
            print(f"{label}: " + "; ".join(cells), flush=True)
    return 0


BASE: dict[tuple[str, bool], float] = {}
"""Each server's moves/s with no stream (with the other game's mover, or without)."""


if __name__ == "__main__":
    sys.exit(main())
