"""The Rust core against the brute-force reference of tests/reference.py.

Every preset and a few overrides; hands from one or two packs with 0 to 4
jokers, 3 to 15 cards, and dense hands (few ranks of two suits, both packs,
jokers) where many melds overlap; a few hands of 16 to 30 cards. Hypothesis
explores with explicit strategies; seeded loops add a fixed bulk of hands on
every run. A disagreement names the hand and the variant parameters.

The profile ``reference`` keeps the file to a couple of minutes; set
``RAMINO_HYPOTHESIS_PROFILE=reference-thorough`` for ten times the examples.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest
import ramino
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import (
    JOKER,
    NATURALS,
    SUITS,
    check_deadwood,
    check_opening,
    make_card,
    position_rank,
    ref_best_opening,
    ref_joker_swaps,
    ref_layoffs,
    ref_min_deadwood,
    ref_validate,
    top_position,
)

settings.register_profile(
    "reference",
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("reference-thorough", settings.get_profile("reference"), max_examples=400)
PROFILE = settings.get_profile(os.environ.get("RAMINO_HYPOTHESIS_PROFILE", "reference"))

# Hands per variant configuration in the seeded loops.
SEEDED_HANDS = 700
SEEDED_DENSE_HANDS = 300
SEEDED_MELD_LISTS = 1500
SEEDED_TABLES = 150

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("ramino51", {}),
    ("ramino51", {"ace_high": False}),
    ("ramino51", {"max_jokers_per_meld": 2}),
    ("ramino51", {"joker_penalty": 50}),
    ("rami51", {}),
    ("rami51", {"ace_high": False}),
    ("rami51", {"max_jokers_per_meld": 2}),
    ("rummy", {}),
    ("rummy", {"ace_high": True}),
    ("rummy", {"packs": 2, "jokers": 4, "max_jokers_per_meld": 1}),
    (
        "rummy",
        {
            "packs": 2,
            "jokers": 4,
            "max_jokers_per_meld": 2,
            "ace_high": True,
            "must_discard_to_go_out": True,
        },
    ),
]


def config_id(config: tuple[str, dict[str, Any]]) -> str:
    name, overrides = config
    return "-".join([name, *(f"{k}={v}" for k, v in overrides.items())])


def variant_of(config: tuple[str, dict[str, Any]]) -> tuple[ramino.Variant, dict[str, Any]]:
    name, overrides = config
    v = ramino.Variant(name, **overrides)
    return v, v.to_dict()


by_config = pytest.mark.parametrize("config", CONFIGS, ids=[config_id(c) for c in CONFIGS])

T = TypeVar("T")


# ---------------------------------------------------------------- choosers
#
# The generators below take a chooser, so that one generator serves both
# hypothesis (which then shrinks a failure to a small case) and the seeded
# loops.


class Drawn:
    """Choices drawn from hypothesis strategies."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self.draw = draw

    def integer(self, low: int, high: int) -> int:
        return int(self.draw(st.integers(low, high)))

    def choice(self, seq: Sequence[T]) -> T:
        return seq[self.integer(0, len(seq) - 1)]

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        picks = self.draw(
            st.lists(st.integers(0, len(seq) - 1), min_size=k, max_size=k, unique=True)
        )
        return [seq[i] for i in picks]


