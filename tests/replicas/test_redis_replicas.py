"""Several `ramino serve` processes sharing one real Redis: games survive a
replica's kill -9 and a Redis restart, and racing moves apply exactly once."""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
import redis
from ramino.app.hosted import HostedGame
from ramino.store.redis import RedisStore
from ramino.v1 import game_pb2, game_pb2_grpc, types_pb2

from tests.support.redis_server import RedisServer
from tests.support.servers import ServerProcess

DATABASES = itertools.count(1)
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
CALLER = (("ramino-caller-key", "the-replica-tests-own-caller-key"),)


@dataclass
class Cluster:
    redis_url: str
    servers: list[ServerProcess]
    channels: list[grpc.aio.Channel] = field(default_factory=list)
    stubs: list[game_pb2_grpc.GameServiceStub] = field(default_factory=list)
    turn: Iterator[int] = field(default_factory=itertools.count)

    def stub(self) -> game_pb2_grpc.GameServiceStub:
        """The next replica's stub, round robin over the live ones."""
        live = [i for i, s in enumerate(self.servers) if s.process and s.process.poll() is None]
        return self.stubs[live[next(self.turn) % len(live)]]

    async def call(self, method: str, request: object, token: str | None = None) -> object:
        """A call to some replica, retried on another one when a replica is
        gone (the request id makes the retry safe: this client's own caller
        key scopes the ids of its CreateGame and JoinGame)."""
        md = (("authorization", f"Bearer {token}"),) if token else CALLER
        for attempt in range(60):
            try:
                return await getattr(self.stub(), method)(request, metadata=md, timeout=30)
            except grpc.aio.AioRpcError as e:
                if e.code() not in RETRYABLE or attempt == 59:
                    raise
                await asyncio.sleep(0.1)
        raise AssertionError("unreachable")


async def open_cluster(
    redis: RedisServer, db: int, tmp: Path, replicas: int, bot_delay: float
) -> Cluster:
    url = f"redis://127.0.0.1:{redis.port}/{db}"
    servers = [
        ServerProcess(url, tmp / f"replica{i}.log", bot_delay, allow_bot_games=True)
        for i in range(replicas)
    ]
    for s in servers:
        s.start()
    cluster = Cluster(url, servers)
    for s in servers:
        ch = grpc.aio.insecure_channel(s.address)
        cluster.channels.append(ch)
        cluster.stubs.append(game_pb2_grpc.GameServiceStub(ch))
    return cluster


async def close_cluster(cluster: Cluster) -> None:
    for ch in cluster.channels:
        await ch.close()
    for s in cluster.servers:
        s.stop()


@pytest.fixture
async def cluster(redis_server: RedisServer, tmp_path: Path) -> AsyncIterator[Cluster]:
    """Three replicas on a fresh Redis database; bots wait a little before
    each move (``slow_bots``: longer) so that games are still running when a
    test breaks something."""
    db = next(DATABASES)
    with redis.Redis(port=redis_server.port, db=db) as client:
        client.flushdb()
    c = await open_cluster(redis_server, db, tmp_path, 3, bot_delay=0.002)
    yield c
    await close_cluster(c)


@pytest.fixture
async def slow_bots(redis_server: RedisServer, tmp_path: Path) -> AsyncIterator[Cluster]:
    db = next(DATABASES)
    with redis.Redis(port=redis_server.port, db=db) as client:
        client.flushdb()
    c = await open_cluster(redis_server, db, tmp_path, 3, bot_delay=0.1)
    yield c
    await close_cluster(c)


def one_round(variant: str, rounds: int = 1) -> types_pb2.VariantParameters:
    return types_pb2.VariantParameters(max_rounds=rounds, target_score=0)


async def create(
    cluster: Cluster, variant: str, people: int, bots: int, rounds: int = 1
) -> tuple[str, list[str]]:
    seats = [game_pb2.SeatConfig(player_name=f"p{i}") for i in range(people)]
    seats += [game_pb2.SeatConfig(bot=game_pb2.BOT_LEVEL_GREEDY) for _ in range(bots)]
    created = await cluster.call(
        "CreateGame",
        game_pb2.CreateGameRequest(
            variant=variant,
            seats=seats,
            overrides=one_round(variant, rounds),
            request_id=uuid.uuid4().hex,
        ),
    )
    name = created.game.name  # type: ignore[attr-defined]
    tokens = []
    for i in range(people):
        joined = await cluster.call(
            "JoinGame",
            game_pb2.JoinGameRequest(
                name=name, seat=i, player_name=f"p{i}", request_id=uuid.uuid4().hex
            ),
        )
        tokens.append(joined.seat_token)  # type: ignore[attr-defined]
    return name, tokens


@dataclass
class Acks:
    """Every event a client was told happened: version -> event type."""

    events: dict[int, str] = field(default_factory=dict)

    def note(self, result: game_pb2.MoveResult) -> None:
        for e in result.events:
            # The typed message's name is the event's type ("Discarded").
            kind = getattr(e, str(e.WhichOneof("event"))).DESCRIPTOR.name
            assert self.events.setdefault(e.version, kind) == kind


