"""The matchmaker (``ramino.app.quick.matchmaker``): tickets matched oldest first
within their constraints, rating windows that widen, bots after a wait,
games created with every seat bound, recovery of a replica that died
mid-match, and replicas racing over one Redis."""

from __future__ import annotations

import asyncio
import math
import os
import signal
import subprocess
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
import ramino
from ramino import reasons
from ramino.app import GameApp
from ramino.app.names import MAX_NAME, checked_name
from ramino.app.quick.matchmaker import DEAL_TRIES, Matchmaker
from ramino.app.quick.policy import form, window
from ramino.app.quick.queues import MatchmakerConfig, QueueSpec
from ramino.app.quick.tickets import Ticket
from ramino.engine import InvalidSetup, Resign, trial_deal
from ramino.errors import BadRequest, NotFound
from ramino.store import Store, VersionConflict, open_store
from ramino.store.redis import RedisStore
from ramino.store.tickets import (
    CANCELLED,
    EXPIRED,
    MATCHED,
    MATCHING,
    WAITING,
    Match,
    MemoryTickets,
    new_ticket_id,
    tickets_beside,
)

from tests.service.test_stores import redis_store
from tests.support.redis_server import RedisServer

RUMMY = QueueSpec("rummy", {}, rated=True)
# Its tickets are submitted here, followed by no stream: none of its own grace.
CONFIG = MatchmakerConfig(settle=5.0, bots_after=30.0, window_interval=10.0, grace=None)


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass
class Replica:
    app: GameApp
    matchmaker: Matchmaker

    async def close(self) -> None:
        await self.matchmaker.tickets.close()
        await self.app.close()


def replica(store: Store, clock: Callable[[], float], config: MatchmakerConfig = CONFIG) -> Replica:
    app = GameApp(store, clock=clock, run_duties=False)
    mm = Matchmaker(tickets_beside(store), store, app.lobby, app.ratings, clock, config)
    return Replica(app, mm)


@pytest.fixture
async def one() -> AsyncIterator[tuple[Replica, Clock]]:
    clock = Clock()
    r = replica(open_store("memory"), clock)
    yield r, clock
    await r.close()


def t(
    player: str, at: float, low: int = 2, high: int = 4, rating: float = 0.0, **props: str
) -> Ticket:
    return Ticket(new_ticket_id("q"), player, player, "q", low, high, props, rating, at)


# --- forming groups (pure) ---------------------------------------------------


def test_a_full_table_starts_at_once_oldest_first() -> None:
    waiting = [t(f"p{i}", float(i)) for i in range(6)]
    groups = form(waiting, 6.0, CONFIG)
    assert [[x.player_id for x in g] for g, _ in groups] == [["p0", "p1", "p2", "p3"]]


def test_a_partial_table_waits_to_settle() -> None:
    waiting = [t("a", 0.0), t("b", 1.0)]
    assert form(waiting, 4.0, CONFIG) == []
    ((group, bots),) = form(waiting, 5.0, CONFIG)
    assert [x.player_id for x in group] == ["a", "b"] and bots == 0


def test_seat_counts_must_overlap() -> None:
    waiting = [t("a", 0.0, 2, 2), t("b", 1.0, 3, 4), t("c", 2.0, 2, 3)]
    groups = form(waiting, 100.0, replace(CONFIG, bots_after=None))
    assert [[x.player_id for x in g] for g, _ in groups] == [["a", "c"]]


def test_a_ticket_joins_only_where_the_table_stays_within_its_count() -> None:
    # Two 2-4 tickets, then one that plays heads-up only: it must not make a third.
    waiting = [t("a", 0.0, 2, 4), t("b", 1.0, 2, 4), t("c", 2.0, 2, 2), t("d", 3.0, 2, 4)]
    # a, b and d make no full table of four yet; c's table of two is full at
    # once with the oldest ticket that fits it, seated in order of arrival.
    assert [([x.player_id for x in g], b) for g, b in form(waiting, 2.5, CONFIG)] == [
        (["a", "c"], 0)
    ]
    for g, b in form(waiting, 100.0, replace(CONFIG, bots_after=None)):
        assert all(x.min_seats <= len(g) + b <= x.max_seats for x in g)


def test_properties_must_agree_where_both_set_them() -> None:
    waiting = [t("a", 0.0, region="eu"), t("b", 1.0, region="us"), t("c", 2.0)]
    groups = form(waiting, 100.0, replace(CONFIG, bots_after=None))
    assert [[x.player_id for x in g] for g, _ in groups] == [["a", "c"]]


