"""Quick play across a replica's crash (issue 34): two ``ramino serve``
processes on one real Redis; the replica holding some players' ticket streams
is killed (-9). Their tickets are followed by nobody from then on: the
survivor's matchmaker cancels them once the grace has passed since a stream
last followed them (that time is in the store), and never seats a newcomer
with those gone players."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import jwt
import pytest
from ramino.api.auth import PLAYER_TOKEN_KEY
from ramino.app.hosted import HostedGame
from ramino.store.redis import RedisStore
from ramino.store.tickets import CANCELLED, WAITING, TicketStore, tickets_beside
from ramino.v1 import match_pb2, match_pb2_grpc

from tests.support.redis_server import RedisServer
from tests.support.servers import ServerProcess

PLAYER_SECRET = b"crash-tests-player-token-secret-32-bytes"
GRACE = 3.0
"""The replicas' ticket grace: short, yet six of their streams' polls (0.5 s)
long, so that a live stream on a busy machine is never taken for gone."""
FINAL = {
    match_pb2.TICKET_STATE_MATCHED,
    match_pb2.TICKET_STATE_CANCELLED,
    match_pb2.TICKET_STATE_EXPIRED,
}


def player(name: str) -> tuple[tuple[str, str], ...]:
    now = int(time.time())
    token = jwt.encode({"sub": name, "iat": now, "exp": now + 600}, PLAYER_SECRET, "HS256")
    return ((PLAYER_TOKEN_KEY, token),)


def table_of_three(who: str) -> match_pb2.SubmitTicketRequest:
    """A ticket for a table of exactly three, never filled by bots (the
    replicas run with ``--quick-bots-after 0``): two players alone wait."""
    return match_pb2.SubmitTicketRequest(
        variant="rummy", player_name=who.title(), min_seats=3, max_seats=3, rated=True
    )


@pytest.fixture
def redis_alone(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis of this test's own (the replicas' keys meet no other test's)."""
    server = RedisServer(tmp_path / "redis")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def replicas(redis_alone: RedisServer, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    secret = tmp_path / "player-secret"
    secret.write_bytes(PLAYER_SECRET)
    flags = [
        "--player-token-secret-file",
        str(secret),
        "--quick-ticket-grace",
        str(GRACE),
        "--quick-bots-after",
        "0",
    ]
    servers = [
        ServerProcess(redis_alone.url, tmp_path / f"replica-{i}.log", extra_args=flags)
        for i in range(2)
    ]
    try:
        for s in servers:
            s.start()
        yield servers
    finally:
        for s in servers:
            s.stop()


@pytest.fixture
async def tickets(redis_alone: RedisServer) -> AsyncIterator[TicketStore]:
    """The replicas' ticket store, read directly."""
    games = RedisStore(redis_alone.url)
    store = tickets_beside(games)
    yield store
    await store.close()
    await games.close()


async def until_final(stream: object) -> match_pb2.TicketUpdate:
    while True:
        message = await stream.read()  # type: ignore[attr-defined]
        assert message is not grpc.aio.EOF
        if message.update.state in FINAL:
            return message.update


async def test_a_killed_replicas_tickets_are_cancelled_and_never_matched(
    replicas: list[ServerProcess], tickets: TicketStore
) -> None:
    doomed, survivor = replicas
    async with (
        grpc.aio.insecure_channel(doomed.address) as on_doomed,
        grpc.aio.insecure_channel(survivor.address) as on_survivor,
    ):
        a = match_pb2_grpc.MatchServiceStub(on_doomed)
        b = match_pb2_grpc.MatchServiceStub(on_survivor)
        gone = {
            who: a.SubmitTicket(table_of_three(who), metadata=player(who)) for who in ("ann", "bob")
        }
        ids = {}
        for who, stream in gone.items():
            first = (await stream.read()).update  # type: ignore[attr-defined]
            assert first.state == match_pb2.TICKET_STATE_SEARCHING
            ids[who] = first.ticket.removeprefix("tickets/")
        assert all(at > 0 for at in await tickets.touched_many(list(ids.values())))

        doomed.kill()
        for stream in gone.values():  # their streams die with the replica
            with pytest.raises(grpc.aio.AioRpcError):
                await asyncio.wait_for(until_final(stream), 30)
        # From the store's own times: both have gone unfollowed for the grace
        # (nothing follows them any more, so this instant is fixed).
        last = max(await tickets.touched_many(list(ids.values())))
        while time.time() <= last + GRACE:
            await asyncio.sleep(0.05)

        # A newcomer on the survivor, whose table ann and bob would fill at once.
        cid = b.SubmitTicket(table_of_three("cid"), metadata=player("cid"))
        assert (await cid.read()).update.state == match_pb2.TICKET_STATE_SEARCHING  # type: ignore[attr-defined]
        for who, ticket_id in ids.items():
            for _ in range(600):  # the queue's lease, if the dead replica held it, runs out
                found = await tickets.ticket(ticket_id)
                assert found is not None
                if found.state != WAITING:
                    break
                await asyncio.sleep(0.05)
            assert found.state == CANCELLED, who
            # The player reconnecting to the survivor learns it.
            watch = b.WatchTicket(
                match_pb2.WatchTicketRequest(ticket=f"tickets/{ticket_id}"), metadata=player(who)
            )
            assert (await until_final(watch)).state == match_pb2.TICKET_STATE_CANCELLED
        # cid still waits: never seated with the gone players.
        waiting = [t for q in await tickets.queues() for t in await tickets.waiting(q)]
        assert [t.player_id for t in waiting] == ["cid"]

        # Two more newcomers: the table is theirs alone.
        dan = b.SubmitTicket(table_of_three("dan"), metadata=player("dan"))
        eve = b.SubmitTicket(table_of_three("eve"), metadata=player("eve"))
        done = await asyncio.wait_for(
            asyncio.gather(until_final(cid), until_final(dan), until_final(eve)), 60
        )
        assert {u.state for u in done} == {match_pb2.TICKET_STATE_MATCHED}
        assert len({u.game for u in done}) == 1 and {u.seat for u in done} == {0, 1, 2}
        games = RedisStore(survivor.store)
        try:
            game = HostedGame.fold(await games.read(done[0].game.removeprefix("games/")))
        finally:
            await games.close()
        assert set(game.player_ids.values()) == {"cid", "dan", "eve"}
        for ticket_id in ids.values():
            found = await tickets.ticket(ticket_id)
            assert found is not None and found.state == CANCELLED and not found.game_id
