"""PlayGameStart.option_views (issue 35): options pushed with moves carry
the seat's view at their version, the table the moves are for (the
discard pile's top, the card TakeDiscard takes, included), equal to what
GetGame answers at that version; a session that did not ask gets none, and
neither a snapshot's options nor an answer's carry one (the snapshot, the
result's view are the view)."""

from __future__ import annotations

from typing import Any

import grpc
from ramino.v1 import game_pb2, types_pb2

from .conftest import auth
from .test_sessions import Served, move_request, serving, session, two_people, unary_move


def as_pushed(view: game_pb2.GameView) -> game_pb2.GameView:
    """GetGame's view as a pushed one has it: no deck, the variant by name."""
    out = game_pb2.GameView()
    out.CopyFrom(view)
    out.ClearField("deck")
    out.variant.CopyFrom(types_pb2.Variant(name=view.variant.name))
    return out


async def play_against_unary(
    s: Served, name: str, tokens: list[str], option_views: bool, decisions: int
) -> list[tuple[game_pb2.SeatOptions, game_pb2.GameView, int | None]]:
    """The seat to play first on a session, the other by unary moves (a
    draw and a discard a turn), until the session was pushed ``decisions``
    options with moves: each, with GetGame's view (the seat's) when it came
    and the card the other seat last discarded."""
    first = (await s.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.turn
    other = [tokens[1 - first]]
    call: Any = session(s.stub, tokens[first])
    await call.write(
        game_pb2.PlayGameRequest(
            start=game_pb2.PlayGameStart(
                name=name, hints=True, answer_views=True, option_views=option_views
            )
        )
    )
    pushed: list[tuple[game_pb2.SeatOptions, game_pb2.GameView, int | None]] = []
    discarded: int | None = None
    made = 0
    while len(pushed) < decisions:
        message = await call.read()
        assert message is not grpc.aio.EOF
        if message.WhichOneof("payload") == "answer":
            result = message.answer.result
            assert message.answer.HasField("result"), message.answer.error
            assert not result.options.HasField("view"), "an answer's options carry no view"
            options = result.options
            if not options.moves:
                # The turn passed: the other seat plays its own, by unary calls.
                await unary_move(s, name, other)
                await unary_move(s, name, other)
                seen = await s.stub.GetGame(
                    game_pb2.GetGameRequest(name=name), metadata=auth(tokens[first])
                )
                discarded = seen.view.discard_pile[-1].id
                continue
        elif message.WhichOneof("payload") == "snapshot":
            # The snapshot is the view: its options carry none.
            assert not message.options.HasField("view")
            options = message.options
            if not options.moves:
                continue
        elif message.HasField("options") and message.options.moves:
            options = message.options
            now = await s.stub.GetGame(
                game_pb2.GetGameRequest(name=name), metadata=auth(tokens[first])
            )
            assert now.view.version == options.version
            pushed.append((options, as_pushed(now.view), discarded))
        else:
            continue
        made += 1
        await call.write(move_request(options, f"m{made}"))
    call.cancel()
    return pushed


async def test_pushed_options_carry_the_seats_view_at_their_version_equal_to_get_game() -> None:
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        pushed = await play_against_unary(s, name, tokens, option_views=True, decisions=6)
        for options, server_view, discarded in pushed:
            assert options.HasField("view")
            assert options.view == server_view
            assert options.view.version == options.version
            if discarded is not None:
                # What TakeDiscard would take: the other seat's discard, not
                # the seat's own last one.
                assert options.view.discard_pile[-1].id == discarded
        assert sum(d is not None for _, _, d in pushed) >= 5


async def test_a_session_that_did_not_ask_for_option_views_is_pushed_none() -> None:
    async with serving() as s:
        name, tokens = await two_people(s.stub)
        pushed = await play_against_unary(s, name, tokens, option_views=False, decisions=3)
        assert pushed and not any(options.HasField("view") for options, _, _ in pushed)
