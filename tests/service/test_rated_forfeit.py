"""Walking away from a rated game does not escape its rating (issue 46,
defect 1): the abandonment of a rated game in play is a forfeit of the
seats that stopped playing, rated once whichever replica decides it, and
never comes before the game's turn timer has acted (``ramino.app.games.moves``
``forfeit``, ``ramino.app.games.cache`` ``rated_abandon_after``), on every store."""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from ramino.app import GameApp, Limits, SeatSpec
from ramino.app.games.duties import timeout_move
from ramino.app.hosted import HostedGame
from ramino.app.quick.queues import MatchmakerConfig
from ramino.app.quick.ratings import rate_placings
from ramino.bots import make_bot
from ramino.serve import rated_abandon_note
from ramino.store import Store, open_store
from ramino.store.redis import RedisStore

from tests.support.redis_server import RedisServer

TIMER = 60
ABANDON = 6.0  # the server: --abandon-after 6 under a 60 s turn timer


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


Stores = Callable[[], Store]


@pytest.fixture(params=["memory", "sqlite", "redis"])
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Stores:
    """Stores over one backend, as replicas open it (memory: one store, one
    process; sqlite: one file; Redis: one real redis-server, one prefix)."""
    if request.param == "memory":
        one = open_store("memory")
        return lambda: one
    if request.param == "sqlite":
        return lambda: open_store(f"sqlite:{tmp_path}/g.db")
    server: RedisServer = request.getfixturevalue("redis_server")
    prefix = f"forfeit-{uuid.uuid4().hex}:"
    return lambda: RedisStore(server.url, prefix)


@pytest.fixture
async def replica(stores: Stores) -> AsyncIterator[tuple[GameApp, Clock]]:
    clock = Clock()
    app = GameApp(stores(), clock=clock, limits=Limits(abandon_after=ABANDON))
    await app.start()
    yield app, clock
    await app.close()


def another(app: GameApp, stores: Stores, clock: Clock, **options: object) -> GameApp:
    """Another replica of ``app``'s store (in memory: the same store and
    ratings, as one process holds them)."""
    store = stores()
    ratings = app.ratings.store if store is app.store else None
    return GameApp(store, clock=clock, ratings=ratings, **options)  # type: ignore[arg-type]


async def until(check: Callable[[], Awaitable[bool]]) -> None:
    for _ in range(500):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("never happened")


async def rated_table(app: GameApp, people: tuple[str, ...]) -> str:
    seats = [SeatSpec("", None) for _ in people]
    game = await app.lobby.create("rummy", {}, seats, TIMER, rated=True)
    for i, p in enumerate(people):
        await app.join(game.game_id, i, p.title(), player_id=p)
    return game.game_id


async def play_turn(app: GameApp, game_id: str, seat: int) -> None:
    """``seat``'s person plays its turn (draws, then discards)."""
    greedy = make_bot("greedy", 5)
    for _ in range(20):
        game = await app.load(game_id)
        assert game.engine is not None
        if game.engine.turn != seat or game.status != "playing":
            return
        await app.move(game_id, seat, timeout_move(game.engine, seat, greedy), None, None)
    raise AssertionError("the turn never ended")


