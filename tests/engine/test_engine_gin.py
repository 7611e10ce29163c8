"""Gin Rummy (RULES.md section 4, gin), one test per rule, on stacked deals.

Seat 0 is the non-dealer in round 1 and acts first on the first upcard."""

from __future__ import annotations

import ramino
from engine_helpers import card, discard, ids, lay_off, melds, reason_of, stacked
from ramino.engine import (
    AcceptLayout,
    DrawFromStock,
    Game,
    Knock,
    LayMelds,
    MatchEnded,
    PassUpcard,
    RoundEnded,
    TakeDiscard,
    reasons,
)
from ramino.engine.moves import hand_melds

KNOCKER = "AS 2S 3S 4H 5H 6H 7C 8C 9C KD"
DEFENDER = "4S 3H 6C QC QD QH AD AC AH 2C"


def gin(h0: str = KNOCKER, h1: str = DEFENDER, stock: str = "2D", **overrides: object) -> Game:
    return stacked("gin", [h0, h1], upcard="JS", stock=stock, overrides=overrides)  # type: ignore[arg-type]


def _both_pass_then_draw(g: Game) -> None:
    g.apply(0, PassUpcard())
    g.apply(1, PassUpcard())
    g.apply(0, DrawFromStock())


def _knock(g: Game, seat: int, dropped: str, *texts: str) -> Knock:
    return Knock(card(g, seat, dropped), melds(g, seat, *texts).melds)


def test_gin_first_upcard_non_dealer_then_dealer_then_stock() -> None:
    g = gin()
    assert g.legal_moves(0) == [TakeDiscard(), PassUpcard()]
    assert reason_of(g, 0, DrawFromStock()) == reasons.TAKE_OR_PASS_UPCARD
    g.apply(0, PassUpcard())
    assert g.state.turn == 1 and g.legal_moves(1) == [TakeDiscard(), PassUpcard()]
    g.apply(1, PassUpcard())
    assert g.state.turn == 0 and g.legal_moves(0) == [DrawFromStock()]
    assert reason_of(g, 0, TakeDiscard()) == reasons.UPCARD_PASSED
    g.apply(0, DrawFromStock())
    assert reason_of(g, 0, PassUpcard()) == reasons.ALREADY_DREW


def test_gin_knock_at_knock_card_or_less() -> None:
    g = gin()
    _both_pass_then_draw(g)
    assert reason_of(g, 0, melds(g, 0, "AS 2S 3S")) == reasons.MELDS_ONLY_BY_KNOCKING
    too_high = _knock(g, 0, "2D", "AS 2S 3S", "4H 5H 6H")
    assert reason_of(g, 0, too_high) == reasons.KNOCK_TOO_HIGH
    best = _knock(g, 0, "KD", "AS 2S 3S", "4H 5H 6H", "7C 8C 9C")
    legal = g.legal_moves(0)
    assert best in legal  # the best knock: 2 unmatched
    assert _knock(g, 0, "2D", "AS 2S 3S", "4H 5H 6H", "7C 8C 9C") in legal  # 10: still a knock


def test_gin_defender_lays_off_then_melds_and_undercuts() -> None:
    g = gin()
    _both_pass_then_draw(g)
    g.apply(0, _knock(g, 0, "2D", "AS 2S 3S", "4H 5H 6H", "7C 8C 9C"))  # KD unmatched: 10
    assert g.state.turn == 1 and g.state.phase == "layoff"
    assert reason_of(g, 0, AcceptLayout()) == reasons.NOT_YOUR_TURN
    g.apply(1, lay_off(g, 1, "4S", 0))
    g.apply(1, lay_off(g, 1, "3H", 1, "start"))
    g.apply(1, melds(g, 1, "QC QD QH"))
    assert reason_of(g, 1, lay_off(g, 1, "6C", 2, "start")) == reasons.NO_LAYOFF_AFTER_MELDS
    assert reason_of(g, 1, lay_off(g, 1, "AD", 3)) == reasons.LAYOFF_ONLY_ON_KNOCKERS_MELDS
    g.apply(1, melds(g, 1, "AD AC AH"))
    events = g.apply(1, AcceptLayout())
    ended = next(e for e in events if isinstance(e, RoundEnded))
    # Left: 6C 2C = 8 against the knocker's 10: an undercut, 10 - 8 + 25.
    assert ended.ending == "undercut" and ended.winner == 1 and ended.scores == (0, 27)


