"""A hostile client against a real server on a loopback socket, with the raw
generated stubs (not the SDK): request ids that are another caller's, too
long, or reused for another request; seat claims out of range; and, on a
server that knows players, seats taken by someone else's token. One test per
defence, named after it."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest
import redis
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from ramino.api.auth import PlayerVerifier, TokenIssuer
from ramino.api.errors import ApiError
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.store import Store, open_store
from ramino.store.memory import MemoryStore
from ramino.store.redis import RedisStore
from ramino.v1 import game_pb2, game_pb2_grpc

from tests.support.redis_server import RedisServer
from tests.support.servers import ServerProcess

from .conftest import CALLER, SECRET, SEED, Harness, auth, reason_of, seated_game

PLAYER_SECRET = b"the-hosts-own-player-token-secret-32b+"


def caller(key: str) -> tuple[tuple[str, str], ...]:
    return (("ramino-caller-key", key),)


async def refused(call: Any, code: grpc.StatusCode, reason: str) -> grpc.aio.AioRpcError:
    """The error ``call`` ends with: ``code`` and ErrorInfo ``reason``."""
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == code, err.value.details()
    assert reason_of(err.value) == reason, err.value.details()
    return err.value


async def turn_of(h: Harness, name: str) -> int:
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    return int(view.turn)


def card_ids(result: game_pb2.MoveResult) -> set[int]:
    """Every card id a move's answer shows: hand, table, discards, events."""
    view = result.view
    ids = {c.id for c in view.hand} | {c.id for c in view.discard_pile}
    ids |= {c.id for m in view.table for c in m.meld.cards}
    for e in result.events:
        event = getattr(e, e.WhichOneof("event"))
        for key in ("card_id", "kept_card_id", "discard_card_id", "joker_id"):
            if key in event.DESCRIPTOR.fields_by_name and event.HasField(key):
                ids.add(getattr(event, key))
    return ids


# --- request ids are scoped to the caller, the method and the request ----------


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    """A server over each store."""
    store: Store
    if request.param == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        store = RedisStore(server.url, prefix=f"hostile-{uuid.uuid4().hex}:")
    else:
        store = open_store("memory" if request.param == "memory" else f"sqlite:{tmp_path / 'g.db'}")
    app = GameApp(store, seed_source=lambda: SEED)
    tokens = TokenIssuer(SECRET)
    running = await create_server("127.0.0.1:0", GameServicer(app, tokens))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        yield Harness(running, app, tokens, game_pb2_grpc.GameServiceStub(channel))
    await running.stop(0)
    await app.close()


async def test_a_seat_replaying_another_seats_request_id_gets_request_id_reused(
    any_store: Harness,
) -> None:
    h = any_store
    name, tokens = await seated_game(h, "rummy", 2)
    mover = await turn_of(h, name)
    other = 1 - mover
    draw = game_pb2.DrawFromStockRequest(name=name, request_id="the-movers-draw")
    first = (await h.stub.DrawFromStock(draw, metadata=auth(tokens[mover]))).result
    movers_hand = {c.id for c in first.view.hand}
    # The very same request, with the other seat's token: refused for its
    # move, it must not be answered with the mover's stored answer.
    await refused(
        h.stub.DrawFromStock(draw, metadata=auth(tokens[other])),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
    )
    await refused(
        h.stub.Discard(
            game_pb2.DiscardRequest(
                name=name, card_id=min(movers_hand), request_id="the-movers-draw"
            ),
            metadata=auth(tokens[other]),
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
    )
    # The other seat's own answers never show a card of the mover's hand.
    own = await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=auth(tokens[other]))
    assert not {c.id for c in own.view.hand} & movers_hand
    # The mover's own retry still gets its first answer.
    again = (await h.stub.DrawFromStock(draw, metadata=auth(tokens[mover]))).result
    assert again == first and card_ids(again) >= movers_hand


