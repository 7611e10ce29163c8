"""A brute-force reference of the meld rules, written from RULES.md alone.

It shares no code and no algorithm with the Rust core: a meld is checked by
giving every joker every concrete card it could be and testing the concrete
sequence; the searches enumerate every candidate meld of the hand by
construction and then every collection of disjoint candidates, recursing over
the lowest card still undecided. Slow, simple and exact.

Cards are plain strings (``"AS"``, ``"TH"``, ``"JK"``); variant parameters are
the dict of ``ramino.Variant(...).to_dict()``.

Card values (RULES.md section 3, as parameters): in a run, position 1 is the
ace low (``ace_low_value``, or ``ace_low_value_with_ace_high`` where
``ace_high`` is on), 14 the ace high (``ace_high_value``), 2-9 their
face, 10 to king 10; in a set every card is worth its rank, an ace
``ace_high_value`` where ``ace_high`` is on and ``ace_low_value`` otherwise;
a joker is worth the card it stands for. Penalty of a card left in hand: a
joker ``joker_penalty``, an ace ``ace_high_penalty`` where ``ace_high`` is on
and ``ace_penalty`` otherwise, 2-9 face, 10 to king 10.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Params = Mapping[str, Any]

JOKER = "JK"
SUITS = "SHDC"
RANK_LETTERS = "A23456789TJQK"
NATURALS = [r + s for s in SUITS for r in RANK_LETTERS]


def card_rank(card: str) -> int:
    """Rank 1 (ace) to 13 (king) of a natural card."""
    return RANK_LETTERS.index(card[0]) + 1


def card_suit(card: str) -> str:
    return card[1]


def make_card(rank: int, suit: str) -> str:
    return RANK_LETTERS[rank - 1] + suit


def split_cards(cards: str | Iterable[str]) -> list[str]:
    """Cards in canonical notation, from a string or a sequence of strings."""
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    out = []
    for token in cards:
        t = str(token).strip().upper()
        if t in ("JK", "JOKER"):
            out.append(JOKER)
            continue
        if t.startswith("10"):
            t = "T" + t[2:]
        if len(t) != 2 or t[0] not in RANK_LETTERS or t[1] not in SUITS:
            raise ValueError(f"reference cannot read card {token!r}")
        out.append(t)
    return out


# ---------------------------------------------------------------- values


def top_position(params: Params) -> int:
    return 14 if params["ace_high"] else 13


def position_rank(position: int) -> int:
    return 1 if position == 14 else position


def run_position_value(position: int, params: Params) -> int:
    if position == 1:
        key = "ace_low_value_with_ace_high" if params["ace_high"] else "ace_low_value"
        return int(params[key])
    if position == 14:
        return int(params["ace_high_value"])
    return min(position, 10)


def set_card_value(rank: int, params: Params) -> int:
    if rank == 1:
        return int(params["ace_high_value"] if params["ace_high"] else params["ace_low_value"])
    return min(rank, 10)


def card_penalty(card: str, params: Params) -> int:
    if card == JOKER:
        return int(params["joker_penalty"])
    rank = card_rank(card)
    if rank == 1:
        return int(params["ace_high_penalty"] if params["ace_high"] else params["ace_penalty"])
    return min(rank, 10)


def hand_penalty(cards: Iterable[str], params: Params) -> int:
    return sum(card_penalty(c, params) for c in cards)


# ---------------------------------------------------------------- one meld


@dataclass(frozen=True)
class RefMeld:
    """A legal meld as the reference sees it."""

    kind: str
    value: int
    # Index in the card list of each joker -> the natural cards it may be.
    jokers: dict[int, frozenset[str]]

    @property
    def pure(self) -> bool:
        return self.kind == "run" and not self.jokers


def _concrete_set_value(cards: Sequence[str], params: Params) -> int | None:
    """Value of a joker-free set, or None when the cards are not one."""
    if not 3 <= len(cards) <= 4:
        return None
    if len({card_rank(c) for c in cards}) != 1:
        return None
    if len({card_suit(c) for c in cards}) != len(cards):
        return None
    return len(cards) * set_card_value(card_rank(cards[0]), params)


def _concrete_run_value(cards: Sequence[str], params: Params) -> int | None:
    """Value of a joker-free run listed in ascending order, or None."""
    if len(cards) < 3 or len({card_suit(c) for c in cards}) != 1:
        return None
    first = card_rank(cards[0])
    starts = [1, 14] if first == 1 else [first]
    for start in starts:
        positions = range(start, start + len(cards))
        if positions[-1] > top_position(params):
            continue
        if all(position_rank(p) == card_rank(c) for p, c in zip(positions, cards, strict=True)):
            return sum(run_position_value(p, params) for p in positions)
    return None


def ref_validate(cards: str | Sequence[str], params: Params) -> RefMeld | None:
    """The meld that this ordered list of cards is, or None when it is none.

    Every joker is given in turn every natural card it could be; the list is a
    meld when some such concrete list is a set or an ascending run. A joker
    stands for exactly the cards it is in those concrete lists.
    """
    cards = split_cards(cards)
    joker_at = [i for i, c in enumerate(cards) if c == JOKER]
    naturals = [c for c in cards if c != JOKER]
    if len(joker_at) > params["max_jokers_per_meld"] or len(naturals) < 2:
        return None
    # A set is of one rank and a run of one suit, so a joker can only be a
    # card of the naturals' common rank, or of their common suit.
    ranks = {card_rank(c) for c in naturals}
    suits = {card_suit(c) for c in naturals}
    candidates = [
        c
        for c in NATURALS
        if (len(ranks) == 1 and card_rank(c) in ranks)
        or (len(suits) == 1 and card_suit(c) in suits)
    ]
    found: dict[str, set[int]] = {}
    stands_for: dict[int, set[str]] = {i: set() for i in joker_at}
    for choice in itertools.product(candidates, repeat=len(joker_at)):
        concrete = list(cards)
        for i, c in zip(joker_at, choice, strict=True):
            concrete[i] = c
        for kind, value in (
            ("set", _concrete_set_value(concrete, params)),
            ("run", _concrete_run_value(concrete, params)),
        ):
            if value is not None:
                found.setdefault(kind, set()).add(value)
                for i, c in zip(joker_at, choice, strict=True):
                    stands_for[i].add(c)
    if not found:
        return None
    # Naturals that share both rank and suit are duplicates, never a meld, so
    # the kind is never ambiguous; a meld has one reading, so one value.
    assert len(found) == 1, f"{cards} reads as both a set and a run"
    ((kind, values),) = found.items()
    assert len(values) == 1, f"{cards} has several values {values}"
    return RefMeld(kind, values.pop(), {i: frozenset(s) for i, s in stands_for.items()})


# ---------------------------------------------------------------- candidate melds


@dataclass(frozen=True)
class Candidate:
    """A multiset of the hand's cards that is a meld in some order."""

    cards: tuple[str, ...]  # sorted
    kind: str
    value: int  # best value over the orders it can be laid in
    order: tuple[str, ...]  # an order that has that value

    @property
    def pure(self) -> bool:
        return self.kind == "run" and JOKER not in self.cards


