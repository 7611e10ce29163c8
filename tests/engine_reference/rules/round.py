"""The round's lifecycle: what the state calls for by itself (a reshuffle,
the end of a round, the next deal, the end of the match)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ramino

from tests.engine_reference.context import Rules
from tests.engine_reference.deck import deal, reshuffle_seed, round_seed
from tests.engine_reference.events import (
    DRAWN,
    RESIGNATIONS,
    STOCK_EXHAUSTED,
    TURN_LIMIT,
    WENT_OUT,
    Event,
    MatchEnded,
    RoundEnded,
    RoundStarted,
    StockReshuffled,
)
from tests.engine_reference.rules.gin import knock_scored
from tests.engine_reference.rules.scoring import final_totals, match_winners, round_scores
from tests.engine_reference.state import BETWEEN_ROUNDS, DRAW, OVER, State

__all__ = ["Setup", "follow_up"]


@dataclass(frozen=True, slots=True)
class Setup:
    """What a game was created with, beyond its variant."""

    seed: int
    decks: tuple[tuple[int, ...], ...] = ()
    """Explicit deck orders for the first rounds (tests and puzzles)."""


def follow_up(state: State, rules: Rules, setup: Setup) -> list[Event]:
    """The events the state calls for by itself now (possibly none)."""
    if state.phase == OVER:
        return []
    if state.phase == BETWEEN_ROUNDS:
        winners = match_winners(state, rules)
        if winners is not None:
            return [MatchEnded(final_totals(state, rules, winners), winners)]
        return [_deal_round(state, rules, setup)]
    if len(state.active()) < 2:
        return [_round_ended(state, rules, RESIGNATIONS, None)]
    if rules.variant.knocking:
        if state.accepted:
            return [knock_scored(state, rules)]
        if state.drawn:
            return [_round_ended(state, rules, DRAWN, None)]
    elif not state.seats[state.turn].hand:
        return [_round_ended(state, rules, WENT_OUT, state.turn)]
    if sum(s.turns for s in state.seats) > rules.variant.max_turns_per_round:
        return [_round_ended(state, rules, TURN_LIMIT, None)]
    if state.phase == DRAW and not state.stock:
        v = rules.variant
        can_rebuild = state.rebuilds < v.max_stock_rebuilds
        if rules.reshuffle:
            if can_rebuild and len(state.discard) >= 2:
                rebuild = state.rebuilds + 1
                pile = state.discard[:-1]
                perm = ramino.shuffle(reshuffle_seed(setup.seed, state.round, rebuild), len(pile))
                stock = tuple(pile[i] for i in perm)
                return [StockReshuffled(rebuild, state.discard[-1], len(stock), stock)]
            return [_round_ended(state, rules, STOCK_EXHAUSTED, None)]
        if not can_rebuild or not state.discard:
            return [_round_ended(state, rules, STOCK_EXHAUSTED, None)]
    return []


def _deal_round(state: State, rules: Rules, setup: Setup) -> RoundStarted:
    v = rules.variant
    number = state.round + 1
    n = len(state.seats)
    if state.round == 0:
        dealer = n - 1
    else:
        last = state.results[-1]
        active = state.active()
        if v.same_dealer_after_draw and last.winner is None:
            dealer = state.dealer
        elif (
            v.winner_deals
            and len(active) == 2
            and last.winner is not None
            and not state.seats[last.winner].resigned
        ):
            dealer = last.winner
        else:
            dealer = state.next_active(state.dealer)
    order: Sequence[int]
    if number <= len(setup.decks):
        order = setup.decks[number - 1]
    else:
        order = ramino.shuffle(round_seed(setup.seed, number), rules.deck_size)
    seats_in_turn: list[int] = []
    s = dealer
    for _ in range(len(state.active())):
        s = state.next_active(s)
        seats_in_turn.append(s)
    size = v.hand_size(len(seats_in_turn))
    assert size is not None, "match_winners ends a match that cannot be dealt"
    d = deal(order, len(seats_in_turn), size, v.first_player_extra_cards, v.upcard)
    hands: list[tuple[int, ...] | None] = [() for _ in range(n)]
    for seat, hand in zip(seats_in_turn, d.hands, strict=True):
        hands[seat] = tuple(hand)
    return RoundStarted(
        round=number,
        dealer=dealer,
        first_player=seats_in_turn[0],
        hands=tuple(hands),
        hand_sizes=tuple(len(h or ()) for h in hands),
        upcard=d.upcard,
        stock_size=len(d.stock),
        stock=tuple(d.stock),
    )


def _round_ended(state: State, rules: Rules, ending: str, winner: int | None) -> RoundEnded:
    closed = False
    if winner is not None:
        first = state.seats[winner].first_laid_turn
        closed = first == 0 or first == state.seats[winner].turns
    scores = round_scores(state, rules, winner, closed)
    return RoundEnded(
        round=state.round,
        ending=ending,
        winner=winner,
        closed_hand=closed,
        scores=scores,
        hands=tuple(tuple(s.hand) for s in state.seats),
    )
