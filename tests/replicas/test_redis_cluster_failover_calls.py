"""Every store call through real failovers (issue 36, item 5): on a Redis
Cluster of three primaries and a replica each, every method of the game
store, and of the tickets and ratings kept beside it on its client, runs
concurrently while the primary of their shard is killed (SIGKILL), cycle
after cycle (the killed node comes back as the new primary's replica, which
the next cycle kills). No call may fail but with the store's own
StoreUnavailable (UNAVAILABLE at the gRPC edge) or a domain answer (a
version conflict after a write the failover lost, say): never redis-py's
``AttributeError: 'NoneType' object has no attribute 'writelines'`` nor any
other error that the edge would answer INTERNAL; and after each promotion
every method answers again.

``bench/cluster_failover.py --store-calls 20`` runs the same cycles, 20 in a
row, and prints what each cycle saw."""

from __future__ import annotations

import asyncio
import functools
import itertools
import time
import traceback
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from ramino.app.quick.ratings import rate_placings
from ramino.store import (
    DuplicateRequest,
    GameExists,
    GameNotFound,
    GameSummary,
    RequestRecord,
    StoreUnavailable,
    VersionConflict,
)
from ramino.store.ratings import FinishedGame, RatedSeat
from ramino.store.ratings.redis import RedisRatings
from ramino.store.redis import Layout, RedisStore
from ramino.store.tickets import CANCELLED, TicketRecord, new_ticket_id
from ramino.store.tickets.redis import RedisTickets
from ramino.v1 import game_pb2, game_pb2_grpc
from redis.crc import key_slot

from tests.replicas.test_redis_cluster_replicas import game_slot, open_servers
from tests.replicas.test_redis_replicas import CALLER, close_cluster, create
from tests.support.redis_cluster import RedisClusterServers

CYCLES = 20
"""Kill cycles of the test: 20 in a row, about 100 s (5 s a cycle)."""
ANSWERS = (StoreUnavailable, VersionConflict, DuplicateRequest, GameExists, GameNotFound)
"""What a call may raise through a failover: the store out of reach, or a
domain answer (a failover without ``wait`` can lose the last writes: a game
created, a version appended); each has its status, none is INTERNAL."""
STEADY = 60.0
"""Seconds every method is given to answer again after a promotion."""
METHODS = frozenset(
    {
        "ping",
        "create",
        "append",
        "read",
        "version",
        "request",
        "requests_kept",
        "subscribe",
        "list_games",
        "save_snapshot",
        "load_snapshot",
        "due_games",
        "acquire_lease",
        "release_lease",
        "expire_finished",
        "tickets.submit",
        "tickets.ticket",
        "tickets.waiting",
        "tickets.queues",
        "tickets.active",
        "tickets.end",
        "ratings.record",
        "ratings.rating",
        "ratings.top",
        "ratings.history",
        "ratings.recorded",
    }
)


def slot(key: str) -> int:
    return int(key_slot(key.encode()))


@dataclass
class Calls:
    """What the store calls answered, by method: counts, and the failures
    that are not among ``ANSWERS`` (with their tracebacks)."""

    ok: Counter[str] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)
    last_ok: dict[str, float] = field(default_factory=dict)

    async def run(self, method: str, call: Awaitable[Any]) -> tuple[bool, Any]:
        """Whether ``call`` answered, and its answer."""
        try:
            answer = await call
        except ANSWERS as e:
            self.failed[f"{method}: {type(e).__name__}"] += 1
            return False, None
        except Exception as e:  # noqa: BLE001 - every other failure is the finding
            self.wrong.append(f"{method}: {''.join(traceback.format_exception(e))}")
            return False, None
        self.answered(method)
        return True, answer

    def answered(self, method: str) -> None:
        self.ok[method] += 1
        self.last_ok[method] = time.monotonic()

    def answered_since(self, moment: float) -> frozenset[str]:
        return frozenset(m for m, t in self.last_ok.items() if t > moment)


@dataclass(frozen=True)
class Shard:
    """Where every key the calls touch lives: the shard of one slot, the
    one whose primary each cycle kills."""

    slot: int
    prefix: str
    games: tuple[str, ...]
    queue: str
    players: tuple[str, ...]
    variant: str = "rummy"


