"""The hint (``Game.hint``): melds to lay whether or not the seat has
opened, the lay-offs, a discard the rules allow, gin's best knock; and the
one discard policy that the hint and the greedy bots share."""

from __future__ import annotations

import pytest
from engine_helpers import card, discard, melds, names_of, stacked
from ramino.bots import make_bot
from ramino.engine import (
    Discard,
    DrawFromStock,
    Game,
    Knock,
    LayMelds,
    LayOff,
    PassUpcard,
    TakeDiscard,
)
from ramino.engine.hint import best_discards, discardable

# Seat 0 opens with 6S 7S 8S + TD TC TH (51) and keeps a set of threes.
S0 = "6S 7S 8S TD TC TH 3C 3D 3H 2C 9H JD QS 5H 4D"
S1 = "2H 3H 4H KS KD KC QC QH QD 7S 9D 9S 5C 8D"


def opened_with_threes(second_draw: str) -> Game:
    """Seat 0 has opened, then drawn ``second_draw``: its turn to play."""
    g = stacked("ramino51", [S0, S1], stock=f"9C {second_draw}")
    g.apply(0, melds(g, 0, "6S 7S 8S", "TD TC TH"))
    g.apply(0, discard(g, 0, "QS"))
    g.apply(1, DrawFromStock())
    g.apply(1, discard(g, 1, "9C"))
    g.apply(0, DrawFromStock())
    return g


def test_hint_a_seat_that_has_opened_and_holds_a_layable_set_of_threes_is_hinted_that_set() -> None:
    g = opened_with_threes("KH")
    assert g.state.seats[0].opened and g.state.phase == "play"
    h = g.hint(0)
    assert h is not None and not h.opening
    assert [sorted(names_of(g, m)) for m in h.melds] == [["3C", "3D", "3H"]]
    assert h.melds_value == 9
    g.apply(0, LayMelds(h.melds))  # laid as hinted
    assert sorted(names_of(g, g.state.melds[-1].cards)) == ["3C", "3D", "3H"]


def test_hint_before_opening_is_the_best_opening() -> None:
    g = stacked("ramino51", [S0, S1])
    h = g.hint(0)
    assert h is not None and h.opening
    assert sorted(sorted(names_of(g, m)) for m in h.melds) == [
        ["3C", "3D", "3H"],
        ["6S", "7S", "8S"],
        ["TC", "TD", "TH"],
    ]
    assert h.melds_value == 60
    g.apply(0, LayMelds(h.melds))


def test_hint_names_the_lay_offs_of_an_opened_seat() -> None:
    g = opened_with_threes("9S")
    h = g.hint(0)
    assert h is not None
    nine = card(g, 0, "9S")
    assert LayOff(nine, 0, "end") in h.layoffs
    in_melds = {c for m in h.melds for c in m}
    assert all(lo.card not in in_melds for lo in h.layoffs)
    assert all(lo in g.legal_moves(0) for lo in h.layoffs)


def test_hint_discard_is_never_the_card_taken_from_the_discard_pile_nor_its_twin() -> None:
    # rami51 (two packs, taking free): seat 1 holds KS and takes another KS,
    # the costliest loose cards of its hand; neither may be discarded.
    s0 = "AD 2D 3D 4C 5C 6C 7H 8H 9H JC JH 2S 4S KS"
    s1 = "AS 2S 3S 4H 5H 6H 7C 8C 9C 2C 5D 7D 9D KS"
    g = stacked("rami51", [s0, s1], stock="QD 8S")
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "KS"))
    g.apply(1, TakeDiscard())
    h = g.hint(1)
    assert h is not None
    assert g.rules.names[h.discard] != "KS"
    g.check(1, Discard(h.discard))  # legal


def test_hint_discard_in_gin_keeps_the_upcard_just_taken() -> None:
    g = stacked(
        "gin", ["AS 2S 3S 4H 5H 6H 7C 8C 9C 2D", "4S 3H 6C QC QD QH AD AC AH 2C"], upcard="KS"
    )
    g.apply(0, TakeDiscard())
    h = g.hint(0)
    assert h is not None and g.rules.names[h.discard] == "2D"


