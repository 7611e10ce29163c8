"""One test (at least) per rule of RULES.md sections 4 and 5, on constructed deals.

Seat 0 plays first in round 1 (the first dealer is the last seat)."""

from __future__ import annotations

import pytest
import ramino
from engine_helpers import (
    card,
    discard,
    hand_names,
    ids,
    lay_off,
    melds,
    names_of,
    play_out,
    reason_of,
    stacked,
    swap,
)
from ramino.engine import (
    Discard,
    Discarded,
    DiscardPileTurnedOver,
    DrawFromStock,
    DrewFromStock,
    Game,
    IllegalMove,
    LayMelds,
    MalformedCommand,
    MatchEnded,
    MeldsLaid,
    Resign,
    RoundEnded,
    RoundStarted,
    StockReshuffled,
    TakeDiscard,
    TurnOverDiscardPile,
    reasons,
    reshuffle_seed,
)

# ramino51, two players. Seat 0 can open 51 at once; seat 1 can open with
# 2H 3H 4H + KS KD KC + QC QH QD (69).
R51_S0 = "6S 7S 8S TD TC TH 5S 2C 3D 9H JD QS 5H 4C 9C"
R51_S1 = "2H 3H 4H KS KD KC QC QH QD 7S 9D 9S 5C 8D"


def r51(stock: str = "", **overrides: object) -> Game:
    return stacked("ramino51", [R51_S0, R51_S1], stock=stock, overrides=overrides)  # type: ignore[arg-type]


# --- the deal ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_deal_ramino51_first_player_15_others_14(players: int) -> None:
    g = Game.new("ramino51", [f"p{i}" for i in range(players)], seed=11)
    sizes = [len(s.hand) for s in g.state.seats]
    assert sizes == [15] + [14] * (players - 1)
    assert g.state.discard == []
    assert len(g.state.stock) == 108 - 15 - 14 * (players - 1)
    assert g.state.turn == 0 and g.state.phase == "play"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_rami51_14_each_discard_pile_empty(players: int) -> None:
    g = Game.new("rami51", [f"p{i}" for i in range(players)], seed=12)
    assert [len(s.hand) for s in g.state.seats] == [14] * players
    assert g.state.discard == []
    assert g.state.phase == "draw"
    assert len(g.state.stock) == 108 - 14 * players


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_deal_rummy_10_7_6_and_the_upcard(players: int, size: int) -> None:
    g = Game.new("rummy", [f"p{i}" for i in range(players)], seed=13)
    assert [len(s.hand) for s in g.state.seats] == [size] * players
    assert len(g.state.discard) == 1
    assert len(g.state.stock) == 52 - size * players - 1
    started = g.record.events[0]
    assert isinstance(started, RoundStarted) and g.state.discard == [started.upcard]


def test_deal_player_counts_outside_the_variant_are_refused() -> None:
    from ramino.engine import InvalidSetup

    with pytest.raises(InvalidSetup) as e:
        Game.new("rami51", ["a", "b", "c", "d", "e"], seed=1)
    assert e.value.reason == reasons.PLAYER_COUNT
    with pytest.raises(InvalidSetup):
        Game.new("rummy", ["solo"], seed=1)


def test_deal_is_a_deterministic_shuffle_of_the_round_seed() -> None:
    from ramino.engine import round_seed

    g = Game.new("rummy", ["a", "b", "c"], seed=2**200 + 5)
    order = ramino.shuffle(round_seed(2**200 + 5, 1), 52)
    # One card at a time from the first player (seat 0, left of the dealer,
    # seat 2), 7 each; then the upcard; the rest is the stock, its next card
    # on top (last).
    hands = [list(order[i:21:3]) for i in range(3)]
    assert [g.state.seats[s].hand for s in (0, 1, 2)] == hands
    assert g.state.discard == [order[21]] and g.state.stock == list(reversed(order[22:]))
    again = Game.new("rummy", ["a", "b", "c"], seed=2**200 + 5)
    assert again.record.to_json() == g.record.to_json()
    other = Game.new("rummy", ["a", "b", "c"], seed=2**200 + 6)
    assert other.state.stock != g.state.stock


# --- turns ---------------------------------------------------------------------------


def test_first_turn_has_no_draw() -> None:
    g = r51()
    assert g.state.phase == "play"
    assert reason_of(g, 0, DrawFromStock()) == reasons.FIRST_TURN_HAS_NO_DRAW
    g.apply(0, discard(g, 0, "2C"))
    assert g.state.turn == 1 and g.state.phase == "draw"
    assert reason_of(g, 1, discard(g, 1, "8D")) == reasons.MUST_DRAW_FIRST
    g.apply(1, DrawFromStock())
    assert reason_of(g, 1, DrawFromStock()) == reasons.ALREADY_DREW


def test_first_player_draws_in_rami51() -> None:
    g = Game.new("rami51", ["a", "b"], seed=3)
    assert g.state.turn == 0 and g.state.phase == "draw"
    assert reason_of(g, 0, Discard(g.state.seats[0].hand[0])) == reasons.MUST_DRAW_FIRST
    g.apply(0, DrawFromStock())
    assert len(g.state.seats[0].hand) == 15


def test_turn_order_clockwise_from_left_of_dealer() -> None:
    g = Game.new("rummy", ["a", "b", "c", "d"], seed=5)
    assert g.state.dealer == 3
    order = []
    for _ in range(8):
        seat = g.state.turn
        order.append(seat)
        drawn = g.apply(seat, DrawFromStock())[0]
        assert isinstance(drawn, DrewFromStock) and drawn.card is not None
        g.apply(seat, Discard(drawn.card))
    assert order == [0, 1, 2, 3, 0, 1, 2, 3]


def test_not_your_turn() -> None:
    g = r51()
    assert reason_of(g, 1, discard(g, 1, "8D")) == reasons.NOT_YOUR_TURN
    assert reason_of(g, 1, DrawFromStock()) == reasons.NOT_YOUR_TURN


def test_card_not_in_hand() -> None:
    g = r51()
    other = card(g, 1, "8D")
    assert reason_of(g, 0, Discard(other)) == reasons.CARD_NOT_IN_HAND


# --- opening -------------------------------------------------------------------------


def test_opening_threshold_51() -> None:
    g = r51()
    below = melds(g, 0, "5S 6S 7S", "TD TC TH")  # 18 + 30
    assert reason_of(g, 0, below) == reasons.OPENING_BELOW_THRESHOLD
    events = g.apply(0, melds(g, 0, "6S 7S 8S", "TD TC TH"))  # 21 + 30 = 51
    assert isinstance(events[0], MeldsLaid) and events[0].opening
    assert g.state.seats[0].opened
    assert [m.value for m in g.state.melds] == [21, 30]


