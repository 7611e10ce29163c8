"""Discarding, and the card taken from the discard pile that may not be
thrown back the same turn (RULES.md section 5)."""

from __future__ import annotations

from ramino import reasons as r

from tests.engine_reference.context import Rules
from tests.engine_reference.events import Discarded, Event
from tests.engine_reference.rules.shape import illegal, in_hand
from tests.engine_reference.state import State

__all__ = ["undiscardable", "discard"]


def undiscardable(rules: Rules, taken: int | None, card: int) -> bool:
    """Whether ``card`` may not be discarded in a turn that took ``taken``
    from the discard pile: it is that card, or its identical twin from the
    other pack (RULES.md section 5)."""
    if taken is None:
        return False
    return card == taken or rules.names[card] == rules.names[taken]


def discard(state: State, rules: Rules, seat: int, card: int) -> list[Event]:
    hand = state.seats[seat].hand
    in_hand(hand, card)
    if state.must_open:
        raise illegal(r.MUST_OPEN_WITH_TAKEN_DISCARD, "open with the card you took first")
    if card == state.taken:
        raise illegal(
            r.CANNOT_DISCARD_TAKEN_CARD, "the card taken from the discard pile stays this turn"
        )
    if undiscardable(rules, state.taken, card):
        raise illegal(
            r.CANNOT_DISCARD_TAKEN_TWIN,
            "the twin of the card taken from the discard pile stays this turn too",
        )
    if state.pending_joker is not None:
        raise illegal(r.SWAPPED_JOKER_NOT_MELDED, "lay the joker you swapped in a new meld")
    return [Discarded(seat, card)]
