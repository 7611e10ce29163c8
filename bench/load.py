"""Load generator for ``ramino serve`` (issue 4, speed): figures only, nothing asserted.

It starts real ``ramino serve`` processes itself (or uses ``--target``), plays N
concurrent bot-vs-bot games through them, and prints, per RPC, the count, the
rate and the p50/p99/max latency seen by the client (and, when the servers are
its own, the handler time logged by the server), the moves per second, and an
empty-RPC baseline (grpc.health.v1 Health/Check) measured with the same
concurrency, in a separate phase of the same run, on the same server(s).

The players are client-side bots: each game has two seats, each joined with
JoinGame and acting with its own seat token; the seat whose turn it is makes
one of its legal moves (the choice of tests/service/conftest.py's
``play_one``), taken from the last move's result while the turn is still its
own; a turn opens with a draw from the stock, and GetLegalMoves is called
only when neither applies (``--ask-every-move``: before every move). A game's
two seats share one coroutine (only one of them can act at a time); a finished
game is replaced by a new one (CreateGame, two JoinGame). The games run a
closed loop, or keep to a schedule with ``--rate``. With ``--session`` each
seat plays on its own PlayGame session instead, from the options it is
pushed: one message a move, no GetLegalMoves.

Run from the repository root:

    .venv/bin/python bench/load.py                         # 64 games of rummy, sqlite, 15 s
    .venv/bin/python bench/load.py --store memory --games 64 --seconds 20
    .venv/bin/python bench/load.py --store redis --replicas 3   # starts its own redis-server
    .venv/bin/python bench/load.py --store redis --workers 2    # ramino serve --workers 2
    .venv/bin/python bench/load.py --clients 2             # two client processes
    .venv/bin/python bench/load.py --target 127.0.0.1:50051,127.0.0.1:50052
    .venv/bin/python bench/load.py --compare               # sqlite x1, redis x1, redis x3
    .venv/bin/python bench/load.py --think-ms 500          # seats pause before each move
    .venv/bin/python bench/load.py --rate half-check       # paced at half the Check rate
    .venv/bin/python bench/load.py --store redis --replicas 3 --sticky  # a game stays on one
    .venv/bin/python bench/load.py --store redis-cluster --replicas 3  # its own Redis Cluster
    .venv/bin/python bench/load.py --cluster-compare       # redis x1, cluster x1/x2/x3 (+WAIT 1)
    .venv/bin/python bench/load.py --store memory --profile /tmp/server.txt  # py-spy the server

Stores: ``memory``; ``sqlite`` (a file in a temp dir) or ``sqlite:PATH``;
``redis`` (a redis-server started here on a free loopback port, in its own temp
dir) or ``redis://127.0.0.1:PORT/DB``; ``redis-cluster`` (a Redis Cluster of
three primaries and a replica each started here, ``--cluster-wait N``: appends
wait for N replicas) or ``redis+cluster://127.0.0.1:PORT,...``. Where it started
Redis itself, it also prints the Redis commands a move costs (INFO
commandstats of the primaries over the measured window, divided by the moves
in it). All traffic stays on the loopback
interface. Every process it starts is stopped at the end, also on Ctrl-C.
Targets (p99 <= 10 ms; moves/s >= half the baseline Check calls/s) are printed
beside the measured figures, never asserted: the exit status is 0 whenever a
run completes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import math
import multiprocessing
import os
import platform
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ramino.v1 import game_pb2, game_pb2_grpc

P99_TARGET_MS = 10.0
RPC_TIMEOUT = 30.0
DRAIN_SECONDS = 10.0
START_SECONDS = 30.0
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}

# The move RPCs: those that take an expected version.
MOVE_RPCS = tuple(
    m.name
    for m in game_pb2.DESCRIPTOR.services_by_name["GameService"].methods
    if "expected_version" in m.input_type.fields_by_name
)
GAME_RPCS = ("GetLegalMoves", *MOVE_RPCS, "CreateGame", "JoinGame", "GetGame")
DRAW = game_pb2.Move(draw_from_stock=game_pb2.DrawFromStockMove())


class BenchError(Exception):
    """A run that cannot go on (a server that does not start, a bad flag)."""


class ServerRefused(BenchError):
    """A started server exited before serving (for example a store it refuses)."""


# --- the client side ----------------------------------------------------------------


@dataclass
class PhaseSpec:
    """One phase for one client process (picklable, for multiprocessing)."""

    kind: str  # "baseline" or "games"
    addresses: list[str]
    concurrency: int
    variant: str
    warmup: float
    seconds: float
    moves: int  # stop after this many measured moves (0: run for ``seconds``)
    max_seconds: float
    request_ids: bool
    start_at: float  # wall clock; every client process starts then
    think: float = 0.0  # seconds a seat waits before each move
    sticky: bool = False  # each game's calls all go to one target (else round-robin per call)
    ask_every_move: bool = False  # GetLegalMoves before every move (else use the move results')
    interval: float = 0.0  # paced: seconds between a game's moves on a fixed schedule (0: none)
    client: int = 0
    connections: int = 1  # connections (channels) to each address, calls round-robin over all
    session: bool = False  # each seat plays on a PlayGame session, from its pushed options
    seats: int = 2
    session_hints: bool = False  # the sessions ask for hints (and the answers' views)


@dataclass
class PhaseResult:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    games_started: int = 0
    games_finished: int = 0
    games_abandoned: int = 0
    client_errors: Counter[str] = field(default_factory=Counter)
    sent: int = 0  # messages the clients sent on sessions in the window (starts and moves)
    t0: float = 0.0  # wall clock of the measured window
    t1: float = 0.0
    cpu: float = 0.0  # client CPU seconds in the window (all its threads)

    @property
    def window(self) -> float:
        return max(self.t1 - self.t0, 1e-9)

    def merge(self, other: PhaseResult) -> None:
        for rpc, values in other.latencies.items():
            self.latencies.setdefault(rpc, []).extend(values)
        self.errors.update(other.errors)
        self.client_errors.update(other.client_errors)
        self.moves += other.moves
        self.sent += other.sent
        self.games_started += other.games_started
        self.games_finished += other.games_finished
        self.games_abandoned += other.games_abandoned
        self.t0 = min(self.t0, other.t0) if self.t0 else other.t0
        self.t1 = max(self.t1, other.t1)
        self.cpu += other.cpu


class Caller:
    """Calls spread round-robin over the targets, one call at a time; latencies
    are kept only inside the measured window."""

    def __init__(self, channels: list[grpc.aio.Channel], result: PhaseResult) -> None:
        self._methods: list[dict[str, Any]] = []
        self._stubs: list[game_pb2_grpc.GameServiceStub] = []
        for channel in channels:
            stub = game_pb2_grpc.GameServiceStub(channel)
            self._stubs.append(stub)
            methods = {rpc: getattr(stub, rpc) for rpc in GAME_RPCS}
            methods["Check"] = health_pb2_grpc.HealthStub(channel).Check
            self._methods.append(methods)
        self._next = 0
        self.result = result
        self.recording = False
        self.moves_target = 0
        self.enough = asyncio.Event()

    def stub(self, pin: int | None = None) -> game_pb2_grpc.GameServiceStub:
        """A target's stub (the next one, or the pinned one) for a stream."""
        if pin is None:
            i = self._next
            self._next = (i + 1) % len(self._stubs)
        else:
            i = pin % len(self._stubs)
        return self._stubs[i]

    async def call(
        self, rpc: str, request: Any, metadata: Any = None, pin: int | None = None
    ) -> Any:
        if pin is None:
            i = self._next
            self._next = (i + 1) % len(self._methods)
        else:
            i = pin % len(self._methods)
        method = self._methods[i][rpc]
        start = time.perf_counter()
        try:
            response = await method(request, metadata=metadata, timeout=RPC_TIMEOUT)
        except grpc.aio.AioRpcError as e:
            self.result.errors[f"{rpc} {e.code().name}"] += 1
            raise
        if self.recording:
            self.result.latencies.setdefault(rpc, []).append(time.perf_counter() - start)
            if rpc in MOVE_RPCS:
                self.result.moves += 1
                if self.moves_target and self.result.moves >= self.moves_target:
                    self.enough.set()
        return response


