"""What a game reads of its variant: card names and penalties by id (for
views, encoders and bots) and the kernel's rules of the variant, which
decide every command (``ramino._core.GameRules``)."""

from __future__ import annotations

import json
from collections.abc import Mapping

import ramino
from ramino._core import GameRules

__all__ = ["Rules", "rules_for", "Override"]

Override = bool | int | str | list[int]


class Rules:
    """A variant with its tables and its kernel rules, shared by every game
    of that variant (read-only)."""

    __slots__ = (
        "variant",
        "kernel",
        "names",
        "penalties",
        "deck_size",
        "needs_opening",
        "must_discard",
    )

    def __init__(self, variant: ramino.Variant) -> None:
        self.variant = variant
        self.kernel = GameRules(variant)
        cards = ramino.deck_cards(variant)
        self.names: tuple[str, ...] = tuple(str(c) for c in cards)
        by_name = {n: variant.card_penalty(n) for n in set(self.names)}
        self.penalties: tuple[int, ...] = tuple(by_name[n] for n in self.names)
        self.deck_size = len(cards)
        self.needs_opening: bool = self.kernel.needs_opening
        """Whether a seat opens before it may lay off (the kernel says)."""
        self.must_discard: bool = self.kernel.must_discard

    def penalty(self, cards: list[int]) -> int:
        p = self.penalties
        return sum(p[c] for c in cards)


_CACHE: dict[str, Rules] = {}


def rules_for(name: str, overrides: Mapping[str, Override]) -> Rules:
    """The shared :class:`Rules` of a preset with overrides (raises
    :class:`ramino.VariantError` for a bad name or override)."""
    key = json.dumps([name, dict(overrides)], sort_keys=True)
    rules = _CACHE.get(key)
    if rules is None:
        rules = Rules(ramino.Variant(name, **overrides))
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[key] = rules
    return rules
