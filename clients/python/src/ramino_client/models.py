"""What the server answers, as typed frozen values: cards, melds, the game as
one seat sees it, the lobby, legal moves and hints, and rules analyses.

Nothing here knows a rule of the game: the values only carry what the server
decided, with helpers to show it (a hand sorted and grouped by suit, card
names).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ramino_client.moves import Knock

__all__ = [
    "Suit",
    "BotLevel",
    "BotLevelInfo",
    "GameStatus",
    "TurnPhase",
    "MeldKind",
    "End",
    "Card",
    "JokerRole",
    "Meld",
    "MeldDescription",
    "TableMeld",
    "SeatInfo",
    "RoundScores",
    "ScorePart",
    "VariantInfo",
    "GameView",
    "LobbySeat",
    "GameSummary",
    "Opening",
    "Deadwood",
    "Hint",
    "MeldCheck",
    "LayOffTarget",
    "JokerSwapTarget",
    "HandAnalysis",
    "sort_cards",
    "group_by_suit",
]


class Suit(StrEnum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)


_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SUIT_ORDER = {Suit.SPADES: 0, Suit.HEARTS: 1, Suit.CLUBS: 2, Suit.DIAMONDS: 3}
_RANK_NAMES = {1: "Ace", 11: "Jack", 12: "Queen", 13: "King"}
_RANK_SHORT = {1: "A", 11: "J", 12: "Q", 13: "K"}
_RANKS = {
    **{str(n): n for n in range(2, 11)},
    **{v: k for k, v in _RANK_SHORT.items()},
    "T": 10,
}


class BotLevel(StrEnum):
    """Who plays a seat server-side. A person's seat has no level (``None``)."""

    RANDOM = "random"
    GREEDY = "greedy"
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"
    EXPERT = "expert"


class GameStatus(StrEnum):
    UNSPECIFIED = "unspecified"
    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"


class TurnPhase(StrEnum):
    UNSPECIFIED = "unspecified"
    DRAW = "draw"
    """Draw from the stock or take the discard."""
    PLAY = "play"
    """Meld, lay off, swap jokers, then discard."""
    NONE = "none"
    """Nobody's turn: between rounds, or the match is over."""
    LAYOFF = "layoff"
    """Gin, after a knock: the defender lays off, melds and accepts the layout."""


class MeldKind(StrEnum):
    UNSPECIFIED = "unspecified"
    SET = "set"
    RUN = "run"


class End(StrEnum):
    """Which end of a run a card is laid off at (a set takes it last)."""

    FIRST = "first"
    LAST = "last"

    @classmethod
    def parse(cls, value: End | str) -> End:
        """``first``/``start``/``low`` or ``last``/``end``/``high``."""
        if isinstance(value, End):
            return value
        text = value.strip().lower()
        if text in ("first", "start", "low", "begin"):
            return cls.FIRST
        if text in ("last", "end", "high", ""):
            return cls.LAST
        raise ValueError(f"an end is first or last, not {value!r}")


@dataclass(frozen=True, slots=True)
class Card:
    """A card; ``id`` names the physical card inside a game (two decks hold
    two of each), ``None`` outside one."""

    code: str
    """Card notation: ``"AS"``, ``"TH"``, ``"JK"``."""
    rank: int
    """1 (ace) to 13 (king); 0 for a joker."""
    suit: Suit | None
    joker: bool = False
    id: int | None = None

    def __str__(self) -> str:
        return self.code

    @classmethod
    def from_code(cls, code: str, card_id: int | None = None) -> Card:
        """A card from its notation: ``"AS"``, ``"TH"`` (or ``"10H"``), ``"JK"``."""
        text = code.strip().upper()
        if text in ("JK", "JOKER"):
            return cls("JK", 0, None, True, card_id)
        rank_text, suit_text = text[:-1], text[-1:]
        rank = _RANKS.get(rank_text)
        if rank is None or suit_text not in Suit.__members__.values():
            raise ValueError(f"not a card: {code!r}")
        short = "T" if rank == 10 else rank_text
        return cls(short + suit_text, rank, Suit(suit_text), False, card_id)

    @property
    def rank_label(self) -> str:
        """``A``, ``2`` ... ``10``, ``J``, ``Q``, ``K``; ``JK`` for a joker."""
        if self.joker:
            return "JK"
        return _RANK_SHORT.get(self.rank, str(self.rank))

    @property
    def symbol(self) -> str:
        """Short with the suit's sign: ``A♠``, ``10♥``; ``JK`` for a joker."""
        if self.joker or self.suit is None:
            return "JK"
        return self.rank_label + self.suit.symbol

    @property
    def name(self) -> str:
        """In words: ``Ace of Spades``, ``10 of Hearts``, ``Joker``."""
        if self.joker or self.suit is None:
            return "Joker"
        return f"{_RANK_NAMES.get(self.rank, str(self.rank))} of {self.suit.name.title()}"

    @property
    def sort_key(self) -> tuple[int, int, int]:
        """Suits in a fixed order (alternating colours), ranks ascending, jokers last."""
        if self.joker or self.suit is None:
            return (len(_SUIT_ORDER), 0, self.id or 0)
        return (_SUIT_ORDER[self.suit], self.rank, self.id or 0)


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: c.sort_key))


