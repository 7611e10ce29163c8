"""Parties over gRPC: a leader and the players who accepted an invitation
queue as one ticket and sit together in one game, rated as usual; each
defence of the invitations and of the party's ticket holds (an uninvited
player, an expired or replayed invitation, a party larger than the seats,
another caller cancelling), on every ticket store."""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from ramino import reasons
from ramino.app import GameApp
from ramino.app.quick.parties import KEPT_INVITATIONS, Parties
from ramino.app.quick.queues import QueueSpec
from ramino.errors import NotPermitted, PartyStateError
from ramino.store import Store, open_store
from ramino.store.redis import RedisStore
from ramino.store.tickets import MemoryTickets, TicketRecord
from ramino.v1 import game_pb2, match_pb2

from tests.service.conftest import auth, reason_of
from tests.service.test_match_api import (
    FAST,
    Quick,
    live,
    player,
    serving,
    submit,
    until_final,
)
from tests.service.test_stores import redis_store


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


async def refused(call: object) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call  # type: ignore[misc]
    return err.value


async def party_of(q: Quick, leader: str, *members: str) -> match_pb2.Party:
    """A party led by ``leader`` that each of ``members`` joined."""
    made = await q.match.CreateParty(
        match_pb2.CreatePartyRequest(player_name=leader.title()), metadata=player(leader)
    )
    party = made.party
    for who in members:
        invited = await q.match.InviteToParty(
            match_pb2.InviteToPartyRequest(party=party.name, player=who), metadata=player(leader)
        )
        joined = await q.match.JoinParty(
            match_pb2.JoinPartyRequest(
                party=party.name, invitation=invited.invitation, player_name=who.title()
            ),
            metadata=player(who),
        )
        party = joined.party
    return party


async def get_party(q: Quick, who: str, name: str) -> match_pb2.Party:
    return (
        await q.match.GetParty(match_pb2.GetPartyRequest(party=name), metadata=player(who))
    ).party


def watch(q: Quick, who: str, ticket: str) -> object:
    return q.match.WatchTicket(match_pb2.WatchTicketRequest(ticket=ticket), metadata=player(who))


async def test_a_party_is_seated_together_in_one_game_and_rated(quick_on: Quick) -> None:
    party = await party_of(quick_on, "ann", "bob")
    assert [m.player for m in party.members] == ["bob"] and party.leader.player == "ann"
    got = await until_final(submit(quick_on, "ann", party=party.name))
    ann = got[-1]
    assert ann.state == match_pb2.TICKET_STATE_MATCHED and ann.party == party.name
    # The member follows the party's ticket (GetParty names it) to a seat of its own.
    ticket = (await get_party(quick_on, "bob", party.name)).ticket
    assert ticket == ann.ticket
    bob = (await until_final(watch(quick_on, "bob", ticket)))[-1]
    assert bob.state == match_pb2.TICKET_STATE_MATCHED and bob.game == ann.game
    assert {ann.seat, bob.seat} == {0, 1}
    view = await quick_on.games.GetGame(
        game_pb2.GetGameRequest(name=bob.game), metadata=auth(bob.seat_token) + player("bob")
    )
    assert view.view.seat == bob.seat and [s.player_name for s in view.view.seats] == ["Ann", "Bob"]
    with pytest.raises(grpc.aio.AioRpcError) as err:  # the seat token is Bob's own
        await quick_on.games.GetGame(
            game_pb2.GetGameRequest(name=bob.game), metadata=auth(bob.seat_token) + player("ann")
        )
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    # Rated as usual: Bob resigns, Ann wins, both rated once.
    await quick_on.games.Resign(
        game_pb2.ResignRequest(name=bob.game), metadata=auth(bob.seat_token) + player("bob")
    )
    for who, better in (("ann", True), ("bob", False)):
        rating = await quick_on.match.GetRating(
            match_pb2.GetRatingRequest(variant="rummy"), metadata=player(who)
        )
        assert rating.rating.games == 1 and (rating.rating.mu > 25) == better


