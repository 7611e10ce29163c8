"""The server's own tasks end when told to, even where a cancellation is
lost (``ramino.tasks``): Python 3.11's ``asyncio.wait_for``, which redis-py
reads through, returns a result that lands beside the cancellation and drops
the cancellation."""

from __future__ import annotations

import asyncio
import random
import uuid

from ramino import tasks
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import create_server
from ramino.app import SeatSpec
from ramino.app.application import GameApp
from ramino.store.memory import MemoryStore
from ramino.store.redis import RedisStore

from tests.service.conftest import SECRET
from tests.support.redis_server import RedisServer

# A bound on what must end: a regression fails here instead of hanging.
BOUND = 60


async def test_a_task_that_loses_its_cancellation_is_cancelled_again_until_it_ends() -> None:
    cancels = 0
    never = asyncio.Event()

    async def loses_one() -> None:
        nonlocal cancels
        try:
            await never.wait()
        except asyncio.CancelledError:
            cancels += 1  # lost: goes on as if nothing had happened
        try:
            await never.wait()
        except asyncio.CancelledError:
            cancels += 1
            raise

    task = asyncio.create_task(loses_one())
    await asyncio.sleep(0)
    await asyncio.wait_for(tasks.stop([task, None], interval=0.05), BOUND)
    assert task.cancelled()
    assert cancels == 2


async def test_stopping_tasks_raises_none_of_their_errors_and_leaves_none_unretrieved() -> None:
    async def fails() -> None:
        raise RuntimeError("its own failure")

    async def waits() -> None:
        await asyncio.Event().wait()

    failing = asyncio.create_task(fails())
    waiting = asyncio.create_task(waits())
    await asyncio.sleep(0)
    await asyncio.wait_for(tasks.stop([failing, waiting]), BOUND)
    assert isinstance(failing.exception(), RuntimeError)
    assert waiting.cancelled()


class LosingStore(MemoryStore):
    """A store whose duty sweep, the first time it is cancelled, answers as
    if it had not been: what redis-py does when its answer and the
    cancellation meet."""

    def __init__(self) -> None:
        super().__init__()
        self.sweeping = asyncio.Event()
        self.lost = 0

    async def due_games(self, now: float, limit: int = 100) -> list[str]:
        self.sweeping.set()
        if self.lost:
            return []
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.lost += 1
        return []


async def test_the_apps_close_ends_a_duty_sweep_whose_store_call_lost_its_cancellation() -> None:
    store = LosingStore()
    app = GameApp(store)
    await app.start()
    await asyncio.wait_for(store.sweeping.wait(), BOUND)
    await asyncio.wait_for(app.close(), BOUND)
    assert store.lost == 1


class ClosedOnce(LosingStore):
    """A losing store that counts its closes."""

    def __init__(self) -> None:
        super().__init__()
        self.closes = 0

    async def close(self) -> None:
        self.closes += 1
        await super().close()


async def test_the_app_works_while_entered_and_the_server_leaves_it_alone() -> None:
    """``GameApp`` is entered and left in one place (``ramino serve``'s
    ``async with``): entering starts its work (the duties' sweep), a server
    that stops drains its streams but neither stops the app nor closes its
    store (the app still makes games), and leaving it ends its work and
    closes the store, once."""
    store = ClosedOnce()
    async with GameApp(store, run_duties=True) as app:
        await asyncio.wait_for(store.sweeping.wait(), BOUND)
        running = await create_server("127.0.0.1:0", GameServicer(app, TokenIssuer(SECRET)))
        await running.stop(0)
        assert store.closes == 0
        game = await app.create("rummy", {}, [SeatSpec("a", None), SeatSpec("b", None)])
        assert (await app.load(game.game_id)).status == "waiting"
    assert store.closes == 1
    assert store.lost == 1  # the sweep was stopped, its lost cancellation sent again


async def test_redis_calls_cancelled_in_flight_always_end_when_stopped(
    redis_server: RedisServer,
) -> None:
    """Cancellations landing at random points of real Redis round trips
    (a seeded draw): some are lost by redis-py, and every task still ends."""
    store = RedisStore(redis_server.url, prefix=f"t{uuid.uuid4().hex[:8]}:")
    draw = random.Random(20261204)
    lost = 0

    async def sweeping() -> None:
        nonlocal lost
        counted = False
        while True:
            await store.due_games(0.0)
            task = asyncio.current_task()
            if task is not None and task.cancelling() and not counted:
                counted = True  # a cancellation came and went unraised
                lost += 1

    try:
        for _ in range(200):
            task = asyncio.create_task(sweeping())
            await asyncio.sleep(draw.random() * 0.002)
            await asyncio.wait_for(tasks.stop([task], interval=0.05), BOUND)
            assert task.done()
    finally:
        await store.close()
    print(f"cancellations lost by redis-py and sent again: {lost} of 200")