def group_by_suit(cards: Iterable[Card]) -> dict[Suit | None, tuple[Card, ...]]:
    """Sorted cards by suit, suits in display order; jokers under ``None``, last."""
    groups: dict[Suit | None, list[Card]] = {}
    for c in sort_cards(cards):
        groups.setdefault(None if c.joker else c.suit, []).append(c)
    return {k: tuple(v) for k, v in groups.items()}


@dataclass(frozen=True, slots=True)
class JokerRole:
    index: int
    """Position of the joker in the meld's cards."""
    stands_for: tuple[str, ...]
    """The natural cards it stands for, in notation."""


@dataclass(frozen=True, slots=True)
class MeldDescription:
    """What the server decided of a meld an event laid or changed (a
    :class:`Meld` without its cards, which the event names by id)."""

    kind: MeldKind
    value: int
    jokers: tuple[JokerRole, ...] = ()
    closed: bool = False
    """A set of four: nothing can be added."""
    pure: bool = False
    """A run without a joker."""


@dataclass(frozen=True, slots=True)
class Meld:
    kind: MeldKind
    value: int
    cards: tuple[Card, ...]
    jokers: tuple[JokerRole, ...] = ()
    closed: bool = False
    """A set of four: nothing can be added."""
    pure: bool = False
    """A run without a joker."""

    def __str__(self) -> str:
        return " ".join(c.code for c in self.cards)

    @property
    def card_ids(self) -> tuple[int, ...]:
        return tuple(c.id for c in self.cards if c.id is not None)

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(c.code for c in self.cards)


@dataclass(frozen=True, slots=True)
class TableMeld:
    index: int
    owner: int
    """The seat that laid it."""
    meld: Meld


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    player_name: str
    bot: BotLevel | None
    taken: bool
    hand_size: int = 0
    opened: bool = False
    total: int = 0
    """Match total so far."""
    resigned: bool = False
    timed_out: bool = False

    @property
    def label(self) -> str:
        return self.player_name or f"seat {self.seat}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ScorePart:
    """One part of a seat's score, as the server decided it: ``kind`` is the
    ``ScorePartKind`` in lower case without its prefix (``went_out``,
    ``never_opened``, ``hand_collected``, ``undercut_bonus``, ``box_bonus``...),
    ``points`` what it adds (negative: takes off); ``base``, ``factor`` and
    ``seat`` what it was worked from, where its kind says so (the proto's
    ``ScorePart``)."""

    kind: str
    points: int
    base: int = 0
    factor: int = 0
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class RoundScores:
    round: int
    scores: tuple[int, ...]
    winner: int | None
    ending: str
    """``went_out``, ``stock_exhausted`` or ``resignations``."""
    parts: tuple[tuple[ScorePart, ...], ...] = ()
    """Each seat's score's parts, summing to its score (empty from a server
    that did not say)."""


@dataclass(frozen=True, slots=True)
class VariantInfo:
    name: str
    parameters: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BotLevelInfo:
    """A bot level as a person picking it sees it (``list_bot_levels``)."""

    level: BotLevel
    description: str
    time_ms: float
    """Its time a decision on the server; 0 for a level that does not search."""
    rating: float
    """Its place on one scale for every level: mu - 3 sigma (OpenSkill, from
    the server's arena of the levels, each against each other)."""
    rating_mu: float
    rating_sigma: float


