"""boardgame.io beside Ramino, in one run (issue 17): figures only, nothing asserted.

Issue 17's targets compare Ramino's server CPU a move with boardgame.io's,
the framework a studio would otherwise pick for a turn-based card game. This
measures both on this machine, one after the other in the same run, with the
same number of closed-loop games and the same measured seconds:

1. boardgame.io 0.50.2 (``bench/boardgameio``: ``server.js``, its in-memory
   storage, and ``load.js``, real ``boardgame.io/client`` clients over
   websockets, two a game) playing the two-player rummy of
   ``bench/boardgameio/game.js`` (draw, meld, lay off, discard; hands and
   stock hidden by ``playerView``);
2. the socket.io floor: a bare socket.io server answering an acknowledged
   event, the same number of clients in a closed loop;
3. Ramino with the memory store and with sqlite, through ``bench/load.py``'s
   machinery (its servers, clients and CPU sampler), each run with its gRPC
   Health/Check floor phase first;
4. Ramino on its seat sessions (PlayGame, issue 21), memory store: each seat
   moves from the options pushed to it, one message a move, no call.

The server CPU a move is the server process's CPU time (user + system, all
threads, from /proc, sampled by ``load.Sampler``) over the measured window,
divided by the moves completed in it. The printed table sets the figures
beside the issue's and its targets.

Run from the repository root after ``npm ci`` in ``bench/boardgameio``
(``make bench-vs-boardgameio`` does both):

    .venv/bin/python bench/vs_boardgameio.py --seconds 10
    .venv/bin/python bench/vs_boardgameio.py --games 64 --seconds 20 --warmup 3
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import load

BGIO_DIR = Path(__file__).resolve().parent / "boardgameio"
BGIO_VERSION = "0.50.2"
# The issue's figures, measured before it on this machine (server CPU a move in
# ms, moves/s), and its targets for Ramino's server CPU a move.
ISSUE_BGIO = (0.56, 1823)
ISSUE_MEMORY = (0.86, 1330)
ISSUE_SQLITE = (1.07, 978)
ISSUE_SOCKETIO_FLOOR = 0.08
ISSUE_CHECK_FLOOR = 0.43
TARGET_MEMORY_MS = 0.56
TARGET_SQLITE_MS = 0.7


@dataclass
class NodeRun:
    """One run of ``load.js`` against one ``server.js``."""

    label: str
    stats: dict[str, Any]
    window: float
    server_cpu: float | None  # cores
    machine_busy: float | None  # fraction of all cores
    server_errors: Counter[str] = field(default_factory=Counter)

    @property
    def count(self) -> int:
        """Moves (games) or round trips (the echo floor) in the window."""
        return int(
            self.stats["round_trips"] if self.stats["mode"] == "echo" else self.stats["moves"]
        )

    @property
    def per_second(self) -> float:
        return self.count / self.window

    @property
    def cpu_each(self) -> float | None:
        """Server CPU seconds per move (or round trip)."""
        if self.server_cpu is None or not self.count:
            return None
        return self.server_cpu * self.window / self.count

    @property
    def client_cpu(self) -> float:
        return float(self.stats["client_cpu"]) / self.window


def node_exe() -> str:
    exe = shutil.which("node")
    if exe is None:
        raise load.BenchError("no node on PATH (Node 20 runs bench/boardgameio)")
    if not (BGIO_DIR / "node_modules" / "boardgame.io").is_dir():
        raise load.BenchError(
            f"{BGIO_DIR}/node_modules is missing: npm ci there first "
            "(make bench-vs-boardgameio does)"
        )
    return exe


def wait_listening(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + load.START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise load.BenchError(f"server.js exited ({process.returncode}): {load.last_line(log)}")
        try:
            with socket.create_connection(("127.0.0.1", port), 0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise load.BenchError(f"server.js not listening on {port} after {load.START_SECONDS:.0f} s")


def server_errors(log: Path) -> Counter[str]:
    """boardgame.io's error lines (``ERROR: invalid move: ...``, a refused
    move, a stale state) and anything else the server wrote but its ready
    line, by their first words."""
    found: Counter[str] = Counter()
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return found
    for line in lines:
        text = line.strip()
        if not text or text.startswith('{"serving"'):
            continue
        found[" ".join(text.split()[:4])[:80]] += 1
    return found


def run_node(
    procs: load.Processes, label: str, games: int, seconds: float, warmup: float, echo: bool
) -> NodeRun:
    """Starts ``server.js`` (``--echo``: the socket.io floor), runs
    ``load.js`` against it with ``games`` loops, and samples the server's CPU."""
    node = node_exe()
    port, api_port = load.free_port(), load.free_port()
    log = procs.dir / f"{label.replace(' ', '-')}-server.log"
    argv = [node, "server.js", "--port", str(port), "--api-port", str(api_port)]
    if echo:
        argv.append("--echo")
    process = procs.start(f"server.js ({label})", argv, log, cwd=BGIO_DIR)
    try:
        wait_listening(process, api_port if not echo else port, log)
        wait_listening(process, port, log)
        what = f"{games} socket.io echo loops" if echo else f"{games} games"
        print(f"  [{label}] {what}, {warmup:g} s warm-up ...", flush=True)
        client = [
            node, "load.js",
            "--server", f"127.0.0.1:{port}",
            "--api", f"127.0.0.1:{api_port}",
            "--games", str(games),
            "--seconds", str(seconds),
            "--warmup", str(warmup),
        ]  # fmt: skip
        if echo:
            client.append("--echo")
        with load.Sampler([process.pid], []) as sampler:
            done = subprocess.run(
                client,
                cwd=BGIO_DIR,
                capture_output=True,
                timeout=warmup + seconds + 60,
                stdin=subprocess.DEVNULL,
            )
        if done.returncode != 0:
            raise load.BenchError(
                f"load.js failed ({done.returncode}): {done.stderr.decode(errors='replace')[-400:]}"
            )
        lines = done.stdout.decode(errors="replace").strip().splitlines()
        stats: dict[str, Any] = json.loads(lines[-1])
    finally:
        procs.stop(process)
    server_cpu, _, machine = sampler.between(stats["t0"], stats["t1"])
    window = max(float(stats["t1"]) - float(stats["t0"]), 1e-9)
    return NodeRun(label, stats, window, server_cpu, machine, server_errors(log))


