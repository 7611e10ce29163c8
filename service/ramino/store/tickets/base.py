"""The ticket store's records and protocol (its backends: ``memory``,
``sqlite``, ``redis``, beside this module).

A record is what the store keeps and answers: plain data, serialised as it
is written. The application's ``Ticket`` and ``Party``
(``ramino.app.quick.tickets``) are these records with what the application
asks of them, made from a record the store answers by one function each."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import AsyncIterator, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Protocol

import orjson

from ramino import reasons
from ramino.errors import BadRequest
from ramino.store.base import StoreError

__all__ = [
    "ACTIVE",
    "Changes",
    "CANCELLED",
    "ENDED_KEPT",
    "EXPIRED",
    "MATCHED",
    "MATCHING",
    "WAITING",
    "Invitation",
    "Match",
    "MatchSeat",
    "PartyMember",
    "PartyRecord",
    "TicketExists",
    "TicketRecord",
    "TicketRequestReused",
    "TicketStore",
    "TooManyTickets",
    "followed_at",
    "matched",
    "over_bound",
    "new_ticket_id",
    "queue_of",
]

WAITING = "waiting"
MATCHING = "matching"
MATCHED = "matched"
CANCELLED = "cancelled"
EXPIRED = "expired"
ACTIVE = (WAITING, MATCHING)
"""The states a ticket counts against its player's bound in."""
ENDED_KEPT = 600.0
"""Seconds an ended ticket stays readable (a client reconnecting to its
stream learns how it ended), then it is dropped."""
_QUEUE_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyz-_")


class TicketExists(StoreError):
    """A ticket id already in use by another ticket (ALREADY_EXISTS)."""

    def __init__(self, ticket_id: str) -> None:
        super().__init__(f"ticket {ticket_id} exists", reasons.TICKET_EXISTS)
        self.ticket_id = ticket_id


class TicketRequestReused(BadRequest):
    """A request id the player used before for a ticket with other fields
    (INVALID_ARGUMENT, REQUEST_ID_REUSED): a new request needs a new id."""

    def __init__(self) -> None:
        super().__init__(
            "this request id was already used for another ticket of yours (other "
            "variant, seats, properties or name): send a new request id for a new ticket",
            reasons.REQUEST_ID_REUSED,
        )

    def __reduce__(self) -> tuple[type[TicketRequestReused], tuple[()]]:  # type: ignore[override]
        return (type(self), ())


class TooManyTickets(BadRequest):
    """The player, or a member of the party's ticket (``member``), holds
    the most active tickets the server allows: a party's ticket counts
    against each of its players' bound."""

    def __init__(self, limit: int, member: str = "") -> None:
        who = f"player {member} of the party holds" if member else "a player holds"
        super().__init__(
            f"{who} at most {limit} tickets at once (a party's ticket counts for each of "
            "its players)",
            reasons.TOO_MANY_TICKETS,
        )
        self.limit = limit
        self.member = member

    def __reduce__(self) -> tuple[type[TooManyTickets], tuple[int, str]]:  # type: ignore[override]
        return (type(self), (self.limit, self.member))


def over_bound(ticket: TicketRecord, active: dict[str, int], limit: int) -> None:
    """:class:`TooManyTickets` when one of the ticket's players (its own,
    then its party's members) holds ``limit`` active tickets (``active``:
    each one's count, the party's tickets it is a member of included)."""
    for player in ticket.players:
        if active[player] >= limit:
            raise TooManyTickets(limit, "" if player == ticket.player_id else player)


def followed_at(ticket: TicketRecord, touched: float) -> float:
    """When a stream last followed the ticket (``touched``: the store's
    note, 0 for none), or its submission when none did since."""
    return max(touched, ticket.created_at)


def new_ticket_id(queue: str, player_id: str = "", request_id: str = "") -> str:
    """A ticket id in ``queue``: random, or, for a player's request id, the
    same for every submission of that request (a retry that finds no ticket,
    because the first died before writing it, writes it under its id)."""
    if not request_id:
        return f"{queue}.{secrets.token_hex(12)}"
    digest = hashlib.sha256(f"{player_id}\0{request_id}".encode()).hexdigest()
    return f"{queue}.{digest[:24]}"


def queue_of(ticket_id: str) -> str | None:
    """The queue of a ticket id this store made; ``None`` for any other text."""
    queue, sep, rest = ticket_id.partition(".")
    if (
        not sep
        or not 1 <= len(queue) <= 64
        or not set(queue) <= _QUEUE_CHARS
        or len(rest) != 24
        or not set(rest) <= _QUEUE_CHARS
    ):
        return None
    return queue


