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

Rating windows (``docs/matchmaking.md``): a ticket accepts a mate whose
rating differs from its own by at most ``window(wait)`` points, where
``window(wait) = min(window_max, window_base + window_step * floor(wait /
window_interval))``; two tickets may meet when the wider of their two windows
allows it, so the longest waiter is never held back by a newcomer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import math
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import structlog

import ramino
from ramino import reasons, tasks
from ramino.app.clauses import (
    allows,
    allows_no_properties,
    checked_band,
    checked_clauses,
    checked_numbers,
)
from ramino.app.lobby import Lobby, checked_name
from ramino.app.log import END_EVENTS, Header, HostedGame, SeatSpec, log_event
from ramino.app.ratings import Ratings
from ramino.app.table import game_id_for
from ramino.bots import BOT_KINDS
from ramino.engine import trial_deal
from ramino.errors import BadRequest, GameStateError, NotFound
from ramino.store import GameExists, GameNotFound, RequestRecord, Store, VersionConflict
from ramino.store.tickets import (
    CANCELLED,
    EXPIRED,
    WAITING,
    Match,
    MatchSeat,
    Party,
    Ticket,
    TicketStore,
    followed_at,
    new_ticket_id,
)

__all__ = [
    "DEAL_TRIES",
    "GRACE",
    "MatchmakerConfig",
    "Matchmaker",
    "QueueSpec",
    "expected_wait",
    "form",
    "window",
]

log = structlog.get_logger("ramino.matchmaker")

MAX_REQUEST_ID = 128
"""The longest request id of a ticket, as of a game's requests."""
MAX_PROPERTIES = 8
MAX_PROPERTY_TEXT = 32
MATCH_SCOPE = "matchmaker"
"""The scope of the request record a match's game is created with."""
DEAL_TRIES = 5
"""Times a match's game is dealt again after losing a race to another writer."""
GRACE = 10.0
"""Seconds a waiting ticket outlives the last stream that followed it (for a
reconnect), by default."""
TABLES_LOOKED = 50
"""Tables offered to a queue that a pass looks at, oldest first."""
FORM_ON_LOOP = 64
"""The most waiting tickets a pass groups (:func:`form`) on the event loop;
more are grouped on a thread. Grouping is quadratic in the tickets that
meet no one (each scans the others), and a client's tickets can be made to
meet no one (a region of their own, a must clause nobody fills): on the
loop, 1,000 of them held it 2.3 s a pass, every call of the replica waiting;
on a thread it turns every 12 ms."""


QUEUE_KNOBS: dict[str, type] = {
    "window_base": float,
    "window_step": float,
    "window_interval": float,
    "window_max": float,
    "settle": float,
    "bots_after": float,
    "turn_timer_seconds": int,
    "prefer_for": float,
}
"""The knobs a queue may set for itself (:attr:`MatchmakerConfig.queues`)."""


