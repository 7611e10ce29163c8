"""Drawing: from the stock, the discard pile (and when taking it obliges an
opening), or the discard pile turned over."""

from __future__ import annotations

import ramino
from ramino import reasons as r

from tests.engine_reference.commands import Command, DrawFromStock, TakeDiscard
from tests.engine_reference.context import Rules
from tests.engine_reference.events import DiscardPileTurnedOver, DrewFromStock, Event, TookDiscard
from tests.engine_reference.rules.shape import illegal
from tests.engine_reference.state import PLAY, State, obliged_to_open

__all__ = ["can_take_discard", "draw"]


def can_take_discard(state: State, rules: Rules, seat: int) -> str | None:
    """Why ``seat`` may not take the discard now, or ``None``."""
    if not state.discard:
        return r.DISCARD_PILE_EMPTY
    names = rules.names
    top_name = names[state.discard[-1]]
    if all(names[c] == top_name for c in state.seats[seat].hand):
        return r.NO_CARD_LEFT_TO_DISCARD
    if obliged_to_open(state, seat, rules):
        hand = state.seats[seat].hand
        top = state.discard[-1]
        names = rules.names
        cards = [names[c] for c in hand]
        cards.append(names[top])
        if ramino.best_opening(cards, rules.variant, include=names[top]) is None:
            return r.CANNOT_OPEN_WITH_DISCARD
    return None


def draw(state: State, rules: Rules, seat: int, command: Command) -> list[Event]:
    if state.phase == PLAY:
        if (
            not rules.variant.first_turn_draws
            and seat == state.first_player
            and state.seats[seat].turns == 1
        ):
            raise illegal(r.FIRST_TURN_HAS_NO_DRAW, "the first player's first turn has no draw")
        raise illegal(r.ALREADY_DREW, "you have drawn this turn")
    if isinstance(command, DrawFromStock):
        if not state.stock:
            raise illegal(r.STOCK_EMPTY, "the stock is empty: take the discard or turn it over")
        return [DrewFromStock(seat, state.stock[-1])]
    if isinstance(command, TakeDiscard):
        why = can_take_discard(state, rules, seat)
        if why == r.DISCARD_PILE_EMPTY:
            raise illegal(why, "the discard pile is empty")
        if why == r.NO_CARD_LEFT_TO_DISCARD:
            raise illegal(why, "you would hold only that card and its twin, neither discardable")
        if why is not None:
            raise illegal(why, "taking the discard before opening obliges you to open with it")
        return [TookDiscard(seat, state.discard[-1])]
    if rules.reshuffle:
        raise illegal(r.TURN_OVER_NOT_ALLOWED, "this variant reshuffles the discard pile")
    if state.stock:
        raise illegal(r.STOCK_NOT_EMPTY, "the stock is not empty")
    if not state.discard:
        raise illegal(r.DISCARD_PILE_EMPTY, "the discard pile is empty")
    top = state.discard[0]  # the bottom of the pile becomes the top of the stock
    return [DiscardPileTurnedOver(seat, state.rebuilds + 1), DrewFromStock(seat, top)]
