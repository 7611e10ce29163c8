"""Watching a game at the cost of one viewer class, not one watcher.

A :class:`Feed` follows one game in this replica: one subscription to the
store, each entry parsed once, projected and encoded once per viewer class
that has a watcher (each seat, and the spectators), and the encoded entry
handed to every watcher of that class. A :class:`Watcher` holds a bounded
queue of what its stream has not sent yet: a watcher that falls more than
its bound behind (a client that stops reading) is ended with
RESOURCE_EXHAUSTED, reason ``WATCHER_TOO_SLOW``, naming the last version it
was sent, from which it can resume with ``after_version``.

The feed knows nothing of the transport: the encoder it is given turns an
entry as a class sees it (its version and typed event) into what the
streams send.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from ramino.app.log import LogEvent, ends_game, public_entry
from ramino.errors import Busy, Interrupted, RaminoError
from ramino.store import Store

log = structlog.get_logger("ramino.watch")

Encode = Callable[[int, LogEvent, int | None], Any]
"""An entry as a viewer class sees it (version, event, viewer: a seat or
``None`` for the spectators) -> what is sent."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """One entry, encoded for one viewer class."""

    version: int
    type: str
    payload: Any


class Watcher:
    """One watch stream's queue of encoded entries, at most ``limit`` long."""

    __slots__ = ("viewer", "limit", "sent", "_items", "_wake", "_done", "_error")

    def __init__(self, viewer: int | None, limit: int) -> None:
        self.viewer = viewer
        self.limit = limit
        self.sent = 0
        """The version of the last entry the stream took (for a resume)."""
        self._items: deque[Delivery] = deque()
        self._wake = asyncio.Event()
        self._done = False
        self._error: RaminoError | None = None

    def push(self, item: Delivery) -> None:
        if self._done:
            return
        if len(self._items) >= self.limit:
            self._items.clear()
            self.fail(
                Busy(
                    f"the watch fell more than {self.limit} events behind; "
                    f"resume with after_version={self.sent}",
                    "WATCHER_TOO_SLOW",
                )
            )
            return
        self._items.append(item)
        self._wake.set()

    def end(self) -> None:
        """Nothing more comes: the stream ends once its queue is sent."""
        self._done = True
        self._wake.set()

    def fail(self, error: RaminoError) -> None:
        """The stream ends with ``error`` once its queue is sent."""
        if self._error is None:
            self._error = error
        self.end()

    async def get(self) -> Delivery | None:
        """The next entry; None once the feed has ended."""
        while not self._items:
            if self._error is not None:
                raise self._error
            if self._done:
                return None
            self._wake.clear()
            await self._wake.wait()
        return self._items.popleft()


class Feed:
    """One game's entries after ``position``, fanned out to its watchers."""

    def __init__(
        self,
        store: Store,
        game_id: str,
        encode: Encode,
        position: int,
        on_close: Callable[[Feed], None],
    ) -> None:
        self.store = store
        self.game_id = game_id
        self.encode = encode
        self.position = position
        """The version of the last entry handed out."""
        self.closed = False
        self.classes: dict[int | None, set[Watcher]] = {}
        self._on_close = on_close
        self._task = asyncio.create_task(self._run(), name=f"watch feed {game_id}")

    def attach(self, watcher: Watcher) -> int:
        """Hands ``watcher`` every entry after the version returned."""
        self.classes.setdefault(watcher.viewer, set()).add(watcher)
        return self.position

    def detach(self, watcher: Watcher) -> None:
        watchers = self.classes.get(watcher.viewer)
        if watchers is not None:
            watchers.discard(watcher)
            if not watchers:
                del self.classes[watcher.viewer]
        if not self.classes:
            self.close()

    def close(self) -> asyncio.Task[None]:
        """Stops following the game; every watcher ends after its queue.
        Returns the feed's task, done once its subscription is closed."""
        self._shut()
        self._task.cancel()
        return self._task

    def _shut(self) -> None:
        if self.closed:
            return
        self.closed = True
        for watchers in self.classes.values():
            for w in watchers:
                w.end()
        self._on_close(self)

    async def _run(self) -> None:
        entries = aiter(self.store.subscribe(self.game_id, self.position))
        try:
            async for e in entries:
                data = json.loads(e.data)
                for viewer, watchers in list(self.classes.items()):
                    event = public_entry(data, viewer)
                    kind = type(event).__name__
                    item = Delivery(e.version, kind, self.encode(e.version, event, viewer))
                    for w in list(watchers):
                        w.push(item)
                self.position = e.version
                if ends_game(data):
                    break
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("watch feed failed", game=self.game_id)
            error = Interrupted(
                f"following the game failed; resume with after_version={self.position}",
                "WATCH_INTERRUPTED",
            )
            for watchers in self.classes.values():
                for w in watchers:
                    w.fail(error)
        finally:
            self._shut()
            close = getattr(entries, "aclose", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()
