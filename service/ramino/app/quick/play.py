"""Quick play as the transport sees it: tickets and their streams, ratings,
leaderboards, histories and finished games' records, each answered as a
value (MatchService calls this and encodes what it gets; it never reaches a
store).

A ticket's stream is :meth:`QuickPlay.follow`. It is pushed, not polled: a
stream waits for its ticket's change (matched, cancelled, expired), which
the ticket store announces (:meth:`~ramino.store.tickets.TicketStore.changes`:
on Redis a stream of the queue's slot that the matching and ending scripts
write, read by one blocking read per queue and replica, fanned out here to
that replica's streams), and reads its ticket then. Besides, every ``poll``
seconds (a third of the matchmaker's grace by default) it takes a slow look:
it notes in the store that a stream follows its ticket (the grace's clock)
and reads it (what a notification lost to a reconnect would have said). A
WIDENED update is the clock's, not the store's: it needs no read.

No timer here decides a ticket's fate when its stream goes away (this
replica may die with it): the matchmaker's pass, on whichever replica,
cancels a ticket no stream has followed for its ``grace`` and never matches
one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ramino import reasons, tasks
from ramino.app.hosting import GameRecords
from ramino.app.log import Header, LogEvent, public_entry
from ramino.app.quick.matchmaker import Matchmaker
from ramino.app.quick.parties import Parties, Wishes
from ramino.app.quick.policy import expected_wait, window
from ramino.app.quick.queues import MatchmakerConfig, QueueSpec
from ramino.app.quick.ratings import Rating, Ratings
from ramino.app.quick.tickets import Ticket
from ramino.engine.seen import Seen
from ramino.errors import GameStateError
from ramino.store.base import GameNotFound
from ramino.store.ratings import BoardPage, HistoryEntry
from ramino.store.tickets import CANCELLED, EXPIRED, MATCHED, TicketStore

__all__ = [
    "ENDED",
    "POLL",
    "GameRecord",
    "Leaderboard",
    "PlayerRating",
    "QuickPlay",
    "Wakes",
    "TicketSight",
]

POLL = 0.5
"""Seconds between two looks of a polling stream at its ticket (``push``
off: how streams followed tickets before they were pushed)."""
ENDED = (MATCHED, EXPIRED, CANCELLED)
"""The states a ticket's stream ends in."""


@dataclass(frozen=True, slots=True)
class TicketSight:
    """One look at a ticket: the ticket, the rating difference it accepts
    now, and whether that window widened since the stream's last look; while
    it waits, how many tickets wait in its queue and the seconds its table
    may still take (:func:`~ramino.app.quick.matchmaker.expected_wait`; both 0
    when not looked at)."""

    ticket: Ticket
    window: float
    widened: bool = False
    queue_size: int = 0
    expected_wait: float = 0.0


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


@dataclass
class _Listener:
    """One queue's changes, read once for this replica's streams."""

    task: asyncio.Task[None] | None = None
    wakes: dict[str, set[asyncio.Event]] = field(default_factory=dict)


