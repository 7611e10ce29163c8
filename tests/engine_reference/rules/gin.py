"""Knocking play (gin): the first upcard, the wall, the knock, the defender's
lay-offs and melds, and the score of a knocked hand."""

from __future__ import annotations

import ramino
from ramino import reasons as r

from tests.engine_reference.commands import (
    AcceptLayout,
    Command,
    Discard,
    DrawFromStock,
    Knock,
    LayMelds,
    LayOff,
    PassUpcard,
    TakeDiscard,
    TurnOverDiscardPile,
)
from tests.engine_reference.context import Rules
from tests.engine_reference.events import (
    BIG_GIN,
    GIN,
    KNOCK,
    UNDERCUT,
    Discarded,
    DrewFromStock,
    Event,
    Knocked,
    LaidOff,
    LayoutAccepted,
    MeldsLaid,
    PassedUpcard,
    RoundEnded,
    TookDiscard,
)
from tests.engine_reference.rules.meld import table_meld
from tests.engine_reference.rules.shape import illegal, in_hand
from tests.engine_reference.state import DRAW, LAYOFF, State, at_wall

__all__ = ["wall_knock_possible", "knock_deadwood", "knocking", "knock_scored"]


def wall_knock_possible(state: State, rules: Rules, seat: int) -> bool:
    """Whether ``seat``'s hand with the upcard could knock (its best ten of
    eleven cards leave at most ``knock_card`` unmatched)."""
    if not state.discard:
        return False
    names = rules.names
    cards = [names[c] for c in state.seats[seat].hand]
    cards.append(names[state.discard[-1]])
    return knock_deadwood(cards, rules) <= rules.variant.knock_card


def knock_deadwood(cards: list[str], rules: Rules) -> int:
    """The least unmatched total of ``cards`` less one discard."""
    best = 10**9
    for i in range(len(cards)):
        rest = cards[:i] + cards[i + 1 :]
        if rest:
            best = min(best, ramino.min_deadwood(rest, rules.variant).value)
        else:
            best = 0
    return best


def knocking(state: State, rules: Rules, seat: int, command: Command) -> list[Event]:
    v = rules.variant
    if state.phase == LAYOFF:
        return _defend(state, rules, seat, command)
    wall = at_wall(state, rules) and not state.first_upcard
    if state.phase == DRAW:
        if isinstance(command, PassUpcard):
            if (state.first_upcard and state.passes < 2) or wall:
                return [PassedUpcard(seat)]
            raise illegal(r.CANNOT_PASS, "pass only on the first upcard or at the wall")
        if isinstance(command, TakeDiscard):
            if not state.discard:
                raise illegal(r.DISCARD_PILE_EMPTY, "the discard pile is empty")
            if state.first_upcard and state.passes >= 2:
                raise illegal(r.UPCARD_PASSED, "both passed the upcard: draw from the stock")
            if wall and not wall_knock_possible(state, rules, seat):
                raise illegal(
                    r.WALL_NEEDS_KNOCK,
                    f"at the wall the upcard is taken only to knock (at most {v.knock_card})",
                )
            return [TookDiscard(seat, state.discard[-1])]
        if isinstance(command, DrawFromStock):
            if state.first_upcard and state.passes < 2:
                raise illegal(r.TAKE_OR_PASS_UPCARD, "take the first upcard or pass")
            if wall:
                raise illegal(
                    r.WALL_REACHED, "the stock is at the wall: knock with the upcard or pass"
                )
            if not state.stock:
                raise illegal(r.STOCK_EMPTY, "the stock is empty")
            return [DrewFromStock(seat, state.stock[-1])]
        if isinstance(command, TurnOverDiscardPile):
            raise illegal(r.TURN_OVER_NOT_ALLOWED, "the discard pile is never turned over here")
        raise illegal(r.MUST_DRAW_FIRST, "draw a card first")
    if isinstance(command, DrawFromStock | TakeDiscard | TurnOverDiscardPile | PassUpcard):
        raise illegal(r.ALREADY_DREW, "you have drawn this turn")
    if isinstance(command, AcceptLayout):
        raise illegal(r.DEFENDER_TO_PLAY, "only the defender accepts a layout")
    if isinstance(command, Discard):
        in_hand(state.seats[seat].hand, command.card)
        if state.wall_take:
            raise illegal(r.MUST_KNOCK, "the upcard taken at the wall obliges a knock")
        return [Discarded(seat, command.card)]
    if isinstance(command, Knock):
        return _knock(state, rules, seat, command)
    raise illegal(r.MELDS_ONLY_BY_KNOCKING, "in gin, melds are laid only by knocking")


