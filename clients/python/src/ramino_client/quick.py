"""Quick play (MatchService): tickets, ratings, leaderboards, histories and
game records, as ``client.quick`` on :class:`~ramino_client.Client` and
:class:`~ramino_client.AsyncClient`. Every call needs the client's
``player_token`` (the host's).

>>> with Client("localhost:50051", player_token=token) as client:  # doctest: +SKIP
...     seat = client.quick.play("rummy", "Ann", min_seats=2, max_seats=4)
...     print(seat.view().seat)
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

import grpc
from google.protobuf.message import Message

from ramino_client import _convert, _wire
from ramino_client._loop import Twin, blocking, blocking_iter
from ramino_client.errors import ServiceError, error_from_rpc
from ramino_client.models import BotLevel, GameStatus
from ramino_client.v1 import match_pb2

if TYPE_CHECKING:
    from ramino_client.aio import AsyncClient, AsyncSeat
    from ramino_client.sync import Client, Seat

__all__ = [
    "AsyncQuick",
    "Invitation",
    "LeaderboardEntry",
    "MatchClause",
    "Party",
    "PartyMember",
    "LeaderboardPage",
    "PlayerGame",
    "PlayerGameSeat",
    "Quick",
    "Rating",
    "TicketNotSeated",
    "TicketOptions",
    "TicketSeat",
    "TicketUpdate",
    "SEARCHING",
    "WIDENED",
    "MATCHED",
    "EXPIRED",
    "CANCELLED",
]

SEARCHING, WIDENED, MATCHED, EXPIRED, CANCELLED = (
    "searching",
    "widened",
    "matched",
    "expired",
    "cancelled",
)
_STATES = {
    match_pb2.TICKET_STATE_SEARCHING: SEARCHING,
    match_pb2.TICKET_STATE_WIDENED: WIDENED,
    match_pb2.TICKET_STATE_MATCHED: MATCHED,
    match_pb2.TICKET_STATE_EXPIRED: EXPIRED,
    match_pb2.TICKET_STATE_CANCELLED: CANCELLED,
}
FINAL = frozenset({MATCHED, EXPIRED, CANCELLED})


Req = TypeVar("Req", bound=Message)
Resp = TypeVar("Resp", bound=Message)


def _rpc(method: str, req: type[Req], resp: type[Resp]) -> _wire.Rpc[Req, Resp]:
    return _wire.Rpc(f"/ramino.v1.MatchService/{method}", req, resp)


mp = match_pb2
SUBMIT_TICKET = _rpc("SubmitTicket", mp.SubmitTicketRequest, mp.SubmitTicketResponse)
WATCH_TICKET = _rpc("WatchTicket", mp.WatchTicketRequest, mp.WatchTicketResponse)
CANCEL_TICKET = _rpc("CancelTicket", mp.CancelTicketRequest, mp.CancelTicketResponse)
GET_RATING = _rpc("GetRating", mp.GetRatingRequest, mp.GetRatingResponse)
LIST_LEADERBOARD = _rpc("ListLeaderboard", mp.ListLeaderboardRequest, mp.ListLeaderboardResponse)
LIST_TICKETS = _rpc("ListTickets", mp.ListTicketsRequest, mp.ListTicketsResponse)
LIST_PLAYER_GAMES = _rpc("ListPlayerGames", mp.ListPlayerGamesRequest, mp.ListPlayerGamesResponse)
GET_GAME_RECORD = _rpc("GetGameRecord", mp.GetGameRecordRequest, mp.GetGameRecordResponse)
CREATE_PARTY = _rpc("CreateParty", mp.CreatePartyRequest, mp.CreatePartyResponse)
INVITE_TO_PARTY = _rpc("InviteToParty", mp.InviteToPartyRequest, mp.InviteToPartyResponse)
JOIN_PARTY = _rpc("JoinParty", mp.JoinPartyRequest, mp.JoinPartyResponse)
LEAVE_PARTY = _rpc("LeaveParty", mp.LeavePartyRequest, mp.LeavePartyResponse)
GET_PARTY = _rpc("GetParty", mp.GetPartyRequest, mp.GetPartyResponse)
PARTY_LOOK = 0.5
"""Seconds between two looks of a member's ``party_play`` at the party
while it is not queued."""


@dataclass(frozen=True, slots=True)
class TicketUpdate:
    ticket: str
    """``tickets/{ticket}``."""
    state: str
    """One of ``searching``, ``widened``, ``matched``, ``expired``, ``cancelled``."""
    rating_window: float
    game: str = ""
    seat: int = 0
    seat_token: str = ""
    party: str = ""
    """``parties/{party}`` for a party's ticket (the seat is the caller's)."""
    opponents: tuple[TicketSeat, ...] = ()
    """Once matched: every other seat of the game, in seat order."""
    queue_size: int = 0
    """While searching: the tickets waiting in its queue, itself included."""
    expected_wait: float = 0.0
    """While searching: seconds until its table may start if nobody else
    comes (0: unknown)."""

    @property
    def final(self) -> bool:
        return self.state in FINAL


@dataclass(frozen=True, slots=True)
class TicketSeat:
    """A seat of a matched ticket's game."""

    seat: int
    player_name: str
    player: str
    """Empty for a bot."""
    bot: BotLevel | None
    """The bot's level; ``None`` for a person."""
    rating: float
    """The player's leaderboard score when the ticket was submitted."""