def known(kind: type, stored: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``kind`` in a stored record, any other left out: a
    record written by a newer replica (a field added since) is read by an
    older one during a rolling update, which both run."""
    names = {f.name for f in fields(kind)}
    return {k: v for k, v in stored.items() if k in names}


@dataclass(frozen=True, slots=True)
class TicketRecord:
    """One player's wish to play, in one queue, as the store keeps it."""

    ticket_id: str
    player_id: str
    name: str
    queue: str
    min_seats: int
    max_seats: int
    properties: dict[str, str]
    """Must equal, key by key, those of every ticket it is matched with
    (a key one ticket does not set accepts any value)."""
    rating: float
    """The player's leaderboard score when the ticket was submitted."""
    created_at: float
    variant: str = ""
    """The queue's games: its variant, overrides and whether rated (every
    ticket carries them, so any replica can create its match's game)."""
    overrides: dict[str, Any] = field(default_factory=dict)
    rated: bool = False
    bots: bool = True
    """Bots may fill its game after the matchmaker's wait."""
    state: str = WAITING
    match_id: str = ""
    game_id: str = ""
    seat: int = -1
    ended_at: float = 0.0
    request_id: str = ""
    """The player's request id it was submitted with (empty: none): a
    submission of the same player with the same request id answers this
    ticket (see :meth:`TicketStore.submit`)."""
    fingerprint: str = ""
    """What the submission asked (its queue, seats, properties, name), for
    telling a retry from another request under the same request id."""
    party_id: str = ""
    """The party it queues (empty: a player alone); its player is the
    party's leader."""
    members: list[list[str]] = field(default_factory=list)
    """The party's other players when it was submitted, each ``[player id,
    name]``: they are seated with the leader, in this order."""
    member_seats: list[int] = field(default_factory=list)
    """Once matched, the seat of each of :attr:`members`."""
    scores: list[float] = field(default_factory=list)
    """Each of :attr:`players`' leaderboard score at submission (its
    :attr:`rating` is their mean)."""
    numbers: dict[str, float] = field(default_factory=dict)
    """Its numeric properties, which other tickets' clauses test with ranges."""
    clauses: list[dict[str, Any]] = field(default_factory=list)
    """What it asks of the tickets it meets (``ramino.app.quick.clauses``)."""
    rating_band: float = 0.0
    """The most rating difference its player accepts (0: none but the window)."""
    table: list[dict[str, Any]] = field(default_factory=list)
    """Once matched, every seat of its game in order: ``player_id``,
    ``name``, ``bot`` (its kind, or ``None`` for a person) and ``rating``
    (the player's score at submission; 0 for a bot)."""

    @property
    def players(self) -> list[str]:
        """Every player it seats: its own, then its party's members (each
        one's ticket bound counts it)."""
        return [self.player_id, *(m[0] for m in self.members)]

    def __eq__(self, other: object) -> bool:
        # The application's ticket is a record under a class of its own:
        # the same fields are the same ticket, whichever class each is.
        if not isinstance(other, TicketRecord):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(TicketRecord))

    def to_json(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def from_json(cls, data: str | bytes) -> TicketRecord:
        return cls(**known(cls, orjson.loads(data)))


@dataclass(frozen=True, slots=True)
class MatchSeat:
    """A seat of a match: a ticket's player, or a bot (empty ticket id)."""

    ticket_id: str
    player_id: str
    name: str
    bot: str | None = None
    rating: float = 0.0
    """The player's leaderboard score at submission (0 for a bot)."""


@dataclass(frozen=True, slots=True)
class Match:
    """Tickets claimed together, and everything needed to create their game
    (whichever replica finishes it)."""

    match_id: str
    queue: str
    variant: str
    overrides: dict[str, Any]
    rated: bool
    seats: tuple[MatchSeat, ...]
    created_at: float
    turn_timer_seconds: int = 0
    table: str = ""
    """The open lobby table whose seat the match's one ticket takes
    (joinOrCreate), at its index in :attr:`seats` (the others are left
    empty); empty for a match that deals a new game."""

    @property
    def ticket_ids(self) -> list[str]:
        """Its tickets, once each (a party's ticket has several seats)."""
        return list(dict.fromkeys(s.ticket_id for s in self.seats if s.ticket_id))

    def to_json(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def from_json(cls, data: str | bytes) -> Match:
        d = known(cls, orjson.loads(data))
        d["seats"] = tuple(MatchSeat(**known(MatchSeat, s)) for s in d["seats"])
        return cls(**d)


class TicketStore(Protocol):
    """Tickets and matches (memory, sqlite, redis)."""

    async def submit(self, ticket: TicketRecord, limit: int) -> TicketRecord:
        """Adds a waiting ticket and answers it; :class:`TooManyTickets` when
        one of its players (its own, or a member of its party) holds
        ``limit`` active tickets already (:meth:`active`),
        :class:`TicketExists` for a ticket id in use (Redis's store: by
        another ticket; the same ticket again is its submission run again by
        the client's retry, done). A ticket with a request id its player
        used before (and whose ticket is still kept) is not added: the
        ticket that request made is answered, in whatever state it is now,
        or :class:`TicketRequestReused` when its fingerprint differs."""
        ...

    async def live(self, player_id: str) -> list[TicketRecord]:
        """The player's waiting and matching tickets, oldest first."""
        ...

    async def ticket(self, ticket_id: str) -> TicketRecord | None: ...

    async def waiting(self, queue: str) -> list[TicketRecord]:
        """The queue's waiting tickets, oldest first."""
        ...

    async def queues(self) -> list[str]:
        """The queues with a waiting ticket or a forming match."""
        ...

    async def waiting_count(self, queue: str) -> int:
        """How many tickets wait in the queue (one read)."""
        ...

    async def claim(self, match: Match, followed_since: float | None = None) -> bool:
        """Claims all of ``match``'s tickets, if every one is still waiting
        and, given ``followed_since``, was followed at or after it
        (:func:`followed_at`, read in the same atomic step): True; or none
        (False)."""
        ...

    async def forming(self, queue: str) -> list[Match]:
        """The queue's claimed matches whose tickets are not matched yet."""
        ...

    async def release(self, match: Match) -> bool:
        """Gives a forming match's tickets back to the waiting (as they were
        before the claim) and forgets the match: a table's seat it was to take
        went to someone else. False when the match is not forming (completed
        or released before: nothing changes)."""
        ...

    async def complete(self, match: Match, game_id: str, now: float) -> bool:
        """Marks the match's tickets matched to ``game_id``, each with its
        seat, and, for a rated match, keeps the game among the queue's
        *rated games in play* (see :meth:`in_play`); False when it was
        completed before (nothing changes)."""
        ...

    async def in_play(self, queue: str, before: float, limit: int) -> list[str]:
        """The queue's rated games in play last looked at before ``before``,
        longest unseen first: the matchmaker records the ratings of those
        that finished (a replica that died between a game's last move and
        its ratings left them unrecorded) and looks at the others again later."""
        ...

    async def looked_at(self, queue: str, game_id: str, now: float | None) -> None:
        """The game was looked at ``now`` (still in play), or is done with
        (``None``: its ratings are recorded, or it is gone)."""
        ...

    async def offer_table(self, queue: str, game_id: str, at: float) -> None:
        """A lobby table whose open seats the queue's tickets may take
        (joinOrCreate), offered at ``at``; offered again, nothing changes."""
        ...

    async def tables(self, queue: str, limit: int) -> list[str]:
        """The tables offered to the queue, oldest first, ``limit`` at most
        (some may be dealt, ended or gone since: the matchmaker withdraws
        those it finds so)."""
        ...

    async def withdraw_table(self, queue: str, game_id: str) -> None:
        """The table takes no more of the queue's tickets."""
        ...

    async def end(
        self, ticket_id: str, state: str, now: float, unfollowed_since: float | None = None
    ) -> TicketRecord | None:
        """Ends a waiting ticket as ``state`` (cancelled or expired) and
        answers it; a ticket no longer waiting, or, given
        ``unfollowed_since``, followed at or after it (:func:`followed_at`,
        read in the same atomic step), is answered unchanged; an unknown one
        ``None``."""
        ...

    async def active(self, player_id: str) -> int:
        """How many waiting or matching tickets the player holds: their own,
        and the parties' tickets they are a member of (a party's ticket
        counts against each of its players' bound)."""
        ...

    async def touch(self, ticket_id: str, now: float) -> None:
        """Notes that a stream follows the ticket now (any replica's)."""
        ...

    async def touched(self, ticket_id: str) -> float:
        """When a stream last followed the ticket (0: never)."""
        ...

    async def touched_many(self, ticket_ids: Sequence[str]) -> list[float]:
        """:meth:`touched` of each ticket, in one read of the store."""
        ...

    async def party(self, party_id: str, now: float) -> PartyRecord | None:
        """The party, unless unknown or forgotten (past its ``expires_at``)."""
        ...

    async def put_party(self, party: PartyRecord, now: float) -> bool:
        """Writes the party if the store holds the version before its
        ``version`` (none for version 1), in one atomic step: True; else
        False and nothing changes (another writer came first)."""
        ...

    async def hold_party(
        self, player_id: str, party_id: str, now: float, replacing: str = ""
    ) -> tuple[str, float]:
        """The player's one party: held for ``party_id`` at ``now`` when the
        player is held for none, for this one, or for ``replacing`` (a hold
        its caller found stale), in one atomic step (the player's slot on
        Redis); answers the party the player is held for and since when (the
        other one, unchanged, when it is neither)."""
        ...

    async def release_party(self, player_id: str, party_id: str) -> None:
        """The player is no longer held for ``party_id`` (a hold for another
        party is left as it is)."""
        ...

    def changes(self, queue: str) -> AsyncIterator[list[str]]:
        """The ids of the queue's tickets that stop waiting (matched,
        cancelled, expired), in batches as they do, from the moment the
        iteration starts: the wake-up of the streams that follow them, which
        then read their ticket (a notification lost to a reconnect is made
        up by the streams' own slow look, see ``ramino.app.quick.play``). Memory
        and sqlite notify within their process; Redis across replicas (a
        stream of the queue's slot, written by the scripts that complete
        and end tickets)."""
        ...

    async def close(self) -> None: ...


class Changes:
    """The in-process feed of :meth:`TicketStore.changes` (memory, sqlite):
    each iteration a queue of its own, fed by :meth:`tell`."""

    def __init__(self) -> None:
        self._readers: dict[str, set[asyncio.Queue[list[str]]]] = {}

    def tell(self, queue: str, ticket_ids: list[str]) -> None:
        for reader in self._readers.get(queue, ()):
            reader.put_nowait(list(ticket_ids))

    async def follow(self, queue: str) -> AsyncIterator[list[str]]:
        reader: asyncio.Queue[list[str]] = asyncio.Queue()
        self._readers.setdefault(queue, set()).add(reader)
        try:
            while True:
                yield await reader.get()
        finally:
            readers = self._readers.get(queue, set())
            readers.discard(reader)
            if not readers:
                self._readers.pop(queue, None)


def matched(ticket: TicketRecord, match: Match, game_id: str, now: float) -> TicketRecord:
    """The ticket matched to ``game_id``, with the seat of each of its players."""
    seats = {s.player_id: i for i, s in enumerate(match.seats) if s.ticket_id == ticket.ticket_id}
    return replace(
        ticket,
        state=MATCHED,
        game_id=game_id,
        seat=seats[ticket.player_id],
        member_seats=[seats[m[0]] for m in ticket.members],
        table=[
            {"player_id": s.player_id, "name": s.name, "bot": s.bot, "rating": s.rating}
            for s in match.seats
        ],
        ended_at=now,
    )


@dataclass(frozen=True, slots=True)
class PartyMember:
    """A player of a party: its leader, or one who accepted an invitation."""

    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class Invitation:
    """The leader's invitation of one player, accepted at most once."""

    invitation_id: str
    player_id: str
    """The only player who may accept it."""
    expires_at: float
    used: bool = False


@dataclass(frozen=True, slots=True)
class PartyRecord:
    """Players who queue as one ticket (its leader's) and sit in one game,
    as the store keeps them.

    Every change writes it whole over the version it was read at
    (:meth:`TicketStore.put_party`), so two replicas changing one party at
    once never both succeed: the loser reads it again."""

    party_id: str
    leader: PartyMember
    members: tuple[PartyMember, ...]
    """The players besides the leader, in the order they joined."""
    invitations: tuple[Invitation, ...]
    created_at: float
    expires_at: float
    """When the store forgets it (each change pushes it back)."""
    ticket_id: str = ""
    """Its last ticket (empty: none yet): a live one is the party queued."""
    disbanded: bool = False
    """Its leader left: it is gone for everyone."""
    version: int = 1

    def __eq__(self, other: object) -> bool:
        # As a ticket's (:meth:`TicketRecord.__eq__`).
        if not isinstance(other, PartyRecord):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(PartyRecord))

    def to_json(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def from_json(cls, data: str | bytes) -> PartyRecord:
        d = known(cls, orjson.loads(data))
        d["leader"] = PartyMember(**known(PartyMember, d["leader"]))
        d["members"] = tuple(PartyMember(**known(PartyMember, m)) for m in d["members"])
        d["invitations"] = tuple(Invitation(**known(Invitation, i)) for i in d["invitations"])
        return cls(**d)
