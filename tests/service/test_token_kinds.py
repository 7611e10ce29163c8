"""Token kinds that cannot be confused (issue 20, item 9): a seat or creator
token is never a player token, a player-token secret equal to the seat-token
secret is refused at start, and a creator token is bound to its player."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import jwt
import pytest
from ramino.api.auth import CREATOR_TYP, SEAT_TYP, PlayerVerifier, TokenIssuer
from ramino.api.errors import ApiError
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.store.memory import MemoryStore
from ramino.v1 import game_pb2, game_pb2_grpc

from .conftest import SECRET, SEED, Harness, auth, reason_of

PLAYER_SECRET = b"the-hosts-own-player-token-secret-for-kinds"


def player_token(player: str, secret: bytes = PLAYER_SECRET) -> str:
    now = int(time.time())
    return jwt.encode({"sub": player, "iat": now, "exp": now + 600}, secret, algorithm="HS256")


def as_player(player: str, token: str | None = None) -> tuple[tuple[str, str], ...]:
    md = (("ramino-player-token", player_token(player)),)
    return md + auth(token) if token else md


def test_a_seat_or_creator_token_is_no_player_token_even_under_one_secret() -> None:
    """Built directly (the server refuses this configuration at start): even
    then, the header's type keeps our tokens out of the player verifier."""
    tokens = TokenIssuer(SECRET)
    players = PlayerVerifier.from_secret(SECRET)
    for token in (tokens.issue("g", 0), tokens.issue_creator("g")):
        with pytest.raises(ApiError) as err:
            players.verify(token)
        assert err.value.reason == "PLAYER_TOKEN_INVALID"
    assert players.verify(player_token("ann", SECRET)) == "ann"


def test_each_kind_names_its_type_and_is_refused_as_the_other() -> None:
    tokens = TokenIssuer(SECRET)
    seat, creator = tokens.issue("g", 1), tokens.issue_creator("g", player="ann")
    assert jwt.get_unverified_header(seat)["typ"] == SEAT_TYP
    assert jwt.get_unverified_header(creator)["typ"] == CREATOR_TYP
    with pytest.raises(ApiError) as err:
        tokens.verify(creator)
    assert (err.value.code, err.value.reason) == (grpc.StatusCode.UNAUTHENTICATED, "TOKEN_INVALID")
    with pytest.raises(ApiError) as err:
        tokens.verify_creator(seat)
    assert err.value.reason == "NOT_CREATOR"
    # A token signed with the secret whose type is another kind's is refused
    # whatever its claims say.
    now = int(time.time())
    seat_claims = {"iss": "ramino", "game": "g", "seat": 0, "iat": now, "exp": now + 60}
    typed_creator = jwt.encode(seat_claims, SECRET, headers={"typ": CREATOR_TYP})
    with pytest.raises(ApiError) as err:
        tokens.verify(typed_creator)
    assert err.value.reason == "TOKEN_INVALID"
    creator_claims = {"iss": "ramino", "creator": "g", "iat": now, "exp": now + 60}
    typed_seat = jwt.encode(creator_claims, SECRET, headers={"typ": SEAT_TYP})
    with pytest.raises(ApiError) as err:
        tokens.verify_creator(typed_seat)
    assert err.value.reason == "NOT_CREATOR"
    # Tokens made before the types (no typ) are told apart by their claims.
    assert tokens.verify(jwt.encode(seat_claims, SECRET)).seat == 0
    assert tokens.verify_creator(jwt.encode(creator_claims, SECRET)).game_id == "g"


def test_a_player_secret_equal_to_the_seat_secret_is_refused_at_start() -> None:
    with pytest.raises(ValueError, match="must differ from the seat token secret"):
        GameServicer(
            GameApp(MemoryStore()), TokenIssuer(SECRET), PlayerVerifier.from_secret(SECRET)
        )
    # Distinct secrets, or a public key, start.
    GameServicer(
        GameApp(MemoryStore()), TokenIssuer(SECRET), PlayerVerifier.from_secret(PLAYER_SECRET)
    )


def test_ramino_serve_refuses_one_secret_for_both_kinds(tmp_path: Path) -> None:
    shared = "one-secret-for-seats-and-players-000000"
    env = {
        "PATH": "/usr/bin:/bin",
        "RAMINO_TOKEN_SECRET": shared,
        "RAMINO_PLAYER_TOKEN_SECRET": shared,
    }
    done = subprocess.run(
        [sys.executable, "-m", "ramino", "serve", "--port", "0", "--store", "memory"],
        env=env,
        capture_output=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode != 0
    assert b"the player token secret must differ from the seat token secret" in done.stderr


@pytest.fixture
async def players() -> AsyncIterator[Harness]:
    app = GameApp(MemoryStore(), seed_source=lambda: SEED)
    tokens = TokenIssuer(SECRET)
    servicer = GameServicer(app, tokens, PlayerVerifier.from_secret(PLAYER_SECRET))
    running = await create_server("127.0.0.1:0", servicer)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        yield Harness(running, app, tokens, game_pb2_grpc.GameServiceStub(channel))
    await running.stop(0)
    await app.close()


async def refused(call: object, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call  # type: ignore[misc]
    assert (err.value.code(), reason_of(err.value)) == (code, reason)


async def test_a_creator_token_cancels_only_beside_its_players_token(players: Harness) -> None:
    h = players
    created = await h.stub.CreateGame(
        game_pb2.CreateGameRequest(variant="rummy", seats=[game_pb2.SeatConfig()] * 2),
        metadata=as_player("alice"),
    )
    name, token = created.game.name, created.creator_token
    cancel = game_pb2.CancelGameRequest(name=name)
    denied = grpc.StatusCode.PERMISSION_DENIED
    await refused(
        h.stub.CancelGame(cancel, metadata=as_player("bob", token)), denied, "WRONG_PLAYER"
    )
    await refused(
        h.stub.CancelGame(cancel, metadata=auth(token)),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_MISSING",
    )
    # A creator token bound to no player (made before the binding) cannot
    # cancel on a server that knows players.
    unbound = h.tokens.issue_creator(name.partition("/")[2])
    await refused(
        h.stub.CancelGame(cancel, metadata=as_player("alice", unbound)), denied, "CREATOR_NOT_BOUND"
    )
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    assert view.status == game_pb2.GAME_STATUS_WAITING
    done = await h.stub.CancelGame(cancel, metadata=as_player("alice", token))
    assert done.view.end_reason == "cancelled"


async def test_a_seat_token_cannot_stand_in_for_a_player_token(players: Harness) -> None:
    h = players
    created = await h.stub.CreateGame(
        game_pb2.CreateGameRequest(variant="rummy", seats=[game_pb2.SeatConfig()] * 2),
        metadata=as_player("alice"),
    )
    joined = await h.stub.JoinGame(
        game_pb2.JoinGameRequest(name=created.game.name, player_name="a"),
        metadata=as_player("alice"),
    )
    for token in (joined.seat_token, created.creator_token):
        await refused(
            h.stub.JoinGame(
                game_pb2.JoinGameRequest(name=created.game.name, player_name="x"),
                metadata=(("ramino-player-token", token),),
            ),
            grpc.StatusCode.UNAUTHENTICATED,
            "PLAYER_TOKEN_INVALID",
        )
