"""The blocking client: :class:`Client`, its :class:`Seat` objects and
:class:`Watch` streams (thread-safe).

It is the asyncio client (:mod:`ramino_client.aio`) seen from blocking
code: a client runs an :class:`~ramino_client.AsyncClient` on a private
event loop of its own (:mod:`ramino_client._loop`), and each call runs the
async call there and waits for its answer, which is the same value, or its
error, the same exception; a watch or a session iterates its async one.
Closing the client closes the async one and ends its loop's thread.
"""

from __future__ import annotations

import asyncio
import queue
import weakref
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, TypeVar, cast

import grpc
import grpc.aio
from google.protobuf.message import Message

from ramino_client import _wire
from ramino_client import models as m
from ramino_client import moves as mv
from ramino_client._loop import Iterate, Loop, Twin, blocking, blocking_iter
from ramino_client._seat import SeatBase
from ramino_client.aio import AsyncClient, AsyncRules, AsyncSeat, AsyncWatch
from ramino_client.events import WatchItem
from ramino_client.quick import Quick
from ramino_client.session import Session

__all__ = ["Client", "Seat", "Rules", "Watch"]

Req = TypeVar("Req", bound=Message)
Resp = TypeVar("Resp", bound=Message)


class Client(Twin[AsyncClient]):
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
        self.target = target
        self._loop = Loop()

        async def connect() -> AsyncClient:  # on the loop: its channels belong to it
            given = None if channel is None else cast(grpc.aio.Channel, _BlockingChannel(channel))
            return AsyncClient(
                target,
                credentials=credentials,
                timeout=timeout,
                retry=retry,
                options=options,
                channel=given,
                player_token=player_token,
                caller_key=caller_key,
                load_balancing=load_balancing,
                streams_per_connection=streams_per_connection,
            )

        try:
            self._async = self._loop.run(connect())
        except BaseException:
            self._loop.close()
            raise
        # Closed by close(), or once collected unclosed (at the latest at exit).
        self._close = weakref.finalize(self, self._loop.close, self._async.close)
        self.rules = Rules(self)
        self.quick = Quick(self)
        """Quick play: tickets, ratings, leaderboards, histories (needs ``player_token``)."""

    @property
    def timeout(self) -> float | None:
        """Seconds each call may take (not a watch); None: no bound."""
        return self._async.timeout

    @timeout.setter
    def timeout(self, timeout: float | None) -> None:
        self._async.timeout = timeout

    @property
    def retry(self) -> _wire.RetryPolicy:
        return self._async.retry

    @retry.setter
    def retry(self, retry: _wire.RetryPolicy) -> None:
        self._async.retry = retry

    @property
    def caller_key(self) -> str:
        return self._async.caller_key

    def close(self) -> None:
        """Closes the connection (a call or stream still open ends) and the
        client's loop thread; closing again does nothing."""
        self._close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def call(self, rpc: _wire.Rpc[Req, Resp], request: Req, token: str | None = None) -> Resp:
        """One unary call, retried on UNAVAILABLE or a server's CANCELLED with the
        same request."""
        return self._loop.run(self._async.call(rpc, request, token))

    def _seat(self, seat: AsyncSeat) -> Seat:
        """The blocking face of a seat the asyncio client answered."""
        return Seat(self, seat.name, seat.seat, seat.token, seat.last_view)

    create_game = blocking(AsyncClient.create_game)
    cancel_game = blocking(AsyncClient.cancel_game)
    get_game = blocking(AsyncClient.get_game)
    list_games = blocking_iter(AsyncClient.list_games)

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
        joined = self._async.join(game, player_name, seat, request_id=request_id)
        return self._seat(self._loop.run(joined))

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
        joined = self._async.join_invite(invite_code, player_name, seat, request_id=request_id)
        return self._seat(self._loop.run(joined))

    def seat(self, game: str, token: str) -> Seat:
        """The seat a saved token acts for (to come back to a game)."""
        return self._seat(self._loop.run(self._async.seat(game, token)))

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