def test_the_rating_window_widens_with_waiting() -> None:
    c = CONFIG
    assert [window(w, c) for w in (0, 9.9, 10, 25, 10_000)] == [3.0, 3.0, 6.0, 9.0, 60.0]
    far = [t("a", 0.0, 2, 2, rating=0.0), t("b", 0.0, 2, 2, rating=8.0)]
    no_bots = replace(c, bots_after=None)
    assert form(far, 15.0, no_bots) == []  # 6 points apart at most after 10 s
    assert len(form(far, 20.0, no_bots)) == 1  # 9 after 20 s
    # The longer waiter's window decides: a newcomer does not hold it back.
    mixed = [t("old", 0.0, 2, 2, rating=0.0), t("new", 19.0, 2, 2, rating=8.0)]
    assert len(form(mixed, 20.0, no_bots)) == 1


def test_bots_fill_after_the_wait_and_one_player_never_plays_himself() -> None:
    alone = [t("a", 0.0, 3, 4), t("a", 1.0, 3, 4)]
    assert form(alone, 29.0, CONFIG) == []
    ((group, bots),) = form(alone, 30.0, CONFIG)
    assert [x.player_id for x in group] == ["a"] and bots == 2
    assert form(alone, 1000.0, replace(CONFIG, bots_after=None)) == []


# --- the matchmaker over a store --------------------------------------------


async def test_four_tickets_make_one_game_with_every_seat_bound(one: tuple[Replica, Clock]) -> None:
    r, clock = one
    mm = r.matchmaker
    tickets = []
    for i in range(4):
        clock.now += 0.1  # oldest first: the seats in order of arrival
        tickets.append(await mm.submit(f"player-{i}", f"P{i}", RUMMY, 2, 4))
    (match,) = await mm.run_once()
    done = [await mm.ticket(f"player-{i}", x.ticket_id) for i, x in enumerate(tickets)]
    assert {d.state for d in done} == {MATCHED} and [d.seat for d in done] == [0, 1, 2, 3]
    (game_id,) = {d.game_id for d in done}
    game = await r.app.load(game_id)
    assert game.open_seats == [] and game.engine is not None  # seated and dealt
    assert game.player_ids == {i: f"player-{i}" for i in range(4)}
    assert game.header.rated and game.header.turn_timer_seconds == CONFIG.turn_timer_seconds
    assert await mm.tickets.forming(match.queue) == [] and await mm.run_once() == []


async def test_bots_fill_a_game_after_the_wait(one: tuple[Replica, Clock]) -> None:
    r, clock = one
    mine = await r.matchmaker.submit("ann", "Ann", RUMMY, 2, 3)
    assert await r.matchmaker.run_once() == []
    clock.now += CONFIG.bots_after or 0
    (match,) = await r.matchmaker.run_once()
    got = await r.matchmaker.ticket("ann", mine.ticket_id)
    game = await r.app.load(got.game_id)
    assert [s.bot for s in game.header.seats] == [None, "greedy"]
    assert game.player_ids == {0: "ann"}


async def test_a_queue_without_bots_waits_for_people(one: tuple[Replica, Clock]) -> None:
    r, clock = one
    people = QueueSpec("rummy", {}, rated=True, bots=False)
    assert people.key != RUMMY.key  # its tickets meet only each other
    mine = await r.matchmaker.submit("ann", "Ann", people, 2, 3)
    clock.now += 5 * (CONFIG.bots_after or 0)  # long past the bots' wait
    assert await r.matchmaker.run_once() == []
    assert (await r.matchmaker.ticket("ann", mine.ticket_id)).state == WAITING
    await r.matchmaker.submit("bob", "Bob", people, 2, 3)
    (match,) = await r.matchmaker.run_once()
    assert all(s.bot is None for s in match.seats)


async def test_waiting_too_long_expires_a_ticket(one: tuple[Replica, Clock]) -> None:
    r, clock = one
    config = replace(CONFIG, bots_after=None)
    r.matchmaker.config = config
    mine = await r.matchmaker.submit("ann", "Ann", RUMMY, 2, 2)
    clock.now += config.ticket_ttl
    assert await r.matchmaker.run_once() == []
    assert (await r.matchmaker.ticket("ann", mine.ticket_id)).state == EXPIRED