async def test_a_party_and_a_stranger_share_a_table_the_party_side_by_side(
    quick: Quick,
) -> None:
    party = await party_of(quick, "ann", "bob")
    stranger = submit(quick, "cid", min_seats=3, max_seats=3)
    await stranger.read()  # type: ignore[attr-defined]  # waiting, first in line
    got, alone = await asyncio.gather(
        until_final(submit(quick, "ann", party=party.name, min_seats=3, max_seats=3)),
        until_final(stranger),
    )
    ann, cid = got[-1], alone[-1]
    assert ann.game == cid.game and cid.seat == 0 and ann.seat == 1
    bob = (await until_final(watch(quick, "bob", ann.ticket)))[-1]
    assert bob.seat == 2 and bob.game == ann.game


async def test_an_uninvited_player_cannot_join(quick_on: Quick) -> None:
    party = await party_of(quick_on, "ann")
    invited = await quick_on.match.InviteToParty(
        match_pb2.InviteToPartyRequest(party=party.name, player="bob"), metadata=player("ann")
    )
    for invitation in (invited.invitation, "0" * 32, ""):
        err = await refused(
            quick_on.match.JoinParty(
                match_pb2.JoinPartyRequest(
                    party=party.name, invitation=invitation, player_name="Mallory"
                ),
                metadata=player("mallory"),
            )
        )
        assert err.code() == grpc.StatusCode.PERMISSION_DENIED
        assert reason_of(err) == reasons.NOT_INVITED
    assert not (await get_party(quick_on, "ann", party.name)).members
    # The party is unknown to a stranger, and so is a party that does not exist.
    for name in (party.name, "parties/" + "0" * 24, "parties/nosuch"):
        err = await refused(
            quick_on.match.GetParty(match_pb2.GetPartyRequest(party=name), metadata=player("x"))
        )
        assert reason_of(err) == reasons.PARTY_NOT_FOUND
    for name in ("", "parties/", "tickets/x", "parties/a/b"):
        err = await refused(
            quick_on.match.GetParty(match_pb2.GetPartyRequest(party=name), metadata=player("x"))
        )
        assert reason_of(err) == reasons.BAD_PARTY_NAME


async def test_an_expired_invitation_is_refused(tmp_path: Path) -> None:
    config = replace(FAST, invitation_ttl=0.05)
    async for q in serving(open_store(f"sqlite:{tmp_path}/g.db"), config):
        party = await party_of(q, "ann")
        invited = await q.match.InviteToParty(
            match_pb2.InviteToPartyRequest(party=party.name, player="bob"), metadata=player("ann")
        )
        await asyncio.sleep(0.1)
        join = match_pb2.JoinPartyRequest(
            party=party.name, invitation=invited.invitation, player_name="Bob"
        )
        err = await refused(q.match.JoinParty(join, metadata=player("bob")))
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(err) == reasons.INVITATION_EXPIRED
        assert not (await get_party(q, "ann", party.name)).members


async def test_a_replayed_invitation_is_refused(quick_on: Quick) -> None:
    party = await party_of(quick_on, "ann")
    invited = await quick_on.match.InviteToParty(
        match_pb2.InviteToPartyRequest(party=party.name, player="bob"), metadata=player("ann")
    )
    join = match_pb2.JoinPartyRequest(
        party=party.name, invitation=invited.invitation, player_name="Bob"
    )
    first = await quick_on.match.JoinParty(join, metadata=player("bob"))
    again = await quick_on.match.JoinParty(join, metadata=player("bob"))  # a retry: joined
    assert first.party.members == again.party.members and len(again.party.members) == 1
    await quick_on.match.LeaveParty(
        match_pb2.LeavePartyRequest(party=party.name), metadata=player("bob")
    )
    err = await refused(quick_on.match.JoinParty(join, metadata=player("bob")))
    assert reason_of(err) == reasons.INVITATION_USED
    err = await refused(quick_on.match.JoinParty(join, metadata=player("cid")))
    assert reason_of(err) == reasons.NOT_INVITED
    assert not (await get_party(quick_on, "ann", party.name)).members


