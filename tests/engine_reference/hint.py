"""Advice on a seat's hand, from the kernel's exact search and the rules:
the melds to lay, the lay-offs, the discard to make and gin's best knock.

One discard policy lives here (:func:`discard_scores`, :func:`best_discards`):
the hint, the turn timer's move and the greedy bots all discard by it. It
reads only a hand and the card taken this turn, so a bot that sees only its
seat's view can use it as well as the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ramino

from tests.engine_reference.commands import Command, Knock, LayMelds, LayOff
from tests.engine_reference.context import Rules
from tests.engine_reference.errors import IllegalMove
from tests.engine_reference.moves import legal_moves
from tests.engine_reference.rules import decide, joker_meld, undiscardable
from tests.engine_reference.state import PLAY, State

__all__ = [
    "Hint",
    "hint",
    "discardable",
    "discard_scores",
    "best_discards",
    "keep_one",
    "knock_unmatched",
]

_RANK = {r: i for i, r in enumerate("A23456789TJQK", start=1)}


@dataclass(frozen=True, slots=True)
class Hint:
    """What a careful player would do with a seat's hand (cards by id)."""

    melds: tuple[tuple[int, ...], ...]
    """The melds to lay: before the seat has opened, the best opening (none
    when it cannot open); afterwards the melds of the least deadwood that
    may be laid together (a swapped joker's meld first while one waits).
    None in gin, where melds are laid by knocking."""
    melds_value: int
    """Their meld value (the opening's value before opening)."""
    opening: bool
    """Whether laying :attr:`melds` is the seat's opening."""
    deadwood: ramino.Deadwood
    """The least deadwood of the whole hand (cards by code)."""
    layoffs: tuple[LayOff, ...]
    """Legal lay-offs now of cards outside :attr:`melds`, one per card."""
    discard: int
    """The card to discard at the end of the turn: the best by the discard
    policy among those the rules let the seat discard (never the card taken
    from the discard pile or its twin where that rule holds, never a swapped
    joker waiting for its meld), outside :attr:`melds` while there is one."""
    knock: Knock | None
    """Gin: the legal knock of least unmatched total, when there is one."""
    knock_unmatched: int
    """The unmatched total of :attr:`knock` (0 without one)."""


def hint(
    state: State, rules: Rules, seat: int, legal: Sequence[Command] | None = None
) -> Hint | None:
    """The hint on ``seat``'s hand, or ``None`` when it holds no card.
    ``legal``: the seat's legal moves now, when the caller has them (they
    give the lay-offs and knocks without a second search)."""
    s = state.seats[seat]
    hand = list(s.hand)
    if not hand:
        return None
    # The card taken this turn and a swapped joker waiting for its meld are
    # the turn's: another seat's hint takes no account of them.
    mine = state.turn == seat
    taken = state.taken if mine else None
    pending = state.pending_joker if mine else None
    names = rules.names
    v = rules.variant
    hand_names = [names[c] for c in hand]
    deadwood = ramino.min_deadwood(hand_names, v)
    melds: tuple[tuple[int, ...], ...] = ()
    value = 0
    opening = False
    if v.knocking:
        pass  # melds are laid by knocking: the knock below carries them
    elif not s.opened:
        include = names[taken] if state.must_open and taken is not None else None
        found = ramino.best_opening(hand_names, v, include=include)
        if found is not None:
            melds = _ids(hand, names, found.melds, (taken,))
            value = found.value
            opening = rules.needs_opening
    else:
        melds = _opened_melds(state, rules, seat, deadwood, taken, pending)
        value = sum(ramino.validate_meld([names[c] for c in m], v).value for m in melds)
    in_melds = {c for m in melds for c in m}
    if legal is None:
        legal = legal_moves(state, rules, seat)
    layoffs: list[LayOff] = []
    for m in legal:
        if isinstance(m, LayOff) and m.card not in in_melds:
            if all(lo.card != m.card for lo in layoffs):
                layoffs.append(m)
    knock: Knock | None = None
    unmatched = 0
    if v.knocking and state.phase == PLAY:
        found_knocks = [m for m in legal if isinstance(m, Knock)]
        if found_knocks:  # the engine lists the knocks best first
            knock = found_knocks[0]
            unmatched = knock_unmatched(rules, hand, knock)
    # The discard comes after the melds: a card of theirs only when nothing
    # else may go.
    allowed = discardable(rules, hand, taken, pending) or hand
    best = best_discards(
        rules, hand, [c for c in allowed if c not in in_melds] or allowed, deadwood
    )[0]
    return Hint(melds, value, opening, deadwood, tuple(layoffs), best, knock, unmatched)


def _ids(
    hand: Sequence[int], names: Sequence[str], melds: list[list[str]], first: Sequence[int | None]
) -> tuple[tuple[int, ...], ...]:
    """Melds by code back to ids of ``hand``, the ids ``first`` preferred."""
    preferred = [c for c in first if c is not None and c in hand]
    pools: dict[str, list[int]] = {}
    for c in [*preferred, *(c for c in hand if c not in preferred)]:
        pools.setdefault(names[c], []).append(c)
    return tuple(tuple(pools[n].pop(0) for n in meld) for meld in melds)


