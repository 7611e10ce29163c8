"""joinOrCreate (issue 34): a quick-play ticket takes an open seat of a
lobby table of its queue whose creator let quick play fill it, before a new
game is dealt; a seat lost to someone else gives the ticket back to the
waiting (``TicketStore.release``); replicas racing over one Redis never seat
two tickets in one seat."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from ramino import reasons
from ramino.app import SeatSpec
from ramino.app.hosted import HostedGame
from ramino.app.log import Header
from ramino.app.quick.policy import table_seat
from ramino.app.quick.queues import QueueSpec, table_queues
from ramino.app.quick.ratings import Rating
from ramino.app.quick.tickets import Ticket
from ramino.store import Store, open_store
from ramino.store.redis import RedisStore
from ramino.store.tickets import MATCHED, MATCHING, WAITING, Match, MatchSeat
from ramino.v1 import game_pb2, match_pb2

from tests.service.conftest import auth, reason_of
from tests.service.test_match_api import Quick, player, serving, submit, until_final
from tests.service.test_matchmaker import RUMMY, Clock, Replica, replica
from tests.service.test_stores import redis_store
from tests.support.redis_server import RedisServer

WITHOUT_BOTS = QueueSpec("rummy", {}, rated=True, bots=False)


@pytest.fixture
async def quick() -> AsyncIterator[Quick]:
    async with contextlib.asynccontextmanager(serving)(open_store("memory")) as q:
        yield q


async def table(q: Quick, seats: int = 2, **fields: object) -> game_pb2.CreateGameResponse:
    """A public table of ``seats`` rummy seats, Ann in the first."""
    request = game_pb2.CreateGameRequest(
        variant="rummy",
        seats=[game_pb2.SeatConfig() for _ in range(seats)],
        **{"rated": True, "quick_play": True, "turn_timer_seconds": 60, **fields},  # type: ignore[arg-type]
    )
    created = await q.games.CreateGame(request, metadata=player("ann"))
    await q.games.JoinGame(
        game_pb2.JoinGameRequest(name=created.game.name, seat=0, player_name="Ann"),
        metadata=player("ann"),
    )
    return created


async def test_a_ticket_takes_the_open_seat_of_a_quick_play_table(quick: Quick) -> None:
    created = await table(quick)
    assert created.game.quick_play
    (*_, last) = await until_final(submit(quick, "bob"))
    assert last.state == match_pb2.TICKET_STATE_MATCHED
    assert (last.game, last.seat) == (created.game.name, 1)
    view = await quick.games.GetGame(
        game_pb2.GetGameRequest(name=last.game), metadata=auth(last.seat_token) + player("bob")
    )
    assert view.view.status == game_pb2.GAME_STATUS_PLAYING and view.view.seat == 1
    # MATCHED names whoever sits at the table already.
    assert [(o.seat, o.player_name, o.player) for o in last.opponents] == [(0, "Ann", "ann")]


def test_a_partys_ticket_takes_no_seat_of_a_table() -> None:
    """A party sits together in a game of its own: a table's one open seat
    is for a ticket of one player."""
    header = Header("g1", "rummy", {}, (SeatSpec("", None), SeatSpec("", None)), 7, 60, 1.0)
    game = HostedGame(header, [None, None], 1, 1.0)
    alone = Ticket("t1", "ann", "Ann", "q", 2, 4, {}, 20.0, 1.0, "rummy")
    assert table_seat(game, alone) == 0
    assert table_seat(game, replace(alone, members=[["bob", "Bob"]])) is None


async def test_a_table_that_does_not_allow_quick_play_is_left_alone(quick: Quick) -> None:
    created = await table(quick, quick_play=False)
    bob, cid = submit(quick, "bob"), submit(quick, "cid")
    got = await asyncio.gather(until_final(bob), until_final(cid))
    games = {updates[-1].game for updates in got}
    assert len(games) == 1 and created.game.name not in games
    assert (await quick.app.load(created.game.name.removeprefix("games/"))).open_seats == [1]


async def test_a_ticket_of_another_queue_or_seat_count_is_not_seated(quick: Quick) -> None:
    unrated = await table(quick, rated=False)
    three = await table(quick, seats=3)
    bob, cid = submit(quick, "bob", max_seats=2), submit(quick, "cid", max_seats=2)
    got = await asyncio.gather(until_final(bob), until_final(cid))
    assert {updates[-1].game for updates in got}.isdisjoint({unrated.game.name, three.game.name})


async def test_a_private_table_cannot_take_quick_play(quick: Quick) -> None:
    request = game_pb2.CreateGameRequest(
        variant="rummy",
        seats=[game_pb2.SeatConfig(), game_pb2.SeatConfig()],
        visibility=game_pb2.VISIBILITY_PRIVATE,
        quick_play=True,
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await quick.games.CreateGame(request, metadata=player("ann"))
    assert reason_of(err.value) == reasons.BAD_VISIBILITY


def test_a_table_with_a_bot_takes_no_ticket_that_wants_people_only() -> None:
    def header(bot: str | None) -> Header:
        seats = (SeatSpec("", None), SeatSpec("", bot))
        return Header("g", "rummy", {}, seats, 1, 0, 0.0, rated=True, quick_play=True)

    assert table_queues(header(None)) == {RUMMY.key, WITHOUT_BOTS.key}
    assert table_queues(header("greedy")) == {RUMMY.key}


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "redis":
        s: Store = redis_store(request, "redis")
    else:
        s = open_store("memory" if request.param == "memory" else f"sqlite:{tmp_path}/g.db")
    yield s


def seat_match(ticket_id: str, player_id: str, game_id: str, seat: int, seats: int) -> Match:
    places = [MatchSeat("", "", "")] * seats
    places[seat] = MatchSeat(ticket_id, player_id, player_id.title())
    return Match(uuid.uuid4().hex, RUMMY.key, "rummy", {}, True, tuple(places), 1000.0, 0, game_id)


async def test_release_gives_a_claimed_ticket_back_to_the_waiting(store: Store) -> None:
    r = replica(store, Clock())
    t = await r.matchmaker.submit("bob", "Bob", RUMMY, 2, 2)
    tickets = r.matchmaker.tickets
    match = seat_match(t.ticket_id, "bob", "g1", 1, 2)
    assert await tickets.claim(match)
    assert (await tickets.ticket(t.ticket_id)).state == MATCHING  # type: ignore[union-attr]
    assert [m.table for m in await tickets.forming(RUMMY.key)] == ["g1"]
    assert await tickets.release(match)
    back = await tickets.ticket(t.ticket_id)
    assert back is not None and back.state == WAITING and back.match_id == ""
    assert [w.ticket_id for w in await tickets.waiting(RUMMY.key)] == [t.ticket_id]
    assert await tickets.forming(RUMMY.key) == []
    # Released once: again, or completed after, changes nothing.
    assert not await tickets.release(match)
    assert not await tickets.complete(match, "g1", 1001.0)
    assert (await tickets.ticket(t.ticket_id)).state == WAITING  # type: ignore[union-attr]
    await r.close()


async def test_tables_are_offered_to_their_queues_and_withdrawn(store: Store) -> None:
    r = replica(store, Clock())
    tickets = r.matchmaker.tickets
    await tickets.offer_table(RUMMY.key, "g2", 1002.0)
    await tickets.offer_table(RUMMY.key, "g1", 1001.0)
    await tickets.offer_table(RUMMY.key, "g1", 1005.0)  # again: no change
    await tickets.offer_table(WITHOUT_BOTS.key, "g3", 1000.0)
    assert await tickets.tables(RUMMY.key, 10) == ["g1", "g2"]
    assert await tickets.tables(RUMMY.key, 1) == ["g1"]
    await tickets.withdraw_table(RUMMY.key, "g1")
    await tickets.withdraw_table(RUMMY.key, "g9")  # never offered: nothing
    assert await tickets.tables(RUMMY.key, 10) == ["g2"]
    assert await tickets.tables(WITHOUT_BOTS.key, 10) == ["g3"]
    await r.close()


async def test_a_table_dealt_or_gone_is_withdrawn_by_the_pass(store: Store) -> None:
    r = replica(store, Clock())
    created = await r.app.open_table(
        "rummy", {}, [SeatSpec("", None)] * 2, 60, rated=True, quick_play=True
    )
    await r.matchmaker.offer_table(created.game)
    await r.matchmaker.tickets.offer_table(RUMMY.key, "0123456789abcdef", 1.0)  # no such game
    for i, who in enumerate(("ann", "eve")):
        await r.app.join(created.game.game_id, i, who.title(), player_id=who)  # dealt
    t = await r.matchmaker.submit("bob", "Bob", RUMMY, 2, 2)
    await r.matchmaker.run_once()
    assert await r.matchmaker.tickets.tables(RUMMY.key, 10) == []
    assert (await r.matchmaker.ticket("bob", t.ticket_id)).state == WAITING
    await r.close()


async def test_a_seat_taken_meanwhile_gives_the_ticket_back(store: Store) -> None:
    r = replica(store, Clock())
    created = await r.app.open_table(
        "rummy", {}, [SeatSpec("", None)] * 2, 60, rated=True, quick_play=True
    )
    game_id = created.game.game_id
    await r.matchmaker.offer_table(created.game)
    t = await r.matchmaker.submit("bob", "Bob", RUMMY, 2, 2)
    # A replica claims the seat's match, then dies; a person takes the seat.
    match = seat_match(t.ticket_id, "bob", game_id, 1, 2)
    assert await r.matchmaker.tickets.claim(match)
    await r.app.join(game_id, 1, "Eve", player_id="eve")
    # The pass finishes the forming match: its seat is lost, the ticket is
    # given back to the waiting, then seated in the seat still open.
    done = await r.matchmaker.run_once()
    assert len(done) == 1 and done[0].match_id != match.match_id
    assert not await r.matchmaker.tickets.release(match)  # released: gone
    got = await r.matchmaker.ticket("bob", t.ticket_id)
    assert (got.state, got.game_id, got.seat) == (MATCHED, game_id, 0)
    game = await r.app.load(game_id)
    assert game.player_ids == {0: "bob", 1: "eve"} and game.engine is not None
    await r.close()


async def test_a_match_finished_twice_seats_its_ticket_once(store: Store) -> None:
    """A replica that died after the seat's join, before the ticket was
    matched: the next replica's finish finds the join by its record."""
    r = replica(store, Clock())
    created = await r.app.open_table(
        "rummy", {}, [SeatSpec("", None)] * 3, 60, rated=True, quick_play=True
    )
    game_id = created.game.game_id
    t = await r.matchmaker.submit("bob", "Bob", RUMMY, 3, 3)
    match = seat_match(t.ticket_id, "bob", game_id, 2, 3)
    assert await r.matchmaker.tickets.claim(match)
    assert await r.matchmaker._finish_table(match) is not None
    # As if the ticket were still forming: the same match finished again.
    again = await r.matchmaker._finish_table(match)
    assert again is not None
    game = await r.app.load(game_id)
    assert game.player_ids == {2: "bob"} and game.open_seats == [0, 1]
    got = await r.matchmaker.ticket("bob", t.ticket_id)
    assert (got.state, got.game_id, got.seat) == (MATCHED, game_id, 2)
    await r.close()


