"""Watchers that lose their stream (cancelled, or the server restarting) and
resume miss no event and see none twice; a game survives a restart of the
server on the sqlite store."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from ramino_client import (
    AsyncClient,
    BotLevel,
    Client,
    Event,
    MatchEnded,
    Snapshot,
    StaleVersion,
    WatchItem,
)

from .conftest import (
    PATIENT,
    ProcessServer,
    ThreadServer,
    choose,
    consecutive,
    play_turn,
    play_until_finished,
)


def test_a_cancelled_watch_resumes_where_it_stopped(server: ThreadServer) -> None:
    with Client(server.address) as client:
        game = client.create_game("ramino51", seats=["ann", BotLevel.GREEDY])
        seat = client.join(game.name, "ann")
        first: list[WatchItem] = []
        with client.watch(game.name) as watch:
            for item in watch:
                first.append(item)
                if len(first) == 1:
                    play_turn(seat)
                if len(first) >= 4:
                    break
        assert watch.last_version == first[-1].version
        turns = 0
        while turns < 3 and not seat.view().finished:  # the game goes on, nobody watching
            turns += play_turn(seat)
        rest: list[WatchItem] = []
        resumed = client.watch(game.name, after_version=watch.last_version)
        follower = threading.Thread(target=lambda: rest.extend(resumed))
        follower.start()
        play_until_finished([seat])
        follower.join(timeout=10)
    assert isinstance(first[0], Snapshot)
    assert all(isinstance(i, Event) for i in rest)
    versions = [i.version for i in first + rest]
    assert consecutive(versions) and isinstance(rest[-1], MatchEnded)


async def test_an_async_watch_resumes_across_a_server_restart(tmp_path: Path) -> None:
    server = ProcessServer(f"sqlite:{tmp_path / 'ramino.db'}", tmp_path / "server.log")
    server.start()
    restart: threading.Timer | None = None
    try:
        async with AsyncClient(server.address, retry=PATIENT) as client:
            game = await client.create_game(
                "rami51", seats=["ann", BotLevel.RANDOM, BotLevel.GREEDY]
            )
            seat = await client.join(game.name, "ann")
            feed: list[WatchItem] = []
            watch = seat.watch()
            async for item in watch:
                feed.append(item)
                if len(feed) == 1:
                    # Right after the snapshot, before anyone could finish the
                    # game: the stream and the channel drop; the game lives on
                    # in the store.
                    server.kill()
                    restart = threading.Timer(0.3, server.start)
                    restart.start()
                legal = await seat.legal_moves()
                while (move := choose(legal)) is not None:
                    try:
                        await seat.play(move, expected_version=legal.version)
                    except StaleVersion:
                        pass
                    legal = await seat.legal_moves()
            view = await seat.view()
    finally:
        if restart is not None:
            restart.join()
        server.stop()
    assert watch.reconnects >= 1
    assert view.finished and isinstance(feed[-1], MatchEnded)
    assert feed[-1].version == view.version
    assert consecutive([i.version for i in feed])
    assert sum(isinstance(i, Snapshot) for i in feed) == 1


def test_a_game_survives_a_killed_sqlite_server(tmp_path: Path) -> None:
    server = ProcessServer(f"sqlite:{tmp_path / 'ramino.db'}", tmp_path / "server.log")
    server.start()
    try:
        with Client(server.address, retry=PATIENT) as client:
            game = client.create_game("ramino51", seats=["ann", BotLevel.GREEDY])
            seat = client.join(game.name, "ann")
            spectator: list[WatchItem] = []
            mine: list[WatchItem] = []
            watches = [client.watch(game.name), seat.watch()]
            followers = [
                threading.Thread(target=lambda w=w, out=out: out.extend(w))
                for w, out in zip(watches, (spectator, mine), strict=True)
            ]
            for f in followers:
                f.start()
            turns = 0
            while turns < 2 and not seat.view().finished:
                turns += play_turn(seat)
            # The bot moves after ann's discard: wait for it, so that nothing
            # is in flight on the server when it is killed.
            before = seat.view()
            waited = time.monotonic() + 30
            while not (before.finished or before.my_turn) and time.monotonic() < waited:
                time.sleep(0.01)
                before = seat.view()
            # Both streams open and caught up, so that the kill cuts them.
            while time.monotonic() < waited and not all(
                feed and feed[-1].version == before.version for feed in (spectator, mine)
            ):
                time.sleep(0.01)
            server.kill()
            # Back in a moment; meanwhile the next calls retry with their request ids.
            restart = threading.Timer(0.3, server.start)
            restart.start()
            after = seat.view()
            assert after.version == before.version and after.hand == before.hand
            play_until_finished([seat], deadline=60)
            restart.join()
            for f in followers:
                f.join(timeout=15)
            final = seat.view()
    finally:
        server.stop()
    assert final.finished and final.winners
    for watch, feed in zip(watches, (spectator, mine), strict=True):
        assert watch.reconnects >= 1
        assert isinstance(feed[0], Snapshot) and isinstance(feed[-1], MatchEnded)
        assert feed[-1].version == final.version
        assert consecutive([i.version for i in feed])


def test_cancel_ends_a_waiting_watch(server: ThreadServer) -> None:
    with Client(server.address) as client:
        game = client.create_game("rummy", seats=["ann", "bob"])
        watch = client.watch(game.name)
        assert isinstance(next(watch), Snapshot)
        rest: list[WatchItem] = []
        follower = threading.Thread(target=lambda: rest.extend(watch))
        follower.start()  # blocks: nothing happens in a game nobody joins
        watch.cancel()
        follower.join(timeout=5)
    assert not follower.is_alive() and rest == []


async def test_cancel_ends_a_waiting_async_watch(server: ThreadServer) -> None:
    async with AsyncClient(server.address) as client:
        game = await client.create_game("rummy", seats=["ann", "bob"])
        watch = client.watch(game.name)
        assert isinstance(await anext(watch), Snapshot)

        async def rest() -> list[WatchItem]:
            return [item async for item in watch]

        reader = asyncio.create_task(rest())
        await asyncio.sleep(0.05)
        watch.cancel()
        assert await asyncio.wait_for(reader, 5) == []


def test_a_batch_of_events_is_yielded_one_event_at_a_time_and_a_resume_asks_again() -> None:
    from ramino_client import _wire
    from ramino_client.v1 import game_pb2

    resume = _wire.Resume("games/g", 4, False, stop_at_end=True)
    assert resume.request().batch_events  # the SDK asks for batches
    batch = game_pb2.WatchGameResponse(version=7)
    for version in (5, 6, 7):
        e = batch.events.events.add(version=version, seat=version % 2)
        e.discarded.card_id = version
    where, item = resume.take(batch)
    assert (where, item.version) == ("next", 5)
    taken = [item.version]
    while (queued := resume.queued()) is not None:
        where, item = resume.take(queued)
        assert where == "next"
        taken.append(item.version)
    assert taken == [5, 6, 7] and resume.last_version == 7
    # The same batch again (across a reconnect): nothing is yielded twice.
    where, _ = resume.take(batch)
    assert where == "seen"
    while (queued := resume.queued()) is not None:
        assert resume.take(queued)[0] == "seen"
    # Half a batch taken, then the stream drops: the rest is asked for again.
    more = game_pb2.WatchGameResponse(version=9)
    for version in (8, 9):
        more.events.events.add(version=version).discarded.card_id = version
    assert resume.take(more)[1].version == 8
    request = resume.request()
    assert request.after_version == 8 and resume.queued() is None
