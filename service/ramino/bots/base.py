"""What a bot is, and how to make one by name.

Levels, weakest first: ``easy`` (the greedy bot with careless discards),
``medium`` (the greedy bot), ``hard`` and ``expert`` (determinized Monte
Carlo over sampled deals, see :mod:`ramino.bots.search`; ``expert`` has five
times the time and weighs more discards). ``random`` and ``greedy`` keep
their names; ``greedy`` is ``medium``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ramino.bots.search import Budget
    from ramino.engine import Command, Game

__all__ = ["Bot", "make_bot", "BOT_KINDS", "LEVELS"]

LEVELS = ("easy", "medium", "hard", "expert")
"""The bot levels, weakest first."""

BOT_KINDS = ("random", "greedy", *LEVELS)


class Bot(Protocol):
    kind: str
    heavy: bool
    """Whether its decisions are searches, to run in the work pool."""

    def choose(self, game: Game, seat: int) -> Command:
        """A legal command for ``seat``, whose turn it is."""
        ...


def make_bot(kind: str, seed: int, budget: Budget | None = None) -> Bot:
    """A bot of ``kind`` (one of :data:`BOT_KINDS`) seeded with ``seed``;
    ``budget`` replaces the default budget of ``hard`` and ``expert``."""
    from ramino.bots.greedy import EasyBot, GreedyBot
    from ramino.bots.random_bot import RandomBot
    from ramino.bots.search import SearchBot

    if kind == "random":
        return RandomBot(seed)
    if kind in ("greedy", "medium"):
        bot = GreedyBot(seed)
        bot.kind = kind
        return bot
    if kind == "easy":
        return EasyBot(seed)
    if kind in ("hard", "expert"):
        return SearchBot(seed, kind, budget)
    raise ValueError(f"unknown bot {kind!r}: choose from {', '.join(BOT_KINDS)}")
