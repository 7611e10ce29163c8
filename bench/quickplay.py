"""Quick play (issue 22): the matchmaker and the ratings at scale. Figures
only, nothing asserted.

1. A simulation of players with hidden skills through the real matchmaker
   (``ramino.app.quick.matchmaker`` over the memory store: tickets, claims, games
   created with every seat bound and dealt) and the real ratings (OpenSkill,
   recorded once per game). A game is not played out: a skill model ranks
   its seats (each player's performance is its hidden skill plus normal
   noise, ``--noise``). Time is simulated: one matchmaking pass a second, a
   game lasts ``--game-seconds``, then its players queue again. For each pool
   size it prints the median and p95 wait to a match (simulated seconds),
   the games formed per second of the matchmaker's own time (one replica),
   the rating updates per second, and, for the largest pool, the Spearman
   correlation of rating (mu - 3 sigma) with hidden skill (target >= 0.9).
2. Leaderboard reads at ``--board-players`` rated players (their ratings
   spread as after many games: mu around 25, sigma 1 to 4): a real server
   (``create_server`` with the MatchService over ``--store``), ``--readers``
   clients reading the top, pages around random players and ranks, while
   one client sends health Checks one after another: p50/p99 of each.

    .venv/bin/python bench/quickplay.py
    .venv/bin/python bench/quickplay.py --pools 100,1000 --games 20000 --store memory
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import math
import random
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
import jwt
from grpc_health.v1 import health_pb2, health_pb2_grpc
from ramino.api.auth import PLAYER_TOKEN_KEY, PlayerVerifier, TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.match_servicer import MatchServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.app.quick.matchmaker import Matchmaker
from ramino.app.quick.queues import MatchmakerConfig, QueueSpec
from ramino.app.quick.ratings import rate_placings
from ramino.store import open_store
from ramino.store.ratings import FinishedGame, RatedSeat, RatingRecord, RatingStore, ratings_beside
from ramino.store.redis import RedisStore
from ramino.store.tickets import MATCHED, MemoryTickets
from ramino.v1 import match_pb2, match_pb2_grpc

SPEC = QueueSpec("rummy", {}, rated=True)
SECRET = b"bench-quickplay-token-secret-of-32-bytes"
PLAYER_SECRET = b"bench-quickplay-player-secret-32-bytes!!"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1] if ordered else float("nan")


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    return statistics.correlation(ranks(a), ranks(b))


async def simulate(
    pool: int, games: int, noise: float, game_seconds: float, seed: int
) -> dict[str, float]:
    rng = random.Random(seed)
    skills = {f"p{i:05d}": rng.gauss(0.0, 1.0) for i in range(pool)}
    clock = [0.0]
    app = GameApp(open_store("memory"), clock=lambda: clock[0], run_duties=False)
    # The simulated players hold no ticket streams: nothing to follow, no grace.
    config = MatchmakerConfig(bots_after=None, turn_timer_seconds=0, grace=None)
    mm = Matchmaker(MemoryTickets(), app.store, app.lobby, app.ratings, lambda: clock[0], config)
    free_at = {p: rng.uniform(0, game_seconds) for p in skills}
    waiting: dict[str, str] = {}  # ticket id -> player
    waits: list[float] = []
    matching_time = rating_time = 0.0
    formed = updates = 0
    while formed < games:
        now = clock[0]
        for p, at in list(free_at.items()):
            if at <= now:
                del free_at[p]
                t = await mm.submit(p, p, SPEC, 2, 4)
                waiting[t.ticket_id] = p
        started = time.perf_counter()
        matches = await mm.run_once()
        matching_time += time.perf_counter() - started
        for match in matches:
            formed += 1
            players = [s.player_id for s in match.seats]
            for s in match.seats:
                ticket = await mm.tickets.ticket(s.ticket_id)
                assert ticket is not None and ticket.state == MATCHED
                waits.append(now - ticket.created_at)
                waiting.pop(s.ticket_id)
            performance = {p: skills[p] + rng.gauss(0.0, noise) for p in players}
            order = sorted(players, key=lambda p: -performance[p])
            seats = tuple(RatedSeat(i, p, p, 0, order.index(p) + 1) for i, p in enumerate(players))
            game = FinishedGame(match.match_id, "rummy", now, True, seats)
            placings = {s.player_id: (s.rank, s.name) for s in seats}
            started = time.perf_counter()
            await app.ratings.store.record(
                game, functools.partial(rate_placings, placings=placings)
            )
            rating_time += time.perf_counter() - started
            updates += len(players)
            for p in players:
                free_at[p] = now + game_seconds * rng.uniform(0.5, 1.5)
        clock[0] += 1.0
    scores = []
    for p in skills:
        rating = await app.ratings.rating("rummy", p)
        scores.append(rating.score)
    await app.close()
    return {
        "pool": pool,
        "games": formed,
        "wait_p50": percentile(waits, 0.5),
        "wait_p95": percentile(waits, 0.95),
        "games_per_s": formed / matching_time,
        "updates_per_s": updates / rating_time,
        "spearman": spearman(scores, list(skills.values())),
    }


def spread(
    current: dict[str, RatingRecord], placings: dict[str, int], rng: random.Random
) -> dict[str, RatingRecord]:
    """Ratings as a board of players after many games has them (mu around
    25, sigma from 1 to 4), not the two scores of everyone's first game."""
    return {
        p: RatingRecord(rng.gauss(25.0, 6.0), rng.uniform(1.0, 4.0), rng.randrange(1, 200), p)
        for p in placings
    }