def test_gin_no_lay_offs_on_gin_and_the_gin_bonus() -> None:
    g = gin("AS 2S 3S 4S 4H 5H 6H 7C 8C 9C", "5S 7H QC QD QH AD AC AH 2C 3C", stock="KD")
    _both_pass_then_draw(g)
    g.apply(0, _knock(g, 0, "KD", "AS 2S 3S 4S", "4H 5H 6H", "7C 8C 9C"))
    assert reason_of(g, 1, lay_off(g, 1, "5S", 0)) == reasons.NO_LAYOFF_ON_GIN
    assert AcceptLayout() in g.legal_moves(1)
    g.apply(1, melds(g, 1, "QC QD QH"))
    events = g.apply(1, AcceptLayout())
    ended = next(e for e in events if isinstance(e, RoundEnded))
    # The defender keeps 5S 7H AD AC AH 2C 3C (its aces unlaid): 5+7+1+1+1+2+3 = 20.
    assert ended.ending == "gin" and ended.winner == 0 and ended.scores == (20 + 25, 0)
    # The winner deals the next hand, so the other seat starts.
    assert g.state.round == 2 and g.state.dealer == 0 and g.state.turn == 1


def test_gin_big_gin_needs_the_big_gin_rule() -> None:
    hand = "AS 2S 3S 4S 4H 5H 6H 7C 8C 9C"
    for on in (False, True):
        g = gin(hand, "5S 7H QC QD QH AD AC AH 2C 3C", stock="TC", big_gin=on)
        _both_pass_then_draw(g)
        big = Knock(None, melds(g, 0, "AS 2S 3S 4S", "4H 5H 6H", "7C 8C 9C TC").melds)
        if not on:
            assert reason_of(g, 0, big) == reasons.BIG_GIN_NOT_ALLOWED
            continue
        assert big in g.legal_moves(0)
        g.apply(0, big)
        ended = next(e for e in g.apply(1, AcceptLayout()) if isinstance(e, RoundEnded))
        left = 5 + 7 + 10 * 3 + 1 * 3 + 2 + 3
        assert ended.ending == "big_gin" and ended.scores == (left + 31, 0)


def test_gin_wall_knock_with_the_upcard_or_pass_for_a_draw() -> None:
    g = gin(wall_stock_size=30)  # the wall after the first card drawn from the stock
    _both_pass_then_draw(g)
    g.apply(0, discard(g, 0, "2D"))
    assert reason_of(g, 1, DrawFromStock()) == reasons.WALL_REACHED
    assert reason_of(g, 1, TakeDiscard()) == reasons.WALL_NEEDS_KNOCK
    assert g.legal_moves(1) == [PassUpcard()]
    events = g.apply(1, PassUpcard())
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.ending == "drawn" and ended.winner is None and ended.scores == (0, 0)
    assert g.state.dealer == 1  # after a draw the same dealer deals again


def test_gin_wall_upcard_taken_only_to_knock() -> None:
    g = gin(DEFENDER, KNOCKER, stock="5C", wall_stock_size=30)
    _both_pass_then_draw(g)
    g.apply(0, discard(g, 0, "5C"))  # the knocker's hand can knock with 5C
    g.apply(1, TakeDiscard())
    assert reason_of(g, 1, discard(g, 1, "KD")) == reasons.MUST_KNOCK
    g.apply(1, _knock(g, 1, "KD", "AS 2S 3S", "4H 5H 6H", "7C 8C 9C"))


def test_gin_taken_card_may_be_discarded_back_and_twice_is_a_draw() -> None:
    g = gin()
    up = g.state.discard[-1]
    g.apply(0, TakeDiscard())
    events = g.apply(0, discard(g, 0, "JS"))
    assert g.state.discard[-1] == up and not any(isinstance(e, RoundEnded) for e in events)
    g.apply(1, TakeDiscard())
    events = g.apply(1, discard(g, 1, "JS"))
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.ending == "drawn" and ended.scores == (0, 0)