class Seeded:
    """Choices from a seeded random.Random."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def choice(self, seq: Sequence[T]) -> T:
        return self.rng.choice(seq)

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        return self.rng.sample(list(seq), k)


Chooser = Drawn | Seeded


# ---------------------------------------------------------------- generators


def deck_of(ch: Chooser, params: dict[str, Any], dense: bool) -> list[str]:
    """The cards a hand is dealt from: one or both packs of the variant, some
    of its jokers; dense decks keep 3 or 4 ranks of 2 suits."""
    packs = ch.integer(1, params["packs"])
    jokers = ch.integer(0, params["jokers"])
    naturals = NATURALS
    if dense:
        width = ch.integer(3, 4)
        if ch.integer(0, 2):
            # A window of ranks, wrapping so that Q-K-A-2 comes up.
            start = ch.integer(1, 13)
            ranks = [(start - 1 + i) % 13 + 1 for i in range(width)]
        else:
            ranks = ch.sample(range(1, 14), width)
        suits = ch.sample(SUITS, 2)
        naturals = [make_card(r, s) for s in suits for r in ranks]
    return naturals * packs + [JOKER] * jokers


def deal_hand(ch: Chooser, params: dict[str, Any], dense: bool = False) -> list[str]:
    deck = deck_of(ch, params, dense)
    most = min(15, len(deck))
    # Half the hands are full: openings need many cards.
    size = ch.integer(3, most) if ch.integer(0, 1) else ch.integer(most - 3, most)
    return ch.sample(deck, size)


def legal_meld(ch: Chooser, params: dict[str, Any], max_len: int = 14) -> list[str]:
    """A random legal meld of the variant, jokers within its limit."""
    max_jokers = min(params["max_jokers_per_meld"], params["jokers"])
    if ch.integer(0, 1):
        rank = ch.integer(1, 13)
        size = ch.integer(3, min(4, max_len))
        cards = [make_card(rank, s) for s in ch.sample(SUITS, size)]
        for _ in range(ch.integer(0, min(max_jokers, size - 2))):
            cards[ch.integer(0, size - 1)] = JOKER
        order = ch.sample(range(size), size)
        cards = [cards[i] for i in order]
    else:
        suit = ch.choice(SUITS)
        top = top_position(params)
        low = ch.integer(1, top - 2)
        high = ch.integer(low + 2, min(top, low + max_len - 1))
        cards = [make_card(position_rank(p), suit) for p in range(low, high + 1)]
        for _ in range(ch.integer(0, min(max_jokers, len(cards) - 2))):
            cards[ch.integer(0, len(cards) - 1)] = JOKER
    assert ref_validate(cards, params) is not None, cards
    return cards


def card_list(ch: Chooser, params: dict[str, Any]) -> list[str]:
    """An ordered list of 3 to 6 cards: a legal meld, a legal meld spoiled by
    one change, or any cards at all."""
    deck = NATURALS * 2 + [JOKER] * 4
    how = ch.integer(0, 5)
    if how == 0:
        return ch.sample(deck, ch.integer(3, 6))
    cards = legal_meld(ch, params, max_len=6)
    if how == 1:
        return cards
    i = ch.integer(0, len(cards) - 1)
    j = ch.integer(0, len(cards) - 1)
    if how == 2:
        cards[i], cards[j] = cards[j], cards[i]
    elif how == 3:
        cards[i] = ch.choice(deck)
    elif how == 4:
        cards[i] = JOKER
    elif len(cards) < 6:
        cards.insert(ch.choice([0, len(cards)]), ch.choice([JOKER, *deck[:52]]))
    return cards


def table_and_hand(ch: Chooser, params: dict[str, Any]) -> tuple[list[list[str]], list[str]]:
    """1 to 4 legal table melds, and a hand of random cards, of cards just
    beyond the ends of the table's runs, and of cards its jokers stand for."""
    table = [legal_meld(ch, params) for _ in range(ch.integer(1, 4))]
    deck = NATURALS * 2 + [JOKER] * params["jokers"]
    hand = ch.sample(deck, ch.integer(0, 6))
    near = sorted({c for m in table for c in neighbours(m, params)})
    if near:
        hand += ch.sample(near, ch.integer(0, min(6, len(near))))
    return table, hand


def neighbours(meld: list[str], params: dict[str, Any]) -> list[str]:
    """Cards that may fit the meld: any card of its rank (a set), the cards
    one position beyond either end (a run), and what its jokers stand for."""
    r = ref_validate(meld, params)
    assert r is not None
    out = [c for cards in r.jokers.values() for c in cards]
    naturals = [c for c in meld if c != JOKER]
    if r.kind == "set":
        out += [make_card(NATURALS.index(naturals[0]) % 13 + 1, s) for s in SUITS]
    else:
        suit = naturals[0][1]
        first = next(i for i, c in enumerate(meld) if c != JOKER)
        rank = NATURALS.index(meld[first]) % 13 + 1
        low = rank - first if not (rank == 1 and first > 0) else 14 - first
        for p in (low - 1, low + len(meld)):
            if 1 <= p <= 14:
                out.append(make_card(position_rank(p), suit))
    return out + [JOKER] * (params["jokers"] > 0)


