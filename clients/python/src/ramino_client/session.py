"""A seat's session (``PlayGame``): moves out, and in, in version order,
each move's answer, every event the seat may see, and the seat's options
pushed whenever they change, so that a client never asks.

:meth:`AsyncSeat.session <ramino_client.AsyncSeat.session>` and
:meth:`Seat.session <ramino_client.Seat.session>` open one; a dropped session
is reopened after the last version received (missing and repeating nothing)
and the moves not yet answered are sent again with their request ids (each
applied once). Against a server without ``PlayGame`` the session falls back
to the unary moves and the seat's watch, asking for the legal moves after
each event. :func:`play_seat` and :func:`play_seat_async` play a seat to the
end from what the session pushes: the policy is handed each decision's
options with the seat's view at their version (the server pushes it with
them: ``option_views``), is told of each move of its the game refused for
having been overtaken (a stale version, a turn passed, a timer's race), and
play goes on from the next options.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc
import grpc.aio
from google.rpc import error_details_pb2, status_pb2

from ramino_client import _convert, _wire, reasons
from ramino_client import events as ev
from ramino_client import models as m
from ramino_client import moves as mv
from ramino_client._loop import Iterate, Twin, blocking
from ramino_client._seat import with_known_variant
from ramino_client.errors import (
    _BY_CODE,
    ServiceError,
    StaleVersion,
    error_from_rpc,
    watch_resumable,
)
from ramino_client.v1 import game_pb2

if TYPE_CHECKING:
    from ramino_client.aio import AsyncSeat
    from ramino_client.sync import Seat

__all__ = [
    "Update",
    "AsyncSession",
    "Session",
    "play_seat",
    "play_seat_async",
    "Choose",
    "OnRefused",
    "overtaken",
]

PLAY_GAME = "/ramino.v1.GameService/PlayGame"


def _move_fields() -> dict[str, str]:
    """The PlayGameRequest field of each move request, by its message's name."""
    fields = {}
    for field in game_pb2.PlayGameRequest.DESCRIPTOR.oneofs_by_name["message"].fields:
        if field.name != "start" and field.message_type is not None:
            fields[field.message_type.full_name] = field.name
    return fields


_FIELDS = _move_fields()

Choose = Callable[[mv.LegalMoves, "m.GameView | None"], mv.Move]
"""A seat's policy: the move to make from its options and the seat's view
at their version (the table they are for: ``view.discard_top`` is the card
TakeDiscard takes)."""

OnRefused = Callable[[ServiceError, mv.LegalMoves], None]
"""Told of a move the game refused for having been overtaken (see
:func:`overtaken`), with the options it was chosen from; play goes on from
the next options."""


def overtaken(error: ServiceError) -> bool:
    """Whether a refused move was overtaken by the game, the next options
    saying what to do: its version was stale (another move came first: a
    bot, a turn timer, a unary call), the turn had passed, the match was
    over."""
    return isinstance(error, StaleVersion) or error.reason in (
        reasons.NOT_YOUR_TURN,
        reasons.MATCH_OVER,
    )


@dataclass(frozen=True, slots=True)
class Update:
    """One message of a session: an event of someone else's move (or of this
    seat's unary call), a snapshot, the answer to one of this session's
    moves (``result``, or ``error`` when it was refused: the session goes
    on), and ``options``, what the seat may do now, when they changed, with
    ``view``, the seat's view at their version, when they are pushed with
    moves (a snapshot's and an answer's options have theirs)."""

    version: int
    event: ev.Event | None = None
    snapshot: m.GameView | None = None
    request_id: str = ""
    result: mv.MoveResult | None = None
    error: ServiceError | None = None
    options: mv.LegalMoves | None = None
    view: m.GameView | None = None

    @property
    def ends_match(self) -> bool:
        if self.event is not None:
            return ev.ends_match(self.event)
        return self.result is not None and self.result.view.status == m.GameStatus.FINISHED


def _status_error(status: status_pb2.Status) -> ServiceError:
    code = next((c for c in grpc.StatusCode if c.value[0] == status.code), grpc.StatusCode.UNKNOWN)
    reason, domain, metadata = code.name, "", {}
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason, domain, metadata = info.reason, info.domain, dict(info.metadata)
            break
    return _BY_CODE.get(code, ServiceError)(code, reason, status.message, metadata, domain)


