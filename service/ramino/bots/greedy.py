"""A greedy bot built on the kernel's exact search.

It opens as soon as it can, lays every meld of its minimum-deadwood partition,
lays off what fits, swaps jokers it can use, takes the discard only when the
card joins a meld (or is a joker), and discards the most costly deadwood card,
keeping cards that extend near-melds (a pair of a rank, two cards of a suit
close in rank). Ties are broken with its seeded random generator.
"""

from __future__ import annotations

import random

import ramino
from ramino.engine import (
    AcceptLayout,
    Command,
    Discard,
    DrawFromStock,
    Game,
    IllegalMove,
    Knock,
    LayMelds,
    LayOff,
    PassUpcard,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
    View,
)
from ramino.engine.hint import best_discards, discard_scores, discardable, keep_one
from ramino.engine.rules import joker_meld

__all__ = ["EasyBot", "GreedyBot"]


class GreedyBot:
    kind = "greedy"
    heavy = False
    """Whether a decision is a search worth the work pool."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: Game, seat: int) -> Command:
        view = game.view(seat)
        if game.rules.variant.knocking:
            cmd: Command | None = self._gin(game, view)
        elif view.phase == "draw":
            cmd = self._draw(game, view)
        else:
            cmd = self._play(game, view)
        if cmd is not None and self._legal(game, seat, cmd):
            return cmd
        return self._fallback(game, view)

    # --- helpers -------------------------------------------------------------

    @staticmethod
    def _legal(game: Game, seat: int, cmd: Command) -> bool:
        try:
            game.check(seat, cmd)
        except IllegalMove:
            return False
        return True

    @staticmethod
    def _ids(
        hand: tuple[int, ...],
        deck: tuple[str, ...],
        melds: list[list[str]],
        first: tuple[int | None, ...],
    ) -> tuple[tuple[int, ...], ...]:
        pools: dict[str, list[int]] = {}
        preferred = [c for c in first if c is not None and c in hand]
        for c in [*preferred, *(c for c in hand if c not in preferred)]:
            pools.setdefault(deck[c], []).append(c)
        return tuple(tuple(pools[n].pop(0) for n in meld) for meld in melds)

    def _fallback(self, game: Game, view: View) -> Command:
        assert view.viewer is not None
        moves = game.legal_moves(view.viewer)
        if not moves:
            raise RuntimeError(f"seat {view.viewer} has no legal move")
        discards = [m for m in moves if isinstance(m, Discard)]
        if discards:
            best = self._discard_choice(game, view, [m.card for m in discards])
            return Discard(best)
        return moves[0]

    # --- knocking play (gin) ------------------------------------------------------

    def _gin(self, game: Game, view: View) -> Command | None:
        """Take the upcard when it joins a meld (at the wall: whenever the
        knock it allows is legal), knock as soon as possible with the least
        unmatched total, otherwise discard the costliest loose card; as the
        defender, lay off every card possible, then the melds of the least
        deadwood, then accept."""
        assert view.viewer is not None and view.hand is not None
        seat = view.viewer
        moves = game.legal_moves(seat)
        deck = view.deck
        v = game.rules.variant
        if view.phase == "draw":
            if TakeDiscard() in moves and view.discard_pile:
                top = deck[view.discard_pile[-1]]
                names = [deck[c] for c in view.hand]
                dw = ramino.min_deadwood([*names, top], v)
                wall = DrawFromStock() not in moves and not view.first_upcard
                if wall or top not in dw.deadwood:
                    return TakeDiscard()
            if DrawFromStock() in moves:
                return DrawFromStock()
            return PassUpcard() if PassUpcard() in moves else moves[0]
        if view.phase == "play":
            ks = [m for m in moves if isinstance(m, Knock)]
            if ks:
                return ks[0]
            legal = {m.card for m in moves if isinstance(m, Discard)}
            allowed = [
                c for c in discardable(game.rules, view.hand, view.taken_card, None) if c in legal
            ]
            return Discard(self._discard_choice(game, view, allowed))
        for m in moves:
            if isinstance(m, LayOff):
                return m
        names = [deck[c] for c in view.hand]
        if names:
            dw = ramino.min_deadwood(names, v)
            if dw.melds:
                return LayMelds(self._ids(view.hand, deck, [list(dw.melds[0])], ()))
        return AcceptLayout()

    # --- drawing ----------------------------------------------------------------

    def _draw(self, game: Game, view: View) -> Command:
        assert view.viewer is not None and view.hand is not None
        deck = view.deck
        if view.discard_pile:
            top = view.discard_pile[-1]
            wanted = deck[top] == "JK"
            if not wanted:
                names = [deck[c] for c in view.hand]
                names.append(deck[top])
                dw = ramino.min_deadwood(names, game.rules.variant)
                wanted = deck[top] not in dw.deadwood
            if wanted and self._legal(game, view.viewer, TakeDiscard()):
                return TakeDiscard()
        if view.stock_size:
            return DrawFromStock()
        return TurnOverDiscardPile()

    # --- playing -----------------------------------------------------------------

    def _play(self, game: Game, view: View) -> Command | None:
        assert view.viewer is not None and view.hand is not None
        seat = view.viewer
        rules = game.rules
        v = rules.variant
        deck = view.deck
        hand = view.hand
        names = [deck[c] for c in hand]
        me = view.seats[seat]
        first = (view.taken_card, view.pending_joker)

        if rules.needs_opening and not me.opened:
            include = (
                deck[view.taken_card] if view.must_open and view.taken_card is not None else None
            )
            opening = ramino.best_opening(names, v, include=include)
            if opening is not None:
                cmd = LayMelds(self._ids(hand, deck, opening.melds, first))
                if self._legal(game, seat, cmd):
                    return cmd
            return self._choose_discard(game, view)

        if view.pending_joker is not None:
            found = joker_meld(rules, view.taken_card, hand)
            if found is not None:
                rest, jm = found
                return LayMelds(self._ids(tuple(rest), deck, jm, first))

        dw = ramino.min_deadwood(names, v)
        if dw.melds:
            melds = [list(m) for m in dw.melds]
            if not dw.deadwood and rules.must_discard:
                melds = keep_one(melds, v)
            if melds:
                cmd = LayMelds(self._ids(hand, deck, melds, first))
                if self._legal(game, seat, cmd):
                    return cmd

        if view.melds:
            table = [[deck[c] for c in m.cards] for m in view.melds]
            for lo in ramino.layoff_targets(names, table, v):
                if lo.card == "JK" and len(hand) > 2:
                    continue
                ids = [c for c in hand if deck[c] == lo.card and c != view.pending_joker]
                if not ids:
                    continue
                cmd_lo = LayOff(ids[0], lo.meld, lo.end)
                if self._legal(game, seat, cmd_lo):
                    return cmd_lo
            if v.joker_swap and view.pending_joker is None:
                for sw in ramino.joker_swaps(names, table, v):
                    card = next(c for c in hand if deck[c] == sw.card)
                    joker = view.melds[sw.meld].cards[sw.joker_index]
                    cmd_sw = SwapJoker(card, sw.meld, joker)
                    if self._legal(game, seat, cmd_sw):
                        return cmd_sw
        return self._choose_discard(game, view)

    def _choose_discard(self, game: Game, view: View) -> Command:
        assert view.hand is not None
        allowed = discardable(game.rules, view.hand, view.taken_card, view.pending_joker)
        if not allowed:
            return self._fallback(game, view)
        return Discard(self._discard_choice(game, view, allowed))

    def _discard_choice(self, game: Game, view: View, allowed: list[int]) -> int:
        """The allowed card whose discard costs least by the engine's discard
        policy (:func:`ramino.engine.hint.best_discards`), ties broken at
        random."""
        assert view.hand is not None
        return self._rng.choice(best_discards(game.rules, view.hand, allowed))

    @staticmethod
    def discard_scores(game: Game, view: View, allowed: list[int]) -> dict[int, int]:
        """How good a discard each allowed card is, higher better (the
        engine's :func:`ramino.engine.hint.discard_scores` on the hand)."""
        assert view.hand is not None
        return discard_scores(game.rules, view.hand, allowed)


class EasyBot(GreedyBot):
    """The greedy bot with a careless hand: every other discard, on average,
    is a card picked at random among those it may throw (never a joker while
    there is another), so it breaks its own near-melds and feeds the next
    player. It still opens, melds, lays off and knocks like the greedy bot."""

    kind = "easy"

    def _discard_choice(self, game: Game, view: View, allowed: list[int]) -> int:
        if self._rng.random() < 0.5:
            naturals = [c for c in allowed if view.deck[c] != "JK"] or allowed
            return self._rng.choice(naturals)
        return super()._discard_choice(game, view, allowed)