async def test_another_players_ticket_is_unknown_to_them(one: tuple[Replica, Clock]) -> None:
    r, _ = one
    mine = await r.matchmaker.submit("ann", "Ann", RUMMY, 2, 2)
    for call in (r.matchmaker.ticket, r.matchmaker.cancel):
        with pytest.raises(NotFound) as err:
            await call("mallory", mine.ticket_id)
        assert err.value.reason == reasons.TICKET_NOT_FOUND
    for forged in ("", "x" * 5000, new_ticket_id(RUMMY.key), "../" + mine.ticket_id):
        with pytest.raises(NotFound):
            await r.matchmaker.cancel("ann", forged)
    assert (await r.matchmaker.ticket("ann", mine.ticket_id)).state == WAITING


async def test_a_cancel_replayed_answers_the_same(one: tuple[Replica, Clock]) -> None:
    r, _ = one
    mine = await r.matchmaker.submit("ann", "Ann", RUMMY, 2, 2)
    first = await r.matchmaker.cancel("ann", mine.ticket_id)
    again = await r.matchmaker.cancel("ann", mine.ticket_id)
    assert first == again and first.state == CANCELLED


async def test_a_flood_of_tickets_is_bounded_per_player(one: tuple[Replica, Clock]) -> None:
    r, _ = one
    limit = CONFIG.max_tickets_per_player
    for _ in range(limit):
        await r.matchmaker.submit("ann", "Ann", RUMMY, 2, 2)
    for _ in range(20):
        with pytest.raises(BadRequest) as err:
            await r.matchmaker.submit("ann", "Ann", RUMMY, 2, 2)
        assert err.value.reason == reasons.TOO_MANY_TICKETS
    assert await r.matchmaker.tickets.active("ann") == limit
    await r.matchmaker.submit("bob", "Bob", RUMMY, 2, 2)


@pytest.mark.parametrize(
    ("player", "name", "spec", "low", "high", "props", "reason"),
    [
        ("", "Ann", RUMMY, 2, 2, {}, reasons.PLAYER_REQUIRED),
        ("ann", " ", RUMMY, 2, 2, {}, reasons.BAD_PLAYER_NAME),
        ("ann", "Ann", RUMMY, 1, 2, {}, reasons.BAD_SEAT_COUNTS),
        ("ann", "Ann", RUMMY, 4, 3, {}, reasons.BAD_SEAT_COUNTS),
        ("ann", "Ann", RUMMY, 2, 7, {}, reasons.BAD_SEAT_COUNTS),
        ("ann", "Ann", QueueSpec("gin", {}, True), 2, 3, {}, reasons.BAD_SEAT_COUNTS),
        (
            "ann",
            "Ann",
            RUMMY,
            2,
            2,
            {f"k{i}": "v" for i in range(9)},
            reasons.BAD_TICKET_PROPERTIES,
        ),
        ("ann", "Ann", RUMMY, 2, 2, {"region": "x" * 33}, reasons.BAD_TICKET_PROPERTIES),
        ("ann", "Ann", RUMMY, 2, 2, {"": "eu"}, reasons.BAD_TICKET_PROPERTIES),
    ],
)
async def test_a_bad_ticket_is_refused_and_changes_nothing(
    one: tuple[Replica, Clock],
    player: str,
    name: str,
    spec: QueueSpec,
    low: int,
    high: int,
    props: dict[str, str],
    reason: str,
) -> None:
    r, _ = one
    with pytest.raises(BadRequest) as err:
        await r.matchmaker.submit(player, name, spec, low, high, props)
    assert err.value.reason == reason
    assert await r.matchmaker.tickets.queues() == []


async def test_an_unknown_variant_is_refused(one: tuple[Replica, Clock]) -> None:
    r, _ = one
    with pytest.raises(ValueError, match="nosuch"):
        await r.matchmaker.submit("ann", "Ann", QueueSpec("nosuch", {}, True), 2, 2)
    assert await r.matchmaker.tickets.queues() == []


