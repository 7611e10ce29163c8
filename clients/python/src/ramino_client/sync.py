"""The blocking client: :class:`Client`, its :class:`Seat` objects and
:class:`Watch` streams, over a ``grpc`` channel (thread-safe)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar, cast

import grpc
from google.protobuf.message import Message

from ramino_client import _convert, _wire
from ramino_client import models as m
from ramino_client import moves as mv
from ramino_client._seat import SeatBase
from ramino_client.errors import error_from_rpc, watch_resumable
from ramino_client.events import WatchItem
from ramino_client.models import BotLevel
from ramino_client.quick import Quick
from ramino_client.session import Session
from ramino_client.v1 import game_pb2, rules_pb2

__all__ = ["Client", "Seat", "Rules", "Watch"]

Req = TypeVar("Req", bound=Message)
Resp = TypeVar("Resp", bound=Message)


StreamCall = TypeVar("StreamCall")


def _end_blocking(call: object, give_back: Callable[[], None]) -> None:
    """``give_back`` called when the stream ``call`` ends (at once if it has)."""
    if not cast(grpc.Call, call).add_callback(give_back):
        give_back()


def _code(error: grpc.RpcError) -> grpc.StatusCode:
    code = getattr(error, "code", None)
    return cast(grpc.StatusCode, code()) if callable(code) else grpc.StatusCode.UNKNOWN


class Client:
    """A connection to a Ramino server.

    >>> with Client("localhost:50051") as client:          # doctest: +SKIP
    ...     game = client.create_game("ramino51", seats=["ann", BotLevel.GREEDY])
    ...     seat = client.join(game.name, "ann")
    ...     seat.draw_from_stock()
    """

    def __init__(
        self,
        target: str = _wire.DEFAULT_TARGET,
        *,
        credentials: grpc.ChannelCredentials | None = None,
        timeout: float | None = 10.0,
        retry: _wire.RetryPolicy = _wire.DEFAULT_RETRY,
        options: Sequence[tuple[str, Any]] = (),
        channel: grpc.Channel | None = None,
        player_token: str | None = None,
        caller_key: str | None = None,
        load_balancing: str | None = _wire.DEFAULT_LOAD_BALANCING,
        streams_per_connection: int = _wire.STREAMS_PER_CONNECTION,
    ) -> None:
        """``timeout`` bounds each call (not a watch); ``retry`` is used on
        UNAVAILABLE; ``channel`` replaces the one made from ``target``.
        ``player_token``: the player token of the host's auth, for a server
        that knows players (sent on every call). ``caller_key``: the secret
        that scopes this client's request ids on CreateGame and JoinGame (a
        random one per client by default; give the same one to retry such a
        call from another client).

        ``target`` may name several servers: ``dns:///ramino-grpc.NAMESPACE:50051``
        (a headless Service: every ready pod's address) or
        ``ipv4:10.0.0.1:50051,10.0.0.2:50051``; ``load_balancing`` (gRPC's
        policy name, ``round_robin`` by default) spreads the calls over them.

        ``streams_per_connection``: the streams (watches, sessions, ticket
        waits) put on one connection before another is opened, below the
        server's ``--max-streams-per-connection``; connections are counted
        for the whole process, as gRPC shares them between clients of equal
        settings (see :class:`~ramino_client._wire.StreamChannels`)."""
        opts = _wire.channel_options(load_balancing, options)

        def make(o: Sequence[tuple[str, Any]]) -> grpc.Channel:
            if credentials is not None:
                return grpc.secure_channel(target, credentials, options=o)
            return grpc.insecure_channel(target, options=o)

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
        self.rules = Rules(self)
        self.quick = Quick(self)
        """Quick play: tickets, ratings, leaderboards, histories (needs ``player_token``)."""

    def close(self) -> None:
        for channel in self._streams.channels:
            channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- calls --------------------------------------------------------------

    def call(self, rpc: _wire.Rpc[Req, Resp], request: Req, token: str | None = None) -> Resp:
        """One unary call, retried on UNAVAILABLE or a server's CANCELLED with the
        same request."""
        method = self._channel.unary_unary(
            rpc.path, request_serializer=rpc.serialize, response_deserializer=rpc.deserialize
        )
        delays = self.retry.delays()
        while True:
            try:
                return method(
                    request, timeout=self.timeout, metadata=_wire.auth(token) + self._identity
                )
            except grpc.RpcError as e:
                if _code(e) in _wire.RETRYABLE_CODES:
                    delay = next(delays, None)
                    if delay is not None:
                        time.sleep(delay)
                        continue
                raise error_from_rpc(e) from e

    def stream(
        self, request: game_pb2.WatchGameRequest, token: str | None
    ) -> grpc._CallIterator[game_pb2.WatchGameResponse]:
        rpc = _wire.WATCH_GAME

        def start(channel: grpc.Channel) -> grpc._CallIterator[game_pb2.WatchGameResponse]:
            method = channel.unary_stream(
                rpc.path, request_serializer=rpc.serialize, response_deserializer=rpc.deserialize
            )
            return method(request, metadata=_wire.auth(token) + self._identity)

        return self.open_stream(start)

    def open_stream(self, start: Callable[[grpc.Channel], StreamCall]) -> StreamCall:
        """The stream ``start`` opens on a channel with room for it (see
        :class:`~ramino_client._wire.StreamChannels`): watches, sessions and
        ticket waits go through it."""
        return self._streams.open(start, _end_blocking)

    # --- lobby --------------------------------------------------------------

    def create_game(
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
        response = self.call(_wire.CREATE_GAME, request)
        return _convert.game(response.game, response.creator_token, response.invite_code)

    def cancel_game(self, game: str, creator_token: str) -> m.GameView:
        """Ends ``game`` as cancelled, with the ``creator_token`` of
        :meth:`create_game`; returns its final view (a spectator's)."""
        request = game_pb2.CancelGameRequest(name=_wire.game_name(game))
        return _convert.view((self.call(_wire.CANCEL_GAME, request, creator_token)).view)

    def join(
        self,
        game: str,
        player_name: str,
        seat: int | None = None,
        *,
        request_id: str | None = None,
    ) -> Seat:
        """Takes a seat (the first open one unless ``seat``); the deal
        happens once every seat is taken."""
        request = _wire.join_request(game, player_name, seat, request_id or _wire.new_request_id())
        response = self.call(_wire.JOIN_GAME, request)
        view = _convert.view(response.view)
        return Seat(self, view.name, response.seat, response.seat_token, view)

    def join_invite(
        self,
        invite_code: str,
        player_name: str,
        seat: int | None = None,
        *,
        request_id: str | None = None,
    ) -> Seat:
        """Takes a seat of the private game an invite code (or its link)
        opens; a code that opens nothing is :class:`NotFound` (reason
        ``INVITE_NOT_VALID``), whether or not its game exists."""
        request = _wire.join_invite_request(
            invite_code, player_name, seat, request_id or _wire.new_request_id()
        )
        response = self.call(_wire.JOIN_GAME, request)
        view = _convert.view(response.view)
        return Seat(self, view.name, response.seat, response.seat_token, view)

    def seat(self, game: str, token: str) -> Seat:
        """The seat a saved token acts for (to come back to a game)."""
        view = self._view(_wire.game_name(game), token)
        if view.seat is None:
            raise ValueError("the server sees this token as a spectator")
        return Seat(self, view.name, view.seat, token, view)

    def get_game(self, game: str) -> m.GameView:
        """The game as a spectator sees it."""
        return self._view(_wire.game_name(game), None)

    def _view(self, name: str, token: str | None) -> m.GameView:
        response = self.call(_wire.GET_GAME, game_pb2.GetGameRequest(name=name), token)
        return _convert.view(response.view)

    def list_games(
        self,
        *,
        variant: str | None = None,
        open_seats_only: bool = False,
        status: m.GameStatus | None = None,
        page_size: int = 50,
    ) -> Iterator[m.GameSummary]:
        """Every game that matches, page after page."""
        token = ""
        while True:
            request = _wire.list_games_request(page_size, token, variant, open_seats_only, status)
            page = self.call(_wire.LIST_GAMES, request)
            yield from (_convert.game(x) for x in page.games)
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
    ) -> Watch:
        """The game's events as a spectator sees them (see :class:`Watch`)."""
        return Watch(self, _wire.game_name(game), None, after_version, snapshot, stop_at_end)


class Seat(SeatBase[Client, mv.MoveResult]):
    """One seat of one game, acting with its seat token.

    Every move sends a fresh ``request_id`` (retried with the same one on
    UNAVAILABLE) and, when given, ``expected_version``: the server refuses
    the move with :class:`~ramino_client.StaleVersion` if the game has moved on.
    """

    def play(
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
        response = cast(_wire.MoveResponse, self.client.call(rpc, request, self.token))
        return self._after_move(_convert.move_result(response.result))

    def legal_moves(self) -> mv.LegalMoves:
        """The moves this seat may make now, with hints from the meld search."""
        request = game_pb2.GetLegalMovesRequest(name=self.name)
        return _convert.legal_moves(self.client.call(_wire.GET_LEGAL_MOVES, request, self.token))

    def view(self) -> m.GameView:
        """The game as this seat sees it."""
        self.last_view = self.client._view(self.name, self.token)
        return self.last_view

    def watch(
        self,
        after_version: int | None = None,
        *,
        snapshot: bool = False,
        stop_at_end: bool = True,
    ) -> Watch:
        """This seat's view of every event (see :class:`Watch`)."""
        return Watch(self.client, self.name, self.token, after_version, snapshot, stop_at_end)

    def session(self, after_version: int | None = None) -> Session:
        """This seat's session (PlayGame): its moves' answers, every event
        and its options pushed, in version order (see
        :class:`~ramino_client.session.Session`)."""
        return Session(self, after_version)


class Watch(Iterator[WatchItem]):
    """The live events of a game, as an iterator.

    Without ``after_version`` it starts with a :class:`~ramino_client.Snapshot`
    of the game, then yields each event. When the connection drops
    (UNAVAILABLE: the server restarts, the network fails) it reconnects and
    resumes after the last version it yielded, so no event is missed or
    yielded twice; a resume point the server no longer has comes back as a
    snapshot. With ``stop_at_end`` it ends after the match has ended.
    :meth:`cancel` (from any thread) ends it.
    """

    def __init__(
        self,
        client: Client,
        name: str,
        token: str | None,
        after_version: int | None,
        snapshot: bool,
        stop_at_end: bool,
    ) -> None:
        self._client = client
        self._token = token
        self._resume = _wire.Resume(name, after_version, snapshot, stop_at_end)
        self._call: grpc._CallIterator[game_pb2.WatchGameResponse] | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.reconnects = 0

    @property
    def last_version(self) -> int | None:
        """The version of the last item yielded."""
        return self._resume.last_version

    def __iter__(self) -> Watch:
        return self

    def __enter__(self) -> Watch:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.cancel()

    def cancel(self) -> None:
        with self._lock:
            self._closed = True
            call, self._call = self._call, None
        if call is not None:
            call.cancel()

    def _open(self) -> grpc._CallIterator[game_pb2.WatchGameResponse]:
        with self._lock:
            if self._call is None:
                self._call = self._client.stream(self._resume.request(), self._token)
            return self._call

    def _drop(self) -> None:
        with self._lock:
            call, self._call = self._call, None
        if call is not None:
            call.cancel()

    def __next__(self) -> WatchItem:
        delays = self._client.retry.delays()
        while True:
            if self._closed:
                raise StopIteration
            call = self._open()
            error: grpc.RpcError | None = None
            queued = self._resume.queued()  # the rest of a batch received
            try:
                response = queued if queued is not None else next(call)
            except StopIteration:
                if self._resume.ended:
                    self.cancel()
                    raise StopIteration from None
                # Otherwise the server is going away (draining): resume elsewhere.
            except grpc.RpcError as e:
                if self._closed:
                    raise StopIteration from None
                if not watch_resumable(e):
                    raise error_from_rpc(e) from e
                error = e
            else:
                where, item = self._resume.take(response)
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
            time.sleep(delay)


class Rules:
    """The stateless RulesService: no game, no token."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def validate_meld(
        self,
        cards: str | Sequence[str],
        variant: str = "ramino51",
        *,
        overrides: Mapping[str, Any] | None = None,
    ) -> m.MeldCheck:
        """Whether the cards (``"QH KH AH"``), in this order, are a legal meld."""
        request = _wire.validate_meld_request(cards, variant, overrides)
        return _convert.meld_check(self._client.call(_wire.VALIDATE_MELD, request))

    def analyze_hand(
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
        return _convert.analysis(self._client.call(_wire.ANALYZE_HAND, request))

    def list_variants(self) -> tuple[m.VariantInfo, ...]:
        response = self._client.call(_wire.LIST_VARIANTS, rules_pb2.ListVariantsRequest())
        return tuple(_convert.variant(v) for v in response.variants)

    def list_bot_levels(self) -> tuple[m.BotLevelInfo, ...]:
        """The bot levels a person picks from, weakest first: how each plays,
        its time a decision, and its rating on one scale for every level."""
        response = self._client.call(_wire.LIST_BOT_LEVELS, rules_pb2.ListBotLevelsRequest())
        return _convert.bot_levels(response)
