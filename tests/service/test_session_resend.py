"""A move resent on a reopened session (issue 35): the session that sent it
is lost between the move's apply and its answer (or before the server read
it), and the seat reopens after the last version it read, naming the move
in its start's ``resend`` and sending it again. Over many timings of the
loss and of the resend (fixed counts of event-loop turns, no clock), the
reopened session hands out every version once, in order: the events
before the move, then its answer (never its events as events too), then
the rest; no options with moves come before that answer; and the move is
applied once. Real servers on loopback sockets, raw generated stubs."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from ramino.v1 import game_pb2

from .conftest import auth, reason_of
from .test_sessions import (
    Seen,
    Served,
    answer,
    draw,
    opened,
    refusal,
    serving,
    session,
    two_people,
    version_of,
)

RAW_DROPS = range(5)
"""Event-loop turns between sending the move and dropping its session."""
RESEND_DELAYS = (0, 2, 6)
"""Event-loop turns between the reopened session's start and the resend."""


async def turns(count: int) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


def discard(request_id: str, expected: int, card: int) -> game_pb2.PlayGameRequest:
    return game_pb2.PlayGameRequest(
        discard=game_pb2.DiscardRequest(
            request_id=request_id, expected_version=expected, card_id=card
        )
    )


def opening(name: str, after: int | None, resend: list[str]) -> game_pb2.PlayGameRequest:
    begin = game_pb2.PlayGameStart(name=name, hints=True, answer_views=True, resend=resend)
    if after is not None:
        begin.after_version = after
    return game_pb2.PlayGameRequest(start=begin)


async def other_plays(s: Served, name: str, token: str) -> None:
    """The other seat draws and discards by unary calls."""
    await s.stub.DrawFromStock(game_pb2.DrawFromStockRequest(name=name), metadata=auth(token))
    legal = await s.stub.GetLegalMoves(
        game_pb2.GetLegalMovesRequest(name=name), metadata=auth(token)
    )
    await s.stub.Discard(
        game_pb2.DiscardRequest(name=name, card_id=legal.options.hint.suggested_discard.id),
        metadata=auth(token),
    )


@dataclass
class Resent:
    """What the reopened session told, and the game's versions around it."""

    seen: Seen
    after: int | None
    lost_at: int
    """The version the lost move was sent at."""
    final: int


async def lose_and_resend(s: Served, drop: int | None, delay: int, resume: bool) -> Resent:
    """A seat's discard sent on a session that is lost: ``drop`` event-loop
    turns after sending it (None: once the move is applied, and the other
    seat has moved since); reopened (after the last version read, or with
    a snapshot when not ``resume``) naming the discard, sent again
    ``delay`` turns after the start; read until the answer and the game's
    version, then half-closed and read to its end."""
    name, tokens, seat, call, options = await opened(s)
    await call.write(draw("d", options.version))
    drew = (await answer(call)).result
    lost_at = drew.view.version
    resent = discard("r1", lost_at, drew.options.hint.suggested_discard.id)
    await call.write(resent)
    if drop is None:
        while await version_of(s.stub, name) == lost_at:
            await asyncio.sleep(0.005)  # (a poll: nothing is timed)
        call.cancel()
        await other_plays(s, name, tokens[1 - seat])
    else:
        await turns(drop)
        call.cancel()
    after = lost_at if resume else None
    again = session(s.stub, tokens[seat])
    await again.write(opening(name, after, ["r1"]))
    await turns(delay)
    await again.write(resent)
    seen = Seen()
    answered = False
    while True:
        final = await version_of(s.stub, name)
        snapshots = [m.snapshot.version for m in seen.messages if m.HasField("snapshot")]
        if answered and max([*seen.versions(), *snapshots], default=0) >= final:
            break
        message = await asyncio.wait_for(again.read(), 10)
        assert message is not grpc.aio.EOF, seen.messages
        seen.messages.append(message)
        answered = answered or message.answer.request_id == "r1"
    await again.done_writing()
    while (message := await again.read()) is not grpc.aio.EOF:
        seen.messages.append(message)
    return Resent(seen, after, lost_at, final)


def assert_once(resent: Resent) -> None:
    """Every version once and in order; the move answered once, applied once;
    no options to play before its answer."""
    seen = resent.seen
    told = seen.versions()
    answers = [m.answer for m in seen.messages if m.WhichOneof("payload") == "answer"]
    assert [a.request_id for a in answers] == ["r1"]
    assert answers[0].HasField("result"), answers[0].error
    assert [e.version for e in answers[0].result.events] == [resent.lost_at + 1]
    assert resent.final in (resent.lost_at + 1, resent.lost_at + 3)  # the discard once
    snapshots = [m.snapshot.version for m in seen.messages if m.HasField("snapshot")]
    if resent.after is not None:
        assert not snapshots
        assert told == list(range(resent.after + 1, resent.final + 1))
    else:
        # The snapshot covers what no event or answer told; nothing twice.
        assert len(snapshots) == 1 and len(told) == len(set(told)) and told == sorted(told)
        assert set(told) | set(range(1, snapshots[0] + 1)) >= set(range(1, resent.final + 1))
    before = itertools.takewhile(lambda m: m.WhichOneof("payload") != "answer", seen.messages)
    assert not any(m.options.moves for m in before), "options pushed before the resent answer"