def test_opening_is_laid_in_one_command() -> None:
    g = stacked("ramino51", ["6S 7S 8S TD TC TH 2C 3C 4C 9H JD QS 5H 4D 9D", R51_S1])
    assert reason_of(g, 0, melds(g, 0, "6S 7S 8S")) == reasons.OPENING_BELOW_THRESHOLD
    g.apply(0, melds(g, 0, "6S 7S 8S", "TD TC TH"))
    # Once opened, further melds need no threshold, in the same turn too.
    events = g.apply(0, melds(g, 0, "2C 3C 4C"))
    assert isinstance(events[0], MeldsLaid) and not events[0].opening
    g.apply(0, discard(g, 0, "9H"))


def test_opening_keeps_a_card_to_discard() -> None:
    g = stacked(
        "ramino51",
        ["6S 7S 8S TD TC TH", "2H 3H 4H KS KD"],
        overrides={"hand_sizes": [5, 5, 5, 5, 5]},
    )
    assert reason_of(g, 0, melds(g, 0, "6S 7S 8S", "TD TC TH")) == (
        reasons.LAST_CARD_MUST_BE_DISCARDED
    )


def test_opening_needs_pure_run() -> None:
    hands = [
        "KS KD KC QS QD QC 7H JK 9H 4C 5C 6C 2D 8S",
        "2H 3H 4H TS TD TC AS AD 5S 6D 7D 8D 9D JD",
    ]
    g = stacked("rami51", hands, stock="3S 3D")
    g.apply(0, DrawFromStock())
    sets_only = melds(g, 0, "KS KD KC", "QS QD QC")  # 60, no run
    assert reason_of(g, 0, sets_only) == reasons.OPENING_NEEDS_PURE_RUN
    joker_run = melds(g, 0, "KS KD KC", "QS QD QC", "7H JK 9H")  # a run, not pure
    assert reason_of(g, 0, joker_run) == reasons.OPENING_NEEDS_PURE_RUN
    g.apply(0, melds(g, 0, "KS KD KC", "4C 5C 6C", "QS QD QC"))
    assert g.state.seats[0].opened


def test_rami51_opening_values_ace_1_low_11_high() -> None:
    # A-2-3 is worth 6 in rami51 (30 + 6 + 15 = 51 opens), 15 in ramino51.
    hands = [
        "AS 2S 3S JD JC JH 5D 5C 5H 9S 8D 7C 4H KC",
        "2H 3H 4D TS TD TC QS AD 6S 6D 7D 8H 9D JS",
    ]
    g = stacked("rami51", hands, stock="3C")
    g.apply(0, DrawFromStock())
    events = g.apply(0, melds(g, 0, "AS 2S 3S", "JD JC JH", "5D 5C 5H"))
    assert sum(m.value for m in g.state.melds) == 51
    assert isinstance(events[0], MeldsLaid) and events[0].opening
    assert ramino.validate_meld("QH KH AH", "rami51").value == 31
    assert ramino.validate_meld("AS 2S 3S", "ramino51").value == 15


def test_max_jokers_per_meld() -> None:
    hands = [
        "5S 6S JK JK TD TC TH KD KC KH 2C 3D 9H 4C 8D",
        "2H 3H 4H KS QD QC 7S 9D 9S 5C 8C JC AD 6D",
    ]
    g = stacked("ramino51", hands)
    two_jokers = melds(g, 0, "5S 6S JK JK", "TD TC TH")
    with pytest.raises(IllegalMove) as e:
        g.apply(0, two_jokers)
    assert e.value.reason == reasons.INVALID_MELD
    assert e.value.detail == "TOO_MANY_JOKERS"
    g.apply(0, melds(g, 0, "5S 6S JK", "TD TC TH", "KD KC KH"))


def test_invalid_meld_gives_the_kernels_reason() -> None:
    g = r51()
    with pytest.raises(IllegalMove) as e:
        g.apply(0, melds(g, 0, "6S 8S 7S", "TD TC TH"))
    assert e.value.reason == reasons.INVALID_MELD and e.value.detail == "GAP"


# --- laying off and swapping before and on the opening turn --------------------------


def _both_open(variant: str = "ramino51") -> Game:
    """Seat 0 opens, seat 1 draws and opens; seat 0 to draw."""
    g = r51(stock="JS 6H 3S")
    g.apply(0, melds(g, 0, "6S 7S 8S", "TD TC TH"))
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "2H 3H 4H", "KS KD KC", "QC QH QD"))
    return g


def test_no_layoff_before_opening() -> None:
    g = r51(stock="JS")
    g.apply(0, melds(g, 0, "6S 7S 8S", "TD TC TH"))
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    assert reason_of(g, 1, lay_off(g, 1, "9S", 0)) == reasons.NOT_OPENED


def test_no_layoff_on_opening_turn() -> None:
    g = _both_open()
    # Seat 1 has just opened: 9S fits seat 0's run, but not this turn.
    assert reason_of(g, 1, lay_off(g, 1, "9S", 0)) == reasons.NO_LAYOFF_ON_OPENING_TURN
    g.apply(1, discard(g, 1, "8D"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "3D"))
    g.apply(1, DrawFromStock())
    g.apply(1, lay_off(g, 1, "9S", 0))
    assert names_of(g, g.state.melds[0].cards) == ["6S", "7S", "8S", "9S"]


def test_no_layoff_on_opening_turn_even_onto_own_new_melds() -> None:
    g = r51()
    g.apply(0, melds(g, 0, "6S 7S 8S", "TD TC TH"))
    assert reason_of(g, 0, lay_off(g, 0, "5S", 0, "start")) == reasons.NO_LAYOFF_ON_OPENING_TURN
    # The same cards laid as one longer meld lose nothing.
    g2 = r51()
    g2.apply(0, melds(g2, 0, "5S 6S 7S 8S", "TD TC TH"))


def test_layoff_onto_any_meld_after_opening() -> None:
    g = _both_open()
    g.apply(1, discard(g, 1, "8D"))
    g.apply(0, DrawFromStock())  # 6H
    # Seat 0 lays off onto seat 1's meld, before and after it.
    g.apply(0, lay_off(g, 0, "5H", 2))
    assert names_of(g, g.state.melds[2].cards) == ["2H", "3H", "4H", "5H"]
    g.apply(0, lay_off(g, 0, "5S", 0, "start"))
    assert names_of(g, g.state.melds[0].cards) == ["5S", "6S", "7S", "8S"]
    assert g.state.melds[2].owner == 1
    assert reason_of(g, 0, lay_off(g, 0, "4C", 2)) == reasons.CANNOT_LAY_OFF


