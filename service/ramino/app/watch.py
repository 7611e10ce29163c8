"""Watching games: each stream's entries through the fan-out, after a
snapshot or from a version."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import structlog

from ramino.app.fanout import Encode, Feed, Watcher
from ramino.app.log import END_EVENTS, HostedGame, public_entry
from ramino.app.table import GameTable
from ramino.errors import Busy, NotPermitted

log = structlog.get_logger("ramino.app")


@dataclass(frozen=True, slots=True)
class WatchItem:
    """One message of a watch: a snapshot (``game``) or an entry (its
    ``type`` and ``payload``, what the watch's encoder made of it)."""

    version: int
    game: HostedGame | None = None
    type: str = ""
    payload: Any = None


class Watch:
    """The watch streams of the replica's games."""

    def __init__(self, table: GameTable) -> None:
        self._t = table
        self._feeds: dict[tuple[str, Encode], Feed] = {}
        self._watching: dict[str, int] = {}
        self._stopping: list[asyncio.Task[None]] = []
        """The feeds' tasks stopped by :meth:`begin_shutdown`, awaited by :meth:`stopped`."""
        self._closing = asyncio.Event()

    async def stopped(self) -> None:
        """Waits for the feeds stopped by :meth:`begin_shutdown`."""
        for task in self._stopping:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def watch(
        self,
        game_id: str,
        viewer: int | None,
        after_version: int | None,
        snapshot: bool,
        encode: Encode,
    ) -> AsyncIterator[WatchItem]:
        """The game's entries as ``viewer`` may see them, each made by
        ``encode`` once per viewer class (see :mod:`ramino.app.fanout`), after
        a snapshot when asked for or when ``after_version`` is not a version
        of the game. Ends after the match's or the game's end, and when this
        replica shuts down."""
        game = await self._t.load(game_id)
        if viewer is None and game.header.spectators_disabled:
            raise NotPermitted(
                "this game has no spectators: only its seats may watch it",
                "SPECTATING_DISABLED",
            )
        open_streams = self._watching.get(game_id, 0)
        if open_streams >= self._t.limits.max_watchers_per_game:
            raise Busy(
                f"this game has {open_streams} open watch streams, the most this server allows",
                "TOO_MANY_WATCHERS",
            )
        self._watching[game_id] = open_streams + 1
        feed = watcher = None
        try:
            start = after_version
            with_snapshot = start is None or snapshot or start > game.version or start < 0
            if start is None or with_snapshot:
                start = game.version
            live = game.status != "finished" and not self._closing.is_set()
            attached = game.version
            if live:
                # Attached before anything is sent: every entry after
                # ``attached`` comes through the feed, the others from the store.
                feed = self._feed(game_id, encode, game.version)
                watcher = Watcher(viewer, self._t.limits.watch_queue)
                watcher.sent = start
                attached = feed.attach(watcher)
            if with_snapshot:
                yield WatchItem(game.version, game=game)
            if self._closing.is_set():
                return
            last = start
            if start < attached or watcher is None:
                for e in await self._t.store.read(game_id, start):
                    if watcher is not None and e.version > attached:
                        break
                    event = public_entry(json.loads(e.data), viewer)
                    kind = type(event).__name__
                    yield WatchItem(e.version, type=kind, payload=encode(e.version, event, viewer))
                    last = e.version
                    if watcher is not None:
                        watcher.sent = last
                    if kind in END_EVENTS:
                        return
            if watcher is None:
                return
            while (item := await watcher.get()) is not None:
                if item.version <= last:
                    continue
                yield WatchItem(item.version, type=item.type, payload=item.payload)
                last = watcher.sent = item.version
                if item.type in END_EVENTS:
                    return
        finally:
            if feed is not None and watcher is not None:
                feed.detach(watcher)
            left = self._watching.get(game_id, 1) - 1
            if left > 0:
                self._watching[game_id] = left
            else:
                self._watching.pop(game_id, None)

    def _feed(self, game_id: str, encode: Encode, position: int) -> Feed:
        """The feed of ``game_id`` through ``encode``, started at ``position``
        when there is none."""
        key = (game_id, encode)
        feed = self._feeds.get(key)
        if feed is None or feed.closed:
            feed = self._feeds[key] = Feed(
                self._t.store, game_id, encode, position, lambda f: self._drop_feed(key, f)
            )
        return feed

    def _drop_feed(self, key: tuple[str, Encode], feed: Feed) -> None:
        if self._feeds.get(key) is feed:
            del self._feeds[key]

    def watchers(self, game_id: str) -> int:
        """Open watch streams of ``game_id`` in this replica."""
        return self._watching.get(game_id, 0)

    def begin_shutdown(self) -> None:
        """Ends every watch stream: the server is draining."""
        self._closing.set()
        self._stopping.extend(feed.close() for feed in list(self._feeds.values()))
