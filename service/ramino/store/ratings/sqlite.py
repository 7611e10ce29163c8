"""Ratings in the sqlite store's file, beside its games."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ramino.store.beside import connect_beside
from ramino.store.ratings.base import (
    BUCKET_DIGITS,
    HISTORY_KEPT,
    BoardEntry,
    BoardPage,
    FinishedGame,
    HistoryEntry,
    RateFn,
    RatingRecord,
    apply_game,
    board_member,
    check_page_size,
    decode_board_token,
    encode_board_token,
)

__all__ = ["SqliteRatings"]

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


class SqliteRatings:
    """Ratings in the sqlite store's file, on a connection of their own; a
    game is recorded in one ``BEGIN IMMEDIATE`` transaction, so even two
    processes on one file record it once."""

    def __init__(self, path: str | Path, settle: Callable[[], None] | None = None) -> None:
        """``settle``: the game store's beside which this one lives
        (:func:`~ramino.store.beside.connect_beside`)."""
        self._db = connect_beside(path, SCHEMA, settle)

    async def record(self, game: FinishedGame, rate: RateFn) -> bool:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute(
                "SELECT 1 FROM recorded_games WHERE game_id = ?", (game.game_id,)
            ).fetchone():
                db.execute("ROLLBACK")
                return False
            current: dict[str, RatingRecord] = {}
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

    async def _rating(self, variant: str, player_id: str) -> RatingRecord | None:
        row = self._db.execute(
            "SELECT rating FROM ratings WHERE variant = ? AND player_id = ?", (variant, player_id)
        ).fetchone()
        return None if row is None else RatingRecord.from_list(orjson.loads(row[0]))

    async def rating(self, variant: str, player_id: str) -> RatingRecord | None:
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
            BoardEntry(first_rank + i, str(player), RatingRecord.from_list(orjson.loads(rating)))
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
        member = board_member(
            await self._rating(variant, player_id) or RatingRecord(0, 0), player_id
        )
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