@dataclass
class FloorRun:
    """One run of ``bench/stream_floor.py``: grpc.aio's bidirectional echo."""

    exchanges: int
    window: float
    server_cpu: float | None  # cores

    @property
    def cpu_each(self) -> float | None:
        """Server CPU seconds a message exchange (one read, one write)."""
        if self.server_cpu is None or not self.exchanges:
            return None
        return self.server_cpu * self.window / self.exchanges


def run_stream_floor(
    procs: load.Processes, streams: int, seconds: float, warmup: float
) -> FloorRun:
    """grpc.aio's floor for a stream exchange: ``bench/stream_floor.py``'s
    echo server, ``streams`` closed loops over two connections (as the
    session phase's seats: two a game)."""
    script = str(Path(__file__).resolve().parent / "stream_floor.py")
    port = load.free_port()
    log = procs.dir / "stream-floor-server.log"
    process = procs.start("stream floor", [sys.executable, script, "--serve", str(port)], log)
    try:
        wait_listening(process, port, log)
        print(f"  [gRPC stream floor] {streams} echo loops, {warmup:g} s warm-up ...", flush=True)
        argv = [
            sys.executable, script, "--client", f"127.0.0.1:{port}",
            "--streams", str(streams), "--seconds", str(seconds), "--warmup", str(warmup),
        ]  # fmt: skip
        with load.Sampler([process.pid], []) as sampler:
            done = subprocess.run(
                argv, capture_output=True, timeout=warmup + seconds + 60, stdin=subprocess.DEVNULL
            )
        if done.returncode != 0:
            raise load.BenchError(
                f"stream_floor.py failed ({done.returncode}): "
                f"{done.stderr.decode(errors='replace')[-400:]}"
            )
        stats = json.loads(done.stdout.decode().strip().splitlines()[-1])
    finally:
        procs.stop(process)
    server_cpu, _, _ = sampler.between(stats["t0"], stats["t1"])
    window = max(float(stats["t1"]) - float(stats["t0"]), 1e-9)
    return FloorRun(int(stats["exchanges"]), window, server_cpu)


def run_ramino(
    procs: load.Processes,
    cfg: load.RunConfig,
    store_kind: str,
    log_level: str,
    session: bool = False,
    hints: bool = False,
) -> load.RunOutcome:
    """``bench/load.py``'s run on one ``ramino serve``: its Check phase, then
    the games (``session``: each seat on its PlayGame session; ``hints``:
    the sessions ask for the hint and the answers' views, as the SDKs do)."""
    label = f"ramino {store_kind}" + (" session" if session else "") + (" hints" if hints else "")
    cfg = dataclasses.replace(cfg, session=session, session_hints=hints)
    tag = label.replace(" ", "-")
    store = load.resolve_store(procs, store_kind, tag)
    servers = load.start_servers(procs, store, 1, log_level, tag)
    out = load.run_once(procs, cfg, [s.address for s in servers], servers, label, store)
    load.print_report(out, cfg)
    return out


