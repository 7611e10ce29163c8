"""Where the rummy variants' cut weights came from (issue 33): figures only.

A playout of the searching bots that stops before the round's end is worth
the lead of the seat's hand over the others' (``core_rs/ramino-core/src/
playout.rs``, ``cut_distances``). In the rummy variants that lead is a
distance from going out: the cards the hand's least deadwood leaves loose
(less those a seat that may lay off can lay off on the table), the penalty
it would pay (the never-opened penalty where that is scored) and, for a
seat still to open, the points its melds in hand fall short of the
threshold by. This script weighs those features as the rounds do: two
greedy (``medium``) bots play ``--games`` one-round hands of each variant;
at the start of every turn each seat's features are taken from the whole
state, and a logistic regression of "seat 0 won" on the difference of the
two seats' features (and who is to move) is fitted by Newton's method over
the turns from ``--from-turn`` on (a cut comes some turns into a round).

Printed per variant: each coefficient with its standard error (the turns
of one hand are not independent: the true errors are some times larger),
the scale
(2 / the loose cards' coefficient: ``tanh(lead / scale)`` is then
``2 P(win) - 1``) and the other weights in loose cards. The loose cards
decide (a scale of 7 to 12 of them); the penalty held and the opening
still lacking weigh a fraction of a card per ten points, of a sign that
varies with the variant and the sample (a hand still to open keeps its
melds in hand: the terms are confounded). The playouts' weights
(``RUMMY_CUT_*``) were screened in the arena against hand-set ones and
scored alike within the noise (``bench/README.md``, "Issue 33: what each
step bought").

In gin (``--variants gin``) a cut playout is worth its lead in least
deadwood. The same fit weighs beside it what else the least deadwood of a
hand says: its loose cards, the ranks held twice among them, the pairs of
one suit within two ranks among them, and its melds. This was the learned
evaluation tried at gin's cut (issue 33, 2026-12-04): the fit's
weights, read into a throwaway build, bought nothing in the arena over the
deadwood alone, and were not kept.

Run: ``nice -n 10 .venv/bin/python bench/cut_fit.py --games 2000``; gin's:
``nice -n 10 .venv/bin/python bench/cut_fit.py --games 12000 --variants gin --seed 2000
--from-turn 9``.
"""

from __future__ import annotations

import argparse
import math

from ramino._core import layoff_targets, min_deadwood, parse_cards, penalty
from ramino.bots import make_bot
from ramino.engine import Game, RoundEnded
from ramino.simulate import game_seed

FEATURES = ["loose", "unopened", "short/10", "held/10"]
GIN_FEATURES = ["deadwood", "loose", "pairs", "near", "melds"]


def gin_features(cards: list[str], game: Game) -> list[float]:
    """What a gin hand's least deadwood says (:data:`GIN_FEATURES`)."""
    d = min_deadwood(cards, game.rules.variant)
    # Gin has no jokers: every card has a rank.
    cards_left = parse_cards([str(c) for c in d.deadwood])
    loose = [(c.rank, c.suit) for c in cards_left if c.rank is not None]
    ranks = [r for r, _ in loose]
    pairs = sum(1 for r in set(ranks) if ranks.count(r) >= 2)
    near = sum(
        1
        for i, (r, s) in enumerate(loose)
        for r2, s2 in loose[i + 1 :]
        if s == s2 and abs(r - r2) <= 2
    )
    return [float(d.value), float(len(loose)), float(pairs), float(near), float(len(d.melds))]


def seat_features(game: Game) -> list[list[float]]:
    """Each seat's features now (the whole state: every hand)."""
    st = game.state
    v = game.rules.variant
    deck = game.view(None).deck
    needs_opening = v.open_threshold > 0 or v.open_requires_pure_run
    if v.knocking:
        return [gin_features([deck[c] for c in s.hand], game) for s in st.seats]
    table = [[deck[c] for c in m.cards] for m in st.melds]
    out = []
    for s in st.seats:
        cards = [deck[c] for c in s.hand]
        unopened = needs_opening and not s.opened
        d = min_deadwood(cards, v)
        loose = list(d.deadwood)
        pen = penalty(cards, v)
        if not unopened and table and loose:
            fits = {str(f.card) for f in layoff_targets(loose, table, v)}
            loose = [c for c in loose if str(c) not in fits]
        held = v.never_opened_penalty if unopened and v.never_opened_penalty else pen
        short = max(0, v.open_threshold - (pen - d.value)) if unopened else 0
        out.append([float(len(loose)), float(unopened), short / 10, held / 10])
    return out