async def test_the_player_who_walks_away_loses_a_rated_game(
    replica: tuple[GameApp, Clock], stores: Stores
) -> None:
    """The issue's sequence: the player to move closes the app under a
    server abandoning games after 6 s. The game is not abandoned (which
    rated no one): the timer acts first, and once nobody acts for two
    timers the player who stopped playing forfeits; ratings change once."""
    app, clock = replica
    gid = await rated_table(app, ("ann", "bob"))
    dealt = await app.load(gid)
    assert dealt.engine is not None
    away = dealt.engine.turn
    assert away is not None
    here = 1 - away
    names = ("ann", "bob")
    # 8 s later the game goes on: its abandon time waits for two timers.
    clock.now += 8
    app.duties.kick(gid)  # type: ignore[union-attr]
    await asyncio.sleep(0.2)
    game = await app.load(gid)
    assert (game.status, game.ended) == ("playing", None)
    assert app.abandon_at(game) == game.person_at + 2 * TIMER
    # The timer acts first: the bot draws for the absent seat.
    clock.now += TIMER
    app.duties.kick(gid)  # type: ignore[union-attr]

    async def timed_out() -> bool:
        return away in (await app.load(gid)).timed_out

    await until(timed_out)
    game = await app.load(gid)
    assert game.engine is not None and game.engine.turn == away and game.status == "playing"
    # Nobody acts for the abandon time: the seat to move forfeits.
    clock.now += TIMER + 1
    app.duties.kick(gid)  # type: ignore[union-attr]

    async def over() -> bool:
        return (await app.load(gid)).status == "finished"

    await until(over)
    game = await app.load(gid)
    assert game.ended is None  # ended by its match, not abandoned
    assert game.engine is not None and game.engine.state.seats[away].resigned
    expected = rate_placings(
        {}, {names[here]: (1, names[here].title()), names[away]: (2, names[away].title())}
    )
    for who in names:
        got = await app.ratings.rating("rummy", who)
        assert (got.mu, got.sigma, got.games) == (
            pytest.approx(expected[who].mu),
            pytest.approx(expected[who].sigma),
            1,
        )
    (entry,) = await app.ratings.history(names[away], 10)
    assert [s.lost for s in entry.game.seats] == [i == away for i in range(2)]
    # Another replica, or this one restarted, reports it again: once.
    other = another(app, stores, clock, run_duties=False)
    again = await other.load(gid)
    assert not await other.ratings.game_finished(again)
    assert await other.moves.forfeit(gid, again.version) == ()
    assert (await other.ratings.rating("rummy", names[here])).games == 1
    if other.store is not app.store:
        await other.close()


async def test_two_replicas_deciding_one_forfeit_write_it_once(stores: Stores) -> None:
    clock = Clock()
    limits = Limits(abandon_after=ABANDON)
    first = GameApp(stores(), clock=clock, limits=limits, run_duties=False)
    second = another(first, stores, clock, limits=limits, run_duties=False)
    try:
        await one_forfeit(first, second, clock)
    finally:
        await first.close()
        if second.store is not first.store:
            await second.close()


async def one_forfeit(first: GameApp, second: GameApp, clock: Clock) -> None:
    gid = await rated_table(first, ("ann", "bob"))
    clock.now += 2 * TIMER + 1
    decided = [await app.load(gid) for app in (first, second)]
    assert decided[0].version == decided[1].version
    # Both decided on one version; the first append wins, the other's
    # compare-and-set fails (one after the other: two sqlite connections
    # in one event loop would wait on each other's lock).
    assert len(await first.moves.forfeit(gid, decided[0].version)) == 1
    assert await second.moves.forfeit(gid, decided[1].version) == ()
    await asyncio.sleep(0.01)  # the refused append's sqlite batch commits (empty)
    for app in (first, second):
        await app.ratings.game_finished(await app.load(gid))
    for who in ("ann", "bob"):
        assert (await first.ratings.rating("rummy", who)).games == 1


async def test_those_left_play_on_with_their_abandon_time_restarted(stores: Stores) -> None:
    """Several seats away: the seat to move and those timed out forfeit;
    the seats that were waiting for their turn play on, each with a whole
    abandon time (every replica folds the same from the log)."""
    clock = Clock()
    app = GameApp(stores(), clock=clock, limits=Limits(abandon_after=1000))
    await app.start()
    try:
        await several_away(app, clock)
    finally:
        await app.close()


