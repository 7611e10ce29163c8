"""A hosted game's life on one replica, read in one place: each step it takes,
where it is taken, and who is told of it.

1. **Created**: the lobby appends its header, version 1
   (:meth:`~ramino.app.games.lobby.Lobby.create`; a person's table,
   ``Lobby.open_table``; a match's game, by the matchmaker through
   :class:`~ramino.app.hosting.Seating`). People then join
   (``Lobby.join``), each join an entry.
2. **Dealt**: with the last seat taken, the deal is appended in the same
   write as that join (``Lobby._start``; a game whose creator died between
   the two, ``Lobby.deal_if_full``): :meth:`GameLife.dealt` tells the duties,
   for a bot or a turn timer may now be due.
3. **Moved**: every move, a seat's, a bot's or a turn timer's, is decided
   and appended under the game's lock (``Moves._move_once``, ``act_for``);
   then :meth:`GameLife.moved` tells the duties when the next turn has one
   (a bot, a timer) and, the moment its match ends, the ratings; after the
   lock, :meth:`GameLife.written` hands the move's events to the watch
   feeds (``Watch._written``).
4. **Finished**: its match ended by a move (step 3: a rated game's absent
   seats forfeit so too, ``Moves.forfeit``, their resignations moves of
   the server's), or the game ended before it (``Moves.end``: abandoned by
   its people, which the duties find from the store's index of due games,
   not from a timer of this process; ``Moves.cancel``: cancelled by its
   creator).
5. **Expired**: ``retention`` seconds after its end the housekeeping takes it
   out of the store (archived first when asked,
   ``app/games/housekeeping.py``) and :meth:`GameLife.expired` drops this
   replica's copy.

Who is told is wired once, by :class:`~ramino.app.application.GameApp`:
the duties (``due``), the feeds (``feeds``), the ratings (``ratings``); a
part left unset (an app without duties) is not told.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from ramino.app.games.fanout import Own
from ramino.app.hosted import HostedGame
from ramino.app.log import LogEvent

__all__ = ["Feeds", "GameLife"]

Feeds = Callable[[str, int, Sequence[LogEvent], Sequence[int | None], Own | None], None]
"""The watch feeds' door: a game, the version before the entries this
replica appended, their events, whose turn it is after each, and the session
whose move made the last of them, if any."""


class GameLife:
    """The steps of the replica's games and who is told of each."""

    def __init__(self) -> None:
        self.due: Callable[[str], None] | None = None
        """Told of a game whose bot, timer or abandon time may be due (the duties)."""
        self.feeds: Feeds | None = None
        """Told of the entries this replica appended to a game (the watch feeds)."""
        self.ratings: Callable[[HostedGame], Awaitable[object]] | None = None
        """Told of a game whose match a move of this replica ended (the ratings)."""
        self.forget: Callable[[str], None] | None = None
        """Drops the replica's copy of a game (the cache)."""

    def kick(self, game_id: str) -> None:
        """Something happened in ``game_id`` that its duties may act on."""
        if self.due is not None:
            self.due(game_id)

    def dealt(self, game: HostedGame) -> None:
        """The game was dealt: a bot or a turn timer may be due."""
        self.kick(game.game_id)

    async def moved(self, game: HostedGame, duty_due: bool) -> None:
        """A move of this replica was appended (the game's lock held): its
        match's end is told to the ratings, and a next turn with a duty
        (``duty_due``) to the duties."""
        if self.ratings is not None and game.status == "finished":
            await self.ratings(game)
        if duty_due:
            self.kick(game.game_id)

    def written(
        self,
        game_id: str,
        before: int,
        events: Sequence[LogEvent],
        turns: Sequence[int | None],
        own: Own | None = None,
    ) -> None:
        """Entries this replica appended after ``before`` (their events, and
        whose turn it is after each), for the watch feeds; ``own``: the last
        of them are the answer of a session's move, which its own watch is
        not handed."""
        if self.feeds is not None:
            self.feeds(game_id, before, events, turns, own)

    def expired(self, game_ids: Sequence[str]) -> None:
        """The housekeeping took these finished games out of the store."""
        if self.forget is not None:
            for game_id in game_ids:
                self.forget(game_id)