async def move(cluster: Cluster, name: str, token: str, acks: Acks) -> bool:
    """One move for the seat whose turn it is, chosen from its legal moves;
    False when it is not this seat's turn."""
    legal = await cluster.call("GetLegalMoves", game_pb2.GetLegalMovesRequest(name=name), token)
    moves = list(legal.moves)  # type: ignore[attr-defined]
    if not moves:
        return False
    kinds = {m.WhichOneof("move"): m for m in moves}
    rid = uuid.uuid4().hex
    if "lay_melds" in kinds:
        method, req = (
            "LayMelds",
            game_pb2.LayMeldsRequest(name=name, melds=kinds["lay_melds"].lay_melds.melds),
        )
    elif "lay_off" in kinds:
        lo = kinds["lay_off"].lay_off
        method, req = (
            "LayOff",
            game_pb2.LayOffRequest(
                name=name, card_id=lo.card_id, meld_index=lo.meld_index, end=lo.end
            ),
        )
    elif "draw_from_stock" in kinds:
        method, req = "DrawFromStock", game_pb2.DrawFromStockRequest(name=name)
    elif "turn_over_discard_pile" in kinds:
        method, req = "TurnOverDiscardPile", game_pb2.TurnOverDiscardPileRequest(name=name)
    elif "take_discard" in kinds:
        method, req = "TakeDiscard", game_pb2.TakeDiscardRequest(name=name)
    elif "discard" in kinds:
        hint = legal.hint.suggested_discard.id  # type: ignore[attr-defined]
        ids = [m.discard.card_id for m in moves if m.WhichOneof("move") == "discard"]
        method, req = (
            "Discard",
            game_pb2.DiscardRequest(name=name, card_id=hint if hint in ids else ids[0]),
        )
    else:
        sw = kinds["swap_joker"].swap_joker
        method, req = (
            "SwapJoker",
            game_pb2.SwapJokerRequest(
                name=name, card_id=sw.card_id, meld_index=sw.meld_index, joker_id=sw.joker_id
            ),
        )
    req.request_id = rid
    req.expected_version = legal.version  # type: ignore[attr-defined]
    try:
        response = await cluster.call(method, req, token)
    except grpc.aio.AioRpcError as e:
        if e.code() == grpc.StatusCode.ABORTED:
            return True  # a bot or timer moved first: look again
        raise
    acks.note(response.result)  # type: ignore[attr-defined]
    return True


async def play_people(
    cluster: Cluster, name: str, tokens: list[str], acks: Acks, deadline: float
) -> None:
    loop = asyncio.get_running_loop()
    while loop.time() < deadline:
        view = (await cluster.call("GetGame", game_pb2.GetGameRequest(name=name))).view  # type: ignore[attr-defined]
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return
        if view.HasField("turn") and view.turn < len(tokens):
            await move(cluster, name, tokens[view.turn], acks)
        else:
            await asyncio.sleep(0.01)
    raise AssertionError(f"{name} did not finish in time")


async def wait_finished(cluster: Cluster, name: str, deadline: float) -> None:
    loop = asyncio.get_running_loop()
    while loop.time() < deadline:
        view = (await cluster.call("GetGame", game_pb2.GetGameRequest(name=name))).view  # type: ignore[attr-defined]
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{name} did not finish in time")


async def check_records(url: str, names: list[str], acks: dict[str, Acks]) -> None:
    """Every game finished, every card in one place after every event, and
    every acknowledged event is in the log as it was acknowledged."""
    store = RedisStore(url)
    try:
        for name in names:
            entries = await store.read(name.split("/")[1])
            game = HostedGame.fold(entries)
            assert game.engine is not None and game.engine.finished, name
            assert game.engine.conservation_errors() == [], name
            kinds = {}
            for e in entries:
                data = json.loads(e.data)
                if data["kind"] == "engine":
                    kinds[e.version] = data["event"]["type"]
            for version, kind in acks.get(name, Acks()).events.items():
                assert kinds.get(version) == kind, (name, version, kind)
    finally:
        await store.close()


async def test_three_replicas_finish_fifty_games_with_every_card_conserved(
    cluster: Cluster,
) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 240
    variants = ["ramino51", "rami51", "rummy"]
    bot_games = [await create(cluster, variants[i % 3], 0, 2) for i in range(40)]
    people_games = [await create(cluster, variants[i % 3], 2, 0) for i in range(10)]
    acks = {name: Acks() for name, _ in people_games}
    await asyncio.gather(
        *(
            play_people(cluster, name, tokens, acks[name], deadline)
            for name, tokens in people_games
        ),
        *(wait_finished(cluster, name, deadline) for name, _ in bot_games),
    )
    await check_records(cluster.redis_url, [n for n, _ in bot_games + people_games], acks)


