"""The moves a seat may make now, found with the kernel's exact search, so that
clients and bots need no rules of their own.

Every move listed is legal (each is checked by the rules before it is
listed). The list is complete for draws and discards (one discard per distinct
card); melds, lay-offs and joker swaps are the ones the search proposes, capped:
the best opening before a seat has opened; afterwards the melds of the
minimum-deadwood partition, together and one by one; every lay-off and swap
the kernel finds. ``Resign`` is always possible and never listed.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

import ramino

from tests.engine_reference.commands import (
    AcceptLayout,
    Command,
    Discard,
    DrawFromStock,
    Knock,
    LayMelds,
    LayOff,
    PassUpcard,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
)
from tests.engine_reference.context import Rules
from tests.engine_reference.errors import IllegalMove
from tests.engine_reference.rules import decide, joker_meld
from tests.engine_reference.state import DRAW, LAYOFF, PLAY, State

__all__ = [
    "legal_moves",
    "knocks",
    "hand_melds",
    "MAX_MELD_MOVES",
    "MAX_LAYOFF_MOVES",
    "MAX_SWAP_MOVES",
]

MAX_MELD_MOVES = 16
MAX_LAYOFF_MOVES = 48
MAX_SWAP_MOVES = 16


class _Ids:
    """Card names back to the ids of a hand, some ids preferred (the taken
    discard, a swapped joker) and some avoided."""

    def __init__(self, hand: list[int], names: tuple[str, ...], first: Iterable[int | None]):
        preferred = [c for c in first if c is not None and c in hand]
        self._by_name: dict[str, list[int]] = {}
        for c in [*preferred, *(c for c in hand if c not in preferred)]:
            self._by_name.setdefault(names[c], []).append(c)

    def melds(self, melds: list[list[str]]) -> tuple[tuple[int, ...], ...]:
        pools = {k: list(v) for k, v in self._by_name.items()}
        return tuple(tuple(pools[n].pop(0) for n in meld) for meld in melds)

    def one(self, name: str) -> int:
        return self._by_name[name][0]


def _legal(state: State, rules: Rules, seat: int, command: Command) -> bool:
    try:
        decide(state, rules, seat, command)
    except IllegalMove:
        return False
    return True


def legal_moves(state: State, rules: Rules, seat: int) -> list[Command]:
    """The moves ``seat`` may make now (empty when it is not its turn)."""
    if state.turn != seat or state.phase not in (DRAW, PLAY, LAYOFF) or state.seats[seat].resigned:
        return []
    if rules.variant.knocking:
        return _knocking_moves(state, rules, seat)
    if state.phase == DRAW:
        draws: list[Command] = [DrawFromStock(), TakeDiscard(), TurnOverDiscardPile()]
        return [c for c in draws if _legal(state, rules, seat, c)]
    s = state.seats[seat]
    hand = s.hand
    names = rules.names
    v = rules.variant
    hand_names = [names[c] for c in hand]
    out: list[Command] = []

    melds: list[LayMelds] = []
    ids = _Ids(hand, names, (state.taken, state.pending_joker))
    if rules.needs_opening and not s.opened:
        include = names[state.taken] if state.must_open and state.taken is not None else None
        opening = ramino.best_opening(hand_names, v, include=include)
        if opening is not None:
            melds.append(LayMelds(ids.melds(opening.melds)))
    else:
        if state.pending_joker is not None:
            # The search the swap was allowed on: a new meld for the joker
            # that keeps a card that may be discarded.
            found = joker_meld(rules, state.taken, hand)
            if found is not None:
                rest, jm = found
                first = (state.pending_joker, state.taken)
                melds.append(LayMelds(_Ids(rest, names, first).melds(jm)))
        partition = ramino.min_deadwood(hand_names, v).melds
        if len(partition) > 1:
            melds.append(LayMelds(ids.melds(partition)))
        melds.extend(LayMelds(ids.melds([m])) for m in partition)
    seen: set[LayMelds] = set()
    for m in melds:
        if m not in seen and len(seen) < MAX_MELD_MOVES and _legal(state, rules, seat, m):
            seen.add(m)
            out.append(m)

    table = [[names[c] for c in m.cards] for m in state.melds]
    may_touch = table and (s.opened or not rules.needs_opening)
    if may_touch:
        plain = _Ids([c for c in hand if c != state.pending_joker], names, ())
        count = 0
        for lo in ramino.layoff_targets(hand_names, table, v):
            if count >= MAX_LAYOFF_MOVES:
                break
            try:
                card = plain.one(lo.card)
            except KeyError:
                continue
            cmd = LayOff(card, lo.meld, lo.end)
            if _legal(state, rules, seat, cmd):
                out.append(cmd)
                count += 1
        if v.joker_swap and state.pending_joker is None:
            count = 0
            for sw in ramino.joker_swaps(hand_names, table, v):
                if count >= MAX_SWAP_MOVES:
                    break
                joker = state.melds[sw.meld].cards[sw.joker_index]
                swap = SwapJoker(ids.one(sw.card), sw.meld, joker)
                if _legal(state, rules, seat, swap):
                    out.append(swap)
                    count += 1

    discarded: set[str] = set()
    for c in hand:
        if names[c] not in discarded and _legal(state, rules, seat, Discard(c)):
            discarded.add(names[c])
            out.append(Discard(c))
    return out


# --- knocking play (gin) -----------------------------------------------------

_RANKS = "A23456789TJQK"


def hand_melds(names: list[str], variant: ramino.Variant) -> list[list[str]]:
    """Every meld (by card name) that the cards ``names`` hold, for a deck
    without jokers: each set of 3 or 4 of a rank, each run of 3 or more.
    Each is checked by the kernel."""
    by_rank: dict[str, list[str]] = {}
    by_suit: dict[str, set[int]] = {}
    for n in set(names):
        by_rank.setdefault(n[0], []).append(n)
        by_suit.setdefault(n[1], set()).add(_RANKS.index(n[0]))
    out: list[list[str]] = []
    # By rank, then by suit, in a fixed order (the reference's one change: the
    # live engine went in the order of set(names), which string hashing
    # changes from one process to the next).
    for rank in sorted(by_rank, key=_RANKS.index):
        cards = by_rank[rank]
        cards.sort(key=lambda n: "SHDC".index(n[1]))
        for size in (3, 4):
            out.extend(list(c) for c in combinations(cards, size))
    top = 14 if variant.ace_high else 13
    for suit in sorted(by_suit, key="SHDC".index):
        positions = set(by_suit[suit])
        if variant.ace_high and 0 in positions:
            positions.add(13)
        for lo in range(top):
            hi = lo
            while hi < top and hi in positions:
                hi += 1
                if hi - lo >= 3:
                    out.append([_RANKS[p % 13] + suit for p in range(lo, hi)])
    valid: list[list[str]] = []
    for m in out:
        try:
            ramino.validate_meld(m, variant)
        except ramino.InvalidMeld:
            continue
        valid.append(m)
    return valid


def knocks(state: State, rules: Rules, seat: int) -> list[Knock]:
    """The best knock for each discard that allows one (the melds of the
    least unmatched total of the rest), and big gin where it is on: the
    knocks that ``seat`` may make now, best (least unmatched) first."""
    hand = state.seats[seat].hand
    names = rules.names
    v = rules.variant
    found: list[tuple[int, Knock]] = []
    tried: set[str] = set()
    for d in hand:
        if names[d] in tried:
            continue
        tried.add(names[d])
        rest = [c for c in hand if c != d]
        dw = ramino.min_deadwood([names[c] for c in rest], v)
        if dw.value <= v.knock_card:
            cmd = Knock(d, _Ids(rest, names, ()).melds(dw.melds))
            if _legal(state, rules, seat, cmd):
                found.append((dw.value, cmd))
    if v.big_gin and len(hand) <= ramino.MAX_HAND:
        dw = ramino.min_deadwood([names[c] for c in hand], v)
        cmd = Knock(None, _Ids(hand, names, ()).melds(dw.melds))
        if not dw.deadwood and _legal(state, rules, seat, cmd):
            found.append((-1, cmd))
    found.sort(key=lambda f: f[0])
    return [k for _, k in found]


def _knocking_moves(state: State, rules: Rules, seat: int) -> list[Command]:
    names = rules.names
    hand = state.seats[seat].hand
    out: list[Command] = []
    if state.phase == DRAW:
        draws: list[Command] = [TakeDiscard(), DrawFromStock(), PassUpcard()]
        return [c for c in draws if _legal(state, rules, seat, c)]
    if state.phase == PLAY:
        seen: set[str] = set()
        for c in hand:
            if names[c] not in seen and _legal(state, rules, seat, Discard(c)):
                seen.add(names[c])
                out.append(Discard(c))
        out.extend(knocks(state, rules, seat))
        return out
    # The defender: every lay-off onto the knocker's melds, every meld of
    # the hand, and accepting the layout.
    hand_names = [names[c] for c in hand]
    table = [[names[c] for c in m.cards] for m in state.melds[: state.knock_melds]]
    ids = _Ids(hand, names, ())
    if table and hand:
        for lo in ramino.layoff_targets(hand_names, table, rules.variant):
            cmd = LayOff(ids.one(lo.card), lo.meld, lo.end)
            if _legal(state, rules, seat, cmd):
                out.append(cmd)
    for m in hand_melds(hand_names, rules.variant):
        lay = LayMelds(ids.melds([m]))
        if _legal(state, rules, seat, lay):
            out.append(lay)
    out.append(AcceptLayout())
    return out
