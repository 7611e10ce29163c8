"""The ratings store's records and protocol (its backends: ``memory``,
``sqlite``, ``redis``, beside this module).

A record is what the store keeps and answers: plain data, serialised as it
is written. The application's ``Rating`` (``ramino.app.quick.ratings``) is
:class:`RatingRecord` with the rating model's new player, made from a
record the store answers by one function."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from ramino import reasons
from ramino.errors import BadRequest

__all__ = [
    "BOARD_PAGE_MAX",
    "BUCKET_DIGITS",
    "HISTORY_KEPT",
    "BadPage",
    "BoardEntry",
    "BoardPage",
    "FinishedGame",
    "HistoryEntry",
    "RateFn",
    "RatingRecord",
    "RatingStore",
    "RatedSeat",
    "apply_game",
    "board_member",
    "check_page_size",
    "decode_board_token",
    "encode_board_token",
    "newest_first",
    "player_of",
]

HISTORY_KEPT = 100
"""A player's most recent games kept per variant (older ones are dropped)."""
BOARD_PAGE_MAX = 100
"""The most entries one leaderboard read answers."""
_SCORE_SPAN = 10**9
"""Scores are kept to a thousandth of a point, clamped to +-1,000,000 points."""
MAX_BOARD_TOKEN = 400
BUCKET_DIGITS = 7
"""A member's first 7 digits: its score to the whole point (sqlite's rank buckets)."""


class BadPage(BadRequest):
    """A leaderboard or history read with a page size out of bounds, or a
    page token no store made (INVALID_ARGUMENT)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, reasons.BAD_PAGE)


@dataclass(frozen=True, slots=True)
class RatingRecord:
    """A player's skill in one variant (Weng-Lin: a mean and its
    uncertainty), as the store keeps it."""

    mu: float
    sigma: float
    games: int = 0
    """Rated games played in the variant."""
    name: str = ""
    """The name the player last sat under."""

    @property
    def score(self) -> float:
        """What the leaderboard orders by: the conservative estimate
        ``mu - 3 sigma`` (OpenSkill's ordinal)."""
        return self.mu - 3 * self.sigma

    def __eq__(self, other: object) -> bool:
        # The application's rating is a record under a class of its own:
        # the same fields are the same rating, whichever class each is.
        if not isinstance(other, RatingRecord):
            return NotImplemented
        return self.to_list() == other.to_list()

    def to_list(self) -> list[Any]:
        return [self.mu, self.sigma, self.games, self.name]

    @classmethod
    def from_list(cls, data: Sequence[Any]) -> RatingRecord:
        return cls(float(data[0]), float(data[1]), int(data[2]), str(data[3]))


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """One seat of a finished game: ``rank`` 1 is the best, equal ranks are
    ties; ``player_id`` is empty for a bot or a person the server did not
    verify."""

    seat: int
    name: str
    player_id: str
    score: int
    rank: int
    lost: bool = False
    """Resigned, or its turn timer ran out and it never came back."""

    def to_list(self) -> list[Any]:
        return [self.seat, self.name, self.player_id, self.score, self.rank, self.lost]

    @classmethod
    def from_list(cls, data: Sequence[Any]) -> RatedSeat:
        return cls(
            int(data[0]), str(data[1]), str(data[2]), int(data[3]), int(data[4]), bool(data[5])
        )


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """What a finished game leaves in the ratings and the histories."""

    game_id: str
    variant: str
    finished_at: float
    rated: bool
    """Whether the game changes ratings (see ``ramino.app.quick.ratings``)."""
    seats: tuple[RatedSeat, ...]

    @property
    def players(self) -> list[str]:
        """The verified players of the game, in seat order, each once."""
        seen: list[str] = []
        for s in self.seats:
            if s.player_id and s.player_id not in seen:
                seen.append(s.player_id)
        return seen

    def to_json(self) -> str:
        return orjson.dumps(
            [
                self.game_id,
                self.variant,
                self.finished_at,
                self.rated,
                [s.to_list() for s in self.seats],
            ]
        ).decode()

    @classmethod
    def from_json(cls, text: str | bytes) -> FinishedGame:
        gid, variant, at, rated, seats = orjson.loads(text)
        return cls(
            str(gid),
            str(variant),
            float(at),
            bool(rated),
            tuple(RatedSeat.from_list(s) for s in seats),
        )


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One game in a player's history, with the player's rating before and
    after it (both ``None`` for a game that changed no rating)."""

    game: FinishedGame
    player_id: str
    before: RatingRecord | None
    after: RatingRecord | None

    def to_json(self) -> str:
        return orjson.dumps(
            [
                orjson.loads(self.game.to_json()),
                self.player_id,
                None if self.before is None else self.before.to_list(),
                None if self.after is None else self.after.to_list(),
            ]
        ).decode()

    @classmethod
    def from_json(cls, text: str | bytes) -> HistoryEntry:
        game, player, before, after = orjson.loads(text)
        return cls(
            FinishedGame.from_json(orjson.dumps(game)),
            str(player),
            None if before is None else RatingRecord.from_list(before),
            None if after is None else RatingRecord.from_list(after),
        )


@dataclass(frozen=True, slots=True)
class BoardEntry:
    rank: int
    """1 for the best; every entry has its own (ties are ordered by player id)."""
    player_id: str
    rating: RatingRecord


@dataclass(frozen=True, slots=True)
class BoardPage:
    entries: list[BoardEntry]
    next_page_token: str
    """Empty on the last page."""


RateFn = Callable[[dict[str, RatingRecord]], Mapping[str, RatingRecord]]
"""New ratings of a game's rated players from their current ones (a player
with no rating yet is absent from the argument)."""


def board_member(rating: RatingRecord, player_id: str) -> str:
    """The player's place on its variant's board as a string whose byte
    order is the board's: score descending, then player id descending."""
    milli = max(-_SCORE_SPAN, min(_SCORE_SPAN, round(rating.score * 1000)))
    return f"{_SCORE_SPAN - milli:010d}|{_descending(player_id)}"


