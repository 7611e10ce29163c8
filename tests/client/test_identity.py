"""The SDK's caller key and player token: request ids on CreateGame and
JoinGame are scoped to the client that sent them, and on a server that knows
players every call carries the player token given to the client."""

from __future__ import annotations

import time
from collections.abc import Iterator

import jwt
import pytest
from ramino.api.auth import PlayerVerifier
from ramino_client import AsyncClient, Client, ServiceError

from .conftest import ThreadServer

PLAYER_SECRET = b"the-hosts-player-token-secret-for-sdk-tests"


def player_token(player: str) -> str:
    now = int(time.time())
    return jwt.encode({"sub": player, "iat": now, "exp": now + 600}, PLAYER_SECRET)


@pytest.fixture
def players_server() -> Iterator[ThreadServer]:
    s = ThreadServer(players=PlayerVerifier.from_secret(PLAYER_SECRET))
    s.start()
    yield s
    s.close()


def test_another_client_replaying_a_join_request_id_gets_request_id_reused(
    server: ThreadServer,
) -> None:
    with Client(server.address) as mine, Client(server.address) as stranger:
        assert mine.caller_key != stranger.caller_key
        game = mine.create_game("rummy", seats=["", ""], request_id="create-1")
        # The same create request id from another client is another game.
        assert stranger.create_game("rummy", seats=["", ""], request_id="create-1").name != (
            game.name
        )
        seat = mine.join(game.name, "ann", request_id="join-1")
        with pytest.raises(ServiceError) as err:
            stranger.join(game.name, "ann", request_id="join-1")
        assert err.value.reason == "REQUEST_ID_REUSED"
        # A client given the first one's key retries it as its own.
        with Client(server.address, caller_key=mine.caller_key) as again:
            assert again.join(game.name, "ann", request_id="join-1").seat == seat.seat


def test_the_sdk_plays_with_its_player_token(players_server: ThreadServer) -> None:
    with Client(players_server.address, player_token=player_token("ann")) as ann:
        game = ann.create_game("rummy", seats=["", ""])
        seat = ann.join(game.name, "ann")
        with pytest.raises(ServiceError) as err:
            ann.join(game.name, "ann again")
        assert err.value.reason == "ALREADY_SEATED"
        with Client(players_server.address, player_token=player_token("bob")) as bob:
            other = bob.join(game.name, "bob")
            mover = seat if seat.view().my_turn else other
            result = mover.draw_from_stock()
            assert [e.type for e in result.events] == ["DrewFromStock"]
    with Client(players_server.address) as nobody:
        with pytest.raises(ServiceError) as missing:
            nobody.create_game("rummy", seats=["", ""])
        assert missing.value.reason == "PLAYER_TOKEN_MISSING"


async def test_the_async_sdk_plays_with_its_player_token(players_server: ThreadServer) -> None:
    async with AsyncClient(players_server.address, player_token=player_token("ann")) as ann:
        game = await ann.create_game("rummy", seats=["", ""], request_id="c-1")
        again = await ann.create_game("rummy", seats=["", ""], request_id="c-1")
        assert again.name == game.name
        seat = await ann.join(game.name, "ann")
        view = await seat.view()
        assert view.seat == 0 and len(view.hand) == 0
    async with AsyncClient(players_server.address, player_token=player_token("eve")) as eve:
        with pytest.raises(ServiceError) as err:
            await eve.seat(game.name, seat.token)
        assert err.value.reason == "WRONG_PLAYER"