def on_one_shard(servers: RedisClusterServers) -> Shard:
    """A prefix, games, a queue and players whose keys (the games', the
    tickets', the ratings') all live on the shard of the lowest slots."""
    ranges = servers.slot_ranges()
    low, high = min(r for rs in ranges.values() for r in rs)

    def here(key: str) -> bool:
        return low <= slot(key) <= high

    prefix = next(
        p
        for p in (f"f{n}:" for n in itertools.count())
        if here(f"{p}r:variants") and here(f"{{{p}r:rummy}}") and here(f"{p}tq:queues")
    )
    layout = Layout(prefix, 64)
    games = tuple(g for g in (f"g{i}" for i in range(2000)) if here(layout.key(g, "log")))[:12]
    queue = next(q for q in (f"q{i}" for i in itertools.count()) if here(f"{{{prefix}tq:{q}}}"))
    players = tuple(p for p in (f"p{i}" for i in range(2000)) if here(f"{{{prefix}tp:{p}}}"))[:4]
    return Shard(low, prefix, games, queue, players)


def summary(game_id: str, version: int = 1) -> GameSummary:
    s = GameSummary(game_id, "rummy", "playing", 1.0, open_seats=0, seats=2)
    s.version = version
    return s


class Drive:
    """Every store method called over and over by its own tasks, until
    :meth:`stop`."""

    def __init__(self, url: str, shard: Shard) -> None:
        self.shard = shard
        self.store = RedisStore(url, prefix=shard.prefix)
        self.tickets = RedisTickets(self.store.client, shard.prefix)
        self.ratings = RedisRatings(self.store.client, shard.prefix)
        self.calls = Calls()
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.feeds: dict[str, Any] = {}
        """Each subscriber's feed (to show where it waits, if it stalls)."""

    def where_feeds_wait(self) -> str:
        """Each feed's chain of awaits, innermost last, with its locals."""
        lines = []
        for g, feed in self.feeds.items():
            lines.append(f"feed of {g}:")
            step: Any = feed
            for _ in range(40):
                frame = getattr(step, "ag_frame", None) or getattr(step, "cr_frame", None)
                if frame is None:
                    lines.append(f"  {step!r}")
                    break
                shown = {
                    k: repr(v)[:80]
                    if not isinstance(v, BaseException)
                    else f"{type(v).__name__}: {str(v)[:200]} (from {v.__cause__!r:.200})"
                    for k, v in frame.f_locals.items()
                    if k != "self"
                }
                lines.append(f"  {frame.f_code.co_filename}:{frame.f_lineno} {shown}")
                step = getattr(step, "ag_await", None) or getattr(step, "cr_await", None)
                if step is None:
                    break
        for name, client in (("games", self.store.client), ("feeds", self.store._blocking)):
            manager = client.nodes_manager
            slot_nodes = [n.name for n in manager.slots_cache.get(self.shard.slot, [])]
            lines.append(
                f"{name} client: initialize={client._initialize} epoch={manager._epoch} "
                f"slot {self.shard.slot} -> {slot_nodes} "
                f"startup={sorted(manager.startup_nodes)} cache={sorted(manager.nodes_cache)}"
            )
        return "\n".join(lines)

    async def start(self) -> None:
        for g in self.shard.games:
            await self.store.create(summary(g), "e1")
        workers = [
            *(self._reader(g) for g in self.shard.games),
            *(self._appender(g) for g in self.shard.games[:4]),
            *(self._subscriber(g) for g in self.shard.games[:4]),
            self._creator(),
            self._lobby(),
            self._leases(self.shard.games[4]),
            self._tickets(),
            self._ratings(),
        ]
        self._tasks = [asyncio.create_task(w) for w in workers]

    async def stop(self) -> None:
        self._stop.set()
        for t in self._tasks:
            if not t.done():
                t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.store.close()

    async def _paced(self) -> bool:
        """Whether to go on, after a short pause (the calls leave the
        cluster's and the test's CPU to the failover too)."""
        await asyncio.sleep(0.01)
        return not self._stop.is_set()

    async def _reader(self, g: str) -> None:
        s, run = self.store, self.calls.run
        while await self._paced():
            await run("ping", s.ping())
            await run("read", s.read(g))
            await run("version", s.version(g))
            await run("request", s.request(g, "no-such-request"))
            await run("requests_kept", s.requests_kept(g))
            await run("load_snapshot", s.load_snapshot(g))

    async def _appender(self, g: str) -> None:
        s, run = self.store, self.calls.run
        version = 1
        while await self._paced():
            rid = uuid.uuid4().hex
            record = RequestRecord(rid, "seat:0", "Draw", "p", b"an answer")
            done, new = await run(
                "append", s.append(g, version, ["e"], summary(g, version + 1), record)
            )
            if done:
                version = new
                await run("save_snapshot", s.save_snapshot(g, version, "snap"))
                continue
            # Not acknowledged: the append may have landed, or been lost with
            # a failover, or the version moved; the store says which.
            done, found = await run("version", s.version(g))
            if done:
                version = found

    async def _subscriber(self, g: str) -> None:
        last = 0
        while await self._paced():
            try:
                feed = self.store.subscribe(g, last)
                self.feeds[g] = feed
                async for e in feed:
                    last = e.version
                    self.calls.answered("subscribe")
            except ANSWERS as e:
                self.calls.failed[f"subscribe: {type(e).__name__}"] += 1
            except Exception as e:  # noqa: BLE001 - every other failure is the finding
                self.calls.wrong.append(f"subscribe: {''.join(traceback.format_exception(e))}")

    async def _creator(self) -> None:
        s, run = self.store, self.calls.run
        while await self._paced():
            g = f"c{uuid.uuid4().hex[:12]}"
            record = RequestRecord(g, "caller:k", "CreateGame", "p", b"an answer")
            await run("create", s.create(summary(g), "e1", record))

    async def _lobby(self) -> None:
        s, run = self.store, self.calls.run
        while await self._paced():
            await run("list_games", s.list_games(20))
            await run("due_games", s.due_games(time.time()))
            await run("expire_finished", s.expire_finished(0.0))

    async def _leases(self, g: str) -> None:
        s, run = self.store, self.calls.run
        while await self._paced():
            await run("acquire_lease", s.acquire_lease(g, "replica-a", 5.0))
            await run("release_lease", s.release_lease(g, "replica-a"))

    async def _tickets(self) -> None:
        t, run, shard = self.tickets, self.calls.run, self.shard
        for n in itertools.count():
            if not await self._paced():
                return
            player = shard.players[n % len(shard.players)]
            ticket = TicketRecord(
                new_ticket_id(shard.queue), player, player, shard.queue, 2, 4, {}, 0.0, 1.0
            )
            await run("tickets.submit", t.submit(ticket, 10**6))
            await run("tickets.ticket", t.ticket(ticket.ticket_id))
            await run("tickets.waiting", t.waiting(shard.queue))
            await run("tickets.queues", t.queues())
            await run("tickets.active", t.active(player))
            await run("tickets.end", t.end(ticket.ticket_id, CANCELLED, time.time()))

    async def _ratings(self) -> None:
        r, run, shard = self.ratings, self.calls.run, self.shard
        first, second = shard.players[:2]
        while await self._paced():
            seats = (RatedSeat(0, first, first, 10, 1), RatedSeat(1, second, second, 0, 2))
            game = FinishedGame(uuid.uuid4().hex, shard.variant, time.time(), True, seats)
            placings = {s.player_id: (s.rank, s.name) for s in seats}
            await run(
                "ratings.record",
                r.record(game, functools.partial(rate_placings, placings=placings)),
            )
            await run("ratings.rating", r.rating(shard.variant, first))
            await run("ratings.top", r.top(shard.variant, 10))
            await run("ratings.history", r.history(second, 10))
            await run("ratings.recorded", r.recorded(game.game_id))


