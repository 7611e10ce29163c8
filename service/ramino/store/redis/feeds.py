"""A replica's watch feeds on a few Redis connections: one sharded pub/sub
connection per Redis node (:class:`Feeds`), whatever the number of games
followed.

Each append (the ``APPEND`` script) publishes the entries it wrote on the
game's channel (``SPUBLISH``, in the same script, so a notice is sent only
for what was written): ``"<first version> <last version>\\n"`` then the
entries' texts, one a line (an entry is compact JSON: no raw newline). A
follower of a game (:meth:`Feeds.follow`) is subscribed to its channel on the
node that serves it (``SSUBSCRIBE``, confirmed), then reads the log after the
version it starts from (``XRANGE``), then takes the notices: an entry it
already gave is skipped, and a notice that does not follow the last entry
given (a notice lost with its connection, an entry written before the
subscription held) is made up by reading the log from there. Pub/sub gives
nothing twice but may lose notices with a connection; the versions and the
log make the feed exact: nothing missed, nothing given twice.

A reader whose connection is lost (a restart, a failover, a slot moved to
another node: Redis then unsubscribes the channel itself) subscribes its
channels again wherever the slot map now puts them, once they are confirmed
tells their followers to read the log from their last entry. A connection
that answers nothing for ``SILENCE`` seconds while pinged every
``PING_EVERY`` is dropped as lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import structlog

from ramino.store.base import Entry, StoreUnavailable
from ramino.store.redis.retry import RETRYABLE, TOPOLOGY, cancelled

log = structlog.get_logger("ramino.store")

PING_EVERY = 5.0
"""Seconds between two pings of a quiet feed connection."""
SILENCE = 15.0
"""Seconds without a word from a feed connection (pinged) before it is
dropped as lost."""
CATCH_UP_READS = 4
"""Log reads the feeds make at once (a replica that follows thousands of
games and reconnects reads each game's log: a few at a time, on the store's
command connections, not one a game)."""
BACKLOG = 1024
"""Notices a follower may hold unread before they are dropped and the log
is read instead."""


def notice_entries(data: bytes) -> tuple[int, list[Entry]] | None:
    """The entries of a notice, with the version before them; None for a
    notice that does not read as one (the log is read instead)."""
    head, _, body = data.partition(b"\n")
    try:
        first_text, last_text = head.split(b" ")
        first, last = int(first_text), int(last_text)
    except ValueError:
        return None
    texts = body.decode().split("\n")
    if first < 1 or len(texts) != last - first + 1:
        return None
    return first - 1, [Entry(first + i, text) for i, text in enumerate(texts)]


@dataclass(eq=False)
class _Follower:
    """One :meth:`Feeds.follow`: the notices for it, and whether its feed
    must read the log before it takes more (a reconnection)."""

    notices: deque[bytes] = field(default_factory=deque)
    gap: bool = False
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def notice(self, data: bytes) -> None:
        if len(self.notices) >= BACKLOG:
            self.notices.clear()
            self.gap = True
        else:
            self.notices.append(data)
        self.wake.set()

    def lost(self) -> None:
        self.notices.clear()
        self.gap = True
        self.wake.set()


class _Reader:
    """The pub/sub connection to one node and the channels subscribed on it."""

    def __init__(self, feeds: Feeds, node: str, conn: Any) -> None:
        self.feeds, self.node, self.conn = feeds, node, conn
        self.pending: dict[str, asyncio.Future[None]] = {}
        """Channels asked for and not yet confirmed."""
        self.channels: set[str] = set()
        """Channels confirmed on this connection."""
        self.leaving: set[str] = set()
        """Channels this replica unsubscribed (an unsubscription it did not
        ask for is Redis moving the slot away)."""
        self.heard = asyncio.get_running_loop().time()
        self.dead = False
        self.task = asyncio.create_task(self._run(), name=f"feeds {node}")

    async def subscribe(self, channel: str) -> None:
        waiter = self.pending.get(channel)
        if waiter is None:
            waiter = self.pending[channel] = asyncio.get_running_loop().create_future()
            self.leaving.discard(channel)
            try:
                await self.conn.send_command("SSUBSCRIBE", channel, check_health=False)
            except BaseException:
                del self.pending[channel]
                waiter.set_result(None)
                raise
        await asyncio.shield(waiter)

    async def unsubscribe(self, channel: str) -> None:
        self.channels.discard(channel)
        self.leaving.add(channel)
        await self.conn.send_command("SUNSUBSCRIBE", channel, check_health=False)

    async def _run(self) -> None:
        pinger = asyncio.create_task(self._ping())
        try:
            while True:
                reply = await self.conn.read_response(timeout=math.inf)
                self.heard = asyncio.get_running_loop().time()
                self._take(reply)
        except asyncio.CancelledError:
            raise
        except Exception as failed:
            if not isinstance(failed, (*RETRYABLE, *TOPOLOGY)):
                log.warning("feed connection failed", node=self.node, error=repr(failed))
        finally:
            pinger.cancel()
            self.dead = True
            with contextlib.suppress(Exception):
                await self.conn.disconnect()
            if not cancelled():
                self.feeds._lost(self)

    def _take(self, reply: Any) -> None:
        if not isinstance(reply, list) or len(reply) < 3:
            return  # a pong
        kind, channel = bytes(reply[0]), bytes(reply[1]).decode()
        if kind == b"smessage":
            for follower in self.feeds._followers.get(channel, ()):
                follower.notice(bytes(reply[2]))
        elif kind == b"ssubscribe":
            self.channels.add(channel)
            waiter = self.pending.pop(channel, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
        elif kind == b"sunsubscribe":
            if channel in self.leaving:
                self.leaving.discard(channel)
            else:
                # Redis moved the channel's slot away: subscribe it where it is now.
                self.channels.discard(channel)
                self.feeds._moved(self, channel)

    async def _ping(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(PING_EVERY)
            if loop.time() - self.heard > SILENCE:
                log.warning("feed connection silent: dropped", node=self.node)
                self.task.cancel()  # its finally reports it lost
                return
            with contextlib.suppress(Exception):
                await self.conn.send_command("PING", check_health=False)

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task
        for waiter in self.pending.values():
            waiter.cancel()


Connect = Callable[[str], Awaitable[tuple[str, Any]]]
"""The node that serves a channel now and a new pub/sub connection to it."""
Read = Callable[[str, int], Awaitable[list[Entry]]]
"""A game's log after a version (the store's ``read``)."""


class Feeds:
    """Every game this replica follows, on one pub/sub connection per node."""

    def __init__(
        self,
        connect: Connect,
        node_of: Callable[[str], Awaitable[str]],
        read: Read,
        refresh: Callable[[], Awaitable[None]],
    ) -> None:
        """``refresh``: reloads where the channels are served (a Cluster's
        slot map), after a subscription failed."""
        self._connect = connect
        self._node_of = node_of
        self._refresh = refresh
        self._read = read
        self._followers: dict[str, set[_Follower]] = {}
        self._routes: dict[str, _Reader] = {}
        """The reader each followed channel is subscribed on (or asked on)."""
        self._readers: dict[str, _Reader] = {}
        self._reading = asyncio.Semaphore(CATCH_UP_READS)
        self._rerouting: set[asyncio.Task[None]] = set()
        self._closed = False

    @property
    def connections(self) -> int:
        """Open pub/sub connections (one a node followed)."""
        return sum(1 for r in self._readers.values() if not r.dead)

    @property
    def channels(self) -> int:
        return len(self._followers)

    async def follow(self, game_id: str, channel: str, after: int) -> AsyncIterator[Entry]:
        """Every entry of ``game_id`` after version ``after``, in order, none
        missed and none twice, whichever replica wrote it."""
        follower = _Follower()
        followers = self._followers.setdefault(channel, set())
        followers.add(follower)
        try:
            await self._subscribe(channel)
            last = after
            follower.gap = True  # the log first: the subscription now holds
            while True:
                if follower.gap:
                    follower.gap = False
                    follower.notices.clear()
                    for e in await self._catch_up(game_id, last):
                        if e.version > last:
                            yield e
                            last = e.version
                    continue
                if not follower.notices:
                    follower.wake.clear()
                    await follower.wake.wait()
                    continue
                parsed = notice_entries(follower.notices.popleft())
                if parsed is None or parsed[0] > last:
                    follower.gap = True  # it does not follow the last entry given
                    continue
                for e in parsed[1]:
                    if e.version > last:
                        yield e
                        last = e.version
        finally:
            followers.discard(follower)
            if not followers and self._followers.get(channel) is followers:
                del self._followers[channel]
                reader = self._routes.pop(channel, None)
                if reader is not None and not reader.dead:
                    with contextlib.suppress(Exception):
                        await reader.unsubscribe(channel)

    async def _catch_up(self, game_id: str, last: int) -> list[Entry]:
        """The log after ``last``, read a few games at a time, waiting out
        a store out of reach."""
        delay = 0.05
        while True:
            try:
                async with self._reading:
                    return await self._read(game_id, last)
            except (*RETRYABLE, *TOPOLOGY, StoreUnavailable):
                if cancelled():
                    raise asyncio.CancelledError from None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)

    async def _subscribe(self, channel: str) -> None:
        """Subscribes ``channel`` on the node that serves it, confirmed;
        tried again (a node restarting, a failover) until it holds."""
        delay = 0.05
        while True:
            reader = self._routes.get(channel)
            try:
                if reader is None or reader.dead:
                    reader = await self._reader_of(channel)
                    self._routes[channel] = reader
                await reader.subscribe(channel)
                if not reader.dead:
                    return
            except (*RETRYABLE, *TOPOLOGY, StoreUnavailable):
                pass
            if cancelled():
                raise asyncio.CancelledError
            self._routes.pop(channel, None)
            await asyncio.sleep(delay)
            await self._refresh()
            delay = min(delay * 2, 1.0)

    async def _reader_of(self, channel: str) -> _Reader:
        node = await self._node_of(channel)
        reader = self._readers.get(node)
        if reader is None or reader.dead:
            name, conn = await self._connect(channel)
            reader = self._readers.get(name)
            if reader is None or reader.dead:
                reader = self._readers[name] = _Reader(self, name, conn)
            else:
                with contextlib.suppress(Exception):
                    await conn.disconnect()
        return reader

    def _lost(self, reader: _Reader) -> None:
        """A reader's connection is gone: its channels are subscribed again
        wherever they are served now, then their followers read the log."""
        if self._closed:
            return
        if self._readers.get(reader.node) is reader:
            del self._readers[reader.node]
        for waiter in reader.pending.values():
            if not waiter.done():
                waiter.set_result(None)  # its subscriber sees the reader dead
        channels = [c for c, r in self._routes.items() if r is reader]
        for channel in channels:
            del self._routes[channel]
        self._reroute(channels)

    def _moved(self, reader: _Reader, channel: str) -> None:
        if self._routes.get(channel) is reader:
            del self._routes[channel]
            self._reroute([channel])

    def _reroute(self, channels: list[str]) -> None:
        if not channels or self._closed:
            return
        task = asyncio.create_task(self._resubscribe(channels))
        self._rerouting.add(task)
        task.add_done_callback(self._rerouting.discard)

    async def _resubscribe(self, channels: list[str]) -> None:
        async def again(channel: str) -> None:
            if channel not in self._followers:
                return
            await self._subscribe(channel)
            for follower in self._followers.get(channel, ()):
                follower.lost()

        await asyncio.gather(*(again(c) for c in channels))

    async def close(self) -> None:
        self._closed = True
        for task in list(self._rerouting):
            task.cancel()
        for reader in list(self._readers.values()):
            await reader.close()
        self._readers.clear()
