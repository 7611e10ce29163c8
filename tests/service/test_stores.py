"""The store contract, run against every store."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from ramino.store import (
    DuplicateRequest,
    Entry,
    GameExists,
    GameNotFound,
    GameSummary,
    RequestRecord,
    Store,
    VersionConflict,
    open_store,
)
from ramino.store.memory import MemoryStore
from ramino.store.redis import RedisStore
from ramino.store.sqlite import SqliteStore

from tests.support.redis_cluster import RedisClusterServers
from tests.support.redis_server import RedisServer

StoreFactory = Callable[[], Store]


def redis_store(request: pytest.FixtureRequest, kind: str, **options: int) -> RedisStore:
    """A Redis store on the shared server or cluster, under a fresh prefix."""
    prefix = f"test-{uuid.uuid4().hex}:"
    if kind in ("redis-cluster", "rediss-cluster"):
        fixture = "redis_tls_cluster" if kind == "rediss-cluster" else "redis_cluster"
        cluster: RedisClusterServers = request.getfixturevalue(fixture)
        return RedisStore(cluster.url, prefix=prefix, **options)
    fixture = "redis_tls_server" if kind == "rediss" else "redis_server"
    server: RedisServer = request.getfixturevalue(fixture)
    return RedisStore(server.url, prefix=prefix, **options)


@pytest.fixture(params=["memory", "sqlite", "redis", "redis-cluster", "rediss", "rediss-cluster"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    s: Store
    if request.param.startswith("redis"):
        s = redis_store(request, request.param)
    else:
        s = open_store("memory" if request.param == "memory" else f"sqlite:{tmp_path / 'games.db'}")
    yield s
    await s.close()


def rec(
    request_id: str, response: bytes = b"", scope: str = "seat:g:0", method: str = "Draw"
) -> RequestRecord:
    """A request's record, its fingerprint made from its answer."""
    return RequestRecord(request_id, scope, method, f"print-{response.hex()}", response)


def summary(
    game_id: str, created_at: float = 1.0, variant: str = "rummy", open_seats: int = 1
) -> GameSummary:
    return GameSummary(game_id, variant, "waiting", created_at, open_seats=open_seats, seats=2)


async def test_append_only_at_the_expected_version(store: Store) -> None:
    await store.create(summary("g"), "e1")
    assert await store.append("g", 1, ["e2", "e3"], summary("g")) == 3
    with pytest.raises(VersionConflict) as err:
        await store.append("g", 1, ["x"], summary("g"))
    assert err.value.actual == 3
    assert [e.data for e in await store.read("g")] == ["e1", "e2", "e3"]
    assert [e.version for e in await store.read("g", 1)] == [2, 3]


async def test_a_read_with_a_limit_is_one_page_of_the_log(store: Store) -> None:
    await store.create(summary("g"), "e1")
    assert await store.append("g", 1, [f"e{v}" for v in range(2, 8)], summary("g")) == 7
    assert [e.version for e in await store.read("g", 0, 3)] == [1, 2, 3]
    assert [e.data for e in await store.read("g", 3, 3)] == ["e4", "e5", "e6"]
    assert [e.version for e in await store.read("g", 5, 3)] == [6, 7]
    assert await store.read("g", 7, 3) == []
    assert [e.version for e in await store.read("g", 2, None)] == [3, 4, 5, 6, 7]


async def test_a_request_id_is_applied_once_and_returns_the_first_answer(store: Store) -> None:
    await store.create(summary("g"), "e1")
    await store.append("g", 1, ["e2"], summary("g"), rec("r1", b"first"))
    with pytest.raises(DuplicateRequest) as err:
        await store.append("g", 2, ["e3"], summary("g"), rec("r1", b"second"))
    assert err.value.record == rec("r1", b"first")
    assert await store.version("g") == 2
    assert await store.request("g", "r1") == rec("r1", b"first")
    assert await store.request("g", "r2") is None


