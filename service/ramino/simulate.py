"""``ramino simulate``: bots play many games through the engine, and every
event is checked.

Each game's events are folded a second time into a shadow state as they come,
and after every event every card must be in exactly one place; at the end of
a game the shadow state must equal the live one (the record replays). Bots
that propose an illegal move, games that never end and exceptions are
reported as rule violations too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ramino._core import GameKernel
from ramino.bots import BOT_KINDS, Bot, Budget, make_bot
from ramino.engine import (
    RESIGNATIONS,
    STOCK_EXHAUSTED,
    TURN_LIMIT,
    WENT_OUT,
    Discarded,
    Event,
    Game,
    IllegalMove,
    RoundEnded,
    RoundStarted,
)
from ramino.engine.context import Override

__all__ = ["add_parser", "run", "simulate", "Summary", "play_game", "GameResult", "game_seed"]

MAX_COMMANDS_PER_GAME = 200_000
"""A game still running after this many commands is reported as stalled."""


def game_seed(seed: int, index: int) -> int:
    """The secret seed of game ``index`` of a simulation seeded with ``seed``."""
    h = hashlib.sha256(b"ramino/simulate/v1")
    h.update(seed.to_bytes(32, "little"))
    h.update(index.to_bytes(8, "little"))
    return int.from_bytes(h.digest(), "little")


@dataclass(slots=True)
class GameResult:
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int
    turns: int
    commands: int
    endings: Counter[str]
    violations: list[str]


def _ending(event: RoundEnded, last: object) -> str:
    if event.ending == STOCK_EXHAUSTED:
        return "no winner: stock exhausted"
    if event.ending == RESIGNATIONS:
        return "ended by resignations"
    if event.ending == TURN_LIMIT:
        return "no winner: turn limit"
    if event.ending != WENT_OUT:  # knocking play: knock, gin, undercut, drawn
        return event.ending.replace("_", " ")
    how = "by discard" if isinstance(last, Discarded) else "by meld or lay-off"
    closed = ", in one turn" if event.closed_hand else ""
    return f"went out {how}{closed}"


def play_game(
    variant: str,
    bots: Sequence[Bot],
    seed: int,
    overrides: Mapping[str, Override] | None = None,
    check: bool = True,
) -> GameResult:
    """One game played by ``bots`` (one per seat), checked event by event."""
    game = Game.new(
        variant, [f"{b.kind}-{i}" for i, b in enumerate(bots)], seed=seed, overrides=overrides
    )
    rules = game.rules
    # A second kernel game fed only the record's events: the replay must
    # give the live state.
    shadow = GameKernel(rules.kernel, game.record.players, seed, ())
    violations: list[str] = []
    endings: Counter[str] = Counter()
    turns = 0
    commands = 0
    last: object = None

    def fold(events: Sequence[Event]) -> None:
        nonlocal turns, last
        for e in events:
            if isinstance(e, RoundEnded):
                turns += sum(s.turns for s in shadow.state().seats)
                endings[_ending(e, last)] += 1
            shadow.fold(e)
            if check:
                for err in shadow.conservation_errors():
                    violations.append(f"after event {shadow.version}: {err}")
            if not isinstance(e, RoundStarted):
                last = e

    fold(game.record.events)
    while not game.finished:
        seat = game.turn
        assert seat is not None
        if commands >= MAX_COMMANDS_PER_GAME:
            violations.append(f"stalled after {commands} commands")
            break
        command = bots[seat].choose(game, seat)
        try:
            events = game.apply(seat, command)
        except IllegalMove as e:
            violations.append(f"bot {bots[seat].kind} proposed an illegal move: {e.reason}")
            moves = game.legal_moves(seat)
            if not moves:
                violations.append(f"seat {seat} has no legal move")
                break
            events = game.apply(seat, moves[0])
        commands += 1
        fold(events)
    if check and shadow.state() != game.state:
        violations.append("the record's events do not fold into the live state")
    return GameResult(
        totals=tuple(s.total for s in game.state.seats),
        winners=game.state.winners,
        rounds=game.state.round,
        turns=turns,
        commands=commands,
        endings=endings,
        violations=violations,
    )


@dataclass(slots=True)
class Summary:
    variant: str
    bots: tuple[str, ...]
    games: int = 0
    seconds: float = 0.0
    rounds: int = 0
    turns: int = 0
    commands: int = 0
    endings: Counter[str] = field(default_factory=Counter)
    totals: list[list[int]] = field(default_factory=list)
    """Per seat, the match total of every game."""
    wins: list[float] = field(default_factory=list)
    """Per seat, games won (a shared win counts as a fraction)."""
    violations: list[str] = field(default_factory=list)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def turns_per_round(self) -> float:
        return self.turns / self.rounds if self.rounds else 0.0

    def to_data(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "bots": list(self.bots),
            "games": self.games,
            "seconds": round(self.seconds, 3),
            "games_per_second": round(self.games_per_second, 1),
            "rounds": self.rounds,
            "turns_per_round": round(self.turns_per_round, 2),
            "commands": self.commands,
            "endings": dict(self.endings),
            "scores": [
                _distribution(t) | {"wins": w} for t, w in zip(self.totals, self.wins, strict=True)
            ],
            "violations": self.violations,
        }


def _distribution(values: list[int]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "stdev": 0.0, "min": 0, "max": 0}
    mean = sum(values) / len(values)
    var = sum((x - mean) ** 2 for x in values) / len(values)
    return {
        "mean": round(mean, 2),
        "stdev": round(math.sqrt(var), 2),
        "min": min(values),
        "max": max(values),
    }


def simulate(
    variant: str,
    bots: Sequence[str],
    games: int,
    seed: int,
    overrides: Mapping[str, Override] | None = None,
    check: bool = True,
    progress: Callable[[int], None] | None = None,
    budget: Budget | None = None,
) -> Summary:
    """Plays ``games`` games of ``variant`` with one bot of each kind in
    ``bots`` per seat; game ``i`` uses :func:`game_seed` ``(seed, i)`` and its
    bots are seeded from it. ``budget``: the searching bots' budget instead
    of their level's."""
    summary = Summary(variant, tuple(bots))
    summary.totals = [[] for _ in bots]
    summary.wins = [0.0 for _ in bots]
    start = time.perf_counter()
    for i in range(games):
        gs = game_seed(seed, i)
        players = [make_bot(kind, (gs + k) % 2**63, budget) for k, kind in enumerate(bots)]
        try:
            result = play_game(variant, players, gs, overrides, check)
        except Exception as e:  # a crash is a finding, not the end of the run
            summary.violations.append(f"game {i}: {type(e).__name__}: {e}")
            summary.games += 1
            if progress:
                progress(1)
            continue
        summary.games += 1
        summary.rounds += result.rounds
        summary.turns += result.turns
        summary.commands += result.commands
        summary.endings.update(result.endings)
        for k, total in enumerate(result.totals):
            summary.totals[k].append(total)
        for w in result.winners:
            summary.wins[w] += 1 / len(result.winners)
        summary.violations.extend(f"game {i}: {v}" for v in result.violations)
        if progress:
            progress(1)
    summary.seconds = time.perf_counter() - start
    return summary


