"""After the draw: opening and laying melds, laying off, swapping a joker;
none may leave a turn that cannot end."""

from __future__ import annotations

from collections.abc import Sequence

import ramino
from ramino import reasons as r

from tests.engine_reference.commands import LayOff, SwapJoker
from tests.engine_reference.context import Rules
from tests.engine_reference.events import Event, JokerSwapped, LaidOff, MeldsLaid
from tests.engine_reference.rules.discard import undiscardable
from tests.engine_reference.rules.shape import illegal, in_hand
from tests.engine_reference.state import State

__all__ = ["joker_meld", "lay_melds", "table_meld", "lay_off", "swap"]


def _check_leftover(
    state: State,
    rules: Rules,
    left: list[int],
    pending: int | None,
    table: list[list[str]] | None = None,
) -> None:
    """Refuses a play that would leave a turn that cannot end. ``table`` is
    the table after the play (to see whether a last undiscardable card can
    still be laid off where going out needs no discard)."""
    if not left:
        if rules.must_discard:
            raise illegal(r.LAST_CARD_MUST_BE_DISCARDED, "keep a card: going out needs a discard")
        return
    if pending is not None and pending in left:
        if not _joker_still_meldable(state, rules, left):
            raise illegal(
                r.SWAPPED_JOKER_NOT_MELDED,
                "the swapped joker could no longer be laid in a new meld",
            )
        return
    if all(undiscardable(rules, state.taken, c) for c in left):
        if not rules.must_discard and len(left) == 1 and table:
            name = rules.names[left[0]]
            if ramino.layoff_targets([name], table, rules.variant):
                return  # the last card can still be laid off: going out
        raise illegal(
            r.NO_CARD_LEFT_TO_DISCARD,
            "only the card taken from the discard pile (or its twin) would be left, "
            "and it cannot be discarded",
        )


def _joker_still_meldable(state: State, rules: Rules, hand: list[int]) -> bool:
    """Whether a hand holding a swapped joker can lay it in a new meld and
    still end the turn: keep a card it may discard, or, where going out needs
    no discard, meld everything. The meld may use the card taken from the
    discard pile."""
    return joker_meld(rules, state.taken, hand) is not None or (
        not rules.must_discard
        and len(hand) <= ramino.MAX_HAND
        and not ramino.min_deadwood([rules.names[c] for c in hand], rules.variant).deadwood
    )


def joker_meld(
    rules: Rules, taken: int | None, hand: Sequence[int]
) -> tuple[list[int], list[list[str]]] | None:
    """A way to lay a swapped joker of ``hand`` in new melds and keep a card
    that may be discarded: the cards searched (``hand`` less the kept card)
    and the melds by card name; ``None`` when there is none."""
    names = rules.names
    if "JK" not in (names[c] for c in hand) or len(hand) > ramino.MAX_HAND + 1:
        return None
    tried: set[str] = set()
    for keep in hand:
        name = names[keep]
        if name in tried or rules.is_joker[keep] or undiscardable(rules, taken, keep):
            continue
        tried.add(name)
        rest = list(hand)
        rest.remove(keep)
        o = ramino.best_opening([names[c] for c in rest], rules.joker_meld_variant, include="JK")
        if o is not None:
            return rest, o.melds
    return None


def lay_melds(
    state: State, rules: Rules, seat: int, melds: tuple[tuple[int, ...], ...]
) -> list[Event]:
    s = state.seats[seat]
    hand = s.hand
    for meld in melds:
        for c in meld:
            in_hand(hand, c)
    names = rules.names
    v = rules.variant
    total = 0
    pure_run = False
    for meld in melds:
        try:
            m = ramino.validate_meld([names[c] for c in meld], v)
        except ramino.InvalidMeld as e:
            raise illegal(r.INVALID_MELD, f"not a meld: {e}", e.reason) from None
        total += m.value
        pure_run = pure_run or (m.kind == "run" and m.pure)
    opening = rules.needs_opening and not s.opened
    if opening:
        if state.must_open and not any(state.taken in meld for meld in melds):
            raise illegal(r.MUST_OPEN_WITH_TAKEN_DISCARD, "the opening must use the card you took")
        if total < v.open_threshold:
            raise illegal(
                r.OPENING_BELOW_THRESHOLD,
                f"an opening needs {v.open_threshold}, these melds are worth {total}",
            )
        if v.open_requires_pure_run and not pure_run:
            raise illegal(
                r.OPENING_NEEDS_PURE_RUN, "the opening needs a run of 3 or more without a joker"
            )
    used = {c for meld in melds for c in meld}
    left = [c for c in hand if c not in used]
    pending = state.pending_joker
    table = [[names[c] for c in m.cards] for m in state.melds]
    table.extend([names[c] for c in meld] for meld in melds)
    _check_leftover(state, rules, left, None if pending in used else pending, table)
    return [MeldsLaid(seat, melds, opening)]