@dataclass(frozen=True, slots=True)
class MatchmakerConfig:
    """The matchmaker's knobs (``ramino serve``'s ``--quick-*`` flags), and
    those of some queues over them (``--quick-queues``)."""

    max_tickets_per_player: int = 3
    ticket_ttl: float = 300.0
    """Seconds a ticket waits at most, then it expires."""
    grace: float | None = GRACE
    """Seconds a waiting ticket may go unfollowed (no ticket stream, on any
    replica, noted it in the store since, nor was it submitted since): a pass
    then cancels it, and no match claims it. ``None``: tickets need no
    stream (the matchmaker driven without its MatchService: simulations and
    tests that submit directly)."""
    window_base: float = 3.0
    window_step: float = 3.0
    window_interval: float = 10.0
    window_max: float = 60.0
    settle: float = 5.0
    """Seconds the oldest ticket of a group that could start (its smallest
    count reached, its largest not) waits for more before it starts."""
    bots_after: float | None = 30.0
    """Seconds after which the oldest ticket's game is filled with bots up to
    its smallest seat count; ``None``: never."""
    bot: str = "greedy"
    turn_timer_seconds: int = 60
    """The games' turn timer: a player who walks away is played for, and
    loses (``docs/ratings.md``)."""
    tick: float = 0.5
    lease_ttl: float = 10.0
    look_every: float = 30.0
    """Seconds between two looks at a rated game in play (to record its
    ratings if its last move's replica died before it did)."""
    looks_per_pass: int = 20
    prefer_for: float = 10.0
    """Seconds a ticket's ``should`` clauses hold (``ramino.app.clauses``)."""
    party_size: int = 4
    """The most players a party holds, its leader included."""
    invitation_ttl: float = 300.0
    """Seconds an invitation to a party may be accepted."""
    party_ttl: float = 3600.0
    """Seconds a party is kept after its last change."""
    queues: dict[str, dict[str, float]] = field(default_factory=dict)
    """Knobs of some queues over those above, by variant (``"gin"``) or by
    variant and rating (``"gin/rated"``, ``"gin/unrated"``, over the
    variant's): any of :data:`QUEUE_KNOBS` (``bots_after`` 0: never)."""

    def for_queue(self, variant: str, rated: bool) -> MatchmakerConfig:
        """The knobs of a queue of ``variant``, rated or not."""
        given = {
            **self.queues.get(variant, {}),
            **self.queues.get(f"{variant}/{'rated' if rated else 'unrated'}", {}),
        }
        knobs: dict[str, Any] = {k: QUEUE_KNOBS[k](v) for k, v in given.items()}
        if not knobs:
            return self
        if knobs.get("bots_after") == 0:
            knobs["bots_after"] = None
        return replace(self, queues={}, **knobs)

    def rated_turn_timers(self) -> set[int]:
        """The turn timers of the rated queues' games: the default, and each
        rated queue's of its own (``docs/matchmaking.md``)."""
        variants = {name.partition("/")[0] for name in self.queues}
        return {self.turn_timer_seconds} | {
            self.for_queue(v, True).turn_timer_seconds for v in variants
        }

    def __post_init__(self) -> None:
        if self.bot not in BOT_KINDS:
            raise ValueError(f"unknown bot {self.bot!r}: one of {', '.join(sorted(BOT_KINDS))}")
        if self.max_tickets_per_player < 1:
            raise ValueError("max_tickets_per_player must be at least 1")
        if not 2 <= self.party_size <= 6:
            raise ValueError(f"a party holds 2 to 6 players, not {self.party_size}")
        if self.grace is not None and not self.grace > 0:
            raise ValueError(f"a ticket's grace is a positive number of seconds, not {self.grace}")
        if not (
            0 <= self.window_base <= self.window_max < math.inf
            and 0 <= self.window_step < math.inf
            and 0 < self.window_interval < math.inf
        ):
            raise ValueError(
                "a rating window schedule is base, step, interval and max: base and step "
                "0 or more, interval above 0, max at least base, not "
                f"{self.window_base}, {self.window_step}, {self.window_interval}, "
                f"{self.window_max}"
            )
        if not 0 <= self.prefer_for < math.inf:
            raise ValueError(f"prefer_for is 0 or more seconds, not {self.prefer_for}")
        if not 0 <= self.settle < math.inf:
            raise ValueError(f"settle is 0 or more seconds, not {self.settle}")
        if self.bots_after is not None and not 0 <= self.bots_after < math.inf:
            raise ValueError(f"bots_after is 0 or more seconds, not {self.bots_after}")
        if not 0 <= self.turn_timer_seconds <= 24 * 3600:
            raise ValueError(f"a turn timer is 0 to 86400 seconds, not {self.turn_timer_seconds}")
        for name, knobs in self.queues.items():
            self._check_queue(name, knobs)

    def _check_queue(self, name: str, knobs: dict[str, float]) -> None:
        """A queue's knobs, each known and of its type, and the config they
        make valid; a ValueError naming the queue and the knob otherwise."""
        variant, _, rating = name.partition("/")
        try:
            ramino.Variant(variant)
        except ramino.VariantError:
            raise ValueError(f"queue {name!r}: no variant {variant!r}") from None
        if rating not in ("", "rated", "unrated"):
            raise ValueError(f"queue {name!r}: VARIANT, VARIANT/rated or VARIANT/unrated")
        for knob, value in knobs.items():
            kind = QUEUE_KNOBS.get(knob)
            if kind is None:
                raise ValueError(
                    f"queue {name!r}: unknown knob {knob!r}: one of {', '.join(QUEUE_KNOBS)}"
                )
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"queue {name!r}: {knob} is a number, not {value!r}")
            if kind is int and value != int(value):
                raise ValueError(f"queue {name!r}: {knob} is a whole number, not {value!r}")
        try:
            self.for_queue(variant, rating == "rated")
        except ValueError as bad:
            raise ValueError(f"queue {name!r}: {bad}") from None


