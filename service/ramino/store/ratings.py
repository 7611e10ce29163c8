"""Ratings, leaderboards and players' histories, kept beside the games.

A finished game is recorded once, by its game id, on every store: the first
:meth:`RatingStore.record` of a game id applies it (the new ratings of its
rated players, each player's history entry) in one atomic step; every later
one, from any replica, changes nothing and answers ``False``. The new ratings
are computed by the caller's ``rate`` from the ratings read in that same step
(a compare-and-set on a shared store: a rating changed meanwhile by another
game makes the store read and rate again), so two games of one player
finishing at once on two replicas both count.

The leaderboard of a variant orders players by :attr:`Rating.score`, highest
first, and players of equal score by player id (descending, as Redis orders
equal scores). Each player has one *member* string whose byte order is that
order (:func:`board_member`); a page token is the member of a page's last
entry, so the next page starts strictly after it: paging never repeats nor
skips an entry whose rating did not change meanwhile.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import orjson

__all__ = [
    "BOARD_PAGE_MAX",
    "HISTORY_KEPT",
    "BoardEntry",
    "BoardPage",
    "FinishedGame",
    "HistoryEntry",
    "MemoryRatings",
    "RateFn",
    "Rating",
    "RatingStore",
    "RatedSeat",
    "SqliteRatings",
    "board_member",
    "ratings_beside",
    "decode_board_token",
    "encode_board_token",
]

T = TypeVar("T")

HISTORY_KEPT = 100
"""A player's most recent games kept per variant (older ones are dropped)."""
BOARD_PAGE_MAX = 100
"""The most entries one leaderboard read answers."""
_SCORE_SPAN = 10**9
"""Scores are kept to a thousandth of a point, clamped to +-1,000,000 points."""
MAX_BOARD_TOKEN = 400
BUCKET_DIGITS = 7
"""A member's first 7 digits: its score to the whole point (sqlite's rank buckets)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's skill in one variant (Weng-Lin: a mean and its uncertainty)."""

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

    def to_list(self) -> list[Any]:
        return [self.mu, self.sigma, self.games, self.name]

    @classmethod
    def from_list(cls, data: Sequence[Any]) -> Rating:
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
    """Whether the game changes ratings (see ``ramino.app.ratings``)."""
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
    before: Rating | None
    after: Rating | None

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
            None if before is None else Rating.from_list(before),
            None if after is None else Rating.from_list(after),
        )


@dataclass(frozen=True, slots=True)
class BoardEntry:
    rank: int
    """1 for the best; every entry has its own (ties are ordered by player id)."""
    player_id: str
    rating: Rating


@dataclass(frozen=True, slots=True)
class BoardPage:
    entries: list[BoardEntry]
    next_page_token: str
    """Empty on the last page."""


RateFn = Callable[[dict[str, Rating]], dict[str, Rating]]
"""New ratings of a game's rated players from their current ones (a player
with no rating yet is absent from the argument)."""


def board_member(rating: Rating, player_id: str) -> str:
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
    Raises ``ValueError`` (not quoting the token) on a token no store made."""
    if not token:
        return None
    bad = ValueError("bad page token: pass the next_page_token of a previous page")
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

    async def rating(self, variant: str, player_id: str) -> Rating | None: ...

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
        raise ValueError(f"page_size must be from 1 to {BOARD_PAGE_MAX}, not {page_size}")
    return page_size


def newest_first(entries: list[HistoryEntry], limit: int) -> list[HistoryEntry]:
    entries.sort(key=lambda h: (h.game.finished_at, h.game.game_id), reverse=True)
    return entries[:limit]


def apply_game(
    game: FinishedGame, current: dict[str, Rating], rate: RateFn
) -> tuple[dict[str, Rating], list[HistoryEntry]]:
    """The new ratings of a game's rated players (none for an unrated game)
    and each verified player's history entry."""
    new: dict[str, Rating] = {}
    if game.rated:
        rated = rate(current)
        for player in game.players:
            after = rated[player]
            new[player] = Rating(after.mu, after.sigma, after.games, after.name)
    history = [
        HistoryEntry(game, p, current.get(p) if p in new else None, new.get(p))
        for p in game.players
    ]
    return new, history


