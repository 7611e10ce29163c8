"""The moves a seat may make now, as the kernel lists them
(``core_rs/ramino-core/src/game/moves.rs``; :meth:`ramino.engine.Game.legal_moves`).

Every move listed is legal. The list is complete for draws and discards (one
discard per distinct card); melds, lay-offs and joker swaps are the ones the
search proposes, capped: the best opening before a seat has opened;
afterwards the melds of the minimum-deadwood partition, together and one by
one; every lay-off and swap the kernel finds. ``Resign`` is always possible
and never listed.
"""

from __future__ import annotations

from typing import Final

import ramino
from ramino import _core

__all__ = ["hand_melds", "MAX_MELD_MOVES", "MAX_LAYOFF_MOVES", "MAX_SWAP_MOVES"]

MAX_MELD_MOVES: Final[int] = _core.MAX_MELD_MOVES
MAX_LAYOFF_MOVES: Final[int] = _core.MAX_LAYOFF_MOVES
MAX_SWAP_MOVES: Final[int] = _core.MAX_SWAP_MOVES


def hand_melds(names: list[str], variant: ramino.Variant) -> list[list[str]]:
    """Every meld (by card name) that the cards ``names`` hold, for a deck
    without jokers: each set of 3 or 4 of a rank (ranks in order A to K),
    then each run of 3 or more (suits in order S, H, D, C)."""
    return _core.hand_melds(names, variant)