def test_layoff_on_opening_turn_in_rami51() -> None:
    hands = [
        "AS 2S 3S 4S QH KH AH 9C 9D JK 5D 5C 8S TC",
        "6C 7C 8C KS KD KC 2D 3D JH QD 7H 7S AD JK",
    ]
    g = stacked("rami51", hands, stock="9H")
    g.apply(0, DrawFromStock())
    g.apply(0, melds(g, 0, "AS 2S 3S", "QH KH AH", "9C 9D 9H"))
    g.apply(0, lay_off(g, 0, "4S", 0))
    assert names_of(g, g.state.melds[0].cards) == ["AS", "2S", "3S", "4S"]


def test_meld_closed() -> None:
    hands = [
        "KS KD KC KH TD TC TH 2C 3D 9H JD QS 5H 4C 9C",
        "2H 3H 4H QC QD QH 5S 6S 7S 9D 9S KS 8C 8D",
    ]
    g = stacked("ramino51", hands, stock="JS 3S")
    g.apply(0, melds(g, 0, "KS KD KC KH", "TD TC TH"))
    assert g.state.melds[0].closed
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "2H 3H 4H", "QC QD QH", "5S 6S 7S"))
    g.apply(1, discard(g, 1, "8C"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "3D"))
    g.apply(1, DrawFromStock())
    assert reason_of(g, 1, lay_off(g, 1, "KS", 0)) == reasons.MELD_CLOSED


# --- taking the discard --------------------------------------------------------------


def test_take_discard_first_turn_free() -> None:
    g = r51()
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, TakeDiscard())  # seat 1 cannot open with 2C, but it is its first turn
    assert not g.state.must_open
    g.apply(1, discard(g, 1, "8D"))


def test_cannot_discard_taken_card() -> None:
    for variant, hands, upcard in (
        ("ramino51", [R51_S0, R51_S1], None),
        ("rummy", ["AS 2S 3S 7H 7D 7C KH QH 4S 9C", "5S 6S 8S JD JC JS 2H 3C 6D TC"], "JH"),
    ):
        g = stacked(variant, hands, upcard=upcard)
        if variant == "ramino51":
            g.apply(0, discard(g, 0, "2C"))
            seat = 1
        else:
            seat = 0
        taken = g.state.discard[-1]
        g.apply(seat, TakeDiscard())
        assert reason_of(g, seat, Discard(taken)) == reasons.CANNOT_DISCARD_TAKEN_CARD


def test_taken_cards_twin_may_not_be_discarded() -> None:
    # RULES.md section 5: nor its identical twin from the other pack.
    g = stacked("ramino51", [R51_S0, R51_S1.replace("8D", "2C")])
    g.apply(0, discard(g, 0, "2C"))
    taken = g.state.discard[-1]
    g.apply(1, TakeDiscard())
    twin = next(c for c in g.state.seats[1].hand if g.rules.names[c] == "2C" and c != taken)
    assert reason_of(g, 1, Discard(taken)) == reasons.CANNOT_DISCARD_TAKEN_CARD
    assert reason_of(g, 1, Discard(twin)) == reasons.CANNOT_DISCARD_TAKEN_TWIN
    listed = {m.card for m in g.legal_moves(1) if isinstance(m, Discard)}
    assert taken not in listed and twin not in listed
    g.apply(1, discard(g, 1, "5C"))


def test_take_discard_refused_when_only_its_twin_could_be_discarded() -> None:
    # A hand of one card whose twin tops the discard pile could take it and
    # then discard neither: the take is refused, so the turn can always end.
    s0 = "6S 7S 8S TD TC TH 5S 2C 3D 9S JD QS 5H 4C"
    s1 = "2H 3H 4H 5H KS KD KC QC QH QD AS AD AC 9S"
    g = stacked("rami51", [s0, s1], stock="JS 7D 3S")
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "2H 3H 4H 5H", "KS KD KC", "QC QH QD", "AS AD AC"))
    g.apply(1, discard(g, 1, "7D"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "9S"))
    assert hand_names(g, 1) == ["9S"]
    assert reason_of(g, 1, TakeDiscard()) == reasons.NO_CARD_LEFT_TO_DISCARD
    assert g.legal_moves(1) == [DrawFromStock()]


def _second_turn_of_seat_1(discarded: str) -> Game:
    g = r51(stock="JS 4D 3S")
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    g.apply(1, discard(g, 1, "JS"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, discarded))
    return g


def test_take_discard_requires_open() -> None:
    g = _second_turn_of_seat_1("9H")
    g.apply(1, TakeDiscard())
    assert g.state.must_open
    assert reason_of(g, 1, discard(g, 1, "8D")) == reasons.MUST_OPEN_WITH_TAKEN_DISCARD
    without = melds(g, 1, "KS KD KC", "QC QH QD")
    assert reason_of(g, 1, without) == reasons.MUST_OPEN_WITH_TAKEN_DISCARD
    g.apply(1, melds(g, 1, "KS KD KC", "9D 9S 9H"))
    assert g.state.seats[1].opened and not g.state.must_open
    g.apply(1, discard(g, 1, "8D"))


def test_take_discard_refused_when_cannot_open_with_it() -> None:
    g = _second_turn_of_seat_1("4C")
    # Seat 1 could open without 4C, but not with it: the draw is refused.
    assert reason_of(g, 1, TakeDiscard()) == reasons.CANNOT_OPEN_WITH_DISCARD
    g.apply(1, DrawFromStock())


def test_take_discard_free_after_opening() -> None:
    g = _both_open()
    g.apply(1, discard(g, 1, "8D"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "4C"))
    g.apply(1, TakeDiscard())  # 4C is useless to seat 1, but it has opened
    assert not g.state.must_open


def test_take_discard_free_in_rami51() -> None:
    hands = [
        "KS KD KC QS QD QC 7H JK 9H 4C 5C 6C 2D 8S",
        "2H 3H 4H TS TD TC AS AD 5S 6D 7D 8D 9D JD",
    ]
    g = stacked("rami51", hands, stock="3S 3D KH")
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "2D"))
    g.apply(1, DrawFromStock())
    g.apply(1, discard(g, 1, "JD"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "8S"))
    g.apply(1, TakeDiscard())  # second turn, not opened: free in rami51
    assert not g.state.must_open
    g.apply(1, discard(g, 1, "AS"))


def test_discard_pile_empty() -> None:
    g = Game.new("rami51", ["a", "b"], seed=4)
    assert reason_of(g, 0, TakeDiscard()) == reasons.DISCARD_PILE_EMPTY


# --- joker swap ----------------------------------------------------------------------


SWAP_S0 = "6S JK 8S TD TC TH 5S 2C 3D 9H JD QS 5H 4C 9C"
SWAP_S1 = "2H 3H 4H KS KD KC QC QH QD 7S 9D 9S 5C 8D"