def candidate_melds(hand: Iterable[str], params: Params) -> list[Candidate]:
    """Every sub-multiset of the hand that forms a legal meld, built from the
    definitions: sets by choosing suits of a rank, runs by choosing a span of
    positions of a suit and which of them are jokers."""
    counts = Counter(hand)
    jokers = min(counts[JOKER], int(params["max_jokers_per_meld"]))
    best: dict[tuple[str, ...], Candidate] = {}

    def offer(order: list[str], kind: str, value: int) -> None:
        key = tuple(sorted(order))
        old = best.get(key)
        if old is None or value > old.value:
            best[key] = Candidate(key, kind, value, tuple(order))

    for rank in range(1, 14):
        suits = [s for s in SUITS if counts[make_card(rank, s)] > 0]
        for n in range(2, min(4, len(suits)) + 1):
            for chosen in itertools.combinations(suits, n):
                for j in range(0, min(jokers, 4 - n) + 1):
                    if n + j >= 3:
                        order = [make_card(rank, s) for s in chosen] + [JOKER] * j
                        offer(order, "set", (n + j) * set_card_value(rank, params))

    top = top_position(params)
    for suit in SUITS:
        for low in range(1, top - 1):
            # Grow the span upwards; positions whose card the hand lacks (or
            # lacks a second copy of, for a run with two aces) must be jokers.
            used: Counter[str] = Counter()
            missing: list[int] = []
            for high in range(low, top + 1):
                c = make_card(position_rank(high), suit)
                used[c] += 1
                if used[c] > counts[c]:
                    missing.append(high)
                    if len(missing) > jokers:
                        break
                if high - low < 2:
                    continue
                positions = range(low, high + 1)
                value = sum(run_position_value(p, params) for p in positions)
                free = [p for p in positions if p not in missing]
                for extra in range(0, jokers - len(missing) + 1):
                    for more in itertools.combinations(free, extra):
                        joker_positions = set(missing) | set(more)
                        if len(positions) - len(joker_positions) < 2:
                            continue
                        order = [
                            JOKER if p in joker_positions else make_card(position_rank(p), suit)
                            for p in positions
                        ]
                        offer(order, "run", value)
    return list(best.values())