class Pace:
    """A fixed schedule of one call every ``interval`` seconds (0: none),
    starting at a random point of the first interval so that many loops
    spread over time. A loop behind its schedule goes at once, without
    catching up in a burst."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._loop = asyncio.get_running_loop()
        self._next = self._loop.time() + (random.random() - 1) * interval

    async def wait(self) -> None:
        if self.interval:
            self._next = max(self._next + self.interval, self._loop.time())
            await asyncio.sleep(self._next - self._loop.time())


async def baseline_worker(caller: Caller, stop: asyncio.Event, interval: float = 0.0) -> None:
    request = health_pb2.HealthCheckRequest()
    pace = Pace(interval)
    while not stop.is_set():
        await pace.wait()
        try:
            await caller.call("Check", request)
        except grpc.aio.AioRpcError:
            await asyncio.sleep(0.01)


@dataclass
class Legal:
    """A seat's legal moves at a version, from GetLegalMoves or a move's result."""

    version: int
    moves: Any
    hint: game_pb2.Hint


ENDS = ("match_ended", "game_ended")
"""The events after which a game has ended."""


def choose(legal: Legal, name: str, request_id: str) -> tuple[str, Any]:
    """The move of tests/service/conftest.py's ``play_one``: melds, a lay-off,
    a draw, the hinted discard, a joker swap; as (RPC, request)."""
    kinds = {m.WhichOneof("move"): m for m in legal.moves}
    common: dict[str, Any] = {"name": name, "expected_version": legal.version}
    if request_id:
        common["request_id"] = request_id
    if "lay_melds" in kinds:
        melds = kinds["lay_melds"].lay_melds.melds
        return "LayMelds", game_pb2.LayMeldsRequest(melds=melds, **common)
    if "lay_off" in kinds:
        m = kinds["lay_off"].lay_off
        return "LayOff", game_pb2.LayOffRequest(
            card_id=m.card_id, meld_index=m.meld_index, end=m.end, **common
        )
    if "draw_from_stock" in kinds:
        return "DrawFromStock", game_pb2.DrawFromStockRequest(**common)
    if "turn_over_discard_pile" in kinds:
        return "TurnOverDiscardPile", game_pb2.TurnOverDiscardPileRequest(**common)
    if "take_discard" in kinds:
        return "TakeDiscard", game_pb2.TakeDiscardRequest(**common)
    discards = [m.discard.card_id for m in legal.moves if m.WhichOneof("move") == "discard"]
    if discards:
        hinted = legal.hint.suggested_discard.id if legal.hint.HasField("suggested_discard") else -1
        card = hinted if hinted in discards else discards[0]
        return "Discard", game_pb2.DiscardRequest(card_id=card, **common)
    first = legal.moves[0]
    if first.WhichOneof("move") == "swap_joker":
        s = first.swap_joker
        return "SwapJoker", game_pb2.SwapJokerRequest(
            card_id=s.card_id, meld_index=s.meld_index, joker_id=s.joker_id, **common
        )
    if "resign" in kinds:
        return "Resign", game_pb2.ResignRequest(**common)
    raise RuntimeError(f"no move to make among {[m.WhichOneof('move') for m in legal.moves]}")


async def play_game(caller: Caller, spec: PhaseSpec, stop: asyncio.Event, worker: int) -> None:
    """One game from creation to its end (or to ``stop``)."""
    ids = spec.request_ids
    result = caller.result
    pin = worker if spec.sticky else None

    async def call(rpc: str, request: Any, metadata: Any = None) -> Any:
        return await caller.call(rpc, request, metadata, pin)

    seats = [game_pb2.SeatConfig(player_name=f"bot {i}") for i in range(2)]
    # Request ids on CreateGame and JoinGame are scoped to the caller's own key.
    caller_key = (("ramino-caller-key", uuid.uuid4().hex),)
    created = await call(
        "CreateGame",
        game_pb2.CreateGameRequest(
            variant=spec.variant, seats=seats, request_id=uuid.uuid4().hex if ids else ""
        ),
        caller_key,
    )
    name = created.game.name
    result.games_started += 1
    metadata = []
    view = None
    for seat in range(2):
        joined = await call(
            "JoinGame",
            game_pb2.JoinGameRequest(
                name=name,
                seat=seat,
                player_name=f"bot {seat}",
                request_id=f"j{seat}" if ids else "",
            ),
            caller_key,
        )
        metadata.append((("authorization", f"Bearer {joined.seat_token}"),))
        view = joined.view
    assert view is not None
    n = 0
    stalls = 0
    legal: Legal | None = None
    pace = Pace(spec.interval)
    while not stop.is_set():
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            result.games_finished += 1
            return
        if not view.HasField("turn") or stalls:
            if stalls > 20:
                raise RuntimeError("no seat can move")
            await asyncio.sleep(0.01 * stalls)
            view = (await call("GetGame", game_pb2.GetGameRequest(name=name), metadata[0])).view
            if not view.HasField("turn") and view.status != game_pb2.GAME_STATUS_FINISHED:
                stalls += 1
                continue
        md = metadata[view.turn]
        if spec.think:
            await asyncio.sleep(spec.think)
        await pace.wait()  # paced games keep to their schedule, whatever the latency
        n += 1
        request_id = f"m{n}" if ids else ""
        if legal is not None and legal.version == view.version and legal.moves:
            pass  # the last move's result listed what this seat may do next
        elif spec.ask_every_move or not (
            view.phase == game_pb2.TURN_PHASE_DRAW and view.stock_size > 0
        ):
            got = await call("GetLegalMoves", game_pb2.GetLegalMovesRequest(name=name), md)
            legal = Legal(got.version, got.moves, got.hint)
        else:
            # A turn starts with a draw from the stock: nothing to ask first.
            legal = Legal(view.version, [DRAW], game_pb2.Hint())
        if not legal.moves:
            stalls += 1
            continue
        stalls = 0
        rpc, request = choose(legal, name, request_id)
        answer = (await call(rpc, request, md)).result
        view = answer.view
        legal = None
        if answer.legal_moves and not spec.ask_every_move:
            legal = Legal(view.version, answer.legal_moves, answer.hint)


SESSION_FIELDS = {
    f.name.title().replace("_", ""): f.name
    for f in game_pb2.PlayGameRequest.DESCRIPTOR.oneofs_by_name["message"].fields
    if f.name != "start"
}
"""The PlayGameRequest field of each move RPC (``DrawFromStock``: ``draw_from_stock``)."""


async def play_seat_session(
    caller: Caller,
    stub: Any,
    name: str,
    seat: int,
    md: Any,
    stop: asyncio.Event,
    pace: Pace,
    hints: bool = False,
) -> bool:
    """One seat of a game on its PlayGame session, moving from what the
    session pushes (no call per move), each move on the game's schedule
    (``pace``, shared by its seats); True when the game ended. A move's
    latency is from its send to its answer. ``hints``: the session asks
    for the hint and the answers' views (else it gets neither, and
    discards without a hint)."""
    result = caller.result
    call = stub.PlayGame(metadata=md, timeout=RPC_TIMEOUT * 10)
    start = game_pb2.PlayGameStart(name=name, hints=hints, answer_views=hints)
    await call.write(game_pb2.PlayGameRequest(start=start))
    if caller.recording:
        result.sent += 1
    n = 0
    sent_at = 0.0
    ended = closing = False
    while True:
        message = await call.read()
        if message is grpc.aio.EOF:
            return ended
        kind = message.WhichOneof("payload")
        options = None
        if kind == "answer":
            if message.answer.HasField("error"):
                result.errors[f"PlayGame answer {message.answer.error.code}"] += 1
                raise RuntimeError(f"a move was refused: {message.answer.error.message}")
            if caller.recording:
                result.latencies.setdefault("PlayGame move", []).append(
                    time.perf_counter() - sent_at
                )
                result.moves += 1
                if caller.moves_target and result.moves >= caller.moves_target:
                    caller.enough.set()
            answer = message.answer.result
            ended = any(e.WhichOneof("event") in ENDS for e in answer.events)
            options = answer.options
        elif kind == "event":
            ended = ended or message.event.WhichOneof("event") in ENDS
            options = message.options if message.HasField("options") else None
        elif message.HasField("options"):
            options = message.options
        if ended or stop.is_set():
            if not closing:
                closing = True
                await call.done_writing()
            continue
        if options is not None and options.moves:
            await pace.wait()  # paced games keep to their schedule, whatever the latency
            n += 1
            rpc, request = choose(
                Legal(options.version, options.moves, options.hint),
                "",
                f"s{seat}m{n}",  # a game's request ids are its seats' together
            )
            sent_at = time.perf_counter()
            await call.write(game_pb2.PlayGameRequest(**{SESSION_FIELDS[rpc]: request}))
            if caller.recording:
                result.sent += 1


async def play_game_sessions(
    caller: Caller, spec: PhaseSpec, stop: asyncio.Event, worker: int
) -> None:
    """One game from creation to its end, each seat on its session."""
    ids = spec.request_ids
    pin = worker if spec.sticky else None
    seats = [game_pb2.SeatConfig(player_name=f"bot {i}") for i in range(spec.seats)]
    caller_key = (("ramino-caller-key", uuid.uuid4().hex),)
    created = await caller.call(
        "CreateGame",
        game_pb2.CreateGameRequest(
            variant=spec.variant, seats=seats, request_id=uuid.uuid4().hex if ids else ""
        ),
        caller_key,
        pin,
    )
    name = created.game.name
    caller.result.games_started += 1
    metadata = []
    for seat in range(spec.seats):
        joined = await caller.call(
            "JoinGame",
            game_pb2.JoinGameRequest(name=name, seat=seat, player_name=f"bot {seat}"),
            caller_key,
            pin,
        )
        metadata.append((("authorization", f"Bearer {joined.seat_token}"),))
    stub = caller.stub(pin)
    pace = Pace(spec.interval)
    ended = await asyncio.gather(
        *(
            play_seat_session(caller, stub, name, seat, md, stop, pace, spec.session_hints)
            for seat, md in enumerate(metadata)
        )
    )
    if any(ended):
        caller.result.games_finished += 1


async def games_worker(caller: Caller, spec: PhaseSpec, stop: asyncio.Event, worker: int) -> None:
    play = play_game_sessions if spec.session else play_game
    while not stop.is_set():
        try:
            await play(caller, spec, stop, worker)
        except grpc.aio.AioRpcError as e:
            caller.result.games_abandoned += 1
            caller.result.client_errors[f"{e.code().name}: {e.details()}"[:120]] += 1
            await asyncio.sleep(0.01)
        except (RuntimeError, ValueError) as e:
            caller.result.games_abandoned += 1
            caller.result.client_errors[str(e)[:120]] += 1
            await asyncio.sleep(0.01)


async def run_phase(spec: PhaseSpec) -> PhaseResult:
    """One phase in this process: ``concurrency`` workers, a warm-up that is
    not measured, then the measured window."""
    result = PhaseResult()
    options = [("grpc.max_receive_message_length", 16 << 20)]
    if spec.connections > 1:  # a channel of its own per connection (no shared subchannel)
        options.append(("grpc.use_local_subchannel_pool", 1))
    addresses = [a for a in spec.addresses for _ in range(spec.connections)]
    channels = [grpc.aio.insecure_channel(a, options=options) for a in addresses]
    try:
        caller = Caller(channels, result)
        delay = spec.start_at - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        stop = asyncio.Event()
        work: Callable[[int], Coroutine[Any, Any, None]]
        if spec.kind == "baseline":

            def work(i: int) -> Coroutine[Any, Any, None]:
                return baseline_worker(caller, stop, spec.interval)
        else:

            def work(i: int) -> Coroutine[Any, Any, None]:
                return games_worker(caller, spec, stop, spec.client * 7919 + i)

        tasks = [asyncio.create_task(work(i)) for i in range(spec.concurrency)]
        await asyncio.sleep(spec.warmup)
        result.t0, cpu0 = time.time(), time.process_time()
        caller.recording = True
        if spec.kind == "games" and spec.moves:
            caller.moves_target = spec.moves
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(caller.enough.wait(), spec.max_seconds)
        else:
            await asyncio.sleep(spec.seconds)
        caller.recording = False
        result.t1, result.cpu = time.time(), time.process_time() - cpu0
        stop.set()
        _, pending = await asyncio.wait(tasks, timeout=DRAIN_SECONDS)
        for task in pending:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for channel in channels:
            await channel.close()
    return result


def _client_process(spec: PhaseSpec, queue: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops everything
    try:
        queue.put((spec.client, asyncio.run(run_phase(spec)), ""))
    except Exception as e:  # noqa: BLE001 - reported by the parent
        queue.put((spec.client, None, f"{type(e).__name__}: {e}"))


# --- processes: servers, redis-server, cleanup ----------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def last_line(path: Path, prefix: str = "") -> str:
    try:
        lines = [ln.strip() for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    for line in reversed(lines):
        if line.startswith(prefix):
            return line
    return lines[-1] if lines else ""


@dataclass
class Server:
    address: str
    process: subprocess.Popen[bytes]
    log: Path


class Processes:
    """Everything this run started, stopped in reverse order by ``close``."""

    def __init__(self, keep: bool) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="ramino-load-"))
        self.keep = keep
        self._started: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.clients: list[Any] = []
        self.store_pids: list[int] = []  # redis-server, when started here
        self.redis_ports: list[int] = []  # the primaries to read commandstats from

    def start(self, what: str, argv: list[str], log: Path, **kw: Any) -> subprocess.Popen[bytes]:
        with log.open("ab") as out:
            p = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches this script only; it stops them
                **kw,
            )
        self._started.append((what, p))
        return p

    def stop(self, p: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    p.kill()
                p.wait(5)
        self._started = [(w, q) for w, q in self._started if q is not p]

    def close(self) -> None:
        for c in self.clients:
            if c.is_alive():
                c.terminate()
            c.join(5)
        self.clients.clear()
        for _, p in reversed(list(self._started)):
            self.stop(p)
        if self.keep:
            print(f"(kept {self.dir})")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def start_redis(procs: Processes) -> str:
    exe = shutil.which("redis-server")
    if exe is None:
        raise BenchError("no redis-server on PATH")
    port = free_port()
    rdir = procs.dir / f"redis-{port}"
    rdir.mkdir()
    argv = [
        exe,
        "--bind", "127.0.0.1",
        "--port", str(port),
        "--dir", str(rdir),
        "--save", "",
        "--appendonly", "yes",
        "--appendfsync", "everysec",
        "--daemonize", "no",
        "--protected-mode", "yes",
    ]  # fmt: skip
    log = rdir / "redis.log"
    p = procs.start("redis-server", argv, log, cwd=rdir)
    procs.store_pids.append(p.pid)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if p.poll() is not None:
            raise BenchError(f"redis-server exited ({p.returncode}): {last_line(log)}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5) as s:
            s.sendall(b"PING\r\n")
            if s.recv(64).startswith(b"+PONG"):
                procs.redis_ports = [port]
                return f"redis://127.0.0.1:{port}/0"
        time.sleep(0.05)
    raise BenchError("redis-server did not answer PING")


def start_redis_cluster(procs: Processes, wait: int = 0) -> str:
    """A Redis Cluster on loopback: three primaries with a replica each
    (``appendfsync everysec``, as ``start_redis``); its store URL, with
    ``?wait=N`` when appends are to wait for N replicas."""
    import redis

    exe, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if exe is None or cli is None:
        raise BenchError("no redis-server or redis-cli on PATH")
    ports = []
    for _ in range(6):
        port, bus = free_port(), free_port()
        ndir = procs.dir / f"cluster-{port}"
        ndir.mkdir()
        argv = [
            exe,
            "--bind", "127.0.0.1",
            "--port", str(port),
            "--cluster-enabled", "yes",
            "--cluster-port", str(bus),
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "2000",
            "--dir", str(ndir),
            "--save", "",
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--daemonize", "no",
            "--protected-mode", "yes",
        ]  # fmt: skip
        p = procs.start("redis-server (cluster)", argv, ndir / "redis.log", cwd=ndir)
        procs.store_pids.append(p.pid)
        ports.append(port)

    def until(check: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError):
                if check():
                    return
            time.sleep(0.1)
        raise BenchError(what)

    def pings(port: int) -> Callable[[], bool]:
        return lambda: bool(redis.Redis(port=port).ping())

    for port in ports:
        until(pings(port), f"no PING on {port}")
    addresses = [f"127.0.0.1:{port}" for port in ports]
    made = subprocess.run(
        [cli, "--cluster", "create", *addresses, "--cluster-replicas", "1", "--cluster-yes"],
        capture_output=True,
        timeout=60,
    )
    if made.returncode != 0:
        raise BenchError(f"redis-cli --cluster create failed: {made.stderr.decode()[-300:]}")

    def healthy() -> bool:
        for port in ports:
            r: Any = redis.Redis(port=port)
            state = r.execute_command("CLUSTER", "INFO")
            text = state if isinstance(state, str) else str(state)
            if "cluster_state:ok" not in text and "'cluster_state': 'ok'" not in text:
                return False
            repl = r.info("replication")
            if repl["role"] == "slave" and repl.get("master_link_status") != "up":
                return False
        return True

    until(healthy, "the Redis Cluster did not become healthy")
    procs.redis_ports = [
        port for port in ports if redis.Redis(port=port).info("replication")["role"] == "master"
    ]
    return "redis+cluster://" + ",".join(addresses) + (f"?wait={wait}" if wait else "")


def flush_cluster(procs: Processes) -> None:
    """Empties the cluster's primaries: a clean store for the next config."""
    import redis

    for port in procs.redis_ports:
        with redis.Redis(port=port) as r:
            r.flushall()