@dataclass(frozen=True, slots=True)
class GameView:
    """The game as one viewer (a seat, or a spectator) may see it."""

    name: str
    version: int
    status: GameStatus
    variant: VariantInfo
    seat: int | None
    """The viewer's seat; ``None`` for a spectator."""
    hand: tuple[Card, ...]
    """The viewer's hand in the server's order; see :meth:`sorted_hand`."""
    seats: tuple[SeatInfo, ...]
    table: tuple[TableMeld, ...]
    discard_pile: tuple[Card, ...]
    """Bottom first, top last."""
    stock_size: int
    turn: int | None
    phase: TurnPhase
    round: int
    dealer: int
    seed_hash: str
    seed: str
    """Revealed once the game has ended."""
    winners: tuple[int, ...]
    turn_timer_seconds: int
    turn_deadline: dt.datetime | None
    rounds: tuple[RoundScores, ...]
    spectators_disabled: bool = False
    """Only seats may watch the game."""
    end_reason: str = ""
    """Why the game ended before its match did: ``"abandoned"`` or
    ``"cancelled"``; empty otherwise."""
    fixed_deal: bool = False
    """Created by a server in test mode: its deals were known in advance,
    it is not a fair game."""
    knocker: int | None = None
    """Gin: the seat that knocked, while the defender plays."""

    @property
    def game_id(self) -> str:
        return self.name.partition("/")[2]

    @property
    def finished(self) -> bool:
        return self.status is GameStatus.FINISHED

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.turn == self.seat

    @property
    def me(self) -> SeatInfo | None:
        return None if self.seat is None else self.seats[self.seat]

    @property
    def discard_top(self) -> Card | None:
        return self.discard_pile[-1] if self.discard_pile else None

    def sorted_hand(self) -> tuple[Card, ...]:
        return sort_cards(self.hand)

    def hand_by_suit(self) -> dict[Suit | None, tuple[Card, ...]]:
        return group_by_suit(self.hand)

    def totals(self) -> tuple[int, ...]:
        return tuple(s.total for s in self.seats)

    def card(self, card_id: int) -> Card | None:
        """A card this view shows (hand, table or discard pile) by its id."""
        for c in self.visible_cards():
            if c.id == card_id:
                return c
        return None

    def visible_cards(self) -> tuple[Card, ...]:
        table = tuple(c for m in self.table for c in m.meld.cards)
        return (*self.hand, *table, *self.discard_pile)


@dataclass(frozen=True, slots=True)
class LobbySeat:
    seat: int
    player_name: str
    bot: BotLevel | None
    taken: bool


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A game in the lobby."""

    name: str
    variant: str
    status: GameStatus
    seats: tuple[LobbySeat, ...]
    open_seats: int
    version: int
    seed_hash: str
    turn_timer_seconds: int
    create_time: dt.datetime | None
    spectators_disabled: bool = False
    """Only seats may watch the game."""
    creator_token: str | None = None
    """Set only in what ``create_game`` returns: the token that cancels the
    game (``cancel_game``). Keep it secret; it is not a seat token."""
    fixed_deal: bool = False
    """Created by a server in test mode: its deals were known in advance,
    it is not a fair game."""
    private: bool = False
    """Never listed; joined only with its invite code (``join_invite``)."""
    rated: bool = False
    """Its end changes its players' ratings, as a rated quick-play game's does."""
    quick_play: bool = False
    """Quick-play tickets of its queue may take its open seats."""
    invite_code: str | None = None
    """Set only in what ``create_game`` returns for a private game: the code
    to share (or its link, :func:`~ramino_client.invite_link`). It opens the
    game until the game is dealt."""

    @property
    def game_id(self) -> str:
        return self.name.partition("/")[2]


@dataclass(frozen=True, slots=True)
class Opening:
    value: int
    melds: tuple[Meld, ...]


@dataclass(frozen=True, slots=True)
class Deadwood:
    value: int
    """Penalty of the cards left over."""
    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Hint:
    """From the meld search on the caller's hand."""

    best_opening: Opening | None
    """``None`` when the hand cannot open, or has opened."""
    min_deadwood: Deadwood | None
    suggested_discard: Card | None
    best_knock: Knock | None = None
    """Gin: the knock with the least unmatched total, when the caller may knock."""


@dataclass(frozen=True, slots=True)
class MeldCheck:
    valid: bool
    meld: Meld | None
    reason: str
    """Why not, when not valid: a stable code such as ``GAP``."""
    message: str


@dataclass(frozen=True, slots=True)
class LayOffTarget:
    card: Card
    meld_index: int
    end: End


@dataclass(frozen=True, slots=True)
class JokerSwapTarget:
    card: Card
    meld_index: int
    joker_index: int


@dataclass(frozen=True, slots=True)
class HandAnalysis:
    best_opening: Opening | None
    min_deadwood: Deadwood
    lay_offs: tuple[LayOffTarget, ...]
    joker_swaps: tuple[JokerSwapTarget, ...]
    penalty: int
