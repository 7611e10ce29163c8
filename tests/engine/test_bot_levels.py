"""The bot levels (issue 24): names, budgets, what the searching bots may
see, and the kernel's playouts as the bots call them."""

from __future__ import annotations

import random
from collections import Counter

import pytest
import ramino
from ramino._core import evaluate_actions
from ramino.bots import BOT_KINDS, LEVELS, Budget, SearchBot, make_bot
from ramino.bots.search import (
    KNOCKING_HORIZON,
    RUMMY_HORIZON,
    margin_weight,
    observe,
    playout_horizon,
)
from ramino.engine import Command, Game, IllegalMove, Knock, TookDiscard
from ramino.errors import InvalidHand
from ramino.simulate import play_game

CASES = [("ramino51", 2), ("ramino51", 4), ("rami51", 3), ("rummy", 2), ("gin", 2)]


def quick(level: str, seed: int) -> object:
    """A bot of ``level``; the searching ones on a small fixed iteration
    budget with no clock, so that tests are deterministic and fast."""
    return make_bot(level, seed, Budget(time_ms=None, iterations=4))


def test_every_level_is_made_by_name_and_unknown_names_are_refused() -> None:
    assert LEVELS == ("easy", "medium", "hard", "expert")
    for kind in BOT_KINDS:
        assert make_bot(kind, 1).kind == kind
    assert make_bot("hard", 1).heavy and make_bot("expert", 1).heavy
    assert not make_bot("medium", 1).heavy and not make_bot("easy", 1).heavy
    with pytest.raises(ValueError, match="unknown bot 'master': choose from random, greedy, easy"):
        make_bot("master", 1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"time_ms": None}, "needs a time, an iteration count, or both"),
        ({"time_ms": 0.0}, "positive number of ms, not 0.0"),
        ({"time_ms": None, "iterations": 0}, "at least 1, not 0"),
        ({"time_ms": 5.0, "width": 1}, "at least 2 discards, not 1"),
        ({"time_ms": 5.0, "margin_weight": -0.5}, "margin weight is at least 0, not -0.5"),
    ],
)
def test_a_bad_budget_is_refused_by_name(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Budget(**kwargs)  # type: ignore[arg-type]


def test_a_game_of_one_round_is_searched_for_its_win_and_a_match_for_its_points() -> None:
    # ramino51 and rami51 are one round (their winner is who goes out), rummy
    # and gin matches to a target score, where the points carry over.
    for variant in ("ramino51", "rami51"):
        assert margin_weight(Game.new(variant, ["a", "b"], seed=1).rules.variant) == 0.001
    for variant in ("rummy", "gin"):
        assert margin_weight(Game.new(variant, ["a", "b"], seed=1).rules.variant) == 0.01
    one_round = Game.new("gin", ["a", "b"], seed=1, overrides={"max_rounds": 1})
    assert margin_weight(one_round.rules.variant) == 0.001


@pytest.mark.parametrize(("variant", "players"), CASES)
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_a_legal_round_of_every_variant(
    variant: str, players: int, level: str
) -> None:
    bots = [quick(level if k % 2 == 0 else "medium", 11 + k) for k in range(players)]
    result = play_game(variant, bots, seed=2024 + players, overrides={"max_rounds": 1})  # type: ignore[arg-type]
    assert result.violations == []
    assert result.rounds == 1


def _hidden_permuted(variant: str, seed: int, moves: int, viewer: int) -> tuple[Game, Game] | None:
    """Two games that ``viewer`` cannot tell apart: the same commands, but
    the cards it has not seen (the others' hands, save what they took from
    the discard pile, and the stock) dealt in another order. None when the
    other order makes a command illegal (a discard taken before opening,
    whose opening is still in the hand)."""
    rng = random.Random(seed)
    size = ramino.Variant(variant).deck_size
    order = list(range(size))
    rng.shuffle(order)
    a = Game.new(variant, ["a", "b"], seed=seed, decks=[order], overrides={"max_rounds": 1})
    greedy = [make_bot("medium", seed + k) for k in range(2)]
    played: list[tuple[int, Command]] = []
    for _ in range(moves):
        if a.finished:
            break
        seat = a.state.turn
        cmd = greedy[seat].choose(a, seat)
        if isinstance(cmd, Knock):
            break  # a knock shows the knocker's hand
        a.apply(seat, cmd)
        played.append((seat, cmd))
    taken = {e.card for e in a.record.events if isinstance(e, TookDiscard)}
    hidden = set(a.state.stock)
    for s, st in enumerate(a.state.seats):
        if s != viewer:
            hidden |= set(st.hand) - taken
    ids = sorted(hidden)
    shuffled = ids[:]
    while shuffled == ids:
        rng.shuffle(shuffled)
    swap = dict(zip(ids, shuffled, strict=True))
    b = Game.new(
        variant,
        ["a", "b"],
        seed=seed,
        decks=[[swap.get(c, c) for c in order]],
        overrides={"max_rounds": 1},
    )
    for seat, cmd in played:
        try:
            b.apply(seat, cmd)
        except IllegalMove:
            return None
    return a, b


@pytest.mark.parametrize("variant", ["gin", "rummy", "ramino51", "rami51"])
def test_a_searching_bot_plays_identically_when_the_hidden_cards_differ(variant: str) -> None:
    checked = 0
    for seed in range(40):
        pair = _hidden_permuted(variant, seed, moves=6 + seed % 9, viewer=0)
        if pair is None:
            continue
        a, b = pair
        if a.finished or a.state.turn != 0:
            continue
        assert a.view(0) == b.view(0)
        assert a.events(0) == b.events(0)
        others_a = [sorted(s.hand) for s in a.state.seats[1:]] + [sorted(a.state.stock)]
        others_b = [sorted(s.hand) for s in b.state.seats[1:]] + [sorted(b.state.stock)]
        assert others_a != others_b  # the hidden cards really are elsewhere
        budget = Budget(time_ms=None, iterations=12)
        first = SearchBot(seed, "hard", budget).choose(a, 0)
        second = SearchBot(seed, "hard", budget).choose(b, 0)
        assert first == second
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_what_a_seat_is_said_to_have_seen_agrees_with_the_hidden_state(
    variant: str, players: int
) -> None:
    """The sampler's input against the true state: the unseen cards are
    exactly the others' unknown cards and the stock, every card said to be
    known in a hand is in it, and the counts add up."""
    for seed in range(6):
        g = Game.new(
            variant, [f"p{k}" for k in range(players)], seed=seed, overrides={"max_rounds": 1}
        )
        bots = [make_bot("medium", seed + k) for k in range(players)]
        steps = 0
        while not g.finished and steps < 120:
            seat = g.state.turn
            obs = observe(g, seat)
            names = g.rules.names
            truth: Counter[str] = Counter(names[c] for c in g.state.stock)
            for k, s in enumerate(g.state.seats):
                hand = Counter(names[c] for c in s.hand)
                if k == seat:
                    assert Counter(obs.known[k]) == hand
                    continue
                known = Counter(obs.known[k])
                assert not known - hand, f"seat {k} is said to hold {known - hand}"
                truth += hand - known
            assert Counter(obs.unseen) == truth
            assert obs.stock_size == len(g.state.stock)
            assert obs.hand_sizes == [len(s.hand) for s in g.state.seats]
            g.apply(seat, bots[seat].choose(g, seat))
            steps += 1


def _gin_seen(
    actions: list[str], iterations: int, seed: int = 3, **extra: float
) -> list[tuple[float, int, int, float, float]]:
    v = ramino.Variant("gin")
    mine = "AS 2S 3S 4H 5H 6H 9C 9D KC QD JH".split()
    unseen = [str(c) for c in ramino.deck_cards(v) if str(c) not in mine]
    return evaluate_actions(
        v,
        seat=0,
        hand_sizes=[11, 10],
        known=[mine, []],
        opened=[False, False],
        had_turn=[True, True],
        discarded=[[], []],
        laid_any=[False, False],
        discard=[],
        table=[],
        unseen=unseen,
        stock_size=len(unseen) - 10,
        actions=actions,
        iterations=iterations,
        seed=seed,
        **extra,
    )


def test_the_iteration_budget_is_honoured_exactly_and_repeats() -> None:
    for n in (1, 7, 30):
        evals = _gin_seen(["discard KC", "discard 4H", "discard 9C"], n)
        assert [e[1] for e in evals] == [n, n, n]
        assert all(0 <= e[2] <= n for e in evals)
    assert _gin_seen(["discard KC", "discard 4H"], 25) == _gin_seen(
        ["discard KC", "discard 4H"], 25
    )
    assert _gin_seen(["discard KC", "discard 4H"], 25) != _gin_seen(
        ["discard KC", "discard 4H"], 25, seed=4
    )


def test_the_playouts_weigh_a_point_at_a_hundredth_unless_told_otherwise() -> None:
    actions = ["discard KC", "discard 4H"]
    assert _gin_seen(actions, 40) == _gin_seen(actions, 40, margin_weight=0.01)
    assert _gin_seen(actions, 40) != _gin_seen(actions, 40, margin_weight=0.0)
    with pytest.raises(ValueError, match="margin_weight is a number at least 0, not -1"):
        _gin_seen(actions, 4, margin_weight=-1.0)


def test_playouts_stop_at_the_horizon_of_their_variant() -> None:
    assert playout_horizon(ramino.Variant("gin")) == KNOCKING_HORIZON
    for name in ("ramino51", "rami51", "rummy"):
        assert playout_horizon(ramino.Variant(name)) == RUMMY_HORIZON
    actions = ["discard KC", "discard 4H"]
    # Cut at the next turn, no playout ends in a win; to the end, some do.
    cut = _gin_seen(actions, 30, horizon=0)
    assert [e[1:3] for e in cut] == [(30, 0), (30, 0)]
    assert cut[0][0] > cut[1][0]
    assert any(e[2] > 0 for e in _gin_seen(actions, 30))
    assert _gin_seen(actions, 30) == _gin_seen(actions, 30, horizon=None)


def test_the_playouts_refuse_bad_input_by_name() -> None:
    with pytest.raises(InvalidHand, match="the action discard 7H is not possible here") as e:
        _gin_seen(["discard 7H"], 1)
    assert e.value.reason == "BAD_ACTION"
    with pytest.raises(InvalidHand, match="not an action"):
        _gin_seen(["meld"], 1)
    with pytest.raises(InvalidHand) as e2:
        _gin_seen([], 1)
    assert e2.value.reason == "NO_ACTIONS"


def test_a_card_that_left_a_hand_is_not_known_there_after_the_pile_is_reshuffled() -> None:
    """A card another seat took from the discard pile and later discarded
    (or melded) is no longer known to be in its hand: once the pile is
    reshuffled into the stock it is unseen again. (Three hard seats in rummy,
    seed 55436, once searched with a third seat's hand said to hold more
    known cards than cards.)"""
    seed = 55436
    g = Game.new("rummy", ["a", "b", "c"], seed=seed)
    budget = Budget(time_ms=None, iterations=12, width=3)
    bots = [SearchBot(seed * 8 + s, "hard", budget) for s in range(3)]
    while not g.finished:
        seat = g.turn
        assert seat is not None
        obs = observe(g, seat)
        for k, s in enumerate(g.state.seats):
            names = Counter(g.rules.names[c] for c in s.hand)
            assert not Counter(obs.known[k]) - names
        g.apply(seat, bots[seat].choose(g, seat))