def options(o: game_pb2.SeatOptions) -> mv.LegalMoves:
    return _convert.options(o)


def update_of(r: game_pb2.PlayGameResponse) -> Update:
    """The Update of one server message."""
    pushed = options(r.options) if r.HasField("options") else None
    seen = _convert.view(r.options.view) if r.options.HasField("view") else None
    kind = r.WhichOneof("payload")
    if kind == "snapshot":
        return Update(r.version, snapshot=_convert.view(r.snapshot), options=pushed)
    if kind == "event":
        return Update(r.version, event=_convert.event(r.event), options=pushed, view=seen)
    if kind == "answer":
        a = r.answer
        if a.HasField("error"):
            return Update(r.version, request_id=a.request_id, error=_status_error(a.error))
        result = _convert.move_result(a.result)
        return Update(
            r.version,
            request_id=a.request_id,
            result=result,
            options=options(a.result.options) if a.result.HasField("options") else None,
        )
    return Update(r.version, options=pushed, view=seen)


def move_message(
    move: mv.Move, request_id: str, expected_version: int | None
) -> game_pb2.PlayGameRequest:
    """A move as a session's message: its unary request (the session's game
    implied)."""
    _, request = _wire.move_call(move, "", request_id, expected_version)
    message = game_pb2.PlayGameRequest()
    getattr(message, _FIELDS[request.DESCRIPTOR.full_name]).CopyFrom(request)
    return message


def _start(name: str, after_version: int | None, resend: list[str]) -> game_pb2.PlayGameRequest:
    # Options with their hint (and, pushed with moves, the seat's view) and
    # answers with the mover's view: what the session's callers read (the
    # server sends none of them unless asked). The moves sent again are
    # named: the server answers each once, in place of its events, and
    # pushes no options before their answers.
    start = game_pb2.PlayGameStart(
        name=name, hints=True, answer_views=True, option_views=True, resend=resend
    )
    if after_version is not None:
        start.after_version = after_version
    return game_pb2.PlayGameRequest(start=start)


def _unimplemented(error: grpc.RpcError) -> bool:
    code = getattr(error, "code", None)
    return callable(code) and code() == grpc.StatusCode.UNIMPLEMENTED


class _Resume:
    """Where a session stands, kept across reconnections: the last version
    received, and the moves sent and not yet answered (sent again, and
    named in the start, on the stream opened after a loss: the server
    hands out each version once, so nothing here is filtered)."""

    def __init__(self, after_version: int | None) -> None:
        self.last_version = after_version
        self.unanswered: dict[str, game_pb2.PlayGameRequest] = {}
        self.ended = False

    def take(self, update: Update) -> None:
        """Notes what ``update`` answers, and the version it brings."""
        if update.request_id:
            self.unanswered.pop(update.request_id, None)
        if update.result is not None or update.event is not None or update.snapshot is not None:
            self.last_version = max(self.last_version or 0, update.version)
        self.ended = self.ended or update.ends_match


class _Local:
    """The fallback's side of a session (no PlayGame): the answers of the
    unary moves sent, and the seat's watch items, as updates in order."""

    def __init__(self, resume: _Resume) -> None:
        self.resume = resume
        self.answers: deque[Update] = deque()

    def answered(
        self, request_id: str, result: mv.MoveResult | None, error: ServiceError | None = None
    ) -> None:
        version = 0 if result is None else result.version
        legal = None if result is None else result.legal_moves
        self.answers.append(
            Update(version, request_id=request_id, result=result, error=error, options=legal)
        )

    def next_answer(self) -> Update | None:
        if not self.answers:
            return None
        update = self.answers.popleft()
        self.resume.take(update)
        return update

    def watched(self, item: ev.WatchItem) -> Update | None:
        """The update of a watch item, None when an answer brought it
        already (the fallback merges two streams here, on the client)."""
        if isinstance(item, ev.Snapshot):
            update = Update(item.version, snapshot=item.view)
        else:
            last = self.resume.last_version
            if last is not None and item.version <= last:
                return None
            update = Update(item.version, event=item)
        self.resume.take(update)
        return update


