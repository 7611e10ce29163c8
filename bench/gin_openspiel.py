"""Gin: Ramino's bot levels against OpenSpiel's bots on the same hands
(issue 24): figures only, nothing asserted.

Each hand is Ramino's deal of a game seed (``ramino.simulate.game_seed``),
replayed in OpenSpiel's ``gin_rummy`` (its chance outcomes are the deal, the
upcard, then the stock's cards in Ramino's order), and played twice with the
seats swapped. OpenSpiel's state is the authority: the OpenSpiel bot acts on
it, and the Ramino bot acts on a Ramino game kept move for move beside it
(the replay of ``tests/engine/test_gin_openspiel.py``, which checks the two
rule sets against each other), its command turned into OpenSpiel's actions.
After a knock both sides lay out as the greedy bot does: the knocker the
melds of its knock (runs longer than OpenSpiel's five cut in two), the
defender every lay-off OpenSpiel offers, then the melds of its least
deadwood. A hand is scored by OpenSpiel's returns.

Opponents: ``pyspiel.make_simple_gin_rummy_bot``, and OpenSpiel's ISMCTS bot
(random-rollout evaluator) given the Ramino level's time a decision.

Run: ``nice -n 10 .venv/bin/python bench/gin_openspiel.py --games 100
--level hard`` (needs ``make openspiel``); ``--iterations N`` as in
``bench/bots_arena.py`` (the ISMCTS bot then gets the level's default time).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyspiel  # type: ignore[import-not-found]  # noqa: E402
import ramino  # noqa: E402
from bots_arena import budgets, interval  # noqa: E402
from ramino.bots import LEVEL_BUDGETS, Bot, Budget, make_bot  # noqa: E402
from ramino.engine import (  # noqa: E402
    Command,
    Discard,
    DrawFromStock,
    DrewFromStock,
    Game,
    Knock,
    PassUpcard,
    RoundStarted,
    TakeDiscard,
)
from ramino.simulate import game_seed  # noqa: E402

from tests.engine.test_gin_openspiel import (  # noqa: E402
    KNOCK,
    PASS,
    STOCK,
    TAKE,
    Replay,
    Tables,
    phase_of,
)


def ramino_deal(seed: int) -> tuple[list[list[str]], str, list[str]]:
    """The first hand of a Ramino gin game of ``seed``: the hands in turn
    order, the upcard, the stock's cards in the order they are drawn."""
    g = Game.new("gin", ["a", "b"], seed=seed)
    dealt = next(e for e in g.record.events if isinstance(e, RoundStarted))
    names = g.rules.names
    first = dealt.first_player
    hands = [[names[c] for c in dealt.hands[(first + k) % 2] or ()] for k in range(2)]
    assert dealt.upcard is not None and dealt.stock is not None
    return hands, names[dealt.upcard], [names[c] for c in reversed(dealt.stock)]


class Side:
    """A Ramino bot in an OpenSpiel hand: its command on the replayed game
    turned into OpenSpiel actions, one at a time."""

    def __init__(self, bot: Bot, replay: Replay) -> None:
        self.bot = bot
        self.replay = replay
        self.queue: list[int] = []
        self.fallbacks = 0

    def os_card(self, card: int) -> int:
        return self.replay.os_card(card)

    def meld_actions(self, meld: tuple[int, ...]) -> list[int]:
        """OpenSpiel's meld actions laying ``meld`` (a run longer than five
        cut into runs of three to five)."""
        action = self.replay.meld_action_of(meld)
        if action is not None:
            return [action]
        cut = 3 if len(meld) - 3 >= 3 else len(meld) - 3
        return self.meld_actions(meld[:cut]) + self.meld_actions(meld[cut:])

    def knock_actions(self, cmd: Knock) -> list[int]:
        assert cmd.discard is not None
        out = [self.os_card(cmd.discard)]
        for m in cmd.melds:
            out += self.meld_actions(m)
        return [*out, PASS]

    def act(self, state: Any, seat: int, phase: str, finished_layoffs: bool) -> int:
        legal = state.legal_actions()
        if self.queue:
            a = self.queue.pop(0)
            if a in legal:
                return a
            self.queue.clear()
            self.fallbacks += 1
        game = self.replay.game
        if phase == "Knock":
            best = game.knocks(seat)
            if best and best[0].discard is not None:
                self.queue = self.knock_actions(best[0])
                return self.act(state, seat, phase, finished_layoffs)
        if phase == "Layoff":
            return self.layout(state, legal, finished_layoffs)
        cmd: Command = self.bot.choose(game, seat)
        if phase in ("FirstUpcard", "Draw"):
            a = {TakeDiscard(): TAKE, DrawFromStock(): STOCK, PassUpcard(): PASS}.get(cmd, STOCK)
        elif phase == "Wall":
            a = KNOCK if isinstance(cmd, TakeDiscard) else PASS
        elif isinstance(cmd, Knock):
            self.queue = self.knock_actions(cmd)
            a = KNOCK
        elif isinstance(cmd, Discard):
            a = self.os_card(cmd.card)
        else:
            a = -1
        if a not in legal:
            self.fallbacks += 1
            a = legal[0]
        return a

    def layout(self, state: Any, legal: list[int], finished_layoffs: bool) -> int:
        """The defender, as the greedy bot: every lay-off, then the melds of
        the least deadwood of what is left."""
        cards = [a for a in legal if a < 52]
        if not finished_layoffs:
            return cards[0] if cards else PASS
        melds = [a for a in legal if a >= 56]
        if not melds:
            return PASS
        t = self.replay.t
        game = self.replay.game
        seat = game.state.turn
        names = [game.rules.names[c] for c in game.state.seats[seat].hand]
        best = ramino.min_deadwood(names, t.variant).melds if names else []
        wanted = {frozenset(m) for m in best}
        for a in melds:
            if frozenset(t.meld_cards[a]) in wanted:
                return a
        return PASS


