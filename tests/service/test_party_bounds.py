"""A player's parties and tickets are bounded (issue 46, defect 5): one
party at a time, and a party's ticket counts against the ticket bound of
every one of its players, decided by the ticket store (memory, sqlite, a
real Redis, two replicas on one Redis), so that a player in two parties
with tickets of their own is never seated in more games than the bound."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from ramino import reasons
from ramino.app.quick.parties import HOLD_SETTLE
from ramino.store import Store, open_store
from ramino.store.redis import RedisStore
from ramino.store.tickets import MemoryTickets, SqliteTickets, TicketStore
from ramino.store.tickets.redis import RedisTickets
from ramino.v1 import match_pb2

from tests.service.conftest import reason_of
from tests.service.test_match_api import FAST, Quick, live, player, serving, submit, until_final
from tests.service.test_parties import get_party, party_of, refused
from tests.service.test_stores import redis_store

LIMIT = FAST.max_tickets_per_player


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def quick_on(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Quick]:
    if request.param == "redis":
        store: Store = redis_store(request, "redis")
    else:
        store = open_store("memory" if request.param == "memory" else f"sqlite:{tmp_path}/g.db")
    async for q in serving(store):
        yield q


async def invite_and_join(q: Quick, leader: str, party: str, who: str) -> object:
    invited = await q.match.InviteToParty(
        match_pb2.InviteToPartyRequest(party=party, player=who), metadata=player(leader)
    )
    return q.match.JoinParty(
        match_pb2.JoinPartyRequest(party=party, invitation=invited.invitation, player_name="M"),
        metadata=player(who),
    )


async def test_the_hostile_sequence_is_refused_and_seats_at_most_the_bound(
    quick_on: Quick,
) -> None:
    """Mallory joins Ann's party, then Bob's, and queues tickets of her own
    beside Ann's party's ticket: the second party and the ticket past the
    bound are refused, each with its reason, and when everything is seated
    she sits in as many games as the bound allows, no more."""
    q = quick_on
    ann = await party_of(q, "ann", "mallory")
    bob = await party_of(q, "bob")
    err = await refused(await invite_and_join(q, "bob", bob.name, "mallory"))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(err) == reasons.IN_ANOTHER_PARTY
    assert not (await get_party(q, "bob", bob.name)).members
    # Nor may she lead a party of her own while in Ann's.
    err = await refused(
        q.match.CreateParty(
            match_pb2.CreatePartyRequest(player_name="M"), metadata=player("mallory")
        )
    )
    assert reason_of(err) == reasons.IN_ANOTHER_PARTY
    # Her own tickets, and Ann's party's: the party's counts against hers.
    own = [submit(q, "mallory", min_seats=2, max_seats=2) for _ in range(LIMIT - 1)]
    for stream in own:
        await stream.read()  # type: ignore[attr-defined]
    party_ticket = submit(q, "ann", party=ann.name, min_seats=3, max_seats=3)
    await party_ticket.read()  # type: ignore[attr-defined]
    err = await refused(until_final(submit(q, "mallory", min_seats=2, max_seats=2)))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(err) == reasons.TOO_MANY_TICKETS
    # Everyone she could be seated with comes: she sits in LIMIT games.
    strangers = [submit(q, f"s{i}", min_seats=2, max_seats=2) for i in range(LIMIT - 1)]
    third = submit(q, "cid", min_seats=3, max_seats=3)
    finals = await asyncio.wait_for(
        asyncio.gather(*(until_final(s) for s in (*own, party_ticket, *strangers, third))), 20
    )
    games = {f[-1].game for f in finals[: len(own) + 1]}
    assert all(f[-1].state == match_pb2.TICKET_STATE_MATCHED for f in finals)
    assert len(games) == LIMIT


async def test_a_partys_ticket_past_a_members_bound_is_refused_and_takes_no_place(
    quick_on: Quick,
) -> None:
    q = quick_on
    ann = await party_of(q, "ann", "mallory")
    own = [submit(q, "mallory", min_seats=4, max_seats=4) for _ in range(LIMIT)]
    for stream in own:
        await stream.read()  # type: ignore[attr-defined]
    err = await refused(until_final(submit(q, "ann", party=ann.name, min_seats=4, max_seats=4)))
    assert reason_of(err) == reasons.TOO_MANY_TICKETS
    assert "mallory" in (err.details() or "")
    assert not (await get_party(q, "ann", ann.name)).ticket
    # The leader's place was given back: Ann still holds the whole bound.
    mine = [submit(q, "ann", min_seats=4, max_seats=4) for _ in range(LIMIT)]
    for stream in mine:
        assert (await stream.read()).update.state == match_pb2.TICKET_STATE_SEARCHING  # type: ignore[attr-defined]
    assert len(await live(q, "ann")) == LIMIT
    for stream in (*own, *mine):
        stream.cancel()  # type: ignore[attr-defined]


async def test_a_player_who_left_joins_another_party(quick_on: Quick) -> None:
    """One party at a time, not one for good: leaving, or a disbanded
    party, frees the player (a hold left behind is stale, and replaced)."""
    q = quick_on
    ann = await party_of(q, "ann", "mallory")
    await q.match.LeaveParty(
        match_pb2.LeavePartyRequest(party=ann.name), metadata=player("mallory")
    )
    bob = await party_of(q, "bob", "mallory")
    assert [m.player for m in bob.members] == ["mallory"]
    # Bob disbands his party, and a replica dies before giving the holds back.
    party_id = bob.name.removeprefix("parties/")
    await q.match.LeaveParty(match_pb2.LeavePartyRequest(party=bob.name), metadata=player("bob"))
    tickets = q.matchmaker.tickets
    await tickets.hold_party("mallory", party_id, time.time())
    assert [m.player for m in (await party_of(q, "cid", "mallory")).members] == ["mallory"]


async def test_a_hold_for_a_join_being_written_stands_until_it_settles(quick_on: Quick) -> None:
    """A join holds the player before it writes the party: a hold for a
    party the player is not in yet stands for ``HOLD_SETTLE`` seconds (a
    second join meanwhile is refused), then is stale (a join that died)."""
    q = quick_on
    ann = await party_of(q, "ann")
    bob = await party_of(q, "bob")
    ann_id = ann.name.removeprefix("parties/")
    tickets = q.matchmaker.tickets
    await tickets.hold_party("mallory", ann_id, time.time())
    err = await refused(await invite_and_join(q, "bob", bob.name, "mallory"))
    assert reason_of(err) == reasons.IN_ANOTHER_PARTY
    await tickets.hold_party("mallory", ann_id, time.time() - HOLD_SETTLE - 1)
    joined = await (await invite_and_join(q, "bob", bob.name, "mallory"))  # type: ignore[misc]
    assert [m.player for m in joined.party.members] == ["mallory"]


@pytest.mark.parametrize("kind", ["redis", "redis-cluster"])
async def test_two_replicas_joining_two_parties_at_once_seat_the_player_in_one(
    request: pytest.FixtureRequest, kind: str
) -> None:
    """Two replicas on one real Redis (a server, a Cluster): one join wins
    the player's hold, the other is refused; a party's ticket reserves a
    place in a member's slot, refused past the member's bound."""
    server = request.getfixturevalue("redis_cluster" if kind == "redis-cluster" else "redis_server")
    prefix = f"bounds-{uuid.uuid4().hex}:"
    async for one in serving(RedisStore(server.url, prefix=prefix)):
        async for two in serving(RedisStore(server.url, prefix=prefix)):
            ann = await party_of(one, "ann")
            bob = await party_of(two, "bob")
            joins = [
                await invite_and_join(one, "ann", ann.name, "mallory"),
                await invite_and_join(two, "bob", bob.name, "mallory"),
            ]
            done = await asyncio.gather(*joins, return_exceptions=True)  # type: ignore[arg-type]
            refusals = [d for d in done if isinstance(d, grpc.aio.AioRpcError)]
            assert len(refusals) == 1 and reason_of(refusals[0]) == reasons.IN_ANOTHER_PARTY
            members = [
                [m.player for m in (await get_party(one, "ann", ann.name)).members],
                [m.player for m in (await get_party(two, "bob", bob.name)).members],
            ]
            assert sorted(members) == [[], ["mallory"]]
            mine = one if members[0] else two
            leader, party = ("ann", ann.name) if members[0] else ("bob", bob.name)
            own = [submit(mine, "mallory", min_seats=4, max_seats=4) for _ in range(LIMIT)]
            names = [(await stream.read()).update.ticket for stream in own]  # type: ignore[attr-defined]
            other = two if mine is one else one
            err = await refused(
                until_final(submit(other, leader, party=party, min_seats=4, max_seats=4))
            )
            assert reason_of(err) == reasons.TOO_MANY_TICKETS
            for name in names:
                await mine.match.CancelTicket(
                    match_pb2.CancelTicketRequest(ticket=name), metadata=player("mallory")
                )
            for stream in own:
                await until_final(stream)
            for q in (two, one):
                await q.app.close()


@pytest.fixture(params=["memory", "sqlite", "redis", "redis-cluster"])
async def tickets(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[TicketStore]:
    store: TicketStore
    redis = None
    if request.param == "memory":
        store = MemoryTickets()
    elif request.param == "sqlite":
        store = SqliteTickets(tmp_path / "t.db")
    else:
        redis = redis_store(request, request.param)
        store = RedisTickets(redis.client, redis.layout.prefix)
    yield store
    await store.close()
    if redis is not None:
        await redis.close()


async def test_the_store_holds_a_player_for_one_party(tickets: TicketStore) -> None:
    assert await tickets.hold_party("p", "a" * 24, 10.0) == ("a" * 24, 10.0)
    assert await tickets.hold_party("p", "a" * 24, 11.0) == ("a" * 24, 11.0)  # its own: kept
    assert await tickets.hold_party("p", "b" * 24, 12.0) == ("a" * 24, 11.0)  # another: refused
    assert await tickets.hold_party("q", "b" * 24, 12.0) == ("b" * 24, 12.0)  # per player
    # Replacing a stale hold: only the one the caller found.
    assert await tickets.hold_party("p", "b" * 24, 13.0, "c" * 24) == ("a" * 24, 11.0)
    assert await tickets.hold_party("p", "b" * 24, 13.0, "a" * 24) == ("b" * 24, 13.0)
    await tickets.release_party("p", "a" * 24)  # not its party: nothing
    assert await tickets.hold_party("p", "c" * 24, 14.0) == ("b" * 24, 13.0)
    await tickets.release_party("p", "b" * 24)
    assert await tickets.hold_party("p", "c" * 24, 15.0) == ("c" * 24, 15.0)
