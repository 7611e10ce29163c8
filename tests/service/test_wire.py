"""Messages joined from serialized pieces (ramino.api.wire) are the messages
protobuf itself would serialize."""

from __future__ import annotations

import random

import pytest
import ramino
from ramino.api import convert, wire
from ramino.api.game_servicer import (
    _VARIANTS,
    GameVariant,
    hint_bytes,
    move_response,
)
from ramino.v1 import game_pb2, types_pb2

MOVE_RPCS = [
    m
    for m in game_pb2.DESCRIPTOR.services_by_name["GameService"].methods
    if m.input_type.fields_by_name.get("expected_version") is not None
]


def test_every_move_rpc_answers_a_move_result_as_field_1_alone() -> None:
    assert len(MOVE_RPCS) == 11  # eight, and gin's PassUpcard, Knock, AcceptLayout
    for method in MOVE_RPCS:
        fields = method.output_type.fields
        assert [(f.name, f.number) for f in fields] == [("result", 1)], method.name
        assert fields[0].message_type is game_pb2.MoveResult.DESCRIPTOR


@pytest.mark.parametrize("cards", [0, 1, 5, 40, 2000])
def test_a_move_response_from_result_bytes_equals_the_serialized_response(cards: int) -> None:
    # 2000 cards make a result over 16 KiB: a length of three varint bytes.
    result = game_pb2.MoveResult(
        view=game_pb2.GameView(
            name="games/x",
            hand=[types_pb2.Card(id=i % 108, code="AS", rank=1) for i in range(cards)],
        )
    )
    joined = move_response(result.SerializeToString())
    assert joined == game_pb2.DrawFromStockResponse(result=result).SerializeToString()
    assert game_pb2.DiscardResponse.FromString(joined).result == result


def test_varints_match_protobufs_encoding() -> None:
    for n in (0, 1, 127, 128, 300, 16383, 16384, 2**21, 2**31 - 1):
        # Card.id is field 1, a varint: its tag is the byte 0x08.
        assert types_pb2.Card(id=n).SerializeToString() == b"\x08" + wire.varint(n)
    assert wire.varint(300) == b"\xac\x02"


def test_joined_repeated_fields_keep_their_order() -> None:
    cards = [types_pb2.Card(id=i, code=c) for i, c in enumerate(["AS", "2H", "JK", "TD"])]
    number = game_pb2.GameView.DESCRIPTOR.fields_by_name["hand"].number
    head = game_pb2.GameView(name="games/y", version=7).SerializeToString()
    joined = head + b"".join(wire.field(number, c.SerializeToString()) for c in cards)
    assert game_pb2.GameView.FromString(joined) == game_pb2.GameView(
        name="games/y", version=7, hand=cards
    )


def test_pieces_are_built_once_and_the_cache_is_bounded() -> None:
    made: list[tuple[int, int]] = []

    def make(a: int, b: int) -> bytes:
        made.append((a, b))
        return bytes([a, b])

    pieces = wire.Pieces(make, limit=3)
    assert pieces.get(1, 2) == b"\x01\x02"
    assert pieces.get(1, 2) == b"\x01\x02"
    assert made == [(1, 2)]
    for i in range(5):
        pieces.get(0, i)
    assert len(pieces) <= 3


@pytest.mark.parametrize("variant_name", ["ramino51", "rami51", "rummy"])
def test_a_hint_from_wire_pieces_is_the_message_protobuf_makes(variant_name: str) -> None:
    rng = random.Random(7)
    variant = ramino.Variant(variant_name)
    info = GameVariant(f"{variant_name}:[]", variant, b"", b"")
    _VARIANTS.setdefault(info.key, info)
    deck = [str(c) for c in ramino.deck_cards(variant)]
    for size in [1, 2, 3, 7, 11, 14, 15] * 30:
        ids = rng.sample(range(len(deck)), size)
        hand = [deck[i] for i in ids]
        for opened in (False, True):
            expected = game_pb2.Hint()
            deadwood = ramino.min_deadwood(hand, variant)
            expected.min_deadwood.CopyFrom(convert.deadwood(deadwood, variant))
            opening = None if opened else ramino.best_opening(hand, variant)
            if opening is not None:
                expected.best_opening.CopyFrom(convert.opening(opening, variant))
            worst = max(deadwood.deadwood or hand, key=variant.card_penalty)
            expected.suggested_discard.CopyFrom(convert.card(worst, ids[hand.index(worst)]))
            got = game_pb2.Hint.FromString(hint_bytes(info, hand, ids, opened))
            assert got == expected, (hand, opened)