def _parse_override(text: str) -> tuple[str, Override]:
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    value: Override
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    elif raw.lstrip("-").isdigit():
        value = int(raw)
    elif "," in raw and all(p.strip().lstrip("-").isdigit() for p in raw.split(",")):
        value = [int(p) for p in raw.split(",")]
    else:
        value = raw
    return name.strip(), value


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``simulate`` subcommand to an argparse subparsers object."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "simulate",
        help="bots play many games; report speed, endings, scores and rule violations",
        description=__doc__,
    )
    p.add_argument("--variant", default="ramino51", help="preset (default: ramino51)")
    p.add_argument(
        "--players", type=int, default=None, help="number of seats (default: the number of --bots)"
    )
    p.add_argument("--games", type=int, default=100, help="games to play (default: 100)")
    p.add_argument(
        "--bots",
        default="greedy",
        help=f"bot per seat, comma-separated ({', '.join(BOT_KINDS)}); "
        "cycled to fill the seats (default: greedy)",
    )
    p.add_argument("--seed", type=int, default=1, help="simulation seed (default: 1)")
    p.add_argument(
        "--bot-time-ms",
        type=float,
        default=None,
        help="time a decision of hard and expert (default: their level's, 20 and 100 ms)",
    )
    p.add_argument(
        "--bot-iterations",
        type=int,
        default=None,
        help="sampled deals a decision of hard and expert; alone, with no clock: reproducible",
    )
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        type=_parse_override,
        metavar="NAME=VALUE",
        help="override a variant parameter (repeatable)",
    )
    p.add_argument(
        "--no-check", dest="check", action="store_false", help="skip the per-event checks (faster)"
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Runs ``ramino simulate``; exit status 1 if a rule violation was found."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    from rich.table import Table

    kinds = [k.strip() for k in str(args.bots).split(",") if k.strip()]
    for kind in kinds:
        if kind not in BOT_KINDS:
            raise SystemExit(f"unknown bot {kind!r}: choose from {', '.join(BOT_KINDS)}")
    players = args.players or len(kinds)
    if not kinds or players < 1:
        raise SystemExit("give at least one bot")
    bots = [kinds[i % len(kinds)] for i in range(players)]
    overrides = dict(args.overrides)
    budget = None
    if args.bot_time_ms is not None or args.bot_iterations is not None:
        try:
            budget = Budget(time_ms=args.bot_time_ms, iterations=args.bot_iterations)
        except ValueError as e:
            raise SystemExit(str(e)) from None
    console = Console(stderr=args.json)
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=args.json,
    ) as bar:
        task = bar.add_task(f"{args.variant}, {players} players", total=args.games)
        summary = simulate(
            args.variant,
            bots,
            args.games,
            args.seed,
            overrides,
            check=args.check,
            progress=lambda n: bar.advance(task, n),
            budget=budget,
        )
    if args.json:
        print(json.dumps(summary.to_data(), indent=2, sort_keys=True))
        return 1 if summary.violations else 0

    out = Console()
    out.print(
        f"{summary.games} games of {args.variant} in {summary.seconds:.2f} s: "
        f"[bold]{summary.games_per_second:.1f} games/s[/bold], "
        f"{summary.rounds} rounds, {summary.turns_per_round:.1f} turns per round"
    )
    endings = Table(title="How rounds ended")
    endings.add_column("ending")
    endings.add_column("rounds", justify="right")
    endings.add_column("share", justify="right")
    for ending, n in summary.endings.most_common():
        endings.add_row(ending, str(n), f"{100 * n / max(summary.rounds, 1):.1f}%")
    out.print(endings)
    scores = Table(title="Match totals per seat")
    for col in ("seat", "bot", "mean", "stdev", "min", "max", "wins"):
        scores.add_column(col, justify="left" if col == "bot" else "right")
    for k, kind in enumerate(bots):
        d = _distribution(summary.totals[k])
        scores.add_row(
            str(k),
            kind,
            f"{d['mean']:.1f}",
            f"{d['stdev']:.1f}",
            str(d["min"]),
            str(d["max"]),
            f"{summary.wins[k]:.1f}",
        )
    out.print(scores)
    if summary.violations:
        out.print(f"[bold red]{len(summary.violations)} rule violations[/bold red]")
        for v in summary.violations[:20]:
            out.print(f"  {v}")
        return 1
    out.print("[green]no rule violation found[/green]" if args.check else "checks skipped")
    return 0
