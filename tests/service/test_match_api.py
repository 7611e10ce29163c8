"""MatchService over gRPC: a ticket's stream from SEARCHING to MATCHED with
the caller's own seat token, cancel, the reconnect grace, ratings,
leaderboards, histories and a game's whole record; hostile callers."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import grpc
import jwt
import pytest
from ramino import reasons
from ramino.api.auth import PLAYER_TOKEN_KEY, PlayerVerifier, TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.match_servicer import MatchServicer
from ramino.api.server import RunningServer, create_server
from ramino.app import GameApp, SeatSpec
from ramino.app.quick.matchmaker import Matchmaker
from ramino.app.quick.play import QuickPlay
from ramino.app.quick.queues import MatchmakerConfig
from ramino.store import Store, open_store
from ramino.store.redis import RedisStore
from ramino.store.tickets import MemoryTickets, TicketRecord, TicketStore
from ramino.v1 import game_pb2, game_pb2_grpc, match_pb2, match_pb2_grpc

from tests.service.conftest import SECRET, auth, reason_of
from tests.service.test_stores import redis_store

PLAYER_SECRET = b"the-host-s-player-token-secret-32-bytes!"
FAST = MatchmakerConfig(settle=0.0, bots_after=None, tick=0.02, grace=0.3)


def player(name: str) -> tuple[tuple[str, str], ...]:
    now = int(time.time())
    token = jwt.encode({"sub": name, "iat": now, "exp": now + 600}, PLAYER_SECRET, "HS256")
    return ((PLAYER_TOKEN_KEY, token),)


@dataclass
class Quick:
    server: RunningServer
    app: GameApp
    matchmaker: Matchmaker
    servicer: MatchServicer
    match: match_pb2_grpc.MatchServiceStub
    games: game_pb2_grpc.GameServiceStub


async def serving(
    store: Store,
    config: MatchmakerConfig = FAST,
    poll: float | None = 0.02,
    tickets: TicketStore | None = None,
) -> AsyncIterator[Quick]:
    """A server with quick play over ``store``, its matchmaker started with the app."""
    app = GameApp(store, run_duties=False, matchmaker=config, ticket_poll=poll, tickets=tickets)
    assert app.quick is not None
    tokens = TokenIssuer(SECRET)
    players = PlayerVerifier.from_secret(PLAYER_SECRET)
    servicer = MatchServicer(app.quick, tokens, players)
    running = await create_server(
        "127.0.0.1:0", GameServicer(app, tokens, players), matches=servicer
    )
    await app.start()  # the matchmaker starts with the app
    async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        yield Quick(
            running,
            app,
            app.quick.matchmaker,
            servicer,
            match_pb2_grpc.MatchServiceStub(channel),
            game_pb2_grpc.GameServiceStub(channel),
        )
    await running.stop(0)
    await app.close()


@pytest.fixture
async def quick() -> AsyncIterator[Quick]:
    async for q in serving(open_store("memory")):
        yield q


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def quick_on(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Quick]:
    """Quick play over each kind of store (Redis: a real redis-server)."""
    if request.param == "redis":
        store: Store = redis_store(request, "redis")
    else:
        store = open_store("memory" if request.param == "memory" else f"sqlite:{tmp_path}/g.db")
    async for q in serving(store):
        yield q


def submit(q: Quick, who: str, **fields: object) -> object:
    defaults: dict[str, object] = {
        "variant": "rummy",
        "min_seats": 2,
        "rated": True,
        "player_name": who.title(),
    }
    request = match_pb2.SubmitTicketRequest(**{**defaults, **fields})
    return q.match.SubmitTicket(request, metadata=player(who))


async def until_final(stream: object) -> list[match_pb2.TicketUpdate]:
    seen = []
    while (message := await stream.read()) is not grpc.aio.EOF:  # type: ignore[attr-defined]
        seen.append(message.update)
    return seen


async def test_two_tickets_meet_and_each_gets_its_own_seat(quick: Quick) -> None:
    ann, bob = submit(quick, "ann"), submit(quick, "bob")
    got_ann, got_bob = await asyncio.gather(until_final(ann), until_final(bob))
    for updates in (got_ann, got_bob):
        assert updates[0].state == match_pb2.TICKET_STATE_SEARCHING
        assert updates[-1].state == match_pb2.TICKET_STATE_MATCHED
    a, b = got_ann[-1], got_bob[-1]
    assert a.game == b.game and {a.seat, b.seat} == {0, 1}
    # Each seat token plays its own seat, beside its own player token.
    view = await quick.games.GetGame(
        game_pb2.GetGameRequest(name=a.game), metadata=auth(a.seat_token) + player("ann")
    )
    assert view.view.seat == a.seat and len(view.view.hand) > 0
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await quick.games.GetGame(
            game_pb2.GetGameRequest(name=a.game), metadata=auth(a.seat_token) + player("bob")
        )
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    # Bob resigns: Ann wins, both are rated, the record is whole.
    await quick.games.Resign(
        game_pb2.ResignRequest(name=b.game), metadata=auth(b.seat_token) + player("bob")
    )
    rating = await quick.match.GetRating(
        match_pb2.GetRatingRequest(variant="rummy"), metadata=player("ann")
    )
    assert rating.rank == 1 and rating.rating.games == 1 and rating.rating.mu > 25
    board = await quick.match.ListLeaderboard(
        match_pb2.ListLeaderboardRequest(variant="rummy", page_size=10), metadata=player("bob")
    )
    assert [(e.rank, e.player, e.player_name) for e in board.entries] == [
        (1, "ann", "Ann"),
        (2, "bob", "Bob"),
    ]
    assert board.caller_rank == 2 and board.next_page_token == ""
    around = await quick.match.ListLeaderboard(
        match_pb2.ListLeaderboardRequest(variant="rummy", page_size=1, around_caller=True),
        metadata=player("bob"),
    )
    assert [e.player for e in around.entries] == ["bob"]
    history = await quick.match.ListPlayerGames(
        match_pb2.ListPlayerGamesRequest(page_size=5), metadata=player("bob")
    )
    (game,) = history.games
    assert game.game == a.game and game.rated and game.variant == "rummy"
    assert game.rating_after.mu < game.rating_before.mu == 25
    assert [(s.player, s.lost) for s in game.seats][b.seat] == ("bob", True)
    record = await quick.match.GetGameRecord(
        match_pb2.GetGameRecordRequest(name=a.game), metadata=player("bob")
    )
    assert hashlib.sha256(record.seed.encode()).hexdigest() == record.seed_hash
    assert [e.version for e in record.events] == list(range(1, len(record.events) + 1))
    dealt = next(e for e in record.events if e.HasField("round_started"))
    # The hands follow from the seed (the deterministic shuffle), which any
    # client checks against the hash published at creation.
    assert list(dealt.round_started.hand_sizes) == [10, 10]


async def test_a_cancelled_ticket_ends_its_stream(quick: Quick) -> None:
    stream = submit(quick, "ann", min_seats=3, max_seats=3)
    first = (await stream.read()).update  # type: ignore[attr-defined]
    assert first.state == match_pb2.TICKET_STATE_SEARCHING
    cancelled = await quick.match.CancelTicket(
        match_pb2.CancelTicketRequest(ticket=first.ticket), metadata=player("ann")
    )
    assert cancelled.update.state == match_pb2.TICKET_STATE_CANCELLED
    rest = await until_final(stream)
    assert rest[-1].state == match_pb2.TICKET_STATE_CANCELLED
    again = await quick.match.CancelTicket(
        match_pb2.CancelTicketRequest(ticket=first.ticket), metadata=player("ann")
    )
    assert again.update == cancelled.update or again.update.state == cancelled.update.state


async def test_another_players_ticket_is_not_found(quick: Quick) -> None:
    stream = submit(quick, "ann", min_seats=3, max_seats=3)
    first = (await stream.read()).update  # type: ignore[attr-defined]
    for call in (
        quick.match.CancelTicket(
            match_pb2.CancelTicketRequest(ticket=first.ticket), metadata=player("mallory")
        ),
        until_final(
            quick.match.WatchTicket(
                match_pb2.WatchTicketRequest(ticket=first.ticket), metadata=player("mallory")
            )
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await call
        assert err.value.code() == grpc.StatusCode.NOT_FOUND
        assert reason_of(err.value) == reasons.TICKET_NOT_FOUND
    for bad in ("", "tickets/", "games/x", "tickets/a/b"):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await quick.match.CancelTicket(
                match_pb2.CancelTicketRequest(ticket=bad), metadata=player("ann")
            )
        assert reason_of(err.value) == reasons.BAD_TICKET_NAME
    stream.cancel()  # type: ignore[attr-defined]


async def test_a_ticket_outlives_its_stream_only_for_the_grace(quick: Quick) -> None:
    stream = submit(quick, "ann", min_seats=3, max_seats=3)
    first = (await stream.read()).update  # type: ignore[attr-defined]
    stream.cancel()  # type: ignore[attr-defined]
    # Taken up again within the grace: it still waits.
    watch = quick.match.WatchTicket(
        match_pb2.WatchTicketRequest(ticket=first.ticket), metadata=player("ann")
    )
    assert (await watch.read()).update.state == match_pb2.TICKET_STATE_SEARCHING
    await asyncio.sleep((quick.matchmaker.config.grace or 0) * 2)
    ticket_id = first.ticket.removeprefix("tickets/")
    assert (await quick.matchmaker.ticket("ann", ticket_id)).state == "waiting"
    watch.cancel()
    # Left for good: cancelled once the grace is over.
    for _ in range(200):
        if (await quick.matchmaker.ticket("ann", ticket_id)).state == "cancelled":
            break
        await asyncio.sleep(0.02)
    assert (await quick.matchmaker.ticket("ann", ticket_id)).state == "cancelled"


async def test_a_stream_that_polls_no_faster_than_the_grace_is_refused(quick: Quick) -> None:
    """A followed ticket must be noted in the store more often than its
    grace, or any replica's matchmaker would cancel it under its stream."""
    grace = quick.matchmaker.config.grace or 0
    for poll in (grace, grace * 2):
        with pytest.raises(ValueError, match="grace must be longer"):
            QuickPlay(quick.app.cache, quick.app.ratings, quick.matchmaker, poll=poll)
    mm = Matchmaker(
        quick.matchmaker.tickets,
        quick.app.store,
        quick.app.lobby,
        quick.app.ratings,
        time.time,
        replace(FAST, grace=None),
    )
    with pytest.raises(ValueError, match="grace must be longer"):
        QuickPlay(quick.app.cache, quick.app.ratings, mm)