Row = tuple[int, int, list[list[float]], int | None]
"""A turn's start: its number, the seat to move, both seats' features, and
the round's winner."""


def turns(variant: str, games: int, seed: int) -> list[Row]:
    """A :data:`Row` at the start of every turn of ``games`` greedy hands."""
    rows: list[Row] = []
    for i in range(games):
        gs = game_seed(seed, i)
        bots = [make_bot("medium", gs + k) for k in range(2)]
        game = Game.new(variant, ["a", "b"], seed=gs, overrides={"max_rounds": 1})
        seen: list[tuple[int, int, list[list[float]]]] = []
        while not game.finished:
            seat = game.state.turn
            if game.state.phase == "draw":
                seen.append((len(seen) + 1, seat, seat_features(game)))
            game.apply(seat, bots[seat].choose(game, seat))
        ended = next(e for e in game.record.events if isinstance(e, RoundEnded))
        rows.extend((t, s, f, ended.winner) for t, s, f in seen)
    return rows


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``x`` with ``a x = b`` (Gauss-Jordan with partial pivoting)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(rows: list[Row], first: int, names: list[str]) -> None:
    """Fits and prints the logistic regression of the rows from turn
    ``first`` on; ``names``: the features' and "to move" last."""
    xs: list[list[float]] = []
    ys: list[float] = []
    for t, seat, f, winner in rows:
        if winner is None or t < first:
            continue
        xs.append([b - a for a, b in zip(f[0], f[1], strict=True)] + [1.0 if seat == 0 else -1.0])
        ys.append(1.0 if winner == 0 else 0.0)
    # Only the features that vary (no opening: no unopened seat, no shortfall).
    cols = [i for i in range(len(names)) if len({x[i] for x in xs}) > 1]
    xs = [[x[i] for i in cols] for x in xs]
    k = len(cols)
    beta = [0.0] * k
    hessian = [[0.0] * k for _ in range(k)]
    for _ in range(30):
        grad = [0.0] * k
        hessian = [[1e-6 if i == j else 0.0 for j in range(k)] for i in range(k)]
        for x, y in zip(xs, ys, strict=True):
            p = 1 / (1 + math.exp(-sum(b * v for b, v in zip(beta, x, strict=True))))
            w = p * (1 - p)
            for i in range(k):
                grad[i] += (y - p) * x[i]
                for j in range(k):
                    hessian[i][j] += w * x[i] * x[j]
        beta = [b + d for b, d in zip(beta, solve(hessian, grad), strict=True)]
    se = [math.sqrt(solve(hessian, [float(i == j) for j in range(k)])[i]) for i in range(k)]
    print(f"  {len(ys)} turns from turn {first}")
    for c, b, e in zip(cols, beta, se, strict=True):
        print(f"    {names[c]:9} {b:+.3f} +- {e:.3f}")
    unit = beta[cols.index(0)]
    weights = ", ".join(f"{names[c]} {b / unit:+.2f}" for c, b in zip(cols, beta, strict=True))
    print(f"    scale {2 / unit:.1f} {names[0]}; in {names[0]}: {weights}")


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--games", type=int, default=2000, help="hands per variant")
    p.add_argument("--variants", default="ramino51,rami51,rummy")
    p.add_argument("--from-turn", type=int, default=8, help="fit the turns from this one on")
    p.add_argument("--seed", type=int, default=1000)
    args = p.parse_args()
    for variant in args.variants.split(","):
        print(variant)
        names = GIN_FEATURES if variant == "gin" else FEATURES
        fit(turns(variant, args.games, args.seed), args.from_turn, names + ["to move"])


if __name__ == "__main__":
    main()