async def test_a_stranger_replaying_a_join_request_id_gets_no_seat_token(
    any_store: Harness,
) -> None:
    h = any_store
    created = await h.stub.CreateGame(
        game_pb2.CreateGameRequest(variant="rummy", seats=[game_pb2.SeatConfig()] * 3)
    )
    join = game_pb2.JoinGameRequest(name=created.game.name, player_name="ann", request_id="j-1")
    ann = caller("anns-own-random-caller-key")
    joined = await h.stub.JoinGame(join, metadata=ann)
    for stranger in (caller("a-strangers-own-caller-key"), None):
        err = await refused(
            h.stub.JoinGame(join, metadata=stranger),
            grpc.StatusCode.INVALID_ARGUMENT,
            "REQUEST_ID_REUSED" if stranger else "CALLER_KEY_REQUIRED",
        )
        assert joined.seat_token not in (err.details() or "")
    # Ann's own retry gets her seat back, and took no other seat.
    again = await h.stub.JoinGame(join, metadata=ann)
    assert again.seat == joined.seat
    assert h.tokens.verify(again.seat_token).seat == joined.seat
    assert again.view.seats[1].taken is False and again.view.seats[2].taken is False


async def test_request_ids_on_create_and_join_need_the_callers_key(harness: Harness) -> None:
    h = harness
    create = game_pb2.CreateGameRequest(
        variant="rummy", seats=[game_pb2.SeatConfig()] * 2, request_id="c-1"
    )
    await refused(
        h.stub.CreateGame(create), grpc.StatusCode.INVALID_ARGUMENT, "CALLER_KEY_REQUIRED"
    )
    await refused(
        h.stub.CreateGame(create, metadata=caller("short")),
        grpc.StatusCode.INVALID_ARGUMENT,
        "BAD_CALLER_KEY",
    )
    # Without a request id, no key is needed (nothing is stored to replay).
    create.request_id = ""
    assert (await h.stub.CreateGame(create)).game.name


async def test_a_stranger_reusing_a_create_request_id_names_another_game(
    harness: Harness,
) -> None:
    h = harness
    create = game_pb2.CreateGameRequest(
        variant="rummy", seats=[game_pb2.SeatConfig()] * 2, request_id="c-1"
    )
    mine = await h.stub.CreateGame(create, metadata=caller("my-own-random-caller-key"))
    theirs = await h.stub.CreateGame(create, metadata=caller("their-own-random-caller-key"))
    again = await h.stub.CreateGame(create, metadata=caller("my-own-random-caller-key"))
    assert theirs.game.name != mine.game.name and again.game.name == mine.game.name
    # The same id for another game of the same caller.
    create.variant = "rami51"
    await refused(
        h.stub.CreateGame(create, metadata=caller("my-own-random-caller-key")),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
    )


