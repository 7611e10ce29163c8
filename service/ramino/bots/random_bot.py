"""A bot that plays a random legal move."""

from __future__ import annotations

import random

from ramino.engine import Command, Game

__all__ = ["RandomBot"]


class RandomBot:
    """Picks a kind of move uniformly (draw source, meld, lay-off, swap,
    discard), then a move of that kind uniformly, so that the rare kinds are
    tried as often as discards are."""

    kind = "random"
    heavy = False

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: Game, seat: int) -> Command:
        moves = game.legal_moves(seat)
        if not moves:
            raise RuntimeError(f"seat {seat} has no legal move")
        by_kind: dict[str, list[Command]] = {}
        for m in moves:
            by_kind.setdefault(type(m).__name__, []).append(m)
        kind = self._rng.choice(sorted(by_kind))
        return self._rng.choice(by_kind[kind])