class Seat(SeatBase[Client, mv.MoveResult], Twin[AsyncSeat]):
    """One seat of one game, acting with its seat token.

    Every move sends a fresh ``request_id`` (retried with the same one on
    UNAVAILABLE) and, when given, ``expected_version``: the server refuses
    the move with :class:`~ramino_client.StaleVersion` if the game has moved on.
    """

    def __init__(
        self,
        client: Client,
        name: str,
        seat: int,
        token: str,
        view: m.GameView | None = None,
    ) -> None:
        self._loop = client._loop
        self._async = AsyncSeat(client._async, name, seat, token, view)
        super().__init__(client, name, seat, token, view)

    @property
    def last_view(self) -> m.GameView | None:
        """The latest view this seat received (join, moves, ``view()``, its session)."""
        return self._async.last_view

    @last_view.setter
    def last_view(self, view: m.GameView | None) -> None:
        self._async.last_view = view

    def play(
        self,
        move: mv.Move,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
    ) -> mv.MoveResult:
        """Any move, e.g. one of :meth:`legal_moves`."""
        played = self._async.play(move, expected_version=expected_version, request_id=request_id)
        return self._loop.run(played)

    legal_moves = blocking(AsyncSeat.legal_moves)
    view = blocking(AsyncSeat.view)

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


class Watch(Iterate[WatchItem]):
    """The live events of a game, as an iterator.

    Without ``after_version`` it starts with a :class:`~ramino_client.Snapshot`
    of the game, then yields each event. When the connection drops
    (UNAVAILABLE: the server restarts, the network fails) it reconnects and
    resumes after the last version it yielded, so no event is missed or
    yielded twice; a resume point the server no longer has comes back as a
    snapshot. With ``stop_at_end`` it ends after the match has ended.
    :meth:`cancel` (from any thread), the end of a ``with`` block, or
    dropping it unfinished ends it.
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
        self._async = AsyncWatch(client._async, name, token, after_version, snapshot, stop_at_end)
        super().__init__(client._loop, self._async, self._async.aclose)

    @property
    def last_version(self) -> int | None:
        """The version of the last item yielded."""
        return self._async.last_version

    @property
    def reconnects(self) -> int:
        """Times the stream was lost and opened again."""
        return self._async.reconnects

    def cancel(self) -> None:
        """Ends the watch; a ``next`` waiting in another thread ends too."""
        self.close()


class Rules(Twin[AsyncRules]):
    """The stateless RulesService: no game, no token."""

    def __init__(self, client: Client) -> None:
        self._async, self._loop = client._async.rules, client._loop

    validate_meld = blocking(AsyncRules.validate_meld)
    analyze_hand = blocking(AsyncRules.analyze_hand)
    list_variants = blocking(AsyncRules.list_variants)
    list_bot_levels = blocking(AsyncRules.list_bot_levels)


class _BlockingChannel:
    """A blocking ``grpc.Channel`` given to :class:`Client` (``channel=``,
    one with interceptors, say) as the part of ``grpc.aio.Channel`` that
    :class:`~ramino_client.AsyncClient` calls: each blocking call, or a
    stream's wait for its next message, runs in a worker thread of the
    loop."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._channel = channel

    def unary_unary(self, path: str, **codec: Any) -> Callable[..., Any]:
        method: Any = self._channel.unary_unary(path, **codec)
        return lambda request, **kwargs: asyncio.to_thread(method, request, **kwargs)

    def unary_stream(self, path: str, **codec: Any) -> Callable[..., _BlockingStream]:
        method: Any = self._channel.unary_stream(path, **codec)
        return lambda request, **kwargs: _BlockingStream(method(request, **kwargs))

    def stream_stream(self, path: str, **codec: Any) -> Callable[..., _BlockingStream]:
        method: Any = self._channel.stream_stream(path, **codec)

        def start(**kwargs: Any) -> _BlockingStream:
            outbox: queue.SimpleQueue[Message | None] = queue.SimpleQueue()
            return _BlockingStream(method(iter(outbox.get, None), **kwargs), outbox)

        return start

    async def close(self) -> None:
        self._channel.close()


class _BlockingStream:
    """A blocking stream call as ``grpc.aio``'s: ``read`` (``EOF`` at its
    end), ``write``, ``cancel``."""

    def __init__(self, call: Any, outbox: queue.SimpleQueue[Message | None] | None = None) -> None:
        self._call = call
        self._outbox = outbox
        self._cancelled = False

    async def read(self) -> Any:
        try:
            return await asyncio.to_thread(next, self._call, grpc.aio.EOF)
        except grpc.RpcError:
            if self._cancelled:  # as grpc.aio's read of a call cancelled
                raise asyncio.CancelledError() from None
            raise

    async def write(self, message: Message) -> None:
        if self._outbox is not None:
            self._outbox.put(message)

    def cancel(self) -> bool:
        self._cancelled = True
        if self._outbox is not None:
            self._outbox.put(None)
        return bool(self._call.cancel())
