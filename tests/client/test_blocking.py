"""The blocking client is the asyncio one run on a private event loop
(``ramino_client._loop``): closing a client ends its loop's thread, a
stream left early is cancelled, a call interrupted is cancelled on the
loop, timeouts and errors come through as they are, a blocking policy runs
in its caller's thread, and a client given a blocking channel of its own
watches and plays over it."""

from __future__ import annotations

import asyncio
import gc
import signal
import sys
import threading
import time
from collections.abc import Callable

import grpc
import pytest
from ramino.api.rules_servicer import RulesServicer
from ramino.v1 import rules_pb2, rules_pb2_grpc
from ramino_client import (
    BotLevel,
    Client,
    GameStatus,
    GameView,
    LegalMoves,
    MatchEnded,
    Move,
    ServiceError,
    Snapshot,
    WatchItem,
    play_seat,
)
from ramino_client._loop import Loop
from ramino_client._wire import OPEN_STREAMS

from .conftest import ThreadServer, consecutive
from .test_session import policy


def eventually(condition: Callable[[], bool], within: float = 10.0) -> bool:
    """Whether ``condition`` holds before ``within`` seconds pass: for what
    gRPC does on threads of its own (it ends a cancelled call, and its
    blocking channel's threads, a moment later)."""
    give_up = time.monotonic() + within
    while not condition():
        if time.monotonic() > give_up:
            return False
        time.sleep(0.01)
    return True


def client_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "ramino-client"]


def test_closed_clients_leave_no_thread_behind(server: ThreadServer) -> None:
    baseline = threading.active_count()
    for _ in range(25):
        with Client(server.address) as client:
            assert len(client_threads()) == 1
            game = client.create_game("rummy", seats=["ann", "bo"])
            watch = client.watch(game.name)
            assert isinstance(next(watch), Snapshot)  # a stream open: closing ends it
        assert threading.active_count() == baseline and client_threads() == []
    with pytest.raises(ValueError, match="streams_per_connection"):
        Client(server.address, streams_per_connection=0)
    assert threading.active_count() == baseline
    # A client dropped unclosed closes once collected.
    dropped = Client(server.address)
    dropped.rules.list_variants()
    assert len(client_threads()) == 1
    del dropped
    gc.collect()
    assert threading.active_count() == baseline


def test_a_closed_client_refuses_calls_and_ends_a_waiting_next(server: ThreadServer) -> None:
    client = Client(server.address)
    game = client.create_game("rummy", seats=["ann", "bo"])
    watch = client.watch(game.name)
    assert isinstance(next(watch), Snapshot)
    failed: list[BaseException] = []

    def follow() -> None:
        try:
            next(watch)  # nothing happens in a game nobody joins
        except BaseException as e:
            failed.append(e)

    follower = threading.Thread(target=follow)
    follower.start()
    client.close()
    follower.join(timeout=10)
    assert not follower.is_alive()
    assert len(failed) == 1 and isinstance(failed[0], ValueError)
    with pytest.raises(ValueError, match="closed"):
        client.get_game(game.name)
    client.close()  # again: nothing


def test_a_stream_left_early_is_cancelled(server: ThreadServer) -> None:
    with Client(server.address) as client:
        settings = client._async._streams.settings
        game = client.create_game("rummy", seats=["ann", "bo"])
        seat = client.join(game.name, "ann")
        for item in client.watch(game.name):
            assert isinstance(item, Snapshot)
            assert OPEN_STREAMS.count(settings) == {0: 1}
            break
        assert eventually(lambda: OPEN_STREAMS.count(settings) == {})
        for update in seat.session():
            assert update.snapshot is not None
            assert OPEN_STREAMS.count(settings) == {0: 1}
            break
        assert eventually(lambda: OPEN_STREAMS.count(settings) == {})
        games = client.list_games()
        assert next(games).name
        games.close()  # as a generator's
        with pytest.raises(StopIteration):
            next(games)


class Stop(Exception):
    pass


def test_a_blocking_policy_runs_in_its_callers_thread_and_may_call_the_client(
    server: ThreadServer,
) -> None:
    with Client(server.address) as client:
        game = client.create_game("rummy", seats=["ann", BotLevel.GREEDY])
        seat = client.join(game.name, "ann")
        callers: set[int] = set()

        def choose(legal: LegalMoves, view: GameView | None) -> Move:
            callers.add(threading.get_ident())
            assert client.get_game(game.name).version >= legal.version  # no deadlock
            return policy(legal, view)

        last = play_seat(seat, choose)
        assert callers == {threading.get_ident()}
        final = client.get_game(game.name)
        assert final.status is GameStatus.FINISHED
        assert last is not None and last.version <= final.version
        # An error of the policy is raised as it is, and the session ends.
        other = client.join(client.create_game("rummy", seats=["bo", BotLevel.GREEDY]).name, "bo")

        def refuse(legal: LegalMoves, view: GameView | None) -> Move:
            raise Stop("no move")

        with pytest.raises(Stop, match="no move"):
            play_seat(other, refuse)
        settings = client._async._streams.settings
        assert eventually(lambda: OPEN_STREAMS.count(settings) == {})


