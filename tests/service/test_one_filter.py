"""One viewer filter: a field hidden in one place, the engine's projection
(:mod:`ramino.engine.seen`), is hidden on every path that shows it: a move's
answer, the same request replayed (from this replica's game, and folded
again from the store), a seat's and a spectator's watch, GetGame."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pytest
import ramino.engine.seen as the_filter
from ramino.engine import DrewFromStock, Event, Seen, see_event
from ramino.v1 import game_pb2

from .conftest import Harness, auth, seated_game

FILTER = "ramino.engine.seen"


def drawn_cards(result: game_pb2.MoveResult) -> list[int | None]:
    """The card of each DrewFromStock of a move's answer (None: hidden)."""
    return [
        e.drew_from_stock.card_id if e.drew_from_stock.HasField("card_id") else None
        for e in result.events
        if e.WhichOneof("event") == "drew_from_stock"
    ]


async def next_event(stream: Any) -> game_pb2.GameEvent:
    response = await stream.read()
    assert response.HasField("event"), response
    event: game_pb2.GameEvent = response.event
    return event


async def draw_twice(h: Harness, name: str, token: str) -> list[game_pb2.DrawFromStockResponse]:
    """A draw with a request id, that request again, and again once the
    replica has dropped its copy of the game (it is folded from the store)."""
    draw = game_pb2.DrawFromStockRequest(name=name, request_id="draw-once")
    first = await h.stub.DrawFromStock(draw, metadata=auth(token))
    again = await h.stub.DrawFromStock(draw, metadata=auth(token))
    h.app.cache.forget(name.partition("/")[2])
    folded = await h.stub.DrawFromStock(draw, metadata=auth(token))
    return [first, again, folded]


@dataclass
class Seated:
    """A game of two people: the harness, its name, their tokens, the seat
    to move and the version."""

    h: Harness
    name: str
    tokens: list[str]
    mover: int
    version: int


@pytest.fixture
async def game(harness: Harness) -> Seated:
    name, tokens = await seated_game(harness, "rummy", 2)
    view = (await harness.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    return Seated(harness, name, tokens, view.turn, view.version)


@pytest.fixture(params=[False, True], ids=["as-is", "hidden"])
def hidden(request: pytest.FixtureRequest) -> bool:
    """Whether the test adds its hidden field to the filter."""
    return bool(request.param)


async def test_an_event_field_hidden_in_the_projection_is_hidden_on_every_path(
    game: Seated, monkeypatch: pytest.MonkeyPatch, hidden: bool
) -> None:
    h, name, tokens, mover = game.h, game.name, game.tokens, game.mover
    if hidden:
        # A new rule, in one place: nobody sees a card drawn from the stock,
        # its drawer neither.
        project = the_filter.project

        def hiding(event: Event, viewer: int | None) -> Event:
            seen = project(event, viewer)
            if isinstance(seen, DrewFromStock):
                return dataclasses.replace(seen, card=None)
            return seen

        monkeypatch.setattr(the_filter, "project", hiding)
    after = game.version
    watches = [
        h.stub.WatchGame(
            game_pb2.WatchGameRequest(name=name, after_version=after), metadata=auth(tokens[mover])
        ),
        h.stub.WatchGame(game_pb2.WatchGameRequest(name=name, after_version=after)),
        h.stub.WatchGame(
            game_pb2.WatchGameRequest(name=name, after_version=after, batch_events=True)
        ),
    ]
    answers = await draw_twice(h, name, tokens[mover])
    assert answers[1] == answers[0] and answers[2] == answers[0]  # a replay is the first answer
    (card,) = drawn_cards(answers[0].result)
    assert (card is None) == hidden
    seat_watch, spectator_watch, batched_watch = watches
    seen = await next_event(seat_watch)
    assert seen.HasField("drew_from_stock")
    assert seen.drew_from_stock.HasField("card_id") != hidden
    assert not (await next_event(spectator_watch)).drew_from_stock.HasField("card_id")
    batch = (await batched_watch.read()).events.events
    assert batch[0].HasField("drew_from_stock")
    assert not batch[0].drew_from_stock.HasField("card_id")
    for stream in watches:
        stream.cancel()


async def test_a_view_field_hidden_in_the_projection_is_hidden_on_every_path(
    game: Seated, monkeypatch: pytest.MonkeyPatch, hidden: bool
) -> None:
    if hidden:
        # A new rule, in one place: nobody sees the discard pile.
        build_view = the_filter.build_view
        monkeypatch.setattr(
            the_filter,
            "build_view",
            lambda *a: dataclasses.replace(build_view(*a), discard_pile=()),
        )
    h, name, tokens, mover = game.h, game.name, game.tokens, game.mover
    views = [(await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view]
    for token in tokens:
        got = await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=auth(token))
        views.append(got.view)
    for md in (auth(tokens[mover]), ()):
        stream = h.stub.WatchGame(game_pb2.WatchGameRequest(name=name, snapshot=True), metadata=md)
        views.append((await stream.read()).snapshot)
        stream.cancel()
    views.extend(answer.result.view for answer in await draw_twice(h, name, tokens[mover]))
    assert len(views) == 8
    for view in views:
        assert (len(view.discard_pile) == 0) == hidden, view


def test_only_the_filter_makes_a_seen_value() -> None:
    with pytest.raises(TypeError):
        Seen(DrewFromStock(0, 11), 1, object())
    assert see_event(DrewFromStock(0, 11), 1) == see_event(DrewFromStock(0, None), 1)
