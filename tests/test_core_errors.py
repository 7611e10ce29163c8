"""Bad input to the core: every refusal is a ``ramino.errors`` class (a
``RaminoError`` and a ``ValueError``) with its stable ``reason`` and a message
naming what was wrong; never a panic, never a hang."""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable
from typing import Any

import pytest
import ramino
from hypothesis import given, settings
from hypothesis import strategies as st
from ramino import errors

FUZZ = settings(max_examples=300, deadline=None, database=None)

CARD_REASONS = {"BAD_CARD", "TOO_MANY_COPIES", "BAD_DECK"}
HAND_REASONS = {"EMPTY_HAND", "HAND_TOO_LARGE", "BAD_TABLE_MELD", "CARD_NOT_IN_HAND"}


def refused(
    call: Callable[[], Any], cls: type[errors.RaminoError], reason: str
) -> errors.RaminoError:
    """The error that `call` raises, checked to be `cls` with `reason`."""
    with pytest.raises(cls) as info:
        call()
    e = info.value
    assert isinstance(e, ramino.RaminoError)
    assert isinstance(e, ValueError)
    assert e.reason == reason
    return e


# ---------------------------------------------------------------- card notation

BAD_TOKENS = [
    "1H",
    "ZZ",
    "AX",
    "10",
    "11S",
    "0S",
    "A",
    "T",
    "♥",
    "JKR",
    "AS2S",
    "A♥x",
    "KS;QS",
    "10HH",
    "Ä",
]


@pytest.mark.parametrize("token", BAD_TOKENS)
def test_bad_card_token_is_named_in_the_error(token: str) -> None:
    for call in (
        lambda: ramino.Card(token),
        lambda: ramino.parse_cards(f"AS 2S {token} 3S"),
        lambda: ramino.parse_cards(["AS", token]),
        lambda: ramino.validate_meld(f"{token} 2S 3S"),
        lambda: ramino.best_opening(f"AS {token}", "ramino51"),
        lambda: ramino.min_deadwood(f"AS {token}", "rummy"),
        lambda: ramino.penalty(f"AS {token}", "rummy"),
        lambda: ramino.layoff_targets(token, ["5H 6H 7H"]),
        lambda: ramino.joker_swaps("5H", [f"5S 6S {token}"]),
        lambda: ramino.extend_meld("5H 6H 7H", token),
        lambda: ramino.best_opening("AS 2S 3S", "rummy", include=token),
        lambda: ramino.analyze_many(["AS 2S 3S", f"{token} 2C"], "rummy"),
    ):
        e = refused(call, errors.CardError, "BAD_CARD")
        assert token in str(e)


def test_empty_token_is_a_bad_card() -> None:
    refused(lambda: ramino.Card(""), errors.CardError, "BAD_CARD")
    refused(lambda: ramino.parse_cards(["AS", ""]), errors.CardError, "BAD_CARD")


def test_card_notation_accepts_what_the_rules_allow() -> None:
    cards = ramino.parse_cards("as 10h TH th 10♥ q♦ K♣ 2♠ jk JK")
    assert [str(c) for c in cards] == ["AS", "TH", "TH", "TH", "TH", "QD", "KC", "2S", "JK", "JK"]
    assert ramino.parse_cards("AS,2S, 3S") == ramino.parse_cards(["AS", "2S", "3S"])


@pytest.mark.parametrize("bad", [1, None, 2.5, object(), [1], ["AS", 2], [None]])
def test_cards_of_the_wrong_type_are_a_type_error(bad: Any) -> None:
    with pytest.raises(TypeError):
        ramino.parse_cards(bad)
    with pytest.raises(TypeError):
        ramino.best_opening(bad, "ramino51")


def test_a_hand_reads_the_same_from_any_sequence_of_cards_and_strings() -> None:
    # Lists are read by index, other iterables through the iterator protocol.
    cards = ramino.parse_cards("AS 2S 3S KH JK")
    mixed = ["AS", cards[1], "3S", cards[3], "JK"]
    expected = ramino.min_deadwood(cards, "ramino51")
    assert expected.deadwood == ["KH"]
    makers = [lambda: mixed, lambda: tuple(mixed), lambda: iter(mixed), lambda: "AS 2S 3S KH JK"]
    for make in makers:
        assert ramino.parse_cards(make()) == cards
        found = ramino.min_deadwood(make(), "ramino51")
        assert (found.value, found.melds) == (expected.value, expected.melds)
    with pytest.raises(TypeError, match="not int"):
        ramino.min_deadwood([*cards[:2], 7], "ramino51")


# ---------------------------------------------------------------- hands


@pytest.mark.parametrize("empty", ["", "   ", []])
def test_empty_hand_is_refused_by_the_searches(empty: Any) -> None:
    refused(lambda: ramino.best_opening(empty, "ramino51"), errors.InvalidHand, "EMPTY_HAND")
    refused(lambda: ramino.min_deadwood(empty, "rummy"), errors.InvalidHand, "EMPTY_HAND")
    refused(lambda: ramino.analyze_many([empty], "rummy"), errors.InvalidHand, "EMPTY_HAND")