# ---------------------------------------------------------------- searches


class _Hand:
    """A hand as counts over its distinct natural cards (sorted) plus jokers."""

    def __init__(self, hand: Iterable[str], params: Params) -> None:
        cards = list(hand)
        self.kinds = sorted({c for c in cards if c != JOKER}, key=NATURALS.index)
        self.slot = {c: i for i, c in enumerate(self.kinds)}
        self.slot[JOKER] = len(self.kinds)
        counts = Counter(cards)
        self.start = tuple(counts[c] for c in self.kinds) + (counts[JOKER],)
        self.candidates = candidate_melds(cards, params)
        # Candidates by their lowest natural card, each as (slot, count) pairs.
        self.by_lowest: dict[int, list[tuple[Candidate, tuple[tuple[int, int], ...]]]] = {}
        for cand in self.candidates:
            need = Counter(self.slot[c] for c in cand.cards)
            lowest = min(s for s in need if s != self.slot[JOKER])
            self.by_lowest.setdefault(lowest, []).append((cand, tuple(sorted(need.items()))))

    def lowest(self, state: tuple[int, ...]) -> int | None:
        for i in range(len(self.kinds)):
            if state[i]:
                return i
        return None

    @staticmethod
    def take(state: tuple[int, ...], need: tuple[tuple[int, int], ...]) -> tuple[int, ...] | None:
        s = list(state)
        for slot, n in need:
            if s[slot] < n:
                return None
            s[slot] -= n
        return tuple(s)


# Facts an opening must show, tracked as bits.
_MELD, _PURE, _LEFTOVER, _INCLUDE = 1, 2, 4, 8


def _opening_search(
    hand: list[str], params: Params, include: str | None, memoise: bool = True
) -> dict[int, int]:
    """For each combination of facts, the highest total value of a collection
    of disjoint melds of the hand showing those facts. Without ``memoise``,
    every collection is enumerated one by one (a plain brute force, for the
    benchmark); with it, the answer for each remaining hand is kept, so that
    the tests can afford thousands of hands."""
    h = _Hand(hand, params)
    memo: dict[tuple[int, ...], dict[int, int]] = {}

    def facts(cand: Candidate) -> int:
        f = _MELD
        if cand.pure:
            f |= _PURE
        if include is not None and include in cand.cards:
            f |= _INCLUDE
        return f

    def best(state: tuple[int, ...]) -> dict[int, int]:
        if state in memo:
            return memo[state]
        low = h.lowest(state)
        out: dict[int, int] = {}
        if low is None:
            # Jokers left over: one may be discarded, unless the joker is the
            # card taken from the discard pile (then so is every other).
            out[_LEFTOVER if state[-1] and include != JOKER else 0] = 0
        else:
            # The lowest undecided card is left in hand (one to discard,
            # unless it is the taken card's twin, which stays that turn) ...
            rest = list(state)
            rest[low] -= 1
            kept = _LEFTOVER if h.kinds[low] != include else 0
            for f, v in best(tuple(rest)).items():
                f |= kept
                if out.get(f, -1) < v:
                    out[f] = v
            # ... or melded, in a meld whose lowest card it is.
            for cand, need in h.by_lowest.get(low, ()):
                after = h.take(state, need)
                if after is None:
                    continue
                cf = facts(cand)
                for f, v in best(after).items():
                    f |= cf
                    v += cand.value
                    if out.get(f, -1) < v:
                        out[f] = v
        if memoise:
            memo[state] = out
        return out

    return best(h.start)


def ref_best_opening(
    hand: str | Sequence[str], params: Params, include: str | None = None, memoise: bool = True
) -> int | None:
    """The highest value of an opening of the hand under the variant's
    opening rule, or None when the hand cannot open. ``memoise=False`` gives
    the same answer by plain enumeration (see :func:`_opening_search`)."""
    cards = split_cards(hand)
    inc = split_cards([include])[0] if include is not None else None
    required = _MELD
    if params["open_requires_pure_run"]:
        required |= _PURE
    if params["must_discard_to_go_out"]:
        required |= _LEFTOVER
    if inc is not None:
        required |= _INCLUDE
    found = _opening_search(cards, params, inc, memoise)
    values = [v for f, v in found.items() if f & required == required]
    if not values:
        return None
    top = max(values)
    return top if top >= params["open_threshold"] else None


def _take_melds(hand: list[str], melds: Sequence[Sequence[str]]) -> list[str]:
    """The hand without the cards of the melds; fails when a meld card is not
    in the hand (so melds are disjoint and come from the hand)."""
    left = Counter(hand)
    for meld in melds:
        for c in meld:
            assert left[c] > 0, f"meld card {c} of {list(meld)} is not left in hand {hand}"
            left[c] -= 1
    return list(left.elements())


