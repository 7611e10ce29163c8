"""Every spectator's stream is under the replica's budget of messages a
second (``--spectator-messages``, issue 36), whether it asked for batches
or not: a spectator that did not ask is sent one event a message until the
spectators were sent the budget's worth in about the last second, then
batches (``WatchGameResponse.events``), each event once and in order; a
seat's stream is never batched. The budget's clock is the test's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ramino.app import GameApp, Limits, SeatSpec
from ramino.app.games.fanout import SpectatorBudget
from ramino.app.log import LogEvent
from ramino.engine import Seen
from ramino.store import open_store
from ramino.v1 import game_pb2

from .conftest import SEED, auth
from .test_hostile_streams import Clock, draw_or_discard, rest, serving, two_people, watch
from .test_watch_batches import flat, moves


def test_the_budget_counts_the_messages_of_about_the_last_second() -> None:
    clock = Clock()
    start = clock.now
    budget = SpectatorBudget(150, 0.1, clock)
    budget.spend(100)
    clock.now = start + 0.5
    budget.spend(100)
    assert budget.spent() == 200 and budget.reached()
    # A quarter into the next second: three quarters of the last one count.
    clock.now = start + 1.25
    assert budget.spent() == 150 and budget.reached()
    budget.spend(10)
    clock.now = start + 1.5
    assert budget.spent() == 110 and not budget.reached()
    clock.now = start + 3.1  # a quiet second between: nothing counts
    assert budget.spent() == 0


def test_batching_streams_share_the_budget_by_stretching_their_interval() -> None:
    budget = SpectatorBudget(2000, 0.1)
    assert budget.interval() == 0.1
    budget.batching = 1000
    assert budget.interval() == 0.5


def one(version: int, event: Seen[LogEvent], turn: int | None = None) -> bytes:
    return f"one {version}".encode()


def batch(entries: Sequence[tuple[int, Seen[LogEvent], int | None]]) -> bytes:
    return ("batch " + " ".join(str(v) for v, _, _ in entries)).encode()


def versions_of(payloads: list[bytes]) -> list[int]:
    return [int(v) for p in payloads for v in p.decode().split()[1:]]


async def test_spectators_that_did_not_ask_get_batches_once_the_budget_is_spent() -> None:
    app = GameApp(open_store("memory"), seed_source=lambda: SEED, limits=Limits())
    clock = Clock()  # frozen: every message counts in the same second
    app.watching.budget = SpectatorBudget(6, 0.0, clock)
    try:
        game = await app.create("rummy", {}, [SeatSpec("ann", None), SeatSpec("bo", None)])
        for seat, who in enumerate(("ann", "bo")):
            await app.join(game.game_id, seat, who)
        unasked = app.watching.watch(game.game_id, None, None, False, one, batch, asked=False)
        asked = app.watching.watch(game.game_id, None, None, False, one, batch)
        seat = app.watching.watch(game.game_id, 0, None, False, one, batch)
        streams = [unasked, asked, seat]
        start = [(await anext(stream)).version for stream in streams]
        assert start[0] == start[1] == start[2]
        # Each entry is a message to each spectator: two a move or so, the
        # budget of six spent within a few moves.
        for _ in range(12):
            await draw_or_discard(app, game.game_id)
        end = (await app.load(game.game_id)).version
        got: list[list[bytes]] = [[], [], []]
        for stream, payloads in zip(streams, got, strict=True):
            while not payloads or versions_of(payloads)[-1] < end:
                payloads.append((await anext(stream)).payload)
        every = list(range(start[0] + 1, end + 1))
        assert [versions_of(p) for p in got] == [every, every, every]
        kinds = [[p.split()[0] for p in payloads] for payloads in got]
        # The spectator that did not ask: one a message while under the
        # budget, batches after it; the seat: one a message throughout.
        first_batch = kinds[0].index(b"batch")
        assert 0 < first_batch and set(kinds[0][first_batch:]) == {b"batch"}
        assert set(kinds[1]) == {b"batch"} and set(kinds[2]) == {b"one"}
        assert app.watching.budget.batching == 2
        for stream in streams:
            await stream.aclose()  # type: ignore[attr-defined]
        assert app.watching.budget.batching == 0
    finally:
        await app.close()


async def test_a_spectator_past_the_budget_is_sent_batches_over_grpc() -> None:
    async with serving(Limits(spectator_interval=0.0)) as s:
        clock = Clock()
        s.h.app.watching.budget = SpectatorBudget(4, 0.0, clock)
        stub = s.h.stub
        name, tokens, creator = await two_people(stub)
        spectator = watch(stub, name)
        seat = watch(stub, name, tokens[0])
        start = (await spectator.read()).version
        assert (await seat.read()).HasField("snapshot")
        await moves(s, name, tokens, 12)
        await stub.CancelGame(game_pb2.CancelGameRequest(name=name), metadata=auth(creator))
        end = await s.h.app.store.version(name.split("/")[1])
        items: list[Any] = await rest(spectator)
        kinds = [i.WhichOneof("payload") for i in items]
        assert kinds[0] == "event" and "events" in kinds
        assert set(kinds[kinds.index("events") :]) == {"events"}
        assert [v for v, _ in flat(items)] == list(range(start + 1, end + 1))
        seat_items = await rest(seat)
        assert {i.WhichOneof("payload") for i in seat_items} == {"event"}
        assert [v for v, _ in flat(seat_items)] == list(range(start + 1, end + 1))
