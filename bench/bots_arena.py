"""The bot levels against each other (issue 24): figures only, nothing asserted.

Every pair of levels plays ``--games`` hands per variant: two players in
every variant, and four in ramino51 (the two levels in alternate seats). Each
deal is played twice, the seats swapped, so that neither side gets the better
cards. A game here is one round (a hand): ``max_rounds`` is set to 1, so that
the figures are per deal, as OpenSpiel's are (a match to 150 or to 100 is a
sum of such hands). A game of ramino51 or rami51 is one round anyway; with
``--whole-games`` every variant plays its whole game (rummy's match to 150,
gin's to 100, with its bonuses), won by who wins the match.

Printed per pair: the first level's share of the hands won (a hand with no
winner counts half), the mean point margin per hand in its favour (scores
signed so that more is better for it: the others' penalty minus its own in
the 51 variants, its points minus the other's in rummy and gin) and, for
gin, its share of all the points scored; each with a 95% interval (normal
approximation), and the CPU seconds per hand.

Budgets: by default ``hard`` and ``expert`` search for their time budgets
(20 and 100 ms a decision), which depends on the machine. ``--iterations N``
gives ``hard`` N sampled deals a decision and ``expert`` 5 N, with no clock:
the run is then reproducible from its seed on any machine.

One rating scale: every hand played is also a game between the two levels
for OpenSkill's Plackett-Luce model (the model and defaults of the players'
ratings, ``ramino.app.quick.ratings.MODEL``; a hand with no winner a tie), the
pairs' hands taken in turn (one of each pair, then the next), and each
level's mu, sigma and ordinal (mu - 3 sigma, what the leaderboard orders by)
printed at the end, strongest first. ``--ratings-out FILE`` writes them as
JSON with the command that made them: ``service/ramino/bots/ratings.json``
is that file, which the server hands out (``RulesService.ListBotLevels``).

Run: ``nice -n 10 .venv/bin/python bench/bots_arena.py --games 200
--iterations 40`` (``--variants gin:2 --levels medium,hard`` for one pair). Gin against
OpenSpiel's bots on the same hands: ``bench/gin_openspiel.py``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ramino.app.quick.ratings import MODEL
from ramino.bots import LEVEL_BUDGETS, LEVELS, Bot, Budget, make_bot
from ramino.engine import Command, Game, MatchEnded, RoundEnded
from ramino.simulate import game_seed

CASES = [("ramino51", 2), ("ramino51", 4), ("rami51", 2), ("rummy", 2), ("gin", 2)]
PENALTY = {"ramino51", "rami51"}


def budgets(iterations: int | None, time_ms: float | None) -> dict[str, Budget]:
    """The budget of each searching level for this run."""
    if iterations is None and time_ms is None:
        return dict(LEVEL_BUDGETS)
    out: dict[str, Budget] = {}
    for level, factor in (("hard", 1), ("expert", 5)):
        width = LEVEL_BUDGETS[level].width
        out[level] = Budget(
            time_ms=None if time_ms is None else time_ms * factor,
            iterations=None if iterations is None else iterations * factor,
            width=width,
        )
    return out


DECISIONS: dict[str, list[float]] = {}
"""Wall-clock seconds of each decision of a searching level."""


class Timed:
    """A bot whose decisions are timed (wall clock: what a player waits)."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.heavy = inner.heavy

    def choose(self, game: Game, seat: int) -> Command:
        start = time.perf_counter()
        cmd = self.inner.choose(game, seat)
        DECISIONS.setdefault(self.kind, []).append(time.perf_counter() - start)
        return cmd


def bot(level: str, seed: int, table: dict[str, Budget]) -> Bot:
    made = make_bot(level, seed, table.get(level))
    return Timed(made) if made.heavy else made


