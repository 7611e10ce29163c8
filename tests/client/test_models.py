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
    JokerRole,
    LaidOff,
    MatchEnded,
    MeldDescription,
    MeldKind,
    MeldsLaid,
    RoundEnded,
    RoundStarted,
    ScorePart,
    Suit,
    UnknownEvent,
    _convert,
    group_by_suit,
    sort_cards,
)
from ramino_client.v1 import game_pb2, types_pb2

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


def test_events_from_their_typed_messages() -> None:
    discarded = _convert.event(
        game_pb2.GameEvent(version=9, seat=1, discarded=game_pb2.Discarded(card_id=41))
    )
    assert discarded == Discarded(version=9, seat=1, card=41) and discarded.type == "Discarded"
    laid = _convert.event(
        game_pb2.GameEvent(
            version=10,
            seat=0,
            melds_laid=game_pb2.MeldsLaid(
                melds=[game_pb2.MeldCardIds(card_ids=[1, 2, 3])], opening=True
            ),
        )
    )
    assert isinstance(laid, MeldsLaid) and laid.melds == ((1, 2, 3),) and laid.opening
    assert laid.described == (), "a server before it said describes nothing"
    off = _convert.event(
        game_pb2.GameEvent(
            version=11,
            seat=0,
            laid_off=game_pb2.LaidOff(card_id=4, meld_index=0, end=types_pb2.END_FIRST),
        )
    )
    assert isinstance(off, LaidOff) and off.end is End.FIRST and off.described is None
    with_joker = types_pb2.MeldDescription(
        kind=types_pb2.MELD_KIND_SET,
        value=15,
        jokers=[types_pb2.JokerRole(index=2, stands_for=["5H", "5C"])],
    )
    described = _convert.event(
        game_pb2.GameEvent(
            version=12,
            seat=1,
            melds_laid=game_pb2.MeldsLaid(
                melds=[game_pb2.MeldCardIds(card_ids=[4, 5, 3])], described=[with_joker]
            ),
        )
    )
    assert isinstance(described, MeldsLaid)
    assert described.described == (
        MeldDescription(MeldKind.SET, 15, (JokerRole(2, ("5H", "5C")),), closed=False, pure=False),
    )
    dealt = _convert.event(
        game_pb2.GameEvent(
            version=2,
            round_started=game_pb2.RoundStarted(
                round=1, dealer=1, first_player=0, hand=[5, 6], hand_sizes=[2, 2], stock_size=40
            ),
        )
    )
    assert isinstance(dealt, RoundStarted) and dealt.hand == (5, 6) and dealt.upcard is None
    watched = _convert.event(
        game_pb2.GameEvent(version=3, round_started=game_pb2.RoundStarted(hand_sizes=[2, 2]))
    )
    assert isinstance(watched, RoundStarted) and watched.hand is None
    # A type newer than this SDK: its field number is unknown to our messages.
    future = _convert.event(game_pb2.GameEvent.FromString(b"\x08\x0c\x20\x02\xfa\x06\x00"))
    assert isinstance(future, UnknownEvent) and future.version == 12 and future.seat == 2


def test_a_rounds_scores_come_with_their_parts() -> None:
    part = game_pb2.ScorePart
    ended = _convert.event(
        game_pb2.GameEvent(
            version=40,
            round_ended=game_pb2.RoundEnded(
                round=1,
                ending="went_out",
                winner=0,
                scores=[-40, 100],
                parts=[
                    game_pb2.ScoreParts(
                        parts=[part(kind=game_pb2.SCORE_PART_KIND_WENT_OUT, points=-40)]
                    ),
                    game_pb2.ScoreParts(
                        parts=[
                            part(kind=game_pb2.SCORE_PART_KIND_NEVER_OPENED, points=100, base=83)
                        ]
                    ),
                ],
            ),
        )
    )
    assert isinstance(ended, RoundEnded)
    assert ended.parts == (
        (ScorePart(kind="went_out", points=-40),),
        (ScorePart(kind="never_opened", points=100, base=83),),
    )
    assert [sum(p.points for p in seat) for seat in ended.parts] == list(ended.scores)
    box = part(kind=game_pb2.SCORE_PART_KIND_BOX_BONUS, points=50, base=25, factor=2, seat=None)
    won = _convert.event(
        game_pb2.GameEvent(
            version=90,
            match_ended=game_pb2.MatchEnded(
                totals=[150, 0],
                winners=[0],
                parts=[game_pb2.ScoreParts(parts=[box]), game_pb2.ScoreParts()],
            ),
        )
    )
    assert isinstance(won, MatchEnded)
    assert won.parts == ((ScorePart(kind="box_bonus", points=50, base=25, factor=2),), ())
    # A server from before the parts: none, and nothing fails.
    old = _convert.event(
        game_pb2.GameEvent(version=3, round_ended=game_pb2.RoundEnded(scores=[5, 0]))
    )
    assert isinstance(old, RoundEnded) and old.parts == ()


def test_overrides_are_typed_parameters_and_back() -> None:
    msg = _convert.parameters_message({"ace_high": True, "scoring": "winner_collects"})
    assert msg.ace_high and msg.scoring == types_pb2.SCORING_WINNER_COLLECTS
    assert _convert.parameters(msg) == {"ace_high": True, "scoring": "winner_collects"}
    with pytest.raises(ValueError, match="unknown variant parameter"):
        _convert.parameters_message({"no_such": 1})
    with pytest.raises(ValueError, match="scoring"):
        _convert.parameters_message({"scoring": "golf"})


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