def test_gin_match_bonuses_box_game_and_shutout() -> None:
    g = gin(target_score=1)
    _both_pass_then_draw(g)
    g.apply(0, _knock(g, 0, "2D", "AS 2S 3S", "4H 5H 6H", "7C 8C 9C"))
    g.apply(1, melds(g, 1, "QC QD QH"))
    g.apply(1, melds(g, 1, "AD AC AH"))
    events = g.apply(1, AcceptLayout())
    ended = next(e for e in events if isinstance(e, RoundEnded))
    # Left: 4S 3H 6C 2C = 15 against 10: the knocker scores 5.
    assert ended.ending == "knock" and ended.scores == (5, 0)
    over = next(e for e in events if isinstance(e, MatchEnded))
    # 5 + a box of 25 + the game's 100, doubled: the loser won no hand.
    assert over.winners == (0,) and over.totals == ((5 + 25 + 100) * 2, 0)
    assert [s.total for s in g.state.seats] == [260, 0]


def test_gin_commands_of_other_variants_are_refused() -> None:
    g = stacked("rummy", [KNOCKER, DEFENDER], upcard="JS")
    assert reason_of(g, 0, PassUpcard()) == reasons.NOT_KNOCKING_PLAY
    assert ids(g, 0, "AS")  # the hand is as dealt
    assert LayMelds not in {type(m) for m in g.legal_moves(1)}


def test_gin_state_survives_a_snapshot_and_a_replay_at_every_step() -> None:
    # The knocking fields of the state (the first upcard, passes, the knocker,
    # the defender's progress...) are in the snapshot and folded from the
    # record alike, at every step of a match played by bots.
    from ramino.bots import make_bot
    from ramino.engine import Record

    g = Game.new("gin", ["a", "b"], seed=11, overrides={"target_score": 50})
    bots = [make_bot("greedy", 1), make_bot("random", 2)]
    phases: set[str] = set()
    while not g.finished:
        header = Record(g.record.variant, g.record.overrides, g.record.players, g.record.seed)
        again = Game.from_snapshot(header, g.snapshot())
        assert again.state == g.state
        phases.add(g.state.phase)
        seat = g.state.turn
        g.apply(seat, bots[seat].choose(g, seat))
    assert Game.from_record(g.record).state == g.state
    assert {"draw", "play", "layoff"} <= phases


def test_gin_every_legal_move_is_accepted_and_the_seat_to_play_always_has_one() -> None:
    import random

    g = Game.new("gin", ["a", "b"], seed=21, overrides={"target_score": 60})
    rng = random.Random(21)
    kinds: set[str] = set()
    while not g.finished:
        seat = g.state.turn
        assert g.legal_moves(1 - seat) == []
        moves = g.legal_moves(seat)
        assert moves, "a seat to play always has a move"
        for m in moves:
            g.check(seat, m)
            kinds.add(type(m).__name__)
        knocks = [m for m in moves if isinstance(m, Knock)]
        g.apply(seat, knocks[0] if knocks and rng.random() < 0.5 else rng.choice(moves))
    assert {"PassUpcard", "TakeDiscard", "DrawFromStock", "Discard", "Knock"} <= kinds
    assert {"LayOff", "LayMelds", "AcceptLayout"} <= kinds


def test_gin_hand_melds_are_sets_by_rank_then_runs_by_suit() -> None:
    names = ["KC", "5H", "5S", "QC", "5D", "JC", "2S", "3S", "AS", "5C"]
    assert hand_melds(names, ramino.Variant("gin")) == [
        ["5S", "5H", "5D"],
        ["5S", "5H", "5C"],
        ["5S", "5D", "5C"],
        ["5H", "5D", "5C"],
        ["5S", "5H", "5D", "5C"],
        ["AS", "2S", "3S"],
        ["JC", "QC", "KC"],
    ]