async def test_two_replicas_never_seat_two_tickets_in_one_seat(redis_server: RedisServer) -> None:
    clock = Clock()
    prefix = f"test-{uuid.uuid4().hex}:"
    replicas: list[Replica] = [
        replica(RedisStore(redis_server.url, prefix=prefix), clock) for _ in range(2)
    ]
    one = replicas[0]
    tables = []
    for i in range(3):
        created = await one.app.open_table(
            "rummy", {}, [SeatSpec("", None)] * 4, 60, rated=True, quick_play=True
        )
        await one.app.join(created.game.game_id, 0, f"Host{i}", player_id=f"host{i}")
        await replicas[i % 2].matchmaker.offer_table(created.game)
        tables.append(created.game.game_id)
    tickets = []
    for i in range(14):
        spec = RUMMY if i % 2 else WITHOUT_BOTS
        r = replicas[i % 2]
        tickets.append(await r.matchmaker.submit(f"p{i:02d}", f"P{i}", spec, 4, 4))
    for _ in range(6):
        # Every pass straight at both queues on both replicas at once, without
        # the queues' leases: only the claims and the tables' versions keep
        # them apart.
        await asyncio.gather(
            *(r.matchmaker._pass(q) for r in replicas for q in (RUMMY.key, WITHOUT_BOTS.key))
        )
    seated: dict[tuple[str, int], str] = {}
    for t in tickets:
        got = await one.matchmaker.ticket(t.player_id, t.ticket_id)
        assert got.state in (WAITING, MATCHED), got
        if got.state == MATCHED:
            assert (got.game_id, got.seat) not in seated
            seated[(got.game_id, got.seat)] = t.player_id
    at_tables = 0
    for game_id in tables:
        game = await one.app.load(game_id)
        # Every seat taken at a table is its own ticket's player's, joined
        # once. (How many seats the tables got depends on the races: a
        # ticket that loses one may be formed into a new game in the same
        # pass.)
        taken = [seat for seat in (1, 2, 3) if seat in game.player_ids]
        assert taken == [seat for seat in (1, 2, 3) if seat not in game.open_seats]
        for seat in taken:
            assert seated[(game_id, seat)] == game.player_ids[seat]
        entries = [e.data for e in await one.app.store.read(game_id)]
        assert sum('"kind":"joined"' in e for e in entries) == 1 + len(taken)
        at_tables += len(taken)
    # The first pass to look at the tables seats a ticket there, whoever wins.
    assert at_tables == len([k for k in seated if k[0] in tables]) > 0
    for r in replicas:
        await r.close()