# --- the report ---------------------------------------------------------------------


def fmt_ms(seconds: float | None) -> str:
    return "-" if seconds is None or math.isnan(seconds) else f"{seconds * 1000:.2f} ms"


def pct(cores: float | None) -> str:
    return "-" if cores is None else f"{cores * 100:.0f}%"


def ramino_move_cpu(out: load.RunOutcome) -> float | None:
    """Server CPU seconds per move of a Ramino run's games phase."""
    g = out.games
    if g.server_cpu is None or not g.result.moves:
        return None
    return g.server_cpu * g.result.window / g.result.moves


def other_cores(busy: float | None, ours: float) -> str:
    if busy is None:
        return "-"
    return pct(max(busy * (os.cpu_count() or 1) - ours, 0.0))


def traffic(out: load.RunOutcome) -> str:
    """Calls, and the messages a client sent (a call's request, a session's
    start and moves), a move of a Ramino run's games phase."""
    r = out.games.result
    if not r.moves:
        return "-"
    calls = sum(len(v) for k, v in r.latencies.items() if k in load.GAME_RPCS)
    return f"{calls / r.moves:.2f} calls, {(calls + r.sent) / r.moves:.2f} messages in"


def verdict(value: float | None, target_ms: float) -> str:
    if value is None:
        return "n/a"
    # Three decimals: a figure printed as the target itself may be just above it.
    return f"{'met' if value * 1000 <= target_ms else 'NOT met'} ({value * 1000:.3f} ms)"