def start_servers(
    procs: Processes, store: str, replicas: int, log_level: str, tag: str, workers: int = 1
) -> list[Server]:
    env = dict(os.environ)
    env["RAMINO_TOKEN_SECRET"] = secrets.token_hex(32)  # the replicas accept the same tokens
    env.pop("RAMINO_METRICS_PORT", None)
    servers = []
    for i in range(replicas):
        port = free_port()
        log = procs.dir / f"{tag}-server-{i}.log"
        argv = [
            sys.executable, "-m", "ramino", "serve",
            "--host", "127.0.0.1",
            "--port", str(port),
            "--store", store,
            "--grace", "1",
            "--log-level", log_level,
            "--workers", str(workers),
        ]  # fmt: skip
        p = procs.start(f"server {i}", argv, log, cwd=procs.dir, env=env)
        servers.append(Server(f"127.0.0.1:{port}", p, log))
    try:
        for s in servers:
            wait_serving(s)
    except BaseException:
        for s in servers:  # none of them is used: stop them now, not at the end
            procs.stop(s.process)
        raise
    return servers


def wait_serving(server: Server) -> None:
    deadline = time.monotonic() + START_SECONDS
    with grpc.insecure_channel(server.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                reason = last_line(server.log)
                with contextlib.suppress(ValueError):
                    reason = str(json.loads(reason).get("event", reason))
                raise ServerRefused(
                    f"server {server.address} exited ({server.process.returncode}): {reason}"
                )
            try:
                answer = stub.Check(health_pb2.HealthCheckRequest(), timeout=0.5)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.05)
    raise BenchError(f"server {server.address} not serving after {START_SECONDS:.0f} s")