@pytest.mark.parametrize(
    ("hand", "variant", "card"),
    [
        ("AS AS 2S", "rummy", "AS"),
        ("JK 2S 3S", "rummy", "JK"),
        ("KD 5C KD KD", "ramino51", "KD"),
        ("JK JK JK JK JK 2S", "ramino51", "JK"),
        ("7H 7H 7H", "rami51", "7H"),
    ],
)
def test_more_copies_than_the_deck_holds_are_refused(hand: str, variant: str, card: str) -> None:
    for call in (
        lambda: ramino.best_opening(hand, variant),
        lambda: ramino.min_deadwood(hand, variant),
        lambda: ramino.analyze_many([hand], variant),
    ):
        e = refused(call, errors.CardError, "TOO_MANY_COPIES")
        assert card in str(e)


def test_copies_follow_the_variant_deck() -> None:
    two_packs = ramino.Variant("rummy", packs=2, jokers=2)
    assert ramino.min_deadwood("AS AS JK JK 2S", two_packs).value >= 0
    refused(lambda: ramino.min_deadwood("JK JK JK", two_packs), errors.CardError, "TOO_MANY_COPIES")


def thirty_one_cards() -> list[str]:
    ranks = "A23456789TJQK"
    return [r + s for s in "SH" for r in ranks] + [r + "D" for r in ranks[:5]]


def test_hand_over_thirty_cards_is_refused() -> None:
    hand = thirty_one_cards()
    assert len(hand) == ramino.MAX_HAND + 1
    for call in (
        lambda: ramino.best_opening(hand, "ramino51"),
        lambda: ramino.min_deadwood(hand, "ramino51"),
        lambda: ramino.penalty(hand, "ramino51"),
        lambda: ramino.layoff_targets(hand, ["5C 6C 7C"], "ramino51"),
        lambda: ramino.joker_swaps(hand, ["5C 6C JK"], "ramino51"),
        lambda: ramino.analyze_many([hand[:3], hand], "ramino51"),
    ):
        e = refused(call, errors.InvalidHand, "HAND_TOO_LARGE")
        assert "31" in str(e)


def test_huge_hand_is_refused_quickly() -> None:
    start = time.monotonic()
    refused(
        lambda: ramino.best_opening("2S " * 100_000, "ramino51"),
        errors.InvalidHand,
        "HAND_TOO_LARGE",
    )
    assert time.monotonic() - start < 5


def test_thirty_card_hand_is_searched_in_bounded_time() -> None:
    # A worst case: one suit twice over and every joker, jokers unbounded per meld.
    hand = [r + "S" for r in "A23456789TJQK"] * 2 + ["JK"] * 4
    variant = ramino.Variant("ramino51", max_jokers_per_meld=4)
    start = time.monotonic()
    opening = ramino.best_opening(hand, variant)
    deadwood = ramino.min_deadwood(hand, variant)
    assert time.monotonic() - start < 60
    assert opening is not None and opening.value >= 51
    assert deadwood.value == 0


def test_include_must_be_in_the_hand() -> None:
    e = refused(
        lambda: ramino.best_opening("AS 2S 3S 9D", "rummy", include="4S"),
        errors.InvalidHand,
        "CARD_NOT_IN_HAND",
    )
    assert "4S" in str(e)


def test_analyze_many_names_the_bad_hand() -> None:
    e = refused(
        lambda: ramino.analyze_many(["AS 2S 3S", "AS AS"], "rummy"),
        errors.CardError,
        "TOO_MANY_COPIES",
    )
    assert "hand 1" in str(e)


# ---------------------------------------------------------------- the table


@pytest.mark.parametrize(
    ("table", "index", "why"),
    [
        (["5H 6H 8H"], 0, "gap"),
        (["5H 6H 7H", "AS"], 1, "3 cards"),
        (["5H 6H 7H", "9S 9D 9C", "QH KH AH JK"], 2, "ace"),
        (["5S 5H 5S"], 0, "suit"),
    ],
)
def test_bad_table_meld_is_refused_with_its_index(table: list[str], index: int, why: str) -> None:
    for call in (
        lambda: ramino.layoff_targets("4H", table, "ramino51"),
        lambda: ramino.joker_swaps("4H", table, "ramino51"),
    ):
        e = refused(call, errors.InvalidHand, "BAD_TABLE_MELD")
        assert f"meld {index}" in str(e)
        assert why in str(e)


def test_table_of_the_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        ramino.layoff_targets("4H", 5, "ramino51")
    with pytest.raises(TypeError):
        ramino.joker_swaps("4H", [5], "ramino51")


# ---------------------------------------------------------------- variants


def test_unknown_variant_is_refused() -> None:
    for call in (
        lambda: ramino.Variant("canasta"),
        lambda: ramino.best_opening("AS 2S 3S", "canasta"),
        lambda: ramino.validate_meld("AS 2S 3S", "canasta"),
        lambda: ramino.deck_cards("canasta"),
    ):
        e = refused(call, errors.VariantError, "UNKNOWN_VARIANT")
        assert "canasta" in str(e)