async def fill_board(store: RatingStore, players: int, seed: int) -> None:
    rng = random.Random(seed)
    ids = [f"p{i:06d}" for i in range(players)]
    rng.shuffle(ids)
    for n in range(0, players - 1, 2):
        a, b = ids[n], ids[n + 1]
        seats = (RatedSeat(0, a, a, 0, 1), RatedSeat(1, b, b, 0, 2))
        game = FinishedGame(f"fill-{n}", "rummy", 1.0, True, seats)
        await store.record(game, functools.partial(spread, placings={a: 1, b: 2}, rng=rng))


def player_token(player: str) -> tuple[tuple[str, str], ...]:
    now = int(time.time())
    token = jwt.encode({"sub": player, "iat": now, "exp": now + 3600}, PLAYER_SECRET, "HS256")
    return ((PLAYER_TOKEN_KEY, token),)


async def board_reads(url: str, players: int, readers: int, seconds: float, seed: int) -> None:
    store = open_store(url)
    ratings = ratings_beside(store)
    started = time.perf_counter()
    if await ratings.rank("rummy", "p000000") is None:
        await fill_board(ratings, players, seed)
    print(f"  board of {players:,} rated players filled in {time.perf_counter() - started:.1f} s")
    app = GameApp(
        store,
        run_duties=False,
        ratings=ratings,
        matchmaker=MatchmakerConfig(),
        tickets=MemoryTickets(),
    )
    assert app.quick is not None
    tokens, verifier = TokenIssuer(SECRET), PlayerVerifier.from_secret(PLAYER_SECRET)
    running = await create_server(
        "127.0.0.1:0",
        GameServicer(app, tokens, verifier),
        matches=MatchServicer(app.quick, tokens, verifier),
    )
    address = f"127.0.0.1:{running.port}"
    latencies: dict[str, list[float]] = {"top": [], "around": [], "rank": [], "check": []}
    deadline = time.perf_counter() + seconds
    rng = random.Random(seed)

    async def reader() -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = match_pb2_grpc.MatchServiceStub(channel)
            while time.perf_counter() < deadline:
                who = f"p{rng.randrange(players):06d}"
                meta = player_token(who)
                kind = rng.choice(("top", "around", "rank"))
                t0 = time.perf_counter()
                if kind == "rank":
                    await stub.GetRating(match_pb2.GetRatingRequest(variant="rummy"), metadata=meta)
                else:
                    await stub.ListLeaderboard(
                        match_pb2.ListLeaderboardRequest(
                            variant="rummy", page_size=20, around_caller=kind == "around"
                        ),
                        metadata=meta,
                    )
                latencies[kind].append(time.perf_counter() - t0)

    async def checker() -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while time.perf_counter() < deadline:
                t0 = time.perf_counter()
                await stub.Check(health_pb2.HealthCheckRequest())
                latencies["check"].append(time.perf_counter() - t0)

    await asyncio.gather(checker(), *(reader() for _ in range(readers)))
    await running.stop(0)
    await app.close()
    print(f"  {readers} readers for {seconds:g} s over {url.split('?')[0]}:")
    for kind, values in latencies.items():
        name = {"top": "top 20", "around": "20 around a player", "rank": "rating and rank"}.get(
            kind, "health Check"
        )
        print(
            f"    {name:<20} {len(values):>7} calls  p50 {percentile(values, 0.5) * 1000:7.2f} ms"
            f"  p99 {percentile(values, 0.99) * 1000:7.2f} ms"
        )


