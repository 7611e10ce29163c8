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
end from what the session pushes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import queue
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc
import grpc.aio
from google.rpc import error_details_pb2, status_pb2

from ramino_client import _convert, _wire
from ramino_client import events as ev
from ramino_client import models as m
from ramino_client import moves as mv
from ramino_client.errors import _BY_CODE, ServiceError, error_from_rpc, watch_resumable
from ramino_client.v1 import game_pb2

if TYPE_CHECKING:
    from ramino_client.aio import AsyncSeat
    from ramino_client.sync import Seat

__all__ = ["Update", "AsyncSession", "Session", "play_seat", "play_seat_async", "Choose"]

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
"""A seat's policy: the move to make from its options (and its last view)."""


@dataclass(frozen=True, slots=True)
class Update:
    """One message of a session: an event of someone else's move (or of this
    seat's unary call), a snapshot, the answer to one of this session's
    moves (``result``, or ``error`` when it was refused: the session goes
    on), and ``options``, what the seat may do now, when they changed."""

    version: int
    event: ev.Event | None = None
    snapshot: m.GameView | None = None
    request_id: str = ""
    result: mv.MoveResult | None = None
    error: ServiceError | None = None
    options: mv.LegalMoves | None = None

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
    kind = r.WhichOneof("payload")
    if kind == "snapshot":
        return Update(r.version, snapshot=_convert.view(r.snapshot), options=pushed)
    if kind == "event":
        return Update(r.version, event=_convert.event(r.event), options=pushed)
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
    return Update(r.version, options=pushed)


def move_message(
    move: mv.Move, request_id: str, expected_version: int | None
) -> game_pb2.PlayGameRequest:
    """A move as a session's message: its unary request (the session's game
    implied)."""
    _, request = _wire.move_call(move, "", request_id, expected_version)
    message = game_pb2.PlayGameRequest()
    getattr(message, _FIELDS[request.DESCRIPTOR.full_name]).CopyFrom(request)
    return message


def _start(name: str, after_version: int | None) -> game_pb2.PlayGameRequest:
    # Options with their hint and answers with the mover's view: what the
    # session's callers read (the server sends neither unless asked).
    start = game_pb2.PlayGameStart(name=name, hints=True, answer_views=True)
    if after_version is not None:
        start.after_version = after_version
    return game_pb2.PlayGameRequest(start=start)


def _unimplemented(error: grpc.RpcError) -> bool:
    code = getattr(error, "code", None)
    return callable(code) and code() == grpc.StatusCode.UNIMPLEMENTED


class _Resume:
    """Where a session stands, kept across reconnections: the last version
    received, and the moves sent and not yet answered."""

    def __init__(self, after_version: int | None) -> None:
        self.last_version = after_version
        self.unanswered: dict[str, game_pb2.PlayGameRequest] = {}
        self.ended = False

    def sent_at(self, version: int) -> bool:
        """Whether a move sent at ``version`` is waiting for its answer."""
        for request in self.unanswered.values():
            move = getattr(request, str(request.WhichOneof("message")))
            if move.HasField("expected_version") and move.expected_version == version:
                return True
        return False

    def take(self, update: Update) -> bool:
        """Whether ``update`` is new (not one received before a reconnect)."""
        if update.request_id:
            if self.unanswered.pop(update.request_id, None) is None:
                return False
        elif update.event is not None:
            if self.last_version is not None and update.version <= self.last_version:
                return False
        elif update.snapshot is None and update.options is not None:
            if self.sent_at(update.options.version):
                # Pushed again on a reopened stream while a move made from
                # them is resent: its answer brings the options after it.
                return False
        if update.result is not None or update.event is not None or update.snapshot is not None:
            self.last_version = max(self.last_version or 0, update.version)
        self.ended = self.ended or update.ends_match
        return True


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
        """The update of a watch item, None when an answer brought it already."""
        if isinstance(item, ev.Snapshot):
            update = Update(item.version, snapshot=item.view)
        else:
            update = Update(item.version, event=item)
        return update if self.resume.take(update) else None


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
        again after the last version received."""

    @property
    def last_version(self) -> int | None:
        return self._resume.last_version

    async def __aenter__(self) -> AsyncSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._call is not None:
            self._call.cancel()
        if self._watch is not None:
            await self._watch.aclose()

    async def _open(self) -> Any:
        if self._call is None:
            client = self.seat.client
            metadata = _wire.auth(self.seat.token) + client._identity
            self._call = client.open_stream(
                lambda channel: channel.stream_stream(
                    PLAY_GAME,
                    request_serializer=game_pb2.PlayGameRequest.SerializeToString,
                    response_deserializer=game_pb2.PlayGameResponse.FromString,
                )(metadata=metadata)
            )
            await self._call.write(_start(self.seat.name, self._resume.last_version))
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
                self.reconnects += 1
        return request_id

    async def __anext__(self) -> Update:
        delays = self.seat.client.retry.delays()
        while True:
            if self.fallback:
                return await self._next_fallback()
            if self._resume.ended and not self._resume.unanswered:
                raise StopAsyncIteration
            call = await self._open()
            try:
                response = await call.read()
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
                self.reconnects += 1
                await asyncio.sleep(delay)
                continue
            if response is grpc.aio.EOF:
                if self._call is not call:
                    continue
                self._call = None
                if self._resume.ended:
                    raise StopAsyncIteration
                self.reconnects += 1
                continue  # the server drained: reopen after the last version
            update = update_of(response)
            if self._resume.take(update):
                return update

    async def play(self, choose: Choose) -> m.GameView | None:
        """Plays the seat to the end of its match from the options pushed
        (``choose``: the move to make from them); the seat's last view."""
        view = self.seat.last_view
        played: int | None = None
        async for update in self:
            legal, view = _policy(update, view)
            if update.ends_match:
                break
            # Options for a version already played are not played twice: a
            # move applied just before its stream was lost and resent on the
            # reopened one can have its events come first, with the options
            # after them (played here), then its answer, with the same
            # version's options again. (_Resume.take drops only options
            # pushed alone for a resent move's version.)
            if legal is not None and legal.moves and legal.version != played:
                played = legal.version
                await self.send(choose(legal, view), expected_version=legal.version)
        return view

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
        return dataclasses.replace(update, options=await self.seat.legal_moves())


