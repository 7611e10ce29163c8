"""Bots that play through the engine's public API, seeing only what their
seat may see (``Game.view``, ``Game.legal_moves`` and the kernel's search).
Deterministic given a seed."""

from ramino.bots.base import BOT_KINDS, Bot, make_bot
from ramino.bots.greedy import GreedyBot
from ramino.bots.random_bot import RandomBot

__all__ = ["BOT_KINDS", "Bot", "GreedyBot", "RandomBot", "make_bot"]