@dataclass
class _Board:
    members: list[str] = field(default_factory=list)
    ratings: dict[str, Rating] = field(default_factory=dict)
    history: dict[str, list[HistoryEntry]] = field(default_factory=dict)


class MemoryRatings:
    """Ratings in this process's memory (tests, the memory store)."""

    def __init__(self) -> None:
        self._boards: dict[str, _Board] = {}
        self._recorded: dict[str, FinishedGame] = {}

    async def record(self, game: FinishedGame, rate: RateFn) -> bool:
        if game.game_id in self._recorded:
            return False
        board = self._boards.setdefault(game.variant, _Board())
        current = {p: board.ratings[p] for p in game.players if p in board.ratings}
        new, history = apply_game(game, current, rate)
        for player, rating in new.items():
            old = board.ratings.get(player)
            if old is not None:
                board.members.remove(board_member(old, player))
            bisect.insort(board.members, board_member(rating, player))
            board.ratings[player] = rating
        for h in history:
            kept = board.history.setdefault(h.player_id, [])
            kept.append(h)
            del kept[:-HISTORY_KEPT]
        self._recorded[game.game_id] = game
        return True

    async def recorded(self, game_id: str) -> FinishedGame | None:
        return self._recorded.get(game_id)

    async def rating(self, variant: str, player_id: str) -> Rating | None:
        board = self._boards.get(variant)
        return None if board is None else board.ratings.get(player_id)

    async def rank(self, variant: str, player_id: str) -> int | None:
        board = self._boards.get(variant)
        rating = None if board is None else board.ratings.get(player_id)
        if board is None or rating is None:
            return None
        return bisect.bisect_left(board.members, board_member(rating, player_id)) + 1

    def _page(self, board: _Board, start: int, page_size: int) -> BoardPage:
        members = board.members[start : start + page_size]
        entries = [
            BoardEntry(start + i + 1, player_of(m), board.ratings[player_of(m)])
            for i, m in enumerate(members)
        ]
        more = start + page_size < len(board.members)
        return BoardPage(entries, encode_board_token(members[-1]) if more and members else "")

    async def top(self, variant: str, page_size: int, page_token: str = "") -> BoardPage:
        check_page_size(page_size)
        after = decode_board_token(page_token)
        board = self._boards.get(variant, _Board())
        start = 0 if after is None else bisect.bisect_right(board.members, after)
        return self._page(board, start, page_size)

    async def around(self, variant: str, player_id: str, page_size: int) -> BoardPage:
        check_page_size(page_size)
        rank = await self.rank(variant, player_id)
        if rank is None:
            return BoardPage([], "")
        return self._page(self._boards[variant], max(0, rank - 1 - page_size // 2), page_size)

    async def history(self, player_id: str, limit: int, variant: str = "") -> list[HistoryEntry]:
        found: list[HistoryEntry] = []
        for name, board in self._boards.items():
            if not variant or name == variant:
                found.extend(board.history.get(player_id, []))
        return newest_first(found, limit)

    async def close(self) -> None:
        pass


SCHEMA = """
CREATE TABLE IF NOT EXISTS ratings (
    variant TEXT NOT NULL,
    player_id TEXT NOT NULL,
    rating TEXT NOT NULL,
    member TEXT NOT NULL,
    PRIMARY KEY (variant, player_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS ratings_board ON ratings (variant, member);
-- How many players of a variant's board stand in each whole point of score
-- (a member's first BUCKET_DIGITS characters): a rank is the sum of the
-- buckets above a player's and a count inside its own, not a count of the
-- whole board.
CREATE TABLE IF NOT EXISTS board_buckets (
    variant TEXT NOT NULL,
    bucket TEXT NOT NULL,
    players INTEGER NOT NULL,
    PRIMARY KEY (variant, bucket)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS recorded_games (
    game_id TEXT PRIMARY KEY,
    game TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS histories (
    player_id TEXT NOT NULL,
    variant TEXT NOT NULL,
    finished_at REAL NOT NULL,
    game_id TEXT NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (player_id, variant, finished_at, game_id)
) WITHOUT ROWID;
"""


def connect_beside(path: str | Path, schema: str) -> sqlite3.Connection:
    """A connection of its own to the sqlite store's file (WAL, as the game
    store's), with ``schema`` created."""
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # as the game store: WAL keeps it safe
    db.execute("PRAGMA busy_timeout=5000")
    db.executescript(schema)
    return db


class SqliteRatings:
    """Ratings in the sqlite store's file, on a connection of their own; a
    game is recorded in one ``BEGIN IMMEDIATE`` transaction, so even two
    processes on one file record it once."""

    def __init__(self, path: str | Path) -> None:
        self._db = connect_beside(path, SCHEMA)

    async def record(self, game: FinishedGame, rate: RateFn) -> bool:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute(
                "SELECT 1 FROM recorded_games WHERE game_id = ?", (game.game_id,)
            ).fetchone():
                db.execute("ROLLBACK")
                return False
            current: dict[str, Rating] = {}
            for player in game.players:
                found = await self._rating(game.variant, player)
                if found is not None:
                    current[player] = found
            new, history = apply_game(game, current, rate)
            for player, rating in new.items():
                old = current.get(player)
                if old is not None:
                    self._count(game.variant, board_member(old, player), -1)
                member = board_member(rating, player)
                self._count(game.variant, member, +1)
                db.execute(
                    "INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, ?)",
                    (game.variant, player, orjson.dumps(rating.to_list()).decode(), member),
                )
            for h in history:
                db.execute(
                    "INSERT INTO histories VALUES (?, ?, ?, ?, ?)",
                    (h.player_id, game.variant, game.finished_at, game.game_id, h.to_json()),
                )
                db.execute(
                    "DELETE FROM histories WHERE player_id = ? AND variant = ? AND "
                    "(finished_at, game_id) NOT IN (SELECT finished_at, game_id FROM histories "
                    "WHERE player_id = ? AND variant = ? "
                    "ORDER BY finished_at DESC, game_id DESC LIMIT ?)",
                    (h.player_id, game.variant, h.player_id, game.variant, HISTORY_KEPT),
                )
            db.execute("INSERT INTO recorded_games VALUES (?, ?)", (game.game_id, game.to_json()))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return True

    async def recorded(self, game_id: str) -> FinishedGame | None:
        row = self._db.execute(
            "SELECT game FROM recorded_games WHERE game_id = ?", (game_id,)
        ).fetchone()
        return None if row is None else FinishedGame.from_json(row[0])

    async def _rating(self, variant: str, player_id: str) -> Rating | None:
        row = self._db.execute(
            "SELECT rating FROM ratings WHERE variant = ? AND player_id = ?", (variant, player_id)
        ).fetchone()
        return None if row is None else Rating.from_list(orjson.loads(row[0]))

    async def rating(self, variant: str, player_id: str) -> Rating | None:
        return await self._rating(variant, player_id)

    def _count(self, variant: str, member: str, change: int) -> None:
        self._db.execute(
            "INSERT INTO board_buckets VALUES (?, ?, ?) "
            "ON CONFLICT (variant, bucket) DO UPDATE SET players = players + excluded.players",
            (variant, member[:BUCKET_DIGITS], change),
        )

    def _place(self, variant: str, member: str) -> int:
        """The rank of ``member`` on the board (1 + the members before it)."""
        bucket = member[:BUCKET_DIGITS]
        (above,) = self._db.execute(
            "SELECT COALESCE(SUM(players), 0) FROM board_buckets WHERE variant = ? AND bucket < ?",
            (variant, bucket),
        ).fetchone()
        (inside,) = self._db.execute(
            "SELECT COUNT(*) FROM ratings WHERE variant = ? AND member >= ? AND member < ?",
            (variant, bucket, member),
        ).fetchone()
        return int(above) + int(inside) + 1

    async def rank(self, variant: str, player_id: str) -> int | None:
        row = self._db.execute(
            "SELECT member FROM ratings WHERE variant = ? AND player_id = ?", (variant, player_id)
        ).fetchone()
        return None if row is None else self._place(variant, row[0])

    def _page(self, variant: str, rows: list[Any], first_rank: int, page_size: int) -> BoardPage:
        entries = [
            BoardEntry(first_rank + i, str(player), Rating.from_list(orjson.loads(rating)))
            for i, (player, rating, _member) in enumerate(rows[:page_size])
        ]
        more = len(rows) > page_size
        return BoardPage(entries, encode_board_token(rows[page_size - 1][2]) if more else "")

    async def top(self, variant: str, page_size: int, page_token: str = "") -> BoardPage:
        check_page_size(page_size)
        after = decode_board_token(page_token) or ""
        rows = self._db.execute(
            "SELECT player_id, rating, member FROM ratings WHERE variant = ? AND member > ? "
            "ORDER BY member LIMIT ?",
            (variant, after, page_size + 1),
        ).fetchall()
        first = self._place(variant, rows[0][2]) if rows and after else 1
        return self._page(variant, rows, first, page_size)

    async def around(self, variant: str, player_id: str, page_size: int) -> BoardPage:
        check_page_size(page_size)
        rank = await self.rank(variant, player_id)
        if rank is None:
            return BoardPage([], "")
        start = max(0, rank - 1 - page_size // 2)
        member = board_member(await self._rating(variant, player_id) or Rating(0, 0), player_id)
        # Walked from the player's place both ways by the index (no OFFSET).
        above = self._db.execute(
            "SELECT player_id, rating, member FROM ratings WHERE variant = ? AND member < ? "
            "ORDER BY member DESC LIMIT ?",
            (variant, member, rank - 1 - start),
        ).fetchall()
        rows = self._db.execute(
            "SELECT player_id, rating, member FROM ratings WHERE variant = ? AND member >= ? "
            "ORDER BY member LIMIT ?",
            (variant, member, page_size + 1 - len(above)),
        ).fetchall()
        return self._page(variant, [*reversed(above), *rows], start + 1, page_size)

    async def history(self, player_id: str, limit: int, variant: str = "") -> list[HistoryEntry]:
        rows = self._db.execute(
            "SELECT entry FROM histories WHERE player_id = ? AND (? = '' OR variant = ?) "
            "ORDER BY finished_at DESC, game_id DESC LIMIT ?",
            (player_id, variant, variant, limit),
        ).fetchall()
        return [HistoryEntry.from_json(r[0]) for r in rows]

    async def close(self) -> None:
        self._db.close()


def beside(
    store: object,
    memory: Callable[[], T],
    sqlite: Callable[[str], T],
    redis: Callable[[Any, str], T],
) -> T:
    """What lives beside a game store: in the same sqlite file (``:memory:``
    databases are private to their connection, so beside one of those, in
    memory), the same Redis (its client and prefix), or in memory."""
    from ramino.store.redis import RedisStore
    from ramino.store.sqlite import SqliteStore

    if isinstance(store, SqliteStore) and store.path != ":memory:":
        return sqlite(store.path)
    if isinstance(store, RedisStore):
        return redis(store.client, store.layout.prefix)
    return memory()


def ratings_beside(store: object) -> RatingStore:
    """The rating store beside a game store (:func:`beside`)."""
    from ramino.store.ratings_redis import RedisRatings

    memory: Callable[[], RatingStore] = MemoryRatings
    return beside(store, memory, SqliteRatings, RedisRatings)