def latency_report() -> None:
    for level, times in sorted(DECISIONS.items()):
        ordered = sorted(times)
        n = len(ordered)
        p50, p99 = ordered[n // 2], ordered[min(n - 1, int(n * 0.99))]
        print(
            f"  {level} decisions: {n}, wall ms p50 {1000 * p50:.1f}  p99 {1000 * p99:.1f}  "
            f"max {1000 * ordered[-1]:.1f} (choices by search and greedy moves alike)"
        )


@dataclass
class Tally:
    """One side's results over the hands of a pair."""

    wins: list[float] = field(default_factory=list)
    margins: list[float] = field(default_factory=list)
    mine: float = 0.0
    theirs: float = 0.0
    seconds: float = 0.0

    def add(self, win: float, margin: float, mine: float, theirs: float) -> None:
        self.wins.append(win)
        self.margins.append(margin)
        self.mine += mine
        self.theirs += theirs


def interval(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    mean = sum(values) / n
    if n == 1:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def hand(
    variant: str,
    seats: list[str],
    seed: int,
    table: dict[str, Budget],
    side: str,
    whole: bool = False,
) -> tuple[float, float, float, float]:
    """One hand; the win share, margin, points of ``side`` and of the others
    (the round's own scores: a one-round gin match adds its match bonuses to
    the totals, which are left out here). ``whole``: the variant's whole
    game instead (its own rounds, to its target score), scored by the
    match's winners and totals."""
    bots = [bot(level, (seed + 7919 * k) % 2**63, table) for k, level in enumerate(seats)]
    game = Game.new(
        variant,
        [f"{s}-{k}" for k, s in enumerate(seats)],
        seed=seed,
        overrides=None if whole else {"max_rounds": 1},
    )
    while not game.finished:
        seat = game.state.turn
        game.apply(seat, bots[seat].choose(game, seat))
    mine_seats = [k for k, s in enumerate(seats) if s == side]
    other_seats = [k for k, s in enumerate(seats) if s != side]
    if whole:
        match = next(e for e in game.record.events if isinstance(e, MatchEnded))
        ours = sum(1 for k in match.winners if k in mine_seats)
        win = ours / len(match.winners) if match.winners else 0.5
        scores: tuple[int, ...] = match.totals
    else:
        ended = next(e for e in game.record.events if isinstance(e, RoundEnded))
        win = 0.5 if ended.winner is None else float(ended.winner in mine_seats)
        scores = ended.scores
    mine = sum(scores[k] for k in mine_seats) / len(mine_seats)
    theirs = sum(scores[k] for k in other_seats) / len(other_seats)
    margin = theirs - mine if variant in PENALTY else mine - theirs
    return win, margin, max(mine, 0.0), max(theirs, 0.0)


def play_pair(
    variant: str,
    players: int,
    a: str,
    b: str,
    games: int,
    seed: int,
    table: dict[str, Budget],
    whole: bool = False,
) -> Tally:
    tally = Tally()
    start = time.process_time()
    for i in range(games):
        gs = game_seed(seed, i // 2)
        first, second = (a, b) if i % 2 == 0 else (b, a)
        seats = [first if k % 2 == 0 else second for k in range(players)]
        tally.add(*hand(variant, seats, gs, table, a, whole))
    tally.seconds = time.process_time() - start
    return tally


def rating_scale(pairs: list[tuple[str, str, list[float]]]) -> dict[str, dict[str, float]]:
    """Each level's OpenSkill rating from the hands of ``pairs`` (the first
    level, the second, the first's win share of each hand), the pairs'
    hands taken in turn so that no pair's hands all come last."""
    ratings = {level: MODEL.rating() for a, b, _ in pairs for level in (a, b)}
    longest = max((len(wins) for _, _, wins in pairs), default=0)
    for i in range(longest):
        for a, b, wins in pairs:
            if i >= len(wins):
                continue
            w = wins[i]
            ranks = [1.0, 1.0] if w == 0.5 else ([1.0, 2.0] if w > 0.5 else [2.0, 1.0])
            [ra], [rb] = MODEL.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
    return {
        level: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma}
        for level, r in sorted(ratings.items(), key=lambda kv: -kv[1].mu)
    }


def report(variant: str, players: int, a: str, b: str, t: Tally, whole: bool = False) -> None:
    n = len(t.wins)
    w, wi = interval(t.wins)
    m, mi = interval(t.margins)
    unit = "games" if whole else "hands"
    line = (
        f"  {variant:8} {players}p  {a:>6} vs {b:<6} {n:5} {unit}  "
        f"wins {100 * w:5.1f}% +-{100 * wi:4.1f}  margin {m:+7.2f} +-{mi:5.2f}"
    )
    if variant == "gin":
        total = t.mine + t.theirs
        share = t.mine / total if total else 0.5
        line += f"  points share {100 * share:5.1f}%"
    line += f"  {1000 * t.seconds / max(n, 1):7.1f} ms/{unit[:-1]}"
    print(line, flush=True)


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--games", type=int, default=2000, help="hands per pair and variant (default 2000)"
    )
    p.add_argument("--levels", default=",".join(LEVELS), help="levels to pair (default: all four)")
    p.add_argument(
        "--variants",
        default=",".join(f"{v}:{n}" for v, n in CASES),
        help="VARIANT:PLAYERS list (default: ramino51:2,ramino51:4,rami51:2,rummy:2,gin:2)",
    )
    p.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="hard's deals a decision (expert: 5x); no clock",
    )
    p.add_argument(
        "--time-ms", type=float, default=None, help="hard's time a decision (expert: 5x)"
    )
    p.add_argument(
        "--whole-games",
        action="store_true",
        help="play each variant's whole game (rummy to 150, gin to 100) instead of one hand",
    )
    p.add_argument("--seed", type=int, default=24)
    p.add_argument(
        "--hands-out",
        default=None,
        help="append each pair's hands (levels, variant, win shares) to this JSON-lines file",
    )
    p.add_argument(
        "--ratings-from",
        nargs="+",
        default=None,
        metavar="FILE",
        help="play nothing: the rating scale of the hands in these --hands-out files",
    )
    p.add_argument(
        "--ratings-out", default=None, help="write the levels' rating scale to this JSON file"
    )
    args = p.parse_args()
    if args.ratings_from:
        pairs: list[tuple[str, str, list[float]]] = []
        commands: list[str] = []
        for path in args.ratings_from:
            with open(path, encoding="utf-8") as lines:
                for text in lines:
                    if text.strip():
                        saved = json.loads(text)
                        strong, weak, wins = saved["pair"]
                        pairs.append((strong, weak, wins))
                        if saved["command"] not in commands:
                            commands.append(saved["command"])
        print_scale(pairs, args.ratings_out, commands)
        return
    levels = [x.strip() for x in args.levels.split(",") if x.strip()]
    table = budgets(args.iterations, args.time_ms)
    print(f"budgets: {', '.join(f'{k} {v}' for k, v in table.items())}")
    played: list[tuple[str, str, list[float]]] = []
    for case in args.variants.split(","):
        variant, _, n = case.partition(":")
        players = int(n or 2)
        for a, b in itertools.combinations(levels, 2):
            # Report the stronger level first (levels are listed weakest first).
            strong, weak = (b, a)
            tally = play_pair(
                variant, players, strong, weak, args.games, args.seed, table, args.whole_games
            )
            report(variant, players, strong, weak, tally, args.whole_games)
            played.append((strong, weak, tally.wins))
            if args.hands_out:
                with open(args.hands_out, "a", encoding="utf-8") as out:
                    saved = {
                        "command": "bench/bots_arena.py " + shlex.join(sys.argv[1:]),
                        "variant": f"{variant}:{players}",
                        "pair": [strong, weak, tally.wins],
                    }
                    out.write(json.dumps(saved) + "\n")
    latency_report()
    print_scale(played, args.ratings_out, [])


def print_scale(
    played: list[tuple[str, str, list[float]]], ratings_out: str | None, played_by: list[str]
) -> None:
    """Prints the levels' rating scale from the hands ``played``; with
    ``ratings_out``, writes it there with the commands that made it (those
    that ``played_by`` names played the hands, then this one)."""
    scale = rating_scale(played)
    hands = sum(len(wins) for _, _, wins in played)
    print(f"one rating scale (OpenSkill Plackett-Luce, {hands} hands, the pairs in turn):")
    for level, r in scale.items():
        print(
            f"  {level:>6}  mu {r['mu']:6.2f}  sigma {r['sigma']:5.2f}  ordinal {r['ordinal']:6.2f}"
        )
    if ratings_out:
        command = "; ".join([*played_by, "bench/bots_arena.py " + shlex.join(sys.argv[1:])])
        with open(ratings_out, "w", encoding="utf-8") as out:
            json.dump({"command": command, "hands": hands, "levels": scale}, out, indent=2)
            out.write("\n")


if __name__ == "__main__":
    main()