async def test_a_match_left_claimed_is_finished_by_the_next_pass(
    one: tuple[Replica, Clock],
) -> None:
    # A replica that died right after its claim: the match is forming.
    r, clock = one
    a = await r.matchmaker.submit("ann", "Ann", RUMMY, 2, 2)
    b = await r.matchmaker.submit("bob", "Bob", RUMMY, 2, 2)
    match = r.matchmaker._match([a, b], 0, clock())
    assert await r.matchmaker.tickets.claim(match)
    assert (await r.matchmaker.ticket("ann", a.ticket_id)).state == MATCHING
    (finished,) = await r.matchmaker.run_once()
    assert finished == match
    got = [await r.matchmaker.ticket(p, x.ticket_id) for p, x in (("ann", a), ("bob", b))]
    assert {g.state for g in got} == {MATCHED} and len({g.game_id for g in got}) == 1


async def test_a_game_created_but_not_marked_is_found_again(one: tuple[Replica, Clock]) -> None:
    # A replica that died after creating the game, before marking the tickets.
    r, clock = one
    a = await r.matchmaker.submit("ann", "Ann", RUMMY, 2, 2)
    b = await r.matchmaker.submit("bob", "Bob", RUMMY, 2, 2)
    match = r.matchmaker._match([a, b], 0, clock())
    assert await r.matchmaker.tickets.claim(match)
    complete = r.matchmaker.tickets.complete

    async def died(m: Match, game_id: str, now: float) -> bool:
        raise ConnectionError("killed")

    r.matchmaker.tickets.complete = died  # type: ignore[method-assign]
    with pytest.raises(ConnectionError):
        await r.matchmaker.finish(match)
    r.matchmaker.tickets.complete = complete  # type: ignore[method-assign]
    (again,) = await r.matchmaker.run_once()
    got = await r.matchmaker.ticket("ann", a.ticket_id)
    game = await r.app.load(got.game_id)
    assert game.version >= 2 and game.open_seats == [] and game.engine is not None
    page = await r.app.store.list_games(100)
    assert [g.game_id for g in page.games] == [got.game_id]  # one game, not two


async def test_a_rated_game_left_unrecorded_is_recorded_by_a_later_pass(
    one: tuple[Replica, Clock],
) -> None:
    # The replica of the game's last move died before recording its ratings.
    r, clock = one
    a = await r.matchmaker.submit("ann", "Ann", RUMMY, 2, 2)
    await r.matchmaker.submit("bob", "Bob", RUMMY, 2, 2)
    await r.matchmaker.run_once()
    game_id = (await r.matchmaker.ticket("ann", a.ticket_id)).game_id
    r.app.cache.life.ratings = None
    await r.app.move(game_id, 1, Resign(), None, None)
    assert await r.app.ratings.store.recorded(game_id) is None
    await r.matchmaker.run_once()  # looked at too soon: not yet
    assert await r.app.ratings.store.recorded(game_id) is None
    clock.now += r.matchmaker.config.look_every + 1
    await r.matchmaker.run_once()
    recorded = await r.app.ratings.store.recorded(game_id)
    assert recorded is not None and recorded.rated
    assert (await r.app.ratings.rating("rummy", "ann")).games == 1
    assert await r.matchmaker.tickets.in_play(RUMMY.key, 1e12, 10) == []


# --- tickets nobody follows (their players gone) ----------------------------

FOLLOWED = replace(CONFIG, grace=2.0, bots_after=None)
"""Tickets followed by streams, which note it in the store (``touch``)."""


@pytest.fixture(params=["memory", "sqlite", "redis", "redis-cluster"])
async def each(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[Replica, Clock]]:
    clock = Clock()
    kind = request.param
    if kind.startswith("redis"):
        store: Store = redis_store(request, kind)
    else:
        store = open_store("memory" if kind == "memory" else f"sqlite:{tmp_path / 'games.db'}")
    r = replica(store, clock, FOLLOWED)
    yield r, clock
    await r.close()


async def test_a_ticket_nobody_followed_for_the_grace_is_cancelled_before_matching(
    each: tuple[Replica, Clock],
) -> None:
    r, clock = each
    mm = r.matchmaker
    gone = await mm.submit("ann", "Ann", RUMMY, 2, 2)
    await mm.tickets.touch(gone.ticket_id, clock.now + 0.5)  # then its stream went away
    clock.now += 0.5 + (FOLLOWED.grace or 0) + 0.1
    # A newcomer whose table ann would fill: ann is cancelled first, in the
    # same pass, and the newcomer waits for a player who is there.
    bob = await mm.submit("bob", "Bob", RUMMY, 2, 2)
    assert await mm.run_once() == []
    assert (await mm.ticket("ann", gone.ticket_id)).state == CANCELLED
    assert (await mm.ticket("bob", bob.ticket_id)).state == WAITING
    cid = await mm.submit("cid", "Cid", RUMMY, 2, 2)
    (match,) = await mm.run_once()
    assert set(match.ticket_ids) == {bob.ticket_id, cid.ticket_id}