def test_hint_gin_best_knock_and_its_unmatched_total() -> None:
    knocker = "AS 2S 3S 4H 5H 6H 7C 8C 9C KD"
    g = stacked("gin", [knocker, "4S 3H 6C QC QD QH AD AC AH 2C"], upcard="JS", stock="2D")
    g.apply(0, PassUpcard())
    g.apply(1, PassUpcard())
    g.apply(0, DrawFromStock())
    h = g.hint(0)
    assert h is not None and h.melds == ()
    assert h.knock is not None and h.knock_unmatched == 2
    assert h.knock.discard == card(g, 0, "KD")
    assert h.knock == next(m for m in g.legal_moves(0) if isinstance(m, Knock))


def test_hint_after_opening_keeps_a_card_to_discard_when_everything_melds() -> None:
    # Seat 0 opened; its hand then melds whole, but ramino51 goes out only
    # by discarding: the hint lays all but the meld of least value, and
    # the discard is a card of that meld.
    s0 = "6S 7S 8S TD TC TH 3C 3D 3H 4H 5H 6H 9C 9D QS"
    g = stacked("ramino51", [s0, S1], stock="KH 9H")
    g.apply(0, melds(g, 0, "6S 7S 8S", "TD TC TH"))
    g.apply(0, discard(g, 0, "QS"))
    g.apply(1, DrawFromStock())
    g.apply(1, discard(g, 1, "KH"))
    g.apply(0, DrawFromStock())
    h = g.hint(0)
    assert h is not None
    assert sorted(sorted(names_of(g, m)) for m in h.melds) == [
        ["4H", "5H", "6H"],
        ["9C", "9D", "9H"],
    ]
    assert g.rules.names[h.discard] in ("3C", "3D", "3H")
    g.apply(0, LayMelds(h.melds))
    g.apply(0, Discard(h.discard))


@pytest.mark.parametrize("variant", ["ramino51", "rami51", "rummy", "gin"])
def test_hint_discard_is_the_greedy_bots_policy(variant: str) -> None:
    """The hint's discard is one of the cards the greedy bot draws among, and
    every discard the greedy bot makes is one of them."""
    players = ["a", "b"]
    g = Game.new(variant, players, seed=31)
    bots = [make_bot("greedy", 5), make_bot("greedy", 6)]
    checked = 0
    for _ in range(400):
        if g.finished:
            break
        seat = g.state.turn
        cmd = bots[seat].choose(g, seat)
        s = g.state
        hand = list(s.seats[seat].hand)
        h = g.hint(seat)
        assert h is not None
        allowed = discardable(g.rules, hand, s.taken, s.pending_joker) or hand
        best = best_discards(g.rules, hand, allowed)
        if not h.melds:
            assert h.discard == best[0]
        if isinstance(cmd, Discard):
            assert cmd.card in best
            g.check(seat, Discard(h.discard))  # the hint's discard is legal too
            checked += 1
        g.apply(seat, cmd)
    assert checked > 10


@pytest.mark.parametrize("variant", ["ramino51", "rami51", "rummy", "gin"])
def test_hint_of_a_seat_off_its_turn_ignores_the_card_the_seat_on_turn_took(variant: str) -> None:
    """Every seat's hint at every position of greedy games: the card taken
    this turn (and a swapped joker waiting) belong to the seat on turn, so
    another seat's hint is made from its own hand alone, and never names a
    card it does not hold (a seat's client asks for its hint while the
    other plays)."""
    for i in range(25):
        seed = 7001 + i
        game = Game.new(variant, ["a", "b"], seed=seed, overrides={"max_rounds": 1})
        bots = [make_bot("greedy", seed + k) for k in range(2)]
        while not game.finished:
            for s in range(2):
                h = game.hint(s, game.legal_moves(s))
                held = set(game.state.seats[s].hand)
                if h is not None:
                    assert {c for m in h.melds for c in m} <= held
                    assert h.discard in held
            seat = game.state.turn
            assert seat is not None
            game.apply(seat, bots[seat].choose(game, seat))