# ---------------------------------------------------------------- comparisons


def compare_hand(
    hand: list[str], v: ramino.Variant, params: dict[str, Any], include: str | None
) -> None:
    """best_opening (with and without include) and min_deadwood of one hand."""
    where = f"hand {' '.join(hand)} under {params['name']} {params}"
    opening = ramino.best_opening(hand, v)
    want = ref_best_opening(hand, params)
    got = None if opening is None else opening.value
    assert got == want, f"best_opening {got} != reference {want}: {where}"
    if opening is not None:
        check_opening(hand, params, opening.value, opening.melds)

    if include is not None:
        opening = ramino.best_opening(hand, v, include=include)
        want = ref_best_opening(hand, params, include=include)
        got = None if opening is None else opening.value
        assert got == want, f"best_opening include={include} {got} != reference {want}: {where}"
        if opening is not None:
            check_opening(hand, params, opening.value, opening.melds, include=include)

    deadwood = ramino.min_deadwood(hand, v)
    want = ref_min_deadwood(hand, params)
    assert deadwood.value == want, f"min_deadwood {deadwood.value} != reference {want}: {where}"
    check_deadwood(hand, params, deadwood.value, deadwood.melds, deadwood.deadwood)


def compare_meld(cards: list[str], v: ramino.Variant, params: dict[str, Any]) -> None:
    want = ref_validate(cards, params)
    where = f"meld {' '.join(cards)} under {params['name']} {params}"
    try:
        got = ramino.validate_meld(cards, v)
    except ramino.InvalidMeld as e:
        assert want is None, f"core refuses ({e.reason}) a legal {want}: {where}"
        return
    assert want is not None, f"core accepts an illegal {got}: {where}"
    assert got.cards == cards, where
    assert (got.kind, got.value) == (want.kind, want.value), f"{got} != {want}: {where}"
    assert {j.index: frozenset(j.stands_for) for j in got.jokers} == want.jokers, where
    assert got.closed == (want.kind == "set" and len(cards) == 4), where
    assert got.pure == want.pure, where


def compare_table(
    table: list[list[str]], hand: list[str], v: ramino.Variant, params: dict[str, Any]
) -> None:
    where = f"hand {' '.join(hand)} table {table} under {params['name']} {params}"
    layoffs = ramino.layoff_targets(hand, table, v)
    got = {(x.card, x.meld, x.end): x.result for x in layoffs}
    assert len(got) == len(layoffs), f"a lay-off listed twice: {where}"
    want = ref_layoffs(hand, table, params)
    assert got == want, f"layoff_targets differ: core-only {got.keys() - want.keys()}, " + (
        f"reference-only {want.keys() - got.keys()}: {where}"
    )
    swaps = ramino.joker_swaps(hand, table, v)
    got_swaps = {(x.card, x.meld, x.joker_index): x.result for x in swaps}
    assert len(got_swaps) == len(swaps), f"a swap listed twice: {where}"
    want_swaps = ref_joker_swaps(hand, table, params)
    assert got_swaps == want_swaps, f"joker_swaps {got_swaps} != reference {want_swaps}: {where}"


# ---------------------------------------------------------------- hypothesis


@st.composite
def hands(draw: Any, params: dict[str, Any], dense: bool) -> tuple[list[str], str | None]:
    ch = Drawn(draw)
    hand = deal_hand(ch, params, dense)
    include = ch.choice([None, *hand])
    return hand, include


@st.composite
def card_lists(draw: Any, params: dict[str, Any]) -> list[str]:
    return card_list(Drawn(draw), params)


@st.composite
def tables(draw: Any, params: dict[str, Any]) -> tuple[list[list[str]], list[str]]:
    return table_and_hand(Drawn(draw), params)