@dataclass(frozen=True, slots=True)
class PartyMember:
    player: str
    player_name: str


@dataclass(frozen=True, slots=True)
class Party:
    """Players who queue as one ticket (the leader's) and sit in one game."""

    name: str
    """``parties/{party}``."""
    leader: PartyMember
    members: tuple[PartyMember, ...]
    """The players besides the leader, in the order they joined."""
    ticket: str
    """Its last ticket (``tickets/{ticket}``; empty: none yet)."""
    max_players: int
    expires_at: float


@dataclass(frozen=True, slots=True)
class Invitation:
    """What the leader sends the invited player, for ``join_party``."""

    party: str
    invitation: str
    player: str
    expires_at: float


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    score: float
    games: int


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    rank: int
    player: str
    player_name: str
    rating: Rating


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    entries: tuple[LeaderboardEntry, ...]
    next_page_token: str
    caller_rank: int
    """0 while the caller is unrated."""


@dataclass(frozen=True, slots=True)
class PlayerGameSeat:
    seat: int
    player_name: str
    player: str
    score: int
    rank: int
    lost: bool


@dataclass(frozen=True, slots=True)
class PlayerGame:
    game: str
    variant: str
    finished_at: float
    seats: tuple[PlayerGameSeat, ...]
    rated: bool
    rating_before: Rating | None
    rating_after: Rating | None


RESUMES = 8
"""Times ``play`` submits its ticket again after a broken stream."""
_RESUMABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})


class TicketNotSeated(TimeoutError):
    """``play`` ends without a seat: the ticket expired or was cancelled
    (``state``), or its stream stayed broken after every resume (``state``
    empty; the cause is the last error). Always carries the ticket
    (``tickets/{ticket}``; empty only when no answer ever named it) and the
    request id it was submitted under: :meth:`Quick.watch`,
    :meth:`Quick.cancel` or ``play`` again with that ``request_id`` take it up."""

    def __init__(self, ticket: str, request_id: str, state: str, message: str) -> None:
        super().__init__(message)
        self.ticket, self.request_id, self.state = ticket, request_id, state


def _resumable(error: ServiceError) -> bool:
    return error.code in _RESUMABLE


def _backoff(attempt: int) -> float:
    return float(min(0.1 * 2**attempt, 2.0))


def _not_seated(ticket: str, request_id: str, update: TicketUpdate | None) -> TicketNotSeated:
    if update is not None:
        return TicketNotSeated(ticket, request_id, update.state, f"the ticket was {update.state}")
    return TicketNotSeated(
        ticket,
        request_id,
        "",
        f"the ticket's stream broke {RESUMES + 1} times: "
        f"{ticket or 'its ticket'} may still wait (request id {request_id})",
    )


def _update(msg: match_pb2.TicketUpdate) -> TicketUpdate:
    return TicketUpdate(
        msg.ticket,
        _STATES.get(msg.state, SEARCHING),
        msg.rating_window,
        msg.game,
        msg.seat,
        msg.seat_token,
        msg.party,
        tuple(
            TicketSeat(
                o.seat,
                o.player_name,
                o.player,
                _convert.bot_level(o.bot),
                o.rating,
            )
            for o in msg.opponents
        ),
        msg.queue_size,
        msg.expected_wait,
    )


def _party(msg: match_pb2.Party) -> Party:
    return Party(
        msg.name,
        PartyMember(msg.leader.player, msg.leader.player_name),
        tuple(PartyMember(m.player, m.player_name) for m in msg.members),
        msg.ticket,
        msg.max_players,
        msg.expire_time.ToNanoseconds() / 1e9,
    )


def _party_name(party: str) -> str:
    return party if party.startswith("parties/") else f"parties/{party}"


