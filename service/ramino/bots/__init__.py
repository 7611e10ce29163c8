"""Bots that play through the engine's public API, seeing only what their
seat may see (``Game.view``, ``Game.legal_moves``, the events as the seat
sees them, and the kernel's search and playouts). Deterministic given a seed
(and, for ``hard`` and ``expert``, an iteration budget without a clock)."""

from ramino.bots.base import BOT_KINDS, LEVELS, Bot, make_bot
from ramino.bots.greedy import EasyBot, GreedyBot
from ramino.bots.random_bot import RandomBot
from ramino.bots.search import LEVEL_BUDGETS, Budget, SearchBot

__all__ = [
    "BOT_KINDS",
    "LEVELS",
    "LEVEL_BUDGETS",
    "Bot",
    "Budget",
    "EasyBot",
    "GreedyBot",
    "RandomBot",
    "SearchBot",
    "make_bot",
]