class AsyncSession(AsyncIterator[Update]):
    """A seat's session for asyncio: ``await send(move)``, ``async for update``."""

    def __init__(self, seat: AsyncSeat, after_version: int | None = None) -> None:
        self.seat = seat
        self._resume = _Resume(after_version)
        self._call: Any = None
        self.fallback = False
        """The server has no PlayGame: unary moves and the seat's watch."""
        self._local = _Local(self._resume)
        self._watch: Any = None
        self.reconnects = 0
        """Times the session's stream was lost (or drained) and opened
        again after the last version received: streams opened after the
        first (a stream that ended under a move's write and was not needed
        again is not counted)."""
        self._opened = False
        self._closed = False

    @property
    def last_version(self) -> int | None:
        return self._resume.last_version

    async def __aenter__(self) -> AsyncSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Ends the session: its iteration ends, a read waiting in another
        task (or, for the blocking session, thread) too."""
        self._closed = True
        if self._call is not None:
            self._call.cancel()
        if self._watch is not None:
            await self._watch.aclose()

    async def _open(self) -> Any:
        if self._call is None:
            if self._opened:
                self.reconnects += 1
            self._opened = True
            client = self.seat.client
            metadata = _wire.auth(self.seat.token) + client._identity
            self._call = client.open_stream(
                lambda channel: channel.stream_stream(
                    PLAY_GAME,
                    request_serializer=game_pb2.PlayGameRequest.SerializeToString,
                    response_deserializer=game_pb2.PlayGameResponse.FromString,
                )(metadata=metadata)
            )
            resend = list(self._resume.unanswered)
            await self._call.write(_start(self.seat.name, self._resume.last_version, resend))
            for pending in list(self._resume.unanswered.values()):
                await self._call.write(pending)
        return self._call

    async def send(
        self,
        move: mv.Move,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
    ) -> str:
        """Sends ``move``; its answer comes as an :class:`Update` with its
        request id (returned)."""
        request_id = request_id or _wire.new_request_id()
        if self.fallback:
            try:
                played = await self.seat.play(
                    move, expected_version=expected_version, request_id=request_id
                )
            except ServiceError as error:
                self._local.answered(request_id, None, error)
            else:
                self._local.answered(request_id, played)
            return request_id
        message = move_message(move, request_id, expected_version)
        self._resume.unanswered[request_id] = message
        call = await self._open()
        try:
            await call.write(message)
        except grpc.RpcError:
            # The stream ended under the write (a draining server, a lost
            # connection; gRPC says INTERNAL): it is left, and the next read
            # opens another after the last version received, resending the
            # moves not answered, this one too.
            if self._call is call:
                self._call = None
        return request_id

    async def __anext__(self) -> Update:
        delays = self.seat.client.retry.delays()
        while True:
            if self._closed:
                raise StopAsyncIteration
            if self.fallback:
                return await self._next_fallback()
            if self._resume.ended and not self._resume.unanswered:
                raise StopAsyncIteration
            call = await self._open()
            try:
                response = await call.read()
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if self._closed and (task is None or not task.cancelling()):
                    raise StopAsyncIteration from None  # close() from elsewhere
                raise
            except grpc.RpcError as error:
                if self._call is not call:
                    continue  # left after a failed write: a new stream is opened
                self._call = None
                if _unimplemented(error):
                    self.fallback = True
                    continue
                if not watch_resumable(error):
                    raise error_from_rpc(error) from error
                delay = next(delays, None)
                if delay is None:
                    raise _wire.stream_lost(error) from error
                await asyncio.sleep(delay)
                continue
            if response is grpc.aio.EOF:
                if self._call is not call:
                    continue
                self._call = None
                if self._resume.ended:
                    raise StopAsyncIteration
                continue  # the server drained: reopen after the last version
            update = update_of(response)
            self._resume.take(update)
            return update

    async def play(self, choose: Choose, on_refused: OnRefused | None = None) -> m.GameView | None:
        """Plays the seat to the end of its match from the options pushed
        (``choose``: the move to make from them and the seat's view at
        their version; ``on_refused``: told of each move the game refused
        for having been overtaken, play going on from the next options; any
        other refusal is raised); the seat's last view."""
        player = _Player(self.seat, on_refused)
        async for update in self:
            legal = player.take(update)
            if update.ends_match:
                break
            if legal is not None and legal.moves:
                move = choose(legal, player.view)
                player.sent(await self.send(move, expected_version=legal.version), legal)
        return player.view

    async def _next_fallback(self) -> Update:
        answer = self._local.next_answer()
        if answer is not None:
            return answer
        if self._resume.ended:
            raise StopAsyncIteration
        if self._watch is None:
            self._watch = self.seat.watch(self._resume.last_version)
        while (update := self._local.watched(await anext(self._watch))) is None:
            pass
        if update.ends_match:
            return update
        legal = await self.seat.legal_moves()
        view = await self.seat.view() if legal.moves else None
        return dataclasses.replace(update, options=legal, view=view)