def print_table(
    games: int,
    seconds: float,
    bgio: NodeRun,
    echo: NodeRun,
    memory: load.RunOutcome,
    sqlite: load.RunOutcome,
    session: load.RunOutcome,
) -> None:
    mem_cpu, sql_cpu = ramino_move_cpu(memory), ramino_move_cpu(sqlite)
    ses_cpu = ramino_move_cpu(session)
    bgio_cpu = bgio.cpu_each
    mem_n, sql_n = load.summary_numbers(memory), load.summary_numbers(sqlite)
    ses_n = load.summary_numbers(session)
    ratio = "-" if ses_cpu is None or not bgio_cpu else f"{ses_cpu / bgio_cpu:.2f}x"

    def ramino_ours(out: load.RunOutcome) -> float:
        g = out.games
        return (g.server_cpu or 0.0) + g.result.cpu / g.result.window

    rows = [
        (
            f"server CPU a move, {games} games closed loop",
            f"{fmt_ms(bgio_cpu)} ({bgio.per_second:,.0f} moves/s)",
            f"{fmt_ms(mem_cpu)} ({mem_n['moves_s']:,.0f} moves/s)",
            f"{fmt_ms(sql_cpu)} ({sql_n['moves_s']:,.0f} moves/s)",
            f"{fmt_ms(ses_cpu)} ({ses_n['moves_s']:,.0f} moves/s)",
        ),
        (
            "calls and client messages a move",
            "1 websocket message a move",
            traffic(memory),
            traffic(sqlite),
            traffic(session),
        ),
        (
            "the issue's figures (before it)",
            f"{ISSUE_BGIO[0]:.2f} ms ({ISSUE_BGIO[1]:,} moves/s)",
            f"{ISSUE_MEMORY[0]:.2f} ms ({ISSUE_MEMORY[1]:,} moves/s)",
            f"{ISSUE_SQLITE[0]:.2f} ms ({ISSUE_SQLITE[1]:,} moves/s)",
            "-",
        ),
        (
            "target: Ramino's server CPU a move",
            "-",
            f"<= {TARGET_MEMORY_MS} ms (the issue's boardgame.io): "
            f"{verdict(mem_cpu, TARGET_MEMORY_MS)}; "
            + (
                f"<= {bgio_cpu * 1000:.2f} ms (this run's): {verdict(mem_cpu, bgio_cpu * 1000)}"
                if bgio_cpu is not None
                else "this run's boardgame.io: n/a"
            ),
            f"<= {TARGET_SQLITE_MS} ms: {verdict(sql_cpu, TARGET_SQLITE_MS)}",
            f"<= 0.75x this run's boardgame.io (issue 21): {ratio}"
            + (
                f", {'met' if ses_cpu <= 0.75 * bgio_cpu else 'NOT met'}"
                if ses_cpu is not None and bgio_cpu
                else ""
            ),
        ),
        (
            "server, client CPU (of a core)",
            f"{pct(bgio.server_cpu)}, {pct(bgio.client_cpu)}",
            f"{pct(memory.games.server_cpu)}, "
            f"{pct(memory.games.result.cpu / memory.games.result.window)}",
            f"{pct(sqlite.games.server_cpu)}, "
            f"{pct(sqlite.games.result.cpu / sqlite.games.result.window)}",
            f"{pct(session.games.server_cpu)}, "
            f"{pct(session.games.result.cpu / session.games.result.window)}",
        ),
        (
            "the transport's own floor, server CPU a call",
            f"socket.io round trip {fmt_ms(echo.cpu_each)} ({echo.per_second:,.0f}/s)",
            f"gRPC Check {fmt_ms(load.cpu_per_call(memory.baseline))} "
            f"({mem_n['checks_s']:,.0f}/s)",
            f"gRPC Check {fmt_ms(load.cpu_per_call(sqlite.baseline))} "
            f"({sql_n['checks_s']:,.0f}/s)",
            f"gRPC Check {fmt_ms(load.cpu_per_call(session.baseline))} "
            f"({ses_n['checks_s']:,.0f}/s)",
        ),
        (
            "the issue's floor figures",
            f"socket.io round trip {ISSUE_SOCKETIO_FLOOR:.2f} ms",
            f"gRPC Check {ISSUE_CHECK_FLOOR:.2f} ms",
            "same",
            "same",
        ),
        (
            "processes outside this run (of a core)",
            other_cores(bgio.machine_busy, (bgio.server_cpu or 0.0) + bgio.client_cpu),
            other_cores(memory.games.machine_busy, ramino_ours(memory)),
            other_cores(sqlite.games.machine_busy, ramino_ours(sqlite)),
            other_cores(session.games.machine_busy, ramino_ours(session)),
        ),
    ]
    print()
    print(
        f"== boardgame.io {BGIO_VERSION} beside Ramino: {games} closed-loop games of rummy, "
        f"{seconds:g} s measured each, one after the other in this run =="
    )
    print(
        f"| | boardgame.io {BGIO_VERSION} | Ramino unary, memory store | Ramino unary, sqlite "
        "| Ramino session (PlayGame), memory store |"
    )
    print("|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    s = bgio.stats
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(s["by_move"].items()))
    print(
        f"boardgame.io: {s['moves']} moves ({kinds}); games started {s['games_started']}, "
        f"finished {s['games_finished']}, abandoned {s['games_abandoned']}, "
        f"stalled {s['stalls']}; client errors {s['errors'] or 0}; "
        f"server error lines {dict(bgio.server_errors) or 0}"
    )
    print(
        "(server CPU: the server process's user + system time over the measured window, "
        "divided by the moves or calls completed in it; Ramino's through bench/load.py, "
        "its request ids on, a move's answer carrying legal moves and a hint; the session's "
        "seats move from the options pushed to them)"
    )


def ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or not b else f"{a / b:.2f}x"


def print_session_table(
    n: int,
    bgio: NodeRun,
    memory: load.RunOutcome,
    session: load.RunOutcome,
    sdk_session: load.RunOutcome,
    floor: FloorRun,
) -> tuple[float | None, ...]:
    """Issue 32's table: the session's server CPU a move beside
    boardgame.io's and the unary path's, their ratios and targets, and
    grpc.aio's own floor for a stream exchange; returns the row's figures."""
    b, u = bgio.cpu_each, ramino_move_cpu(memory)
    lean, sdk = ramino_move_cpu(session), ramino_move_cpu(sdk_session)
    f = floor.cpu_each
    print()
    print("== the session's server CPU a move (issue 32), memory store, this run ==")
    print(
        "| run | boardgame.io | session | unary | session / boardgame.io | unary / boardgame.io "
        "| session / unary | session asking hints and views (the SDKs') | gRPC stream floor "
        "(an exchange) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {n} | {fmt_ms(b)} | {fmt_ms(lean)} | {fmt_ms(u)} | {ratio(lean, b)} | {ratio(u, b)} "
        f"| {ratio(lean, u)} | {fmt_ms(sdk)} ({ratio(sdk, b)}) | {fmt_ms(f)} "
        f"({floor.exchanges / floor.window:,.0f}/s) |"
    )
    verdicts = []
    if lean is not None and b:
        verdicts.append(
            f"session <= 0.75x boardgame.io: {'met' if lean <= 0.75 * b else 'NOT met'}"
        )
        verdicts.append(f"moonshot 0.5x: {'met' if lean <= 0.5 * b else 'not met'}")
    if lean is not None and u:
        verdicts.append(f"session <= 0.6x unary: {'met' if lean <= 0.6 * u else 'NOT met'}")
    print("targets: " + "; ".join(verdicts))
    if f is not None and lean is not None:
        print(
            f"a session move reads one message and writes two (its answer, the other seat's "
            f"event): about {fmt_ms(1.5 * f)} of grpc.aio's floor; the rest, "
            f"{fmt_ms(lean - 1.5 * f)}, is Ramino's"
        )
    return (b, lean, u, sdk, f)