async def test_a_join_with_a_moves_request_id_is_request_id_reused(any_store: Harness) -> None:
    h = any_store
    name, tokens = await seated_game(h, "rummy", 2)
    mover = await turn_of(h, name)
    await h.stub.DrawFromStock(
        game_pb2.DrawFromStockRequest(name=name, request_id="m-1"), metadata=auth(tokens[mover])
    )
    await refused(
        h.stub.JoinGame(
            game_pb2.JoinGameRequest(name=name, player_name="eve", request_id="m-1"),
            metadata=CALLER,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
    )


async def test_the_same_request_id_for_another_request_is_request_id_reused(
    harness: Harness,
) -> None:
    h = harness
    name, tokens = await seated_game(h, "rummy", 2)
    mover = await turn_of(h, name)
    md = auth(tokens[mover])
    version = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version
    draw = game_pb2.DrawFromStockRequest(name=name, request_id="x", expected_version=version)
    first = (await h.stub.DrawFromStock(draw, metadata=md)).result
    hand = [c.id for c in first.view.hand]
    # Another method, and the same method with another request.
    await refused(
        h.stub.Discard(
            game_pb2.DiscardRequest(name=name, card_id=hand[0], request_id="x"), metadata=md
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
    )
    await refused(
        h.stub.DrawFromStock(
            game_pb2.DrawFromStockRequest(name=name, request_id="x", expected_version=version + 1),
            metadata=md,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
    )
    # Nothing of those was applied: the seat still holds the drawn card.
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=md)).view
    assert view.version == first.view.version and [c.id for c in view.hand] == hand
    assert (await h.stub.DrawFromStock(draw, metadata=md)).result == first


@pytest.fixture
async def small_bound() -> AsyncIterator[Harness]:
    """A server whose store keeps 4 request records per game."""
    app = GameApp(MemoryStore(requests_kept=4), seed_source=lambda: SEED)
    tokens = TokenIssuer(SECRET)
    running = await create_server("127.0.0.1:0", GameServicer(app, tokens))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        yield Harness(running, app, tokens, game_pb2_grpc.GameServiceStub(channel))
    await running.stop(0)
    await app.close()


async def test_stored_answers_are_bounded_per_game(small_bound: Harness) -> None:
    h = small_bound
    name, tokens = await seated_game(h, "rummy", 2)
    game_id = name.partition("/")[2]
    store = h.app.store
    kept = []
    for n in range(7):  # 14 moves, each with its request id
        md = auth(tokens[await turn_of(h, name)])
        drew = await h.stub.DrawFromStock(
            game_pb2.DrawFromStockRequest(name=name, request_id=f"draw-{n}"), metadata=md
        )
        discard = next(
            m.discard.card_id for m in drew.result.legal_moves if m.WhichOneof("move") == "discard"
        )
        await h.stub.Discard(
            game_pb2.DiscardRequest(name=name, card_id=discard, request_id=f"discard-{n}"),
            metadata=md,
        )
        kept.append(await store.requests_kept(game_id))
    assert kept == [2, 4, 4, 4, 4, 4, 4]
    assert await store.request(game_id, "draw-0") is None
    assert await store.request(game_id, "discard-6") is not None


# --- request ids and names are bounded ---------------------------------------------


async def test_request_ids_longer_than_128_are_refused_on_every_rpc_that_takes_one(
    harness: Harness,
) -> None:
    h = harness
    name, tokens = await seated_game(h, "rummy", 2)
    long_id = "r" * 129
    md = auth(tokens[await turn_of(h, name)])
    calls = [
        h.stub.CreateGame(
            game_pb2.CreateGameRequest(seats=[game_pb2.SeatConfig()] * 2, request_id=long_id),
            metadata=CALLER,
        ),
        h.stub.JoinGame(
            game_pb2.JoinGameRequest(name=name, player_name="eve", request_id=long_id),
            metadata=CALLER,
        ),
        h.stub.DrawFromStock(
            game_pb2.DrawFromStockRequest(name=name, request_id=long_id), metadata=md
        ),
        h.stub.Resign(game_pb2.ResignRequest(name=name, request_id=long_id), metadata=md),
    ]
    version = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version
    for call in calls:
        err = await refused(call, grpc.StatusCode.INVALID_ARGUMENT, "BAD_REQUEST_ID")
        assert long_id not in (err.details() or "")
    assert (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version == version
    assert len((await h.stub.ListGames(game_pb2.ListGamesRequest())).games) == 1
    ok = await h.stub.DrawFromStock(
        game_pb2.DrawFromStockRequest(name=name, request_id="r" * 128), metadata=md
    )
    assert ok.result.view.version == version + 1


async def test_player_names_at_creation_are_bounded_like_join(harness: Harness) -> None:
    h = harness
    for bad in ("n" * 65, "x" * 1024):
        err = await refused(
            h.stub.CreateGame(
                game_pb2.CreateGameRequest(
                    variant="rummy",
                    seats=[game_pb2.SeatConfig(player_name=bad), game_pb2.SeatConfig()],
                )
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_PLAYER_NAME",
        )
        assert bad not in (err.details() or "")
    # 64 characters, an open seat without a name and a bot are fine.
    made = await h.stub.CreateGame(
        game_pb2.CreateGameRequest(
            variant="rummy",
            seats=[
                game_pb2.SeatConfig(player_name="n" * 64),
                game_pb2.SeatConfig(),
                game_pb2.SeatConfig(bot=game_pb2.BOT_LEVEL_GREEDY),
            ],
        )
    )
    assert len(made.game.seats) == 3 and made.game.seats[2].bot == game_pb2.BOT_LEVEL_GREEDY
    assert (await h.stub.ListGames(game_pb2.ListGamesRequest())).games == [made.game]


# --- seat claims are range-checked ---------------------------------------------------


def forged_seat(game_id: str, seat: object) -> str:
    """A seat token signed with the server's secret (a leaked secret, or a
    bug of ours) claiming ``seat``."""
    now = int(time.time())
    claims = {"iss": "ramino", "game": game_id, "seat": seat, "iat": now, "exp": now + 60}
    return jwt.encode(claims, SECRET, algorithm="HS256")


@pytest.mark.parametrize("seat", [-1, 99, True, 2])
async def test_seat_claims_out_of_range_are_refused(harness: Harness, seat: object) -> None:
    h = harness
    name, tokens = await seated_game(h, "rummy", 2)
    game_id = name.partition("/")[2]
    md = auth(forged_seat(game_id, seat))
    expected = (
        (grpc.StatusCode.UNAUTHENTICATED, "BAD_SEAT_CLAIM")
        if seat is True or seat == -1
        else (grpc.StatusCode.PERMISSION_DENIED, "NO_SUCH_SEAT")
    )
    version = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version
    calls = [
        h.stub.DrawFromStock(game_pb2.DrawFromStockRequest(name=name), metadata=md),
        h.stub.Resign(game_pb2.ResignRequest(name=name), metadata=md),
        h.stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=md),
        h.stub.GetLegalMoves(game_pb2.GetLegalMovesRequest(name=name), metadata=md),
    ]
    for call in calls:
        await refused(call, *expected)
    watch = h.stub.WatchGame(game_pb2.WatchGameRequest(name=name), metadata=md)
    await refused(watch.read(), *expected)
    assert (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view.version == version


# --- player identity from the host -----------------------------------------------------


def player_token(player: str, key: Any = PLAYER_SECRET, algorithm: str = "HS256") -> str:
    now = int(time.time())
    return jwt.encode({"sub": player, "iat": now, "exp": now + 600}, key, algorithm=algorithm)


def hs256_by_hand(player: str, secret: bytes) -> str:
    """An HS256 JWT signed with any bytes (PyJWT refuses a PEM key as a secret)."""

    def part(data: bytes) -> bytes:
        return base64.urlsafe_b64encode(data).rstrip(b"=")

    now = int(time.time())
    head = part(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = part(json.dumps({"sub": player, "iat": now, "exp": now + 600}).encode())
    signature = part(hmac.new(secret, head + b"." + body, hashlib.sha256).digest())
    return (head + b"." + body + b"." + signature).decode()


def as_player(token: str, seat_token: str | None = None) -> tuple[tuple[str, str], ...]:
    md = (("ramino-player-token", token),)
    return md + auth(seat_token) if seat_token else md


async def _known_players(verifier: PlayerVerifier) -> AsyncIterator[Harness]:
    app = GameApp(MemoryStore(), seed_source=lambda: SEED)
    tokens = TokenIssuer(SECRET)
    running = await create_server("127.0.0.1:0", GameServicer(app, tokens, verifier))
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        yield Harness(running, app, tokens, game_pb2_grpc.GameServiceStub(channel))
    await running.stop(0)
    await app.close()


@pytest.fixture
async def players() -> AsyncIterator[Harness]:
    """A server that knows players: HS256 player tokens of the host's auth."""
    async for h in _known_players(PlayerVerifier.from_secret(PLAYER_SECRET)):
        yield h


async def two_seats(h: Harness) -> str:
    created = await h.stub.CreateGame(
        game_pb2.CreateGameRequest(variant="rummy", seats=[game_pb2.SeatConfig()] * 2),
        metadata=as_player(player_token("ann")),
    )
    return created.game.name


async def test_with_players_known_create_and_join_need_a_player_token(players: Harness) -> None:
    h = players
    create = game_pb2.CreateGameRequest(variant="rummy", seats=[game_pb2.SeatConfig()] * 2)
    await refused(
        h.stub.CreateGame(create), grpc.StatusCode.UNAUTHENTICATED, "PLAYER_TOKEN_MISSING"
    )
    forged = player_token("ann", b"not-the-hosts-secret-but-32-bytes-long")
    await refused(
        h.stub.CreateGame(create, metadata=as_player(forged)),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_INVALID",
    )
    name = await two_seats(h)
    join = game_pb2.JoinGameRequest(name=name, player_name="ann")
    await refused(h.stub.JoinGame(join), grpc.StatusCode.UNAUTHENTICATED, "PLAYER_TOKEN_MISSING")
    await refused(
        h.stub.JoinGame(join, metadata=CALLER),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_MISSING",
    )
    assert (await h.stub.JoinGame(join, metadata=as_player(player_token("ann")))).seat == 0


async def test_a_player_holds_at_most_one_seat_per_game(players: Harness) -> None:
    h = players
    name = await two_seats(h)
    ann = as_player(player_token("ann"))
    await h.stub.JoinGame(game_pb2.JoinGameRequest(name=name, player_name="ann"), metadata=ann)
    await refused(
        h.stub.JoinGame(
            game_pb2.JoinGameRequest(name=name, player_name="ann again", seat=1), metadata=ann
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "ALREADY_SEATED",
    )
    bob = await h.stub.JoinGame(
        game_pb2.JoinGameRequest(name=name, player_name="bob"),
        metadata=as_player(player_token("bob")),
    )
    assert bob.seat == 1 and bob.view.status == game_pb2.GAME_STATUS_PLAYING


async def test_a_seat_token_acts_only_beside_its_players_token(players: Harness) -> None:
    h = players
    name = await two_seats(h)
    ann_token, bob_token = player_token("ann"), player_token("bob")
    ann = await h.stub.JoinGame(
        game_pb2.JoinGameRequest(name=name, player_name="ann"), metadata=as_player(ann_token)
    )
    await h.stub.JoinGame(
        game_pb2.JoinGameRequest(name=name, player_name="bob"), metadata=as_player(bob_token)
    )
    assert h.tokens.verify(ann.seat_token).player == "ann"
    get = game_pb2.GetGameRequest(name=name)
    await refused(
        h.stub.GetGame(get, metadata=auth(ann.seat_token)),
        grpc.StatusCode.UNAUTHENTICATED,
        "PLAYER_TOKEN_MISSING",
    )
    await refused(
        h.stub.GetGame(get, metadata=as_player(bob_token, ann.seat_token)),
        grpc.StatusCode.PERMISSION_DENIED,
        "WRONG_PLAYER",
    )
    watch = h.stub.WatchGame(
        game_pb2.WatchGameRequest(name=name), metadata=as_player(bob_token, ann.seat_token)
    )
    await refused(watch.read(), grpc.StatusCode.PERMISSION_DENIED, "WRONG_PLAYER")
    mine = await h.stub.GetGame(get, metadata=as_player(ann_token, ann.seat_token))
    assert len(mine.view.hand) == 10 and mine.view.seat == 0
    if mine.view.turn == 0:
        await refused(
            h.stub.DrawFromStock(
                game_pb2.DrawFromStockRequest(name=name),
                metadata=as_player(bob_token, ann.seat_token),
            ),
            grpc.StatusCode.PERMISSION_DENIED,
            "WRONG_PLAYER",
        )
    # A seat token bound to no player (as issued before players were known).
    unbound = h.tokens.issue(name.partition("/")[2], 0)
    await refused(
        h.stub.GetGame(get, metadata=as_player(ann_token, unbound)),
        grpc.StatusCode.PERMISSION_DENIED,
        "SEAT_NOT_BOUND",
    )


async def test_a_players_request_ids_are_scoped_to_the_player(players: Harness) -> None:
    h = players
    name = await two_seats(h)
    join = game_pb2.JoinGameRequest(name=name, player_name="ann", request_id="j-ann")
    ann = as_player(player_token("ann"))
    first = await h.stub.JoinGame(join, metadata=ann)
    await refused(
        h.stub.JoinGame(join, metadata=as_player(player_token("mallory"))),
        grpc.StatusCode.INVALID_ARGUMENT,
        "REQUEST_ID_REUSED",
    )
    assert (await h.stub.JoinGame(join, metadata=ann)).seat == first.seat


async def test_player_tokens_signed_with_a_public_key_are_verified() -> None:
    private = ec.generate_private_key(ec.SECP256R1())
    pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    async for h in _known_players(PlayerVerifier.from_public_key(pem)):
        create = game_pb2.CreateGameRequest(variant="rummy", seats=[game_pb2.SeatConfig()] * 2)
        made = await h.stub.CreateGame(
            create, metadata=as_player(player_token("ann", private, "ES256"))
        )
        assert made.game.name
        stranger = ec.generate_private_key(ec.SECP256R1())
        await refused(
            h.stub.CreateGame(create, metadata=as_player(player_token("ann", stranger, "ES256"))),
            grpc.StatusCode.UNAUTHENTICATED,
            "PLAYER_TOKEN_INVALID",
        )
        # An HS256 token made with the public key as its secret (the old
        # algorithm-confusion trick) is refused too.
        await refused(
            h.stub.CreateGame(create, metadata=as_player(hs256_by_hand("ann", pem))),
            grpc.StatusCode.UNAUTHENTICATED,
            "PLAYER_TOKEN_INVALID",
        )


# --- joins racing on replicas sharing Redis ----------------------------------------------


@dataclass
class Replicas:
    servers: list[ServerProcess]
    stubs: list[game_pb2_grpc.GameServiceStub]


@pytest.fixture
async def two_replicas(redis_server: RedisServer, tmp_path: Path) -> AsyncIterator[Replicas]:
    db = 15
    with redis.Redis(port=redis_server.port, db=db) as client:
        client.flushdb()
    url = f"redis://127.0.0.1:{redis_server.port}/{db}"
    servers = [ServerProcess(url, tmp_path / f"replica{i}.log") for i in range(2)]
    channels = []
    try:
        for s in servers:
            s.start()
            channels.append(grpc.aio.insecure_channel(s.address))
        yield Replicas(servers, [game_pb2_grpc.GameServiceStub(c) for c in channels])
    finally:
        for c in channels:
            await c.close()
        for s in servers:
            s.stop()


async def test_joins_racing_on_two_servers_sharing_redis_never_answer_aborted(
    two_replicas: Replicas,
) -> None:
    stubs = two_replicas.stubs
    seats = 6
    games = []
    for _ in range(8):
        created = await stubs[0].CreateGame(
            game_pb2.CreateGameRequest(variant="rummy", seats=[game_pb2.SeatConfig()] * seats)
        )
        games.append(created.game.name)

    async def join(name: str, i: int) -> int:
        response = await stubs[i % 2].JoinGame(
            game_pb2.JoinGameRequest(name=name, player_name=f"p{i}", request_id=uuid.uuid4().hex),
            metadata=caller(f"joiner-{i}-own-caller-key"),
        )
        return int(response.seat)

    outcomes = await asyncio.gather(
        *(join(name, i) for name in games for i in range(seats)), return_exceptions=True
    )
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    assert not errors, [(e.code(), e.details()) for e in errors if isinstance(e, grpc.RpcError)]
    for g, name in enumerate(games):
        assert sorted(outcomes[g * seats : (g + 1) * seats]) == list(range(seats)), name


def test_serve_flags_and_environment_configure_the_player_verifier(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ramino.cli import build_parser
    from ramino.serve import player_verifier

    secret = tmp_path / "player-secret"
    secret.write_bytes(PLAYER_SECRET + b"\n")
    args = build_parser().parse_args(["serve", "--player-token-secret-file", str(secret)])
    verifier = player_verifier(args)
    assert verifier is not None and verifier.verify(player_token("ann")) == "ann"
    # Without a flag or a variable, the server does not know players.
    monkeypatch.delenv("RAMINO_PLAYER_TOKEN_SECRET", raising=False)
    assert player_verifier(build_parser().parse_args(["serve"])) is None
    monkeypatch.setenv("RAMINO_PLAYER_TOKEN_SECRET", PLAYER_SECRET.decode())
    monkeypatch.setenv("RAMINO_PLAYER_TOKEN_AUDIENCE", "games")
    args = build_parser().parse_args(["serve"])
    verifier = player_verifier(args)
    assert verifier is not None
    now = int(time.time())
    for_games = jwt.encode({"sub": "bob", "aud": "games", "exp": now + 60}, PLAYER_SECRET)
    assert verifier.verify(for_games) == "bob"
    with pytest.raises(ApiError) as err:
        verifier.verify(player_token("bob"))  # no audience
    assert err.value.reason == "PLAYER_TOKEN_INVALID"
    pem = tmp_path / "key.pem"
    pem.write_bytes(
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    both = build_parser().parse_args(["serve", "--player-token-public-key", str(pem)])
    with pytest.raises(SystemExit):
        player_verifier(both)
