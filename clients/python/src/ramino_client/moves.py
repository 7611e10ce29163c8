"""Moves a seat can make, shaped like the requests that make them.

:meth:`Seat.legal_moves <ramino_client.Seat.legal_moves>` returns these, and
:meth:`Seat.play <ramino_client.Seat.play>` takes any of them, so a client can
pick one of the server's legal moves and send it back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from ramino_client.events import Event
from ramino_client.models import End, GameView, Hint

__all__ = [
    "DrawFromStock",
    "TakeDiscard",
    "TurnOverDiscardPile",
    "LayMelds",
    "LayOff",
    "SwapJoker",
    "Discard",
    "Resign",
    "PassUpcard",
    "Knock",
    "AcceptLayout",
    "Move",
    "LegalMoves",
    "MoveResult",
]


@dataclass(frozen=True, slots=True)
class DrawFromStock:
    pass


@dataclass(frozen=True, slots=True)
class TakeDiscard:
    pass


@dataclass(frozen=True, slots=True)
class TurnOverDiscardPile:
    pass


@dataclass(frozen=True, slots=True)
class LayMelds:
    melds: tuple[tuple[int, ...], ...]
    """Card ids of each meld, in meld order (a run ascending)."""
    value: int = 0
    """Their total meld value, when the server proposed them."""


@dataclass(frozen=True, slots=True)
class LayOff:
    card_id: int
    meld_index: int
    end: End = End.LAST


@dataclass(frozen=True, slots=True)
class SwapJoker:
    card_id: int
    """The natural card given for the joker."""
    meld_index: int
    joker_id: int
    """The table joker's card id."""


@dataclass(frozen=True, slots=True)
class Discard:
    card_id: int


@dataclass(frozen=True, slots=True)
class Resign:
    pass


@dataclass(frozen=True, slots=True)
class PassUpcard:
    """Gin: decline the first upcard, or the upcard at the wall (a draw)."""


@dataclass(frozen=True, slots=True)
class Knock:
    """Gin: discard ``discard_card_id`` (``None``: big gin) and lay ``melds``."""

    discard_card_id: int | None
    melds: tuple[tuple[int, ...], ...]
    deadwood: int = 0
    """The unmatched total the knock shows, when the server proposed it."""


@dataclass(frozen=True, slots=True)
class AcceptLayout:
    """Gin: the defender is done laying off and melding."""


Move: TypeAlias = (
    DrawFromStock
    | TakeDiscard
    | TurnOverDiscardPile
    | LayMelds
    | LayOff
    | SwapJoker
    | Discard
    | Resign
    | PassUpcard
    | Knock
    | AcceptLayout
)


@dataclass(frozen=True, slots=True)
class LegalMoves:
    """The moves the seat may make now (empty when it is not its turn;
    resigning is always possible and not listed), at ``version``."""

    version: int
    moves: tuple[Move, ...]
    hint: Hint | None

    @property
    def draws(self) -> tuple[Move, ...]:
        return tuple(
            m
            for m in self.moves
            if isinstance(m, DrawFromStock | TakeDiscard | TurnOverDiscardPile)
        )

    @property
    def melds(self) -> tuple[LayMelds, ...]:
        return tuple(m for m in self.moves if isinstance(m, LayMelds))

    @property
    def lay_offs(self) -> tuple[LayOff, ...]:
        return tuple(m for m in self.moves if isinstance(m, LayOff))

    @property
    def swaps(self) -> tuple[SwapJoker, ...]:
        return tuple(m for m in self.moves if isinstance(m, SwapJoker))

    @property
    def discards(self) -> tuple[Discard, ...]:
        return tuple(m for m in self.moves if isinstance(m, Discard))

    @property
    def knocks(self) -> tuple[Knock, ...]:
        """Gin: the knocks, the least unmatched total first."""
        return tuple(m for m in self.moves if isinstance(m, Knock))


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What a move did: its events as the mover sees them, and the mover's view
    after it; while the turn is still the mover's, also its legal moves (as
    :meth:`Seat.legal_moves <ramino_client.Seat.legal_moves>` would answer),
    otherwise ``legal_moves`` is None."""

    events: tuple[Event, ...]
    view: GameView
    legal_moves: LegalMoves | None = None

    @property
    def version(self) -> int:
        return self.view.version