async def several_away(app: GameApp, clock: Clock) -> None:
    gid = await rated_table(app, ("ann", "bob", "cid", "dee"))
    game = await app.load(gid)
    assert game.engine is not None
    first = game.engine.turn
    assert first is not None

    async def turn_left(seat: int) -> bool:
        g = await app.load(gid)
        return g.engine is not None and g.engine.turn != seat

    # The timer plays the first seat's turn (a draw, a discard), and it never
    # comes back; the next seat plays, then nobody does.
    for _ in range(2):
        clock.now += TIMER
        app.duties.kick(gid)  # type: ignore[union-attr]
        await asyncio.sleep(0.1)
    await until(lambda: turn_left(first))
    game = await app.load(gid)
    assert game.engine is not None and first in game.timed_out
    second = game.engine.turn
    assert second is not None
    await play_turn(app, gid, second)
    game = await app.load(gid)
    assert game.engine is not None
    third = game.engine.turn
    clock.now += 1001
    app.duties.kick(gid)  # type: ignore[union-attr]

    async def forfeited() -> bool:
        g = await app.load(gid)
        return g.engine is not None and g.engine.state.seats[first].resigned

    await until(forfeited)
    game = await app.load(gid)
    assert game.engine is not None
    resigned = [i for i, s in enumerate(game.engine.state.seats) if s.resigned]
    assert sorted(resigned) == sorted({first, third})
    assert game.status == "playing"
    assert app.abandon_at(game) == clock.now + 1000
    folded = HostedGame.fold(await app.store.read(gid))
    assert folded.person_at == game.person_at == clock.now
    assert await app.ratings.store.recorded(gid) is None  # not over yet


async def test_once_no_person_is_left_the_bots_do_not_play_on(
    replica: tuple[GameApp, Clock],
) -> None:
    """A rated quick-play game filled with bots: its two people walk away
    one after the other; once the second forfeits, no person is left, and
    the match ends at once (rated: both lost, tied) rather than the bots
    playing it out for no one."""
    app, clock = replica
    seats = [SeatSpec("", None)] * 2 + [SeatSpec("Bot", "greedy")] * 2
    game = await app.lobby.create("rummy", {}, seats, TIMER, rated=True)
    gid = game.game_id
    for i, p in enumerate(("ann", "bob")):
        await app.join(gid, i, p.title(), player_id=p)

    async def resigned(seat: int) -> bool:
        g = await app.load(gid)
        return g.engine is not None and g.engine.state.seats[seat].resigned

    for seat in (0, 1):
        game = await app.load(gid)
        assert game.engine is not None and game.engine.turn == seat
        clock.now += 2 * TIMER + 1
        app.duties.kick(gid)  # type: ignore[union-attr]
        await until(functools.partial(resigned, seat))
    game = await app.load(gid)
    assert game.status == "finished" and game.ended is None
    recorded = await app.ratings.store.recorded(gid)
    assert recorded is not None and recorded.rated
    people = [(s.player_id, s.lost) for s in recorded.seats if s.player_id]
    assert people == [("ann", True), ("bob", True)]


async def test_a_rated_table_not_dealt_yet_is_abandoned_as_any() -> None:
    clock = Clock()
    app = GameApp(open_store("memory"), clock=clock, limits=Limits(abandon_after=ABANDON))
    table = await app.lobby.create("rummy", {}, [SeatSpec("", None)] * 2, TIMER, rated=True)
    assert app.abandon_at(table) == clock.now + ABANDON
    await app.close()


def test_the_startup_log_says_how_a_short_abandon_time_is_resolved() -> None:
    note = rated_abandon_note(ABANDON, MatchmakerConfig())
    assert note is not None
    assert "--abandon-after 6 s" in note and "120 s" in note and "forfeit" in note
    # A rated queue's own timer counts.
    slow = MatchmakerConfig(queues={"gin/rated": {"turn_timer_seconds": 300}})
    assert "600 s" in (rated_abandon_note(300, slow) or "")
    assert rated_abandon_note(3600, MatchmakerConfig()) is None
    assert rated_abandon_note(0, MatchmakerConfig()) is None  # never abandoned
    assert rated_abandon_note(ABANDON, None) is None  # a server that rates nothing