def ismcts(seed: int, simulations: int, seconds: float) -> Any:
    return pyspiel.ISMCTSBot(
        seed,
        pyspiel.RandomRolloutEvaluator(1, seed),
        2.0,
        simulations,
        -1,
        pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        False,
        False,
        seconds,
    )


class Opponent:
    """An OpenSpiel bot. The ISMCTS bot fails when its time runs out before
    its root is visited (a random rollout of gin is long); it then makes
    that decision with two simulations (its fewest that work), counted in
    the notes."""

    def __init__(self, kind: str, game: Any, player: int, seed: int, seconds: float) -> None:
        self.kind = kind
        if kind == "simple":
            self.bot = pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player)
        else:
            self.bot = ismcts(seed, 1_000_000, seconds)
            self.one = ismcts(seed, 2, -1.0)
        self.short = 0

    def step(self, state: Any) -> int:
        try:
            return int(self.bot.step(state))
        except pyspiel.SpielError:
            if self.kind == "simple":
                raise
            self.short += 1
            return int(self.one.step(state))


def play_hand(
    tables: Tables, level: str, seat: int, seed: int, table: dict[str, Budget], kind: str
) -> tuple[float, Counter[str]]:
    """One hand, the Ramino bot as OpenSpiel's player ``seat``: its return."""
    hands, upcard, draws = ramino_deal(seed)
    replay = Replay(tables, hands, upcard, draws)
    side = Side(make_bot(level, seed, table.get(level)), replay)
    game = pyspiel.load_game("gin_rummy")
    # The ISMCTS bot's time a decision: the level's (hard's for a level that
    # does not search).
    default = LEVEL_BUDGETS.get(level, LEVEL_BUDGETS["hard"])
    budget = table.get(level, default)
    seconds = (budget.time_ms or default.time_ms or 20.0) / 1000
    other = Opponent(kind, game, 1 - seat, seed % 2**31, seconds)
    state = game.new_initial_state()
    deal = [*hands[0], *hands[1], upcard]
    for name in deal:
        state.apply_action(replay.os_card(tables.id_of[name]))
    notes: Counter[str] = Counter()
    finished_layoffs = False
    while not state.is_terminal():
        if state.is_chance_node():
            drawn = next(
                e for e in reversed(replay.game.record.events) if isinstance(e, DrewFromStock)
            )
            assert drawn.card is not None
            state.apply_action(replay.os_card(drawn.card))
            continue
        player = state.current_player()
        phase = phase_of(state)
        finished_layoffs = replay.finished_layoffs_known
        if player == seat:
            action = side.act(state, player, phase, finished_layoffs)
        else:
            action = other.step(state)
        try:
            replay.apply(player, phase, action, finished_layoffs)
        except ramino.RaminoError:
            notes["mirror_lost"] += 1
            break
        if phase == "Layoff" and action == PASS and not finished_layoffs:
            replay.finished_layoffs_known = True
        if phase == "Knock" and action == PASS and not replay.game.state.seats[player].hand:
            replay.finished_layoffs_known = True
        state.apply_action(action)
    notes["fallbacks"] += side.fallbacks
    notes["ismcts_two_simulations"] += other.short
    if not state.is_terminal():
        return 0.0, notes
    return float(state.returns()[seat]), notes


def against_openspiel(level: str, games: int, seed: int, table: dict[str, Budget]) -> None:
    tables = Tables(pyspiel.load_game("gin_rummy"))
    for kind in ("simple", "ismcts"):
        returns: list[float] = []
        wins: list[float] = []
        mine = theirs = 0.0
        notes: Counter[str] = Counter()
        start = time.process_time()
        for i in range(games):
            r, n = play_hand(tables, level, i % 2, game_seed(seed, i // 2), table, kind)
            notes += n
            returns.append(r)
            wins.append(1.0 if r > 0 else 0.0 if r < 0 else 0.5)
            mine += max(r, 0.0)
            theirs += max(-r, 0.0)
        w, wi = interval(wins)
        m, mi = interval(returns)
        share = mine / (mine + theirs) if mine + theirs else 0.5
        per_hand = 1000 * (time.process_time() - start) / games
        print(
            f"  gin {level:>6} vs OpenSpiel {kind:<6} {len(returns):5} hands  "
            f"wins {100 * w:5.1f}% +-{100 * wi:4.1f}  margin {m:+7.2f} +-{mi:5.2f}  "
            f"points share {100 * share:5.1f}%  {per_hand:7.1f} ms/hand  {dict(notes)}",
            flush=True,
        )


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--games", type=int, default=2000, help="hands per opponent (default 2000)")
    p.add_argument("--level", default="hard", help="the Ramino level (default hard)")
    p.add_argument("--iterations", type=int, default=None)
    p.add_argument("--time-ms", type=float, default=None)
    p.add_argument("--seed", type=int, default=24)
    args = p.parse_args()
    table = budgets(args.iterations, args.time_ms)
    against_openspiel(args.level, args.games, args.seed, table)


if __name__ == "__main__":
    main()