# --- CPU, from /proc ----------------------------------------------------------------


def child_pids(pid: int) -> list[int]:
    """The children of a process (the workers of ``ramino serve --workers N``)."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children += [int(x) for x in (task / "children").read_text().split()]
        except (OSError, ValueError):
            pass
    return children


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and of its live descendants."""
    return proc_cpu(pid) + sum(tree_cpu(c) for c in child_pids(pid))


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system, all threads) of a process; 0 if gone."""
    try:
        rest = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of all cores."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return float(sum(fields) - idle), float(sum(fields))


class Sampler:
    """Samples the CPU of the servers, of the store's process (redis-server) and
    of the machine every 0.1 s during a phase."""

    def __init__(
        self, pids: list[int], store_pids: list[int], redis_ports: list[int] | None = None
    ) -> None:
        self.pids = pids
        self.store_pids = store_pids
        self.redis_ports = redis_ports or []
        self.samples: list[tuple[float, float, float, float, float]] = []
        self.commands: list[tuple[float, Counter[str]]] = []
        self.redis_clients: list[Any] = []
        if self.redis_ports:
            import redis

            self.redis_clients = [redis.Redis(port=port) for port in self.redis_ports]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            busy, total = machine_cpu()
            server = sum(tree_cpu(p) for p in self.pids)
            store = sum(proc_cpu(p) for p in self.store_pids)
            self.samples.append((time.time(), server, store, busy, total))
            if self.redis_ports:
                self.commands.append((time.time(), redis_commands(self.redis_clients)))
            if self._stop.wait(0.1):
                return

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        for client in self.redis_clients:
            client.close()

    def between(self, t0: float, t1: float) -> tuple[float | None, float | None, float | None]:
        """(server CPU, store CPU, in cores; machine busy fraction) over [t0, t1]."""
        inside = [s for s in self.samples if t0 - 0.1 <= s[0] <= t1 + 0.1]
        if len(inside) < 2:
            return None, None, None
        a, b = inside[0], inside[-1]
        wall = b[0] - a[0]
        if wall <= 0:
            return None, None, None
        server = (b[1] - a[1]) / wall if self.pids else None
        store = (b[2] - a[2]) / wall if self.store_pids else None
        machine = (b[3] - a[3]) / (b[4] - a[4]) if b[4] > a[4] else None
        return server, store, machine

    def commands_between(self, t0: float, t1: float) -> Counter[str]:
        """Redis commands served over [t0, t1] (the samples nearest inside)."""
        inside = [c for t, c in self.commands if t0 - 0.1 <= t <= t1 + 0.1]
        if len(inside) < 2:
            return Counter()
        return inside[-1] - inside[0]


def redis_commands(clients: list[Any]) -> Counter[str]:
    """Calls per command (INFO commandstats), summed over the nodes of
    ``clients``; the INFO calls that read them are left out."""
    import redis

    total: Counter[str] = Counter()
    for r in clients:
        with contextlib.suppress(redis.RedisError):
            for name, stats in r.info("commandstats").items():
                total[name.removeprefix("cmdstat_")] += int(stats["calls"])
    total.pop("info", None)
    return total


# --- server-side latencies, from the servers' canonical log lines ----------------


def server_latencies(logs: list[Path], t0: float, t1: float) -> dict[str, list[float]]:
    """The handler times (seconds) the servers logged for RPCs that ended in [t0, t1]."""
    out: dict[str, list[float]] = {}
    for path in logs:
        with contextlib.suppress(OSError), path.open(errors="replace") as f:
            for line in f:
                if '"latency_ms"' not in line:
                    continue
                try:
                    rec = json.loads(line)
                    ts = datetime.datetime.fromisoformat(rec["timestamp"]).timestamp()
                except (ValueError, KeyError):
                    continue
                if t0 <= ts <= t1:
                    out.setdefault(rec["rpc"], []).append(rec["latency_ms"] / 1000)
    return out


def server_problems(logs: list[Path]) -> Counter[str]:
    """Error and warning lines the servers logged, by message."""
    found: Counter[str] = Counter()
    for path in logs:
        with contextlib.suppress(OSError), path.open(errors="replace") as f:
            for line in f:
                if '"level": "error"' in line or '"level": "warning"' in line:
                    with contextlib.suppress(ValueError):
                        rec = json.loads(line)
                        found[f"{rec.get('level')}: {rec.get('event')}"] += 1
                elif line.startswith("Traceback"):
                    found["traceback"] += 1
    return found


# --- one run: baseline, then games, on the same server(s) ---------------------------


@dataclass
class RunConfig:
    variant: str
    games: int
    seconds: float
    warmup: float
    moves: int
    max_seconds: float
    clients: int
    request_ids: bool
    think: float
    sticky: bool
    ask_every_move: bool
    rate: str  # "" (closed loop), moves/s for all games together, or "half-check"
    workers: int = 1  # ramino serve --workers of each server started here
    connections: int = 1  # client connections to each address
    profile: str = ""  # py-spy's raw samples of the first server in the games' window, to here
    session: bool = False  # the seats play on PlayGame sessions (else unary moves)
    seats: int = 2  # seats a game (on sessions: every seat an SDK-like client)
    session_hints: bool = False  # sessions ask for the hint and the answers' views


@dataclass
class Phase:
    result: PhaseResult
    server_cpu: float | None
    store_cpu: float | None
    machine_busy: float | None
    server_lat: dict[str, list[float]]
    commands: Counter[str] = field(default_factory=Counter)
    """Redis commands served by the primaries in the measured window."""


@dataclass
class RunOutcome:
    label: str
    store: str
    replicas: int
    baseline: Phase
    games: Phase
    problems: Counter[str]
    interval: float = 0.0  # paced games: seconds between a game's moves
    paced_check: Phase | None = None  # Check calls paced as the games were


def run_clients(procs: Processes, spec: PhaseSpec, clients: int) -> PhaseResult:
    if clients == 1:
        return asyncio.run(run_phase(spec))
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    share = [spec.concurrency // clients + (i < spec.concurrency % clients) for i in range(clients)]
    spec.start_at = time.time() + 3.0  # spawning takes a moment
    moves = [spec.moves // clients + (i < spec.moves % clients) for i in range(clients)]
    for i in range(clients):
        part = PhaseSpec(**{**spec.__dict__, "concurrency": share[i], "client": i})
        part.moves = moves[i] if spec.moves else 0
        p = ctx.Process(target=_client_process, args=(part, queue), daemon=True)
        procs.clients.append(p)
        p.start()
    timeout = 3.0 + spec.warmup + (spec.max_seconds if spec.moves else spec.seconds)
    timeout += DRAIN_SECONDS + 30
    total = PhaseResult()
    for _ in range(clients):
        try:
            _, result, error = queue.get(timeout=timeout)
        except Exception as e:  # queue.Empty
            raise BenchError(f"a client process did not report in {timeout:.0f} s") from e
        if result is None:
            raise BenchError(f"a client process failed: {error}")
        total.merge(result)
    for p in procs.clients:
        p.join(10)
    procs.clients.clear()
    return total


def paced_rate(rate: str, baseline: PhaseResult) -> float:
    """Moves per second to offer: a number, or half the baseline's Check rate."""
    if rate == "half-check":
        return max(len(baseline.latencies.get("Check", [])) / baseline.window / 2, 1.0)
    return float(rate)