async def test_a_ticket_never_followed_is_cancelled_after_the_grace(
    each: tuple[Replica, Clock],
) -> None:
    # Submitted, and the replica died before its stream first noted it.
    r, clock = each
    mine = await r.matchmaker.submit("ann", "Ann", RUMMY, 2, 3)
    clock.now += FOLLOWED.grace or 0
    assert await r.matchmaker.run_once() == []
    assert (await r.matchmaker.ticket("ann", mine.ticket_id)).state == WAITING  # just in it
    clock.now += 0.1
    assert await r.matchmaker.run_once() == []
    assert (await r.matchmaker.ticket("ann", mine.ticket_id)).state == CANCELLED
    assert await r.matchmaker.tickets.queues() == []


async def test_a_followed_ticket_waits_past_the_grace_and_is_matched(
    each: tuple[Replica, Clock],
) -> None:
    r, clock = each
    mm = r.matchmaker
    mine = await mm.submit("ann", "Ann", RUMMY, 2, 2)
    for _ in range(5):  # five graces, its stream noting it every second
        for _ in range(round(FOLLOWED.grace or 0)):
            clock.now += 1.0
            await mm.tickets.touch(mine.ticket_id, clock.now)
            assert await mm.run_once() == []
    assert (await mm.ticket("ann", mine.ticket_id)).state == WAITING
    await mm.submit("bob", "Bob", RUMMY, 2, 2)
    (match,) = await mm.run_once()
    assert mine.ticket_id in match.ticket_ids


def test_a_grace_that_is_not_a_positive_time_is_refused() -> None:
    for bad in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="grace"):
            MatchmakerConfig(grace=bad)
    assert MatchmakerConfig().grace == 10.0 and MatchmakerConfig(grace=None).grace is None


# --- replicas over one Redis -------------------------------------------------


def redis_replicas(server: RedisServer, n: int, clock: Clock) -> list[Replica]:
    prefix = f"test-{uuid.uuid4().hex}:"
    return [replica(RedisStore(server.url, prefix=prefix), clock) for _ in range(n)]


async def check_every_game_fully_seated(replicas: list[Replica], tickets: list[Ticket]) -> None:
    r = replicas[0]
    seen: dict[str, list[str]] = {}
    for x in tickets:
        got = await r.matchmaker.ticket(x.player_id, x.ticket_id)
        assert got.state == MATCHED, got
        seen.setdefault(got.game_id, []).append(x.player_id)
    for game_id, players in seen.items():
        game = await r.app.load(game_id)
        assert game.open_seats == [] and game.engine is not None
        assert sorted(game.player_ids.values()) == sorted(players)
    # Each ticket in one game: the games' players add up to the tickets.
    assert sum(len(p) for p in seen.values()) == len(tickets)


async def test_two_replicas_race_over_200_tickets(redis_server: RedisServer) -> None:
    clock = Clock()
    replicas = redis_replicas(redis_server, 2, clock)
    tickets = [
        await replicas[i % 2].matchmaker.submit(f"p{i:03d}", f"P{i}", RUMMY, 2, 4)
        for i in range(200)
    ]
    clock.now += CONFIG.settle
    queue = RUMMY.key
    for _ in range(10):
        # Each pass straight at the queue, without its lease: only the claim
        # keeps the two apart.
        await asyncio.gather(*(r.matchmaker._pass(queue) for r in replicas))
    await check_every_game_fully_seated(replicas, tickets)
    for r in replicas:
        await r.close()