class Session(Iterate[Update], Twin[AsyncSession]):
    """A seat's session for the blocking client: ``send(move)``, ``for
    update in``; the :class:`AsyncSession` of the seat's asyncio twin, each
    call waited for (see :mod:`ramino_client.sync`). ``close()``, the end
    of a ``with`` block, or dropping it unfinished ends its stream."""

    def __init__(self, seat: Seat, after_version: int | None = None) -> None:
        self.seat = seat
        self._async = AsyncSession(seat._async, after_version)
        super().__init__(seat._loop, self._async, self._async.close)

    @property
    def last_version(self) -> int | None:
        return self._async.last_version

    @property
    def fallback(self) -> bool:
        """The server has no PlayGame: unary moves and the seat's watch."""
        return self._async.fallback

    @property
    def reconnects(self) -> int:
        """Times the session's stream was lost (or drained) and opened
        again after the last version received."""
        return self._async.reconnects

    send = blocking(AsyncSession.send)

    def play(self, choose: Choose, on_refused: OnRefused | None = None) -> m.GameView | None:
        """As :meth:`AsyncSession.play`; ``choose`` and ``on_refused`` are
        called in this thread."""
        player = _Player(self.seat, on_refused)
        for update in self:
            legal = player.take(update)
            if update.ends_match:
                break
            if legal is not None and legal.moves:
                move = choose(legal, player.view)
                player.sent(self.send(move, expected_version=legal.version), legal)
        return player.view


class _Player:
    """What a seat's player keeps between updates: the seat's view, and the
    options each move it sent was chosen from (told back with its refusal)."""

    def __init__(self, seat: Any, on_refused: OnRefused | None) -> None:
        self.seat = seat
        self.view: m.GameView | None = seat.last_view
        self.on_refused = on_refused
        self.chosen: dict[str, mv.LegalMoves] = {}

    def sent(self, request_id: str, legal: mv.LegalMoves) -> None:
        self.chosen[request_id] = legal

    def take(self, update: Update) -> mv.LegalMoves | None:
        """The options an update leaves the seat with (None: none new), the
        view that came with them kept; a refusal of a move overtaken is
        told to ``on_refused``, any other raised."""
        chosen = self.chosen.pop(update.request_id, None)
        if update.error is not None:
            if not overtaken(update.error):
                raise update.error
            if self.on_refused is not None and chosen is not None:
                self.on_refused(update.error, chosen)
            return None
        seen = update.snapshot or update.view
        if update.result is not None:
            seen = update.result.view
        if seen is not None:
            self.view = self.seat.last_view = with_known_variant(seen, self.seat.last_view)
        if update.result is not None:
            return update.result.legal_moves
        return update.options


def play_seat(seat: Seat, choose: Choose, on_refused: OnRefused | None = None) -> m.GameView | None:
    """Plays ``seat`` to the end of its match from what its session pushes
    (``choose``: the move to make from the seat's options and its view at
    their version; ``on_refused``: told of each move overtaken by the game,
    see :meth:`Session.play`); the seat's last view."""
    with seat.session() as session:
        return session.play(choose, on_refused)


async def play_seat_async(
    seat: AsyncSeat, choose: Choose, on_refused: OnRefused | None = None
) -> m.GameView | None:
    """:func:`play_seat` for asyncio."""
    async with seat.session() as session:
        return await session.play(choose, on_refused)
