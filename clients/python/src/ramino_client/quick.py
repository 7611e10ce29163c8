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
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

import grpc
from google.protobuf.message import Message

from ramino_client import _convert, _wire
from ramino_client.errors import ServiceError, error_from_rpc
from ramino_client.v1 import match_pb2

if TYPE_CHECKING:
    from ramino_client.aio import AsyncClient, AsyncSeat
    from ramino_client.sync import Client, Seat

__all__ = [
    "AsyncQuick",
    "LeaderboardEntry",
    "LeaderboardPage",
    "PlayerGame",
    "PlayerGameSeat",
    "Quick",
    "Rating",
    "TicketNotSeated",
    "TicketOptions",
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

    @property
    def final(self) -> bool:
        return self.state in FINAL


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
    )


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
    )
    overrides = options.get("overrides")
    if overrides:
        request.overrides.CopyFrom(_convert.parameters_message(overrides))
    return request


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


class Quick:
    """Quick play for the blocking :class:`~ramino_client.Client`."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def _stream(self, rpc: _wire.Rpc[Any, Any], request: Any) -> Iterator[TicketUpdate]:
        c = self._client
        call = c.open_stream(
            lambda channel: channel.unary_stream(
                rpc.path, request_serializer=rpc.serialize, response_deserializer=rpc.deserialize
            )(request, metadata=c._identity)
        )
        try:
            for message in call:
                yield _update(message.update)
        except grpc.RpcError as e:
            raise error_from_rpc(e) from e
        finally:
            call.cancel()

    def submit(
        self, variant: str, player_name: str, **options: Unpack[TicketOptions]
    ) -> Iterator[TicketUpdate]:
        """A new ticket's updates, until it is matched or ends."""
        return self._stream(SUBMIT_TICKET, submit_request(variant, player_name, **options))

    def watch(self, ticket: str) -> Iterator[TicketUpdate]:
        """A ticket's updates again (after a reconnect)."""
        return self._stream(WATCH_TICKET, _watch(ticket))

    def cancel(self, ticket: str) -> TicketUpdate:
        return _update(self._client.call(CANCEL_TICKET, _cancel(ticket)).update)

    def play(self, variant: str, player_name: str, **options: Unpack[TicketOptions]) -> Seat:
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
                time.sleep(_backoff(attempt))
            try:
                for update in self._stream(SUBMIT_TICKET, request):
                    ticket = update.ticket
                    if update.state == MATCHED:
                        return self._client.seat(update.game, update.seat_token)
                    if update.final:
                        raise _not_seated(ticket, request.request_id, update)
            except ServiceError as e:
                if not _resumable(e):
                    if not ticket:
                        raise
                    raise TicketNotSeated(ticket, request.request_id, "", str(e)) from e
                broken = e
        raise _not_seated(ticket, request.request_id, None) from broken

    def tickets(self) -> tuple[TicketUpdate, ...]:
        """The caller's live tickets (waiting or being seated), oldest first."""
        answer = self._client.call(LIST_TICKETS, match_pb2.ListTicketsRequest())
        return tuple(_update(t) for t in answer.tickets)

    def rating(self, variant: str) -> tuple[Rating, int]:
        """The caller's rating and rank (0 while unrated)."""
        answer = self._client.call(GET_RATING, match_pb2.GetRatingRequest(variant=variant))
        return _rating(answer.rating), answer.rank

    def leaderboard(
        self, variant: str, page_size: int = 20, page_token: str = "", around_me: bool = False
    ) -> LeaderboardPage:
        request = _board(variant, page_size, page_token, around_me)
        return _page(self._client.call(LIST_LEADERBOARD, request))

    def games(self, variant: str = "", page_size: int = 20) -> tuple[PlayerGame, ...]:
        """The caller's most recent finished games, newest first."""
        request = match_pb2.ListPlayerGamesRequest(variant=variant, page_size=page_size)
        return _games(self._client.call(LIST_PLAYER_GAMES, request))

    def record(self, game: str) -> match_pb2.GetGameRecordResponse:
        """A finished game's whole record (events and the revealed seed)."""
        return self._client.call(GET_GAME_RECORD, _record(game))


class AsyncQuick:
    """Quick play for :class:`~ramino_client.AsyncClient`: the same calls, awaited."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def _stream(self, rpc: _wire.Rpc[Any, Any], request: Any) -> AsyncIterator[TicketUpdate]:
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
    ) -> AsyncIterator[TicketUpdate]:
        return self._stream(SUBMIT_TICKET, submit_request(variant, player_name, **options))

    def watch(self, ticket: str) -> AsyncIterator[TicketUpdate]:
        return self._stream(WATCH_TICKET, _watch(ticket))

    async def cancel(self, ticket: str) -> TicketUpdate:
        return _update((await self._client.call(CANCEL_TICKET, _cancel(ticket))).update)

    async def play(
        self, variant: str, player_name: str, **options: Unpack[TicketOptions]
    ) -> AsyncSeat:
        """As :meth:`Quick.play`: a broken stream resumed under the same
        request id, :class:`TicketNotSeated` (with the ticket) otherwise."""
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

    async def tickets(self) -> tuple[TicketUpdate, ...]:
        answer = await self._client.call(LIST_TICKETS, match_pb2.ListTicketsRequest())
        return tuple(_update(t) for t in answer.tickets)

    async def rating(self, variant: str) -> tuple[Rating, int]:
        answer = await self._client.call(GET_RATING, match_pb2.GetRatingRequest(variant=variant))
        return _rating(answer.rating), answer.rank

    async def leaderboard(
        self, variant: str, page_size: int = 20, page_token: str = "", around_me: bool = False
    ) -> LeaderboardPage:
        request = _board(variant, page_size, page_token, around_me)
        return _page(await self._client.call(LIST_LEADERBOARD, request))

    async def games(self, variant: str = "", page_size: int = 20) -> tuple[PlayerGame, ...]:
        request = match_pb2.ListPlayerGamesRequest(variant=variant, page_size=page_size)
        return _games(await self._client.call(LIST_PLAYER_GAMES, request))

    async def record(self, game: str) -> match_pb2.GetGameRecordResponse:
        return await self._client.call(GET_GAME_RECORD, _record(game))
