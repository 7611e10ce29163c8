"""Ratings in this process's memory (tests, the memory store)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from ramino.store.ratings.base import (
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
    newest_first,
    player_of,
)

__all__ = ["MemoryRatings"]


@dataclass
class _Board:
    members: list[str] = field(default_factory=list)
    ratings: dict[str, RatingRecord] = field(default_factory=dict)
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

    async def rating(self, variant: str, player_id: str) -> RatingRecord | None:
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
