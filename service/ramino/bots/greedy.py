"""The greedy bots: the kernel's one greedy policy
(``core_rs/ramino-core/src/game/greedy.rs``, which the searching bots'
playouts play too), its discard ties broken by the bot's seeded random
generator.

It opens as soon as it can, lays every meld of its minimum-deadwood partition,
lays off what fits, swaps jokers it can use, takes the discard only when the
card joins a meld (or is a joker), and discards the most costly deadwood card,
keeping cards that extend near-melds (a pair of a rank, two cards of a suit
close in rank); in gin it knocks as soon as it can with the least unmatched
total.
"""

from __future__ import annotations

import random

from ramino.engine import Command, DrawFromStock, Game, TakeDiscard, View
from ramino.engine.hint import discard_scores

__all__ = ["EasyBot", "GreedyBot"]


class GreedyBot:
    kind = "greedy"
    heavy = False
    """Whether a decision is a search worth the work pool."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: Game, seat: int) -> Command:
        names = game.rules.names
        cmd = game.greedy(seat, lambda allowed, best: self._discard_choice(names, allowed, best))
        if cmd is None:
            raise RuntimeError(f"seat {seat} has no legal move")
        return cmd

    def _discard_choice(self, names: tuple[str, ...], allowed: list[int], best: list[int]) -> int:
        """The card to discard among ``allowed``: one of ``best`` (those the
        engine's discard policy ranks best), drawn at random."""
        return self._rng.choice(best)

    @staticmethod
    def discard_scores(game: Game, view: View, allowed: list[int]) -> dict[int, int]:
        """How good a discard each allowed card is, higher better (the
        engine's :func:`ramino.engine.hint.discard_scores` on the hand)."""
        assert view.hand is not None
        return discard_scores(game.rules, view.hand, allowed)


class EasyBot(GreedyBot):
    """The greedy bot with a careless hand. In gin every other discard, on
    average, is a card picked at random among those it may throw. In the
    rummy variants every discard is, and it never takes the discard pile's
    top while it may draw from the stock: it breaks its own near-melds,
    feeds the next player and lets pass what it needs. It still opens,
    melds, lays off and knocks like the greedy bot.

    ``bench/bots_arena.py --games 2000 --levels easy,medium``: easy won
    27.5% of the hands of ramino51, 23.2% of rami51, 15.1% of rummy and
    29.0% of gin's (each +-2.0 or less); careless only half the time and
    taking the discard in every variant, it had won 42.0%, 41.9%, 34.2% and
    29.0%."""

    kind = "easy"

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self._always = False
        """Whether every discard is careless (the rummy variants), else half."""

    def choose(self, game: Game, seat: int) -> Command:
        self._always = not game.rules.variant.knocking
        cmd = super().choose(game, seat)
        if isinstance(cmd, TakeDiscard) and not game.rules.variant.knocking:
            stock = DrawFromStock()
            if stock in game.legal_moves(seat):
                return stock
        return cmd

    def _discard_choice(self, names: tuple[str, ...], allowed: list[int], best: list[int]) -> int:
        if self._always or self._rng.random() < 0.5:
            naturals = [c for c in allowed if names[c] != "JK"] or allowed
            return self._rng.choice(naturals)
        return super()._discard_choice(names, allowed, best)
