"""The asyncio client: :class:`AsyncClient`, :class:`AsyncSeat` and
:class:`AsyncWatch`, over ``grpc.aio``. It is the one implementation of
the client: the blocking one (:mod:`ramino_client.sync`) runs it on a loop
of its own, with the same surface (every call awaited here, ``watch()`` an
async iterator)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar, cast

import grpc
import grpc.aio
from google.protobuf.message import Message

from ramino_client import _convert, _wire
from ramino_client import models as m
from ramino_client import moves as mv
from ramino_client._seat import SeatBase
from ramino_client.errors import error_from_rpc, watch_resumable
from ramino_client.events import WatchItem
from ramino_client.models import BotLevel
from ramino_client.quick import AsyncQuick
from ramino_client.session import AsyncSession
from ramino_client.v1 import game_pb2, rules_pb2

__all__ = ["AsyncClient", "AsyncSeat", "AsyncRules", "AsyncWatch"]

Req = TypeVar("Req", bound=Message)
Resp = TypeVar("Resp", bound=Message)


StreamCall = TypeVar("StreamCall", bound=grpc.aio.Call)


def _end_async(call: grpc.aio.Call, give_back: Callable[[], None]) -> None:
    call.add_done_callback(lambda _: give_back())


def _code(error: grpc.RpcError) -> grpc.StatusCode:
    code = getattr(error, "code", None)
    return cast(grpc.StatusCode, code()) if callable(code) else grpc.StatusCode.UNKNOWN


class AsyncClient:
    """A connection to a Ramino server, for asyncio.

    >>> async with AsyncClient("localhost:50051") as client:      # doctest: +SKIP
    ...     game = await client.create_game("rummy", seats=["ann", BotLevel.GREEDY])
    ...     seat = await client.join(game.name, "ann")
    ...     async for item in seat.watch():
    ...         print(item)
    """

    def __init__(
        self,
        target: str = _wire.DEFAULT_TARGET,
        *,
        credentials: grpc.ChannelCredentials | None = None,
        timeout: float | None = 10.0,
        retry: _wire.RetryPolicy = _wire.DEFAULT_RETRY,
        options: Sequence[tuple[str, Any]] = (),
        channel: grpc.aio.Channel | None = None,
        player_token: str | None = None,
        caller_key: str | None = None,
        load_balancing: str | None = _wire.DEFAULT_LOAD_BALANCING,
        streams_per_connection: int = _wire.STREAMS_PER_CONNECTION,
    ) -> None:
        """See :class:`ramino_client.Client`: the same options."""
        opts = _wire.channel_options(load_balancing, options)

        def make(o: Sequence[tuple[str, Any]]) -> grpc.aio.Channel:
            if credentials is not None:
                return grpc.aio.secure_channel(target, credentials, options=o)
            return grpc.aio.insecure_channel(target, options=o)

        self._channel = make(opts) if channel is None else channel
        self._streams = _wire.StreamChannels(
            self._channel,
            make if channel is None else None,
            opts,
            _wire.channel_settings(target, opts, credentials),
            streams_per_connection,
        )
        self.target = target
        self.timeout = timeout
        self.retry = retry
        self.caller_key = caller_key or _wire.new_caller_key()
        self._identity = _wire.identity(self.caller_key, player_token)
        self.rules = AsyncRules(self)
        self.quick = AsyncQuick(self)
        """Quick play: tickets, ratings, leaderboards, histories (needs ``player_token``)."""

    async def close(self) -> None:
        for channel in self._streams.channels:
            await channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # --- calls --------------------------------------------------------------

    async def call(self, rpc: _wire.Rpc[Req, Resp], request: Req, token: str | None = None) -> Resp:
        """One unary call, retried on UNAVAILABLE or a server's CANCELLED with the
        same request."""
        method = self._channel.unary_unary(
            rpc.path, request_serializer=rpc.serialize, response_deserializer=rpc.deserialize
        )
        delays = self.retry.delays()
        while True:
            try:
                return await method(
                    request, timeout=self.timeout, metadata=_wire.auth(token) + self._identity
                )
            except grpc.RpcError as e:
                if _code(e) in _wire.RETRYABLE_CODES:
                    delay = next(delays, None)
                    if delay is not None:
                        await asyncio.sleep(delay)
                        continue
                raise error_from_rpc(e) from e

    def stream(
        self, request: game_pb2.WatchGameRequest, token: str | None
    ) -> grpc.aio.UnaryStreamCall[game_pb2.WatchGameRequest, game_pb2.WatchGameResponse]:
        rpc = _wire.WATCH_GAME

        def start(
            channel: grpc.aio.Channel,
        ) -> grpc.aio.UnaryStreamCall[game_pb2.WatchGameRequest, game_pb2.WatchGameResponse]:
            method = channel.unary_stream(
                rpc.path, request_serializer=rpc.serialize, response_deserializer=rpc.deserialize
            )
            return method(request, metadata=_wire.auth(token) + self._identity)

        return self.open_stream(start)

    def open_stream(self, start: Callable[[grpc.aio.Channel], StreamCall]) -> StreamCall:
        """The stream ``start`` opens on a channel with room for it (see
        :class:`~ramino_client._wire.StreamChannels`): watches, sessions and
        ticket waits go through it."""
        return self._streams.open(start, _end_async)

    # --- lobby --------------------------------------------------------------

    async def create_game(
        self,
        variant: str = "ramino51",
        seats: Sequence[_wire.SeatSpec] = ("", BotLevel.GREEDY),
        *,
        overrides: Mapping[str, Any] | None = None,
        turn_timer_seconds: int = 0,
        request_id: str | None = None,
        spectators_disabled: bool = False,
        private: bool = False,
        rated: bool = False,
        quick_play: bool = False,
    ) -> m.GameSummary:
        """A new game. A seat is a person's name (``""`` for anyone) or a
        :class:`BotLevel`; bot seats are filled at once, people join. The
        summary's ``creator_token`` cancels the game (:meth:`cancel_game`);
        ``spectators_disabled``: only seats may watch it; ``private``: never
        listed, joined with the summary's ``invite_code`` (:meth:`join_invite`;
        share it, or its :func:`~ramino_client.invite_link`), no spectators;
        ``rated``: its end changes its players' ratings (a server that knows
        players, no bot seat, a turn timer); ``quick_play``: quick-play tickets of its
        queue may take its open seats (a public game)."""
        request = _wire.create_game_request(
            variant,
            seats,
            overrides,
            turn_timer_seconds,
            request_id or _wire.new_request_id(),
            spectators_disabled,
            private,
            rated,
            quick_play,
        )
        response = await self.call(_wire.CREATE_GAME, request)
        return _convert.game(response.game, response.creator_token, response.invite_code)

    async def cancel_game(self, game: str, creator_token: str) -> m.GameView:
        """Ends ``game`` as cancelled, with the ``creator_token`` of
        :meth:`create_game`; returns its final view (a spectator's)."""
        request = game_pb2.CancelGameRequest(name=_wire.game_name(game))
        return _convert.view((await self.call(_wire.CANCEL_GAME, request, creator_token)).view)

    async def join(
        self,
        game: str,
        player_name: str,
        seat: int | None = None,
        *,
        request_id: str | None = None,
    ) -> AsyncSeat:
        """Takes a seat (the first open one unless ``seat``); the deal
        happens once every seat is taken."""
        request = _wire.join_request(game, player_name, seat, request_id or _wire.new_request_id())
        response = await self.call(_wire.JOIN_GAME, request)
        view = _convert.view(response.view)
        return AsyncSeat(self, view.name, response.seat, response.seat_token, view)

    async def join_invite(
        self,
        invite_code: str,
        player_name: str,
        seat: int | None = None,
        *,
        request_id: str | None = None,
    ) -> AsyncSeat:
        """Takes a seat of the private game an invite code (or its link)
        opens; a code that opens nothing is :class:`NotFound` (reason
        ``INVITE_NOT_VALID``), whether or not its game exists."""
        request = _wire.join_invite_request(
            invite_code, player_name, seat, request_id or _wire.new_request_id()
        )
        response = await self.call(_wire.JOIN_GAME, request)
        view = _convert.view(response.view)
        return AsyncSeat(self, view.name, response.seat, response.seat_token, view)

    async def seat(self, game: str, token: str) -> AsyncSeat:
        """The seat a saved token acts for (to come back to a game)."""
        view = await self._view(_wire.game_name(game), token)
        if view.seat is None:
            raise ValueError("the server sees this token as a spectator")
        return AsyncSeat(self, view.name, view.seat, token, view)

    async def get_game(self, game: str) -> m.GameView:
        """The game as a spectator sees it."""
        return await self._view(_wire.game_name(game), None)

    async def _view(self, name: str, token: str | None) -> m.GameView:
        response = await self.call(_wire.GET_GAME, game_pb2.GetGameRequest(name=name), token)
        return _convert.view(response.view)

    async def list_games(
        self,
        *,
        variant: str | None = None,
        open_seats_only: bool = False,
        status: m.GameStatus | None = None,
        page_size: int = 50,
    ) -> AsyncGenerator[m.GameSummary, None]:
        """Every game that matches, page after page."""
        token = ""
        while True:
            request = _wire.list_games_request(page_size, token, variant, open_seats_only, status)
            page = await self.call(_wire.LIST_GAMES, request)
            for x in page.games:
                yield _convert.game(x)
            token = page.next_page_token
            if not token:
                return

    def watch(
        self,
        game: str,
        after_version: int | None = None,
        *,
        snapshot: bool = False,
        stop_at_end: bool = True,
    ) -> AsyncWatch:
        """The game's events as a spectator sees them (see :class:`AsyncWatch`)."""
        return AsyncWatch(self, _wire.game_name(game), None, after_version, snapshot, stop_at_end)


class AsyncSeat(SeatBase[AsyncClient, Coroutine[Any, Any, mv.MoveResult]]):
    """One seat of one game, acting with its seat token (see
    :class:`~ramino_client.Seat`); every method that calls the server,
    the move methods among them, is awaited."""

    async def play(
        self,
        move: mv.Move,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
    ) -> mv.MoveResult:
        """Any move, e.g. one of :meth:`legal_moves`."""
        rpc, request = _wire.move_call(
            move, self.name, request_id or _wire.new_request_id(), expected_version
        )
        response = cast(_wire.MoveResponse, await self.client.call(rpc, request, self.token))
        return self._after_move(_convert.move_result(response.result))

    async def legal_moves(self) -> mv.LegalMoves:
        """The moves this seat may make now, with hints from the meld search."""
        request = game_pb2.GetLegalMovesRequest(name=self.name)
        response = await self.client.call(_wire.GET_LEGAL_MOVES, request, self.token)
        return _convert.legal_moves(response)

    async def view(self) -> m.GameView:
        """The game as this seat sees it."""
        self.last_view = await self.client._view(self.name, self.token)
        return self.last_view

    def session(self, after_version: int | None = None) -> AsyncSession:
        """This seat's session (PlayGame): its moves' answers, every event
        and its options pushed, in version order (see
        :class:`~ramino_client.session.AsyncSession`)."""
        return AsyncSession(self, after_version)

    def watch(
        self,
        after_version: int | None = None,
        *,
        snapshot: bool = False,
        stop_at_end: bool = True,
    ) -> AsyncWatch:
        """This seat's view of every event (see :class:`AsyncWatch`)."""
        return AsyncWatch(self.client, self.name, self.token, after_version, snapshot, stop_at_end)


class AsyncWatch(AsyncIterator[WatchItem]):
    """The live events of a game, as an async iterator; resumes after a
    dropped connection like :class:`~ramino_client.Watch`."""

    def __init__(
        self,
        client: AsyncClient,
        name: str,
        token: str | None,
        after_version: int | None,
        snapshot: bool,
        stop_at_end: bool,
    ) -> None:
        self._client = client
        self._token = token
        self._resume = _wire.Resume(name, after_version, snapshot, stop_at_end)
        self._call: (
            grpc.aio.UnaryStreamCall[game_pb2.WatchGameRequest, game_pb2.WatchGameResponse] | None
        ) = None
        self._closed = False
        self.reconnects = 0

    @property
    def last_version(self) -> int | None:
        """The version of the last item yielded."""
        return self._resume.last_version

    def __aiter__(self) -> AsyncWatch:
        return self

    async def __aenter__(self) -> AsyncWatch:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.cancel()

    def cancel(self) -> None:
        self._closed = True
        self._drop()

    async def aclose(self) -> None:
        self.cancel()

    def _drop(self) -> None:
        call, self._call = self._call, None
        if call is not None:
            call.cancel()

    def _open(
        self,
    ) -> grpc.aio.UnaryStreamCall[game_pb2.WatchGameRequest, game_pb2.WatchGameResponse]:
        if self._call is None:
            self._call = self._client.stream(self._resume.request(), self._token)
        return self._call

    async def __anext__(self) -> WatchItem:
        delays = self._client.retry.delays()
        while True:
            if self._closed:
                raise StopAsyncIteration
            call = self._open()
            error: grpc.RpcError | None = None
            queued = self._resume.queued()  # the rest of a batch received
            try:
                response = queued if queued is not None else await call.read()
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if self._closed and (task is None or not task.cancelling()):
                    raise StopAsyncIteration from None  # cancel() from elsewhere
                self._drop()
                raise
            except grpc.RpcError as e:
                if self._closed:
                    raise StopAsyncIteration from None
                if not watch_resumable(e):
                    raise error_from_rpc(e) from e
                error = e
            else:
                if response is grpc.aio.EOF:
                    if self._resume.ended:
                        self.cancel()
                        raise StopAsyncIteration
                    # Otherwise the server is going away (draining): resume elsewhere.
                else:
                    where, item = self._resume.take(cast(game_pb2.WatchGameResponse, response))
                    if where == "seen":
                        continue  # yielded before a reconnect
                    if where == "next":
                        if self._resume.done:
                            self.cancel()
                        return item
                    # a gap: ask again from what was yielded
            self._drop()
            delay = next(delays, None)
            if delay is None:
                raise _wire.stream_lost(error) from error
            self.reconnects += 1
            await asyncio.sleep(delay)


class AsyncRules:
    """The stateless RulesService: no game, no token."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def validate_meld(
        self,
        cards: str | Sequence[str],
        variant: str = "ramino51",
        *,
        overrides: Mapping[str, Any] | None = None,
    ) -> m.MeldCheck:
        """Whether the cards (``"QH KH AH"``), in this order, are a legal meld."""
        request = _wire.validate_meld_request(cards, variant, overrides)
        return _convert.meld_check(await self._client.call(_wire.VALIDATE_MELD, request))

    async def analyze_hand(
        self,
        hand: str | Sequence[str],
        variant: str = "ramino51",
        *,
        table: Sequence[str | Sequence[str]] = (),
        include: str | None = None,
        overrides: Mapping[str, Any] | None = None,
    ) -> m.HandAnalysis:
        """Best opening, minimum deadwood, and lay-offs and joker swaps
        against ``table`` (melds in notation)."""
        request = _wire.analyze_hand_request(hand, variant, table, include, overrides)
        return _convert.analysis(await self._client.call(_wire.ANALYZE_HAND, request))

    async def list_variants(self) -> tuple[m.VariantInfo, ...]:
        response = await self._client.call(_wire.LIST_VARIANTS, rules_pb2.ListVariantsRequest())
        return tuple(_convert.variant(v) for v in response.variants)

    async def list_bot_levels(self) -> tuple[m.BotLevelInfo, ...]:
        """The bot levels a person picks from, weakest first: how each plays,
        its time a decision, and its rating on one scale for every level."""
        response = await self._client.call(_wire.LIST_BOT_LEVELS, rules_pb2.ListBotLevelsRequest())
        return _convert.bot_levels(response)