def _descending(text: str) -> str:
    """``text`` as hex digits whose order is the reverse of its UTF-8 bytes'
    (each byte complemented, then a terminator above every digit, so that a
    prefix sorts after its extensions as it sorts before them ascending)."""
    return bytes(255 - b for b in text.encode()).hex() + "~"


def player_of(member: str) -> str:
    """The player id of a :func:`board_member`."""
    hexed = member.split("|", 1)[1].removesuffix("~")
    return bytes(255 - b for b in bytes.fromhex(hexed)).decode()


def encode_board_token(member: str) -> str:
    return base64.urlsafe_b64encode(member.encode()).decode()


def decode_board_token(token: str) -> str | None:
    """The member a page token stands for; ``None`` for the first page.
    Raises :class:`BadPage` (not quoting the token) on a token no store made."""
    if not token:
        return None
    bad = BadPage("bad page token: pass the next_page_token of a previous page")
    if len(token) > MAX_BOARD_TOKEN or not token.isascii():
        raise bad
    try:
        member = base64.urlsafe_b64decode(token.encode()).decode()
        head, sep, tail = member.partition("|")
        if not (sep and len(head) == 10 and head.isdigit() and tail.endswith("~")):
            raise ValueError
        player_of(member)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise bad from None
    return member


class RatingStore(Protocol):
    """Ratings, leaderboards and histories (memory, sqlite, redis)."""

    async def record(self, game: FinishedGame, rate: RateFn) -> bool:
        """Applies a finished game once: with ``game.rated``, the ratings
        ``rate`` gives its players (each one's games played counted), and a
        history entry for each of its verified players. True when this call
        applied it, False when the game id was recorded before (nothing
        changes)."""
        ...

    async def recorded(self, game_id: str) -> FinishedGame | None:
        """The game as recorded, if it was."""
        ...

    async def rating(self, variant: str, player_id: str) -> RatingRecord | None: ...

    async def rank(self, variant: str, player_id: str) -> int | None:
        """The player's place on the variant's board (1 for the best)."""
        ...

    async def top(self, variant: str, page_size: int, page_token: str = "") -> BoardPage:
        """The board from its top, ``page_size`` entries a page."""
        ...

    async def around(self, variant: str, player_id: str, page_size: int) -> BoardPage:
        """A page of the board with the player in its middle (empty for a
        player with no rating); its token goes on below it."""
        ...

    async def history(self, player_id: str, limit: int, variant: str = "") -> list[HistoryEntry]:
        """The player's most recent games (of one variant, or of all),
        newest first, at most ``limit`` (up to ``HISTORY_KEPT`` per variant)."""
        ...

    async def close(self) -> None: ...


def check_page_size(page_size: int) -> int:
    if not 1 <= page_size <= BOARD_PAGE_MAX:
        raise BadPage(f"page_size must be from 1 to {BOARD_PAGE_MAX}, not {page_size}")
    return page_size


def newest_first(entries: list[HistoryEntry], limit: int) -> list[HistoryEntry]:
    entries.sort(key=lambda h: (h.game.finished_at, h.game.game_id), reverse=True)
    return entries[:limit]


def apply_game(
    game: FinishedGame, current: dict[str, RatingRecord], rate: RateFn
) -> tuple[dict[str, RatingRecord], list[HistoryEntry]]:
    """The new ratings of a game's rated players (none for an unrated game)
    and each verified player's history entry."""
    new: dict[str, RatingRecord] = {}
    if game.rated:
        rated = rate(current)
        for player in game.players:
            after = rated[player]
            new[player] = RatingRecord(after.mu, after.sigma, after.games, after.name)
    history = [
        HistoryEntry(game, p, current.get(p) if p in new else None, new.get(p))
        for p in game.players
    ]
    return new, history