async def test_a_request_record_keeps_its_scope_method_and_fingerprint(store: Store) -> None:
    # Two callers, one request id: the store keeps the first caller's record
    # whole, so that the service can tell the second caller's request apart.
    await store.create(summary("g"), "e1")
    first = RequestRecord("r1", "seat:g:0", "DrawFromStock", "a" * 64, b"seat 0's answer")
    await store.append("g", 1, ["e2"], summary("g"), first)
    stranger = RequestRecord("r1", "seat:g:1", "Discard", "b" * 64, b"seat 1's answer")
    with pytest.raises(DuplicateRequest) as err:
        await store.append("g", 2, ["e3"], summary("g"), stranger)
    assert err.value.record == first and not err.value.record.matches(stranger)
    assert await store.request("g", "r1") == first
    assert await store.version("g") == 2


async def test_a_create_keeps_its_request_record(store: Store) -> None:
    made = RequestRecord("c1", "caller:abc", "CreateGame", "f" * 64)
    await store.create(summary("g"), "e1", made)
    assert await store.request("g", "c1") == made
    with pytest.raises(DuplicateRequest) as err:
        await store.append("g", 1, ["e2"], summary("g"), rec("c1"))
    assert err.value.record == made


@pytest.mark.parametrize("kind", ["memory", "sqlite", "redis", "redis-cluster"])
async def test_request_records_are_pruned_past_the_bound_kept_per_game(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    kept = 8
    s: Store
    if kind.startswith("redis"):
        s = redis_store(request, kind, requests_kept=kept)
    elif kind == "sqlite":
        s = SqliteStore(tmp_path / "games.db", requests_kept=kept)
    else:
        s = MemoryStore(requests_kept=kept)
    try:
        await s.create(summary("g"), "e1", rec("c0"))
        await s.create(summary("h"), "e1")
        for i in range(1, 3 * kept):
            await s.append("g", i, [f"e{i + 1}"], summary("g"), rec(f"r{i}", b"%d" % i))
            await s.append("h", i, [f"e{i + 1}"], summary("h"), rec(f"r{i}"))
            assert await s.requests_kept("g") == min(i + 1, kept)
        # The most recent records answer; the older ones are gone.
        found = [i for i in range(1, 3 * kept) if await s.request("g", f"r{i}") is not None]
        assert found == list(range(2 * kept, 3 * kept))
        assert await s.request("g", "c0") is None
        assert await s.request("g", f"r{3 * kept - 1}") == rec(f"r{3 * kept - 1}", b"23")
        # A pruned id is new again (the game has moved on: it is a new request).
        assert await s.append("g", 3 * kept, ["again"], summary("g"), rec("r1")) == 3 * kept + 1
        assert await s.requests_kept("g") == kept and await s.requests_kept("h") == kept
    finally:
        await s.close()


async def test_finished_games_take_their_request_records_with_them(store: Store) -> None:
    await store.create(summary("g"), "e1", rec("c0"))
    await store.append("g", 1, ["e2"], summary("g"), rec("r1"))
    done = summary("g")
    done.finished_at = 5.0
    done.status = "finished"
    await store.append("g", 2, ["e3"], done, rec("r2"))
    assert await store.expire_finished(10.0) == ["g"]
    assert await store.requests_kept("g") == 0
    assert await store.request("g", "r1") is None and await store.request("g", "c0") is None


async def test_an_append_refused_for_its_version_keeps_no_trace_of_its_request_id(
    store: Store,
) -> None:
    await store.create(summary("g"), "e1")
    with pytest.raises(VersionConflict):
        await store.append("g", 5, ["x"], summary("g"), rec("r1", b"stale"))
    assert await store.request("g", "r1") is None
    assert await store.append("g", 1, ["e2"], summary("g"), rec("r1", b"ok")) == 2
    assert await store.request("g", "r1") == rec("r1", b"ok")
    with pytest.raises(GameNotFound):
        await store.append("nope", 1, ["x"], summary("nope"), rec("r2", b"-"))
    assert await store.request("nope", "r2") is None


async def test_unknown_and_duplicate_games(store: Store) -> None:
    with pytest.raises(GameNotFound):
        await store.read("nope")
    with pytest.raises(GameNotFound):
        await store.append("nope", 0, ["x"], summary("nope"))
    await store.create(summary("g"), "e1")
    with pytest.raises(GameExists):
        await store.create(summary("g"), "again")
    assert [e.data for e in await store.read("g")] == ["e1"]


async def test_subscribe_sees_every_entry_in_order_once(store: Store) -> None:
    await store.create(summary("g"), "e1")
    seen: list[int] = []

    async def watch() -> None:
        async for entry in store.subscribe("g", 0):
            seen.append(entry.version)
            if entry.version == 21:
                return

    task = asyncio.create_task(watch())
    for v in range(1, 21):
        await store.append("g", v, [f"e{v + 1}"], summary("g"))
        if v % 5 == 0:
            await asyncio.sleep(0)
    await asyncio.wait_for(task, 5)
    assert seen == list(range(1, 22))


async def test_lobby_pages_and_filters(store: Store) -> None:
    for i in range(7):
        await store.create(
            summary(
                f"g{i}",
                created_at=float(i),
                variant="rummy" if i % 2 else "rami51",
                open_seats=i % 3,
            ),
            "e1",
        )
    page = await store.list_games(3)
    assert [g.game_id for g in page.games] == ["g0", "g1", "g2"]
    page = await store.list_games(3, page.next_page_token)
    assert [g.game_id for g in page.games] == ["g3", "g4", "g5"]
    page = await store.list_games(3, page.next_page_token)
    assert [g.game_id for g in page.games] == ["g6"] and page.next_page_token == ""
    rummy_open = await store.list_games(10, variant="rummy", open_only=True)
    assert [g.game_id for g in rummy_open.games] == ["g1", "g5"]
    with pytest.raises(ValueError):
        await store.list_games(3, "garbage!")


async def test_snapshots(store: Store) -> None:
    await store.create(summary("g"), "e1")
    assert await store.load_snapshot("g") is None
    await store.save_snapshot("g", 1, "state")
    assert await store.load_snapshot("g") == (1, "state")


async def test_sqlite_store_survives_reopening(tmp_path: Path) -> None:
    url = f"sqlite:{tmp_path / 'games.db'}"
    s = open_store(url)
    await s.create(summary("g"), "e1")
    await s.append("g", 1, ["e2"], summary("g"), rec("r", b"ok"))
    await s.close()
    s = open_store(url)
    assert [e.data for e in await s.read("g")] == ["e1", "e2"]
    assert await s.request("g", "r") == rec("r", b"ok")
    await s.close()


def test_unknown_store_urls_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown store"):
        open_store("postgres://x")


async def test_duties_due_and_leases(store: Store) -> None:
    s = summary("g")
    await store.create(s, "e1")
    assert await store.due_games(100.0) == []
    s.duty_at = 50.0
    await store.append("g", 1, ["e2"], s)
    assert await store.due_games(49.0) == []
    assert await store.due_games(50.0) == ["g"]
    assert await store.acquire_lease("g", "a", 5)
    assert not await store.acquire_lease("g", "b", 5)
    assert await store.acquire_lease("g", "a", 5)
    await store.release_lease("g", "a")
    assert await store.acquire_lease("g", "b", 0.05)
    await asyncio.sleep(0.1)
    assert await store.acquire_lease("g", "a", 5)
    s.duty_at = None
    await store.append("g", 2, ["e3"], s)
    assert await store.due_games(1e12) == []


async def test_finished_games_expire_after_being_archived(store: Store) -> None:
    archived: dict[str, list[str]] = {}

    async def archive(game_id: str, entries: list[Entry]) -> None:
        archived[game_id] = [e.data for e in entries]

    for i, finished in enumerate((10.0, 20.0, None)):
        s = summary(f"g{i}", created_at=float(i))
        await store.create(s, "e1")
        s.finished_at = finished
        await store.append(f"g{i}", 1, ["e2"], s)
    assert await store.expire_finished(15.0, archive) == ["g0"]
    assert archived == {"g0": ["e1", "e2"]}
    with pytest.raises(GameNotFound):
        await store.read("g0")
    assert [g.game_id for g in (await store.list_games(10)).games] == ["g1", "g2"]
    assert sorted(await store.expire_finished(1e12)) == ["g1"]


async def test_concurrent_appends_each_land_or_fail_alone(store: Store) -> None:
    # The sqlite store commits the appends of one turn of the event loop
    # together; a refused one among them must change nothing of the others.
    for i in range(8):
        await store.create(summary(f"g{i}"), "e1")

    def append(i: int) -> Awaitable[int]:
        expected = 2 if i == 3 else 1  # g3 is at version 1: refused
        request = "same" if i == 5 else f"r{i}"
        return store.append(f"g{i}", expected, [f"g{i}-e2"], summary(f"g{i}"), rec(request, b"x"))

    outcomes = await asyncio.gather(
        *(append(i) for i in range(8)),
        store.append("g5", 1, ["late"], summary("g5"), rec("same", b"y")),
        return_exceptions=True,
    )
    assert isinstance(outcomes[3], VersionConflict)
    assert [o for i, o in enumerate(outcomes[:8]) if i not in (3, 5)] == [2] * 6
    for i in range(8):
        if i not in (3, 5):
            assert [e.data for e in await store.read(f"g{i}")] == ["e1", f"g{i}-e2"], i
    assert [e.data for e in await store.read("g3")] == ["e1"]
    # The two appends of g5 race (in whatever order the store takes them):
    # one lands, the other is refused and changes nothing.
    first, second = outcomes[5], outcomes[8]
    won, lost = (first, second) if first == 2 else (second, first)
    assert won == 2 and isinstance(lost, VersionConflict | DuplicateRequest), outcomes
    winner = ("g5-e2", b"x") if first == 2 else ("late", b"y")
    assert [e.data for e in await store.read("g5")] == ["e1", winner[0]]
    assert await store.request("g5", "same") == rec("same", winner[1])


async def test_sqlite_appends_are_committed_when_answered(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    first = open_store(f"sqlite:{path}")
    await first.create(summary("g"), "e1")
    assert await first.append("g", 1, ["e2"], summary("g")) == 2
    # Another connection (as after a crash of this process) sees the append.
    other = open_store(f"sqlite:{path}")
    assert [e.data for e in await other.read("g")] == ["e1", "e2"]
    await other.close()
    await first.close()


async def test_sqlite_an_append_that_fails_fails_its_batch_and_none_of_it_lands(
    tmp_path: Path,
) -> None:
    path = tmp_path / "games.db"
    store = open_store(f"sqlite:{path}")
    for g in ("a", "b"):
        await store.create(summary(g), "e1")
    # An entry already where b's append will write (a damaged file, say):
    # its insert fails after its summary row was updated.
    other = open_store(f"sqlite:{path}")
    assert isinstance(other, SqliteStore)
    other._db.execute("INSERT INTO entries VALUES ('b', 2, 'stray')")
    await other.close()
    outcomes = await asyncio.gather(
        store.append("a", 1, ["a-e2"], summary("a"), rec("ra", b"a")),
        store.append("b", 1, ["b-e2"], summary("b"), rec("rb", b"b")),
        return_exceptions=True,
    )
    assert all(isinstance(o, sqlite3.IntegrityError) for o in outcomes), outcomes
    assert [e.data for e in await store.read("a")] == ["e1"]
    assert await store.version("b") == 1
    assert await store.request("a", "ra") is None and await store.request("b", "rb") is None
    # The store goes on: the next batch commits.
    assert await store.append("a", 1, ["a-e2"], summary("a"), rec("ra")) == 2
    assert [e.data for e in await store.read("a")] == ["e1", "a-e2"]
    await store.close()


async def test_sqlite_checkpoints_run_in_a_thread_of_their_own_not_in_a_commit(
    tmp_path: Path,
) -> None:
    path = tmp_path / "games.db"
    store = open_store(f"sqlite:{path}")
    assert isinstance(store, SqliteStore) and store.checkpointer is not None
    # No commit checkpoints (SQLite's automatic checkpoint is off on the
    # store's connection); the store's own thread does.
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    await store.create(summary("g"), "e1")
    for v in range(1, 200):
        assert await store.append("g", v, ["x" * 2000], summary("g")) == v + 1
    # The entries go to the log; the database file has them once the
    # thread has checkpointed (nothing else here copies them there).
    written = 199 * 2000
    for _ in range(200):  # up to 20 s
        if path.stat().st_size > written:
            break
        await asyncio.sleep(0.1)
    assert path.stat().st_size > written
    assert store.checkpointer.done > 0
    checkpointer = store.checkpointer
    await store.close()
    assert not checkpointer.running
    again = open_store(f"sqlite:{path}")
    assert await again.version("g") == 200
    await again.close()


async def _sustained(
    store: SqliteStore, rounds: int, games: int, wal_sizes: list[int], create: bool
) -> None:
    """``rounds`` rounds of writes, one per game at once (a batch each):
    appends with their request records, or creates; the log's size after each."""
    assert store.checkpointer is not None
    answer = b"r" * 1500  # a move's answer, as a record keeps it
    if not create:
        for g in range(games):
            await store.create(summary(f"g{g}"), "e1")
    for r in range(rounds):
        if create:
            await asyncio.gather(
                *(store.create(summary(f"c{r}-{g}"), "e1" * 200) for g in range(games))
            )
        else:
            await asyncio.gather(
                *(
                    store.append(
                        f"g{g}", r + 1, ["e" * 300], summary(f"g{g}"), rec(f"r{r}", answer)
                    )
                    for g in range(games)
                )
            )
        wal_sizes.append(store.checkpointer.wal_size())


@pytest.mark.parametrize("create", [False, True], ids=["appends", "creates"])
async def test_sqlite_log_stays_bounded_under_sustained_writes_and_is_truncated_when_idle(
    tmp_path: Path, create: bool
) -> None:
    """Passive checkpoints never catch up with a busy writer (the log grew
    without bound: 438 MB after 20,000 moves); past its limit the checkpointer
    holds the writers, checkpoints the rest and truncates the log, and a
    writer that outruns it waits (from three quarters of the limit; the exact
    bound is ``test_sqlite_wal_bound.py``'s)."""
    limit = 1 << 20
    path = tmp_path / "games.db"
    store = SqliteStore(path, wal_limit=limit)
    assert store.checkpointer is not None
    sizes: list[int] = []
    rounds, games = (80, 25) if create else (400, 50)  # 2,000 creates, 20,000 appends
    await _sustained(store, rounds, games, sizes, create)
    # Writers are held below the limit: one round's batch (checked before it
    # is written) may land past where they wait, never two. Unbounded, the
    # log would hold every round (hundreds of MB here).
    step = max(b - a for a, b in zip(sizes, sizes[1:], strict=False))
    assert max(sizes) <= 2 * limit + step, (max(sizes), step)
    assert max(sizes) < 8 * limit, max(sizes)
    assert store.checkpointer.restarted > 0
    # Idle: the log is folded in and truncated, to the one page written
    # after (up to 20 s).
    for _ in range(200):
        if store.checkpointer.wal_size() < 8192:
            break
        await asyncio.sleep(0.1)
    assert store.checkpointer.wal_size() < 8192
    if create:
        assert len((await store.list_games(10_000)).games) == rounds * games
    else:
        for g in range(games):
            assert await store.version(f"g{g}") == rounds + 1
    await store.close()
    again = SqliteStore(path)
    assert await again.version("g0" if not create else f"c{rounds - 1}-0") == (
        1 if create else rounds + 1
    )
    await again.close()
