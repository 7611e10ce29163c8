"""The SDK's side of games that end early: the creator token of
``create_game``, ``cancel_game`` (blocking and asyncio), GameEnded in a watch,
and a game that only seats may watch."""

from __future__ import annotations

import threading

import pytest
from ramino_client import (
    AsyncClient,
    Client,
    GameEnded,
    GameStatus,
    PermissionDenied,
    Snapshot,
    Unauthenticated,
    WatchItem,
)
from ramino_client.events import ends_match

from .conftest import ThreadServer


def test_the_creator_token_cancels_a_game_and_watchers_see_it_end(server: ThreadServer) -> None:
    with Client(server.address) as client:
        game = client.create_game("rummy", seats=["ann", "bo"])
        assert game.creator_token
        assert all(g.creator_token is None for g in client.list_games())
        ann = client.join(game.name, "ann")
        client.join(game.name, "bo")
        watched: list[WatchItem] = []
        watch = client.watch(game.name)
        follower = threading.Thread(target=lambda: watched.extend(watch))
        follower.start()
        with pytest.raises(PermissionDenied):
            client.cancel_game(game.name, ann.token)  # a seat token is no creator token
        with pytest.raises(Unauthenticated):
            client.cancel_game(game.name, "not-a-token")
        view = client.cancel_game(game.name, game.creator_token)
        follower.join(timeout=10)
        assert not follower.is_alive(), "the watch did not end with the game"
        assert view.status is GameStatus.FINISHED and view.end_reason == "cancelled"
        last = watched[-1]
        assert isinstance(last, GameEnded) and last.reason == "cancelled" and ends_match(last)
        assert ann.view().end_reason == "cancelled"


async def test_the_async_client_cancels_with_the_creator_token(server: ThreadServer) -> None:
    async with AsyncClient(server.address) as client:
        game = await client.create_game("rummy", seats=["ann", "bo"], spectators_disabled=True)
        other = await client.create_game("rummy", seats=["cy", "di"])
        assert game.spectators_disabled and game.creator_token and other.creator_token
        with pytest.raises(PermissionDenied):
            await client.cancel_game(game.name, other.creator_token)
        seat = await client.join(game.name, "ann")
        with pytest.raises(PermissionDenied):
            await client.get_game(game.name)  # no spectators
        view = await client.cancel_game(game.name, game.creator_token)
        assert view.finished and view.end_reason == "cancelled" and view.spectators_disabled
        items = [item async for item in seat.watch()]
        assert isinstance(items[0], Snapshot) and items[0].view.end_reason == "cancelled"