async def until(check: Callable[[], bool], failure: Callable[[], str], timeout: float) -> None:
    """Polls ``check`` until it is true; fails with ``failure()`` after ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, failure()
        await asyncio.sleep(0.05)


@dataclass(frozen=True)
class Cycle:
    """One kill: seconds from the kill to the promotion and to every
    method answering again, and the failures meanwhile, by kind."""

    promoted: float
    answering: float
    failures: Counter[str]


async def kill_cycle(servers: RedisClusterServers, drive: Drive) -> Cycle:
    """Kills the primary of the drive's shard once every method has
    answered, waits for its replica's promotion and for every method to
    answer again, then brings the killed node back (as the new primary's
    replica, fully synced: the next cycle's kill is failed over too)."""
    calls = drive.calls
    start = time.monotonic()
    await until(
        lambda: calls.answered_since(start) >= METHODS,
        lambda: f"not answering before the kill: {sorted(METHODS - calls.answered_since(start))}",
        STEADY,
    )
    failed_before = Counter(calls.failed)
    victim = await asyncio.to_thread(servers.primary_of_slot, drive.shard.slot)
    victim.kill()
    killed = time.monotonic()
    await asyncio.to_thread(servers.wait_promoted, victim)
    promoted = time.monotonic()
    await until(
        lambda: calls.answered_since(promoted) >= METHODS,
        lambda: f"not answering after the promotion: "
        f"{sorted(METHODS - calls.answered_since(promoted))}\n{drive.where_feeds_wait()}",
        STEADY,
    )
    answering = time.monotonic()
    await asyncio.to_thread(victim.start)
    await asyncio.to_thread(servers.wait_synced)
    return Cycle(promoted - killed, answering - killed, calls.failed - failed_before)


async def drive_through_kills(
    servers: RedisClusterServers, cycles: int, report: Callable[[int, Cycle], None]
) -> Calls:
    """Every store method called concurrently through ``cycles`` kills of
    their shard's primary; ``report`` is told each cycle's figures."""
    drive = Drive(servers.url, on_one_shard(servers))
    await drive.start()
    try:
        for n in range(cycles):
            report(n, await kill_cycle(servers, drive))
            assert not drive.calls.wrong, drive.calls.wrong[:3]
    finally:
        await drive.stop()
    return drive.calls


async def test_every_store_call_through_primary_kills_answers_or_is_unavailable(
    own_cluster: RedisClusterServers,
) -> None:
    cycles: list[Cycle] = []
    calls = await drive_through_kills(own_cluster, CYCLES, lambda _n, c: cycles.append(c))
    assert not calls.wrong, calls.wrong[:3]
    assert len(cycles) == CYCLES
    assert set(calls.ok) == METHODS
    # The failovers were felt: calls waited through them (and some may have
    # been answered StoreUnavailable or lost a write): every failure is one of
    # ANSWERS, counted here, never an AttributeError or an INTERNAL.
    assert all(c.promoted > 0 for c in cycles)


@pytest.fixture
async def one_server_on_cluster(
    own_cluster: RedisClusterServers, tmp_path: Path
) -> AsyncIterator[tuple[game_pb2_grpc.GameServiceStub, Any, RedisClusterServers]]:
    cluster = await open_servers(own_cluster.url, tmp_path, 1, bot_delay=0.0)
    try:
        yield cluster.stubs[0], cluster, own_cluster
    finally:
        await close_cluster(cluster)


async def test_get_game_through_a_primary_kill_is_ok_or_unavailable_never_internal(
    one_server_on_cluster: tuple[game_pb2_grpc.GameServiceStub, Any, RedisClusterServers],
) -> None:
    stub, cluster, servers = one_server_on_cluster
    names = [(await create(cluster, "rummy", 2, 0))[0] for _ in range(9)]
    victim = await asyncio.to_thread(servers.primary_of_slot, game_slot(names[0]))
    on_victim = [n for n in names if servers.primary_of_slot(game_slot(n)) is victim]
    codes: Counter[grpc.StatusCode] = Counter()
    ok_at: list[float] = []
    stop = asyncio.Event()

    async def get(name: str) -> None:
        while not stop.is_set():
            try:
                if name:
                    await stub.GetGame(game_pb2.GetGameRequest(name=name), metadata=CALLER)
                else:
                    await stub.ListGames(game_pb2.ListGamesRequest(page_size=5), metadata=CALLER)
            except grpc.aio.AioRpcError as e:
                codes[e.code()] += 1
            else:
                codes[grpc.StatusCode.OK] += 1
                ok_at.append(time.monotonic())
            await asyncio.sleep(0.01)

    getters = [asyncio.create_task(get(n)) for n in [*on_victim, *on_victim, ""]]
    try:
        await until(lambda: len(ok_at) > 20, lambda: f"no answers: {codes}", STEADY)
        victim.kill()
        await asyncio.to_thread(servers.wait_promoted, victim)
        promoted = time.monotonic()
        await until(
            lambda: sum(t > promoted for t in ok_at) > 20,
            lambda: f"no answers after the promotion: {codes}",
            STEADY,
        )
    finally:
        stop.set()
        await asyncio.gather(*getters)
    assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE}, codes