class Wakes:
    """The store's changes of tickets, fanned out to the streams that follow
    them on this replica: one reader per queue with a followed ticket,
    started by its first stream and ended with its last."""

    def __init__(self, tickets: TicketStore) -> None:
        self._tickets = tickets
        self._queues: dict[str, _Listener] = {}
        self._ending: set[asyncio.Task[None]] = set()
        """Readers whose last stream has gone, until they have ended."""
        self._stoppers: set[asyncio.Task[None]] = set()
        """What ends them (:func:`ramino.tasks.stop`: a lost cancellation
        would leave a reader of a queue nobody follows for ever)."""

    @contextlib.contextmanager
    def waker(self, ticket: Ticket) -> Iterator[asyncio.Event]:
        """An event set each time the ticket changes, while the block runs."""
        listener = self._queues.setdefault(ticket.queue, _Listener())
        if listener.task is None:
            listener.task = asyncio.create_task(
                self._listen(ticket.queue, listener), name=f"ticket changes {ticket.queue}"
            )
        event = asyncio.Event()
        listener.wakes.setdefault(ticket.ticket_id, set()).add(event)
        try:
            yield event
        finally:
            events = listener.wakes.get(ticket.ticket_id, set())
            events.discard(event)
            if not events:
                listener.wakes.pop(ticket.ticket_id, None)
            if not listener.wakes and self._queues.get(ticket.queue) is listener:
                del self._queues[ticket.queue]
                if listener.task is not None:
                    self._end(listener.task)

    def _end(self, reader: asyncio.Task[None]) -> None:
        self._ending.add(reader)
        reader.add_done_callback(self._ending.discard)
        stopper = asyncio.create_task(tasks.stop([reader]), name=f"{reader.get_name()} ending")
        self._stoppers.add(stopper)
        stopper.add_done_callback(self._stoppers.discard)

    async def _listen(self, queue: str, listener: _Listener) -> None:
        while True:
            try:
                async for ids in self._tickets.changes(queue):
                    for tid in ids:
                        for event in listener.wakes.get(tid, ()):
                            event.set()
            except Exception:  # the store out of reach: the slow looks go on
                await asyncio.sleep(1.0)

    async def close(self) -> None:
        listening = [q.task for q in self._queues.values()]
        self._queues.clear()
        await tasks.stop([*listening, *self._ending])
        await asyncio.gather(*self._stoppers)