async def test_a_party_larger_than_the_seats_is_refused_and_writes_nothing(
    quick_on: Quick,
) -> None:
    party = await party_of(quick_on, "ann", "bob", "cid")
    for fields in ({"min_seats": 2, "max_seats": 2}, {"variant": "gin", "min_seats": 2}):
        err = await refused(until_final(submit(quick_on, "ann", party=party.name, **fields)))
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(err) == reasons.PARTY_TOO_LARGE
    assert await live(quick_on, "ann") == []
    assert not (await get_party(quick_on, "ann", party.name)).ticket
    # Nor does a party grow past the server's bound (4 players by default).
    for who, reason in (("dan", None), ("fay", reasons.PARTY_FULL)):
        invited = await quick_on.match.InviteToParty(
            match_pb2.InviteToPartyRequest(party=party.name, player=who), metadata=player("ann")
        )
        join = match_pb2.JoinPartyRequest(
            party=party.name, invitation=invited.invitation, player_name=who.title()
        )
        if reason is None:
            await quick_on.match.JoinParty(join, metadata=player(who))
        else:
            err = await refused(quick_on.match.JoinParty(join, metadata=player(who)))
            assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert reason_of(err) == reason
    assert len((await get_party(quick_on, "ann", party.name)).members) == 3


async def test_another_caller_cannot_cancel_or_watch_the_partys_ticket(quick_on: Quick) -> None:
    party = await party_of(quick_on, "ann", "bob")
    stream = submit(quick_on, "ann", party=party.name, min_seats=4, max_seats=4)
    first = (await stream.read()).update  # type: ignore[attr-defined]
    assert first.state == match_pb2.TICKET_STATE_SEARCHING
    cancel = match_pb2.CancelTicketRequest(ticket=first.ticket)
    err = await refused(quick_on.match.CancelTicket(cancel, metadata=player("mallory")))
    assert err.code() == grpc.StatusCode.NOT_FOUND
    assert reason_of(err) == reasons.TICKET_NOT_FOUND
    err = await refused(until_final(watch(quick_on, "mallory", first.ticket)))
    assert reason_of(err) == reasons.TICKET_NOT_FOUND
    ticket_id = first.ticket.removeprefix("tickets/")
    assert (await quick_on.matchmaker.ticket("ann", ticket_id)).state == "waiting"
    # Only the leader queues the party, and only while it is not queued.
    err = await refused(until_final(submit(quick_on, "bob", party=party.name)))
    assert reason_of(err) == reasons.PARTY_LEADER_ONLY
    err = await refused(until_final(submit(quick_on, "ann", party=party.name)))
    assert reason_of(err) == reasons.PARTY_QUEUED
    err = await refused(until_final(submit(quick_on, "mallory", party=party.name)))
    assert reason_of(err) == reasons.PARTY_NOT_FOUND
    stream.cancel()  # type: ignore[attr-defined]


async def test_a_member_who_leaves_ends_the_partys_ticket(quick_on: Quick) -> None:
    party = await party_of(quick_on, "ann", "bob")
    stream = submit(quick_on, "ann", party=party.name, min_seats=4, max_seats=4)
    first = (await stream.read()).update  # type: ignore[attr-defined]
    follow = watch(quick_on, "bob", first.ticket)
    await follow.read()  # type: ignore[attr-defined]
    # Nobody joins a queued party.
    invited = await quick_on.match.InviteToParty(
        match_pb2.InviteToPartyRequest(party=party.name, player="cid"), metadata=player("ann")
    )
    join = match_pb2.JoinPartyRequest(
        party=party.name, invitation=invited.invitation, player_name="Cid"
    )
    err = await refused(quick_on.match.JoinParty(join, metadata=player("cid")))
    assert reason_of(err) == reasons.PARTY_QUEUED
    await quick_on.match.LeaveParty(
        match_pb2.LeavePartyRequest(party=party.name), metadata=player("bob")
    )
    assert (await until_final(stream))[-1].state == match_pb2.TICKET_STATE_CANCELLED
    assert (await until_final(follow))[-1].state == match_pb2.TICKET_STATE_CANCELLED
    after = await get_party(quick_on, "ann", party.name)
    assert not after.members
    # The invitation Cid could not use while queued works now.
    joined = await quick_on.match.JoinParty(join, metadata=player("cid"))
    assert [m.player for m in joined.party.members] == ["cid"]


async def test_a_leader_who_cancels_ends_the_ticket_for_every_member(quick: Quick) -> None:
    party = await party_of(quick, "ann", "bob", "cid")
    stream = submit(quick, "ann", party=party.name, min_seats=4, max_seats=4)
    first = (await stream.read()).update  # type: ignore[attr-defined]
    follows = [watch(quick, who, first.ticket) for who in ("bob", "cid")]
    for f in follows:
        await f.read()  # type: ignore[attr-defined]
    await quick.match.CancelTicket(
        match_pb2.CancelTicketRequest(ticket=first.ticket), metadata=player("ann")
    )
    for s in (stream, *follows):
        assert (await until_final(s))[-1].state == match_pb2.TICKET_STATE_CANCELLED
    # The party stays, and queues again.
    again = submit(quick, "ann", party=party.name, min_seats=4, max_seats=4)
    assert (await again.read()).update.ticket != first.ticket  # type: ignore[attr-defined]
    again.cancel()  # type: ignore[attr-defined]