class Silent(RulesServicer):
    """A rules service whose ListVariants answers only once released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def ListVariants(  # noqa: N802
        self, request: rules_pb2.ListVariantsRequest, context: grpc.aio.ServicerContext
    ) -> rules_pb2.ListVariantsResponse:
        await self.release.wait()
        return await super().ListVariants(request, context)


async def test_the_timeout_bounds_each_blocking_call() -> None:
    server = grpc.aio.server()
    rules = Silent()
    rules_pb2_grpc.add_RulesServiceServicer_to_server(rules, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        with Client(f"127.0.0.1:{port}") as client:
            client.timeout = 0.2  # set after the client is made
            with pytest.raises(ServiceError) as late:
                await asyncio.to_thread(client.rules.list_variants)
            assert late.value.code is grpc.StatusCode.DEADLINE_EXCEEDED
            rules.release.set()
            client.timeout = 10
            variants = await asyncio.to_thread(client.rules.list_variants)
    finally:
        await server.stop(0)
    assert "ramino51" in {v.name for v in variants}


@pytest.mark.skipif(
    signal.getsignal(signal.SIGINT) is not signal.default_int_handler,
    reason="Ctrl-C is not a KeyboardInterrupt here",
)
def test_an_interrupted_call_is_cancelled_on_the_loop() -> None:
    """Ctrl-C while a call waits (ramino-play's prompt, in the main thread):
    the KeyboardInterrupt is raised and the coroutine is cancelled."""
    loop = Loop()
    started, cancelled = threading.Event(), threading.Event()
    main = threading.main_thread()
    assert threading.current_thread() is main and main.ident is not None

    async def forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    def waiting() -> bool:
        """The main thread waits for the call's answer."""
        frame = sys._current_frames().get(main.ident or 0)
        return (
            frame is not None
            and frame.f_code.co_name == "wait"
            and frame.f_back is not None
            and frame.f_back.f_code.co_name == "result"
        )

    def interrupt() -> None:
        if started.wait(10) and eventually(waiting):
            signal.pthread_kill(main.ident or 0, signal.SIGINT)
        else:
            loop.close()  # the test fails, rather than waits forever

    interrupter = threading.Thread(target=interrupt)
    interrupter.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            loop.run(forever())
    finally:
        interrupter.join()
    assert cancelled.wait(10)
    loop.close()
    assert not loop._thread.is_alive()


def test_a_blocking_call_from_the_loop_itself_is_refused() -> None:
    loop = Loop()

    async def nested() -> None:
        async def inner() -> None:
            pass

        loop.run(inner())

    with pytest.raises(RuntimeError, match="its own event loop"):
        loop.run(nested())
    loop.close()


def test_a_client_on_a_blocking_channel_of_its_own_watches_and_plays(
    server: ThreadServer,
) -> None:
    """``Client(channel=...)`` with a blocking channel (one with
    interceptors, say): its unary calls, watches and sessions go over it."""
    baseline = threading.active_count()
    with Client(channel=grpc.insecure_channel(server.address)) as client:
        game = client.create_game("rummy", seats=["ann", "bo"])
        seats = [client.join(game.name, who) for who in ("ann", "bo")]
        watched: list[WatchItem] = []
        watch = client.watch(game.name)
        follower = threading.Thread(target=lambda: watched.extend(watch))
        follower.start()
        players = [threading.Thread(target=play_seat, args=(s, policy)) for s in seats]
        for p in players:
            p.start()
        for p in players:
            p.join(120)
        follower.join(timeout=30)
        assert not follower.is_alive()
        final = client.get_game(game.name)
        # A stream still open when the client closes ends with it.
        quiet = client.watch(client.create_game("rummy", seats=["ann", "bo"]).name)
        assert isinstance(next(quiet), Snapshot)
    assert final.status is GameStatus.FINISHED
    assert isinstance(watched[-1], MatchEnded) and watched[-1].version == final.version
    assert consecutive([i.version for i in watched])
    assert eventually(lambda: threading.active_count() == baseline)


def test_closing_a_session_from_another_thread_ends_its_waiting_next(
    server: ThreadServer,
) -> None:
    with Client(server.address) as client:
        game = client.create_game("rummy", seats=["ann", "bo"])
        seats = [client.join(game.name, who) for who in ("ann", "bo")]
        turn = seats[0].view().turn
        waiting = seats[1] if turn == seats[0].seat else seats[0]
        session = waiting.session()
        assert next(session).snapshot is not None
        rest: list[object] = []
        follower = threading.Thread(target=lambda: rest.extend(session))
        follower.start()  # blocks: nobody moves in a game of two people who wait
        session.close()
        follower.join(timeout=10)
        assert not follower.is_alive() and rest == []
        settings = client._async._streams.settings
        assert eventually(lambda: OPEN_STREAMS.count(settings) == {})