def _may_touch_table(state: State, rules: Rules, seat: int, opening_reason: str) -> None:
    s = state.seats[seat]
    if rules.needs_opening and not s.opened:
        if state.must_open:
            raise illegal(r.MUST_OPEN_WITH_TAKEN_DISCARD, "open first, with the card you took")
        raise illegal(r.NOT_OPENED, "you have not opened yet")
    if state.opened_this_turn and not rules.variant.layoff_on_opening_turn:
        raise illegal(opening_reason, "not on the turn you open")


def table_meld(state: State, index: int) -> None:
    if index >= len(state.melds):
        raise illegal(r.NO_SUCH_MELD, f"there is no table meld {index}")


def lay_off(state: State, rules: Rules, seat: int, command: LayOff) -> list[Event]:
    _may_touch_table(state, rules, seat, r.NO_LAYOFF_ON_OPENING_TURN)
    hand = state.seats[seat].hand
    card = command.card
    in_hand(hand, card)
    table_meld(state, command.meld)
    if card == state.pending_joker:
        raise illegal(r.SWAPPED_JOKER_NOT_MELDED, "the swapped joker goes into a new meld")
    meld = state.melds[command.meld]
    if meld.closed:
        raise illegal(r.MELD_CLOSED, "a set of four is closed")
    names = rules.names
    try:
        extended = ramino.extend_meld(
            [names[c] for c in meld.cards], names[card], command.end, rules.variant
        )
    except ramino.InvalidMeld as e:
        raise illegal(r.CANNOT_LAY_OFF, f"the card does not fit there: {e}", e.reason) from None
    left = [c for c in hand if c != card]
    table = [[names[c] for c in m.cards] for m in state.melds]
    table[command.meld] = list(extended.cards)
    _check_leftover(state, rules, left, state.pending_joker, table)
    return [LaidOff(seat, card, command.meld, command.end)]


def swap(state: State, rules: Rules, seat: int, command: SwapJoker) -> list[Event]:
    if not rules.variant.joker_swap:
        raise illegal(r.JOKER_SWAP_NOT_ALLOWED, "this variant has no joker swap")
    _may_touch_table(state, rules, seat, r.NO_SWAP_ON_OPENING_TURN)
    if state.pending_joker is not None:
        raise illegal(
            r.SWAPPED_JOKER_NOT_MELDED, "lay the joker you swapped before swapping another"
        )
    hand = state.seats[seat].hand
    card = command.card
    in_hand(hand, card)
    if rules.is_joker[card]:
        raise illegal(r.SWAP_NEEDS_NATURAL_CARD, "a joker is swapped for a natural card")
    table_meld(state, command.meld)
    meld = state.melds[command.meld]
    stands_for = meld.jokers.get(command.joker)
    if stands_for is None:
        raise illegal(r.NO_SUCH_JOKER, f"card {command.joker} is not a joker of that meld")
    if rules.names[card] not in stands_for:
        raise illegal(
            r.JOKER_STANDS_FOR_OTHER_CARD,
            f"that joker stands for {' or '.join(stands_for)}",
        )
    after = [c for c in hand if c != card]
    after.append(command.joker)
    if not _joker_still_meldable(state, rules, after):
        raise illegal(
            r.SWAPPED_JOKER_CANNOT_BE_MELDED,
            "you could not lay the joker in a new meld this turn",
        )
    return [JokerSwapped(seat, card, command.meld, command.joker)]