def run_once(
    procs: Processes,
    cfg: RunConfig,
    addresses: list[str],
    servers: list[Server],
    label: str,
    store: str,
) -> RunOutcome:
    pids = [s.process.pid for s in servers]
    logs = [s.log for s in servers]
    phases: dict[str, Phase] = {}
    # With --rate, a last phase paces Check calls like the games: the floor
    # of the latency at that rate.
    interval = 0.0
    for phase_name in ("baseline", "games", "paced baseline")[: 3 if cfg.rate else 2]:
        kind = "games" if phase_name == "games" else "baseline"
        if phase_name == "games" and cfg.rate:
            rate = paced_rate(cfg.rate, phases["baseline"].result)
            interval = cfg.games / rate
            print(
                f"  [{label}] paced: {rate:.0f} moves/s offered, a move per game every "
                f"{interval * 1000:.1f} ms",
                flush=True,
            )
        spec = PhaseSpec(
            kind=kind,
            addresses=addresses,
            concurrency=cfg.games,
            variant=cfg.variant,
            warmup=cfg.warmup,
            seconds=cfg.seconds,
            moves=cfg.moves if kind == "games" else 0,
            max_seconds=cfg.max_seconds,
            request_ids=cfg.request_ids,
            start_at=0.0,
            think=cfg.think if kind == "games" else 0.0,
            sticky=cfg.sticky,
            ask_every_move=cfg.ask_every_move,
            interval=interval if phase_name != "baseline" else 0.0,
            connections=cfg.connections,
            session=cfg.session and kind == "games",
            seats=cfg.seats,
            session_hints=cfg.session_hints,
        )
        what = f"{cfg.games} Check loops" if kind == "baseline" else f"{cfg.games} games"
        print(f"  [{label}] {phase_name}: {what}, {cfg.warmup:g} s warm-up ...", flush=True)
        ports = procs.redis_ports if servers and kind == "games" else []
        profiler = None
        if cfg.profile and servers and phase_name == "games":
            profiler = Profiler(pids[0], cfg.profile, cfg.warmup, cfg.seconds)
        with Sampler(pids, procs.store_pids if servers else [], ports) as sampler:
            result = run_clients(procs, spec, cfg.clients)
        if profiler is not None:
            profiler.finish()
        server_cpu, store_cpu, machine = sampler.between(result.t0, result.t1)
        commands = sampler.commands_between(result.t0, result.t1)
        phases[phase_name] = Phase(result, server_cpu, store_cpu, machine, {}, commands)
    for s in servers:
        procs.stop(s.process)  # flushes the logs before they are read
    for phase in phases.values():
        phase.server_lat = server_latencies(logs, phase.result.t0, phase.result.t1)
    return RunOutcome(
        label,
        store,
        len(addresses),
        phases["baseline"],
        phases["games"],
        server_problems(logs),
        interval,
        phases.get("paced baseline"),
    )


# --- the profile (--profile) --------------------------------------------------------


class Profiler:
    """py-spy (the ``bench`` extra) sampling a server's Python stacks for the
    measured window of the games (started after the warm-up): its raw
    samples go to ``path``, and :func:`profile_summary` prints where the
    server's time went."""

    def __init__(self, pid: int, path: str, warmup: float, seconds: float) -> None:
        self.path = path
        self.error = ""
        self._process: subprocess.Popen[bytes] | None = None
        spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which(
            "py-spy"
        )
        if spy is None:
            self.error = "py-spy not found: .venv/bin/pip install -e '.[bench]' (or py-spy)"
            return
        argv = [
            spy, "record", "--pid", str(pid), "--rate", "250", "--format", "raw",
            "--duration", str(max(int(seconds), 1)), "--nonblocking", "--output", path,
        ]  # fmt: skip
        self._timer = threading.Timer(warmup, self._start, [argv])
        self._timer.start()

    def _start(self, argv: list[str]) -> None:
        self._process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def finish(self) -> None:
        if self.error:
            print(f"   profile: {self.error}")
            return
        self._timer.join()
        if self._process is None:
            return
        try:
            _, err = self._process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self._process.kill()
            _, err = self._process.communicate()
        if self._process.returncode != 0 or not Path(self.path).exists():
            print(f"   profile: py-spy failed: {err.decode(errors='replace').strip()[-300:]}")
            return
        profile_summary(self.path)


def profile_summary(path: str, top: int = 40) -> None:
    """The functions of a py-spy raw profile by share of the samples (inclusive:
    the function and what it called), those of ramino first."""
    inclusive: Counter[str] = Counter()
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        seen = set()
        for frame in stack.split(";"):
            name, _, where = frame.partition(" (")
            key = f"{name} ({where.rsplit(':', 1)[0]})"
            if key not in seen:
                seen.add(key)
                inclusive[key] += n
    print(f"   profile of the games' window: {total} samples in {path} (py-spy raw format)")
    mine = [(k, v) for k, v in inclusive.most_common() if "ramino/" in k]
    for key, n in mine[:top]:
        print(f"     {n / max(total, 1) * 100:5.1f}%  {key}")