def check_opening(
    hand: str | Sequence[str],
    params: Params,
    value: int,
    melds: Sequence[Sequence[str]],
    include: str | None = None,
) -> None:
    """Asserts that the core's opening is a legal opening worth `value`."""
    cards = split_cards(hand)
    laid = [split_cards(m) for m in melds]
    assert laid, "an opening lays at least one meld"
    checked = []
    for m in laid:
        r = ref_validate(m, params)
        assert r is not None, f"opening meld {m} is not legal"
        checked.append(r)
    assert sum(r.value for r in checked) == value, f"melds {laid} are not worth {value}"
    left = _take_melds(cards, laid)
    assert value >= params["open_threshold"], f"opening {value} below the threshold"
    if params["open_requires_pure_run"]:
        assert any(r.pure for r in checked), f"opening {laid} lacks a pure run"
    if params["must_discard_to_go_out"]:
        assert left, f"opening {laid} keeps no card to discard"
        if include is not None:
            assert any(
                c != split_cards([include])[0] for c in left
            ), f"opening {laid} keeps only the twin of {include}, which may not be discarded"
    if include is not None:
        inc = split_cards([include])[0]
        assert any(inc in m for m in laid), f"opening {laid} does not use {inc}"


def ref_min_deadwood(hand: str | Sequence[str], params: Params) -> int:
    """The least penalty of the cards left over by any collection of disjoint
    melds of the hand."""
    cards = split_cards(hand)
    h = _Hand(cards, params)
    memo: dict[tuple[int, ...], int] = {}
    penalty = [card_penalty(c, params) for c in h.kinds]
    joker_penalty = int(params["joker_penalty"])

    def least(state: tuple[int, ...]) -> int:
        if state in memo:
            return memo[state]
        low = h.lowest(state)
        if low is None:
            out = state[-1] * joker_penalty
        else:
            rest = list(state)
            rest[low] -= 1
            out = penalty[low] + least(tuple(rest))
            for _cand, need in h.by_lowest.get(low, ()):
                after = h.take(state, need)
                if after is not None:
                    out = min(out, least(after))
        memo[state] = out
        return out

    return least(h.start)


def check_deadwood(
    hand: str | Sequence[str],
    params: Params,
    value: int,
    melds: Sequence[Sequence[str]],
    deadwood: Sequence[str],
) -> None:
    """Asserts that the core's melds are legal, come from the hand, and leave
    exactly `deadwood`, whose penalty is `value`."""
    cards = split_cards(hand)
    laid = [split_cards(m) for m in melds]
    for m in laid:
        assert ref_validate(m, params) is not None, f"deadwood meld {m} is not legal"
    left = _take_melds(cards, laid)
    assert Counter(left) == Counter(split_cards(deadwood)), f"{deadwood} is not what {laid} leave"
    assert hand_penalty(left, params) == value, f"deadwood {deadwood} does not cost {value}"


# ---------------------------------------------------------------- the table


def ref_layoffs(
    hand: str | Sequence[str], table: Sequence[str | Sequence[str]], params: Params
) -> dict[tuple[str, int, str], list[str]]:
    """(card, table meld index, end) -> the meld after laying the card off,
    for every distinct hand card and place that gives a legal meld."""
    out = {}
    melds = [split_cards(m) for m in table]
    for card in sorted(set(split_cards(hand)), key=lambda c: (c == JOKER, c)):
        for i, meld in enumerate(melds):
            r = ref_validate(meld, params)
            assert r is not None, f"table meld {meld} is not legal"
            places = [("start", [card, *meld]), ("end", [*meld, card])]
            if r.kind == "set":
                places = places[1:]
            for end, result in places:
                after = ref_validate(result, params)
                if after is not None and after.kind == r.kind:
                    out[(card, i, end)] = result
    return out


def ref_joker_swaps(
    hand: str | Sequence[str], table: Sequence[str | Sequence[str]], params: Params
) -> dict[tuple[str, int, int], list[str]]:
    """(card, table meld index, joker index) -> the meld after the swap, for
    every distinct natural hand card that a table joker stands for."""
    out = {}
    melds = [split_cards(m) for m in table]
    for card in set(split_cards(hand)) - {JOKER}:
        for i, meld in enumerate(melds):
            r = ref_validate(meld, params)
            assert r is not None, f"table meld {meld} is not legal"
            for j, cards in r.jokers.items():
                if card in cards:
                    result = list(meld)
                    result[j] = card
                    assert ref_validate(result, params) is not None, f"swap gives {result}"
                    out[(card, i, j)] = result
    return out
