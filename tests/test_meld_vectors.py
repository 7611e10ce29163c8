"""Data-driven vectors of tests/vectors/melds.json: every example of RULES.md
and every reason a meld can be refused, against the core and the reference.

One test per group of vectors, named after the rule the group checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import ramino
from reference import check_opening, hand_penalty, ref_best_opening, ref_validate, split_cards

VECTORS = json.loads((Path(__file__).parent / "vectors" / "melds.json").read_text())["groups"]

MELD_REASONS = {
    "TOO_SHORT",
    "SET_TOO_LONG",
    "RUN_TOO_LONG",
    "TOO_MANY_JOKERS",
    "TOO_FEW_NATURALS",
    "MIXED_SUITS",
    "DUPLICATE_SUIT",
    "GAP",
    "WRAP_AROUND",
    "OUT_OF_ORDER",
    "ACE_HIGH_NOT_ALLOWED",
    "JOKER_BEYOND_ACE",
}


def vector_id(vector: dict[str, Any]) -> str:
    what = vector.get("cards") or vector.get("hand") or f"{vector['meld']} + {vector['card']}"
    variant = vector.get("variant", "ramino51")
    overrides = ",".join(f"{k}={v}" for k, v in vector.get("overrides", {}).items())
    return f"{vector['check']}:{what}:{variant}{'+' + overrides if overrides else ''}"


def vectors_of(group: str) -> pytest.MarkDecorator:
    vectors = VECTORS[group]["vectors"]
    return pytest.mark.parametrize("vector", vectors, ids=[vector_id(v) for v in vectors])


def check_meld_result(meld: ramino.Meld, vector: dict[str, Any], cards: list[str]) -> None:
    assert meld.cards == cards
    assert meld.kind == vector["kind"]
    assert meld.value == vector["value"]
    assert [(j.index, j.stands_for) for j in meld.jokers] == [
        (j["index"], j["stands_for"]) for j in vector["jokers"]
    ]
    assert meld.closed == vector["closed"]
    assert meld.pure == vector["pure"]


def check_reference_meld(cards: list[str], vector: dict[str, Any], params: dict[str, Any]) -> None:
    want = ref_validate(cards, params)
    if "reason" in vector:
        assert want is None, f"the reference accepts {cards}"
        return
    assert want is not None, f"the reference refuses {cards}"
    assert (want.kind, want.value) == (vector["kind"], vector["value"])
    assert want.jokers == {j["index"]: frozenset(j["stands_for"]) for j in vector["jokers"]}


def run_vector(vector: dict[str, Any]) -> None:
    """Checks one vector against the core, then against the reference."""
    variant = ramino.Variant(vector.get("variant", "ramino51"), **vector.get("overrides", {}))
    params = variant.to_dict()
    check = vector["check"]
    if check in ("meld", "extend"):
        if check == "meld":
            cards = split_cards(vector["cards"])

            def call() -> ramino.Meld:
                return ramino.validate_meld(vector["cards"], variant)
        else:
            before = split_cards(vector["meld"])
            card = split_cards([vector["card"]])[0]
            cards = [card, *before] if vector["end"] == "start" else [*before, card]
            if "reason" not in vector:
                assert cards == split_cards(vector["cards"])

            def call() -> ramino.Meld:
                return ramino.extend_meld(vector["meld"], vector["card"], vector["end"], variant)

        if "reason" in vector:
            with pytest.raises(ramino.InvalidMeld) as refused:
                call()
            assert refused.value.reason == vector["reason"]
        else:
            check_meld_result(call(), vector, cards)
        check_reference_meld(cards, vector, params)
    elif check == "opening":
        include = vector.get("include")
        opening = ramino.best_opening(vector["hand"], variant, include=include)
        assert (None if opening is None else opening.value) == vector["value"]
        if opening is not None:
            check_opening(vector["hand"], params, opening.value, opening.melds, include=include)
        assert ref_best_opening(vector["hand"], params, include=include) == vector["value"]
    elif check == "penalty":
        assert ramino.penalty(vector["cards"], variant) == vector["penalty"]
        assert hand_penalty(split_cards(vector["cards"]), params) == vector["penalty"]
    else:
        raise AssertionError(f"unknown check {check!r}")


@vectors_of("set_is_three_or_four_cards_of_one_rank_in_distinct_suits")
def test_set_is_three_or_four_cards_of_one_rank_in_distinct_suits(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("set_of_four_is_closed")
def test_set_of_four_is_closed(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("run_is_three_or_more_consecutive_cards_of_one_suit")
def test_run_is_three_or_more_consecutive_cards_of_one_suit(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("ace_low_is_always_allowed")
def test_ace_low_is_always_allowed(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("ace_high_only_where_ace_high_is_on")
def test_ace_high_only_where_ace_high_is_on(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("run_never_wraps_around")
def test_run_never_wraps_around(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("ace_at_both_ends_makes_a_fourteen_card_run")
def test_ace_at_both_ends_makes_a_fourteen_card_run(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("run_is_listed_in_ascending_order_a_set_in_any_order")
def test_run_is_listed_in_ascending_order_a_set_in_any_order(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("joker_in_a_run_stands_for_the_card_at_its_position")
def test_joker_in_a_run_stands_for_the_card_at_its_position(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("joker_in_a_set_stands_for_a_missing_suit")
def test_joker_in_a_set_stands_for_a_missing_suit(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("jokers_per_meld_are_bounded_when_laid_and_when_extended")
def test_jokers_per_meld_are_bounded_when_laid_and_when_extended(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("meld_holds_at_least_two_naturals")
def test_meld_holds_at_least_two_naturals(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("joker_cannot_stand_beyond_ace")
def test_joker_cannot_stand_beyond_ace(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("joker_laid_off_at_a_run_end_stands_for_the_card_at_that_end")
def test_joker_laid_off_at_a_run_end_stands_for_the_card_at_that_end(
    vector: dict[str, Any],
) -> None:
    run_vector(vector)


@vectors_of("opening_reaches_the_threshold")
def test_opening_reaches_the_threshold(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("opening_keeps_a_card_to_discard")
def test_opening_keeps_a_card_to_discard(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("rami51_opening_needs_a_pure_run")
def test_rami51_opening_needs_a_pure_run(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("opening_with_the_taken_discard_uses_that_card")
def test_opening_with_the_taken_discard_uses_that_card(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("ramino51_card_values")
def test_ramino51_card_values(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("rami51_card_values")
def test_rami51_card_values(vector: dict[str, Any]) -> None:
    run_vector(vector)


@vectors_of("rummy_card_values")
def test_rummy_card_values(vector: dict[str, Any]) -> None:
    run_vector(vector)


def test_every_group_of_vectors_has_its_test() -> None:
    tested = {name[len("test_") :] for name in globals() if name.startswith("test_")}
    assert set(VECTORS) <= tested, f"groups without a test: {set(VECTORS) - tested}"


def test_every_reason_a_meld_can_be_refused_has_a_vector() -> None:
    reasons = {v["reason"] for g in VECTORS.values() for v in g["vectors"] if "reason" in v}
    assert reasons == MELD_REASONS
