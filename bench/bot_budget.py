"""Bots under load (issue 33): does a searching bot's decision hold its budget
on a server that plays many bot games at once?

Starts ``ramino serve`` (memory store, ``--allow-bot-games``, Prometheus
metrics on a port of its own), creates ``--games`` games whose seats are all
bots (``--levels``, e.g. hard against medium), lets the server play them for
``--warmup`` seconds, then measures ``--seconds`` more, keeping as many games
going (a game that ends is replaced). The figures come from the server's own
metrics, taken before and after the window: ``ramino_bot_decision_seconds``
(every decision of a searching level, its start to its choice),
``ramino_bot_decision_deals`` (the deals a search sampled) and
``ramino_bot_starved`` (decisions the machine starved, said in the log by a
"bot decisions starved" line at most every 10 s), with the moves applied and the server's CPU from
/proc. Printed per searching level: decisions, p50 and p99 (interpolated
within the histogram's buckets), the share of decisions within 1.5 times
the budget (a bucket bound), deals sampled p50, starved decisions.

    .venv/bin/python bench/bot_budget.py --games 200 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

import grpc
from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, str(Path(__file__).resolve().parent))

import load  # noqa: E402
from ramino.v1 import game_pb2, game_pb2_grpc  # noqa: E402

LEVELS = {
    "random": game_pb2.BOT_LEVEL_RANDOM,
    "greedy": game_pb2.BOT_LEVEL_GREEDY,
    "easy": game_pb2.BOT_LEVEL_EASY,
    "medium": game_pb2.BOT_LEVEL_MEDIUM,
    "hard": game_pb2.BOT_LEVEL_HARD,
    "expert": game_pb2.BOT_LEVEL_EXPERT,
}
BUDGETS_MS = {"hard": 20.0, "expert": 100.0}
"""The levels' default time budgets (``ramino.bots.search.LEVEL_BUDGETS``)."""

Buckets = dict[str, dict[float, float]]
"""Per level, a histogram's cumulative counts by upper bound."""


def scrape(port: int) -> dict[str, Any]:
    """The server's bot metrics now: histograms' buckets, sums and counters."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    out: dict[str, Any] = {
        "seconds": defaultdict(dict),
        "deals": defaultdict(dict),
        "starved": defaultdict(float),
        "moves": 0.0,
    }
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            level = s.labels.get("level", "")
            if s.name == "ramino_bot_decision_seconds_bucket":
                out["seconds"][level][float(s.labels["le"])] = s.value
            elif s.name == "ramino_bot_decision_deals_bucket":
                out["deals"][level][float(s.labels["le"])] = s.value
            elif s.name == "ramino_bot_starved_total":
                out["starved"][level] = s.value
            elif s.name == "ramino_moves_applied_total":
                out["moves"] += s.value
    return out


def between(before: Buckets, after: Buckets, level: str) -> list[tuple[float, float]]:
    """The cumulative counts of ``level``'s histogram over the window."""
    a, b = after.get(level, {}), before.get(level, {})
    return sorted((le, a[le] - b.get(le, 0.0)) for le in a)


def quantile(buckets: list[tuple[float, float]], q: float) -> float:
    """The ``q`` quantile, linear within the bucket it falls in (inf: past
    the last finite bound)."""
    total = buckets[-1][1] if buckets else 0.0
    if total <= 0:
        return float("nan")
    want = q * total
    low, below = 0.0, 0.0
    for le, count in buckets:
        if count >= want:
            if le == float("inf"):
                return le
            inside = count - below
            return low + (le - low) * ((want - below) / inside if inside else 1.0)
        low, below = le, count
    return float("inf")


def within(buckets: list[tuple[float, float]], bound: float) -> float:
    """The share of observations at or below ``bound`` (a bucket bound)."""
    total = buckets[-1][1] if buckets else 0.0
    counts = dict(buckets)
    if total <= 0 or bound not in counts:
        return float("nan")
    return counts[bound] / total


async def create(stub: Any, variant: str, levels: list[str]) -> str:
    seats = [game_pb2.SeatConfig(bot=LEVELS[level]) for level in levels]
    created = await stub.CreateGame(game_pb2.CreateGameRequest(variant=variant, seats=seats))
    return str(created.game.name)


