"""The SDK's values: card names, hands sorted and grouped by suit, events
read from their JSON fields."""

from __future__ import annotations

import pytest
from ramino_client import (
    BotLevel,
    Card,
    Client,
    Discarded,
    End,
    LaidOff,
    MeldsLaid,
    RoundStarted,
    Suit,
    UnknownEvent,
    group_by_suit,
    sort_cards,
)
from ramino_client.events import event_from_data

from .conftest import ThreadServer


def test_card_names() -> None:
    ten = Card.from_code("10h", card_id=7)
    assert (ten.code, ten.rank, ten.suit, ten.id) == ("TH", 10, Suit.HEARTS, 7)
    assert (ten.symbol, ten.name, str(ten)) == ("10♥", "10 of Hearts", "TH")
    assert Card.from_code("AS").name == "Ace of Spades"
    assert Card.from_code("QD").symbol == "Q♦" and Card.from_code("QD").suit is Suit.DIAMONDS
    assert Suit.DIAMONDS.red and not Suit.CLUBS.red
    joker = Card.from_code("JK")
    assert joker.joker and joker.suit is None and joker.name == "Joker"
    for bad in ("ZZ", "1S", "KX", ""):
        with pytest.raises(ValueError):
            Card.from_code(bad)


def test_hands_sort_and_group_by_suit() -> None:
    hand = [Card.from_code(c, i) for i, c in enumerate("KD JK 2S AS 9H 2S 3C".split())]
    assert [c.code for c in sort_cards(hand)] == ["AS", "2S", "2S", "9H", "3C", "KD", "JK"]
    groups = group_by_suit(hand)
    assert list(groups) == [Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS, None]
    assert [c.id for c in groups[Suit.SPADES]] == [3, 2, 5]
    assert [c.code for c in groups[None]] == ["JK"]


def test_events_from_their_fields() -> None:
    discarded = event_from_data(9, "Discarded", {"seat": 1.0, "card": 41.0})
    assert discarded == Discarded(version=9, seat=1, card=41) and discarded.type == "Discarded"
    laid = event_from_data(10, "MeldsLaid", {"seat": 0, "melds": [[1, 2, 3]], "opening": True})
    assert isinstance(laid, MeldsLaid) and laid.melds == ((1, 2, 3),) and laid.opening
    off = event_from_data(11, "LaidOff", {"seat": 0, "card": 4, "meld": 0, "end": "start"})
    assert isinstance(off, LaidOff) and off.end is End.FIRST
    dealt = event_from_data(
        2,
        "RoundStarted",
        {
            "round": 1,
            "dealer": 1,
            "first_player": 0,
            "hands": [[5, 6], None],
            "hand_sizes": [2, 2],
            "upcard": None,
            "stock_size": 40,
            "stock": None,
        },
    )
    assert isinstance(dealt, RoundStarted) and dealt.hand == (5, 6) and dealt.upcard is None
    future = event_from_data(12, "CometStruck", {"seat": 2, "where": "table"})
    assert isinstance(future, UnknownEvent) and future.type == "CometStruck"
    assert future.seat == 2 and future.data["where"] == "table"
    broken = event_from_data(13, "Discarded", {"seat": 0})
    assert isinstance(broken, UnknownEvent) and broken.type == "Discarded"


def test_end_parse() -> None:
    assert End.parse("start") is End.FIRST and End.parse("END") is End.LAST
    assert End.parse(End.FIRST) is End.FIRST
    with pytest.raises(ValueError):
        End.parse("middle")


def test_a_view_from_the_server(server: ThreadServer) -> None:
    with Client(server.address) as client:
        game = client.create_game("ramino51", seats=["ann", BotLevel.GREEDY], turn_timer_seconds=60)
        seat = client.join(game.name, "ann")
        view = seat.view()
    assert view.game_id == game.game_id and view.seat == 0 and view.me is not None
    assert view.me.player_name == "ann" and view.seats[1].bot is BotLevel.GREEDY
    assert view.variant.name == "ramino51" and view.variant.parameters["packs"] == 2
    assert all(c.id is not None for c in view.hand)
    grouped = [c for cards in view.hand_by_suit().values() for c in cards]
    assert grouped == list(view.sorted_hand())
    assert {c.id for c in grouped} == {c.id for c in view.hand}
    first = view.hand[0]
    assert first.id is not None and view.card(first.id) == first
    assert view.turn_timer_seconds == 60
    assert (view.turn_deadline is not None) == view.my_turn
