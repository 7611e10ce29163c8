"""Views and projected events: a seat sees its own hand and nothing hidden."""

from __future__ import annotations

import json

import pytest
from engine_helpers import play_out
from ramino.bots import make_bot
from ramino.engine import (
    DrawFromStock,
    DrewFromStock,
    Game,
    RoundStarted,
    StockReshuffled,
    View,
)


def _hidden_from(game: Game, viewer: int | None) -> set[int]:
    """Card ids that ``viewer`` may not see now."""
    hidden = set(game.state.stock)
    for seat, s in enumerate(game.state.seats):
        if seat != viewer:
            hidden |= set(s.hand)
    return hidden


def _ids_in_view(view: View) -> set[int]:
    seen = set(view.discard_pile)
    for m in view.melds:
        seen |= set(m.cards)
    if view.hand is not None:
        seen |= set(view.hand)
    # The card taken from the discard pile and a swapped joker were in plain
    # sight when the seat to play took them: they are public.
    seen -= {view.taken_card, view.pending_joker}
    return seen


def test_seat_view_shows_own_hand_and_others_counts() -> None:
    g = Game.new("ramino51", ["ann", "bob", "cy"], seed=1)
    v = g.view(1)
    assert v.viewer == 1 and v.hand == tuple(g.state.seats[1].hand)
    assert [s.hand_size for s in v.seats] == [15, 14, 14]
    assert [s.name for s in v.seats] == ["ann", "bob", "cy"]
    assert v.turn == 0 and v.phase == "play" and v.stock_size == len(g.state.stock)
    assert v.version == g.version == g.record.version
    assert v.deck[v.hand[0]] == g.rules.names[v.hand[0]]
    assert not (_ids_in_view(v) & _hidden_from(g, 1))


def test_spectator_view_has_no_hand() -> None:
    g = Game.new("rummy", ["a", "b"], seed=2)
    v = g.view(None)
    assert v.hand is None and v.viewer is None
    assert not (_ids_in_view(v) & _hidden_from(g, None))
    json.dumps(v.to_data())


def test_views_never_show_hidden_cards_during_play() -> None:
    g = Game.new("ramino51", ["a", "b", "c", "d"], seed=3)
    bots = [make_bot("greedy", i) for i in range(4)]
    while not g.finished:
        for viewer in (None, 0, 1, 2, 3):
            assert not (_ids_in_view(g.view(viewer)) & _hidden_from(g, viewer))
        seat = g.state.turn
        g.apply(seat, bots[seat].choose(g, seat))
    assert g.view(0).phase == "over" and g.view(0).turn is None


def test_projected_events_hide_other_seats_cards() -> None:
    g = Game.new("rummy", ["a", "b", "c"], seed=4)
    drawn = g.apply(0, DrawFromStock())[0]
    assert isinstance(drawn, DrewFromStock) and drawn.card is not None
    own = g.events(0, since=1)[0]
    other = g.events(1, since=1)[0]
    spectator = g.events(None, since=1)[0]
    assert own == drawn
    assert isinstance(other, DrewFromStock) and other.card is None and other.seat == 0
    assert isinstance(spectator, DrewFromStock) and spectator.card is None
    deal = g.events(1)[0]
    assert isinstance(deal, RoundStarted)
    assert deal.stock is None and deal.stock_size == len(g.state.stock) + 1
    assert deal.hands[1] == tuple(g.state.seats[1].hand)
    assert deal.hands[0] is None and deal.hands[2] is None
    assert deal.hand_sizes == (7, 7, 7)
    watching = g.events(None)[0]
    assert isinstance(watching, RoundStarted) and all(h is None for h in watching.hands)


@pytest.mark.parametrize("viewer", [None, 0, 1])
def test_projected_events_of_a_whole_match_leak_nothing(viewer: int | None) -> None:
    g = Game.new("rummy", ["a", "b"], seed=5, overrides={"max_stock_rebuilds": 1})
    play_out(g, ["random", "greedy"], seed=5)
    for e in g.events(viewer):
        if isinstance(e, StockReshuffled | RoundStarted):
            assert e.stock is None
        if isinstance(e, DrewFromStock) and e.seat != viewer:
            assert e.card is None
        if isinstance(e, RoundStarted):
            assert all(h is None for s, h in enumerate(e.hands) if s != viewer)
    assert len(g.events(viewer)) == g.version


def test_view_of_melds_owner_and_jokers() -> None:
    g = Game.new("ramino51", ["a", "b"], seed=6)
    play_out(g, ["greedy", "greedy"], seed=6)
    v = g.view(None)
    assert v.melds
    for m, table in zip(v.melds, g.state.melds, strict=True):
        assert m.owner == table.owner and m.cards == tuple(table.cards)
        assert m.kind in ("set", "run")
        for joker, stands_for in m.jokers:
            assert v.deck[joker] == "JK" and stands_for


def test_standings_rank_lower_totals_first_in_51_and_higher_in_rummy() -> None:
    g51 = Game.new("ramino51", ["a", "b", "c"], seed=7, overrides={"max_rounds": 2})
    play_out(g51, ["greedy", "random", "greedy"], seed=7)
    st = g51.view(None).standings
    assert [s.total for s in st] == sorted(s.total for s in st)
    assert st[0].rank == 1
    g = Game.new("rummy", ["a", "b"], seed=8)
    play_out(g, ["greedy", "random"], seed=8)
    st = g.view(1).standings
    assert [s.total for s in st] == sorted((s.total for s in st), reverse=True)
    assert g.view(1).winners == (st[0].seat,)