@dataclass(frozen=True, slots=True)
class QueueSpec:
    """What the games of a queue are: tickets of one queue meet."""

    variant: str
    overrides: dict[str, Any]
    rated: bool
    bots: bool = True
    """Whether bots may fill its games' seats after the wait."""

    @property
    def key(self) -> str:
        parts: list[Any] = [self.variant, self.overrides, self.rated]
        if not self.bots:
            parts.append("without bots")
        text = json.dumps(parts, sort_keys=True)
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        name = "".join(c for c in self.variant.lower() if c.isalnum())[:24]
        return f"{name}-{digest}" if name else digest


def table_queues(header: Header) -> set[str]:
    """The queues whose tickets may take a seat of a quick-play table: its
    variant, overrides and rated flag, with bots (and, when it has no bot
    seat, without)."""
    keys = {QueueSpec(header.variant, header.overrides, header.rated).key}
    if not any(s.bot for s in header.seats):
        keys.add(QueueSpec(header.variant, header.overrides, header.rated, bots=False).key)
    return keys


def table_seat(
    game: HostedGame,
    ticket: Ticket,
    waited: float = 0.0,
    prefer_for: float = 0.0,
    scores: Sequence[float] = (),
) -> int | None:
    """The open seat of a quick-play table that ``ticket``, after waiting
    ``waited`` seconds, may take: its first, when the table waits for
    players, has a seat count the ticket accepts, does not seat its player
    already, has a turn timer (as quick play's games have), and the
    ticket's own wishes allow it; else ``None``. A table
    sets no property, so every ticket's properties accept it, but a clause
    that asks for one (a must clause, or a should clause for the queue's
    ``prefer_for``) does not; and the ticket's rating band holds against
    the ``scores`` of the people seated there (the queue's rating window
    does not: who sits at a table is its creator's business, but a
    player's band and clauses are the player's). A party's ticket takes
    one new game with all its players, never a table's seat."""
    open_seats = game.open_seats
    if (
        not open_seats
        or ticket.size > 1
        or game.engine is not None
        or game.ended is not None
        or not ticket.min_seats <= len(game.players) <= ticket.max_seats
        or ticket.player_id in game.player_ids.values()
        or game.header.turn_timer_seconds <= 0  # (one offered before tables needed one)
        or not allows_no_properties(ticket, waited, prefer_for)
        or (ticket.rating_band and any(abs(s - ticket.rating) > ticket.rating_band for s in scores))
    ):
        return None
    return open_seats[0]


def window(wait: float, config: MatchmakerConfig) -> float:
    """The rating difference a ticket accepts after ``wait`` seconds."""
    steps = math.floor(max(0.0, wait) / config.window_interval)
    return min(config.window_max, config.window_base + config.window_step * steps)


