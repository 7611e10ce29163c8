"""Ratings of finished games (``ramino.app.quick.ratings``): the final ranking
(resigned and timed-out seats lose), which games are rated, and one update
per game whichever replica reports it."""

from __future__ import annotations

import uuid

import pytest
from ramino.app import GameApp, SeatSpec
from ramino.app.quick.ratings import finished_game, new_rating
from ramino.engine import Resign
from ramino.store import open_store
from ramino.store.redis import RedisStore

from tests.support.redis_server import RedisServer

PEOPLE = ("ann", "bob", "cid")


async def seated(
    app: GameApp, people: tuple[str, ...] = PEOPLE, rated: bool = True, bots: int = 0
) -> str:
    seats = [SeatSpec("", None) for _ in people] + [SeatSpec("", "greedy")] * bots
    game = await app.lobby.create("rummy", {}, seats, rated=rated)
    for i, p in enumerate(people):
        await app.join(game.game_id, i, f"name-{p}", player_id=p)
    return game.game_id


async def resign(app: GameApp, game_id: str, seat: int) -> None:
    await app.move(game_id, seat, Resign(), None, None)


async def test_resigning_players_lose_and_tie_last() -> None:
    app = GameApp(open_store("memory"), run_duties=False)
    gid = await seated(app)
    await resign(app, gid, 0)
    assert await app.ratings.store.recorded(gid) is None  # not over yet
    await resign(app, gid, 1)
    recorded = await app.ratings.store.recorded(gid)
    assert recorded is not None and recorded.rated
    assert [(s.player_id, s.rank, s.lost) for s in recorded.seats] == [
        ("ann", 2, True),
        ("bob", 2, True),
        ("cid", 1, False),
    ]
    ann, bob, cid = [await app.ratings.rating("rummy", p) for p in PEOPLE]
    assert cid.mu > new_rating().mu > ann.mu
    assert ann.mu == pytest.approx(bob.mu)
    assert [ann.games, bob.games, cid.games] == [1, 1, 1]
    # Reported again (another replica, a retry): nothing changes.
    assert not await app.ratings.game_finished(await app.load(gid))
    assert (await app.ratings.rating("rummy", "cid")) == cid
    assert await app.ratings.rank("rummy", "cid") == 1
    (entry,) = await app.ratings.history("cid", 10)
    assert entry.before is None and entry.after == cid
    await app.close()


async def test_a_timed_out_seat_loses() -> None:
    app = GameApp(open_store("memory"), run_duties=False)
    gid = await seated(app, ("ann", "bob"))
    await resign(app, gid, 0)
    game = await app.load(gid)
    game.timed_out.add(1)  # bob's timer ran out and he never came back
    finished = finished_game(game, 2.0)
    assert finished is not None
    assert [(s.rank, s.lost) for s in finished.seats] == [(1, True), (1, True)]
    await app.close()


@pytest.mark.parametrize("why", ["abandoned", "cancelled"])
async def test_a_game_ended_before_its_match_changes_nothing(why: str) -> None:
    app = GameApp(open_store("memory"), run_duties=False)
    gid = await seated(app)
    await app.end(gid, why)
    game = await app.load(gid)
    assert finished_game(game, 1.0) is None
    assert not await app.ratings.game_finished(game)
    assert await app.ratings.store.recorded(gid) is None
    assert await app.ratings.history("ann", 10) == []
    await app.close()


async def test_which_games_are_rated() -> None:
    app = GameApp(open_store("memory"), run_duties=False)
    unrated = await seated(app, ("ann", "bob"), rated=False)
    await resign(app, unrated, 0)
    alone = await seated(app, ("ann",), bots=1)
    await resign(app, alone, 0)
    with_bot = await seated(app, ("ann", "bob"), bots=1)
    await resign(app, with_bot, 2)
    await resign(app, with_bot, 0)
    for gid, rated in [(unrated, False), (alone, False), (with_bot, True)]:
        recorded = await app.ratings.store.recorded(gid)
        assert recorded is not None and recorded.rated == rated, gid
    # Only the rated game moved ann's rating; the bot has none.
    ann = await app.ratings.rating("rummy", "ann")
    assert ann.games == 1 and ann.mu < new_rating().mu
    assert [h.after is not None for h in await app.ratings.history("ann", 10)].count(True) == 1
    await app.close()


async def test_a_test_servers_fixed_deal_is_never_rated() -> None:
    app = GameApp(open_store("memory"), run_duties=False, test_seed=7)
    gid = await seated(app, ("ann", "bob"))
    await resign(app, gid, 0)
    recorded = await app.ratings.store.recorded(gid)
    assert recorded is not None and not recorded.rated
    await app.close()


async def test_two_replicas_report_a_game_once(redis_server: RedisServer) -> None:
    prefix = f"test-{uuid.uuid4().hex}:"
    one = GameApp(RedisStore(redis_server.url, prefix=prefix), run_duties=False)
    two = GameApp(RedisStore(redis_server.url, prefix=prefix), run_duties=False)
    gid = await seated(one, ("ann", "bob"))
    await resign(two, gid, 1)  # replica two ends the match, and records it
    game = await one.load(gid)
    assert not await one.ratings.game_finished(game)
    assert not await two.ratings.game_finished(game)
    ann = await one.ratings.rating("rummy", "ann")
    assert ann.games == 1 and ann.mu > new_rating().mu
    await one.close()
    await two.close()
