"""Wake-ups for subscribers inside one process (memory and sqlite stores)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

from ramino.store.base import Entry


class Notifier:
    """One event per game, set and replaced on every append."""

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}

    def waiter(self, game_id: str) -> asyncio.Event:
        event = self._events.get(game_id)
        if event is None:
            event = self._events[game_id] = asyncio.Event()
        return event

    def notify(self, game_id: str) -> None:
        event = self._events.pop(game_id, None)
        if event is not None:
            event.set()


async def follow(
    read: Callable[[str, int], Awaitable[list[Entry]]],
    notifier: Notifier,
    game_id: str,
    after_version: int,
) -> AsyncIterator[Entry]:
    """Entries after ``after_version``, then each new one: the waiter is taken
    before reading, so an append between the read and the wait is not missed."""
    version = after_version
    while True:
        waiter = notifier.waiter(game_id)
        entries = await read(game_id, version)
        for entry in entries:
            yield entry
            version = entry.version
        if not entries:
            await waiter.wait()


class Leases:
    """Duty leases inside one process (the memory and sqlite stores serve one)."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[str, float]] = {}

    def acquire(self, game_id: str, owner: str, ttl: float, now: float) -> bool:
        holder = self._held.get(game_id)
        if holder is not None and holder[0] != owner and holder[1] > now:
            return False
        self._held[game_id] = (owner, now + ttl)
        return True

    def release(self, game_id: str, owner: str) -> None:
        holder = self._held.get(game_id)
        if holder is not None and holder[0] == owner:
            del self._held[game_id]