# --- the report -------------------------------------------------------------------


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))]


def percent(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.0f}%"


def ms(x: float | None, digits: int = 2) -> str:
    return "-" if x is None or math.isnan(x) else f"{x * 1000:.{digits}f}"


def row(cells: list[str]) -> str:
    widths = [26, 8, 9, 8, 8, 8, 9, 9, 7]
    return "  ".join(
        c.ljust(w) if i == 0 else c.rjust(w)
        for i, (c, w) in enumerate(zip(cells, widths, strict=False))
    )


def stat_cells(values: list[float], window: float, server: list[float] | None) -> list[str]:
    if not values:
        return ["0", "0", "-", "-", "-", "-", "-"]
    return [
        str(len(values)),
        f"{len(values) / window:.0f}",
        ms(pct(values, 50)),
        ms(pct(values, 99)),
        ms(max(values)),
        ms(pct(server, 50), 3) if server else "-",
        ms(pct(server, 99), 3) if server else "-",
    ]


def summary_numbers(out: RunOutcome) -> dict[str, float]:
    g, b = out.games.result, out.baseline.result
    game_lat = [x for rpc, v in g.latencies.items() if rpc in GAME_RPCS for x in v]
    checks = b.latencies.get("Check", [])
    return {
        "moves_s": g.moves / g.window,
        "rpcs_s": len(game_lat) / g.window,
        "p99": pct(game_lat, 99) if game_lat else math.nan,
        "worst_p99": max((pct(v, 99) for v in g.latencies.values() if v), default=math.nan),
        "checks_s": len(checks) / b.window,
        "check_p50": pct(checks, 50) if checks else math.nan,
        "check_p99": pct(checks, 99) if checks else math.nan,
    }


def commands_per_move(phase: Phase, top: int = 10) -> str:
    """The Redis commands of the window per move: the total, then the most
    called (every call counts: creates, joins, reads and sweeps too, and the
    commands a script runs count beside its EVALSHA)."""
    moves = max(phase.result.moves, 1)
    total = sum(phase.commands.values())
    parts = [f"{name} {calls / moves:.2f}" for name, calls in phase.commands.most_common(top)]
    return f"{total / moves:.2f} ({', '.join(parts)})"


def other_cpu(phase: Phase) -> float | None:
    """Cores used by processes outside this run (needs the servers' pids)."""
    if phase.machine_busy is None or phase.server_cpu is None:
        return None
    r = phase.result
    ours = phase.server_cpu + (phase.store_cpu or 0) + r.cpu / r.window
    return max(phase.machine_busy * (os.cpu_count() or 1) - ours, 0.0)


def cpu_per_call(phase: Phase) -> float | None:
    """Server CPU seconds (all replicas) per call completed in the window."""
    if phase.server_cpu is None:
        return None
    r = phase.result
    calls = sum(len(v) for v in r.latencies.values())
    return phase.server_cpu * r.window / max(calls, 1)


def cpu_text(phase: Phase, replicas: int, clients: int) -> str:
    r = phase.result
    parts = []
    per_call = cpu_per_call(phase)
    if phase.server_cpu is not None and per_call is not None:
        parts.append(
            f"server {phase.server_cpu * 100:.0f}% of a core ({replicas} process(es), "
            f"{per_call * 1000:.2f} ms CPU a call)"
        )
    else:
        parts.append("server n/a (not started here)")
    if phase.store_cpu is not None:
        parts.append(f"redis-server {phase.store_cpu * 100:.0f}%")
    parts.append(f"client {r.cpu / r.window * 100:.0f}% of a core ({clients} process(es))")
    if phase.machine_busy is not None:
        cores = os.cpu_count() or 1
        parts.append(f"machine {phase.machine_busy * 100:.0f}% busy of {cores} cores")
        other = other_cpu(phase)
        if other is not None:
            parts.append(f"processes outside this run ~{other * 100:.0f}% of a core")
    return ", ".join(parts)


def saturation(phase: Phase, replicas: int, clients: int) -> str:
    """Which side runs out of CPU first: one Python process is about one core."""
    r = phase.result
    client = r.cpu / r.window / clients
    server = None if phase.server_cpu is None else phase.server_cpu / replicas
    hot = []
    if server is not None and server >= 0.85:
        hot.append("the server process(es)")
    if client >= 0.85:
        hot.append("the client process(es)")
    if phase.machine_busy is not None and phase.machine_busy >= 0.9:
        hot.append("the whole machine")
    text = "saturated: " + (", ".join(hot) if hot else "nothing (CPU left on both sides)")
    other = other_cpu(phase)
    if other is not None and other >= 0.25:
        text += (
            f"; processes outside this run took ~{other * 100:.0f}% of a core, so the server "
            "got less than on an idle machine (its CPU per call is the steadier figure)"
        )
    return text


def print_report(out: RunOutcome, cfg: RunConfig) -> None:
    g, b = out.games.result, out.baseline.result
    print()
    print(
        f"== {out.label}: variant {cfg.variant}, {cfg.games} concurrent games, store {out.store}, "
        f"{out.replicas} replica(s) of {cfg.workers} worker(s), {cfg.connections} "
        f"connection(s) each, {cfg.clients} client process(es) (grpc.aio) =="
    )
    print(
        f"   measured {b.window:.1f} s (baseline) and {g.window:.1f} s (games) "
        f"after {cfg.warmup:g} s of warm-up each; "
        f"request ids {'on' if cfg.request_ids else 'off'}; think time {cfg.think * 1000:g} ms; "
        f"calls {'sticky per game' if cfg.sticky else 'round-robin per call'}"
    )
    print(
        row(["phase / rpc", "count", "calls/s", "p50 ms", "p99 ms", "max ms", "srv p50", "srv p99"])
    )
    checks = stat_cells(
        b.latencies.get("Check", []), b.window, out.baseline.server_lat.get("Check")
    )
    print(row(["baseline Health/Check", *checks]))
    for rpc in GAME_RPCS:
        if rpc in g.latencies:
            cells = stat_cells(g.latencies[rpc], g.window, out.games.server_lat.get(rpc))
            print(row([f"games {rpc}", *cells]))
    if "PlayGame move" in g.latencies:  # --session: from a move's send to its answer
        print(
            row(["games PlayGame move", *stat_cells(g.latencies["PlayGame move"], g.window, None)])
        )
    moves = [x for rpc in (*MOVE_RPCS, "PlayGame move") for x in g.latencies.get(rpc, [])]
    srv_moves = [x for rpc in MOVE_RPCS for x in out.games.server_lat.get(rpc, [])]
    every = [x for rpc in GAME_RPCS for x in g.latencies.get(rpc, [])]
    srv_every = [x for rpc in GAME_RPCS for x in out.games.server_lat.get(rpc, [])]
    print(row(["games: all moves", *stat_cells(moves, g.window, srv_moves)]))
    print(row(["games: all RPCs", *stat_cells(every, g.window, srv_every)]))
    print(
        "   (srv = handler time in the server's log line; the rest of the client's latency is "
        "transport and waiting to be accepted)"
    )
    n = summary_numbers(out)
    print(
        f"   moves/s {n['moves_s']:.0f} ({g.moves} moves; games in the phase: "
        f"started {g.games_started}, finished {g.games_finished}, abandoned {g.games_abandoned})"
    )
    if g.moves:
        calls = sum(len(v) for k, v in g.latencies.items() if k in GAME_RPCS)
        print(
            f"   a move: {calls / g.moves:.2f} calls, {g.sent / g.moves:.2f} session messages "
            f"from clients; calls + inbound messages {(calls + g.sent) / g.moves:.2f} "
            f"({cfg.seats} seats a game{', on sessions' if cfg.session else ''})"
        )
    print(
        f"   baseline Check: {n['checks_s']:.0f} calls/s, p50 {ms(n['check_p50'])} ms, "
        f"p99 {ms(n['check_p99'])} ms"
    )
    print(f"   CPU, baseline: {cpu_text(out.baseline, out.replicas, cfg.clients)}")
    print(f"   CPU, games:    {cpu_text(out.games, out.replicas, cfg.clients)}")
    print(f"   games phase, {saturation(out.games, out.replicas, cfg.clients)}")
    if out.games.commands:
        print(f"   Redis commands per move: {commands_per_move(out.games)}")
    errors = g.errors + b.errors
    if errors:
        print(f"   RPC errors: {dict(errors)}")
    if g.client_errors:
        print(f"   client-side errors: {dict(g.client_errors)}")
    if out.problems:
        print(f"   server log: {dict(out.problems)}")
    if out.paced_check is not None:
        paced = out.paced_check.result.latencies.get("Check", [])
        cells = stat_cells(paced, out.paced_check.result.window, None)
        print(row(["paced Health/Check", *cells]))
    if cfg.rate:
        offered = cfg.games / out.interval
        print(
            f"   paced: {offered:.0f} moves/s offered ({cfg.rate}), {n['moves_s']:.0f} achieved"
            + ("" if n["moves_s"] >= 0.95 * offered else " -> the server did NOT keep up")
        )
    elif not cfg.think:
        print(
            f"   closed loop: {cfg.games} calls always in flight, so mean latency = "
            f"{cfg.games} / calls/s ({cfg.games / max(n['rpcs_s'], 1e-9) * 1000:.0f} ms here); "
            f"p99 <= 10 ms needs well over {cfg.games * 100} calls/s"
        )
    half = n["checks_s"] / 2
    print("   targets (printed, not asserted):")
    met = "met" if n["p99"] <= P99_TARGET_MS / 1000 else "NOT met"
    print(
        f"     p99 <= {P99_TARGET_MS:g} ms: all game RPCs p99 {ms(n['p99'])} ms -> {met}; "
        f"worst single RPC p99 {ms(n['worst_p99'])} ms"
    )
    if cfg.rate:
        print(
            f"     moves/s >= half the baseline calls/s ({half:.0f}): paced games move at the "
            "offered rate; the throughput is measured in a closed loop (without --rate)"
        )
        return
    met = "met" if n["moves_s"] >= half else "NOT met"
    print(
        f"     moves/s >= half the baseline calls/s ({half:.0f}): {n['moves_s']:.0f} -> {met} "
        f"(ratio {n['moves_s'] / max(n['checks_s'], 1e-9):.2f}); "
        f"{n['rpcs_s'] / max(n['moves_s'], 1e-9):.2f} RPCs a move: game RPCs/s {n['rpcs_s']:.0f}, "
        f"ratio {n['rpcs_s'] / max(n['checks_s'], 1e-9):.2f} of the baseline"
    )


