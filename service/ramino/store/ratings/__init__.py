"""Ratings, leaderboards and players' histories, kept beside the games.

A finished game is recorded once, by its game id, on every store: the first
:meth:`RatingStore.record` of a game id applies it (the new ratings of its
rated players, each player's history entry) in one atomic step; every later
one, from any replica, changes nothing and answers ``False``. The new ratings
are computed by the caller's ``rate`` from the ratings read in that same step
(a compare-and-set on a shared store: a rating changed meanwhile by another
game makes the store read and rate again), so two games of one player
finishing at once on two replicas both count.

The leaderboard of a variant orders players by :attr:`RatingRecord.score`, highest
first, and players of equal score by player id (descending, as Redis orders
equal scores). Each player has one *member* string whose byte order is that
order (:func:`board_member`); a page token is the member of a page's last
entry, so the next page starts strictly after it: paging never repeats nor
skips an entry whose rating did not change meanwhile.

Laid out as the game store: the records and the protocol in
:mod:`~ramino.store.ratings.base`, one module per backend beside it.
"""

from __future__ import annotations

from collections.abc import Callable

from ramino.store.beside import beside
from ramino.store.ratings.base import (
    BOARD_PAGE_MAX,
    HISTORY_KEPT,
    BadPage,
    BoardEntry,
    BoardPage,
    FinishedGame,
    HistoryEntry,
    RatedSeat,
    RateFn,
    RatingRecord,
    RatingStore,
    board_member,
    check_page_size,
    decode_board_token,
    encode_board_token,
)
from ramino.store.ratings.memory import MemoryRatings
from ramino.store.ratings.sqlite import SqliteRatings

__all__ = [
    "BOARD_PAGE_MAX",
    "HISTORY_KEPT",
    "BadPage",
    "BoardEntry",
    "BoardPage",
    "FinishedGame",
    "HistoryEntry",
    "MemoryRatings",
    "RateFn",
    "RatedSeat",
    "RatingRecord",
    "RatingStore",
    "SqliteRatings",
    "board_member",
    "check_page_size",
    "decode_board_token",
    "encode_board_token",
    "ratings_beside",
]


def ratings_beside(store: object) -> RatingStore:
    """The rating store beside a game store (:func:`~ramino.store.beside.beside`)."""
    from ramino.store.ratings.redis import RedisRatings

    memory: Callable[[], RatingStore] = MemoryRatings
    return beside(store, memory, SqliteRatings, RedisRatings)
