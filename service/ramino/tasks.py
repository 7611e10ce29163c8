"""Background tasks that end when they are told to.

On Python 3.11 a cancellation can be lost: ``asyncio.wait_for`` returns its
inner future's result when that result and the cancellation land in the same
turn of the loop (fixed in 3.12, where ``wait_for`` is built on
``asyncio.timeout``), and redis-py awaits its reads through it. A task
cancelled while a store call finishes then carries on as if nothing had
happened: 217 of 410 cancellations that landed on a redis-py GET in flight,
in a measurement here. A loop that sweeps the store (the bot duties, the
expiry of finished games) then never ends, and neither does the server's
shutdown that awaits it: the drain outlived its grace and the replica was
killed.

:func:`stop` is how the server ends a task of its own: it cancels the task
again, each ``interval``, until it has ended.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

INTERVAL = 1.0
"""Seconds given to a cancelled task to end before it is cancelled again:
time for its own cleanup (a bot's search finishing on its thread)."""


async def stop(tasks: Iterable[asyncio.Future[Any] | None], interval: float = INTERVAL) -> None:
    """Cancels ``tasks`` (None ignored) and returns once every one has ended,
    cancelling again each ``interval`` those that are still running (a lost
    cancellation). Their own errors and cancellations are not raised: they
    were told to stop."""
    pending = {t for t in tasks if t is not None}
    while pending:
        for task in pending:
            task.cancel()
        done, pending = await asyncio.wait(pending, timeout=interval)
        for task in done:
            if not task.cancelled():
                task.exception()  # retrieved: not reported as never retrieved