class Session(Iterator[Update]):
    """A seat's session for the blocking client: ``send(move)``, ``for update in``."""

    def __init__(self, seat: Seat, after_version: int | None = None) -> None:
        self.seat = seat
        self._resume = _Resume(after_version)
        self._outbox: queue.Queue[game_pb2.PlayGameRequest | None] | None = None
        self._responses: Any = None
        self._lock = threading.Lock()
        self.fallback = False
        self._local = _Local(self._resume)
        self._watch: Any = None
        self.reconnects = 0
        """Times the session's stream was lost (or drained) and opened
        again after the last version received."""

    @property
    def last_version(self) -> int | None:
        return self._resume.last_version

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._outbox is not None:
                self._outbox.put(None)
            if self._responses is not None:
                self._responses.cancel()
            self._outbox = self._responses = None
        if self._watch is not None:
            self._watch.cancel()

    def _open(self) -> Any:
        with self._lock:
            if self._responses is None:
                outbox: queue.Queue[game_pb2.PlayGameRequest | None] = queue.Queue()
                outbox.put(_start(self.seat.name, self._resume.last_version))
                for pending in list(self._resume.unanswered.values()):
                    outbox.put(pending)
                client = self.seat.client
                metadata = _wire.auth(self.seat.token) + client._identity
                self._outbox = outbox
                self._responses = client.open_stream(
                    lambda channel: channel.stream_stream(
                        PLAY_GAME,
                        request_serializer=game_pb2.PlayGameRequest.SerializeToString,
                        response_deserializer=game_pb2.PlayGameResponse.FromString,
                    )(iter(outbox.get, None), metadata=metadata)
                )
            return self._responses

    def send(
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
                played = self.seat.play(
                    move, expected_version=expected_version, request_id=request_id
                )
            except ServiceError as error:
                self._local.answered(request_id, None, error)
            else:
                self._local.answered(request_id, played)
            return request_id
        message = move_message(move, request_id, expected_version)
        self._resume.unanswered[request_id] = message
        self._open()
        with self._lock:
            if self._outbox is not None:
                self._outbox.put(message)
        return request_id

    def __next__(self) -> Update:
        delays = self.seat.client.retry.delays()
        while True:
            if self.fallback:
                return self._next_fallback()
            if self._resume.ended and not self._resume.unanswered:
                raise StopIteration
            responses = self._open()
            try:
                response = next(responses)
            except StopIteration:
                self._drop()
                if self._resume.ended:
                    raise
                self.reconnects += 1
                continue
            except grpc.RpcError as error:
                self._drop()
                if _unimplemented(error):
                    self.fallback = True
                    continue
                if not watch_resumable(error):
                    raise error_from_rpc(error) from error
                delay = next(delays, None)
                if delay is None:
                    raise _wire.stream_lost(error) from error
                self.reconnects += 1
                threading.Event().wait(delay)
                continue
            update = update_of(response)
            if self._resume.take(update):
                return update

    def _drop(self) -> None:
        with self._lock:
            if self._outbox is not None:
                self._outbox.put(None)
            self._outbox = self._responses = None

    def play(self, choose: Choose) -> m.GameView | None:
        """Plays the seat to the end of its match from the options pushed
        (``choose``: the move to make from them); the seat's last view."""
        view = self.seat.last_view
        played: int | None = None
        for update in self:
            legal, view = _policy(update, view)
            if update.ends_match:
                break
            # Options for a version already played are not played twice: a
            # move applied just before its stream was lost and resent on the
            # reopened one can have its events come first, with the options
            # after them (played here), then its answer, with the same
            # version's options again. (_Resume.take drops only options
            # pushed alone for a resent move's version.)
            if legal is not None and legal.moves and legal.version != played:
                played = legal.version
                self.send(choose(legal, view), expected_version=legal.version)
        return view

    def _next_fallback(self) -> Update:
        answer = self._local.next_answer()
        if answer is not None:
            return answer
        if self._resume.ended:
            raise StopIteration
        if self._watch is None:
            self._watch = self.seat.watch(self._resume.last_version)
        while (update := self._local.watched(next(self._watch))) is None:
            pass
        if update.ends_match:
            return update
        return dataclasses.replace(update, options=self.seat.legal_moves())


def _policy(
    update: Update, view: m.GameView | None
) -> tuple[mv.LegalMoves | None, m.GameView | None]:
    """The options an update leaves the seat with (None: none new), and its view."""
    if update.error is not None:
        raise update.error
    if update.snapshot is not None:
        view = update.snapshot
    if update.result is not None:
        view = update.result.view
        return update.result.legal_moves, view
    return update.options, view


def play_seat(seat: Seat, choose: Choose) -> m.GameView | None:
    """Plays ``seat`` to the end of its match from what its session pushes
    (``choose``: the move to make from the seat's options); the seat's last
    view."""
    with seat.session() as session:
        return session.play(choose)


async def play_seat_async(seat: AsyncSeat, choose: Choose) -> m.GameView | None:
    """:func:`play_seat` for asyncio."""
    async with seat.session() as session:
        return await session.play(choose)
