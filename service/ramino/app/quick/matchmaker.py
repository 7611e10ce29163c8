"""Quick play: players' tickets matched into games, on any number of replicas.

Each replica runs :meth:`Matchmaker.run_once` every ``tick`` seconds. For
each queue with work, it takes the queue's lease (the game store's duty
lease, named ``queue-QUEUE``), then:

1. finishes the queue's forming matches (claimed, their game not yet known
   to be created: left by a replica that died, or whose lease ran out);
2. cancels the waiting tickets no stream has followed for ``grace`` (their
   last-followed time is in the store: the replica whose stream followed
   them may be dead), and expires those older than ``ticket_ttl``;
3. seats waiting tickets at open lobby tables of the queue whose creators
   let quick play fill them (joinOrCreate: :meth:`Matchmaker._seat_at_tables`);
4. forms matches from the waiting tickets left, oldest first (:func:`form`),
   claims each one's tickets atomically in the ticket store (all or none: a
   ticket another replica took meanwhile, or that nobody followed for
   ``grace`` at the moment of the claim, fails it, and the match is formed
   again on the next pass), and finishes it.

Finishing a match creates its game with every seat bound to its player at
creation (one write: no seat of it is ever open), under a game id derived
from the match id (a second creation of the same match finds the game), deals
it if it was not dealt, and only then marks the tickets matched. A replica
killed at any point leaves either waiting tickets, or a forming match that
the next replica taking the queue finishes: no ticket is lost, none is in
two games, and no game is half seated. The lease keeps two replicas from
doing the same work at once; the claim keeps them correct when a lease runs
out under a slow replica.

What a pass decides is :mod:`ramino.app.quick.policy` (pure: the rating
windows, the clauses, which tickets meet and which seat of a table a ticket
may take); the queues and their knobs are :mod:`ramino.app.quick.queues`.
This module runs it: leases, passes, claims, the games made.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
from collections.abc import Callable, Sequence
from typing import Any

import structlog

import ramino
from ramino import reasons, tasks
from ramino.app.hosted import HostedGame
from ramino.app.hosting import Seating
from ramino.app.log import END_EVENTS, SeatSpec, log_event
from ramino.app.names import checked_name, game_id_for
from ramino.app.quick.clauses import (
    checked_band,
    checked_clauses,
    checked_numbers,
)
from ramino.app.quick.policy import form, table_seat
from ramino.app.quick.queues import MatchmakerConfig, QueueSpec, table_queues
from ramino.app.quick.ratings import Ratings
from ramino.app.quick.tickets import Party, Ticket, ticket_of
from ramino.engine import trial_deal
from ramino.errors import BadRequest, GameStateError, NotFound
from ramino.store import GameExists, GameNotFound, RequestRecord, Store, VersionConflict
from ramino.store.tickets import (
    CANCELLED,
    EXPIRED,
    WAITING,
    Match,
    MatchSeat,
    TicketStore,
    followed_at,
    new_ticket_id,
)

__all__ = ["DEAL_TRIES", "Matchmaker"]

log = structlog.get_logger("ramino.matchmaker")

MAX_REQUEST_ID = 128
"""The longest request id of a ticket, as of a game's requests."""
MAX_PROPERTIES = 8
MAX_PROPERTY_TEXT = 32
MATCH_SCOPE = "matchmaker"
"""The scope of the request record a match's game is created with."""
DEAL_TRIES = 5
"""Times a match's game is dealt again after losing a race to another writer."""
TABLES_LOOKED = 50
"""Tables offered to a queue that a pass looks at, oldest first."""
FORM_ON_LOOP = 64
"""The most waiting tickets a pass groups (:func:`form`) on the event loop;
more are grouped on a thread. Grouping is quadratic in the tickets that
meet no one (each scans the others), and a client's tickets can be made to
meet no one (a region of their own, a must clause nobody fills): on the
loop, 1,000 of them held it 2.3 s a pass, every call of the replica waiting;
on a thread it turns every 12 ms."""


