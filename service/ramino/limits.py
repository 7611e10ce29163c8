"""Limits on what a client may ask for, set above what a real game ever
needs, so that no single request costs the server more than a game does.

A game's deck holds at most 108 cards (two packs and four jokers): its table
holds at most 36 melds (each of 3 or more cards), a meld at most 14 cards (a
run from ace to ace), and a hand at most ``ramino.MAX_HAND`` (30) cards, the
largest the meld search takes. The RulesService refuses larger inputs before
it parses them; parameter overrides are checked against the variant's
parameters (type, range, a finite whole number) before the core sees them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import ramino
from ramino import reasons as R
from ramino.errors import BadRequest, excerpt

MAX_HAND = ramino.MAX_HAND
"""Cards in one hand (AnalyzeHand's ``hand``): the search's own limit."""
MAX_TABLE_MELDS = 64
"""Melds on one table (AnalyzeHand's ``table``); a real table holds <= 36."""
MAX_MELD_CARDS = 20
"""Cards in one meld (ValidateMeld's ``cards``, a table meld); a real one
holds <= 14."""
MAX_ROUNDS = 100
"""Largest ``max_rounds`` of a match (the presets play 1 or no limit)."""
MAX_TARGET_SCORE = 10_000
"""Largest ``target_score`` of a match (the presets play 150 or off)."""
MAX_TURNS_PER_ROUND = 1000
"""Largest ``max_turns_per_round`` (the presets end a round after 300)."""

# Whole-number parameters by name: the values a game may take. Every
# parameter of a variant that is an integer is listed here (checked below).
INT_RANGES: dict[str, tuple[int, int]] = {
    "min_players": (2, 6),
    "max_players": (2, 6),
    "packs": (1, 2),
    "jokers": (0, 4),
    "first_player_extra_cards": (0, MAX_HAND - 2),
    "max_jokers_per_meld": (0, 4),
    "ace_low_value": (0, 100),
    "ace_low_value_with_ace_high": (0, 100),
    "ace_high_value": (0, 100),
    "ace_penalty": (0, 100),
    "ace_high_penalty": (0, 100),
    "joker_penalty": (0, 1000),
    "open_threshold": (0, 1000),
    "winner_score": (-1000, 1000),
    "closed_hand_score": (-1000, 1000),
    "closed_hand_multiplier": (0, 10),
    "never_opened_penalty": (0, 1000),
    "rummy_multiplier": (0, 10),
    "max_stock_rebuilds": (0, 10),
    "target_score": (0, MAX_TARGET_SCORE),
    "max_rounds": (0, MAX_ROUNDS),
    "max_turns_per_round": (1, MAX_TURNS_PER_ROUND),
    "knock_card": (0, 10),
    "gin_bonus": (0, 1000),
    "big_gin_bonus": (0, 1000),
    "undercut_bonus": (0, 1000),
    "wall_stock_size": (0, 10),
    "game_bonus": (0, 1000),
    "box_bonus": (0, 1000),
    "shutout_multiplier": (1, 10),
}
HAND_SIZE_RANGE = (1, MAX_HAND - 1)
"""Each of ``hand_sizes`` (five numbers, for 2 to 6 players)."""
DERIVED = ("name", "deck_size")
"""What ``Variant.to_dict`` gives beside the parameters: not overridable."""


def _kinds() -> dict[str, type]:
    """The parameters of a variant and the type of each value."""
    kinds = {k: type(v) for k, v in ramino.Variant().to_dict().items() if k not in DERIVED}
    ints = {k for k, t in kinds.items() if t is int}
    assert ints == set(INT_RANGES), ints ^ set(INT_RANGES)
    assert kinds["hand_sizes"] is list
    return kinds


KINDS = _kinds()


def invalid(reason: str, message: str) -> BadRequest:
    return BadRequest(message, reason)


def bad_parameter(name: str, why: str) -> BadRequest:
    return invalid(R.BAD_PARAMETER, f"bad value for variant parameter {name}: {why}")


def _whole(name: str, value: Any, lo: int, hi: int) -> int:
    """``value`` as a whole number from ``lo`` to ``hi`` (a JSON number is a
    double: it must be finite and integral)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise bad_parameter(name, f"expected a whole number from {lo} to {hi}")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise bad_parameter(name, f"expected a whole number from {lo} to {hi}")
    if not lo <= value <= hi:
        raise bad_parameter(name, f"expected a whole number from {lo} to {hi}")
    return int(value)


def parameter(name: str, value: Any) -> Any:
    """One override checked against the variant's parameters: its name, its
    type and its range. Raises INVALID_ARGUMENT naming the parameter."""
    kind = KINDS.get(name)
    if kind is None:
        if name in DERIVED:
            raise bad_parameter(name, "it is derived, not a parameter")
        raise invalid(R.UNKNOWN_PARAMETER, f"unknown variant parameter {excerpt(name)}")
    if kind is bool:
        if not isinstance(value, bool):
            raise bad_parameter(name, "expected true or false")
        return value
    if kind is int:
        return _whole(name, value, *INT_RANGES[name])
    if kind is str:
        if not isinstance(value, str):
            raise bad_parameter(name, "expected a string")
        return value[:64]  # the core knows the choices; no choice is longer
    lo, hi = HAND_SIZE_RANGE
    if not isinstance(value, list) or len(value) != 5:
        raise bad_parameter(name, f"expected 5 whole numbers from {lo} to {hi}")
    return [_whole(name, v, lo, hi) for v in value]


def check_game_variant(variant: ramino.Variant) -> None:
    """What a game needs of its variant beyond the parameters' own checks:
    every hand the deal makes, with the card drawn on top, fits the meld
    search (hints and legal moves search the whole hand), and the match ends
    (after ``max_rounds`` rounds or at ``target_score``)."""
    largest = max(variant.hand_sizes[p - 2] for p in range(2, 7))
    if largest + variant.first_player_extra_cards + 1 > MAX_HAND:
        raise invalid(
            R.HAND_TOO_LARGE,
            f"hand_sizes and first_player_extra_cards deal {largest} + "
            f"{variant.first_player_extra_cards} cards: with the card drawn, a hand "
            f"holds at most {MAX_HAND}",
        )
    if variant.max_rounds == 0 and variant.target_score == 0:
        raise bad_parameter(
            "max_rounds", "a match needs an end: max_rounds or target_score must be set"
        )


def check_cards(cards: Sequence[str], limit: int, reason: str, what: str) -> None:
    """At most ``limit`` cards in ``cards``, refused as ``reason`` before
    they are parsed."""
    if len(cards) > limit:
        raise invalid(reason, f"{what} holds at most {limit} cards, not {len(cards)}")
