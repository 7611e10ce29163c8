"""Rated lobby tables (issue 34): CreateGame with ``rated`` on a server
that knows players; every seat a verified player; at the end the ratings
change exactly as quick play's do (``ramino.app.quick.ratings``), once."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import grpc
import pytest
from ramino import reasons
from ramino.app import GameApp, SeatSpec
from ramino.app.quick.ratings import rate_placings
from ramino.errors import GameStateError
from ramino.store import open_store
from ramino.v1 import game_pb2, match_pb2

from tests.service.conftest import Harness, auth, reason_of
from tests.service.test_match_api import Quick, player, serving

PRIVATE = game_pb2.VISIBILITY_PRIVATE


@pytest.fixture
async def tables() -> AsyncIterator[Quick]:
    async with contextlib.asynccontextmanager(serving)(open_store("memory")) as q:
        yield q


def rated_request(**fields: object) -> game_pb2.CreateGameRequest:
    seats = [game_pb2.SeatConfig(), game_pb2.SeatConfig()]
    return game_pb2.CreateGameRequest(
        variant="rummy",
        seats=seats,
        rated=True,
        **{"turn_timer_seconds": 60, **fields},  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("visibility", [game_pb2.VISIBILITY_PUBLIC, PRIVATE])
async def test_a_rated_table_rates_its_players_as_quick_play_does_once(
    tables: Quick, visibility: int
) -> None:
    created = await tables.games.CreateGame(
        rated_request(visibility=visibility), metadata=player("ann")
    )
    assert created.game.rated
    joined = {}
    for who in ("ann", "bob"):
        joined[who] = await tables.games.JoinGame(
            game_pb2.JoinGameRequest(
                name=created.game.name, invite_code=created.invite_code, player_name=who.title()
            ),
            metadata=player(who),
        )
    await tables.games.Resign(
        game_pb2.ResignRequest(name=created.game.name),
        metadata=auth(joined["bob"].seat_token) + player("bob"),
    )
    expected = rate_placings({}, {"ann": (1, "Ann"), "bob": (2, "Bob")})
    for who in ("ann", "bob"):
        got = await tables.match.GetRating(
            match_pb2.GetRatingRequest(variant="rummy"), metadata=player(who)
        )
        assert (got.rating.mu, got.rating.sigma, got.rating.games) == (
            pytest.approx(expected[who].mu),
            pytest.approx(expected[who].sigma),
            1,
        )
    # Reported again (a retry, another replica): counted once.
    game = await tables.app.load(created.game.name.removeprefix("games/"))
    assert not await tables.app.ratings.game_finished(game)
    again = await tables.match.GetRating(
        match_pb2.GetRatingRequest(variant="rummy"), metadata=player("ann")
    )
    assert again.rating.games == 1
    history = await tables.match.ListPlayerGames(
        match_pb2.ListPlayerGamesRequest(page_size=5), metadata=player("bob")
    )
    (entry,) = history.games
    assert entry.rated and entry.game == created.game.name


async def test_an_unrated_table_changes_no_rating(tables: Quick) -> None:
    created = await tables.games.CreateGame(
        game_pb2.CreateGameRequest(
            variant="rummy", seats=[game_pb2.SeatConfig(), game_pb2.SeatConfig()]
        ),
        metadata=player("ann"),
    )
    assert not created.game.rated
    tokens = {}
    for who in ("ann", "bob"):
        joined = await tables.games.JoinGame(
            game_pb2.JoinGameRequest(name=created.game.name, player_name=who),
            metadata=player(who),
        )
        tokens[who] = joined.seat_token
    await tables.games.Resign(
        game_pb2.ResignRequest(name=created.game.name),
        metadata=auth(tokens["bob"]) + player("bob"),
    )
    got = await tables.match.GetRating(
        match_pb2.GetRatingRequest(variant="rummy"), metadata=player("ann")
    )
    assert got.rating.games == 0


async def test_a_rated_table_with_a_bot_seat_is_refused(tables: Quick) -> None:
    request = game_pb2.CreateGameRequest(
        variant="rummy",
        seats=[game_pb2.SeatConfig(), game_pb2.SeatConfig(bot=game_pb2.BOT_LEVEL_GREEDY)],
        rated=True,
        turn_timer_seconds=60,
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await tables.games.CreateGame(request, metadata=player("ann"))
    assert (err.value.code(), reason_of(err.value)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        reasons.RATED_WITH_BOT,
    )
    assert (await tables.app.store.list_games(10)).games == []


async def test_a_rated_table_needs_a_turn_timer(tables: Quick) -> None:
    """Without one, a player about to lose could walk away until the game is
    abandoned, which rates no one."""
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await tables.games.CreateGame(rated_request(turn_timer_seconds=0), metadata=player("ann"))
    assert (err.value.code(), reason_of(err.value)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        reasons.RATED_WITHOUT_TIMER,
    )
    assert (await tables.app.store.list_games(10)).games == []


async def test_a_rated_table_needs_a_server_that_knows_players(harness: Harness) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await harness.stub.CreateGame(rated_request())
    assert (err.value.code(), reason_of(err.value)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        reasons.RATED_NEEDS_PLAYERS,
    )
    assert (await harness.app.store.list_games(10)).games == []


async def test_a_rated_table_seats_no_unverified_person() -> None:
    app = GameApp(open_store("memory"), run_duties=False)
    table = await app.open_table("rummy", {}, [SeatSpec("", None)] * 2, 60, rated=True)
    with pytest.raises(GameStateError) as err:
        await app.join(table.game.game_id, None, "Ann")
    assert err.value.reason == reasons.RATED_NEEDS_PLAYERS
    assert (await app.load(table.game.game_id)).open_seats == [0, 1]
    await app.close()


async def test_a_rated_table_cannot_be_cancelled_once_dealt(tables: Quick) -> None:
    """A creator about to lose cannot cancel the game to keep a rating."""
    created = await tables.games.CreateGame(rated_request(), metadata=player("ann"))
    for who in ("ann", "bob"):
        await tables.games.JoinGame(
            game_pb2.JoinGameRequest(name=created.game.name, player_name=who),
            metadata=player(who),
        )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await tables.games.CancelGame(
            game_pb2.CancelGameRequest(name=created.game.name),
            metadata=auth(created.creator_token) + player("ann"),
        )
    assert (err.value.code(), reason_of(err.value)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        reasons.RATED_IN_PLAY,
    )
    game = await tables.app.load(created.game.name.removeprefix("games/"))
    assert game.ended is None and game.status == "playing"
    # Before the deal, a rated table is cancelled as any other.
    waiting = await tables.games.CreateGame(rated_request(), metadata=player("ann"))
    view = await tables.games.CancelGame(
        game_pb2.CancelGameRequest(name=waiting.game.name),
        metadata=auth(waiting.creator_token) + player("ann"),
    )
    assert view.view.end_reason == "cancelled"