def _joker_on_table(stock: str = "JS 6H 3S AC") -> Game:
    """Seat 0 opened with 6S JK 8S (the joker is the 7S), seat 1 opened."""
    g = stacked("ramino51", [SWAP_S0, SWAP_S1], stock=stock)
    g.apply(0, melds(g, 0, "6S JK 8S", "TD TC TH"))
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "2H 3H 4H", "KS KD KC", "QC QH QD"))
    return g


def test_no_swap_before_opening() -> None:
    g = stacked("ramino51", [SWAP_S0, SWAP_S1], stock="JS")
    g.apply(0, melds(g, 0, "6S JK 8S", "TD TC TH"))
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    assert reason_of(g, 1, swap(g, 1, "7S", 0)) == reasons.NOT_OPENED


def test_joker_swap() -> None:
    g = _joker_on_table()
    assert reason_of(g, 1, swap(g, 1, "7S", 0)) == reasons.NO_SWAP_ON_OPENING_TURN
    g.apply(1, discard(g, 1, "8D"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "3D"))
    g.apply(1, DrawFromStock())
    joker = next(iter(g.state.melds[0].jokers))
    assert g.state.melds[0].jokers[joker] == ("7S",)
    assert reason_of(g, 1, swap(g, 1, "9S", 0)) == reasons.JOKER_STANDS_FOR_OTHER_CARD
    g.apply(1, swap(g, 1, "7S", 0))
    assert names_of(g, g.state.melds[0].cards) == ["6S", "7S", "8S"]
    assert joker in g.state.seats[1].hand and g.state.pending_joker == joker
    g.apply(1, LayMelds(((card(g, 1, "9D"), card(g, 1, "9S"), joker),)))
    assert g.state.pending_joker is None
    g.apply(1, discard(g, 1, "5C"))


def test_swapped_joker_must_be_melded() -> None:
    g = _joker_on_table()
    g.apply(1, discard(g, 1, "8D"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "3D"))
    g.apply(1, DrawFromStock())
    g.apply(1, swap(g, 1, "7S", 0))
    joker = g.state.pending_joker
    assert joker is not None
    assert reason_of(g, 1, discard(g, 1, "5C")) == reasons.SWAPPED_JOKER_NOT_MELDED
    assert reason_of(g, 1, Discard(joker)) == reasons.SWAPPED_JOKER_NOT_MELDED
    # Laying the joker off is not laying it in a new meld.
    from ramino.engine import LayOff

    assert reason_of(g, 1, LayOff(joker, 1, "end")) == reasons.SWAPPED_JOKER_NOT_MELDED


def test_one_swapped_joker_at_a_time() -> None:
    s0 = "6S JK 8S TD JK TH 5S 2C 3D 9H JD QS 5H 4C 9C"
    s1 = "2H 3H 4H KS KD KC QC QH QD 7S 9D 9S TC 8D"
    g = stacked("ramino51", [s0, s1], stock="JS 6H 3S")
    g.apply(0, melds(g, 0, "6S JK 8S", "TD JK TH"))
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "2H 3H 4H", "KS KD KC", "QC QH QD"))
    g.apply(1, discard(g, 1, "8D"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "3D"))
    g.apply(1, DrawFromStock())
    g.apply(1, swap(g, 1, "7S", 0))
    assert reason_of(g, 1, swap(g, 1, "TC", 1)) == reasons.SWAPPED_JOKER_NOT_MELDED
    g.apply(1, melds(g, 1, "9D 9S JK"))
    # Once that joker is laid, a second swap is judged on its own (and here
    # the hand JS 3S could not lay a second joker).
    assert reason_of(g, 1, swap(g, 1, "TC", 1)) == reasons.SWAPPED_JOKER_CANNOT_BE_MELDED


def test_swap_refused_when_the_joker_cannot_be_melded() -> None:
    s1 = "2H 3H 4H KS KD KC QC QH QD 7S TD 5C 8D AC"
    g = stacked("ramino51", [SWAP_S0.replace("TD", "TS"), s1], stock="JS 6H 3S 2S")
    g.apply(0, melds(g, 0, "6S JK 8S", "TS TC TH"))
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "2H 3H 4H", "KS KD KC", "QC QH QD"))
    g.apply(1, discard(g, 1, "8D"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "3D"))
    g.apply(1, DrawFromStock())  # 3S; seat 1 holds 7S TD 5C AC 3S
    assert reason_of(g, 1, swap(g, 1, "7S", 0)) == reasons.SWAPPED_JOKER_CANNOT_BE_MELDED


def test_joker_swap_may_meld_the_joker_with_the_taken_discard() -> None:
    # ramino51, seat 1 opened, takes 9S from the discard pile holding
    # 7S 9D 5C KH 2S; the table's 6S JK 8S has the joker as the 7S. Swapping
    # 7S for it, then 9D 9S JK, then discarding 5C is legal.
    s0 = SWAP_S0.replace("9C", "9S")
    s1 = "2H 3H 4H KS KD KC QC QH QD 7S 9D KH 5C 8D"
    g = stacked("ramino51", [s0, s1], stock="2S 6H 3S")
    g.apply(0, melds(g, 0, "6S JK 8S", "TD TC TH"))
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "2H 3H 4H", "KS KD KC", "QC QH QD"))
    g.apply(1, discard(g, 1, "8D"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "9S"))
    g.apply(1, TakeDiscard())
    assert sorted(hand_names(g, 1)) == sorted(["7S", "9D", "5C", "KH", "2S", "9S"])
    sw = swap(g, 1, "7S", 0)
    assert sw in g.legal_moves(1)
    g.apply(1, sw)
    joker = g.state.pending_joker
    assert joker is not None
    lay = LayMelds(((card(g, 1, "9D"), g.state.taken, joker),))  # type: ignore[arg-type]
    assert g.state.taken is not None
    listed = [m for m in g.legal_moves(1) if isinstance(m, LayMelds)]
    assert any(joker in m.melds[0] and g.state.taken in m.melds[0] for m in listed)
    g.apply(1, lay)
    assert discard(g, 1, "5C") in g.legal_moves(1)
    g.apply(1, discard(g, 1, "5C"))


def test_joker_in_a_set_stands_for_either_missing_suit() -> None:
    hands = [
        "8S 8H JK TD TC TH KS KD KC 2C 3D 9H JD 5H 4C",
        "2H 3H 4H QC QD QH 5S 6S 7S 8C 8D 9S 5C 4C",
    ]
    g = stacked("ramino51", hands, stock="JS 3S 2S")
    g.apply(0, melds(g, 0, "8S 8H JK", "TD TC TH", "KS KD KC"))
    joker = next(iter(g.state.melds[0].jokers))
    assert set(g.state.melds[0].jokers[joker]) == {"8D", "8C"}
    view_joker = g.view(1).melds[0].jokers
    assert view_joker == ((joker, g.state.melds[0].jokers[joker]),)
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "2H 3H 4H", "QC QD QH", "5S 6S 7S"))
    g.apply(1, discard(g, 1, "9S"))
    g.apply(0, DrawFromStock())
    g.apply(0, discard(g, 0, "3D"))
    g.apply(1, DrawFromStock())
    g.check(1, swap(g, 1, "8C", 0))
    g.apply(1, swap(g, 1, "8D", 0))
    assert names_of(g, g.state.melds[0].cards) == ["8S", "8H", "8D"]
    g.apply(1, LayMelds(((card(g, 1, "4C"), card(g, 1, "5C"), joker),)))
    assert g.state.melds[-1].jokers[joker] == ("6C",)
    g.apply(1, discard(g, 1, "JS"))


