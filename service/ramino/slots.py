"""Counted slots: the one counter behind every stream limit.

Open streams are counted by a key (a connection, a game's spectators, a
seat, a player's ticket streams), each key allowed at most its limit; a
stream takes its key's slot before it sends anything and gives it back
when it ends, however it ends. A key is forgotten when its count falls to
zero, so the table holds only the keys with open streams.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

__all__ = ["CountedSlots"]

K = TypeVar("K", bound=Hashable)


class CountedSlots(Generic[K]):
    """Open streams by key, each key at most a limit."""

    def __init__(self) -> None:
        self._open: dict[K, int] = {}

    def count(self, key: K) -> int:
        """The open streams of ``key``."""
        return self._open.get(key, 0)

    def counts(self) -> dict[K, int]:
        """The open streams of every key holding one (a copy)."""
        return dict(self._open)

    def take(self, key: K, limit: int, refused: Callable[[int], Exception]) -> None:
        """Takes one of ``key``'s ``limit`` slots, or raises ``refused(open)``
        (``open``: the streams ``key`` holds) when all are taken."""
        held = self._open.get(key, 0)
        if held >= limit:
            raise refused(held)
        self._open[key] = held + 1

    def give_back(self, key: K) -> None:
        """Gives back a slot :meth:`take` took for ``key``."""
        left = self._open.get(key, 1) - 1
        if left > 0:
            self._open[key] = left
        else:
            self._open.pop(key, None)

    @contextlib.contextmanager
    def slot(self, key: K, limit: int, refused: Callable[[int], Exception]) -> Iterator[None]:
        """One of ``key``'s slots for the time of the ``with`` block."""
        self.take(key, limit, refused)
        try:
            yield
        finally:
            self.give_back(key)

    def __len__(self) -> int:
        """The keys holding a slot."""
        return len(self._open)