async def test_a_flood_of_streams_and_tickets_is_refused(quick: Quick) -> None:
    streams = [submit(quick, "ann", min_seats=3, max_seats=3) for _ in range(3)]
    firsts = [(await s.read()).update for s in streams]  # type: ignore[attr-defined]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await until_final(submit(quick, "ann", min_seats=3, max_seats=3))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(err.value) == reasons.TOO_MANY_TICKETS
    watches = [
        quick.match.WatchTicket(
            match_pb2.WatchTicketRequest(ticket=firsts[0].ticket), metadata=player("ann")
        )
    ]
    for w in watches:
        await w.read()
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await until_final(submit(quick, "ann", min_seats=3, max_seats=3))
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert reason_of(err.value) == reasons.TOO_MANY_TICKET_STREAMS
    for s in [*streams, *watches]:
        s.cancel()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"min_seats": 7}, reasons.BAD_SEAT_COUNTS),
        ({"min_seats": 3, "max_seats": 2}, reasons.BAD_SEAT_COUNTS),
        ({"properties": {"region": "x" * 40}}, reasons.BAD_TICKET_PROPERTIES),
        ({"player_name": ""}, reasons.BAD_PLAYER_NAME),
    ],
)
async def test_a_bad_ticket_is_refused(
    quick: Quick, fields: dict[str, object], reason: str
) -> None:
    request = match_pb2.SubmitTicketRequest(variant="rummy", min_seats=2, player_name="Ann")
    for key, value in fields.items():
        if key == "properties":
            request.properties.update(value)  # type: ignore[arg-type]
        else:
            setattr(request, key, value)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await until_final(quick.match.SubmitTicket(request, metadata=player("ann")))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(err.value) == reason
    assert await quick.matchmaker.tickets.queues() == []


