"""Ramino: an authoritative rummy engine.

The rules kernel is compiled Rust (``ramino._core``); this package re-exports
its public API. Hands and melds are given as a string in card notation
(``"AS 2S 3S"``) or a sequence of strings and :class:`Card` objects; a variant
as a preset name (``"ramino51"``, ``"rami51"``, ``"rummy"``) or a
:class:`Variant` with overrides.
"""

from ramino._core import (
    MAX_HAND,
    PARAMETERS,
    PRESETS,
    Analysis,
    Card,
    Deadwood,
    JokerRole,
    JokerSwap,
    LayOff,
    Meld,
    Opening,
    Variant,
    analyze_many,
    best_opening,
    deck_cards,
    extend_meld,
    joker_swaps,
    layoff_targets,
    min_deadwood,
    parse_cards,
    penalty,
    shuffle,
    validate_meld,
)
from ramino.errors import (
    CardError,
    InputError,
    InvalidHand,
    InvalidMeld,
    InvalidSeed,
    RaminoError,
    VariantError,
)

__all__ = [
    "MAX_HAND",
    "PARAMETERS",
    "PRESETS",
    "Analysis",
    "Card",
    "CardError",
    "Deadwood",
    "InputError",
    "InvalidHand",
    "InvalidMeld",
    "InvalidSeed",
    "JokerRole",
    "JokerSwap",
    "LayOff",
    "Meld",
    "Opening",
    "RaminoError",
    "Variant",
    "VariantError",
    "analyze_many",
    "best_opening",
    "deck_cards",
    "extend_meld",
    "joker_swaps",
    "layoff_targets",
    "min_deadwood",
    "parse_cards",
    "penalty",
    "shuffle",
    "validate_meld",
]
