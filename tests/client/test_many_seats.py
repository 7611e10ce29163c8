"""Many seats in one process (issue 35): the SDK spreads its streams over
connections as they fill, so that no connection reaches the server's
``--max-streams-per-connection`` however many sessions a process opens.

gRPC shares one connection between every channel of equal settings in a
process: without the spreading, the 101st session of a process was refused
``TOO_MANY_STREAMS``. Real servers on loopback sockets; the server's own
count of each connection's streams (its peers) is read to prove where the
streams went."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import GameApp
from ramino.store import open_store
from ramino_client import AsyncClient, AsyncSeat, Client, GameStatus, Seat, play_seat
from ramino_client._wire import OPEN_STREAMS, STREAMS_PER_CONNECTION

from .conftest import SECRET, ThreadServer
from .test_session import policy


@asynccontextmanager
async def serving(per_connection: int = 100) -> AsyncIterator[tuple[str, GameServicer]]:
    """A server on a loopback port (in this loop) with this limit of streams
    a connection: its address and its game servicer."""
    app = GameApp(open_store("memory"))
    servicer = GameServicer(app, TokenIssuer(SECRET), max_streams_per_connection=per_connection)
    await app.start()
    running = await create_server("127.0.0.1:0", servicer)
    try:
        yield f"127.0.0.1:{running.port}", servicer
    finally:
        await running.stop(0)
        await app.close()


async def seats_of(client: AsyncClient, games: int) -> list[AsyncSeat]:
    """Both seats of ``games`` new two-person rummy games."""
    seats: list[AsyncSeat] = []
    for _ in range(games):
        game = await client.create_game("rummy", seats=["ann", "bo"])
        seats += [await client.join(game.name, who) for who in ("ann", "bo")]
    return seats


async def test_two_hundred_sessions_of_one_process_are_all_served() -> None:
    """202 sessions of two clients of equal settings (gRPC gives them the
    same connections): all open at once, each gets its first update and the
    seat to move plays and gets its answer; no connection holds more than
    the SDK's share, and the server refuses none."""
    async with serving() as (address, servicer):
        clients = [AsyncClient(address), AsyncClient(address)]
        seats = [*await seats_of(clients[0], 51), *await seats_of(clients[1], 50)]
        assert len(seats) == 202
        sessions = [seat.session() for seat in seats]

        async def first_turn(i: int) -> None:
            update = await anext(sessions[i])
            assert update.error is None
            if update.options is not None and update.options.moves:
                await sessions[i].send(policy(update.options, update.snapshot))
                while (answer := await anext(sessions[i])).result is None:
                    assert answer.error is None
                assert answer.result is not None

        await asyncio.gather(*(first_turn(i) for i in range(len(seats))))
        per_peer = servicer._streams.counts()
        assert sum(per_peer.values()) == 202
        assert max(per_peer.values()) == STREAMS_PER_CONNECTION
        assert len(per_peer) == 5  # 202 streams, 50 to a connection
        spread = OPEN_STREAMS.count(clients[0]._streams.settings)
        assert spread == {0: 50, 1: 50, 2: 50, 3: 50, 4: 2}
        for session in sessions:
            await session.close()
        for client in clients:
            await client.close()
        assert OPEN_STREAMS.count(clients[0]._streams.settings) == {}


async def test_a_closed_stream_gives_its_place_back() -> None:
    """Streams opened past a full connection go to the next; once closed,
    their places are free again and the next stream takes the first."""
    async with serving(per_connection=3) as (address, servicer):
        async with AsyncClient(address, streams_per_connection=3) as client:
            seats = await seats_of(client, 2)
            watches = [seat.watch() for seat in seats]
            for watch in watches:
                await anext(watch)
            settings = client._streams.settings
            assert OPEN_STREAMS.count(settings) == {0: 3, 1: 1}
            assert sorted(servicer._streams.counts().values()) == [1, 3]
            for watch in watches[:2]:
                await watch.aclose()
            while OPEN_STREAMS.count(settings) != {0: 1, 1: 1}:
                await asyncio.sleep(0.01)  # gRPC ends a cancelled call in a moment
            session = seats[0].session()
            await anext(session)
            assert OPEN_STREAMS.count(settings) == {0: 2, 1: 1}
            await session.close()
            for watch in watches[2:]:
                await watch.aclose()


def test_blocking_seats_past_the_servers_limit_play_their_games_to_the_end() -> None:
    """Twelve blocking sessions against a server that allows four streams a
    connection: every game is played to its end, none refused."""
    server = ThreadServer(streams_per_connection=4)
    server.start()
    try:
        with Client(server.address, streams_per_connection=4) as client:
            seats: list[Seat] = []
            for _ in range(6):
                game = client.create_game("rummy", seats=["ann", "bo"])
                seats += [client.join(game.name, who) for who in ("ann", "bo")]
            played = [False] * len(seats)

            def run(i: int) -> None:
                play_seat(seats[i], policy)  # a refusal raises here, and the seat is lost
                played[i] = True

            threads = [threading.Thread(target=run, args=(i,)) for i in range(len(seats))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(300)
            assert played == [True] * len(seats)
            games = {seat.name for seat in seats}
            assert {client.get_game(g).status for g in games} == {GameStatus.FINISHED}
    finally:
        server.close()


def test_streams_per_connection_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="streams_per_connection must be at least 1, not 0"):
        Client("127.0.0.1:1", streams_per_connection=0)
