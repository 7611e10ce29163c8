"""A command from a seat: whose turn it is and which phase's rules decide it."""

from __future__ import annotations

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
    Resign,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
)
from tests.engine_reference.context import Rules
from tests.engine_reference.events import Event, Resigned
from tests.engine_reference.rules.discard import discard
from tests.engine_reference.rules.draw import draw
from tests.engine_reference.rules.gin import knocking
from tests.engine_reference.rules.meld import lay_melds, lay_off, swap
from tests.engine_reference.rules.shape import illegal, malformed, shape
from tests.engine_reference.state import DRAW, OVER, State

__all__ = ["decide"]


def decide(state: State, rules: Rules, seat: object, command: Command) -> list[Event]:
    """The events of ``seat`` issuing ``command`` now (the state is untouched)."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state.seats):
        raise malformed(r.UNKNOWN_SEAT, f"no seat {seat!r}")
    if state.phase == OVER:
        raise illegal(r.MATCH_OVER, "the match is over")
    if state.seats[seat].resigned:
        raise illegal(r.SEAT_RESIGNED, "this seat has resigned")
    if isinstance(command, Resign):
        return [Resigned(seat)]
    # Check the command's shape before the state, so that a malformed command
    # is always reported as such.
    shaped = shape(command, rules)
    if state.turn != seat:
        raise illegal(r.NOT_YOUR_TURN, "it is not your turn")
    if rules.variant.knocking:
        return knocking(state, rules, seat, shaped)
    if isinstance(shaped, PassUpcard | Knock | AcceptLayout):
        raise illegal(r.NOT_KNOCKING_PLAY, "this variant has no knocking (gin) play")
    if isinstance(shaped, DrawFromStock | TakeDiscard | TurnOverDiscardPile):
        return draw(state, rules, seat, shaped)
    if state.phase == DRAW:
        raise illegal(r.MUST_DRAW_FIRST, "draw a card first")
    if isinstance(shaped, Discard):
        return discard(state, rules, seat, shaped.card)
    if isinstance(shaped, LayMelds):
        return lay_melds(state, rules, seat, shaped.melds)
    if isinstance(shaped, LayOff):
        return lay_off(state, rules, seat, shaped)
    assert isinstance(shaped, SwapJoker)
    return swap(state, rules, seat, shaped)