async def test_a_leader_who_leaves_disbands_the_party_and_ends_its_ticket(
    quick_on: Quick,
) -> None:
    party = await party_of(quick_on, "ann", "bob")
    stream = submit(quick_on, "ann", party=party.name, min_seats=4, max_seats=4)
    await stream.read()  # type: ignore[attr-defined]
    await quick_on.match.LeaveParty(
        match_pb2.LeavePartyRequest(party=party.name), metadata=player("ann")
    )
    assert (await until_final(stream))[-1].state == match_pb2.TICKET_STATE_CANCELLED
    for who in ("ann", "bob"):
        err = await refused(
            quick_on.match.GetParty(
                match_pb2.GetPartyRequest(party=party.name), metadata=player(who)
            )
        )
        assert reason_of(err) == reasons.PARTY_NOT_FOUND


async def test_only_the_leader_invites_and_no_one_twice(quick: Quick) -> None:
    party = await party_of(quick, "ann", "bob")
    invite = match_pb2.InviteToPartyRequest(party=party.name, player="cid")
    err = await refused(quick.match.InviteToParty(invite, metadata=player("bob")))
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED
    assert reason_of(err) == reasons.PARTY_LEADER_ONLY
    for who in ("ann", "bob", ""):
        err = await refused(
            quick.match.InviteToParty(
                match_pb2.InviteToPartyRequest(party=party.name, player=who),
                metadata=player("ann"),
            )
        )
        assert reason_of(err) == reasons.BAD_INVITEE
    # A second invitation of one player replaces the first.
    first = await quick.match.InviteToParty(invite, metadata=player("ann"))
    second = await quick.match.InviteToParty(invite, metadata=player("ann"))
    old = match_pb2.JoinPartyRequest(
        party=party.name, invitation=first.invitation, player_name="Cid"
    )
    err = await refused(quick.match.JoinParty(old, metadata=player("cid")))
    assert reason_of(err) == reasons.NOT_INVITED
    new = replace_invitation(old, second.invitation)
    assert len((await quick.match.JoinParty(new, metadata=player("cid"))).party.members) == 2
    # Open invitations are bounded.
    for i in range(2 * quick.matchmaker.config.party_size):
        await quick.match.InviteToParty(
            match_pb2.InviteToPartyRequest(party=party.name, player=f"p{i}"),
            metadata=player("ann"),
        )
    err = await refused(
        quick.match.InviteToParty(
            match_pb2.InviteToPartyRequest(party=party.name, player="one-more"),
            metadata=player("ann"),
        )
    )
    assert reason_of(err) == reasons.TOO_MANY_INVITATIONS


def replace_invitation(
    request: match_pb2.JoinPartyRequest, invitation: str
) -> match_pb2.JoinPartyRequest:
    copy = match_pb2.JoinPartyRequest()
    copy.CopyFrom(request)
    copy.invitation = invitation
    return copy


class LeaveWhileQueueing(MemoryTickets):
    """The memory ticket store, with a step run right after a ticket is
    written: a member leaving between the ticket's write and the party's."""

    def __init__(self) -> None:
        super().__init__()
        self.then: Callable[[], Awaitable[None]] | None = None
        self.written: list[str] = []

    async def submit(self, ticket: TicketRecord, limit: int) -> TicketRecord:
        stored = await super().submit(ticket, limit)
        self.written.append(stored.ticket_id)
        then, self.then = self.then, None
        if then is not None:
            await then()
        return stored


