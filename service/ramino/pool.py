"""CPU-heavy work off the event loop.

The meld searches (the RulesService's calls, the hints and legal moves of a
large hand) run in a small pool of threads, so that one heavy request never
stalls the others: the core releases the GIL while it searches, so the event
loop goes on meanwhile. The pool admits at most ``capacity`` calls at once
(running or waiting for a thread); past that a call is refused at once with
RESOURCE_EXHAUSTED (``SERVER_BUSY``) rather than queued without bound, so a
flood of heavy requests costs the server a bounded backlog and the client a
clear answer to retry later.

The server's own heavy work (a bot's search, a timer's move on a large hand)
is no caller to refuse: :meth:`WorkPool.duty` waits for one of ``workers``
duty slots instead, so at most that many duties are in the pool at once.
A duty then starts on a thread at once (its clock, a bot's budget, is not
spent in a queue), and a caller's call waits behind at most ``workers``
duties, never behind every bot game the server hosts.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from prometheus_client import Counter

from ramino import reasons as R
from ramino.errors import Busy

T = TypeVar("T")

REFUSED = Counter("ramino_work_refused", "Heavy calls refused because the work pool was full")


def default_workers() -> int:
    return min(4, os.cpu_count() or 1)


class WorkPool:
    """A few threads for CPU-heavy calls, and a bound on the calls admitted."""

    def __init__(self, workers: int | None = None, capacity: int | None = None) -> None:
        self.workers = workers or default_workers()
        self.capacity = capacity or 16 * self.workers
        self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="ramino-work")
        self._lock = threading.Lock()
        self._admitted = 0
        # One semaphore per event loop (an asyncio primitive binds to one).
        self._duty_slots: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, asyncio.Semaphore
        ] = weakref.WeakKeyDictionary()

    @property
    def admitted(self) -> int:
        """Calls running or waiting for a thread."""
        return self._admitted

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a thread of the pool; RESOURCE_EXHAUSTED when
        ``capacity`` calls are already admitted."""
        with self._lock:
            if self._admitted >= self.capacity:
                REFUSED.inc()
                raise Busy(
                    f"the server is busy with {self.capacity} heavy calls: retry later",
                    R.SERVER_BUSY,
                )
            self._admitted += 1
        try:
            future: Future[T] = self._executor.submit(fn, *args)
        except BaseException:
            self._release(None)
            raise
        # Released when the work ends, even when the caller gave up waiting.
        future.add_done_callback(self._release)
        return await asyncio.wrap_future(future)

    async def duty(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a thread of the pool for the server's own work:
        waits for a duty slot (at most ``workers`` duties at once) rather
        than being refused, and does not count against ``capacity``."""
        loop = asyncio.get_running_loop()
        slots = self._duty_slots.get(loop)
        if slots is None:
            slots = self._duty_slots[loop] = asyncio.Semaphore(self.workers)
        async with slots:
            future: Future[T] = self._executor.submit(fn, *args)
            try:
                return await asyncio.wrap_future(future)
            except asyncio.CancelledError:
                # The slot is held until the thread is free again.
                await asyncio.wait([asyncio.wrap_future(future)])
                raise

    def _release(self, _: object) -> None:
        with self._lock:
            self._admitted -= 1

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


_shared: WorkPool | None = None


def shared() -> WorkPool:
    """The process's pool, made on first use."""
    global _shared
    if _shared is None:
        _shared = WorkPool()
    return _shared