def _rating(msg: match_pb2.Rating) -> Rating:
    return Rating(msg.mu, msg.sigma, msg.score, msg.games)


def _page(msg: match_pb2.ListLeaderboardResponse) -> LeaderboardPage:
    return LeaderboardPage(
        tuple(
            LeaderboardEntry(e.rank, e.player, e.player_name, _rating(e.rating))
            for e in msg.entries
        ),
        msg.next_page_token,
        msg.caller_rank,
    )


def _games(msg: match_pb2.ListPlayerGamesResponse) -> tuple[PlayerGame, ...]:
    return tuple(
        PlayerGame(
            g.game,
            g.variant,
            g.finish_time.ToNanoseconds() / 1e9,
            tuple(
                PlayerGameSeat(s.seat, s.player_name, s.player, s.score, s.rank, s.lost)
                for s in g.seats
            ),
            g.rated,
            _rating(g.rating_before) if g.HasField("rating_before") else None,
            _rating(g.rating_after) if g.HasField("rating_after") else None,
        )
        for g in msg.games
    )


def _ticket_name(ticket: str) -> str:
    return ticket if ticket.startswith("tickets/") else f"tickets/{ticket}"


@dataclass(frozen=True, slots=True)
class MatchClause:
    """A condition on the tickets a ticket may meet, tested on the other
    ticket's properties (``docs/matchmaking.md``, "The matching grammar"):
    ``any_of`` string values, or a ``min``/``max`` range of a numeric one."""

    occur: str
    """``must``, ``should`` (a preference that gives way after the server's
    preference time) or ``must_not``."""
    key: str
    any_of: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None


_OCCURS = {
    "must": match_pb2.MatchClause.OCCUR_MUST,
    "should": match_pb2.MatchClause.OCCUR_SHOULD,
    "must_not": match_pb2.MatchClause.OCCUR_MUST_NOT,
}


def _clause(c: MatchClause) -> match_pb2.MatchClause:
    msg = match_pb2.MatchClause(
        occur=_OCCURS.get(c.occur, match_pb2.MatchClause.OCCUR_UNSPECIFIED), key=c.key
    )
    if c.any_of:
        msg.any_of.values.extend(c.any_of)
    elif c.min is not None or c.max is not None:
        msg.range.CopyFrom(match_pb2.NumberRange(min=c.min, max=c.max))
    return msg


class TicketOptions(TypedDict, total=False):
    """What a ticket asks for besides its variant and name."""

    min_seats: int
    """2 to 6 (default 2)."""
    max_seats: int
    """Default: min_seats."""
    rated: bool
    """Default true."""
    properties: Mapping[str, str]
    """Up to 8, such as region or language."""
    overrides: Mapping[str, Any]
    bots: bool
    """Whether bots may fill the table after the server's wait (default true)."""
    request_id: str
    """Chosen once per press of "play": submitted again with the same request
    id (a retry after a broken stream), the ticket is the first one's, never
    a second. ``play`` chooses one when none is given."""
    numeric_properties: Mapping[str, float]
    """Up to 8 numbers (latency, tier...) that other tickets' clauses test."""
    clauses: Sequence[MatchClause]
    """Up to 8 conditions on the tickets this one may meet."""
    rating_band: float
    """The most rating difference the player accepts (0: the server's window)."""
    party: str
    """``parties/{party}`` (or its id): the caller's party, which the caller
    leads, queues as one ticket; every member sits in the same game
    (members take their seats with ``party_play``)."""


def submit_request(
    variant: str, player_name: str, **options: Unpack[TicketOptions]
) -> match_pb2.SubmitTicketRequest:
    request = match_pb2.SubmitTicketRequest(
        variant=variant,
        player_name=player_name,
        min_seats=options.get("min_seats", 2),
        max_seats=options.get("max_seats", 0),
        rated=options.get("rated", True),
        properties=dict(options.get("properties") or {}),
        without_bots=not options.get("bots", True),
        request_id=options.get("request_id", ""),
        party=_party_name(options["party"]) if options.get("party") else "",
        numeric_properties=dict(options.get("numeric_properties") or {}),
        clauses=[_clause(c) for c in options.get("clauses") or ()],
        rating_band=options.get("rating_band", 0.0),
    )
    overrides = options.get("overrides")
    if overrides:
        request.overrides.CopyFrom(_convert.parameters_message(overrides))
    return request


def _invitation(
    request: match_pb2.InviteToPartyRequest, answer: match_pb2.InviteToPartyResponse
) -> Invitation:
    return Invitation(
        request.party, answer.invitation, request.player, answer.expire_time.ToNanoseconds() / 1e9
    )


