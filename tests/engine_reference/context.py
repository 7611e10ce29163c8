"""What the engine derives once per variant: card names and penalties by id,
and the parameters it reads on every command."""

from __future__ import annotations

import json
from collections.abc import Mapping

import ramino

__all__ = ["Rules", "rules_for", "Override"]

Override = bool | int | str | list[int]


class Rules:
    """A variant with the tables the engine needs, shared by every game of
    that variant (read-only)."""

    __slots__ = (
        "variant",
        "names",
        "penalties",
        "is_joker",
        "deck_size",
        "needs_opening",
        "joker_meld_variant",
        "must_discard",
        "reshuffle",
    )

    def __init__(self, variant: ramino.Variant) -> None:
        self.variant = variant
        cards = ramino.deck_cards(variant)
        self.names: tuple[str, ...] = tuple(str(c) for c in cards)
        by_name = {n: variant.card_penalty(n) for n in set(self.names)}
        self.penalties: tuple[int, ...] = tuple(by_name[n] for n in self.names)
        self.is_joker: tuple[bool, ...] = tuple(c.is_joker for c in cards)
        self.deck_size = len(cards)
        # Without a threshold or a pure-run rule there is no opening: a player
        # may lay off from the first turn (basic rummy).
        self.needs_opening = variant.open_threshold > 0 or variant.open_requires_pure_run
        # The search question "can this hand, less the card it keeps to
        # discard, lay the joker in a new meld?" is an opening with no
        # threshold that may use every card searched.
        self.joker_meld_variant = variant.replace(
            open_threshold=0, open_requires_pure_run=False, must_discard_to_go_out=False
        )
        self.must_discard = variant.must_discard_to_go_out
        self.reshuffle = variant.stock_exhausted == "reshuffle"

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
