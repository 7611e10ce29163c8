"""The deck of a game: card ids, seeds per round, the deal, stacked decks.

Seeds. A game has one secret seed (an integer ``0 <= seed < 2**256``). Round
``r`` (from 1) is dealt from ``ramino.shuffle(round_seed(seed, r), deck_size)``
and the ``k``-th reshuffle of its stock (from 1) permutes the cards with
``reshuffle_seed(seed, r, k)``. The kernel derives both beside its shuffle
(``core_rs/ramino-core/src/shuffle.rs``: the SHA-256 of a fixed label, the
game seed and the numbers); both steps are fixed algorithms, so a record
replays on any platform.

The deal. The deck order is dealt from its first card, one card at a time,
clockwise from the first player (left of the dealer); the first player's extra
cards come after the round-robin; then the upcard (where the variant turns
one); the rest is the stock, the next card on top.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import ramino
from ramino import reasons
from ramino._core import derive_seed

from tests.engine_reference.errors import InvalidSetup

__all__ = ["SEED_LIMIT", "round_seed", "reshuffle_seed", "Deal", "deal", "stack_deck"]

SEED_LIMIT = 2**256


def round_seed(seed: int, round_number: int) -> int:
    """The shuffle seed of round ``round_number`` (from 1) of a game."""
    return derive_seed(seed, round_number)


def reshuffle_seed(seed: int, round_number: int, rebuild: int) -> int:
    """The seed of the ``rebuild``-th (from 1) reshuffle of the stock in a round."""
    if rebuild < 1:
        raise ValueError(f"reshuffles are counted from 1, got {rebuild}")
    return derive_seed(seed, round_number, rebuild)


def _slots(players: int, size: int, extra: int) -> list[int]:
    """Which hand (0 = first player) each dealt card goes to, in deal order."""
    return [p for _ in range(size) for p in range(players)] + [0] * extra


@dataclass(frozen=True, slots=True)
class Deal:
    hands: list[list[int]]
    """Hands in turn order, the first player's first."""
    upcard: int | None
    stock: list[int]
    """Top card last."""


def deal(order: Sequence[int], players: int, size: int, extra: int, upcard: bool) -> Deal:
    """Deals ``order`` (a permutation of card ids) to ``players`` hands."""
    hands: list[list[int]] = [[] for _ in range(players)]
    slots = _slots(players, size, extra)
    for p, card in zip(slots, order, strict=False):
        hands[p].append(card)
    rest = list(order[len(slots) :])
    up = rest.pop(0) if upcard else None
    rest.reverse()
    return Deal(hands, up, rest)


def stack_deck(
    variant: ramino.Variant | str,
    hands: Sequence[str | Sequence[str]],
    *,
    upcard: str | None = None,
    stock: str | Sequence[str] = (),
) -> list[int]:
    """A deck order that deals exactly ``hands`` (in turn order, the first
    player's first), then ``upcard``, then ``stock`` from its top card down.
    The remaining cards go to the bottom of the stock in id order. For tests
    and puzzles: pass it to :meth:`ramino.engine.Game.new` as ``decks=[...]``.
    """
    v = ramino.Variant(variant) if isinstance(variant, str) else variant
    cards = [str(c) for c in ramino.deck_cards(v)]
    free: dict[str, list[int]] = {}
    for i, name in enumerate(cards):
        free.setdefault(name, []).append(i)

    def take(name: str) -> int:
        ids = free.get(name)
        if not ids:
            raise InvalidSetup(f"no {name} left in the deck", reasons.BAD_DECK)
        return ids.pop(0)

    def parse(text: str | Sequence[str]) -> list[str]:
        return [str(c) for c in ramino.parse_cards(text)]

    parsed = [parse(h) for h in hands]
    if not parsed:
        raise InvalidSetup("no hands to stack", reasons.BAD_DECK)
    size = len(parsed[-1])
    extra = len(parsed[0]) - size
    if (
        v.hand_size(len(parsed)) != size
        or extra != v.first_player_extra_cards
        or any(len(h) != size for h in parsed[1:])
    ):
        raise InvalidSetup(
            f"{len(parsed)} players are dealt {v.hand_size(len(parsed))} cards each "
            f"(the first player {v.first_player_extra_cards} more)",
            reasons.BAD_DECK,
        )
    ids = [[take(c) for c in h] for h in parsed]
    order: list[int] = []
    cursor = [0] * len(ids)
    for p in _slots(len(ids), size, extra):
        order.append(ids[p][cursor[p]])
        cursor[p] += 1
    if upcard is not None:
        order.append(take(str(ramino.Card(upcard))))
    order.extend(take(c) for c in parse(stock))
    used = set(order)
    order.extend(i for i in range(len(cards)) if i not in used)
    return order