async def test_a_replica_killed_mid_match_loses_and_doubles_nothing(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    prefix = f"test-{uuid.uuid4().hex}:"
    clock = Clock()
    survivor = replica(RedisStore(redis_server.url, prefix=prefix), clock)
    tickets = [await survivor.matchmaker.submit(f"p{i}", f"P{i}", RUMMY, 2, 2) for i in range(40)]
    # The victim matches with a store whose `complete` hangs after the tenth
    # game: it is killed (-9) there, games created, tickets not all marked.
    ready = tmp_path / "ready"
    code = textwrap.dedent(
        f"""
        import asyncio, pathlib
        from ramino.app import GameApp
        from ramino.app.quick.matchmaker import Matchmaker
        from ramino.app.quick.queues import MatchmakerConfig
        from ramino.store.redis import RedisStore
        from ramino.store.tickets import tickets_beside

        async def main():
            store = RedisStore({redis_server.url!r}, prefix={prefix!r})
            app = GameApp(store, clock=lambda: {clock.now + 10.0!r}, run_duties=False)
            tickets = tickets_beside(store)
            done = 0
            complete = tickets.complete
            async def hang(match, game_id, now):
                nonlocal done
                done += 1
                if done > 10:
                    pathlib.Path({str(ready)!r}).write_text("x")
                    await asyncio.Event().wait()
                return await complete(match, game_id, now)
            tickets.complete = hang
            mm = Matchmaker(tickets, store, app.lobby, app.ratings, app.cache.clock,
                            MatchmakerConfig(lease_ttl=1.0, grace=None))
            await mm.run_once()

        asyncio.run(main())
        """
    )
    victim = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        for _ in range(600):
            if ready.exists() or victim.poll() is not None:
                break
            await asyncio.sleep(0.05)
        assert ready.exists(), "the victim never reached its eleventh game"
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait()
    finally:
        if victim.poll() is None:
            os.killpg(victim.pid, signal.SIGKILL)
            victim.wait()
    forming = await survivor.matchmaker.tickets.forming(RUMMY.key)
    assert len(forming) == 1
    clock.now += 10.0
    # The queue's lease runs out (1 s) and the survivor takes the queue.
    for _ in range(100):
        if await survivor.matchmaker.run_once():
            break
        await asyncio.sleep(0.05)
    while await survivor.matchmaker.run_once():
        pass
    await check_every_game_fully_seated([survivor], tickets)
    page = await survivor.app.store.list_games(100)
    assert len(page.games) == 20  # forty tickets, twenty games: none made twice
    await survivor.close()


async def test_a_deal_that_keeps_losing_its_race_gives_up_after_deal_tries(
    one: tuple[Replica, Clock],
) -> None:
    """``_dealt`` retries a deal that lost a race to another writer a bounded
    number of times, then lets the conflict out (the match stays forming,
    for the next pass), instead of spinning for ever."""
    r, _ = one
    calls: list[str] = []

    async def always_behind(game_id: str) -> object:
        calls.append(game_id)
        raise VersionConflict(game_id, 1, 2)

    r.app.lobby.deal_if_full = always_behind  # type: ignore[method-assign,assignment]
    with pytest.raises(VersionConflict):
        await r.matchmaker._dealt("g1")
    assert calls == ["g1"] * DEAL_TRIES


def test_the_trial_deal_refuses_what_no_game_could_deal() -> None:
    """One trial deal (``ramino.engine.trial_deal``) checks the lobby's games
    and the matchmaker's seat counts alike."""
    trial_deal("rummy", {}, 2)
    with pytest.raises(InvalidSetup):
        trial_deal("rummy", {}, 9)
    with pytest.raises(ramino.VariantError):
        trial_deal("nosuch", {}, 2)


def test_one_player_name_check_for_games_and_tickets() -> None:
    assert checked_name("  Ann ") == "Ann"
    for bad in ("", "   ", "x" * (MAX_NAME + 1)):
        with pytest.raises(BadRequest) as err:
            checked_name(bad, 3)
        assert err.value.reason == reasons.BAD_PLAYER_NAME and "seat 3" in str(err.value)


async def test_the_matchmaker_stops_even_when_a_pass_swallows_its_cancellation() -> None:
    """A store's client may swallow a cancellation that lands as it answers
    (redis-py's reads, Python 3.11's ``wait_for``): ``stop`` still ends the
    loop, by its flag, instead of waiting for ever."""

    class Swallowing(MemoryTickets):
        async def queues(self) -> list[str]:
            try:
                await asyncio.sleep(10)  # the pass is here when stop comes
            except asyncio.CancelledError:
                swallowed.append(True)
            return []

    swallowed: list[bool] = []
    store = open_store("memory")
    app = GameApp(store, run_duties=False)
    mm = Matchmaker(Swallowing(), store, app.lobby, app.ratings, Clock(), CONFIG)
    mm.start()
    await asyncio.sleep(0.05)
    await asyncio.wait_for(mm.stop(), 5)
    assert swallowed == [True]
    await app.close()