async def test_a_member_who_leaves_while_the_party_queues_cancels_the_new_ticket() -> None:
    store = LeaveWhileQueueing()
    async for q in serving(open_store("memory"), tickets=store):
        assert q.app.quick is not None
        parties = q.app.quick.parties
        party = await party_of(q, "ann", "bob")
        party_id = party.name.removeprefix("parties/")
        store.then = functools.partial(parties.leave, "bob", party_id)
        spec = QueueSpec("rummy", {}, True)
        with pytest.raises(PartyStateError) as err:
            await parties.submit("ann", "Ann", spec, 4, 4, {}, "", party_id)
        assert err.value.reason == reasons.PARTY_CHANGED
        [ticket_id] = store.written
        ticket = await store.ticket(ticket_id)
        assert ticket is not None and ticket.state == "cancelled"
        assert ticket.players == ["ann", "bob"]
        after = await parties.get("ann", party_id)
        assert not after.members and not after.ticket_id


async def test_a_partys_invitations_are_bounded_and_the_recent_ones_kept() -> None:
    """Expired invitations are kept (a late acceptance is told it expired),
    the oldest dropped past the bound."""
    app = GameApp(open_store("memory"), run_duties=False, matchmaker=FAST, ticket_poll=0.02)
    assert app.quick is not None
    now = [1000.0]
    parties = Parties(app.quick.matchmaker, lambda: now[0])
    party = await parties.create("ann", "Ann")
    sent = []
    for i in range(KEPT_INVITATIONS + 8):
        sent.append(await parties.invite("ann", party.party_id, f"p{i}"))
        now[0] += FAST.invitation_ttl + 1
    held = await parties.get("ann", party.party_id)
    assert len(held.invitations) <= KEPT_INVITATIONS
    with pytest.raises(PartyStateError) as err:
        await parties.join(f"p{len(sent) - 1}", party.party_id, sent[-1].invitation_id, "Late")
    assert err.value.reason == reasons.INVITATION_EXPIRED
    with pytest.raises(NotPermitted):  # the oldest is gone: no invitation of theirs
        await parties.join("p0", party.party_id, sent[0].invitation_id, "Early")


@pytest.mark.parametrize("kind", ["redis", "redis-cluster"])
async def test_a_party_spans_two_replicas(request: pytest.FixtureRequest, kind: str) -> None:
    """Two replicas on one real Redis (a server, a Cluster): the party is
    made and queued on the first, joined, watched and left on the second;
    the member's leave on the second cancels the ticket the first queued."""
    server = request.getfixturevalue("redis_cluster" if kind == "redis-cluster" else "redis_server")
    prefix = f"test-{uuid.uuid4().hex}:"
    first, second = (RedisStore(server.url, prefix=prefix) for _ in range(2))
    async for one in serving(first):
        async for two in serving(second):
            made = await one.match.CreateParty(
                match_pb2.CreatePartyRequest(player_name="Ann"), metadata=player("ann")
            )
            name = made.party.name
            invited = await one.match.InviteToParty(
                match_pb2.InviteToPartyRequest(party=name, player="bob"), metadata=player("ann")
            )
            join = match_pb2.JoinPartyRequest(
                party=name, invitation=invited.invitation, player_name="Bob"
            )
            await two.match.JoinParty(join, metadata=player("bob"))
            stream = submit(one, "ann", party=name, min_seats=4, max_seats=4)
            first_update = (await stream.read()).update  # type: ignore[attr-defined]
            assert (await get_party(two, "bob", name)).ticket == first_update.ticket
            follow = watch(two, "bob", first_update.ticket)
            assert (await follow.read()).update.party == name  # type: ignore[attr-defined]
            await two.match.LeaveParty(
                match_pb2.LeavePartyRequest(party=name), metadata=player("bob")
            )
            for s in (stream, follow):
                got = await asyncio.wait_for(until_final(s), 10)
                assert got[-1].state == match_pb2.TICKET_STATE_CANCELLED
            assert not (await get_party(one, "ann", name)).members
            for q in (two, one):  # their streams' readers ended while the loop runs
                await q.app.close()


async def test_a_ticket_naming_no_party_of_the_callers_is_refused_and_writes_nothing(
    quick: Quick,
) -> None:
    for party, reason in (
        ("nope", reasons.BAD_PARTY_NAME),
        ("parties/", reasons.BAD_PARTY_NAME),
        ("parties/" + "0" * 24, reasons.PARTY_NOT_FOUND),
        ((await party_of(quick, "mallory")).name, reasons.PARTY_NOT_FOUND),
    ):
        err = await refused(until_final(submit(quick, "ann", party=party)))
        assert reason_of(err) == reason, party
    assert await quick.matchmaker.tickets.queues() == []
