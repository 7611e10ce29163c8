"""Watching games: each stream's entries through the fan-out, after a
snapshot or from a version.

Every stream that this replica ends reaches its client with a status
(and, where it resumes, the version to resume after), even a client that
reads nothing: its last send then waits in the transport, with the
stream's end behind it, and the stream cannot end itself. A stream that
nothing more comes to (too slow, its feed closed by the game's end, a
failure or the replica draining) and that has not ended ``watch_lag``
seconds later is ended by the transport from outside its task
(:data:`StreamEnd`), after the last message it handed on."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Hashable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from functools import partial
from typing import Any

import structlog

from ramino import reasons as R
from ramino import tasks
from ramino.app.games.cache import GameCache
from ramino.app.games.fanout import (
    Backlog,
    Encode,
    EncodeBatch,
    Feed,
    Own,
    Resume,
    SpectatorBudget,
    Turn,
    Watcher,
    interrupted,
    too_slow,
)
from ramino.app.games.invites import check_visible
from ramino.app.games.outcomes import SeenGame, seen_game
from ramino.app.log import END_EVENTS, LogEvent, entry_turn, public_entry
from ramino.engine import Seen
from ramino.engine.access import check_spectator
from ramino.errors import Busy, OutOfRange
from ramino.slots import CountedSlots
from ramino.store import Entry

log = structlog.get_logger("ramino.app")

CATCH_UP_BATCH = 256
"""Entries read from the store at a time, and sent in one batch at most."""
CATCH_UP_TURN = 32
"""Entries a catch-up replays before it gives the event loop back."""
SPECTATOR_SHARES = (8, 4)
"""A game's spectator places one client address, and one network, may
hold: an eighth and a quarter of them (:func:`spectator_shares`)."""
SPECTATORS_ANYONE = 16
"""A game's first places that one client may take all of (a small limit
is not shared)."""


def spectator_shares(places: int) -> tuple[int, int]:
    """The spectator places of a game of ``places`` that one client address
    and one network may hold: an eighth and a quarter of them, never fewer
    than ``SPECTATORS_ANYONE`` (nor than ``places``, if fewer): one
    address cannot fill a game's places and keep every other spectator out."""
    least = min(places, SPECTATORS_ANYONE)
    by_address, by_network = SPECTATOR_SHARES
    return max(places // by_address, least), max(places // by_network, least)


StreamEnd = Callable[[Resume], None]
"""Ends a stream now, from outside its task, with the error ``resume``
makes for the version of the last message the stream handed to the
transport (which the client gets before the end): the transport's, given
to :meth:`Watch.watch`; a watch without one has its task cancelled."""


def check_after_version(after_version: int | None, version: int) -> None:
    """Refuses a resume from a version the game does not have: negative, or
    past ``version``, the game's (``GameCache.load``'s: the store's latest,
    on a shared store too, so that a client resuming on another replica is
    compared with what every replica has written). Such a client holds
    versions the game never had, or lost (a store that failed over without
    them): it starts again with a snapshot (no ``after_version``)."""
    if after_version is not None and not 0 <= after_version <= version:
        raise OutOfRange(
            f"after_version {after_version} is not a version of this game "
            f"(0 to {version}): resume after a version it sent, or start again without one",
            R.AFTER_VERSION_OUT_OF_RANGE,
        )


class Cancelling:
    """The end of a stream that has no transport: its task cancelled
    (nothing reaches a client), only when it was too slow."""

    __slots__ = ("task",)

    def __init__(self, task: asyncio.Task[Any] | None) -> None:
        self.task = task

    def __call__(self, resume: Resume) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()


@dataclass(frozen=True, slots=True)
class WatchItem:
    """One message of a watch: a snapshot (``game``, as the watch's viewer
    sees it) or an entry (its ``type`` and ``payload``, what the watch's
    encoder made of it)."""

    version: int
    game: SeenGame | None = None
    type: str = ""
    payload: bytes = b""
    turn: Turn = None
    """Whose turn it is after the entry."""
    past: bool = False
    """Whether the game is known to be past the entry (a later one was
    read, or is queued for the stream): a seat's options at it would be
    none (:meth:`~ramino.app.games.moves.Moves.options_at`), so none are made
    (a catch-up over a long game costs no option per replayed entry)."""


class Watch:
    """The watch streams of the replica's games."""

    def __init__(self, cache: GameCache) -> None:
        self._t = cache
        self._feeds: dict[tuple[str, Encode], Feed] = {}
        self._game_feeds: dict[str, list[Feed]] = {}
        """The same feeds, by game."""
        cache.life.feeds = self._written
        self._watching: CountedSlots[tuple[str, int | None]] = CountedSlots()
        """Open streams by game and viewer (a seat, or None: the spectators)."""
        self._spectating: CountedSlots[tuple[str, Hashable]] = CountedSlots()
        """Open spectators' streams by game and client (its address, its network)."""
        limits = cache.limits
        self.budget = SpectatorBudget(limits.spectator_messages, limits.spectator_interval)
        """The replica's spectators' messages a second, batching or not."""
        self.clock: Callable[[], float] = time.monotonic
        """What a stream's backlog is timed by."""
        self._stopping: list[asyncio.Task[None]] = []
        """The feeds' tasks stopped by :meth:`begin_shutdown`, awaited by :meth:`stopped`."""
        self._dropped: set[asyncio.Task[None]] = set()
        """The tasks of feeds closed since (by their last watcher, or at the
        game's end) that are still winding down, awaited by :meth:`stopped`
        too: none outlives the server's loop."""
        self._closing = asyncio.Event()

    async def stopped(self) -> None:
        """Waits for the feeds stopped by :meth:`begin_shutdown`, and for
        those closed before that are still winding down."""
        await tasks.stop([*self._stopping, *self._dropped])

    async def watch(
        self,
        game_id: str,
        viewer: int | None,
        after_version: int | None,
        snapshot: bool,
        encode: Encode,
        batch: EncodeBatch | None = None,
        end: StreamEnd | None = None,
        ready: asyncio.Event | None = None,
        asked: bool = True,
        owner: object | None = None,
        origin: Sequence[Hashable] = (),
    ) -> AsyncIterator[WatchItem]:
        """The game's entries as ``viewer`` may see them, each made by
        ``encode`` once per viewer class (see :mod:`ramino.app.games.fanout`), after
        a snapshot when asked for or when ``after_version`` is None; an
        ``after_version`` that is not a version of the game is refused
        (:func:`check_after_version`) before anything is sent or held. A
        spectator given ``batch`` is sent its entries several to an item (at
        most one item per :meth:`spectator_interval`, and up to
        ``CATCH_UP_BATCH`` of those read from the store); one that did
        not ask for them (``asked`` False) is sent one entry an item until
        the replica's spectator budget is reached (:class:`SpectatorBudget`),
        then batches. Ends after the match's or the game's end, and when
        this replica shuts down.
        ``end``: what ends the stream from outside its task when it has not
        ended ``watch_lag`` seconds after nothing more came to it (a client
        that reads nothing); by default (:class:`Cancelling`) the task
        iterating is cancelled, and only when the stream was too slow.
        ``ready``: set once the watch's checks passed and it is attached (a
        watch resumed at the game's version yields nothing until the next
        event: its reader need not wait for an item to know it is open).
        ``owner``: the session this watch hands on to; the entries of its
        own moves are not handed to it (:class:`~ramino.app.games.fanout.Own`).
        ``origin``: who a spectator is, as the transport knows it (its
        address, then its network): each holds at most its share of the
        game's spectator places (:func:`spectator_shares`)."""
        spectator_batches = batch is not None and viewer is None
        batched = spectator_batches and asked
        game = await self._t.load(game_id)
        check_visible(game_id, game.header.private, viewer)
        check_spectator(viewer, game.header.spectators_disabled)
        check_after_version(after_version, game.version)
        # Spectators and each seat are counted apart: no number of
        # spectators keeps a seat from watching its own game.
        key = (game_id, viewer)
        limits = self._t.limits
        shared: list[tuple[str, Hashable]] = []
        if viewer is None:
            self._watching.take(key, limits.max_watchers_per_game, _too_many_spectators)
            try:
                shares = spectator_shares(limits.max_watchers_per_game)
                for client, share, what in zip(
                    origin, shares, ("address", "network"), strict=False
                ):
                    self._spectating.take(
                        (game_id, client), share, partial(_spectators_share, what)
                    )
                    shared.append((game_id, client))
            except BaseException:
                for place in shared:
                    self._spectating.give_back(place)
                self._watching.give_back(key)
                raise
        else:
            self._watching.take(
                key, limits.max_streams_per_seat, partial(_too_many_of_seat, viewer)
            )
        feed = watcher = None
        try:
            start = after_version
            with_snapshot = start is None or snapshot
            if start is None or with_snapshot:
                start = game.version
            live = game.status != "finished" and not self._closing.is_set()
            attached = game.version
            if live:
                # Attached before anything is sent: every entry after
                # ``attached`` comes through the feed, the others from the store.
                feed = self._feed(game_id, encode, game.version)
                if spectator_batches and feed.batch is None:
                    feed.batch = batch
                backlog = Backlog(limits.watch_queue, limits.watch_queue_bytes, limits.watch_lag)
                watcher = Watcher(viewer, backlog, self.clock, batched, spectator_batches, owner)
                end = end or Cancelling(asyncio.current_task())
                watcher.on_end = self._end_later(
                    end, watcher, limits.watch_lag, only_too_slow=isinstance(end, Cancelling)
                )
                watcher.sent = start
                attached = feed.attach(watcher)
                if batched:
                    self.budget.batching += 1
            if ready is not None:
                ready.set()
            if with_snapshot:
                yield WatchItem(game.version, game=seen_game(game, viewer))
            if self._closing.is_set():
                return
            last = start
            if start < attached or watcher is None:
                held: list[tuple[int, Seen[LogEvent], Turn]] = []
                until = attached if watcher is not None else None
                async with aclosing(self._replay(game_id, start, until)) as replay:
                    async for e, more in replay:
                        data = json.loads(e.data)
                        event = public_entry(data, viewer)
                        turn = entry_turn(data)
                        kind = type(event.value).__name__
                        ends = kind in END_EVENTS
                        if batch is not None and batched:
                            held.append((e.version, event, turn))
                            if more and not ends and len(held) < CATCH_UP_BATCH:
                                continue
                            payload = batch(held)
                            held = []
                        else:
                            payload = encode(e.version, event, turn)
                        last = e.version
                        if watcher is not None:
                            watcher.sent = last  # handed to the transport: it is sent
                        past = more or (watcher is not None and watcher.queued[0] > 0)
                        yield WatchItem(e.version, type=kind, payload=payload, turn=turn, past=past)
                        if ends:
                            return
            if watcher is None:
                return
            while (item := await watcher.get()) is not None:
                if item.version <= last:
                    continue
                last = item.version
                # Newer entries already queued: the game has moved past this one.
                past = watcher.queued[0] > 0
                yield WatchItem(
                    item.version, type=item.type, payload=item.payload, turn=item.turn, past=past
                )
                if item.type in END_EVENTS:
                    return
        finally:
            if watcher is not None:
                watcher.on_end = None  # the stream has ended: nothing to end
                if watcher.batched:
                    self.budget.batching -= 1
            if feed is not None and watcher is not None:
                feed.detach(watcher)
            self._watching.give_back(key)
            for place in shared:
                self._spectating.give_back(place)

    async def _replay(
        self, game_id: str, start: int, until: int | None
    ) -> AsyncGenerator[tuple[Entry, bool], None]:
        """The game's entries after ``start`` (up to ``until``, when given)
        from the store, each with whether another follows it here: read
        ``CATCH_UP_BATCH`` at a time (one page ahead, so that a page's last
        entry knows), never the whole log at once, and giving the event
        loop back every ``CATCH_UP_TURN`` entries: a catch-up over a long
        game holds the loop a few milliseconds at a time, and the replica
        a page or two of its entries."""
        store = self._t.store
        page = await store.read(game_id, start, CATCH_UP_BATCH)
        given = 0
        while page:
            if until is not None and page[-1].version >= until:
                page = [e for e in page if e.version <= until]
                ahead: list[Entry] = []
            elif len(page) < CATCH_UP_BATCH:
                ahead = []  # the log's end
            else:
                ahead = await store.read(game_id, page[-1].version, CATCH_UP_BATCH)
            for i, e in enumerate(page):
                yield e, i + 1 < len(page) or bool(ahead)
                given += 1
                if given % CATCH_UP_TURN == 0:
                    await asyncio.sleep(0)
            page = ahead

    def _feed(self, game_id: str, encode: Encode, position: int) -> Feed:
        """The feed of ``game_id`` through ``encode``, started at ``position``
        when there is none."""
        key = (game_id, encode)
        feed = self._feeds.get(key)
        if feed is None or feed.closed:
            feed = self._feeds[key] = Feed(
                self._t.store,
                game_id,
                encode,
                position,
                lambda f: self._drop_feed(key, f),
                budget=self.budget,
            )
            self._game_feeds.setdefault(game_id, []).append(feed)
        return feed

    @staticmethod
    def _end_later(
        end: StreamEnd, watcher: Watcher, lag: float, only_too_slow: bool = False
    ) -> Callable[[], None]:
        """What ends a stream that does not end by itself once nothing more
        comes to it: a client that reads nothing leaves the stream's last
        send waiting in the transport, and the stream's end behind it.
        ``lag`` seconds later, a stream still open is ended by ``end`` (its
        status goes out after what the stream handed on, and its place is
        freed): with WATCH_INTERRUPTED when its feed failed, else with
        WATCHER_TOO_SLOW (it did not take what it was sent in time).
        ``only_too_slow``: a stream with no transport (its task is
        cancelled) is ended so only when it was too slow."""

        def check() -> None:
            if watcher.on_end is None:
                return  # the stream ended by itself
            error = watcher.error
            failed = error is not None and error.reason == R.WATCH_INTERRUPTED
            end(interrupted if failed else too_slow)

        def ended() -> None:
            error = watcher.error
            if only_too_slow and (error is None or error.reason != R.WATCHER_TOO_SLOW):
                return
            asyncio.get_running_loop().call_later(lag, check)

        return ended

    def spectator_interval(self) -> float:
        """Seconds between two batches to a game's batching spectators:
        ``Limits.spectator_interval``, or longer, so that this replica sends
        its batching spectators ``Limits.spectator_messages`` a second at
        most in all (each one then gets fewer, larger batches)."""
        return self.budget.interval()

    def _drop_feed(self, key: tuple[str, Encode], feed: Feed) -> None:
        if not feed.task.done():
            self._dropped.add(feed.task)
            feed.task.add_done_callback(self._dropped.discard)
        if self._feeds.get(key) is feed:
            del self._feeds[key]
        feeds = self._game_feeds.get(key[0], [])
        if feed in feeds:
            feeds.remove(feed)
            if not feeds:
                del self._game_feeds[key[0]]

    def _written(
        self,
        game_id: str,
        before: int,
        events: Sequence[LogEvent],
        turns: Sequence[Turn],
        own: Own | None = None,
    ) -> None:
        """Hands the entries this replica appended to the game's feeds."""
        for feed in list(self._game_feeds.get(game_id, ())):
            feed.offer(before, events, turns, own)

    def watchers(self, game_id: str, viewer: int | None = None) -> int:
        """Open watch streams of ``game_id`` in this replica: the
        spectators', or those of seat ``viewer``."""
        return self._watching.count((game_id, viewer))

    @property
    def closing(self) -> bool:
        """Whether this replica is shutting down (its watches end for it,
        not for their games' end)."""
        return self._closing.is_set()

    def begin_shutdown(self) -> None:
        """Ends every watch stream: the server is draining."""
        self._closing.set()
        self._stopping.extend(feed.close() for feed in list(self._feeds.values()))


def _too_many_spectators(open_streams: int) -> Busy:
    return Busy(
        f"this game has {open_streams} open spectators' watch streams, "
        "the most this server allows",
        R.TOO_MANY_WATCHERS,
    )


def _spectators_share(what: str, open_streams: int) -> Busy:
    return Busy(
        f"this client's {what} holds {open_streams} of this game's spectator places, "
        "its share of them: other spectators keep theirs",
        R.TOO_MANY_WATCHERS,
    )


def _too_many_of_seat(seat: int, open_streams: int) -> Busy:
    return Busy(
        f"seat {seat} of this game has {open_streams} open watch streams, "
        "the most this server allows a seat",
        R.TOO_MANY_WATCHERS,
    )