# --- a ticket's own wishes hold at a table (issue 46) ----------------------------


def test_a_tables_seat_is_taken_only_as_the_tickets_clauses_allow() -> None:
    """A table sets no property: a ticket whose must clause (or should
    clause, while it prefers) asks for one takes no seat of it; a must_not
    clause is met by a mate without the property."""
    header = Header("g1", "rummy", {}, (SeatSpec("", None), SeatSpec("", None)), 7, 60, 1.0)
    game = HostedGame(header, [None, None], 1, 1.0)
    alone = Ticket("t1", "ann", "Ann", "q", 2, 4, {}, 20.0, 1.0, "rummy")

    def wanting(occur: str) -> Ticket:
        return replace(alone, clauses=[{"occur": occur, "key": "region", "any_of": ["eu"]}])

    assert table_seat(game, wanting("must"), waited=99.0, prefer_for=10.0) is None
    assert table_seat(game, wanting("should"), waited=1.0, prefer_for=10.0) is None
    assert table_seat(game, wanting("should"), waited=10.0, prefer_for=10.0) == 0
    assert table_seat(game, wanting("must_not"), waited=0.0, prefer_for=10.0) == 0
    # Scores of the people seated: a rating band counts them as mates.
    banded = replace(alone, rating_band=5.0)
    assert table_seat(game, banded, scores=[24.0]) == 0
    assert table_seat(game, banded, scores=[26.0]) is None
    assert table_seat(game, alone, scores=[99.0]) == 0
    # A table offered before tables needed a turn timer, and has none.
    untimed = replace(game, header=replace(header, turn_timer_seconds=0))
    assert table_seat(untimed, alone) is None