# --- entry points -------------------------------------------------------------------


def check_loopback(address: str) -> None:
    host = address.rsplit(":", 1)[0]
    if host not in LOOPBACK and not host.startswith("127."):
        raise BenchError(f"{address}: this bench only talks to the loopback interface")


def resolve_store(procs: Processes, store: str, tag: str, cluster_wait: int = 0) -> str:
    if store == "sqlite":
        return f"sqlite:{procs.dir / tag / 'ramino.db'}"
    if store == "redis":
        return start_redis(procs)
    if store == "redis-cluster":
        return start_redis_cluster(procs, cluster_wait)
    if store.startswith("redis://"):
        check_loopback(store.removeprefix("redis://").split("/", 1)[0])
    if store.startswith("redis+cluster://"):
        for node in store.removeprefix("redis+cluster://").split("?", 1)[0].split(","):
            check_loopback(node)
    return store


def single(procs: Processes, args: argparse.Namespace, cfg: RunConfig) -> None:
    if args.target:
        addresses = [a.strip() for a in args.target.split(",") if a.strip()]
        for a in addresses:
            check_loopback(a)
        out = run_once(procs, cfg, addresses, [], "target", f"(running at {args.target})")
    else:
        if args.store == "memory" and args.replicas > 1:
            raise BenchError(
                "--store memory cannot be shared by several replicas (each process has its own)"
            )
        store = resolve_store(procs, args.store, "run", args.cluster_wait)
        if args.replicas > 1 and store.startswith("sqlite:"):
            print("note: the sqlite store is meant for one server per file; sharing it anyway")
        servers = start_servers(
            procs, store, args.replicas, args.server_log_level, "run", cfg.workers
        )
        addresses = [s.address for s in servers]
        out = run_once(procs, cfg, addresses, servers, "run", store)
    print_report(out, cfg)


def compare(procs: Processes, args: argparse.Namespace, cfg: RunConfig) -> None:
    rows: list[tuple[str, RunOutcome | None, str]] = []
    redis_url: str | None = None
    redis_skip = ""
    if shutil.which("redis-server") is None:
        redis_skip = "skipped: no redis-server binary on PATH"
    plan = [("sqlite x1", "sqlite", 1), ("redis x1", "redis", 1), ("redis x3", "redis", 3)]
    for db, (label, kind, replicas) in enumerate(plan):
        if kind == "redis" and redis_skip:
            rows.append((label, None, redis_skip))
            print(f"  [{label}] {redis_skip}")
            continue
        tag = label.replace(" ", "-")
        try:
            if kind == "sqlite":
                store = resolve_store(procs, "sqlite", tag)
            else:
                if redis_url is None:
                    redis_url = start_redis(procs)
                store = redis_url.rsplit("/", 1)[0] + f"/{db}"  # a clean database per config
            servers = start_servers(procs, store, replicas, args.server_log_level, tag)
        except BenchError as e:
            why = f"skipped: {e}"
            if isinstance(e, ServerRefused):
                why = f"skipped, the server refused the store {store}: {e}"
            print(f"  [{label}] {why}")
            rows.append((label, None, why))
            continue
        out = run_once(procs, cfg, [s.address for s in servers], servers, label, store)
        print_report(out, cfg)
        rows.append((label, out, ""))
    print()
    print(
        f"== compare: variant {cfg.variant}, {cfg.games} concurrent games, {cfg.seconds:g} s per "
        f"phase, {cfg.clients} client process(es) =="
    )
    print(
        f"{'config':<10}  {'moves/s':>8}  {'p99 ms':>7}  {'Check/s':>8}  "
        f"{'moves/Check':>11}  {'server CPU':>10}  {'redis CPU':>9}  {'other CPU':>9}  "
        f"{'srv CPU/call':>12}"
    )
    numbers: dict[str, dict[str, float]] = {}
    for label, outcome, why in rows:
        if outcome is None:
            print(f"{label:<10}  {why}")
            continue
        n = numbers[label] = summary_numbers(outcome)
        g = outcome.games
        other = other_cpu(g)
        print(
            f"{label:<10}  {n['moves_s']:>8.0f}  {ms(n['p99']):>7}  {n['checks_s']:>8.0f}  "
            f"{n['moves_s'] / max(n['checks_s'], 1e-9):>11.2f}  {percent(g.server_cpu):>10}  "
            f"{percent(g.store_cpu):>9}  {percent(other):>9}  {ms(cpu_per_call(g)):>9} ms"
        )
        n["cpu_call"] = cpu_per_call(g) or math.nan
    print(
        "(CPU in % of one core during the games phase; other = processes outside this run; "
        "srv CPU/call = server CPU, all replicas, per game RPC)"
    )
    base = numbers.get("sqlite x1")
    for label in ("redis x1", "redis x3"):
        run = numbers.get(label)
        if base is None or run is None:
            print(f"redis overhead ({label} vs sqlite x1): n/a (a run is missing)")
            continue
        print(
            f"redis overhead ({label} vs sqlite x1): "
            f"moves/s x{run['moves_s'] / base['moves_s']:.2f}, "
            f"p99 x{run['p99'] / base['p99']:.2f}, "
            f"server CPU per call x{run['cpu_call'] / base['cpu_call']:.2f} "
            "(moves/s below 1, p99 and CPU above 1: slower)"
        )