def _join(party: str, invitation: str, player_name: str) -> match_pb2.JoinPartyRequest:
    return match_pb2.JoinPartyRequest(
        party=_party_name(party), invitation=invitation, player_name=player_name
    )


def _cancel(ticket: str) -> match_pb2.CancelTicketRequest:
    return match_pb2.CancelTicketRequest(ticket=_ticket_name(ticket))


def _watch(ticket: str) -> match_pb2.WatchTicketRequest:
    return match_pb2.WatchTicketRequest(ticket=_ticket_name(ticket))


def _board(
    variant: str, page_size: int, page_token: str, around_me: bool
) -> match_pb2.ListLeaderboardRequest:
    return match_pb2.ListLeaderboardRequest(
        variant=variant, page_size=page_size, page_token=page_token, around_caller=around_me
    )


def _record(game: str) -> match_pb2.GetGameRecordRequest:
    return match_pb2.GetGameRecordRequest(name=_wire.game_name(game))


class AsyncQuick:
    """Quick play for :class:`~ramino_client.AsyncClient` (and, each call
    waited for, :class:`Quick` for the blocking client)."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def _stream(
        self, rpc: _wire.Rpc[Any, Any], request: Any
    ) -> AsyncGenerator[TicketUpdate, None]:
        c = self._client
        call = c.open_stream(
            lambda channel: channel.unary_stream(
                rpc.path, request_serializer=rpc.serialize, response_deserializer=rpc.deserialize
            )(request, metadata=c._identity)
        )
        try:
            while (message := await call.read()) is not grpc.aio.EOF:
                yield _update(message.update)  # type: ignore[attr-defined]
        except grpc.RpcError as e:
            raise error_from_rpc(e) from e
        finally:
            call.cancel()

    def submit(
        self, variant: str, player_name: str, **options: Unpack[TicketOptions]
    ) -> AsyncGenerator[TicketUpdate, None]:
        """A new ticket's updates, until it is matched or ends."""
        return self._stream(SUBMIT_TICKET, submit_request(variant, player_name, **options))

    def watch(self, ticket: str) -> AsyncGenerator[TicketUpdate, None]:
        """A ticket's updates again (after a reconnect)."""
        return self._stream(WATCH_TICKET, _watch(ticket))

    async def cancel(self, ticket: str) -> TicketUpdate:
        return _update((await self._client.call(CANCEL_TICKET, _cancel(ticket))).update)

    async def play(
        self, variant: str, player_name: str, **options: Unpack[TicketOptions]
    ) -> AsyncSeat:
        """Submits a ticket and waits for its game: the caller's seat in it.
        A broken stream (the server unavailable or gone, the connection cut,
        before or after its first answer) is resumed: the ticket is
        submitted again under the same request id (one is chosen when none
        is given), which follows the same ticket and never makes a second.
        Raises :class:`TicketNotSeated`, which carries the ticket, when the
        ticket expires or is cancelled or its stream stays broken; an error
        of the request itself (a bad variant...) as it is."""
        request = submit_request(variant, player_name, **options)
        request.request_id = request.request_id or uuid.uuid4().hex
        ticket, broken = "", None
        for attempt in range(RESUMES + 1):
            if attempt:
                await asyncio.sleep(_backoff(attempt))
            try:
                async for update in self._stream(SUBMIT_TICKET, request):
                    ticket = update.ticket
                    if update.state == MATCHED:
                        return await self._client.seat(update.game, update.seat_token)
                    if update.final:
                        raise _not_seated(ticket, request.request_id, update)
            except ServiceError as e:
                if not _resumable(e):
                    if not ticket:
                        raise
                    raise TicketNotSeated(ticket, request.request_id, "", str(e)) from e
                broken = e
        raise _not_seated(ticket, request.request_id, None) from broken

    async def create_party(self, player_name: str) -> Party:
        """A new party led by the caller, sitting under ``player_name``."""
        request = match_pb2.CreatePartyRequest(player_name=player_name)
        return _party((await self._client.call(CREATE_PARTY, request)).party)

    async def invite_to_party(self, party: str, player: str) -> Invitation:
        """An invitation of ``player`` (their player token's subject) to the
        caller's party: send it to them, for ``join_party``."""
        request = match_pb2.InviteToPartyRequest(party=_party_name(party), player=player)
        return _invitation(request, await self._client.call(INVITE_TO_PARTY, request))

    async def join_party(self, party: str, invitation: str, player_name: str) -> Party:
        """Joins the party the invitation (naming the caller) is to."""
        request = _join(party, invitation, player_name)
        return _party((await self._client.call(JOIN_PARTY, request)).party)

    async def leave_party(self, party: str) -> None:
        """Leaves the party (its leader disbands it); a waiting ticket of
        the party is cancelled."""
        request = match_pb2.LeavePartyRequest(party=_party_name(party))
        await self._client.call(LEAVE_PARTY, request)

    async def get_party(self, party: str) -> Party:
        request = match_pb2.GetPartyRequest(party=_party_name(party))
        return _party((await self._client.call(GET_PARTY, request)).party)

    async def party_play(self, party: str, timeout: float = 300.0) -> AsyncSeat:
        """A member's ``play``: waits for the party's ticket (its leader's
        ``play(..., party=...)``), follows it, and answers the caller's seat
        in its game. A ticket that ends unseated, or whose game has finished
        (the party's last game), is followed by the party's next one;
        :class:`TicketNotSeated` (with the last ticket) once ``timeout``
        seconds pass, and ``NotFound`` once the party is gone."""
        deadline, ended, last = time.monotonic() + timeout, "", None
        while time.monotonic() < deadline:
            ticket = (await self.get_party(party)).ticket
            if ticket and ticket != ended:
                async for update in self.watch(ticket):
                    last = update
                    if update.state == MATCHED:
                        seat = await self._client.seat(update.game, update.seat_token)
                        if (await seat.view()).status != GameStatus.FINISHED:
                            return seat
                ended = ticket
            await asyncio.sleep(PARTY_LOOK)
        raise _not_seated(ended, "", last)

    async def tickets(self) -> tuple[TicketUpdate, ...]:
        """The caller's live tickets (waiting or being seated), oldest first."""
        answer = await self._client.call(LIST_TICKETS, match_pb2.ListTicketsRequest())
        return tuple(_update(t) for t in answer.tickets)

    async def rating(self, variant: str) -> tuple[Rating, int]:
        """The caller's rating and rank (0 while unrated)."""
        answer = await self._client.call(GET_RATING, match_pb2.GetRatingRequest(variant=variant))
        return _rating(answer.rating), answer.rank

    async def leaderboard(
        self, variant: str, page_size: int = 20, page_token: str = "", around_me: bool = False
    ) -> LeaderboardPage:
        request = _board(variant, page_size, page_token, around_me)
        return _page(await self._client.call(LIST_LEADERBOARD, request))

    async def games(self, variant: str = "", page_size: int = 20) -> tuple[PlayerGame, ...]:
        """The caller's most recent finished games, newest first."""
        request = match_pb2.ListPlayerGamesRequest(variant=variant, page_size=page_size)
        return _games(await self._client.call(LIST_PLAYER_GAMES, request))

    async def record(self, game: str) -> match_pb2.GetGameRecordResponse:
        """A finished game's whole record (events and the revealed seed)."""
        return await self._client.call(GET_GAME_RECORD, _record(game))


