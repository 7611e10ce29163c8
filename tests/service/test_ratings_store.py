"""The rating store's contract, run against every store: a finished game is
recorded once by its game id, leaderboards page stably, histories keep the
newest games."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from ramino.app.quick.ratings import rate_placings
from ramino.store.memory import MemoryStore
from ramino.store.ratings import (
    HISTORY_KEPT,
    FinishedGame,
    MemoryRatings,
    RatedSeat,
    RatingRecord,
    RatingStore,
    SqliteRatings,
    ratings_beside,
)
from ramino.store.ratings.redis import RedisRatings
from ramino.store.sqlite import SqliteStore

from tests.service.test_stores import redis_store

STORES = ["memory", "sqlite", "redis", "redis-cluster"]


@pytest.fixture(params=STORES)
async def ratings(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[RatingStore]:
    store: RatingStore
    games = None
    if request.param == "memory":
        store = MemoryRatings()
    elif request.param == "sqlite":
        store = SqliteRatings(tmp_path / "games.db")
    else:
        games = redis_store(request, request.param)
        store = ratings_beside(games)
        assert isinstance(store, RedisRatings)
    yield store
    await store.close()
    if games is not None:
        await games.close()


def game(
    game_id: str,
    ranks: dict[str, int],
    rated: bool = True,
    variant: str = "rummy",
    at: float = 1.0,
) -> FinishedGame:
    seats = tuple(RatedSeat(i, f"name-{p}", p, 10 * r, r) for i, (p, r) in enumerate(ranks.items()))
    return FinishedGame(game_id, variant, at, rated, seats)


def rate(g: FinishedGame):  # type: ignore[no-untyped-def]
    placings = {s.player_id: (s.rank, s.name) for s in g.seats if s.player_id}
    return lambda current: rate_placings(current, placings)


async def record(store: RatingStore, g: FinishedGame) -> bool:
    return await store.record(g, rate(g))


async def test_a_game_is_recorded_once_by_its_id(ratings: RatingStore) -> None:
    g = game("g1", {"ann": 1, "bob": 2})
    assert await record(ratings, g)
    first = await ratings.rating("rummy", "ann")
    assert first is not None and first.games == 1 and first.name == "name-ann"
    # The same game again, even reported with another ranking, changes nothing.
    assert not await record(ratings, game("g1", {"ann": 2, "bob": 1}))
    assert await ratings.rating("rummy", "ann") == first
    assert await ratings.recorded("g1") == g
    assert len(await ratings.history("ann", 10)) == 1


async def test_the_winner_gains_and_the_loser_loses(ratings: RatingStore) -> None:
    await record(ratings, game("g1", {"ann": 1, "bob": 2}))
    ann, bob = await ratings.rating("rummy", "ann"), await ratings.rating("rummy", "bob")
    assert ann is not None and bob is not None
    assert ann.mu > 25 > bob.mu
    assert ann.sigma < 25 / 3 and bob.sigma < 25 / 3


async def test_a_tie_is_a_tie(ratings: RatingStore) -> None:
    await record(ratings, game("g1", {"ann": 1, "bob": 1, "cid": 3}))
    ann, bob = await ratings.rating("rummy", "ann"), await ratings.rating("rummy", "bob")
    cid = await ratings.rating("rummy", "cid")
    assert ann is not None and bob is not None and cid is not None
    assert ann.mu == pytest.approx(bob.mu)
    assert cid.mu < ann.mu


async def test_an_unrated_game_goes_to_the_history_only(ratings: RatingStore) -> None:
    assert await record(ratings, game("g1", {"ann": 1, "bob": 2}, rated=False))
    assert await ratings.rating("rummy", "ann") is None
    assert await ratings.rank("rummy", "ann") is None
    (entry,) = await ratings.history("ann", 10)
    assert entry.before is None and entry.after is None and entry.game.game_id == "g1"


async def test_six_players_and_a_bot(ratings: RatingStore) -> None:
    ranks = {f"p{i}": i + 1 for i in range(6)}
    g = game("g6", ranks)
    bot = RatedSeat(6, "greedy bot", "", 0, 7)
    g = FinishedGame(g.game_id, g.variant, g.finished_at, True, (*g.seats, bot))
    assert await record(ratings, g)
    mus = [r.mu for p in ranks if (r := await ratings.rating("rummy", p)) is not None]
    assert mus == sorted(mus, reverse=True) and len(mus) == 6
    assert [await ratings.rank("rummy", p) for p in ranks] == [1, 2, 3, 4, 5, 6]


async def test_games_finishing_at_once_all_count(ratings: RatingStore) -> None:
    # Twenty games of the same two players reported at once (twice each):
    # every one is rated once, none lost to a race.
    games = [game(f"g{i}", {"ann": 1, "bob": 2}) for i in range(20)]
    answers = await asyncio.gather(*(record(ratings, g) for g in games + games))
    assert sum(answers) == 20
    ann = await ratings.rating("rummy", "ann")
    assert ann is not None and ann.games == 20
    assert len(await ratings.history("ann", 100)) == 20


async def test_the_board_pages_stably(ratings: RatingStore) -> None:
    # 25 players: p00 beats everyone, p01 everyone but p00, ...
    players = [f"p{i:02d}" for i in range(25)]
    for n, a in enumerate(players):
        for b in players[n + 1 :]:
            await record(ratings, game(f"{a}-{b}", {a: 1, b: 2}))
    seen: list[str] = []
    ranks: list[int] = []
    token = ""
    while True:
        page = await ratings.top("rummy", 10, token)
        seen += [e.player_id for e in page.entries]
        ranks += [e.rank for e in page.entries]
        token = page.next_page_token
        if not token:
            break
    assert seen == players
    assert ranks == list(range(1, 26))
    assert [await ratings.rank("rummy", p) for p in players] == ranks
    # A rating that changes between two pages moves no one else.
    first = await ratings.top("rummy", 10)
    await record(ratings, game("late", {"p24": 1, "p23": 2}))
    second = await ratings.top("rummy", 10, first.next_page_token)
    assert [e.player_id for e in second.entries] == players[10:20]


async def test_a_page_around_a_player(ratings: RatingStore) -> None:
    players = [f"p{i}" for i in range(7)]
    for n, a in enumerate(players):
        for b in players[n + 1 :]:
            await record(ratings, game(f"{a}-{b}", {a: 1, b: 2}))
    page = await ratings.around("rummy", "p3", 3)
    assert [(e.rank, e.player_id) for e in page.entries] == [(3, "p2"), (4, "p3"), (5, "p4")]
    assert [e.player_id for e in (await ratings.top("rummy", 5, page.next_page_token)).entries] == [
        "p5",
        "p6",
    ]
    top = await ratings.around("rummy", "p0", 4)
    assert [e.player_id for e in top.entries] == ["p0", "p1", "p2", "p3"]
    assert (await ratings.around("rummy", "nobody", 4)).entries == []


async def test_equal_ratings_are_ordered_by_player_id(ratings: RatingStore) -> None:
    for i, pair in enumerate([("ann", "bob"), ("cid", "dan")]):
        await record(ratings, game(f"g{i}", {pair[0]: 1, pair[1]: 2}))
    page = await ratings.top("rummy", 4)
    # ann and cid have equal ratings, as have bob and dan: the greater id first.
    assert [e.player_id for e in page.entries] == ["cid", "ann", "dan", "bob"]
    assert [e.rank for e in page.entries] == [1, 2, 3, 4]


async def test_boards_and_histories_are_per_variant(ratings: RatingStore) -> None:
    await record(ratings, game("g1", {"ann": 1, "bob": 2}, variant="rummy", at=1.0))
    await record(ratings, game("g2", {"bob": 1, "ann": 2}, variant="rami51", at=2.0))
    rummy, rami = await ratings.rating("rummy", "ann"), await ratings.rating("rami51", "ann")
    assert rummy is not None and rami is not None and rummy.mu > rami.mu
    assert [e.player_id for e in (await ratings.top("rami51", 5)).entries] == ["bob", "ann"]
    assert [h.game.game_id for h in await ratings.history("ann", 10)] == ["g2", "g1"]
    assert [h.game.game_id for h in await ratings.history("ann", 10, "rummy")] == ["g1"]


async def test_a_history_keeps_the_newest_games(ratings: RatingStore) -> None:
    for i in range(HISTORY_KEPT + 5):
        await record(ratings, game(f"g{i:03d}", {"ann": 1, "bob": 2}, at=float(i)))
    kept = await ratings.history("ann", 1000)
    assert len(kept) == HISTORY_KEPT
    assert kept[0].game.game_id == f"g{HISTORY_KEPT + 4:03d}"
    newest = kept[0]
    assert newest.before is not None and newest.after is not None
    assert newest.after.games == newest.before.games + 1 == HISTORY_KEPT + 5


async def test_bad_page_tokens_and_sizes_are_refused(ratings: RatingStore) -> None:
    await record(ratings, game("g1", {"ann": 1, "bob": 2}))
    for token in ["not base64!", "eA==", "x" * 1000, "MDAwMDAwMDAwMHx6eg=="]:
        with pytest.raises(ValueError, match="bad page token"):
            await ratings.top("rummy", 5, token)
    for size in [0, -1, 101]:
        with pytest.raises(ValueError, match="page_size"):
            await ratings.top("rummy", size)


async def test_beside_each_game_store(tmp_path: Path) -> None:
    assert isinstance(ratings_beside(MemoryStore()), MemoryRatings)
    games = SqliteStore(tmp_path / "g.db")
    beside = ratings_beside(games)
    assert isinstance(beside, SqliteRatings)
    await record(beside, game("g1", {"ann": 1, "bob": 2}))
    await beside.close()
    again = ratings_beside(games)
    kept = await again.rating("rummy", "ann")
    assert kept is not None and kept.games == 1 and kept != RatingRecord(25, 25 / 3)
    assert await again.recorded("g1") is not None
    await again.close()
    await games.close()
