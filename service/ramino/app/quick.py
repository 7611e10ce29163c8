"""Quick play as the transport sees it: tickets and their streams, ratings,
leaderboards, histories and finished games' records, each answered as a
value (MatchService calls this and encodes what it gets; it never reaches a
store).

A ticket's stream is :meth:`QuickPlay.follow`: it looks at its ticket every
``poll`` seconds (the matching may be another replica's) and notes in the
store at each look that a stream follows it. No timer here decides a
ticket's fate when its stream goes away (this replica may die with it): the
matchmaker's pass, on whichever replica, cancels a ticket no stream has
followed for its ``grace`` and never matches one.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from ramino import reasons
from ramino.app.log import Header, LogEvent, public_entry
from ramino.app.matchmaker import Matchmaker, QueueSpec, window
from ramino.app.ratings import Ratings
from ramino.app.table import GameTable
from ramino.engine.seen import Seen
from ramino.errors import GameStateError
from ramino.store.ratings import BoardPage, HistoryEntry, Rating
from ramino.store.tickets import CANCELLED, EXPIRED, MATCHED, Ticket

__all__ = [
    "ENDED",
    "POLL",
    "GameRecord",
    "Leaderboard",
    "PlayerRating",
    "QuickPlay",
    "TicketSight",
]

POLL = 0.5
"""Seconds between two looks of a ticket's stream at its ticket, by default."""
ENDED = (MATCHED, EXPIRED, CANCELLED)
"""The states a ticket's stream ends in."""


@dataclass(frozen=True, slots=True)
class TicketSight:
    """One look at a ticket: the ticket, the rating difference it accepts
    now, and whether that window widened since the stream's last look."""

    ticket: Ticket
    window: float
    widened: bool = False


@dataclass(frozen=True, slots=True)
class PlayerRating:
    rating: Rating
    """A new player's before the player's first rated game of the variant."""
    rank: int | None
    """``None`` before it (no place on the board)."""


@dataclass(frozen=True, slots=True)
class Leaderboard:
    page: BoardPage
    caller_rank: int | None


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game's whole public record: its header (the seed is
    public once the game has finished) and every entry as anyone may see
    it, with its version."""

    header: Header
    events: list[tuple[int, Seen[LogEvent]]]


class QuickPlay:
    """Tickets, ratings and records for the MatchService, over the
    matchmaker, the ratings and the replica's games."""

    def __init__(
        self,
        table: GameTable,
        ratings: Ratings,
        matchmaker: Matchmaker,
        poll: float = POLL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``poll``: seconds between two looks of a stream at its ticket,
        less than the matchmaker's grace (a followed ticket is noted more
        often than the grace, or its pass would cancel it)."""
        grace = matchmaker.config.grace
        if grace is None or not poll < grace:
            raise ValueError(
                f"a ticket stream polls every {poll} s: the matchmaker's grace must be "
                f"longer, not {grace}"
            )
        self._table = table
        self._ratings = ratings
        self.matchmaker = matchmaker
        self.poll = poll
        self._clock = clock

    # --- tickets -------------------------------------------------------------------

    async def submit(
        self,
        player_id: str,
        name: str,
        spec: QueueSpec,
        min_seats: int,
        max_seats: int,
        properties: dict[str, str],
        request_id: str = "",
    ) -> Ticket:
        """A new ticket, or, for a request id the player used before, the
        ticket it made (see :meth:`Matchmaker.submit`)."""
        return await self.matchmaker.submit(
            player_id, name, spec, min_seats, max_seats, properties, request_id
        )

    async def tickets(self, player_id: str) -> list[TicketSight]:
        """The player's live tickets (waiting or matching), oldest first."""
        return [self.sight(t) for t in await self.matchmaker.live(player_id)]

    async def ticket(self, player_id: str, ticket_id: str) -> Ticket:
        return await self.matchmaker.ticket(player_id, ticket_id)

    async def cancel(self, player_id: str, ticket_id: str) -> TicketSight:
        return self.sight(await self.matchmaker.cancel(player_id, ticket_id))

    def sight(self, ticket: Ticket, widened: bool = False) -> TicketSight:
        """The ticket as a stream shows it now."""
        return TicketSight(
            ticket, window(self._clock() - ticket.created_at, self.matchmaker.config), widened
        )

    async def follow(self, player_id: str, ticket: Ticket) -> AsyncIterator[TicketSight]:
        """The ticket's sights until it is matched or ended: the first, then
        one each time its window widens, then the last; each look notes in
        the store that a stream follows it. A stream that goes away first
        leaves the ticket unfollowed, for the matchmaker's grace."""
        shown: float | None = None
        while True:
            if ticket.state in ENDED:
                yield self.sight(ticket)
                return
            await self.matchmaker.tickets.touch(ticket.ticket_id, self._clock())
            sight = self.sight(ticket, widened=shown is not None)
            if shown is None or sight.window > shown:
                shown = sight.window
                yield sight
            await asyncio.sleep(self.poll)
            ticket = await self.matchmaker.ticket(player_id, ticket.ticket_id)

    # --- ratings, leaderboards, histories, records -----------------------------------

    async def rating(self, variant: str, player_id: str) -> PlayerRating:
        return PlayerRating(
            await self._ratings.rating(variant, player_id),
            await self._ratings.rank(variant, player_id),
        )

    async def leaderboard(
        self, variant: str, player_id: str, page_size: int, page_token: str, around: bool
    ) -> Leaderboard:
        """A page of the board from its top (or after ``page_token``), or,
        with ``around`` and no token, the page with the player in its middle."""
        if around and not page_token:
            page = await self._ratings.around(variant, player_id, page_size)
        else:
            page = await self._ratings.top(variant, page_size, page_token)
        return Leaderboard(page, await self._ratings.rank(variant, player_id))

    async def history(self, player_id: str, page_size: int, variant: str) -> list[HistoryEntry]:
        return await self._ratings.history(player_id, page_size, variant)

    async def record(self, game_id: str) -> GameRecord:
        """The game's whole public record, once it has finished."""
        game = await self._table.load(game_id)
        if game.status != "finished":
            raise GameStateError(
                "a game's record is given once it has finished", reasons.GAME_NOT_FINISHED
            )
        entries = await self._table.store.read(game_id)
        return GameRecord(
            game.header,
            [(e.version, public_entry(json.loads(e.data), None)) for e in entries],
        )
