"""Helpers for the engine tests: stacked deals and commands by card name."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import ramino
from ramino.bots import make_bot
from ramino.engine import (
    Command,
    Discard,
    Event,
    Game,
    IllegalMove,
    LayMelds,
    LayOff,
    SwapJoker,
    stack_deck,
)
from ramino.engine.context import Override


def stacked(
    variant: str,
    hands: Sequence[str],
    *,
    stock: str = "",
    upcard: str | None = None,
    overrides: Mapping[str, Override] | None = None,
    seed: int = 7,
    later_decks: Sequence[Sequence[int]] = (),
) -> Game:
    """A game whose first round deals ``hands`` to seats 0, 1, ... (seat 0
    plays first: the first dealer is the last seat)."""
    v = ramino.Variant(variant, **dict(overrides or {}))
    deck = stack_deck(v, hands, upcard=upcard, stock=stock)
    names = [f"p{i}" for i in range(len(hands))]
    return Game.new(variant, names, seed=seed, overrides=overrides, decks=[deck, *later_decks])


def names_of(game: Game, ids: Iterable[int]) -> list[str]:
    return [game.rules.names[c] for c in ids]


def hand_names(game: Game, seat: int) -> list[str]:
    return names_of(game, game.state.seats[seat].hand)


def ids(game: Game, seat: int, cards: str) -> tuple[int, ...]:
    """Ids in ``seat``'s hand of the cards named (each id used once)."""
    hand = list(game.state.seats[seat].hand)
    out: list[int] = []
    for name in (str(c) for c in ramino.parse_cards(cards)):
        match = next(c for c in hand if game.rules.names[c] == name and c not in out)
        out.append(match)
    return tuple(out)


def card(game: Game, seat: int, name: str) -> int:
    return ids(game, seat, name)[0]


def melds(game: Game, seat: int, *texts: str) -> LayMelds:
    used: list[int] = []
    out = []
    for text in texts:
        hand = [c for c in game.state.seats[seat].hand if c not in used]
        m: list[int] = []
        for name in (str(c) for c in ramino.parse_cards(text)):
            c = next(c for c in hand if game.rules.names[c] == name and c not in m)
            m.append(c)
        used.extend(m)
        out.append(tuple(m))
    return LayMelds(tuple(out))


def discard(game: Game, seat: int, name: str) -> Discard:
    return Discard(card(game, seat, name))


def lay_off(game: Game, seat: int, name: str, meld: int, end: str = "end") -> LayOff:
    return LayOff(card(game, seat, name), meld, end)  # type: ignore[arg-type]


def table_joker(game: Game, meld: int) -> int:
    return next(iter(game.state.melds[meld].jokers))


def swap(game: Game, seat: int, name: str, meld: int) -> SwapJoker:
    return SwapJoker(card(game, seat, name), meld, table_joker(game, meld))


def reason_of(game: Game, seat: int, command: Command) -> str:
    """The reason ``command`` is refused; asserts that nothing changed."""
    before = game.record.to_json()
    state_before = repr(game.state)
    try:
        game.apply(seat, command)
    except IllegalMove as e:
        assert game.record.to_json() == before
        assert repr(game.state) == state_before
        return e.reason
    raise AssertionError(f"{command} was accepted")


def play_out(game: Game, kinds: Sequence[str], seed: int = 0, max_commands: int = 100_000) -> None:
    """Bots finish the game."""
    bots = [make_bot(k, seed + i) for i, k in enumerate(kinds)]
    n = 0
    while not game.finished:
        seat = game.state.turn
        game.apply(seat, bots[seat].choose(game, seat))
        n += 1
        assert n < max_commands, "the game does not end"


def last_of(events: Sequence[Event], kind: type) -> Event:
    return next(e for e in reversed(events) if isinstance(e, kind))