class QuickPlay:
    """Tickets, ratings and records for the MatchService, over the
    matchmaker, the ratings and the replica's games."""

    def __init__(
        self,
        games: GameRecords,
        ratings: Ratings,
        matchmaker: Matchmaker,
        poll: float | None = None,
        clock: Callable[[], float] = time.time,
        push: bool = True,
    ) -> None:
        """``poll``: seconds between two slow looks of a stream at its
        ticket, less than the matchmaker's grace (a followed ticket is noted
        more often than the grace, or its pass would cancel it); by default
        a third of the grace (pushed), or :data:`POLL` (polled). ``push``
        off: streams poll their tickets every ``poll`` seconds and hear no
        change (how they did before; ``bench/quickplay.py`` compares)."""
        grace = matchmaker.config.grace
        if poll is None and grace is not None:
            poll = grace / 3 if push else min(POLL, grace / 2)
        if grace is None or poll is None or not poll < grace:
            raise ValueError(
                f"a ticket stream polls every {poll} s: the matchmaker's grace must be "
                f"longer, not {grace}"
            )
        self._games = games
        self._ratings = ratings
        self.matchmaker = matchmaker
        self.poll = poll
        self.push = push
        self._clock = clock
        self.wakes = Wakes(matchmaker.tickets)
        self.parties = Parties(matchmaker, clock)

    def start(self) -> None:
        """Starts quick play's background work on this replica: the matchmaker."""
        self.matchmaker.start()

    async def close(self) -> None:
        """Stops the matchmaker and the tickets' wakes, and closes the ticket store."""
        await self.matchmaker.stop()
        await self.wakes.close()
        await self.matchmaker.tickets.close()

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
        party_id: str = "",
        numbers: dict[str, float] | None = None,
        clauses: Sequence[dict[str, Any]] = (),
        rating_band: float = 0.0,
    ) -> Ticket:
        """A new ticket, or, for a request id the player used before, the
        ticket it made (see :meth:`Matchmaker.submit`); with ``party_id``,
        the ticket of the player's party (:meth:`Parties.submit`); the
        matching grammar's ``numbers``, ``clauses`` and ``rating_band``
        (:mod:`ramino.app.quick.clauses`) either way."""
        wishes = Wishes(numbers or {}, list(clauses), rating_band)
        if party_id:
            return await self.parties.submit(
                player_id,
                name,
                spec,
                min_seats,
                max_seats,
                properties,
                request_id,
                party_id,
                wishes,
            )
        return await self.matchmaker.submit(
            player_id,
            name,
            spec,
            min_seats,
            max_seats,
            properties,
            request_id,
            None,
            wishes.numbers,
            wishes.clauses,
            wishes.rating_band,
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
            ticket, window(self._clock() - ticket.created_at, self._config(ticket)), widened
        )

    def _config(self, ticket: Ticket) -> MatchmakerConfig:
        """The matchmaker's knobs for the ticket's queue."""
        return self.matchmaker.config.for_queue(ticket.variant, ticket.rated)

    async def follow(self, player_id: str, ticket: Ticket) -> AsyncIterator[TicketSight]:
        """The ticket's sights until it is matched or ended: the first, then
        one each time its window widens, then the last. Each slow look notes
        in the store that a stream follows it; a stream that goes away first
        leaves the ticket unfollowed, for the matchmaker's grace."""
        if not self.push:
            async for sight in self._poll(player_id, ticket):
                yield sight
            return
        with self.wakes.waker(ticket) as woken:
            # A change between the ticket's read and the waker is read here.
            ticket = await self.matchmaker.ticket(player_id, ticket.ticket_id)
            shown: float | None = None
            looked = -math.inf
            while True:
                if ticket.state in ENDED:
                    yield self.sight(ticket)
                    return
                now = self._clock()
                if now - looked >= self.poll:
                    await self.matchmaker.tickets.touch(ticket.ticket_id, now)
                    looked = now
                sight = self.sight(ticket, widened=shown is not None)
                if shown is None or sight.window > shown:
                    shown = sight.window
                    yield await self._queue_sight(sight)
                wait = min(looked + self.poll, self._widens_at(ticket)) - self._clock()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(max(0.0, wait)):
                        await woken.wait()  # at once if it came while a sight was sent
                if woken.is_set() or self._clock() - looked >= self.poll:
                    woken.clear()  # before the read: a later change wakes it again
                    ticket = await self.matchmaker.ticket(player_id, ticket.ticket_id)

    async def _queue_sight(self, sight: TicketSight) -> TicketSight:
        """The waiting ticket's sight with its queue's size and the wait
        expected (one read of the store, at SEARCHING and each WIDENED)."""
        waiting = await self.matchmaker.tickets.waiting_count(sight.ticket.queue)
        now = self._clock()
        return replace(
            sight,
            queue_size=waiting,
            expected_wait=expected_wait(sight.ticket, waiting, now, self._config(sight.ticket)),
        )

    def _widens_at(self, ticket: Ticket) -> float:
        """When the ticket's window next widens (never past its widest)."""
        config = self._config(ticket)
        if window(self._clock() - ticket.created_at, config) >= config.window_max:
            return math.inf
        steps = math.floor(max(0.0, self._clock() - ticket.created_at) / config.window_interval)
        return ticket.created_at + (steps + 1) * config.window_interval

    async def _poll(self, player_id: str, ticket: Ticket) -> AsyncIterator[TicketSight]:
        """:meth:`follow` as it was, by polling: a note and a read every ``poll``."""
        shown: float | None = None
        while True:
            if ticket.state in ENDED:
                yield self.sight(ticket)
                return
            await self.matchmaker.tickets.touch(ticket.ticket_id, self._clock())
            sight = self.sight(ticket, widened=shown is not None)
            if shown is None or sight.window > shown:
                shown = sight.window
                yield await self._queue_sight(sight)
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

    async def record(self, game_id: str, player: str) -> GameRecord:
        """The game's whole public record, once it has finished, for
        ``player``: a private game's only for a player who sat in it (to
        anyone else it is no game at all, as its table was)."""
        game = await self._games.load(game_id)
        if game.header.private and player not in game.player_ids.values():
            raise GameNotFound(game_id)
        if game.status != "finished":
            raise GameStateError(
                "a game's record is given once it has finished", reasons.GAME_NOT_FINISHED
            )
        entries = await self._games.store.read(game_id)
        return GameRecord(
            game.header,
            [(e.version, public_entry(json.loads(e.data), None)) for e in entries],
        )
