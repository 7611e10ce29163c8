"""The ticket store's contract, run against every store: a claim takes all of
a match's tickets or none, a ticket is in at most one match, a player's
tickets are bounded, waiting tickets come oldest first, and a claim or an end
given a time checks, in the same step, when a stream last followed each
ticket."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import orjson
import pytest
from ramino import reasons, tasks
from ramino.app.quick.tickets import ticket_of
from ramino.store.memory import MemoryStore
from ramino.store.sqlite import SqliteStore
from ramino.store.tickets import (
    CANCELLED,
    ENDED_KEPT,
    EXPIRED,
    MATCHED,
    MATCHING,
    WAITING,
    Invitation,
    Match,
    MatchSeat,
    MemoryTickets,
    PartyMember,
    PartyRecord,
    SqliteTickets,
    TicketExists,
    TicketRecord,
    TicketRequestReused,
    TicketStore,
    TooManyTickets,
    new_ticket_id,
    queue_of,
    tickets_beside,
)
from ramino.store.tickets.base import matched
from ramino.store.tickets.redis import RedisTickets

from tests.service.test_stores import redis_store

STORES = ["memory", "sqlite", "redis", "redis-cluster"]
Q = "rummy-0123456789abcdef"


@pytest.fixture(params=STORES)
async def tickets(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[TicketStore]:
    store: TicketStore
    games = None
    if request.param == "memory":
        store = MemoryTickets()
    elif request.param == "sqlite":
        store = SqliteTickets(tmp_path / "games.db")
    else:
        games = redis_store(request, request.param)
        store = tickets_beside(games)
        assert isinstance(store, RedisTickets)
    yield store
    await store.close()
    if games is not None:
        await games.close()


def ticket(player: str, at: float = 1.0, queue: str = Q) -> TicketRecord:
    return TicketRecord(new_ticket_id(queue), player, f"name-{player}", queue, 2, 4, {}, 0.0, at)


def match(match_id: str, *tickets: TicketRecord, bots: int = 0) -> Match:
    seats = tuple(MatchSeat(t.ticket_id, t.player_id, t.name) for t in tickets)
    seats += tuple(MatchSeat("", "", f"bot {i}", "greedy") for i in range(bots))
    return Match(match_id, tickets[0].queue, "rummy", {}, True, seats, 5.0)


async def test_ticket_ids_name_their_queue() -> None:
    tid = new_ticket_id(Q)
    assert queue_of(tid) == Q
    for bad in ["", "x", "Q.abc", f"{Q}.", f"{Q}.{'z' * 25}", "a{b}.0123456789abcdef01234567"]:
        assert queue_of(bad) is None


async def test_waiting_tickets_come_oldest_first(tickets: TicketStore) -> None:
    late, early, mid = ticket("ann", 3.0), ticket("bob", 1.0), ticket("cid", 2.0)
    for t in (late, early, mid):
        await tickets.submit(t, 5)
    assert [t.player_id for t in await tickets.waiting(Q)] == ["bob", "cid", "ann"]
    assert await tickets.queues() == [Q]
    assert await tickets.ticket(early.ticket_id) == early
    assert await tickets.ticket(new_ticket_id(Q)) is None
    assert await tickets.ticket("not a ticket id") is None
    with pytest.raises(TicketExists):
        await tickets.submit(replace(early, player_id="dan"), 5)


async def test_a_claim_takes_every_ticket_or_none(tickets: TicketStore) -> None:
    a, b, c = ticket("ann"), ticket("bob"), ticket("cid")
    for t in (a, b, c):
        await tickets.submit(t, 5)
    assert await tickets.claim(match("m1", a, b))
    assert not await tickets.claim(match("m2", b, c))  # b is taken: c stays waiting
    assert [t.player_id for t in await tickets.waiting(Q)] == ["cid"]
    got = await tickets.ticket(a.ticket_id)
    assert got is not None and got.state == MATCHING and got.match_id == "m1"
    assert [m.match_id for m in await tickets.forming(Q)] == ["m1"]
    m1 = (await tickets.forming(Q))[0]
    assert m1 == match("m1", a, b)
    assert await tickets.complete(m1, "game-1", 9.0)
    assert not await tickets.complete(m1, "game-2", 9.5)  # once
    done = await tickets.ticket(b.ticket_id)
    assert done is not None and (done.state, done.game_id, done.seat) == (MATCHED, "game-1", 1)
    assert await tickets.forming(Q) == []


async def test_racing_claims_give_each_ticket_one_match(tickets: TicketStore) -> None:
    pool = [ticket(f"p{i}", float(i)) for i in range(12)]
    for t in pool:
        await tickets.submit(t, 5)
    # Every pair of neighbours, claimed at once: each ticket in at most one.
    claims = [match(f"m{i}", pool[i], pool[i + 1]) for i in range(11)]
    won = await asyncio.gather(*(tickets.claim(m) for m in claims))
    taken = [tid for m, w in zip(claims, won, strict=True) if w for tid in m.ticket_ids]
    assert len(taken) == len(set(taken)) and sum(won) >= 4
    formed = {m.match_id for m in await tickets.forming(Q)}
    assert formed == {m.match_id for m, w in zip(claims, won, strict=True) if w}


async def test_a_player_holds_a_bounded_number_of_tickets(tickets: TicketStore) -> None:
    held = [ticket("ann", float(i), queue=f"q{i % 2}") for i in range(3)]
    for t in held:
        await tickets.submit(t, 3)
    with pytest.raises(TooManyTickets, match="at most 3"):
        await tickets.submit(ticket("ann", 9.0), 3)
    assert await tickets.active("ann") == 3
    await tickets.submit(ticket("bob", 9.0), 3)  # another player's bound
    ended = await tickets.end(held[0].ticket_id, CANCELLED, 10.0)
    assert ended is not None and ended.state == CANCELLED
    assert await tickets.active("ann") == 2
    await tickets.submit(ticket("ann", 11.0), 3)
    # Matched tickets give their places back too.
    other = held[2]
    mate = ticket("cid", 1.0, queue=other.queue)
    await tickets.submit(mate, 3)
    m = match("m", other, mate)
    assert await tickets.claim(m)
    assert await tickets.active("ann") == 3
    await tickets.complete(m, "g", 12.0)
    assert await tickets.active("ann") == 2


async def test_only_a_waiting_ticket_ends(tickets: TicketStore) -> None:
    a, b, c = ticket("ann"), ticket("bob"), ticket("cid")
    for t in (a, b, c):
        await tickets.submit(t, 5)
    assert await tickets.claim(match("m", a, b))
    still = await tickets.end(a.ticket_id, CANCELLED, 2.0)  # claimed: not cancelled
    assert still is not None and still.state == MATCHING
    gone = await tickets.end(c.ticket_id, EXPIRED, 2.0)
    assert gone is not None and (gone.state, gone.ended_at) == (EXPIRED, 2.0)
    again = await tickets.end(c.ticket_id, CANCELLED, 3.0)
    assert again is not None and again.state == EXPIRED
    assert await tickets.end(new_ticket_id(Q), CANCELLED, 3.0) is None
    assert await tickets.waiting(Q) == []


async def test_ended_tickets_are_dropped_after_a_while(tickets: TicketStore) -> None:
    old = ticket("ann", 1.0)
    await tickets.submit(old, 5)
    await tickets.end(old.ticket_id, CANCELLED, 2.0)
    assert await tickets.ticket(old.ticket_id) is not None
    await tickets.submit(ticket("bob", 3.0 + ENDED_KEPT), 5)
    assert await tickets.ticket(old.ticket_id) is None


async def test_queues_with_nothing_left_are_not_listed(tickets: TicketStore) -> None:
    a = ticket("ann")
    await tickets.submit(a, 5)
    await tickets.end(a.ticket_id, CANCELLED, 2.0)
    assert await tickets.queues() == []
    b = ticket("bob")
    await tickets.submit(b, 5)
    assert await tickets.queues() == [Q]
    assert (await tickets.waiting(Q))[0].state == WAITING


async def test_beside_each_game_store(tmp_path: Path) -> None:
    assert isinstance(tickets_beside(MemoryStore()), MemoryTickets)
    games = SqliteStore(tmp_path / "g.db")
    beside = tickets_beside(games)
    assert isinstance(beside, SqliteTickets)
    await beside.submit(ticket("ann"), 2)
    await beside.close()
    again = tickets_beside(games)
    assert len(await again.waiting(Q)) == 1
    await again.close()
    await games.close()


async def test_streams_following_a_ticket_are_noted(tickets: TicketStore) -> None:
    a = ticket("ann")
    await tickets.submit(a, 5)
    assert await tickets.touched(a.ticket_id) == 0.0
    await tickets.touch(a.ticket_id, 7.5)
    assert await tickets.touched(a.ticket_id) == 7.5
    assert await tickets.touched("nonsense") == 0.0


async def test_last_followed_times_are_read_in_one_call(tickets: TicketStore) -> None:
    here, there = ticket("ann"), ticket("bob", queue="other-queue")
    never = ticket("cid")
    for t in (here, there, never):
        await tickets.submit(t, 5)
    await tickets.touch(here.ticket_id, 4.5)
    await tickets.touch(there.ticket_id, 6.25)
    ids = [there.ticket_id, "nonsense", never.ticket_id, here.ticket_id, new_ticket_id(Q)]
    assert await tickets.touched_many(ids) == [6.25, 0.0, 0.0, 4.5, 0.0]
    assert await tickets.touched_many([]) == []


async def test_a_claim_takes_no_ticket_nobody_followed_since_its_time(
    tickets: TicketStore,
) -> None:
    followed, gone, fresh = ticket("ann", 1.0), ticket("bob", 1.0), ticket("cid", 6.0)
    for t in (followed, gone, fresh):
        await tickets.submit(t, 5)
    await tickets.touch(followed.ticket_id, 8.0)
    await tickets.touch(gone.ticket_id, 4.0)
    # bob was last followed at 4: the match fails whole, ann stays waiting.
    assert not await tickets.claim(match("m1", followed, gone), followed_since=5.0)
    assert len(await tickets.waiting(Q)) == 3 and await tickets.forming(Q) == []
    # cid was never followed, but submitted at 6: that counts as followed then.
    assert await tickets.claim(match("m2", followed, fresh), followed_since=6.0)
    # Without a time, a claim looks at no stream (a matchmaker without any).
    dan = ticket("dan", 1.0)
    await tickets.submit(dan, 5)
    assert await tickets.claim(match("m3", gone, dan))
    assert [m.match_id for m in await tickets.forming(Q)] == ["m2", "m3"]


async def test_a_ticket_followed_while_it_is_ended_as_unfollowed_keeps_waiting(
    tickets: TicketStore,
) -> None:
    """The matchmaker decides from times it read a moment before: a stream
    that noted the ticket since (a reconnect at the grace's last moment)
    keeps it, the store checking in the same step as the end."""
    late, gone, fresh = ticket("ann", 1.0), ticket("bob", 1.0), ticket("cid", 5.0)
    for t in (late, gone, fresh):
        await tickets.submit(t, 5)
    assert await tickets.touched_many([late.ticket_id]) == [0.0]  # what it read
    await tickets.touch(late.ticket_id, 5.0)  # then the stream came back
    kept = await tickets.end(late.ticket_id, CANCELLED, 7.0, unfollowed_since=5.0)
    assert kept is not None and kept.state == WAITING
    kept = await tickets.end(fresh.ticket_id, CANCELLED, 7.0, unfollowed_since=5.0)
    assert kept is not None and kept.state == WAITING  # submitted at 5
    await tickets.touch(gone.ticket_id, 4.5)
    ended = await tickets.end(gone.ticket_id, CANCELLED, 7.0, unfollowed_since=5.0)
    assert ended is not None and (ended.state, ended.ended_at) == (CANCELLED, 7.0)
    assert [t.player_id for t in await tickets.waiting(Q)] == ["ann", "cid"]
    assert await tickets.active("bob") == 0


async def test_rated_games_in_play_are_kept_until_done_with(tickets: TicketStore) -> None:
    a, b, c, d = ticket("ann"), ticket("bob"), ticket("cid"), ticket("dan")
    for t in (a, b, c, d):
        await tickets.submit(t, 5)
    rated, unrated = match("m1", a, b), replace(match("m2", c, d), rated=False)
    for m, game in ((rated, "g-rated"), (unrated, "g-unrated")):
        assert await tickets.claim(m)
        assert await tickets.complete(m, game, 10.0)
    assert await tickets.in_play(Q, 10.0, 10) == []  # looked at 10.0, not before
    assert await tickets.in_play(Q, 10.5, 10) == ["g-rated"]
    assert await tickets.queues() == [Q]  # a queue with a game to look at has work
    await tickets.looked_at(Q, "g-rated", 20.0)
    assert await tickets.in_play(Q, 15.0, 10) == []
    assert await tickets.in_play(Q, 25.0, 10) == ["g-rated"]
    await tickets.looked_at(Q, "g-rated", None)
    assert await tickets.in_play(Q, 1e9, 10) == []
    await tickets.looked_at(Q, "g-rated", 30.0)  # done with: not brought back
    assert await tickets.in_play(Q, 1e9, 10) == []


@pytest.mark.parametrize("store", ["redis", "redis-cluster"])
async def test_a_submission_run_again_by_its_retry_is_done_and_changes_nothing(
    request: pytest.FixtureRequest, store: str
) -> None:
    """Redis's client runs a command again when a failover lost its answer:
    the submission's script then finds its own ticket, which may have been
    claimed or ended since. That is the submission done, with nothing
    changed (it was answered TicketExists, and the caller got INTERNAL); a
    ticket of another player or time under the same id is still refused."""
    games = redis_store(request, store)
    tickets = tickets_beside(games)
    try:
        a, b = ticket("ann"), ticket("bob")
        await tickets.submit(a, 5)
        await tickets.submit(a, 5)  # the retry of the same submission
        assert [t.ticket_id for t in await tickets.waiting(Q)] == [a.ticket_id]
        await tickets.submit(b, 5)
        assert await tickets.claim(match("m", a, b))
        await tickets.submit(a, 5)  # a retry after the matchmaker claimed it
        claimed = await tickets.ticket(a.ticket_id)
        assert claimed is not None and claimed.state == MATCHING
        assert await tickets.waiting(Q) == []
        assert await tickets.active("ann") == 1
        with pytest.raises(TicketExists):
            await tickets.submit(replace(a, player_id="cid"), 5)
        with pytest.raises(TicketExists):
            await tickets.submit(replace(a, created_at=2.0), 5)
        assert (await tickets.ticket(a.ticket_id)) == claimed
    finally:
        await tickets.close()
        await games.close()


async def test_memory_and_sqlite_refuse_a_ticket_id_in_use(tmp_path: Path) -> None:
    """Their submissions are never run again: an id in use is refused."""
    for store in (MemoryTickets(), SqliteTickets(tmp_path / "games.db")):
        a = ticket("ann")
        await store.submit(a, 5)
        with pytest.raises(TicketExists):
            await store.submit(a, 5)
        assert [t.ticket_id for t in await store.waiting(Q)] == [a.ticket_id]
        await store.close()


def test_the_ticket_and_page_errors_are_ramino_errors_with_their_reasons() -> None:
    """Under the one error root, each with a registered reason and the
    status that reason is registered with."""
    from ramino.api.errors import status_for
    from ramino.errors import RaminoError
    from ramino.store.ratings import BadPage

    cases = [
        (TicketExists("q.x"), reasons.TICKET_EXISTS),
        (TooManyTickets(3), reasons.TOO_MANY_TICKETS),
        (BadPage("bad page token"), reasons.BAD_PAGE),
    ]
    for error, reason in cases:
        assert isinstance(error, RaminoError) and error.reason == reason
        status = status_for(error)
        assert status is not None
        assert status.code.name == reasons.REGISTRY[reason].code.value, reason


def requested(
    player: str, request_id: str, at: float, queue: str = Q, asked: str = "a"
) -> TicketRecord:
    """A ticket submitted with a request id (``asked``: its fingerprint)."""
    return replace(
        ticket(player, at, queue),
        ticket_id=new_ticket_id(queue, player, request_id),
        request_id=request_id,
        fingerprint=asked,
    )


async def test_a_replayed_request_id_answers_the_ticket_it_made(tickets: TicketStore) -> None:
    first = await tickets.submit(requested("ann", "press-1", 1.0), 3)
    again = await tickets.submit(requested("ann", "press-1", 2.0), 3)
    assert again == first and again.created_at == 1.0
    assert [t.ticket_id for t in await tickets.waiting(Q)] == [first.ticket_id]
    assert await tickets.active("ann") == 1
    # Matched since: the replay answers it matched, and makes no new ticket.
    other = await tickets.submit(ticket("bob", 1.5), 3)
    m = match("m1", first, other)
    assert await tickets.claim(m) and await tickets.complete(m, "game-1", 3.0)
    after = await tickets.submit(requested("ann", "press-1", 4.0), 3)
    assert (after.ticket_id, after.state, after.game_id) == (first.ticket_id, MATCHED, "game-1")
    assert await tickets.waiting(Q) == [] and await tickets.active("ann") == 0


async def test_a_request_id_is_the_players_own(tickets: TicketStore) -> None:
    """Another player's same request id is another ticket: never the first
    player's, which it cannot see."""
    ann = await tickets.submit(requested("ann", "press-1", 1.0), 3)
    bob = await tickets.submit(requested("bob", "press-1", 2.0), 3)
    assert bob.ticket_id != ann.ticket_id and bob.player_id == "bob"
    assert [t.player_id for t in await tickets.waiting(Q)] == ["ann", "bob"]
    assert [t.ticket_id for t in await tickets.live("bob")] == [bob.ticket_id]


async def test_a_request_id_with_other_fields_is_refused_and_changes_nothing(
    tickets: TicketStore,
) -> None:
    first = await tickets.submit(requested("ann", "press-1", 1.0), 3)
    for changed in (
        requested("ann", "press-1", 2.0, asked="b"),
        requested("ann", "press-1", 2.0, queue="other-queue", asked="c"),
    ):
        with pytest.raises(TicketRequestReused) as err:
            await tickets.submit(changed, 3)
        assert err.value.reason == reasons.REQUEST_ID_REUSED
    assert await tickets.live("ann") == [first]
    assert await tickets.queues() == [Q]


async def test_a_request_id_whose_first_write_was_lost_is_written_once(
    tickets: TicketStore,
) -> None:
    """Retries racing each other (the first submission's answer lost): one
    ticket, every retry answered with it."""
    answers = await asyncio.gather(
        *(tickets.submit(requested("ann", "press-9", 1.0 + i), 3) for i in range(5))
    )
    assert len({t.ticket_id for t in answers}) == 1
    assert len(await tickets.live("ann")) == 1 and await tickets.active("ann") == 1


async def test_a_players_live_tickets_are_its_waiting_and_matching_ones(
    tickets: TicketStore,
) -> None:
    a, b, c = ticket("ann", 3.0), ticket("ann", 1.0, queue="q2"), ticket("ann", 2.0)
    for t in (a, b, c):
        await tickets.submit(t, 5)
    await tickets.submit(ticket("bob", 0.5), 5)
    assert [t.ticket_id for t in await tickets.live("ann")] == [
        b.ticket_id,
        c.ticket_id,
        a.ticket_id,
    ]
    await tickets.end(c.ticket_id, CANCELLED, 4.0)
    assert [t.ticket_id for t in await tickets.live("ann")] == [b.ticket_id, a.ticket_id]
    assert await tickets.live("nobody") == []


async def test_tickets_that_stop_waiting_are_announced(tickets: TicketStore) -> None:
    """``changes`` gives the ids of the queue's tickets as they are matched
    or ended (what wakes their streams), on every store; nothing for a
    submission, a claim, nor another queue's tickets."""
    heard: list[list[str]] = []

    async def listen() -> None:
        async for ids in tickets.changes(Q):
            heard.append(ids)

    listening = asyncio.create_task(listen())
    await asyncio.sleep(0.2)  # the reader is reading
    a, b, c = ticket("ann"), ticket("bob"), ticket("cid")
    elsewhere = ticket("dan", queue="another-queue")
    for t in (a, b, c, elsewhere):
        await tickets.submit(t, 3)
    await tickets.end(elsewhere.ticket_id, CANCELLED, 2.0)
    await tickets.end(c.ticket_id, CANCELLED, 2.0)
    m = match("m1", a, b)
    assert await tickets.claim(m)
    assert await tickets.complete(m, "game-1", 3.0)
    for _ in range(300):
        if len(heard) >= 2:
            break
        await asyncio.sleep(0.01)
    # Ended for certain: redis-py can lose a cancellation (ramino.tasks).
    await tasks.stop([listening])
    assert heard == [[c.ticket_id], [a.ticket_id, b.ticket_id]]


# --- parties: written whole over the version read -----------------------------------


def party(version: int = 1, expires_at: float = 100.0, **changes: object) -> PartyRecord:
    p = PartyRecord("0123456789abcdef01234567", PartyMember("ann", "Ann"), (), (), 1.0, expires_at)
    return replace(p, version=version, **changes)  # type: ignore[arg-type]


async def test_a_party_is_written_only_over_the_version_before(tickets: TicketStore) -> None:
    assert await tickets.party(party().party_id, 2.0) is None
    assert await tickets.put_party(party(), 2.0)
    assert not await tickets.put_party(party(), 2.0)  # version 1 again: another writer's
    bob = PartyMember("bob", "Bob")
    invited = (Invitation("i" * 32, "bob", 50.0, used=True),)
    joined = party(2, members=(bob,), invitations=invited, ticket_id=f"{Q}.{'a' * 24}")
    assert not await tickets.put_party(party(3, members=(bob,)), 2.0)  # skips one
    assert await tickets.put_party(joined, 2.0)
    assert await tickets.party(joined.party_id, 3.0) == joined
    # Two writers of version 3 over version 2: one wins, the other changes nothing.
    left = replace(joined, version=3, members=())
    queued = replace(joined, version=3, ticket_id=f"{Q}.{'b' * 24}")
    won = await asyncio.gather(tickets.put_party(left, 3.0), tickets.put_party(queued, 3.0))
    assert sorted(won) == [False, True]
    assert await tickets.party(joined.party_id, 4.0) in (left, queued)


async def test_a_party_is_forgotten_once_it_expires(tickets: TicketStore) -> None:
    assert await tickets.put_party(party(expires_at=10.0), 2.0)
    assert await tickets.party(party().party_id, 9.0) is not None
    assert await tickets.party(party().party_id, 10.0) is None


def test_a_party_ticket_is_seated_whole_and_each_player_learns_their_seat() -> None:
    ann = replace(ticket("ann"), party_id="p", members=[["bob", "Bob"], ["cid", "Cid"]])
    dan = ticket("dan", 0.5)
    m = Match(
        "m",
        Q,
        "rummy",
        {},
        True,
        (
            MatchSeat(dan.ticket_id, "dan", "Dan"),
            MatchSeat(ann.ticket_id, "ann", "Ann"),
            MatchSeat(ann.ticket_id, "bob", "Bob"),
            MatchSeat(ann.ticket_id, "cid", "Cid"),
        ),
        5.0,
    )
    assert m.ticket_ids == [dan.ticket_id, ann.ticket_id]
    done = matched(ann, m, "g", 6.0)
    assert TicketRecord.from_json(done.to_json()) == done
    seated = ticket_of(done)  # as the application asks it
    assert seated.players == ["ann", "bob", "cid"] and seated.size == 3
    assert [seated.seat_of(p) for p in ("ann", "bob", "cid", "dan")] == [1, 2, 3, -1]


def test_a_record_from_a_newer_replica_is_read_with_its_new_fields_left_out() -> None:
    """During a rolling update an older replica reads tickets, matches and
    parties a newer one wrote: a field it does not know is left out, and
    every field it knows comes through."""
    t = replace(ticket("ann"), numbers={"latency": 40.0}, rating_band=2.0)
    newer = orjson.loads(t.to_json()) | {"added_later": [1, 2]}
    assert TicketRecord.from_json(orjson.dumps(newer)) == t
    m = Match("m1", Q, "rummy", {}, False, (MatchSeat("t1", "ann", "Ann"),), 2.0)
    stored = orjson.loads(m.to_json()) | {"added_later": 1}
    stored["seats"][0]["added_later"] = "x"
    assert Match.from_json(orjson.dumps(stored)) == m
    p = PartyRecord("p1", PartyMember("ann", "Ann"), (), (Invitation("i1", "bob", 9.0),), 5.0, 6.0)
    stored = orjson.loads(p.to_json()) | {"added_later": True}
    stored["leader"]["added_later"] = 1
    stored["invitations"][0]["added_later"] = 2
    assert PartyRecord.from_json(orjson.dumps(stored)) == p
