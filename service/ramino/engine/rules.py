"""The rules the bots and the service ask about outside a move, answered by
the kernel (``core_rs/ramino-core/src/game``), where every rule lives: whether
a card may be discarded this turn, and where a swapped joker can go."""

from __future__ import annotations

from collections.abc import Sequence

from ramino import _core
from ramino.engine.context import Rules

__all__ = ["undiscardable", "joker_meld"]


def undiscardable(rules: Rules, taken: int | None, card: int) -> bool:
    """Whether ``card`` may not be discarded in a turn that took ``taken``
    from the discard pile: it is that card, or its identical twin from the
    other pack (RULES.md section 5)."""
    return _core.undiscardable(rules.kernel, taken, card)


def joker_meld(
    rules: Rules, taken: int | None, hand: Sequence[int]
) -> tuple[list[int], list[list[str]]] | None:
    """A way to lay a swapped joker of ``hand`` in new melds and keep a card
    that may be discarded: the cards searched (``hand`` less the kept card)
    and the melds by card name; ``None`` when there is none."""
    return _core.joker_meld(rules.kernel, taken, list(hand))
