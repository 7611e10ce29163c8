"""What a seat can ask for. A command is an intention; the engine validates it
against the rules and, if legal, turns it into events.

Cards are named by their id in the game's deck (``0..deck_size-1``, see
:func:`ramino.deck_cards`), table melds by their index in the order they were
laid (indices never change within a round). The class names are stable: they
are the ``type`` of a command in JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

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
    "Command",
    "COMMAND_TYPES",
]

End: TypeAlias = Literal["start", "end"]


@dataclass(frozen=True, slots=True)
class DrawFromStock:
    """Draw the top card of the stock."""


@dataclass(frozen=True, slots=True)
class TakeDiscard:
    """Take the top card of the discard pile."""


@dataclass(frozen=True, slots=True)
class TurnOverDiscardPile:
    """With ``stock_exhausted = turn_over`` and an empty stock: turn the discard
    pile over, unshuffled, as the new stock, and draw its first card."""


@dataclass(frozen=True, slots=True)
class LayMelds:
    """Lay one or more new melds, each an ordered list of card ids (a run in
    ascending order). Before a player has opened, this is the opening: all of
    its melds together must meet the opening rule."""

    melds: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class LayOff:
    """Add one card to a table meld, before its first card or after its last
    (a set takes the card at either end)."""

    card: int
    meld: int
    end: End = "end"


@dataclass(frozen=True, slots=True)
class SwapJoker:
    """Give the natural card that the table joker ``joker`` (a card id) stands
    for and take the joker, which must be laid in a new meld this turn."""

    card: int
    meld: int
    joker: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard one card, ending the turn (or the round, if it was the last)."""

    card: int


@dataclass(frozen=True, slots=True)
class Resign:
    """Leave the match. Allowed at any time, on one's turn or not."""


@dataclass(frozen=True, slots=True)
class PassUpcard:
    """Knocking play (gin): decline the first upcard; or, at the wall (the
    stock down to ``wall_stock_size``), decline the upcard, which ends the
    hand as a draw."""


@dataclass(frozen=True, slots=True)
class Knock:
    """Knocking play (gin): discard ``discard`` and lay the rest of the hand
    in ``melds`` (ordered lists of card ids), the cards left unmatched
    totalling at most ``knock_card``. ``discard`` is ``None`` only for big gin
    (all eleven cards melded, where ``big_gin`` is on)."""

    discard: int | None
    melds: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class AcceptLayout:
    """Knocking play (gin): the defender is done laying off and melding; the
    hand is scored."""


Command: TypeAlias = (
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

COMMAND_TYPES: dict[str, type[Command]] = {
    cls.__name__: cls
    for cls in (
        DrawFromStock,
        TakeDiscard,
        TurnOverDiscardPile,
        LayMelds,
        LayOff,
        SwapJoker,
        Discard,
        Resign,
        PassUpcard,
        Knock,
        AcceptLayout,
    )
}