def cluster_compare(procs: Processes, args: argparse.Namespace, cfg: RunConfig) -> None:
    """One Redis beside a Redis Cluster (three primaries, a replica each)
    with one, two and three servers, and three servers whose appends WAIT
    for a replica: moves/s and the Redis commands a move costs."""
    plan = [
        ("redis x1", "redis", 1, 0),
        ("cluster x1", "cluster", 1, 0),
        ("cluster x2", "cluster", 2, 0),
        ("cluster x3", "cluster", 3, 0),
        ("cluster x3 WAIT 1", "cluster", 3, 1),
    ]
    redis_url = start_redis(procs)
    single_ports = procs.redis_ports
    cluster_url = start_redis_cluster(procs)
    cluster_ports = procs.redis_ports
    rows: list[tuple[str, RunOutcome]] = []
    for db, (label, kind, replicas, wait) in enumerate(plan):
        tag = label.replace(" ", "-")
        if kind == "redis":
            procs.redis_ports = single_ports
            store = redis_url.rsplit("/", 1)[0] + f"/{db}"
        else:
            procs.redis_ports = cluster_ports
            flush_cluster(procs)
            store = cluster_url + (f"?wait={wait}" if wait else "")
        servers = start_servers(procs, store, replicas, args.server_log_level, tag)
        out = run_once(procs, cfg, [s.address for s in servers], servers, label, store)
        print_report(out, cfg)
        rows.append((label, out))
    print()
    print(
        f"== cluster compare: variant {cfg.variant}, {cfg.games} concurrent games, "
        f"{cfg.seconds:g} s per phase, {cfg.clients} client process(es) =="
    )
    print(
        f"{'config':<18}  {'moves/s':>8}  {'p99 ms':>7}  {'server CPU':>10}  {'redis CPU':>9}  "
        "Redis commands per move (total, then the most called)"
    )
    for label, out in rows:
        n = summary_numbers(out)
        g = out.games
        print(
            f"{label:<18}  {n['moves_s']:>8.0f}  {ms(n['p99']):>7}  {percent(g.server_cpu):>10}  "
            f"{percent(g.store_cpu):>9}  {commands_per_move(g)}"
        )
    print(
        "(redis CPU: every redis-server of the config's store, the cluster's six nodes "
        "included; commands: its primaries only)"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=64, help="concurrent games (and baseline loops)")
    p.add_argument("--variant", default="rummy", help="ramino51, rami51 or rummy")
    p.add_argument("--seconds", type=float, default=15.0, help="measured seconds per phase")
    p.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds per phase")
    p.add_argument("--moves", type=int, default=0, help="stop the games after this many moves")
    p.add_argument("--max-seconds", type=float, default=300.0, help="time cap with --moves")
    p.add_argument("--store", default="sqlite", help="memory | sqlite[:PATH] | redis[://...]")
    p.add_argument("--replicas", type=int, default=1, help="servers sharing the store")
    p.add_argument("--target", help="host:port[,host:port...] of running servers")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes of each server started here (ramino serve --workers; "
        "a store shared across processes: redis or redis-cluster)",
    )
    p.add_argument(
        "--connections",
        type=int,
        default=0,
        help="client connections to each server, calls round-robin over them "
        "(default: 1, or 8 a worker with --workers: SO_REUSEPORT spreads connections)",
    )
    p.add_argument("--clients", type=int, default=1, help="client processes")
    p.add_argument("--compare", action="store_true", help="sqlite x1, redis x1, redis x3")
    p.add_argument(
        "--cluster-compare",
        action="store_true",
        help="redis x1 beside a Redis Cluster with 1, 2 and 3 servers (and 3 with WAIT 1)",
    )
    p.add_argument(
        "--cluster-wait",
        type=int,
        default=0,
        help="with --store redis-cluster: appends wait for this many replicas (WAIT)",
    )
    p.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="a seat waits this long before each move (0: back to back, a closed loop)",
    )
    p.add_argument(
        "--sticky",
        action="store_true",
        help="send all the calls of a game to one replica (default: round-robin per call)",
    )
    p.add_argument(
        "--rate",
        default="",
        help="pace the games: moves per second offered by all games together, each game "
        "on a fixed schedule, or 'half-check' for half the baseline's Check rate "
        "(default: a closed loop, each move as soon as the last one is answered)",
    )
    p.add_argument(
        "--session-hints",
        action="store_true",
        help="with --session: each session asks for the hint and the answers' views "
        "(PlayGameStart.hints, answer_views: what the SDKs' sessions ask for); by "
        "default a session asks for neither and discards without a hint",
    )
    p.add_argument(
        "--session",
        action="store_true",
        help="each seat plays on its PlayGame session, moving from the options it is "
        "pushed (no GetLegalMoves, no call per move)",
    )
    p.add_argument(
        "--seats",
        type=int,
        default=2,
        help="seats a game, with --session (rummy takes 2 to 6)",
    )
    p.add_argument(
        "--ask-every-move",
        action="store_true",
        help="call GetLegalMoves before every move (default: only when the last move's "
        "result lists none, and not for the draw that starts a turn)",
    )
    p.add_argument(
        "--no-request-ids",
        dest="request_ids",
        action="store_false",
        help="send unary moves without a request_id (the SDK always sends one; a "
        "session's moves need one: not with --session)",
    )
    p.add_argument("--server-log-level", default="info", help="the servers' --log-level")
    p.add_argument("--keep", action="store_true", help="keep the temp dir (logs, databases)")
    p.add_argument(
        "--profile",
        default="",
        metavar="FILE",
        help="py-spy (the bench extra) samples the first server started here in the games' "
        "measured window: raw samples to FILE, a summary printed",
    )
    args = p.parse_args(argv)
    if args.games < 1 or args.replicas < 1 or args.clients < 1 or args.seconds <= 0:
        p.error("--games, --replicas, --clients and --seconds must be positive")
    if args.workers < 1 or args.connections < 0:
        p.error("--workers must be positive and --connections not negative")
    if args.rate and args.rate != "half-check":
        try:
            if float(args.rate) <= 0:
                raise ValueError
        except ValueError:
            p.error("--rate is a positive number of moves per second, or half-check")
    if args.session and not args.request_ids:
        p.error("--no-request-ids: a session's moves need request ids (SESSION_REQUEST_ID)")
    if (args.compare or args.cluster_compare) and args.target:
        p.error("--compare and --cluster-compare start their own servers: drop --target")
    cfg = RunConfig(
        variant=args.variant,
        games=args.games,
        seconds=args.seconds,
        warmup=args.warmup,
        moves=args.moves,
        max_seconds=args.max_seconds,
        clients=min(args.clients, args.games),
        request_ids=args.request_ids,
        think=args.think_ms / 1000,
        sticky=args.sticky,
        ask_every_move=args.ask_every_move,
        session=args.session,
        session_hints=args.session_hints,
        seats=args.seats,
        rate=args.rate,
        workers=args.workers,
        connections=args.connections or (8 * args.workers if args.workers > 1 else 1),
        profile=args.profile,
    )

    print(
        f"ramino load: {platform.python_implementation()} {platform.python_version()}, "
        f"grpcio {grpc.__version__}, {os.cpu_count()} cores shared by server(s) and client(s)"
    )
    procs = Processes(args.keep)

    def run() -> None:
        if args.compare:
            compare(procs, args, cfg)
        elif args.cluster_compare:
            cluster_compare(procs, args, cfg)
        else:
            single(procs, args, cfg)

    return run_then_stop(procs, run)


def run_then_stop(procs: Processes, run: Callable[[], None]) -> int:
    """Runs a bench, then stops every process it started: the exit code, 0,
    1 on a :class:`BenchError`, 130 when Ctrl-C or SIGTERM ended it."""

    def terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # Ctrl-C and SIGTERM both end the run through the ``finally`` that stops
    # every process (SIGINT too, in case it came in ignored from a shell's "&").
    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    try:
        run()
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: stopping everything", file=sys.stderr)
        return 130
    finally:
        procs.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