async def test_a_killed_replica_loses_nothing_and_its_bots_go_on_elsewhere(
    slow_bots: Cluster,
) -> None:
    cluster = slow_bots
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 240
    # Bot games created through replica 0 have their bots run there (it takes
    # their leases at once); the others only see them in the sweep.
    bot_games = []
    for _ in range(9):
        created = await cluster.stubs[0].CreateGame(
            game_pb2.CreateGameRequest(
                variant="ramino51",
                seats=[game_pb2.SeatConfig(bot=game_pb2.BOT_LEVEL_GREEDY)] * 2,
                overrides=one_round("ramino51"),
            )
        )
        bot_games.append((created.game.name, []))
    people_games = [await create(cluster, "rummy", 2, 0) for _ in range(3)]
    mixed = [await create(cluster, "rami51", 1, 1) for _ in range(3)]
    acks = {name: Acks() for name, _ in people_games + mixed}
    players = [
        asyncio.create_task(play_people(cluster, name, tokens, acks[name], deadline))
        for name, tokens in people_games + mixed
    ]
    await asyncio.sleep(0.5)
    running = [
        n
        for n, _ in bot_games
        if (await cluster.call("GetGame", game_pb2.GetGameRequest(name=n))).view.status  # type: ignore[attr-defined]
        != game_pb2.GAME_STATUS_FINISHED
    ]
    cluster.servers[0].kill()
    assert len(running) == len(bot_games)
    await asyncio.gather(*players, *(wait_finished(cluster, n, deadline) for n, _ in bot_games))
    names = [n for n, _ in bot_games + people_games + mixed]
    await check_records(cluster.redis_url, names, acks)


def racing_move(name: str, draw: bool, card: int, rid: str) -> tuple[str, object]:
    if draw:
        return "DrawFromStock", game_pb2.DrawFromStockRequest(name=name, request_id=rid)
    return "Discard", game_pb2.DiscardRequest(name=name, card_id=card, request_id=rid)


async def send(
    cluster: Cluster, i: int, method: str, request: object, md: tuple[tuple[str, str], ...]
) -> object:
    try:
        return await getattr(cluster.stubs[i % 3], method)(request, metadata=md)
    except grpc.aio.AioRpcError as e:
        return e


async def test_racing_duplicate_and_conflicting_moves_apply_exactly_once(cluster: Cluster) -> None:
    name, tokens = await create(cluster, "rummy", 2, 0)
    racing = 0
    while racing < 1000:
        view = (await cluster.call("GetGame", game_pb2.GetGameRequest(name=name))).view  # type: ignore[attr-defined]
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            name, tokens = await create(cluster, "rummy", 2, 0)
            continue
        token = tokens[view.turn]
        md = (("authorization", f"Bearer {token}"),)
        legal = await cluster.stubs[0].GetLegalMoves(
            game_pb2.GetLegalMovesRequest(name=name), metadata=md
        )
        draw = any(m.WhichOneof("move") == "draw_from_stock" for m in legal.moves)
        card = next(
            (m.discard.card_id for m in legal.moves if m.WhichOneof("move") == "discard"), -1
        )
        same, other = uuid.uuid4().hex, uuid.uuid4().hex
        calls = [racing_move(name, draw, card, rid) for rid in (same, same, same, other)]
        results = await asyncio.gather(
            *(send(cluster, i, m, r, md) for i, (m, r) in enumerate(calls))
        )
        racing += len(calls)
        ok = [r for r in results if not isinstance(r, grpc.aio.AioRpcError)]
        failed = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
        for e in failed:
            assert e.code() in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION), e
        after = (await cluster.call("GetGame", game_pb2.GetGameRequest(name=name))).view  # type: ignore[attr-defined]
        if draw:
            # Exactly one draw happened, whoever won the race.
            assert after.seats[view.turn].hand_size == view.seats[view.turn].hand_size + 1
        winners = {r.result.SerializeToString(deterministic=True) for r in ok}  # type: ignore[attr-defined]
        # The duplicates share one first answer; the conflicting request wins
        # only if all three duplicates lost.
        assert len(winners) == 1, [
            (type(r).__name__, getattr(r, "details", lambda: "")()) for r in results
        ]
        assert after.version == view.version + len(ok[0].result.events)  # type: ignore[attr-defined]


async def test_replicas_reconnect_after_a_redis_restart_and_keep_every_acknowledged_move(
    tmp_path: Path,
) -> None:
    redis = RedisServer(tmp_path / "redis", appendfsync="always")
    redis.start()
    try:
        cluster = await open_cluster(redis, 0, tmp_path, 2, bot_delay=0.0)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 180
            games = [await create(cluster, "ramino51", 2, 0, rounds=12) for _ in range(2)]
            acks = {name: Acks() for name, _ in games}
            players = [
                asyncio.create_task(play_people(cluster, name, tokens, acks[name], deadline))
                for name, tokens in games
            ]
            await asyncio.sleep(0.5)
            before = sum(len(a.events) for a in acks.values())
            for p in players:
                if p.done():
                    p.result()  # a player that stopped early: show why
            assert not any(p.done() for p in players)
            redis.stop()
            await asyncio.sleep(1.0)
            redis.start()
            await asyncio.gather(*players)
            assert sum(len(a.events) for a in acks.values()) > before
            await check_records(cluster.redis_url, [n for n, _ in games], acks)
        finally:
            await close_cluster(cluster)
    finally:
        redis.stop()