async def keep_playing(
    address: str, games: int, variant: str, levels: list[str], stop: asyncio.Event
) -> int:
    """Creates ``games`` bot games and replaces each one that ends until
    ``stop``; the games created."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        live = [await create(stub, variant, levels) for _ in range(games)]
        made = len(live)
        while not stop.is_set():
            with_end = await asyncio.gather(
                *(stub.GetGame(game_pb2.GetGameRequest(name=name)) for name in live)
            )
            for i, answer in enumerate(with_end):
                if answer.view.status == game_pb2.GAME_STATUS_FINISHED:
                    live[i] = await create(stub, variant, levels)
                    made += 1
            with_stop = asyncio.create_task(stop.wait())
            await asyncio.wait([with_stop], timeout=2.0)
            with_stop.cancel()
        return made


async def measure(
    args: argparse.Namespace, server: load.Server, port: int
) -> tuple[dict[str, Any], dict[str, Any], float, float, int]:
    stop = asyncio.Event()
    player = asyncio.create_task(
        keep_playing(server.address, args.games, args.variant, args.levels, stop)
    )
    await asyncio.sleep(args.warmup)
    before, cpu0, t0 = scrape(port), load.tree_cpu(server.process.pid), time.monotonic()
    await asyncio.sleep(args.seconds)
    after, cpu1, t1 = scrape(port), load.tree_cpu(server.process.pid), time.monotonic()
    stop.set()
    made = await player
    return before, after, (cpu1 - cpu0) / (t1 - t0), t1 - t0, made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="bot games at once (200)")
    parser.add_argument("--variant", default="gin", help="the games' variant (gin)")
    parser.add_argument(
        "--levels",
        default="hard,medium",
        type=lambda text: text.split(","),
        help="the bots of each game's seats (hard,medium)",
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="measured window (60)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before it (10)")
    parser.add_argument("--serve-args", default="", help="more `ramino serve` flags, quoted")
    parser.add_argument("--keep", action="store_true", help="keep the server's log")
    args = parser.parse_args()
    for level in args.levels:
        if level not in LEVELS:
            parser.error(f"unknown level {level!r}: choose from {', '.join(LEVELS)}")
    procs = load.Processes(args.keep)
    try:
        port, metrics = load.free_port(), load.free_port()
        log = procs.dir / "server.log"
        argv = [
            sys.executable, "-m", "ramino", "serve",
            "--host", "127.0.0.1", "--port", str(port), "--store", "memory",
            "--allow-bot-games", "--metrics-port", str(metrics), "--log-level", "warning",
            *args.serve_args.split(),
        ]  # fmt: skip
        server = load.Server(f"127.0.0.1:{port}", procs.start("server", argv, log), log)
        load.wait_serving(server)
        before, after, cores, window, made = asyncio.run(measure(args, server, metrics))
        moves = after["moves"] - before["moves"]
        starved_lines = sum(
            "bot decisions starved" in line for line in log.read_text().splitlines()
        )
        print(
            f"{args.games} {args.variant} games of {'/'.join(args.levels)} bots at once "
            f"({made} created), {window:.0f} s measured after {args.warmup:g} s: "
            f"{moves / window:.0f} moves/s, server CPU {cores:.2f} cores "
            f"({1000 * cores * window / max(moves, 1):.2f} ms a move); "
            f"{starved_lines} 'bot decisions starved' lines in the log"
        )
        print(
            "| level | decisions | p50 | p99 | within 1.5x budget | deals p50 | starved |\n"
            "|---|---|---|---|---|---|---|"
        )
        for level in sorted(set(args.levels) & set(BUDGETS_MS)):
            seconds = between(before["seconds"], after["seconds"], level)
            deals = between(before["deals"], after["deals"], level)
            budget = BUDGETS_MS[level] / 1000
            n = seconds[-1][1] if seconds else 0.0
            starved = after["starved"].get(level, 0.0) - before["starved"].get(level, 0.0)
            print(
                f"| {level} ({budget * 1000:g} ms) | {n:.0f} "
                f"| {1000 * quantile(seconds, 0.5):.1f} ms "
                f"| {1000 * quantile(seconds, 0.99):.1f} ms "
                f"| {100 * within(seconds, round(1.5 * budget, 6)):.1f}% "
                f"| {quantile(deals, 0.5):.0f} | {starved:.0f} ({100 * starved / max(n, 1):.1f}%) |"
            )
    finally:
        procs.close()


if __name__ == "__main__":
    main()