async def test_every_call_needs_a_player_token(quick: Quick) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await quick.match.GetRating(match_pb2.GetRatingRequest(variant="rummy"))
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await until_final(quick.match.SubmitTicket(match_pb2.SubmitTicketRequest(variant="rummy")))
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED


async def test_bad_reads_are_refused(quick: Quick) -> None:
    for request in (
        match_pb2.ListLeaderboardRequest(variant="rummy", page_size=0),
        match_pb2.ListLeaderboardRequest(variant="rummy", page_size=5, page_token="zz"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await quick.match.ListLeaderboard(request, metadata=player("ann"))
        assert reason_of(err.value) == reasons.BAD_PAGE
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await quick.match.GetRating(
            match_pb2.GetRatingRequest(variant="nosuch"), metadata=player("a")
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await quick.match.GetGameRecord(
            match_pb2.GetGameRecordRequest(name="games/nosuch"), metadata=player("a")
        )
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    waiting = await quick.app.lobby.create("rummy", {}, [SeatSpec("", None)] * 2)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await quick.match.GetGameRecord(
            match_pb2.GetGameRecordRequest(name=f"games/{waiting.game_id}"), metadata=player("a")
        )
    assert reason_of(err.value) == reasons.GAME_NOT_FINISHED


# --- request ids: a retry follows the same ticket -------------------------------


async def live(q: Quick, who: str) -> list[match_pb2.TicketUpdate]:
    found = await q.match.ListTickets(match_pb2.ListTicketsRequest(), metadata=player(who))
    return list(found.tickets)


async def test_a_replayed_request_id_follows_the_same_ticket(quick_on: Quick) -> None:
    q = quick_on
    first = submit(q, "ann", min_seats=3, request_id="press-1")
    ticket = (await first.read()).update.ticket  # type: ignore[attr-defined]
    first.cancel()  # type: ignore[attr-defined]
    again = submit(q, "ann", min_seats=3, request_id="press-1")
    assert (await again.read()).update.ticket == ticket  # type: ignore[attr-defined]
    again.cancel()  # type: ignore[attr-defined]
    assert [t.ticket for t in await live(q, "ann")] == [ticket]
    # The same request id with other fields: refused, nothing made.
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await until_final(submit(q, "ann", min_seats=2, request_id="press-1"))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(err.value) == reasons.REQUEST_ID_REUSED
    assert [t.ticket for t in await live(q, "ann")] == [ticket]


async def test_another_players_request_id_never_sees_the_first_ticket(quick_on: Quick) -> None:
    q = quick_on
    ann = submit(q, "ann", min_seats=3, request_id="press-1")
    ann_ticket = (await ann.read()).update.ticket  # type: ignore[attr-defined]
    bob = submit(q, "bob", min_seats=3, request_id="press-1")
    bob_ticket = (await bob.read()).update.ticket  # type: ignore[attr-defined]
    assert bob_ticket != ann_ticket
    assert [t.ticket for t in await live(q, "bob")] == [bob_ticket]
    assert [t.ticket for t in await live(q, "ann")] == [ann_ticket]
    ann.cancel()  # type: ignore[attr-defined]
    bob.cancel()  # type: ignore[attr-defined]


async def test_a_stream_cut_before_its_first_message_then_retried_makes_one_ticket(
    quick_on: Quick,
) -> None:
    """The ghost seat of issue 34: a SubmitTicket whose ticket was stored
    but whose stream broke before its first message, sent again with its
    request id, follows that ticket; the two meet nobody twice."""
    q = quick_on
    assert q.app.quick is not None
    cut = submit(q, "ann", request_id="press-7")
    for _ in range(500):  # the ticket is in the store, its answer never read
        if await q.app.quick.matchmaker.live("ann"):
            break
        await asyncio.sleep(0.01)
    cut.cancel()  # type: ignore[attr-defined]
    (stored,) = await q.app.quick.matchmaker.live("ann")
    retry = submit(q, "ann", request_id="press-7")
    bob = submit(q, "bob")
    got_ann, got_bob = await asyncio.gather(until_final(retry), until_final(bob))
    assert got_ann[0].ticket == f"tickets/{stored.ticket_id}"
    assert got_ann[-1].state == match_pb2.TICKET_STATE_MATCHED
    assert got_ann[-1].game == got_bob[-1].game
    assert await live(q, "ann") == []
    # Cut at once (stored or not): the retry still makes at most one ticket.
    quick_cut = submit(q, "ann", min_seats=3, request_id="press-8")
    quick_cut.cancel()  # type: ignore[attr-defined]
    again = submit(q, "ann", min_seats=3, request_id="press-8")
    first = (await again.read()).update  # type: ignore[attr-defined]
    assert [t.ticket for t in await live(q, "ann")] == [first.ticket]
    again.cancel()  # type: ignore[attr-defined]


async def test_list_tickets_gives_the_callers_live_tickets_only(quick: Quick) -> None:
    assert await live(quick, "ann") == []
    streams = [submit(quick, "ann", min_seats=3, max_seats=3) for _ in range(2)]
    names = [(await s.read()).update.ticket for s in streams]  # type: ignore[attr-defined]
    bob = submit(quick, "bob", min_seats=3, max_seats=3)
    await bob.read()  # type: ignore[attr-defined]
    listed = await live(quick, "ann")
    assert sorted(t.ticket for t in listed) == sorted(names)
    assert {t.state for t in listed} == {match_pb2.TICKET_STATE_SEARCHING}
    await quick.match.CancelTicket(
        match_pb2.CancelTicketRequest(ticket=names[0]), metadata=player("ann")
    )
    assert [t.ticket for t in await live(quick, "ann")] == [names[1]]
    for s in (*streams, bob):
        s.cancel()  # type: ignore[attr-defined]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await quick.match.ListTickets(match_pb2.ListTicketsRequest())
    assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED


# --- pushed, not polled ----------------------------------------------------------

SLOW_LOOKS = replace(FAST, grace=60.0)
"""A grace, and so slow looks (20 s), far longer than any test waits: what
reaches a stream here was pushed."""


class CountedTickets(MemoryTickets):
    """The memory ticket store, counting the reads of single tickets (what a
    stream does at each look)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def ticket(self, ticket_id: str) -> TicketRecord | None:
        self.reads += 1
        return await super().ticket(ticket_id)


async def test_a_waiting_stream_reads_nothing_until_its_ticket_changes() -> None:
    counted = CountedTickets()
    async for q in serving(open_store("memory"), SLOW_LOOKS, None, counted):
        assert q.app.quick is not None and q.app.quick.poll == 20.0
        ann = submit(q, "ann")
        first = (await ann.read()).update  # type: ignore[attr-defined]
        assert first.state == match_pb2.TICKET_STATE_SEARCHING
        before = counted.reads
        for _ in range(10):  # ten matchmaker passes with nobody to meet
            await q.matchmaker.run_once()
        await asyncio.sleep(0.1)
        assert counted.reads == before  # no read while the ticket waits
        bob = submit(q, "bob")
        got_ann, got_bob = await asyncio.wait_for(
            asyncio.gather(until_final(ann), until_final(bob)), 10
        )
        assert got_ann[-1].state == match_pb2.TICKET_STATE_MATCHED
        assert got_ann[-1].game == got_bob[-1].game
        assert counted.reads - before <= 4  # the wake's read, bob's, and the claim's


@pytest.mark.parametrize("kind", ["redis", "redis-cluster"])
async def test_a_match_made_by_another_replica_is_pushed_over_redis(
    request: pytest.FixtureRequest, kind: str
) -> None:
    """Two replicas on one real Redis (a server, a Cluster): Ann's stream is
    on the first, Bob's on the second; the match reaches both streams by the
    queue's changes (their slow looks are 20 s away)."""
    server = request.getfixturevalue("redis_cluster" if kind == "redis-cluster" else "redis_server")
    prefix = f"test-{uuid.uuid4().hex}:"
    first, second = (RedisStore(server.url, prefix=prefix) for _ in range(2))
    async for one in serving(first, SLOW_LOOKS, None):
        async for two in serving(second, SLOW_LOOKS, None):
            ann = submit(one, "ann")
            await ann.read()  # type: ignore[attr-defined]
            bob = submit(two, "bob")
            got_ann, got_bob = await asyncio.wait_for(
                asyncio.gather(until_final(ann), until_final(bob)), 10
            )
            assert got_ann[-1].state == got_bob[-1].state == match_pb2.TICKET_STATE_MATCHED
            assert got_ann[-1].game == got_bob[-1].game