async def test_a_ticket_is_never_steered_to_a_table_its_clauses_or_band_refuse(
    quick: Quick, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rated table offered to quick play by a strong player seats neither
    a ticket that must meet players in eu (the table sets no region) nor
    one whose rating band excludes the player sitting there: both wait, and
    the table's seat goes to a ticket that accepts it."""
    ratings = quick.matchmaker._ratings
    fresh = await ratings.rating("rummy", "nobody")

    async def rating(variant: str, player_id: str) -> Rating:
        return Rating(60.0, 1.0) if player_id == "ann" else fresh

    monkeypatch.setattr(ratings, "rating", rating)
    created = await table(quick)
    eu = match_pb2.MatchClause(occur=match_pb2.MatchClause.OCCUR_MUST, key="region")
    eu.any_of.values.append("eu")
    bob = submit(quick, "bob", clauses=[eu])
    await bob.read()  # type: ignore[attr-defined]
    cid = submit(quick, "cid", rating_band=10.0)
    await cid.read()  # type: ignore[attr-defined]
    (*_, last) = await until_final(submit(quick, "dan"))
    assert (last.state, last.game, last.seat) == (
        match_pb2.TICKET_STATE_MATCHED,
        created.game.name,
        1,
    )
    for who in ("bob", "cid"):
        listed = await quick.match.ListTickets(match_pb2.ListTicketsRequest(), metadata=player(who))
        assert [t.state for t in listed.tickets] == [match_pb2.TICKET_STATE_SEARCHING]
    bob.cancel()  # type: ignore[attr-defined]
    cid.cancel()  # type: ignore[attr-defined]


async def test_a_quick_play_table_without_a_turn_timer_is_refused_and_not_created(
    quick: Quick,
) -> None:
    """Quick play's games have a turn timer: a table it fills has one too,
    or its creator could sit there and never move, and every ticket seated
    with them would wait in a game nobody plays (rated or not)."""
    for rated in (False, True):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await table(quick, rated=rated, turn_timer_seconds=0)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        want = reasons.RATED_WITHOUT_TIMER if rated else reasons.QUICK_PLAY_WITHOUT_TIMER
        assert reason_of(err.value) == want
    listed = await quick.games.ListGames(game_pb2.ListGamesRequest(), metadata=player("ann"))
    assert not listed.games
    for bots in (True, False):
        queue = QueueSpec("rummy", {}, rated=False, bots=bots).key
        assert await quick.matchmaker.tickets.tables(queue, 10) == []
    assert (await table(quick, rated=False, turn_timer_seconds=30)).game.quick_play
