"""What a bot is, and how to make one by name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ramino.engine import Command, Game

__all__ = ["Bot", "make_bot", "BOT_KINDS"]

BOT_KINDS = ("random", "greedy")


class Bot(Protocol):
    kind: str

    def choose(self, game: Game, seat: int) -> Command:
        """A legal command for ``seat``, whose turn it is."""
        ...


def make_bot(kind: str, seed: int) -> Bot:
    """A bot of ``kind`` (one of :data:`BOT_KINDS`) seeded with ``seed``."""
    from ramino.bots.greedy import GreedyBot
    from ramino.bots.random_bot import RandomBot

    if kind == "random":
        return RandomBot(seed)
    if kind == "greedy":
        return GreedyBot(seed)
    raise ValueError(f"unknown bot {kind!r}: choose from {', '.join(BOT_KINDS)}")