async def redis_ops(client: Any) -> int:
    """Commands the Redis server has run (``INFO commandstats``), INFO's own excluded."""
    stats = await client.info("commandstats")
    return sum(
        int(v["calls"]) for k, v in stats.items() if k not in ("cmdstat_info", "cmdstat_ping")
    )


async def ticket_streams(
    redis_url: str, push: bool, pairs: int, waiting: int, seconds: float
) -> dict[str, float]:
    """Two replicas (two apps, each its own matchmaker and gRPC server) on
    one Redis: ``waiting`` players whose tickets meet nobody hold their
    streams for ``seconds`` (the store's commands per waiting player per
    second), then ``pairs`` pairs of players, one on each replica, meet (the
    time from a match's completion in the store to each player's MATCHED)."""
    prefix = f"bench-quick-{random.randrange(1 << 30)}:"
    tokens, verifier = TokenIssuer(SECRET), PlayerVerifier.from_secret(PLAYER_SECRET)
    config = MatchmakerConfig(settle=0.0, bots_after=None)
    apps, servers = [], []
    for _ in range(2):
        app = GameApp(
            RedisStore(redis_url, prefix=prefix),
            run_duties=False,
            matchmaker=config,
            ticket_push=push,
        )
        assert app.quick is not None
        running = await create_server(
            "127.0.0.1:0",
            GameServicer(app, tokens, verifier),
            matches=MatchServicer(app.quick, tokens, verifier),
        )
        await app.start()
        apps.append(app)
        servers.append(running)
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{r.port}") for r in servers]
    stubs = [match_pb2_grpc.MatchServiceStub(c) for c in channels]
    ops_client = apps[0].store.client  # type: ignore[attr-defined]

    def ticket(stub: Any, who: str, **fields: Any) -> Any:
        request = match_pb2.SubmitTicketRequest(
            variant="rummy", min_seats=2, rated=False, player_name=who, **fields
        )
        return stub.SubmitTicket(request, metadata=player_token(who))

    # Waiting players: each one's own property, so that none meets another.
    lonely = [
        ticket(stubs[i % 2], f"w{i:05d}", properties={"table": f"t{i}"}) for i in range(waiting)
    ]
    for call in lonely:
        await call.read()
    before = await redis_ops(ops_client)
    await asyncio.sleep(seconds)
    per_player = (await redis_ops(ops_client) - before) / waiting / seconds
    for call in lonely:
        call.cancel()
    # Pairs meeting across the two replicas.
    latencies: list[float] = []

    async def until_matched(app: GameApp, call: Any) -> None:
        quick = app.quick
        assert quick is not None
        while (msg := await call.read()) is not grpc.aio.EOF:
            if msg.update.state == match_pb2.TICKET_STATE_MATCHED:
                heard = time.time()
                t = await quick.matchmaker.tickets.ticket(
                    msg.update.ticket.removeprefix("tickets/")
                )
                assert t is not None
                latencies.append(heard - t.ended_at)
                return

    async def meet(i: int) -> None:
        await asyncio.gather(
            *(
                until_matched(
                    apps[k], ticket(stubs[k], f"m{i:05d}{k}", properties={"pair": str(i)})
                )
                for k in (0, 1)
            )
        )

    await asyncio.gather(*(meet(i) for i in range(pairs)))
    for c in channels:
        await c.close()
    for running, app in zip(servers, apps, strict=True):
        await running.stop(0)
        await app.close()
    return {
        "ops": per_player,
        "p50": percentile(latencies, 0.5),
        "p99": percentile(latencies, 0.99),
        "max": max(latencies),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pools", default="100,300,1000", help="pool sizes, the last the main one")
    parser.add_argument("--games", type=int, default=20000, help="games of the largest pool")
    parser.add_argument("--noise", type=float, default=1.0, help="performance noise (skill sd 1)")
    parser.add_argument("--game-seconds", type=float, default=60.0)
    parser.add_argument("--board-players", type=int, default=100_000)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--store", default="", help="store of the board (default: a sqlite file)")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--only", choices=("simulation", "board", "streams"), default=None)
    parser.add_argument("--redis", default="", help="redis:// of the streams' run (default: own)")
    parser.add_argument("--waiting", type=int, default=200, help="players waiting on their streams")
    parser.add_argument("--pairs", type=int, default=50, help="pairs meeting across two replicas")
    args = parser.parse_args()
    if args.only == "streams":
        streams(args)
        return
    pools = [int(p) for p in args.pools.split(",")] if args.only != "board" else []
    if pools:
        print("1. players with hidden skills through the matchmaker (rummy, 2 to 4 seats)")
    for i, pool in enumerate(pools):
        games = args.games if i == len(pools) - 1 else max(200, args.games * pool // pools[-1] // 2)
        r = asyncio.run(simulate(pool, games, args.noise, args.game_seconds, args.seed))
        print(
            f"  pool {pool:>5}: {r['games']:>6.0f} games  wait p50 {r['wait_p50']:5.1f} s"
            f"  p95 {r['wait_p95']:5.1f} s  games formed {r['games_per_s']:7.0f}/s"
            f"  rating updates {r['updates_per_s']:7.0f}/s  spearman {r['spearman']:.3f}"
        )
    if args.only == "simulation":
        return
    print(f"2. leaderboard reads at {args.board_players:,} rated players")
    with tempfile.TemporaryDirectory() as tmp:
        url = args.store or f"sqlite:{Path(tmp) / 'board.db'}"
        asyncio.run(board_reads(url, args.board_players, args.readers, args.seconds, args.seed))
    if args.only is None:
        streams(args)


def streams(args: argparse.Namespace) -> None:
    print(
        f"3. ticket streams on two replicas over one Redis: {args.waiting} players waiting "
        f"{args.seconds:g} s, then {args.pairs} pairs meeting across the replicas"
    )
    with tempfile.TemporaryDirectory() as tmp:
        server = None
        url = args.redis
        if not url:
            port = free_port()
            server = subprocess.Popen(
                [
                    "redis-server",
                    "--port",
                    str(port),
                    "--dir",
                    tmp,
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ],
                stdout=subprocess.DEVNULL,
            )
            url = f"redis://127.0.0.1:{port}/0"
            time.sleep(0.5)
        try:
            for push in (False, True):
                r = asyncio.run(ticket_streams(url, push, args.pairs, args.waiting, args.seconds))
                name = "pushed (store's changes)" if push else "polled every 0.5 s (before)"
                print(
                    f"  {name:<28} store commands {r['ops']:5.2f} per waiting player per s"
                    f"  match to player p50 {r['p50'] * 1000:6.1f} ms"
                    f"  p99 {r['p99'] * 1000:6.1f} ms  max {r['max'] * 1000:6.1f} ms"
                )
        finally:
            if server is not None:
                server.terminate()
                server.wait()


if __name__ == "__main__":
    main()