class Quick(Twin[AsyncQuick]):
    """Quick play for the blocking :class:`~ramino_client.Client`: the calls
    of :class:`AsyncQuick`, each waited for (see :mod:`ramino_client.sync`)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._async, self._loop = client._async.quick, client._loop

    submit = blocking_iter(AsyncQuick.submit)
    watch = blocking_iter(AsyncQuick.watch)
    cancel = blocking(AsyncQuick.cancel)

    def play(self, variant: str, player_name: str, **options: Unpack[TicketOptions]) -> Seat:
        """As :meth:`AsyncQuick.play`: a broken stream resumed under the same
        request id, :class:`TicketNotSeated` (with the ticket) otherwise."""
        seat = self._loop.run(self._async.play(variant, player_name, **options))
        return self._client._seat(seat)

    create_party = blocking(AsyncQuick.create_party)
    invite_to_party = blocking(AsyncQuick.invite_to_party)
    join_party = blocking(AsyncQuick.join_party)
    leave_party = blocking(AsyncQuick.leave_party)
    get_party = blocking(AsyncQuick.get_party)

    def party_play(self, party: str, timeout: float = 300.0) -> Seat:
        """As :meth:`AsyncQuick.party_play`."""
        return self._client._seat(self._loop.run(self._async.party_play(party, timeout)))

    tickets = blocking(AsyncQuick.tickets)
    rating = blocking(AsyncQuick.rating)
    leaderboard = blocking(AsyncQuick.leaderboard)
    games = blocking(AsyncQuick.games)
    record = blocking(AsyncQuick.record)