def _opened_melds(
    state: State,
    rules: Rules,
    seat: int,
    deadwood: ramino.Deadwood,
    taken: int | None,
    pending: int | None,
) -> tuple[tuple[int, ...], ...]:
    """The melds an opened seat should lay: the swapped joker's new meld
    while one waits, else the melds of the least deadwood, one card kept back
    where going out needs a discard; in the play phase, the first of those
    (all of them, else each alone) that the rules take now."""
    names = rules.names
    hand = list(state.seats[seat].hand)
    first = (taken, pending)
    if pending is not None:
        found = joker_meld(rules, taken, hand)
        if found is not None:
            rest, jm = found
            return _ids(rest, names, jm, first)
    partition = [list(m) for m in deadwood.melds]
    if not deadwood.deadwood and rules.must_discard:
        partition = keep_one(partition, rules.variant)
    if not partition:
        return ()
    together = _ids(hand, names, partition, first)
    if state.phase != PLAY or state.turn != seat:
        return together
    for melds in (together, *((m,) for m in together)):
        try:
            decide(state, rules, seat, LayMelds(melds))
        except IllegalMove:
            continue
        return melds
    return ()


def keep_one(melds: list[list[str]], variant: ramino.Variant) -> list[list[str]]:
    """Every card melds but going out needs a discard: the melds less one
    card kept back (an end of a long run, a card of a set of four), else less
    the meld of least value."""
    for i, m in enumerate(melds):
        if len(m) >= 4:
            for rest in (m[1:], m[:-1]):
                try:
                    ramino.validate_meld(rest, variant)
                except ramino.InvalidMeld:
                    continue
                return [*melds[:i], rest, *melds[i + 1 :]]
    if len(melds) > 1:
        values = [ramino.validate_meld(m, variant).value for m in melds]
        drop = values.index(min(values))
        return [m for i, m in enumerate(melds) if i != drop]
    return []


def knock_unmatched(rules: Rules, hand: Sequence[int], knock: Knock) -> int:
    """The unmatched total that ``knock`` shows of ``hand``."""
    used = {c for m in knock.melds for c in m}
    return rules.penalty([c for c in hand if c != knock.discard and c not in used])


def discardable(
    rules: Rules, hand: Sequence[int], taken: int | None, pending_joker: int | None
) -> list[int]:
    """The cards of ``hand`` worth offering to end the turn, in hand order:
    not a swapped joker waiting for its meld; not the card taken from the
    discard pile nor its twin (RULES.md section 5); in gin, where the taken
    card may be discarded back, it is kept while there is another choice
    (throwing back what was just taken wastes the turn, and twice in
    succession draws the hand)."""
    cards = [c for c in hand if c != pending_joker]
    if not rules.variant.knocking:
        return [c for c in cards if not undiscardable(rules, taken, c)]
    if taken is not None and len(cards) > 1:
        return [c for c in cards if c != taken]
    return cards


def discard_scores(
    rules: Rules,
    hand: Sequence[int],
    allowed: Sequence[int],
    deadwood: ramino.Deadwood | None = None,
) -> dict[int, int]:
    """How good a discard each card of ``allowed`` (cards of ``hand``) is,
    higher better: deadwood before melded cards, high penalties first, lone
    cards before cards with partners (another suit of the rank, or the suit
    within two ranks). A joker last while there is another choice.
    ``deadwood``: the hand's least deadwood, when the caller has it."""
    names = rules.names
    penalties = rules.penalties
    cards = [names[c] for c in hand]
    if deadwood is None:
        deadwood = ramino.min_deadwood(cards, rules.variant)
    loose = set(deadwood.deadwood)
    suits_of_rank: dict[str, set[str]] = {}
    in_suit: dict[tuple[str, int], int] = {}  # (suit, rank): cards held
    for name in cards:
        if name != "JK":
            suits_of_rank.setdefault(name[0], set()).add(name[1])
            key = (name[1], _RANK[name[0]])
            in_suit[key] = in_suit.get(key, 0) + 1
    held = in_suit.get
    by_name: dict[str, int] = {}  # a card's twin scores as it does
    scores: dict[int, int] = {}
    for c in allowed:
        name = names[c]
        score = by_name.get(name)
        if score is None:
            if name == "JK":
                score = -1000
            elif name not in loose:
                score = penalties[c] * 2 - 500
            else:
                suit, rank = name[1], _RANK[name[0]]
                partners = len(suits_of_rank[name[0]]) - 1
                partners += held((suit, rank - 2), 0) + held((suit, rank - 1), 0)
                partners += held((suit, rank + 1), 0) + held((suit, rank + 2), 0)
                score = penalties[c] * 2 - 8 * partners
            by_name[name] = score
        scores[c] = score
    return scores


def best_discards(
    rules: Rules,
    hand: Sequence[int],
    allowed: Sequence[int],
    deadwood: ramino.Deadwood | None = None,
) -> list[int]:
    """The cards of ``allowed`` that :func:`discard_scores` ranks best, in
    the order given (a bot draws among them; the hint takes the first)."""
    scores = discard_scores(rules, hand, allowed, deadwood)
    top = max(scores.values())
    return [c for c in allowed if scores[c] == top]