def test_variant_of_the_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        ramino.best_opening("AS 2S 3S", 5)


def test_unknown_parameter_is_refused() -> None:
    for call in (
        lambda: ramino.Variant("ramino51", jokers_per_meld=1),
        lambda: ramino.Variant("rummy").replace(jokers_per_meld=1),
    ):
        e = refused(call, errors.VariantError, "UNKNOWN_PARAMETER")
        assert "jokers_per_meld" in str(e)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("packs", 3),
        ("packs", 0),
        ("jokers", 5),
        ("max_jokers_per_meld", 5),
        ("max_jokers_per_meld", -1),
        ("ace_high", 1),
        ("ace_high", "yes"),
        ("joker_penalty", -1),
        ("joker_penalty", 2**70),
        ("joker_penalty", 2.5),
        ("joker_penalty", None),
        ("open_threshold", True),
        ("scoring", "best"),
        ("stock_exhausted", "burn"),
        ("hand_sizes", [1, 2]),
        ("hand_sizes", [0, 7, 7, 6, 6]),
        ("min_players", 1),
        ("max_players", 7),
        ("deck_size", 60),
        ("name", "gin"),
    ],
)
def test_bad_parameter_value_is_refused(name: str, value: Any) -> None:
    if name == "name":
        # `name` is the preset argument itself; through replace() it is an override.
        call: Callable[[], Any] = lambda: ramino.Variant("rummy").replace(name=value)  # noqa: E731
    else:
        call = lambda: ramino.Variant("ramino51", **{name: value})  # noqa: E731
    e = refused(call, errors.VariantError, "BAD_PARAMETER")
    assert name in str(e)


def test_deal_that_the_deck_cannot_hold_is_refused() -> None:
    refused(
        lambda: ramino.Variant("ramino51", packs=1),
        errors.VariantError,
        "BAD_PARAMETER",
    )


# ---------------------------------------------------------------- seeds


@pytest.mark.parametrize("seed", [-1, -(2**300), 2**256, 2**256 + 1, 2**1000])
def test_seed_outside_256_bits_is_refused(seed: int) -> None:
    refused(lambda: ramino.shuffle(seed, 10), errors.InvalidSeed, "BAD_SEED")


@pytest.mark.parametrize("seed", [1.0, "1", None, True, b"\x01", [1]])
def test_seed_that_is_not_an_int_is_refused(seed: Any) -> None:
    e = refused(lambda: ramino.shuffle(seed, 10), errors.InvalidSeed, "BAD_SEED")
    assert type(seed).__name__ in str(e)


def test_seed_bounds_are_accepted() -> None:
    for seed in (0, 2**256 - 1):
        assert sorted(ramino.shuffle(seed, 108)) == list(range(108))


# ---------------------------------------------------------------- the tree


def test_errors_form_one_tree_and_survive_pickling() -> None:
    for cls in (
        errors.CardError,
        errors.InvalidMeld,
        errors.InvalidHand,
        errors.VariantError,
        errors.InvalidSeed,
    ):
        assert issubclass(cls, errors.InputError)
        assert issubclass(cls, ramino.RaminoError)
        assert issubclass(cls, ValueError)
    e = refused(lambda: ramino.validate_meld("5S 6S 8S"), errors.InvalidMeld, "GAP")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is errors.InvalidMeld
    assert (back.reason, str(back)) == (e.reason, str(e))


# ---------------------------------------------------------------- fuzz

TOKENS = st.one_of(
    st.sampled_from(["AS", "TH", "10H", "JK", "qd", "K♣", "2♦", *BAD_TOKENS]),
    st.text(max_size=5),
)


@FUZZ
@given(st.text(max_size=60))
def test_any_text_parses_or_is_a_bad_card(text: str) -> None:
    try:
        cards = ramino.parse_cards(text)
    except ramino.RaminoError as e:
        assert isinstance(e, errors.CardError)
        assert e.reason == "BAD_CARD"
        return
    assert ramino.parse_cards([str(c) for c in cards]) == cards


@FUZZ
@given(
    st.lists(TOKENS, max_size=35),
    st.sampled_from(["ramino51", "rami51", "rummy"]),
    st.one_of(st.none(), TOKENS),
)
def test_any_token_list_is_answered_or_refused_by_reason(
    tokens: list[str], variant: str, include: str | None
) -> None:
    text = " ".join(tokens)
    for call in (
        lambda: ramino.validate_meld(text, variant),
        lambda: ramino.best_opening(text, variant, include=include),
        lambda: ramino.min_deadwood(text, variant),
        lambda: ramino.layoff_targets(text, [text], variant),
        lambda: ramino.joker_swaps(text, ["5H 6H JK", text], variant),
    ):
        try:
            call()
        except ramino.RaminoError as e:
            assert isinstance(e, ValueError)
            assert e.reason in CARD_REASONS | HAND_REASONS | {"TOO_SHORT"} or isinstance(
                e, errors.InvalidMeld
            )
