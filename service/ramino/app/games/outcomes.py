"""What a move or a question about a game answers, in the game's own terms.

The application layer returns these values and the transport
(``ramino.api``) encodes them after the game's lock, once. Everything here
that a viewer sees has passed the engine's viewer filter
(:mod:`ramino.engine.seen`): the events and the view of a move are
``Seen`` values, projected for the mover as for anyone else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import ramino
from ramino.app.hosted import HostedGame
from ramino.app.log import GameCreated
from ramino.engine import Command, Event, Knock, LayMelds, Seen, View, see_view
from ramino.engine.hint import Hint as EngineHint
from ramino.engine.hint import knock_unmatched

__all__ = [
    "Hint",
    "Melds",
    "LegalMoves",
    "SeenGame",
    "MoveOutcome",
    "KeptAnswer",
    "seen_game",
    "legal_moves",
    "with_hint",
]


@dataclass(frozen=True, slots=True)
class Melds:
    """Melds to lay (by card code), and their meld value."""

    value: int
    melds: list[list[str]]


@dataclass(frozen=True, slots=True)
class Hint:
    """The meld search on a seat's hand (cards by code and id)."""

    opening: Melds | None
    """The melds to lay (:attr:`ramino.engine.Hint.melds`): the best opening
    while the seat has not opened (and can), the melds of the least deadwood
    once it has."""
    deadwood: ramino.Deadwood
    discard: tuple[str, int]
    """The discard to make, by the engine's one discard policy."""
    knock: tuple[Knock, int] | None
    """Gin: the knock with the least unmatched total, and that total."""


@dataclass(frozen=True, slots=True)
class LegalMoves:
    """The moves a seat may make at ``version``: each command with its value
    (the meld value of a LayMelds, the unmatched total of a Knock, else 0)."""

    version: int
    moves: tuple[tuple[Command, int], ...]
    hint: Hint | None
    """Absent when the seat holds no card, or when it was not asked for
    (:attr:`hinted`)."""
    turn: int | None = None
    """Whose turn it is at ``version`` (None: no seat is to play)."""
    hinted: bool = True
    """Whether :attr:`hint` was made (a session that did not ask for hints
    gets moves whose hint was never searched)."""
    seen: SeenGame | None = None
    """The seat's view at ``version``, taken with the moves under the
    game's lock when a session asked for it (``option_views``): pushed with
    them, so that the seat's policy sees the table they are for."""


@dataclass(frozen=True, slots=True)
class SeenGame:
    """A hosted game at one version as one viewer may see it: the engine's
    view for the viewer and the service's public facts, taken at once (so
    that what is encoded later, after the game's lock, is that version)."""

    game_id: str
    header: GameCreated
    """The game's header without its secret seed."""
    viewer: int | None
    version: int
    status: str
    players: tuple[str | None, ...]
    timed_out: frozenset[int]
    last_at: float
    ended: str | None
    view: Seen[View] | None
    """None before the deal."""
    seed: int | None
    """The secret seed, revealed once the match is over."""


@dataclass(frozen=True, slots=True)
class MoveOutcome:
    """What one move did, as the seat that made it sees it."""

    version: int
    """The game's version after the move."""
    header: GameCreated
    """The game's header without its secret seed."""
    turn: int | None
    """Whose turn it is after the move (None: no seat is to play)."""
    game: SeenGame | None
    """The game after the move, for the mover (None: not asked for, as a
    session's answer without views)."""
    events: tuple[Seen[Event], ...]
    """The engine's events of the move, projected for the mover; the last
    is at :attr:`version`."""
    legal: LegalMoves | None
    """While the turn is still the mover's: its next moves and the hint."""
    turns: tuple[int | None, ...] = ()
    """Whose turn it was after each of ``events``."""


@dataclass(frozen=True, slots=True)
class KeptAnswer:
    """The answer to a request id as a server before this one kept it: the
    transport's own bytes, given back as they were kept."""

    data: bytes


def seen_game(game: HostedGame, viewer: int | None, view: Seen[View] | None = None) -> SeenGame:
    """``game`` now as ``viewer`` (a seat, or None for a spectator) may see
    it (``view``: the viewer's, when the caller has it)."""
    engine = game.engine
    if engine is not None and view is None:
        view = see_view(engine, viewer)
    return SeenGame(
        game.game_id,
        game.public_header(),
        viewer,
        game.version,
        game.status,
        tuple(game.players),
        frozenset(game.timed_out),
        game.last_at,
        game.ended,
        view,
        game.header.seed if engine is not None and engine.finished else None,
    )


def legal_moves(game: HostedGame, seat: int, hint: bool = True) -> LegalMoves:
    """``seat``'s legal moves in ``game`` and, with ``hint``, the hint on
    its hand (its searches take milliseconds on a large hand: see
    ``POOLED_HAND``)."""
    engine = game.engine
    assert engine is not None
    rules = engine.rules
    variant = rules.variant
    deck = rules.names
    legal = engine.legal_moves(seat)
    moves: list[tuple[Command, int]] = []
    for m in legal:
        value = 0
        if isinstance(m, LayMelds):
            value = sum(ramino.validate_meld([deck[c] for c in x], variant).value for x in m.melds)
        elif isinstance(m, Knock):
            value = knock_unmatched(rules, list(engine.hand(seat)), m)
        moves.append((m, value))
    found = engine.hint(seat, legal) if hint else None
    return LegalMoves(game.version, tuple(moves), _hint(deck, found), engine.turn, hint)


def with_hint(game: HostedGame, seat: int, legal: LegalMoves) -> LegalMoves:
    """``legal`` (made without the hint, at ``game``'s version) with it."""
    engine = game.engine
    assert engine is not None and legal.version == game.version
    found = engine.hint(seat, [m for m, _ in legal.moves])
    return dataclasses.replace(legal, hint=_hint(engine.rules.names, found), hinted=True)


def _hint(deck: Sequence[str], found: EngineHint | None) -> Hint | None:
    if found is None:
        return None
    melds = [[deck[c] for c in m] for m in found.melds]
    return Hint(
        Melds(found.melds_value, melds) if melds else None,
        found.deadwood,
        (deck[found.discard], found.discard),
        None if found.knock is None else (found.knock, found.knock_unmatched),
    )