def expected_wait(ticket: Ticket, waiting: int, now: float, config: MatchmakerConfig) -> float:
    """Seconds until the ticket's table may start if nobody else comes, from
    how many tickets wait in its queue (``waiting``, itself included): once
    its anchor has waited ``settle`` when the queue holds enough tickets for
    its smallest table, else once bots may fill it; 0 when neither will
    (unknown: it waits for people). An estimate: mates whose properties or
    rating do not fit are counted too."""
    waited = now - ticket.created_at
    if ticket.size + waiting - 1 >= ticket.min_seats:
        return max(0.0, config.settle - waited)
    if ticket.bots and config.bots_after is not None:
        return max(0.0, config.bots_after - waited)
    return 0.0


def _compatible(a: Ticket, b: Ticket, now: float, config: MatchmakerConfig) -> bool:
    if not set(a.players).isdisjoint(b.players):
        return False
    for key, value in a.properties.items():
        if key in b.properties and b.properties[key] != value:
            return False
    if not (
        allows(a, b, now - a.created_at, config.prefer_for)
        and allows(b, a, now - b.created_at, config.prefer_for)
    ):
        return False
    difference = abs(a.rating - b.rating)
    if any(t.rating_band and difference > t.rating_band for t in (a, b)):
        return False
    wider = max(window(now - a.created_at, config), window(now - b.created_at, config))
    return difference <= wider


def form(
    waiting: Sequence[Ticket], now: float, config: MatchmakerConfig
) -> list[tuple[list[Ticket], int]]:
    """Groups of waiting tickets (oldest first) to match now, each with the
    bots that fill it: each ticket is an anchor in its turn and takes the
    oldest compatible tickets that keep a seat count all accept (a party's
    ticket takes a seat for each of its players)."""
    used: set[str] = set()
    groups: list[tuple[list[Ticket], int]] = []
    for anchor in waiting:
        if anchor.ticket_id in used:
            continue
        group, low, high = [anchor], anchor.min_seats, anchor.max_seats
        seated = anchor.size
        for t in waiting:
            if seated >= high:
                break
            if t.ticket_id in used or t is anchor:
                continue
            lo, hi = max(low, t.min_seats), min(high, t.max_seats)
            # A seat count all accept, with room for its players.
            if lo > hi or seated + t.size > hi:
                continue
            if not all(_compatible(t, g, now, config) for g in group):
                continue
            group.append(t)
            low, high = lo, hi
            seated += t.size
        waited = now - anchor.created_at
        bots = 0
        if seated == high or (seated >= low and waited >= config.settle):
            pass
        elif anchor.bots and config.bots_after is not None and waited >= config.bots_after:
            bots = max(0, low - seated)
        else:
            continue
        used.update(t.ticket_id for t in group)
        # Seats in order of arrival (an older ticket may join a later anchor).
        groups.append((sorted(group, key=lambda t: (t.created_at, t.ticket_id)), bots))
    return groups


class Matchmaker:
    """Tickets, their matching and their games, for one replica."""

    def __init__(
        self,
        tickets: TicketStore,
        games: Store,
        lobby: Lobby,
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
        by :class:`~ramino.app.parties.Parties`), the ticket seats its
        members too, and its rating is their mean. ``numbers``, ``clauses``
        and ``rating_band``: the matching grammar (:mod:`ramino.app.clauses`)."""
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
        return stored

    async def live(self, player_id: str) -> list[Ticket]:
        """The player's waiting and matching tickets, oldest first."""
        return await self.tickets.live(player_id)

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
        return found

    async def cancel(self, player_id: str, ticket_id: str) -> Ticket:
        """Cancels a waiting ticket that seats the player (a party's member
        may withdraw the party's); a ticket already matched or ended is
        answered as it is."""
        await self.ticket(player_id, ticket_id)
        ended = await self.tickets.end(ticket_id, CANCELLED, self._clock())
        assert ended is not None
        return ended

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
        for t in await self._followed(await self.tickets.waiting(queue), now):
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
                followed.append(ended)
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