def _knock(state: State, rules: Rules, seat: int, command: Knock) -> list[Event]:
    v = rules.variant
    hand = list(state.seats[seat].hand)
    if command.discard is None:
        if not v.big_gin:
            raise illegal(r.BIG_GIN_NOT_ALLOWED, "a knock discards a card (big gin is off)")
    else:
        in_hand(hand, command.discard)
        hand.remove(command.discard)
    names = rules.names
    for meld in command.melds:
        for c in meld:
            if c not in hand:
                raise illegal(r.CARD_NOT_IN_HAND, f"card {c} is not in your hand after the discard")
        try:
            ramino.validate_meld([names[c] for c in meld], v)
        except ramino.InvalidMeld as e:
            raise illegal(r.INVALID_MELD, f"not a meld: {e}", e.reason) from None
    used = {c for meld in command.melds for c in meld}
    left = [c for c in hand if c not in used]
    deadwood = rules.penalty(left)
    if command.discard is None and left:
        raise illegal(r.BIG_GIN_MELDS_ALL, "big gin melds all eleven cards")
    if deadwood > v.knock_card:
        raise illegal(
            r.KNOCK_TOO_HIGH,
            f"the unmatched cards total {deadwood}, more than the knock card {v.knock_card}",
        )
    return [Knocked(seat, command.discard, command.melds, deadwood)]


def _defend(state: State, rules: Rules, seat: int, command: Command) -> list[Event]:
    v = rules.variant
    hand = state.seats[seat].hand
    names = rules.names
    if isinstance(command, AcceptLayout):
        return [LayoutAccepted(seat)]
    if isinstance(command, LayMelds):
        for meld in command.melds:
            for c in meld:
                in_hand(hand, c)
            try:
                ramino.validate_meld([names[c] for c in meld], v)
            except ramino.InvalidMeld as e:
                raise illegal(r.INVALID_MELD, f"not a meld: {e}", e.reason) from None
        return [MeldsLaid(seat, command.melds, False)]
    if isinstance(command, LayOff):
        in_hand(hand, command.card)
        table_meld(state, command.meld)
        knocker = state.knocker
        assert knocker is not None
        if not state.seats[knocker].hand and not state.big_gin:
            raise illegal(r.NO_LAYOFF_ON_GIN, "no lay-offs on gin")
        if state.big_gin:
            raise illegal(r.NO_LAYOFF_ON_GIN, "no lay-offs on big gin")
        if command.meld >= state.knock_melds:
            raise illegal(r.LAYOFF_ONLY_ON_KNOCKERS_MELDS, "lay off only on the knocker's melds")
        if state.defender_melded:
            raise illegal(r.NO_LAYOFF_AFTER_MELDS, "lay-offs come before your own melds")
        target = state.melds[command.meld]
        try:
            ramino.extend_meld(
                [names[c] for c in target.cards], names[command.card], command.end, v
            )
        except ramino.InvalidMeld as e:
            raise illegal(r.CANNOT_LAY_OFF, f"the card does not fit there: {e}", e.reason) from None
        return [LaidOff(seat, command.card, command.meld, command.end)]
    raise illegal(r.DEFENDER_TO_PLAY, "the defender lays off, melds, or accepts the layout")


def knock_scored(state: State, rules: Rules) -> RoundEnded:
    """The end of a knocked hand: the knocker scores the difference of the
    unmatched totals (plus the gin or big gin bonus), or the defender, when
    its total is lower (an undercut), the difference plus the undercut bonus.
    Equal totals: nobody scores."""
    v = rules.variant
    knocker = state.knocker
    assert knocker is not None
    defender = state.next_active(knocker)
    dk = rules.penalty(state.seats[knocker].hand)
    dd = rules.penalty(state.seats[defender].hand)
    scores = [0] * len(state.seats)
    winner: int | None
    if dk == 0:
        winner, ending = knocker, BIG_GIN if state.big_gin else GIN
        scores[knocker] = dd + (v.big_gin_bonus if state.big_gin else v.gin_bonus)
    elif dd > dk:
        winner, ending = knocker, KNOCK
        scores[knocker] = dd - dk
    elif dd < dk:
        winner, ending = defender, UNDERCUT
        scores[defender] = dk - dd + v.undercut_bonus
    else:
        winner, ending = None, KNOCK
    return RoundEnded(
        round=state.round,
        ending=ending,
        winner=winner,
        closed_hand=False,
        scores=tuple(scores),
        hands=tuple(tuple(s.hand) for s in state.seats),
    )