class Matchmaker:
    """Tickets, their matching and their games, for one replica."""

    def __init__(
        self,
        tickets: TicketStore,
        games: Store,
        lobby: Seating,
        ratings: Ratings,
        clock: Callable[[], float],
        config: MatchmakerConfig | None = None,
        owner: str | None = None,
    ) -> None:
        self.tickets = tickets
        self._games = games
        self._lobby = lobby
        self._ratings = ratings
        self._clock = clock
        self.config = config or MatchmakerConfig()
        self.owner = owner or f"matchmaker-{secrets.token_hex(6)}"
        self._task: asyncio.Task[None] | None = None
        self._dealt_ok: set[tuple[str, int, int]] = set()
        """Queues and seat counts whose trial deals passed (a submission
        deals once per seat count only the first time)."""
        self._wake = asyncio.Event()
        self._stopping = False

    # --- tickets -------------------------------------------------------------

    async def submit(
        self,
        player_id: str,
        name: str,
        spec: QueueSpec,
        min_seats: int,
        max_seats: int,
        properties: dict[str, str] | None = None,
        request_id: str = "",
        party: Party | None = None,
        numbers: dict[str, float] | None = None,
        clauses: Sequence[dict[str, Any]] = (),
        rating_band: float = 0.0,
    ) -> Ticket:
        """A new waiting ticket for ``player_id`` (checked first: nothing is
        written for a bad one). With a ``request_id`` the player used before
        for the same ticket, that ticket, in whatever state it is now (a
        retry after a broken stream: never a second ticket); for another
        ticket, REQUEST_ID_REUSED. With a ``party`` (its leader's, checked
        by :class:`~ramino.app.quick.parties.Parties`), the ticket seats its
        members too, and its rating is their mean. ``numbers``, ``clauses``
        and ``rating_band``: the matching grammar (:mod:`ramino.app.quick.clauses`)."""
        if len(request_id) > MAX_REQUEST_ID or not request_id.isprintable():
            raise BadRequest(
                f"a request id is at most {MAX_REQUEST_ID} printable characters",
                reasons.BAD_REQUEST_ID,
            )
        if not player_id:
            raise BadRequest("quick play needs a verified player", reasons.PLAYER_REQUIRED)
        name = checked_name(name)
        props = dict(properties or {})
        if len(props) > MAX_PROPERTIES or not all(
            0 < len(k) <= MAX_PROPERTY_TEXT
            and len(v) <= MAX_PROPERTY_TEXT
            and k.isprintable()
            and v.isprintable()
            for k, v in props.items()
        ):
            raise BadRequest(
                f"at most {MAX_PROPERTIES} properties, each key 1 to {MAX_PROPERTY_TEXT} "
                f"printable characters and each value at most {MAX_PROPERTY_TEXT}",
                reasons.BAD_TICKET_PROPERTIES,
            )
        nums = checked_numbers(numbers or {}, props)
        wishes = checked_clauses(clauses)
        band = checked_band(rating_band)
        self._check_seats(spec, min_seats, max_seats)
        members = [] if party is None else [[m.player_id, m.name] for m in party.members]
        if 1 + len(members) > max_seats:
            raise BadRequest(
                f"a party of {1 + len(members)} does not fit a game of at most "
                f"{max_seats} seats",
                reasons.PARTY_TOO_LARGE,
            )
        players = [player_id, *(m[0] for m in members)]
        scores = [(await self._ratings.rating(spec.variant, p)).score for p in players]
        asked = [spec.key, min_seats, max_seats, sorted(props.items()), name]
        if party is not None:
            asked.append(party.party_id)
        if nums or wishes or band:
            asked += [sorted(nums.items()), wishes, band]
        ticket = Ticket(
            new_ticket_id(spec.key, player_id, request_id),
            player_id,
            name,
            spec.key,
            min_seats,
            max_seats,
            props,
            sum(scores) / len(scores),
            self._clock(),
            spec.variant,
            dict(spec.overrides),
            spec.rated,
            spec.bots,
            request_id=request_id,
            fingerprint=hashlib.sha256(json.dumps(asked).encode()).hexdigest()[:32],
            party_id="" if party is None else party.party_id,
            members=members,
            scores=scores,
            numbers=nums,
            clauses=wishes,
            rating_band=band,
        )
        stored = await self.tickets.submit(ticket, self.config.max_tickets_per_player)
        if stored is ticket:
            self._wake.set()
        return ticket_of(stored)

    async def live(self, player_id: str) -> list[Ticket]:
        """The player's waiting and matching tickets, oldest first."""
        return [ticket_of(t) for t in await self.tickets.live(player_id)]

    def _check_seats(self, spec: QueueSpec, min_seats: int, max_seats: int) -> None:
        if not 2 <= min_seats <= max_seats <= 6:
            raise BadRequest(
                f"seat counts {min_seats} to {max_seats}: from 2 to 6, the least first",
                reasons.BAD_SEAT_COUNTS,
            )
        key = (spec.key, min_seats, max_seats)
        if key in self._dealt_ok:
            return
        for seats in range(min_seats, max_seats + 1):
            try:
                trial_deal(spec.variant, spec.overrides, seats)
            except ramino.VariantError:
                raise
            except ValueError as bad:
                raise BadRequest(
                    f"{spec.variant} cannot deal {seats} seats: {bad}", reasons.BAD_SEAT_COUNTS
                ) from None
        if len(self._dealt_ok) >= 1024:
            self._dealt_ok.clear()
        self._dealt_ok.add(key)

    async def ticket(self, player_id: str, ticket_id: str) -> Ticket:
        """A ticket that seats the player (theirs, or their party's); another
        is unknown to them."""
        found = await self.tickets.ticket(ticket_id)
        if found is None or player_id not in found.players:
            raise NotFound("no such ticket of yours", reasons.TICKET_NOT_FOUND)
        return ticket_of(found)

    async def cancel(self, player_id: str, ticket_id: str) -> Ticket:
        """Cancels a waiting ticket that seats the player (a party's member
        may withdraw the party's); a ticket already matched or ended is
        answered as it is."""
        await self.ticket(player_id, ticket_id)
        ended = await self.tickets.end(ticket_id, CANCELLED, self._clock())
        assert ended is not None
        return ticket_of(ended)

    async def offer_table(self, game: HostedGame) -> None:
        """Offers a quick-play table (:attr:`Header.quick_play`) to the queues
        whose tickets may take its seats (:func:`table_queues`), then wakes
        the matchmaker. Offering it again changes nothing."""
        for queue in table_queues(game.header):
            await self.tickets.offer_table(queue, game.game_id, game.header.created_at)
        self._wake.set()

    # --- matching -------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._stopping = False
            self._task = asyncio.create_task(self._run(), name="matchmaker")

    async def stop(self) -> None:
        """Ends the passes: the flag ends the loop, the cancel the pass in
        progress (again where one is lost: :mod:`ramino.tasks`)."""
        task, self._task = self._task, None
        self._stopping = True
        await tasks.stop([task])

    async def _run(self) -> None:
        while not self._stopping:
            try:
                await self.run_once()
            except Exception:  # a store out of reach: the next tick tries again
                log.exception("matchmaking pass failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.config.tick):
                    await self._wake.wait()

    async def run_once(self) -> list[Match]:
        """One pass over every queue with work; the matches it finished."""
        done: list[Match] = []
        for queue in await self.tickets.queues():
            lease = f"queue-{queue}"
            if not await self._games.acquire_lease(lease, self.owner, self.config.lease_ttl):
                continue
            try:
                done += await self._pass(queue)
            finally:
                await self._games.release_lease(lease, self.owner)
        return done

    async def _pass(self, queue: str) -> list[Match]:
        done = []
        for match in await self.tickets.forming(queue):
            if match.table:
                if await self._finish_table(match):
                    done.append(match)
                continue
            await self.finish(match)
            done.append(match)
        now = self._clock()
        await self._look_at_games(queue, now)
        waiting = []
        queued = [ticket_of(t) for t in await self.tickets.waiting(queue)]
        for t in await self._followed(queued, now):
            if now - t.created_at >= self.config.ticket_ttl:
                await self.tickets.end(t.ticket_id, EXPIRED, now)
            else:
                waiting.append(t)
        waiting = await self._seat_at_tables(queue, waiting, now, done)
        # The queue's own knobs (its tickets share a variant and a rating).
        config = self.config.for_queue(waiting[0].variant, waiting[0].rated) if waiting else None
        config_now = config or self.config
        if len(waiting) <= FORM_ON_LOOP:
            groups = form(waiting, now, config_now)
        else:  # (the tickets are this pass's own: nothing changes them meanwhile)
            groups = await asyncio.to_thread(form, waiting, now, config_now)
        for group, bots in groups:
            match = self._match(group, bots, now, config)
            if await self.tickets.claim(match, self._followed_since()):
                await self.finish(match)
                done.append(match)
        return done

    async def _seat_at_tables(
        self, queue: str, waiting: list[Ticket], now: float, done: list[Match]
    ) -> list[Ticket]:
        """joinOrCreate: each waiting ticket, oldest first, takes an open seat
        of the oldest quick-play table of its queue it fits (:func:`table_seat`)
        before any new game is formed for it. The seat's match is claimed as
        any match is (the ticket alone), then the seat is taken by the
        lobby's join at the table's version (another replica's or a person's
        join of the same seat makes this one SEAT_TAKEN: two tickets never
        share a seat), then the ticket is matched. Answers the tickets left
        waiting; the matches made go in ``done``."""
        if not waiting:
            return waiting
        tables = []
        for game_id in await self.tickets.tables(queue, TABLES_LOOKED):
            game = await self._lobby.waiting_table(game_id)
            if game is None:
                await self.tickets.withdraw_table(queue, game_id)  # dealt, ended or gone
            else:
                tables.append(game)
        if not tables:
            return waiting
        left = []
        config = self.config.for_queue(waiting[0].variant, waiting[0].rated)
        seated_scores: dict[str, list[float]] = {}
        """The scores of the people seated at a table, read once a pass for
        the tickets with a rating band (forgotten when the table changes)."""

        async def scores_at(game: HostedGame) -> list[float]:
            if game.game_id not in seated_scores:
                seated_scores[game.game_id] = [
                    (await self._ratings.rating(game.header.variant, p)).score
                    for p in game.player_ids.values()
                ]
            return seated_scores[game.game_id]

        for t in waiting:
            found = None
            for i, g in enumerate(tables):
                waited = now - t.created_at
                s = table_seat(g, t, waited, config.prefer_for)
                if s is not None and t.rating_band:
                    s = table_seat(g, t, waited, config.prefer_for, await scores_at(g))
                if s is not None:
                    found = i, g, s
                    break
            if found is None:
                left.append(t)
                continue
            i, game, seat = found
            # The table's other seats as they are now (its MATCHED names
            # them): people already seated, bots, open seats unnamed.
            seats = [
                MatchSeat("", game.player_ids.get(k, ""), game.players[k] or "", spec.bot)
                for k, spec in enumerate(game.header.seats)
            ]
            score = t.scores[0] if t.scores else t.rating
            seats[seat] = MatchSeat(t.ticket_id, t.player_id, t.name, None, score)
            match = Match(
                secrets.token_hex(12),
                queue,
                t.variant,
                dict(t.overrides),
                t.rated,
                tuple(seats),
                now,
                game.header.turn_timer_seconds,
                table=game.game_id,
            )
            if not await self.tickets.claim(match, self._followed_since()):
                continue  # no longer waiting (cancelled, unfollowed, or claimed meanwhile)
            seated = await self._finish_table(match)
            if seated is None:
                left.append(t)  # waiting again: a new game may be formed for it
            else:
                tables[i] = seated
                seated_scores.pop(seated.game_id, None)
                done.append(match)
        return left

    async def _finish_table(self, match: Match) -> HostedGame | None:
        """Seats a claimed table match's ticket at its seat of the table, then
        marks it matched: safe to run again, on any replica (the join's
        request record is the match's). A seat taken meanwhile (or a table
        dealt, ended or gone) gives the ticket back to the waiting: ``None``."""
        seat = next(i for i, s in enumerate(match.seats) if s.ticket_id)
        who = match.seats[seat]
        record = RequestRecord(match.match_id, MATCH_SCOPE, "QuickPlaySeat", match.match_id)
        try:
            game, _ = await self._lobby.join(match.table, seat, who.name, record, who.player_id)
        except (GameStateError, GameNotFound) as lost:
            await self.tickets.release(match)
            log.info("table seat lost", game=match.table, seat=seat, reason=lost.reason)
            return None
        await self.tickets.complete(match, match.table, self._clock())
        log.info("ticket seated at a table", game=match.table, queue=match.queue, seat=seat)
        return game

    def _followed_since(self) -> float | None:
        """The time a ticket must have been followed since to be matched now
        (the clock is read again for each claim: finishing a match takes time)."""
        grace = self.config.grace
        return None if grace is None else self._clock() - grace

    async def _followed(self, waiting: list[Ticket], now: float) -> list[Ticket]:
        """The waiting tickets a stream followed within the grace; the others
        are cancelled: their players are gone (a replica that died took their
        streams, or they left). The store checks each cancel against a stream
        that follows it at that very moment, which keeps it waiting."""
        if self.config.grace is None or not waiting:
            return waiting
        since = now - self.config.grace
        touched = await self.tickets.touched_many([t.ticket_id for t in waiting])
        followed = []
        for t, at in zip(waiting, touched, strict=True):
            if followed_at(t, at) >= since:
                followed.append(t)
                continue
            ended = await self.tickets.end(t.ticket_id, CANCELLED, now, unfollowed_since=since)
            if ended is not None and ended.state == CANCELLED:
                log.info("ticket unfollowed", ticket=t.ticket_id, queue=t.queue)
            elif ended is not None and ended.state == WAITING:
                followed.append(ticket_of(ended))
        return followed

    def _match(
        self, group: list[Ticket], bots: int, now: float, config: MatchmakerConfig | None = None
    ) -> Match:
        """The match of a group, its game's turn timer the queue's
        (``config``, by default the matchmaker's)."""
        first = group[0]
        seats = tuple(
            MatchSeat(t.ticket_id, player, name, None, score)
            for t in group
            for (player, name), score in zip(
                [(t.player_id, t.name), *t.members], t.scores or [t.rating] * t.size, strict=True
            )
        )
        seats += tuple(
            MatchSeat("", "", f"{self.config.bot} bot {len(seats) + i + 1}", self.config.bot)
            for i in range(bots)
        )
        return Match(
            secrets.token_hex(12),
            first.queue,
            first.variant,
            dict(first.overrides),
            first.rated,
            seats,
            now,
            (config or self.config).turn_timer_seconds,
        )

    async def _look_at_games(self, queue: str, now: float) -> None:
        """Records the ratings of the queue's rated games that finished and
        were not recorded (their last move's replica died first), a few a
        pass; the rest are looked at again ``look_every`` seconds later."""
        for game_id in await self.tickets.in_play(
            queue, now - self.config.look_every, self.config.looks_per_pass
        ):
            try:
                version = await self._games.version(game_id)
                last = await self._games.read(game_id, version - 1) if version else []
            except GameNotFound:
                last = []
            if not last:  # gone (expired)
                await self.tickets.looked_at(queue, game_id, None)
            elif type(log_event(json.loads(last[-1].data))).__name__ in END_EVENTS:
                await self._ratings.game_finished(HostedGame.fold(await self._games.read(game_id)))
                await self.tickets.looked_at(queue, game_id, None)
            else:
                await self.tickets.looked_at(queue, game_id, now)

    async def finish(self, match: Match) -> HostedGame:
        """Creates the match's game (or finds it), deals it, then marks its
        tickets matched: safe to run again, on any replica."""
        record = RequestRecord(match.match_id, MATCH_SCOPE, "QuickPlay", match.match_id)
        game_id = game_id_for(record)
        seats = [SeatSpec(s.name, s.bot, s.player_id or None) for s in match.seats]
        try:
            game = await self._lobby.create(
                match.variant,
                match.overrides,
                seats,
                match.turn_timer_seconds,
                request=record,
                rated=match.rated,
            )
        except GameExists:
            game = await self._lobby.deal_if_full(game_id)
        else:
            if game.engine is None:
                game = await self._dealt(game_id)
        await self.tickets.complete(match, game_id, self._clock())
        log.info("match made", game=game_id, queue=match.queue, seats=len(seats))
        return game

    async def _dealt(self, game_id: str) -> HostedGame:
        """The match's game, dealt: a deal that loses a race with another
        writer of the game (a replica finishing the same match) reads the
        game again and deals it if still needed, ``DEAL_TRIES`` times at
        most; past them the conflict is raised and the match stays forming,
        for the next pass."""
        for _ in range(DEAL_TRIES - 1):
            with contextlib.suppress(VersionConflict):
                return await self._lobby.deal_if_full(game_id)
        return await self._lobby.deal_if_full(game_id)
