"""The edges of a watch and a session (issue 35): an ``after_version`` the
game does not have is OUT_OF_RANGE before anything is sent or held; a
session resumed at the game's version is sent what the proto says; a
session move without a request id is refused in its place. Real servers
on loopback sockets, raw generated stubs."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import pytest
from ramino.app import Limits
from ramino.store.redis import RedisStore
from ramino.v1 import game_pb2

from .conftest import auth, reason_of
from .test_sessions import (
    Served,
    answer,
    draw,
    opened,
    reason_in,
    serving,
    session,
    start,
    two_people,
    version_of,
)

# One stream a connection, a seat and a game: a refused stream that held
# its place would keep the next one out.
ONE_EACH = Limits(max_streams_per_seat=1, max_watchers_per_game=1)


def watch(s: Served, name: str, token: str | None, after: int) -> Any:
    request = game_pb2.WatchGameRequest(name=name, after_version=after)
    return s.stub.WatchGame(request, metadata=auth(token) if token else None)


async def refused_before_anything(call: Any) -> grpc.aio.AioRpcError:
    """The status ``call`` ends with, asserting that no message came before it."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        message = await call.read()
        raise AssertionError(f"a message before the refusal: {message}")
    return caught.value


def assert_out_of_range(error: grpc.aio.AioRpcError) -> None:
    assert error.code() == grpc.StatusCode.OUT_OF_RANGE, error
    assert reason_of(error) == "AFTER_VERSION_OUT_OF_RANGE"


@pytest.mark.parametrize("past", [-1, 1], ids=["negative", "past-the-game"])
@pytest.mark.parametrize("viewer", ["seat", "spectator"])
async def test_watch_game_after_a_version_the_game_lacks_is_out_of_range_and_holds_no_stream(
    past: int, viewer: str
) -> None:
    async with serving(limits=ONE_EACH, per_connection=1) as s:
        name, tokens = await two_people(s.stub)
        version = await version_of(s.stub, name)
        token = tokens[0] if viewer == "seat" else None
        after = -1 if past < 0 else version + past
        error = await refused_before_anything(watch(s, name, token, after))
        assert_out_of_range(error)
        assert f"after_version {after} " in (error.details() or "")
        # Its places (the connection's, the seat's or the spectators') are free.
        fine = watch(s, name, token, version)
        await unary_move(s, name, tokens)
        first = await asyncio.wait_for(fine.read(), 10)
        assert first.version == version + 1 and first.WhichOneof("payload") == "event"
        fine.cancel()


@pytest.mark.parametrize("past", [-1, 1], ids=["negative", "past-the-game"])
async def test_play_game_after_a_version_the_game_lacks_is_out_of_range_plays_and_holds_nothing(
    past: int,
) -> None:
    async with serving(limits=ONE_EACH, per_connection=1) as s:
        name, tokens = await two_people(s.stub)
        view = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        version, seat = view.version, view.turn
        call = session(s.stub, tokens[seat])
        await start(call, name, after=-1 if past < 0 else version + past)
        await call.write(draw("sent-behind-the-start", version))  # never played
        assert_out_of_range(await refused_before_anything(call))
        assert await version_of(s.stub, name) == version
        # Its places are free: a session of the same seat opens and plays.
        again = session(s.stub, tokens[seat])
        await start(again, name, after=version)
        await again.write(draw("d", version))
        drew = await answer(again)
        assert drew.request_id == "d" and drew.result.view.version == version + 1
        again.cancel()


async def test_after_version_is_checked_against_the_stores_version_on_another_replica(
    redis_server: Any,
) -> None:
    """A client resumes on replica B after a version made on replica A, B
    having cached the game before it: B compares with the store's version
    (its load catches up from the store), so the version is no error, and
    one past it is."""
    prefix = f"test-{uuid.uuid4().hex}:"
    async with serving(RedisStore(redis_server.url, prefix=prefix)) as a:
        async with serving(RedisStore(redis_server.url, prefix=prefix)) as b:
            name, tokens, seat, call, options = await opened(a)
            await b.stub.GetGame(game_pb2.GetGameRequest(name=name))  # cached on B
            await call.write(draw("d", options.version))
            drew = (await answer(call)).result
            call.cancel()
            resumed = session(b.stub, tokens[seat])
            await start(resumed, name, after=drew.view.version)
            first = await asyncio.wait_for(resumed.read(), 10)
            assert first.version == first.options.version == drew.view.version
            resumed.cancel()
            past = session(b.stub, tokens[seat])
            await start(past, name, after=drew.view.version + 1)
            assert_out_of_range(await refused_before_anything(past))


async def test_a_session_resumed_at_the_games_version_off_its_turn_gets_the_next_event_first() -> (
    None
):
    """The proto's rule: resumed at the game's version, a seat whose turn it
    is gets its options alone first (tests/service/test_sessions.py); one
    whose turn it is not is sent nothing before the next event, which
    carries its options (no moves, whose turn it is)."""
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        view = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        other = 1 - view.turn
        call = session(s.stub, tokens[other])
        await start(call, name, after=view.version)
        await unary_move(s, name, tokens)  # the seat to play draws
        first = await asyncio.wait_for(call.read(), 10)
        assert first.WhichOneof("payload") == "event" and first.version == view.version + 1
        assert first.options.version == view.version + 1
        assert first.options.turn == view.turn and not first.options.moves
        call.cancel()


async def test_a_session_that_told_no_options_yet_sends_them_alone_after_a_refused_move() -> None:
    """The proto's other options alone: resumed at the game's version off
    its turn (told nothing), the seat sends a move that is refused; after
    the answer come its options, with no payload (no moves, whose turn)."""
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        view = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
        call = session(s.stub, tokens[1 - view.turn])
        await start(call, name, after=view.version)
        await call.write(draw("not-my-turn", view.version))
        refused = await asyncio.wait_for(call.read(), 10)
        assert refused.answer.request_id == "not-my-turn"
        assert reason_in(refused.answer.error) == "NOT_YOUR_TURN"
        alone = await asyncio.wait_for(call.read(), 10)
        assert alone.WhichOneof("payload") is None
        assert alone.version == alone.options.version == view.version
        assert alone.options.turn == view.turn and not alone.options.moves
        call.cancel()


async def test_a_session_move_without_a_request_id_is_refused_in_its_place_and_plays_nothing() -> (
    None
):
    async with serving() as s:
        name, tokens, seat, call, options = await opened(s)
        await call.write(draw("", options.version))
        await call.write(draw("d", options.version))
        refused = await answer(call)
        assert refused.request_id == "" and refused.HasField("error")
        assert refused.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert reason_in(refused.error) == "SESSION_REQUEST_ID"
        # The session goes on; the next move is the one that plays.
        played = await answer(call)
        assert played.request_id == "d" and played.result.view.version == options.version + 1
        assert await version_of(s.stub, name) == options.version + 1
        await call.done_writing()


async def unary_move(s: Served, name: str, tokens: list[str]) -> None:
    """A draw by the seat to play, through the unary call."""
    view = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    await s.stub.DrawFromStock(
        game_pb2.DrawFromStockRequest(name=name, expected_version=view.version),
        metadata=auth(tokens[view.turn]),
    )
