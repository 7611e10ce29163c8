"""Rules engine benchmarks (issue 3): figures only, nothing asserted.

The engine is ``ramino.engine``, whose rules are the Rust kernel's (issue
31); its figures beside the Python engine it replaced were section 0 of this
script at commit 43b0902, where that engine lay frozen.

1. Simulated games per second on one core, greedy bots in every seat, for
   each variant (ramino51 and rami51: one round; rummy: a match to 150), with
   the per-event checks of ``ramino simulate`` off and on.
2. The engine's cost per command: greedy games are played once to record
   their commands, then the commands are replayed on fresh games (same seeds)
   and only the engine is timed: validate + apply (``Game.apply``, follow-up
   events included), + project (the new events for every seat and a
   spectator), + the acting seat's view, and ``legal_moves`` for scale.
3. Replay: a finished game's record read back from JSON and folded into a
   game (``Record.from_json`` + ``Game.from_record``), per event.

Times are CPU seconds of this process (``time.process_time``), which a busy
shared machine disturbs less than wall time. Run:
``.venv/bin/python bench/engine_bench.py [--games N] [--quick]``.
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
from collections.abc import Callable

from ramino.bots import make_bot
from ramino.engine import Command, Game, Record, project
from ramino.simulate import Summary, game_seed, simulate

TARGET = 100.0  # four-player ramino51 games per second on one core
CASES = [("ramino51", 4), ("ramino51", 2), ("rami51", 4), ("rummy", 4), ("rummy", 2)]


def _cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        fn()
        return time.process_time() - start
    finally:
        gc.enable()


def games_per_second(variant: str, players: int, games: int, check: bool) -> tuple[float, float]:
    """Games per CPU second, and commands per game."""
    result: dict[str, Summary] = {}

    def run() -> None:
        result["s"] = simulate(variant, ["greedy"] * players, games, seed=1, check=check)

    seconds = _cpu(run)
    summary = result["s"]
    return games / seconds, summary.commands / max(summary.games, 1)


def _record(variant: str, players: int, games: int) -> list[tuple[int, list[tuple[int, Command]]]]:
    logs = []
    for i in range(games):
        seed = game_seed(2, i)
        g = Game.new(variant, [f"p{k}" for k in range(players)], seed=seed)
        bots = [make_bot("greedy", seed + k) for k in range(players)]
        moves: list[tuple[int, Command]] = []
        while not g.finished:
            seat = g.turn
            assert seat is not None
            cmd = bots[seat].choose(g, seat)
            g.apply(seat, cmd)
            moves.append((seat, cmd))
        logs.append((seed, moves))
    return logs


def command_costs(variant: str, players: int, games: int) -> dict[str, float]:
    """Microseconds per command of each engine step."""
    logs = _record(variant, players, games)
    n = sum(len(m) for _, m in logs)
    viewers: list[int | None] = [None, *range(players)]
    names = [f"p{k}" for k in range(players)]

    def replay(project_events: bool, view: bool, moves_too: bool) -> Callable[[], None]:
        def run() -> None:
            for seed, moves in logs:
                g = Game.new(variant, names, seed=seed)
                for seat, cmd in moves:
                    if moves_too:
                        g.legal_moves(seat)
                    events = g.apply(seat, cmd)
                    if project_events:
                        for viewer in viewers:
                            for e in events:
                                project(e, viewer)
                    if view:
                        g.view(seat)

        return run

    new_games = _cpu(lambda: [Game.new(variant, names, seed=s) for s, _ in logs])
    apply = _cpu(replay(False, False, False)) - new_games
    with_project = _cpu(replay(True, False, False)) - new_games
    with_view = _cpu(replay(True, True, False)) - new_games
    with_moves = _cpu(replay(False, False, True)) - new_games
    us = 1e6 / n
    return {
        "commands": n,
        "apply": apply * us,
        "project": (with_project - apply) * us,
        "view": (with_view - with_project) * us,
        "total": with_view * us,
        "legal_moves": (with_moves - apply) * us,
    }


def replay_cost(variant: str, players: int, games: int) -> tuple[float, float]:
    """Events per game, and microseconds per event to read and fold a record."""
    names = [f"p{k}" for k in range(players)]
    texts = []
    for seed, moves in _record(variant, players, games):
        g = Game.new(variant, names, seed=seed)
        for seat, cmd in moves:
            g.apply(seat, cmd)
        texts.append(g.record.to_json())
    events = sum(len(Record.from_json(t).events) for t in texts)
    seconds = _cpu(lambda: [Game.from_record(Record.from_json(t)) for t in texts])
    return events / len(texts), seconds * 1e6 / events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per figure (default 300)")
    parser.add_argument("--quick", action="store_true", help="50 games per figure")
    args = parser.parse_args()
    games = 50 if args.quick else args.games

    print(f"python {platform.python_version()}, {platform.machine()}, {games} games per figure")
    print("\n1. simulated games per CPU second, greedy bots in every seat")
    print(f"  {'variant':10} {'seats':>5} {'commands/game':>14} {'games/s':>9} {'checked':>9}")
    for variant, players in CASES:
        n = games if variant != "rummy" else max(10, games // 10)
        rate, per_game = games_per_second(variant, players, n, check=False)
        checked, _ = games_per_second(variant, players, n, check=True)
        note = ""
        if (variant, players) == ("ramino51", 4):
            note = f"  target >= {TARGET:.0f}: {'ok' if rate >= TARGET else 'MISSED'}"
        print(f"  {variant:10} {players:>5} {per_game:>14.1f} {rate:>9.1f} {checked:>9.1f}{note}")

    print("\n2. engine cost per command, microseconds (greedy games replayed)")
    print(
        f"  {'variant':10} {'seats':>5} {'commands':>9} {'apply':>8} {'+project':>9} "
        f"{'+view':>7} {'total':>7} {'legal_moves':>12}"
    )
    for variant, players in CASES:
        n = games // 3 if variant != "rummy" else max(5, games // 30)
        c = command_costs(variant, players, n)
        print(
            f"  {variant:10} {players:>5} {c['commands']:>9.0f} {c['apply']:>8.1f} "
            f"{c['project']:>9.1f} {c['view']:>7.1f} {c['total']:>7.1f} {c['legal_moves']:>12.1f}"
        )

    print("\n3. replay of a finished game's record (JSON read + fold), microseconds per event")
    print(f"  {'variant':10} {'seats':>5} {'events/game':>12} {'us/event':>9}")
    for variant, players in CASES:
        n = games // 3 if variant != "rummy" else max(5, games // 30)
        per_game, us = replay_cost(variant, players, n)
        print(f"  {variant:10} {players:>5} {per_game:>12.1f} {us:>9.1f}")


if __name__ == "__main__":
    main()