def print_rounds(per_round: list[tuple[float | None, ...]]) -> None:
    """Each round's server CPU a move, and the lowest of each side: on a
    machine shared with other jobs, the least disturbed run."""
    print()
    print("server CPU a move, round by round (the lowest: the least disturbed run):")
    for i, name in enumerate(("boardgame.io", "Ramino, memory", "Ramino, sqlite", "session")):
        values = [r[i] for r in per_round]
        known = [v for v in values if v is not None]
        low = fmt_ms(min(known)) if known else "-"
        print(f"  {name:<15} {', '.join(fmt_ms(v) for v in values)}; lowest {low}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=64, help="concurrent games (and floor loops)")
    p.add_argument("--seconds", type=float, default=10.0, help="measured seconds per phase")
    p.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds per phase")
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="repeat the whole sequence (the other jobs of a shared machine vary between runs)",
    )
    p.add_argument("--server-log-level", default="info", help="ramino serve's --log-level")
    p.add_argument("--keep", action="store_true", help="keep the temp dir (logs, databases)")
    args = p.parse_args(argv)
    if args.games < 1 or args.rounds < 1 or args.seconds <= 0 or args.warmup < 0:
        p.error("--games, --rounds and --seconds must be positive, --warmup not negative")
    cfg = load.RunConfig(
        variant="rummy",
        games=args.games,
        seconds=args.seconds,
        warmup=args.warmup,
        moves=0,
        max_seconds=300.0,
        clients=1,
        request_ids=True,
        think=0.0,
        sticky=False,
        ask_every_move=False,
        rate="",
    )

    node_version = subprocess.run(
        ["node", "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    print(
        f"vs boardgame.io: {platform.python_implementation()} {platform.python_version()}, "
        f"node {node_version or '?'}, {os.cpu_count()} cores shared by servers and clients; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    procs = load.Processes(args.keep)

    def run() -> None:
        per_round: list[tuple[float | None, ...]] = []
        issue_rows: list[tuple[float | None, ...]] = []
        for n in range(args.rounds):
            if args.rounds > 1:
                print(f"-- round {n + 1} of {args.rounds} --", flush=True)
            g, s = args.games, args.seconds
            bgio = run_node(procs, "boardgame.io", g, s, args.warmup, echo=False)
            echo = run_node(procs, "socket.io floor", g, s, args.warmup, echo=True)
            memory = run_ramino(procs, cfg, "memory", args.server_log_level)
            sqlite = run_ramino(procs, cfg, "sqlite", args.server_log_level)
            session = run_ramino(procs, cfg, "memory", args.server_log_level, session=True)
            sdk = run_ramino(procs, cfg, "memory", args.server_log_level, session=True, hints=True)
            floor = run_stream_floor(procs, 2 * g, s, args.warmup)
            print_table(g, s, bgio, echo, memory, sqlite, session)
            issue_rows.append(print_session_table(n + 1, bgio, memory, session, sdk, floor))
            per_round.append(
                (
                    bgio.cpu_each,
                    ramino_move_cpu(memory),
                    ramino_move_cpu(sqlite),
                    ramino_move_cpu(session),
                )
            )
        if args.rounds > 1:
            print_rounds(per_round)
            print()
            print("issue 32's table, round by round:")
            print(
                "| run | boardgame.io | session | unary | session / boardgame.io "
                "| unary / boardgame.io | session / unary | SDK-shaped session | stream floor |"
            )
            print("|---|---|---|---|---|---|---|---|---|")
            for i, (b, lean, u, sdk_cpu, f) in enumerate(issue_rows):
                print(
                    f"| {i + 1} | {fmt_ms(b)} | {fmt_ms(lean)} | {fmt_ms(u)} | {ratio(lean, b)} "
                    f"| {ratio(u, b)} | {ratio(lean, u)} | {fmt_ms(sdk_cpu)} | {fmt_ms(f)} |"
                )

    return load.run_then_stop(procs, run)


if __name__ == "__main__":
    sys.exit(main())
