"""The lean session (issue 32): a PlayGame session sends what its client
asked for. By default a move's answer carries its events and the mover's
next options (no view, no legal moves or hint again beside them), and no
options carry a hint, which is then never searched; ``hints`` and
``answer_views`` at the start, or a PlayGameAsk later, bring them; an ask
for a snapshot is answered in the session's order. Real servers on
loopback sockets, raw generated stubs; the app's searches counted."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import grpc
import pytest
import ramino.app.games.moves as app_moves
from ramino.v1 import game_pb2

from .test_sessions import (
    answer,
    draw,
    move_request,
    options_of,
    serving,
    session,
    start,
    two_people,
)


def ask(**fields: Any) -> game_pb2.PlayGameRequest:
    return game_pb2.PlayGameRequest(ask=game_pb2.PlayGameAsk(**fields))


async def lean_opened(
    s: Any, hints: bool = False, views: bool = False
) -> tuple[str, list[str], int, Any, game_pb2.SeatOptions]:
    """A game of two people and a session of the seat to play (asking for
    ``hints`` and ``views``), at its first options."""
    name, tokens = await two_people(s.stub)
    view = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    call = session(s.stub, tokens[view.turn])
    await start(call, name, hints=hints, views=views)
    return name, tokens, view.turn, call, await options_of(call)


async def next_message(call: Any) -> game_pb2.PlayGameResponse:
    message = await asyncio.wait_for(call.read(), 10)
    assert message is not grpc.aio.EOF
    return message


async def test_an_answer_carries_its_events_and_options_and_no_view_or_hint_unless_asked() -> None:
    async with serving() as s:
        _, _, seat, call, options = await lean_opened(s)
        assert options.moves and not options.HasField("hint")
        await call.write(draw("d", options.version))
        drew = await answer(call)
        result = drew.result
        assert drew.request_id == "d"
        assert [e.version for e in result.events] == [options.version + 1]
        assert result.events[0].WhichOneof("event") == "drew_from_stock"
        # The turn stays with the mover: its options, without their hint.
        assert result.options.version == options.version + 1 and result.options.turn == seat
        assert result.options.moves and not result.options.HasField("hint")
        # Nothing sent twice: no view, and no legal moves or hint beside the options.
        assert not result.HasField("view") and not result.legal_moves
        assert not result.HasField("hint")
        call.cancel()


async def test_hints_and_views_asked_at_the_start_come_with_every_answer() -> None:
    async with serving() as s:
        _, _, seat, call, options = await lean_opened(s, hints=True, views=True)
        assert options.HasField("hint")
        await call.write(draw("d", options.version))
        result = (await answer(call)).result
        assert result.view.version == options.version + 1 and result.view.hand
        assert result.options.HasField("hint") and result.HasField("hint")
        assert [m.SerializeToString() for m in result.legal_moves] == [
            m.SerializeToString() for m in result.options.moves
        ]
        call.cancel()


async def test_hints_asked_alone_come_with_options_and_no_view() -> None:
    async with serving() as s:
        _, _, _, call, options = await lean_opened(s, hints=True)
        assert options.HasField("hint")
        await call.write(draw("d", options.version))
        result = (await answer(call)).result
        assert result.options.HasField("hint") and result.options.hint.suggested_discard.code
        assert not result.HasField("view") and not result.legal_moves
        call.cancel()


async def test_an_ask_turning_hints_on_brings_the_options_again_with_their_hint() -> None:
    async with serving() as s:
        _, _, seat, call, options = await lean_opened(s)
        await call.write(draw("d", options.version))
        drew = (await answer(call)).result.options
        assert drew.moves and not drew.HasField("hint")
        await call.write(ask(hints=True))
        again = await next_message(call)
        assert again.WhichOneof("payload") is None, "options alone"
        assert again.version == drew.version and again.options.version == drew.version
        assert again.options.turn == seat and again.options.HasField("hint")
        assert [m.SerializeToString() for m in again.options.moves] == [
            m.SerializeToString() for m in drew.moves
        ]
        # Turned off again: the next answer's options carry none, and
        # the ask itself is answered by nothing.
        await call.write(ask(hints=False))
        card = again.options.hint.suggested_discard.id
        await call.write(
            game_pb2.PlayGameRequest(
                discard=game_pb2.DiscardRequest(
                    request_id="x", expected_version=drew.version, card_id=card
                )
            )
        )
        discarded = await next_message(call)
        assert discarded.WhichOneof("payload") == "answer"
        assert discarded.answer.request_id == "x" and discarded.answer.HasField("result")
        assert not discarded.answer.result.options.moves
        call.cancel()


async def test_an_ask_for_hints_off_the_seats_turn_sends_nothing_until_its_turn() -> None:
    async with serving() as s:
        name, tokens, seat, call, options = await lean_opened(s)
        other = session(s.stub, tokens[1 - seat])
        await start(other, name, after=options.version, hints=False, views=False)
        await other.write(ask(hints=True))
        # Seat ``seat`` draws and discards; the other is then told its
        # turn, with the hint it asked for.
        await call.write(draw("d", options.version))
        drew = (await answer(call)).result.options
        card = drew.moves[-1].discard.card_id
        await call.write(
            game_pb2.PlayGameRequest(
                discard=game_pb2.DiscardRequest(
                    request_id="x", expected_version=drew.version, card_id=card
                )
            )
        )
        first = await next_message(other)
        assert first.WhichOneof("payload") == "event" and first.version == options.version + 1
        assert not first.options.moves
        second = await next_message(other)
        assert second.WhichOneof("payload") == "event" and second.version == drew.version + 1
        assert second.options.moves and second.options.HasField("hint")
        call.cancel()
        other.cancel()


async def test_an_ask_for_a_snapshot_is_answered_in_order_with_the_view_and_options() -> None:
    async with serving() as s:
        name, tokens, seat, call, options = await lean_opened(s)
        await call.write(draw("d", options.version))
        await call.write(ask(snapshot=True))
        drew = await next_message(call)
        assert drew.WhichOneof("payload") == "answer" and drew.answer.request_id == "d"
        snap = await next_message(call)
        assert snap.WhichOneof("payload") == "snapshot"
        assert snap.version == snap.snapshot.version == options.version + 1
        assert len(snap.snapshot.hand) == 11, "the seat's own hand (ten dealt, one drawn)"
        # Its options, as the answer's were (no hint: not asked for).
        assert snap.options.version == snap.version and snap.options.moves
        assert not snap.options.HasField("hint")
        call.cancel()


async def test_an_ask_for_views_gives_the_next_answers_the_movers_view() -> None:
    async with serving() as s:
        _, _, _, call, options = await lean_opened(s)
        await call.write(ask(answer_views=True))
        await call.write(draw("d", options.version))
        result = (await answer(call)).result
        assert result.view.version == options.version + 1 and result.view.hand
        call.cancel()


async def test_an_ask_is_no_move_and_needs_no_request_id() -> None:
    async with serving() as s:
        _, _, _, call, options = await lean_opened(s)
        await call.write(ask())  # changes nothing, sends nothing
        await call.write(draw("d", options.version))
        drew = await next_message(call)
        assert drew.WhichOneof("payload") == "answer" and drew.answer.request_id == "d"
        call.cancel()


async def play_seat_lean(
    stub: Any, name: str, token: str, until: int, prefix: str, hints: bool
) -> int:
    """Plays a seat on a session asking for no view (and for ``hints``)
    until the game reaches ``until``; the moves it made."""
    call = session(stub, token)
    await start(call, name, hints=hints, views=False)
    made = last = 0
    while last < until:
        message = await next_message(call)
        last = max(last, message.version)
        if message.WhichOneof("payload") == "answer":
            result = message.answer.result
            assert message.answer.HasField("result") and not result.HasField("view")
            options = result.options
        elif message.HasField("options"):
            options = message.options
        else:
            continue
        assert options.HasField("hint") == (hints and bool(options.moves))
        if options.moves and last < until:
            made += 1
            await call.write(move_request(options, f"{prefix}-{made}"))
    call.cancel()
    return made


@pytest.mark.parametrize("hints", [False, True], ids=["lean", "hints"])
async def test_a_versions_options_are_searched_once_and_the_hint_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, hints: bool
) -> None:
    made: Counter[int] = Counter()
    hinted: Counter[int] = Counter()
    legal_moves, with_hint = app_moves.legal_moves, app_moves.with_hint

    def counted_legal(game: Any, seat: int, hint: bool = True) -> Any:
        made[game.version] += 1
        if hint:
            hinted[game.version] += 1
        return legal_moves(game, seat, hint)

    def counted_hint(game: Any, seat: int, legal: Any) -> Any:
        hinted[game.version] += 1
        return with_hint(game, seat, legal)

    monkeypatch.setattr(app_moves, "legal_moves", counted_legal)
    monkeypatch.setattr(app_moves, "with_hint", counted_hint)
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        until = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version + 30
        played = await asyncio.gather(
            *(play_seat_lean(s.stub, name, tokens[i], until, f"s{i}", hints) for i in (0, 1))
        )
    assert sum(played) >= 20
    assert made and max(made.values()) == 1, "each version's options searched once"
    if hints:
        assert hinted and max(hinted.values()) == 1, "each version's hint searched once"
    else:
        assert not hinted, "no hint searched for sessions that did not ask"


async def test_a_moves_events_are_encoded_once_and_never_for_the_movers_own_session() -> None:
    async with serving() as s:
        encoded: Counter[tuple[int, int | None]] = Counter()
        encode = s.servicer.encode_event

        def counted(version: int, seen: Any, turn: int | None) -> bytes:
            encoded[version, seen.viewer] += 1
            return encode(version, seen, turn)

        s.servicer.encode_event = counted
        name, tokens = await two_people(s.stub)
        first = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version
        until = first + 30
        played = await asyncio.gather(
            *(play_seat_lean(s.stub, name, tokens[i], until, f"s{i}", False) for i in (0, 1))
        )
    assert sum(played) >= 20
    versions = sorted({v for v, _ in encoded})
    assert versions and versions[0] == first + 1
    # Each version encoded once, for the one seat that did not make it.
    assert all(n == 1 for n in encoded.values())
    assert all(len([c for v, c in encoded if v == version]) == 1 for version in versions)