def test_swap_needs_the_joker_swap_rule() -> None:
    g2 = stacked("ramino51", [SWAP_S0, SWAP_S1], stock="JS 6H 3S", overrides={"joker_swap": False})
    g2.apply(0, melds(g2, 0, "6S JK 8S", "TD TC TH"))
    g2.apply(0, discard(g2, 0, "2C"))
    g2.apply(1, DrawFromStock())
    assert reason_of(g2, 1, swap(g2, 1, "7S", 0)) == reasons.JOKER_SWAP_NOT_ALLOWED


# --- going out -----------------------------------------------------------------------


def _ramino51_endgame() -> Game:
    """Seat 0 opened in turn 1; in turn 2 it has drawn 5H and laid its melds,
    and holds 4H 5H, which both fit seat 1's run AH 2H 3H (meld 2)."""
    s0 = "6S 7S 8S 9S TD TC TH 4D 5D 6D JK KS KH 4H 3C"
    s1 = "AH 2H 3H QC QD QS 5C 5S 5H 8C 9D JH 4S 7D"
    g = stacked("ramino51", [s0, s1], stock="7C 5H")
    g.apply(0, melds(g, 0, "6S 7S 8S 9S", "TD TC TH"))
    g.apply(0, discard(g, 0, "3C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "AH 2H 3H", "QC QD QS", "5C 5S 5H"))
    g.apply(1, discard(g, 1, "JH"))
    g.apply(0, DrawFromStock())  # 5H
    g.apply(0, melds(g, 0, "KS KH JK", "4D 5D 6D"))
    return g


def test_last_card_must_be_discarded() -> None:
    g = _ramino51_endgame()
    assert sorted(hand_names(g, 0)) == ["4H", "5H"]
    g.apply(0, lay_off(g, 0, "4H", 2))
    assert reason_of(g, 0, lay_off(g, 0, "5H", 2)) == reasons.LAST_CARD_MUST_BE_DISCARDED


def test_going_out_only_by_discard() -> None:
    g = _ramino51_endgame()
    g.apply(0, lay_off(g, 0, "4H", 2))
    events = g.apply(0, discard(g, 0, "5H"))
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.winner == 0 and ended.ending == "went_out" and not ended.closed_hand
    assert ended.scores == (-40, 35)  # 8C 9D 4S 7D 7C


def test_going_out_by_melding_in_rummy() -> None:
    g = _rummy_scenario_until_last_turn()
    g.apply(0, lay_off(g, 0, "TH", 1, "start"))
    g.apply(0, lay_off(g, 0, "4S", 0))
    events = g.apply(0, melds(g, 0, "7H 7D 7C"))
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.winner == 0 and ended.ending == "went_out"


def test_going_out_by_lay_off_in_rummy() -> None:
    g = _rummy_scenario_until_last_turn()
    g.apply(0, melds(g, 0, "7H 7D 7C"))
    g.apply(0, lay_off(g, 0, "TH", 1, "start"))
    events = g.apply(0, lay_off(g, 0, "4S", 0))
    assert any(isinstance(e, RoundEnded) and e.winner == 0 for e in events)


def test_going_out_by_lay_off_of_the_taken_discard_in_rummy() -> None:
    # must_discard_to_go_out off: hand 7S 8S, 8S just taken from the discard
    # pile, table 4S 5S 6S. Laying off 7S then 8S goes out; the first lay-off
    # leaves only the taken card, which cannot be discarded but can be laid off.
    s0 = "4S 5S 6S 7S KH KD KC 9H 9D 9C"
    s1 = "8S 2H 3C 6D TC AH 4D 5C JC QH"
    g = stacked("rummy", [s0, s1], upcard="QC", stock="JD 2D")
    g.apply(0, DrawFromStock())
    g.apply(0, melds(g, 0, "4S 5S 6S", "KH KD KC", "9H 9D 9C"))
    g.apply(0, discard(g, 0, "JD"))
    g.apply(1, DrawFromStock())
    g.apply(1, discard(g, 1, "8S"))
    g.apply(0, TakeDiscard())
    assert sorted(hand_names(g, 0)) == ["7S", "8S"]
    first = lay_off(g, 0, "7S", 0)
    moves = g.legal_moves(0)
    assert first in moves
    assert discard(g, 0, "7S") in moves and discard(g, 0, "8S") not in moves
    g.apply(0, first)
    second = lay_off(g, 0, "8S", 0)
    assert g.legal_moves(0) == [second]
    events = g.apply(0, second)
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.winner == 0 and ended.ending == "went_out"


def test_must_discard_to_go_out_option() -> None:
    g = _rummy_scenario_until_last_turn({"must_discard_to_go_out": True})
    g.apply(0, melds(g, 0, "7H 7D 7C"))
    g.apply(0, lay_off(g, 0, "TH", 1, "start"))
    assert reason_of(g, 0, lay_off(g, 0, "4S", 0)) == reasons.LAST_CARD_MUST_BE_DISCARDED
    events = g.apply(0, discard(g, 0, "4S"))
    assert any(isinstance(e, RoundEnded) and e.winner == 0 for e in events)


RUMMY_S0 = "AS 2S 3S 4S 7H 7D 7C KH QH 9C"
RUMMY_S1 = "5S 6S 8S JD JC JS 2H 3C 6D TC"


def _rummy_scenario_until_last_turn(overrides: dict[str, object] | None = None) -> Game:
    g = stacked("rummy", [RUMMY_S0, RUMMY_S1], upcard="JH", stock="8D TH 9D", overrides=overrides)  # type: ignore[arg-type]
    g.apply(0, TakeDiscard())
    g.apply(0, melds(g, 0, "AS 2S 3S", "JH QH KH"))
    g.apply(0, discard(g, 0, "9C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "JD JC JS"))
    g.apply(1, discard(g, 1, "TC"))
    g.apply(0, DrawFromStock())  # TH
    return g


def test_no_card_left_to_discard() -> None:
    # Rummy: seat 0 takes the upcard KS and may not play every other card,
    # which would leave only the card it may not discard.
    g = stacked("rummy", ["AS 2S 3S 4S 7H 7D 7C 8H 8D 8C", RUMMY_S1], upcard="KS")
    g.apply(0, TakeDiscard())
    everything = melds(g, 0, "AS 2S 3S 4S", "7H 7D 7C", "8H 8D 8C")
    assert reason_of(g, 0, everything) == reasons.NO_CARD_LEFT_TO_DISCARD
    g.apply(0, melds(g, 0, "AS 2S 3S", "7H 7D 7C", "8H 8D 8C"))
    assert reason_of(g, 0, lay_off(g, 0, "4S", 0)) == reasons.NO_CARD_LEFT_TO_DISCARD
    g.apply(0, discard(g, 0, "4S"))
    assert sorted(hand_names(g, 0)) == ["KS"]


# --- scoring -------------------------------------------------------------------------


def test_scoring_ramino51_winner_minus_40_penalties_and_jokers_20() -> None:
    s0 = "6S 7S 8S 9S TD TC TH 4D 5D 6D JK KS KH 4H 3C"
    s1 = "AH 2H 3H QC QD QS 5C 5S 5H 8C 9D JK 4S 7D"
    s2 = "2C 3S 4C 6C 7H 8H TS JS QH 9H AS AD 2S 5D"
    g = stacked("ramino51", [s0, s1, s2], stock="7C 3D 2D")
    g.apply(0, melds(g, 0, "6S 7S 8S 9S", "TD TC TH"))
    g.apply(0, discard(g, 0, "3C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "AH 2H 3H", "QC QD QS", "5C 5S 5H"))
    g.apply(1, discard(g, 1, "7C"))
    g.apply(2, DrawFromStock())
    g.apply(2, discard(g, 2, "3D"))
    g.apply(0, DrawFromStock())  # 2D
    g.apply(0, melds(g, 0, "KS KH JK", "4D 5D 6D"))
    g.apply(0, lay_off(g, 0, "4H", 2))
    events = g.apply(0, discard(g, 0, "2D"))
    ended = next(e for e in events if isinstance(e, RoundEnded))
    # Seat 1 keeps 8C 9D JK 4S 7D: 8 + 9 + 20 + 4 + 7; seat 2 never opened: 100.
    assert ended.scores == (-40, 48, 100)
    assert not ended.closed_hand
    assert any(isinstance(e, MatchEnded) and e.winners == (0,) for e in events)


def test_chiusura_in_mano_scores_minus_80_and_doubles() -> None:
    s0 = "AS 2S 3S 4S 5S 6H 7H 8H KD KC KH QD QC QS 2C"
    s1 = "AH 2H 3H JC JD JS 5C 9S 5H 8C 9D JK 4D 7D"
    s2 = "2D 3D 4C 6C 7C 8S TS JH 9H 9C AD AC 6S 5D"
    g = stacked("ramino51", [s0, s1, s2], stock="7S 3C TC")
    # Seat 1 opens first, so that it is opened when seat 0 closes.
    g.apply(0, discard(g, 0, "2C"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "AH 2H 3H", "JC JD JS", "5C JK 5H"))
    g.apply(1, discard(g, 1, "7S"))
    g.apply(2, DrawFromStock())
    g.apply(2, discard(g, 2, "3C"))
    g.apply(0, DrawFromStock())  # TC
    g.apply(0, melds(g, 0, "AS 2S 3S 4S 5S", "6H 7H 8H", "KD KC KH", "QD QC QS"))
    events = g.apply(0, discard(g, 0, "TC"))
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.closed_hand
    # Seat 1 keeps 9S 8C 9D 4D 7D (37, doubled); seat 2 never opened (100, doubled).
    assert ended.scores == (-80, 74, 200)


def test_scoring_rami51_winner_0_ace_11_joker_20_never_opened_100() -> None:
    s0 = "AS 2S 3S 4S QH KH AH 9C 9D JK 5D 5C 8S TC"
    s1 = "6C 7C 8C KS KD KC 2D 3D JH QD 7H 7S AD JK"
    s2 = "2C 3C 4C 6S 7D 8D TS JS QS 9H 9S TH 4D 6H"
    g = stacked("rami51", [s0, s1, s2], stock="9H 5H 2H 5S")
    g.apply(0, DrawFromStock())
    g.apply(0, melds(g, 0, "AS 2S 3S", "QH KH AH", "9C 9D 9H"))
    g.apply(0, lay_off(g, 0, "4S", 0))
    g.apply(0, discard(g, 0, "TC"))
    g.apply(1, DrawFromStock())
    g.apply(1, melds(g, 1, "6C 7C 8C", "KS KD KC"))
    g.apply(1, discard(g, 1, "JH"))
    g.apply(2, DrawFromStock())
    g.apply(2, discard(g, 2, "2H"))
    g.apply(0, DrawFromStock())  # 5S
    g.apply(0, melds(g, 0, "5D 5C 5S"))
    g.apply(0, lay_off(g, 0, "JK", 0))
    events = g.apply(0, discard(g, 0, "8S"))
    ended = next(e for e in events if isinstance(e, RoundEnded))
    # Seat 1 keeps 2D 3D QD 7H 7S AD JK 5H: 2+3+10+7+7+11+20+5.
    assert ended.scores == (0, 65, 100)


def test_scoring_winner_collects_in_rummy() -> None:
    g = _rummy_scenario_until_last_turn()
    g.apply(0, lay_off(g, 0, "TH", 1, "start"))
    g.apply(0, lay_off(g, 0, "4S", 0))
    events = g.apply(0, melds(g, 0, "7H 7D 7C"))
    ended = next(e for e in events if isinstance(e, RoundEnded))
    # Seat 1 keeps 5S 6S 8S 2H 3C 6D 8D.
    assert ended.scores == (38, 0)
    assert not ended.closed_hand
    # The match goes on (target 150): the next round is dealt at once.
    assert isinstance(events[-1], RoundStarted) and events[-1].round == 2


def test_going_rummy_doubles() -> None:
    s0 = "AS 2S 3S 7H 7D 7C KH QH JH 9C"
    g = stacked("rummy", [s0, RUMMY_S1], upcard="2C", stock="TH")
    g.apply(0, DrawFromStock())  # TH
    g.apply(0, melds(g, 0, "AS 2S 3S", "7H 7D 7C", "TH JH QH KH"))
    events = g.apply(0, discard(g, 0, "9C"))
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.closed_hand
    # 5 6 8 10 10 10 2 3 6 10 = 70, doubled.
    assert ended.scores == (140, 0)


def test_ace_high_option_allows_q_k_a_and_scores_15() -> None:
    s0 = "QS KS 4D 7H 7D 7C 5C 6C 8C 9C"
    s1 = "AH AD 8S JD JC JS 2H 3C 6D TC"
    g = stacked("rummy", [s0, s1], upcard="2C", stock="AS", overrides={"ace_high": True})
    g.apply(0, DrawFromStock())
    g.apply(0, melds(g, 0, "QS KS AS"))
    assert g.rules.penalty([card(g, 1, "AH")]) == 15
    plain = stacked("rummy", [s0, s1], upcard="2C", stock="AS")
    plain.apply(0, DrawFromStock())
    with pytest.raises(IllegalMove) as e:
        plain.apply(0, melds(plain, 0, "QS KS AS"))
    assert e.value.reason == reasons.INVALID_MELD
    assert plain.rules.penalty([card(plain, 1, "AH")]) == 1


# --- stock exhaustion ----------------------------------------------------------------


def _churn_until(g: Game, stop: type, limit: int = 2000) -> list[object]:
    """Every seat draws from the stock and discards the drawn card, until an
    event of type ``stop`` appears; the events so far."""
    seen: list[object] = []
    for _ in range(limit):
        seat = g.state.turn
        if g.state.phase == "play":
            events = g.apply(seat, Discard(g.state.seats[seat].hand[-1]))
        elif g.state.stock:
            drawn = g.apply(seat, DrawFromStock())
            seen.extend(drawn)
            card_id = drawn[0].card  # type: ignore[union-attr]
            assert card_id is not None
            events = g.apply(seat, Discard(card_id))
        else:
            events = g.apply(seat, TurnOverDiscardPile())
        seen.extend(events)
        if any(isinstance(e, stop) for e in events):
            return seen
    raise AssertionError("no stop event")


def test_stock_reshuffle_keeps_the_top_discard() -> None:
    g = Game.new("rummy", ["a", "b"], seed=21)
    seed = g.record.seed
    events = _churn_until(g, StockReshuffled)
    # The pile just before the reshuffle, from the events.
    pile_before = [g.record.events[0].upcard]  # type: ignore[union-attr]
    pile_before.extend(e.card for e in events if isinstance(e, Discarded))
    r = events[-1]
    assert isinstance(r, StockReshuffled) and r.rebuild == 1
    assert r.kept == pile_before[-1]
    perm = ramino.shuffle(reshuffle_seed(seed, 1, 1), len(pile_before) - 1)
    assert r.stock == tuple(pile_before[:-1][i] for i in perm)
    assert g.state.discard == [r.kept] and len(g.state.stock) == len(pile_before) - 1
    assert not g.conservation_errors()


def test_round_ends_with_no_winner_after_max_stock_rebuilds() -> None:
    g = Game.new("rummy", ["a", "b", "c"], seed=22, overrides={"max_stock_rebuilds": 2})
    events = _churn_until(g, RoundEnded)
    rebuilds = [e.rebuild for e in events if isinstance(e, StockReshuffled)]
    assert rebuilds == [1, 2]
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.winner is None and ended.ending == "stock_exhausted"
    assert ended.scores == (0, 0, 0)
    assert [s.total for s in g.state.seats] == [0, 0, 0]
    assert g.state.round == 2  # rummy plays on to 150


def test_round_ends_with_no_winner_after_max_turns_per_round() -> None:
    # RULES.md section 5: whatever the stock, after max_turns_per_round turns
    # (a turn: one seat's, from its draw to its discard) the round ends with
    # no winner and nobody scores, as when the stock-rebuild cap is reached.
    g = Game.new("rummy", ["a", "b"], seed=3, overrides={"max_turns_per_round": 4})
    for turn in range(1, 5):
        seat = g.state.turn
        drawn = g.apply(seat, DrawFromStock())[0]
        assert isinstance(drawn, DrewFromStock) and drawn.card is not None
        events = g.apply(seat, Discard(drawn.card))
        ended = [e for e in events if isinstance(e, RoundEnded)]
        if turn < 4:
            assert not ended
        else:
            assert ended[0].ending == "turn_limit" and ended[0].winner is None
            assert ended[0].scores == (0, 0) and ended[0].round == 1
    assert g.state.round == 2 and [s.total for s in g.state.seats] == [0, 0]


def test_max_turns_per_round_is_300_in_every_preset() -> None:
    for name in ramino.PRESETS:
        assert ramino.Variant(name).max_turns_per_round == 300
    with pytest.raises(ramino.VariantError):
        ramino.Variant("rummy", max_turns_per_round=0)


def test_round_with_no_winner_counts_toward_max_rounds() -> None:
    g = Game.new(
        "rummy",
        ["a", "b"],
        seed=26,
        overrides={"max_stock_rebuilds": 0, "max_rounds": 1, "target_score": 0},
    )
    events = _churn_until(g, MatchEnded)
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.winner is None and ended.scores == (0, 0)
    assert g.finished and g.state.winners == (0, 1)


def test_stock_turn_over() -> None:
    g = Game.new("rummy", ["a", "b"], seed=23, overrides={"stock_exhausted": "turn_over"})
    upcard = g.record.events[0].upcard  # type: ignore[union-attr]
    while g.state.stock:
        seat = g.state.turn
        drawn = g.apply(seat, DrawFromStock())[0]
        assert isinstance(drawn, DrewFromStock) and drawn.card is not None
        g.apply(seat, Discard(drawn.card))
    seat = g.state.turn
    assert reason_of(g, seat, DrawFromStock()) == reasons.STOCK_EMPTY
    pile = list(g.state.discard)
    assert pile[0] == upcard
    events = g.apply(seat, TurnOverDiscardPile())
    assert isinstance(events[0], DiscardPileTurnedOver) and events[0].rebuild == 1
    # Unshuffled: the bottom of the pile (the upcard) is the first card drawn.
    assert isinstance(events[1], DrewFromStock) and events[1].card == upcard
    assert g.state.stock == pile[1:][::-1] and g.state.discard == []


def test_turn_over_not_allowed() -> None:
    g = Game.new("rummy", ["a", "b"], seed=24)
    assert reason_of(g, 0, TurnOverDiscardPile()) == reasons.TURN_OVER_NOT_ALLOWED
    t = Game.new("rummy", ["a", "b"], seed=24, overrides={"stock_exhausted": "turn_over"})
    assert reason_of(t, 0, TurnOverDiscardPile()) == reasons.STOCK_NOT_EMPTY


def test_round_cap_with_turn_over() -> None:
    g = Game.new(
        "rummy",
        ["a", "b"],
        seed=25,
        overrides={"stock_exhausted": "turn_over", "max_stock_rebuilds": 1},
    )
    events = _churn_until(g, RoundEnded)
    assert sum(isinstance(e, DiscardPileTurnedOver) for e in events) == 1
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.winner is None and ended.ending == "stock_exhausted"


# --- dealers and matches -------------------------------------------------------------


def test_dealer_rotation() -> None:
    g = Game.new("ramino51", ["a", "b", "c", "d"], seed=31, overrides={"max_rounds": 5})
    play_out(g, ["greedy"] * 4, seed=1)
    starts = [e for e in g.record.events if isinstance(e, RoundStarted)]
    assert [e.dealer for e in starts] == [3, 0, 1, 2, 3]
    assert [e.first_player for e in starts] == [0, 1, 2, 3, 0]


@pytest.mark.parametrize("players", [2, 3])
def test_winner_deals(players: int) -> None:
    g = Game.new(
        "rummy", [f"p{i}" for i in range(players)], seed=32, overrides={"winner_deals": True}
    )
    play_out(g, ["greedy"] * players, seed=2)
    starts = [e for e in g.record.events if isinstance(e, RoundStarted)]
    ends = [e for e in g.record.events if isinstance(e, RoundEnded)]
    assert len(starts) >= 3
    for prev_start, prev_end, nxt in zip(starts, ends, starts[1:], strict=False):
        if players == 2 and prev_end.winner is not None:
            assert nxt.dealer == prev_end.winner
        else:
            assert nxt.dealer == (prev_start.dealer + 1) % players


def test_match_target_score_highest_wins_in_rummy() -> None:
    g = Game.new("rummy", ["a", "b", "c"], seed=33)
    play_out(g, ["greedy", "random", "greedy"], seed=3)
    totals = [s.total for s in g.state.seats]
    assert max(totals) >= 150
    last = g.record.events[-1]
    assert isinstance(last, MatchEnded)
    assert last.winners == tuple(i for i, t in enumerate(totals) if t == max(totals))
    # The match ended as soon as a total reached the target.
    before = [t - s for t, s in zip(totals, g.state.results[-1].scores, strict=True)]
    assert max(before) < 150


def test_match_max_rounds_highest_total() -> None:
    g = Game.new("rummy", ["a", "b"], seed=34, overrides={"max_rounds": 2, "target_score": 0})
    play_out(g, ["greedy", "greedy"], seed=4)
    assert g.state.round == 2
    totals = [s.total for s in g.state.seats]
    assert g.state.winners == tuple(i for i, t in enumerate(totals) if t == max(totals))


def test_match_51_lowest_total_wins() -> None:
    g = Game.new("ramino51", ["a", "b", "c"], seed=35, overrides={"max_rounds": 3})
    play_out(g, ["greedy", "random", "greedy"], seed=5)
    assert g.state.round == 3
    totals = [s.total for s in g.state.seats]
    assert g.state.winners == tuple(i for i, t in enumerate(totals) if t == min(totals))
    standings = g.view(None).standings
    assert standings[0].total == min(totals) and standings[0].rank == 1


def test_match_51_target_score_ends_early() -> None:
    g = Game.new("rami51", ["a", "b"], seed=36, overrides={"max_rounds": 0, "target_score": 150})
    play_out(g, ["greedy", "random"], seed=6)
    totals = [s.total for s in g.state.seats]
    assert max(totals) >= 150
    assert g.state.winners == tuple(i for i, t in enumerate(totals) if t == min(totals))


# --- resigning and malformed commands ------------------------------------------------


def test_resign_passes_the_turn_and_keeps_the_cards() -> None:
    g = Game.new("ramino51", ["a", "b", "c"], seed=41)
    hand = list(g.state.seats[0].hand)
    g.apply(0, Resign())
    assert g.state.turn == 1 and g.state.phase == "draw"
    assert g.state.seats[0].hand == hand and not g.conservation_errors()
    assert reason_of(g, 0, Resign()) == reasons.SEAT_RESIGNED
    assert reason_of(g, 0, Discard(hand[0])) == reasons.SEAT_RESIGNED
    play_out(g, ["greedy"] * 3, seed=7)
    assert g.state.seats[0].total == 0
    assert 0 not in g.state.winners
    assert g.view(None).standings[-1].seat == 0


def test_resign_leaving_one_player_ends_the_match() -> None:
    g = Game.new("rummy", ["a", "b"], seed=42)
    events = g.apply(1, Resign())  # not its turn: resigning is always allowed
    ended = next(e for e in events if isinstance(e, RoundEnded))
    assert ended.ending == "resignations" and ended.winner is None
    assert isinstance(events[-1], MatchEnded) and events[-1].winners == (0,)
    assert reason_of(g, 0, DrawFromStock()) == reasons.MATCH_OVER


def test_resigned_seat_is_not_dealt_in() -> None:
    g = Game.new("ramino51", ["a", "b", "c"], seed=43, overrides={"max_rounds": 2})
    g.apply(2, Resign())
    play_out(g, ["greedy"] * 3, seed=8)
    second = [e for e in g.record.events if isinstance(e, RoundStarted)][1]
    assert second.hands[2] == () and second.hand_sizes[2] == 0
    assert second.dealer in (0, 1)


def test_malformed_commands() -> None:
    g = r51()
    with pytest.raises(MalformedCommand) as e:
        g.apply(0, Discard(500))
    assert e.value.reason == reasons.UNKNOWN_CARD and isinstance(e.value, ValueError)
    with pytest.raises(MalformedCommand) as e:
        g.apply(7, Discard(0))
    assert e.value.reason == reasons.UNKNOWN_SEAT
    six = card(g, 0, "6S")
    with pytest.raises(MalformedCommand) as e:
        g.apply(0, LayMelds(((six, six, card(g, 0, "7S")),)))
    assert e.value.reason == reasons.DUPLICATE_CARD
    with pytest.raises(MalformedCommand) as e:
        g.apply(0, LayMelds(()))
    assert e.value.reason == reasons.NO_MELDS
    from ramino.engine import LayOff

    with pytest.raises(MalformedCommand) as e:
        g.apply(0, LayOff(six, 0, "middle"))  # type: ignore[arg-type]
    assert e.value.reason == reasons.BAD_END
    with pytest.raises(MalformedCommand) as e:
        g.apply(0, "discard")  # type: ignore[arg-type]
    assert e.value.reason == reasons.UNKNOWN_COMMAND
    # A malformed command by the wrong seat is still reported as malformed.
    with pytest.raises(MalformedCommand):
        g.apply(1, Discard(-1))


def test_illegal_move_is_a_ramino_error_not_a_value_error() -> None:
    g = r51()
    with pytest.raises(IllegalMove) as e:
        g.apply(1, DrawFromStock())
    assert isinstance(e.value, ramino.RaminoError)
    assert not isinstance(e.value, ValueError)
    assert e.value.reason in reasons.ILLEGAL


def test_every_reason_is_listed() -> None:
    names = [n for n in dir(reasons) if n.isupper() and isinstance(getattr(reasons, n), str)]
    for n in names:
        assert getattr(reasons, n) == n
        assert n in reasons.ALL
    assert len(reasons.ALL) == len(names)


def test_ids_helper_finds_duplicates() -> None:
    g = r51()
    assert len(set(ids(g, 0, "6S 7S"))) == 2