@pytest.mark.parametrize("resume", [True, False], ids=["after-version", "snapshot"])
async def test_a_resent_move_named_in_the_start_is_handed_out_once_whatever_the_timing(
    resume: bool,
) -> None:
    async with serving() as s:
        for drop, delay in itertools.product([*RAW_DROPS, None], RESEND_DELAYS):
            resent = await lose_and_resend(s, drop, delay, resume)
            assert_once(resent)


async def test_a_resent_move_not_named_comes_twice_as_events_and_in_its_answer() -> None:
    """Why ``resend`` exists: a resent move the start does not name is a
    new move to the session, and the replay has told its events already."""
    async with serving() as s:
        name, tokens, seat, call, options = await opened(s)
        await call.write(draw("d", options.version))
        drew = (await answer(call)).result
        lost_at = drew.view.version
        resent = discard("r1", lost_at, drew.options.hint.suggested_discard.id)
        await call.write(resent)
        while await version_of(s.stub, name) == lost_at:
            await asyncio.sleep(0.005)
        call.cancel()
        again = session(s.stub, tokens[seat])
        await again.write(opening(name, lost_at, []))
        seen = Seen()
        seen.messages.append(await asyncio.wait_for(again.read(), 10))  # the replay
        await again.write(resent)
        seen.messages.append(await asyncio.wait_for(again.read(), 10))
        assert seen.versions() == [lost_at + 1, lost_at + 1]
        await again.done_writing()


async def test_a_named_resend_never_sent_is_waited_for_only_until_the_client_sends_else() -> None:
    """A start naming a move the client then does not send: the events
    wait for it until the client sends something else (here an ask), then
    come."""
    async with serving() as s:
        name, tokens, seat, call, options = await opened(s)
        await call.write(draw("d", options.version))
        drew = (await answer(call)).result
        call.cancel()
        # The seat discards by a unary call: an event for the reopened session.
        await s.stub.Discard(
            game_pb2.DiscardRequest(name=name, card_id=drew.options.hint.suggested_discard.id),
            metadata=auth(tokens[seat]),
        )
        again = session(s.stub, tokens[seat])
        await again.write(opening(name, drew.view.version - 1, ["ghost"]))
        await turns(6)
        # An ask that changes nothing: not the named move, the wait ends.
        await again.write(game_pb2.PlayGameRequest(ask=game_pb2.PlayGameAsk()))
        seen = Seen()
        for _ in range(2):
            seen.messages.append(await asyncio.wait_for(again.read(), 10))
        assert seen.versions() == [drew.view.version, drew.view.version + 1]
        await again.done_writing()
        assert await asyncio.wait_for(again.read(), 10) is grpc.aio.EOF


async def test_a_named_resend_never_sent_does_not_hold_the_session_past_the_games_end() -> None:
    """Issue 46, defect 7: a session holding a resend it never sends stayed
    open after its game ended, its last events unsent, until the client
    acted. It ends with the game, as any session does, with every event."""
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        before = await version_of(s.stub, name)
        again: Any = session(s.stub, tokens[0])
        await again.write(opening(name, before, ["ghost"]))
        await turns(6)
        await s.stub.Resign(game_pb2.ResignRequest(name=name), metadata=auth(tokens[1]))
        seen = Seen()
        # The client writes nothing more: the session ends by itself.
        while (m := await asyncio.wait_for(again.read(), 10)) is not grpc.aio.EOF:
            seen.messages.append(m)
        assert await again.code() == grpc.StatusCode.OK
        final = await version_of(s.stub, name)
        assert seen.versions() == list(range(before + 1, final + 1))
        assert seen.messages[-1].event.WhichOneof("event") == "match_ended"


@pytest.mark.parametrize(
    "resend",
    [[f"r{i}" for i in range(17)], ["r1", "r1"], [""], ["x" * 129]],
    ids=["seventeen", "twice", "empty", "too-long"],
)
async def test_a_start_with_a_wrong_resend_list_is_refused_before_anything_is_played(
    resend: list[str],
) -> None:
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        before = await version_of(s.stub, name)
        call: Any = session(s.stub, tokens[0])
        await call.write(opening(name, None, resend))
        error = await refusal(call)
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(error) == "SESSION_RESEND"
        # A move sent right behind the bad start is not played either. The
        # server may end the call before the move is written; grpc then
        # fails the write and sets the call's status to its own INTERNAL,
        # so this second call's status is not asserted: the first one's is.
        piped: Any = session(s.stub, tokens[0])
        await piped.write(opening(name, None, resend))
        try:
            await piped.write(draw("d"))
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            pass
        await ended(piped)
        assert await version_of(s.stub, name) == before


async def ended(call: Any) -> None:
    """Reads a call to its end, whatever its status."""
    try:
        while (await asyncio.wait_for(call.read(), 10)) is not grpc.aio.EOF:
            pass
    except grpc.aio.AioRpcError:
        pass