@by_config
@pytest.mark.parametrize("dense", [False, True], ids=["spread", "dense"])
def test_searches_agree_with_reference_on_generated_hands(
    config: tuple[str, dict[str, Any]], dense: bool
) -> None:
    v, params = variant_of(config)

    @PROFILE
    @given(hands(params, dense))
    def check(case: tuple[list[str], str | None]) -> None:
        compare_hand(case[0], v, params, case[1])

    check()


@by_config
def test_validate_meld_agrees_with_reference_on_generated_lists(
    config: tuple[str, dict[str, Any]],
) -> None:
    v, params = variant_of(config)

    @settings(PROFILE, max_examples=PROFILE.max_examples * 3)
    @given(card_lists(params))
    def check(cards: list[str]) -> None:
        compare_meld(cards, v, params)

    check()


@by_config
def test_layoffs_and_joker_swaps_agree_with_reference_on_generated_tables(
    config: tuple[str, dict[str, Any]],
) -> None:
    v, params = variant_of(config)

    @PROFILE
    @given(tables(params))
    def check(case: tuple[list[list[str]], list[str]]) -> None:
        compare_table(case[0], case[1], v, params)

    check()


# ---------------------------------------------------------------- seeded loops


@by_config
def test_searches_agree_with_reference_on_seeded_hands(config: tuple[str, dict[str, Any]]) -> None:
    v, params = variant_of(config)
    ch = Seeded(CONFIGS.index(config))
    batch = []
    for n in range(SEEDED_HANDS + SEEDED_DENSE_HANDS):
        hand = deal_hand(ch, params, dense=n >= SEEDED_HANDS)
        compare_hand(hand, v, params, ch.choice(hand))
        batch.append(hand)
    # The batch call answers as the single calls do.
    for hand, a in zip(batch, ramino.analyze_many(batch, v), strict=True):
        opening = ramino.best_opening(hand, v)
        assert (a.opening is None) == (opening is None), hand
        if a.opening is not None and opening is not None:
            assert a.opening.value == opening.value, hand
        assert a.deadwood.value == ramino.min_deadwood(hand, v).value, hand


@by_config
def test_validate_meld_agrees_with_reference_on_seeded_lists(
    config: tuple[str, dict[str, Any]],
) -> None:
    v, params = variant_of(config)
    ch = Seeded(100 + CONFIGS.index(config))
    for _ in range(SEEDED_MELD_LISTS):
        compare_meld(card_list(ch, params), v, params)


@by_config
def test_layoffs_and_joker_swaps_agree_with_reference_on_seeded_tables(
    config: tuple[str, dict[str, Any]],
) -> None:
    v, params = variant_of(config)
    ch = Seeded(200 + CONFIGS.index(config))
    for _ in range(SEEDED_TABLES):
        table, hand = table_and_hand(ch, params)
        compare_table(table, hand, v, params)


LARGE_HANDS = 60


@pytest.mark.parametrize("name", ["ramino51", "rami51", "rummy"])
def test_searches_agree_with_reference_on_large_seeded_hands(name: str) -> None:
    # Hands of 16 to 30 cards (the core's MAX_HAND) from the preset's deck.
    v, params = variant_of((name, {}))
    ch = Seeded(300 + ramino.PRESETS.index(name))
    deck = NATURALS * params["packs"] + [JOKER] * params["jokers"]
    for _ in range(LARGE_HANDS):
        hand = ch.sample(deck, ch.integer(16, ramino.MAX_HAND))
        compare_hand(hand, v, params, ch.choice(hand))


@by_config
def test_the_plain_enumeration_agrees_with_the_memoised_reference(
    config: tuple[str, dict[str, Any]],
) -> None:
    # The benchmark times the reference without its memo (a plain brute
    # force); both modes must give the same answers, and the core's.
    v, params = variant_of(config)
    ch = Seeded(1000 + CONFIGS.index(config))
    for n in range(60):
        hand = deal_hand(ch, params, dense=n % 3 == 0)
        include = ch.choice(hand) if n % 2 else None
        plain = ref_best_opening(hand, params, include, memoise=False)
        assert plain == ref_best_opening(hand, params, include), hand
        opening = ramino.best_opening(hand, v, include=include)
        assert plain == (None if opening is None else opening.value), hand
