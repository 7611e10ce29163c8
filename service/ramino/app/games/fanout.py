"""Watching a game at the cost of one viewer class, not one watcher.

A :class:`Feed` follows one game in this replica: one subscription to the
store, each entry parsed once, projected and encoded once per viewer class
that has a watcher (each seat, and the spectators), and the encoded entry
handed to every watcher of that class. A :class:`Watcher` holds a queue of
what its stream has not sent yet, bounded in entries, in bytes and in time
(:class:`Backlog`): a watcher that falls behind (a client that stops reading) is ended with
RESOURCE_EXHAUSTED, reason ``WATCHER_TOO_SLOW``, naming the last version it
was sent, from which it resumes with ``after_version``, and it holds
nothing more for the feed meanwhile.

Every spectator's stream is under one replica-wide budget of messages a
second (:class:`SpectatorBudget`): the spectators that ask for batches get
fewer, larger ones as their number grows, and once the budget is spent
the spectators that did not ask are sent batches too (their messages
would otherwise cost a send per event each, however fast the game).

The feed knows nothing of the transport: the encoder it is given turns an
entry as a class sees it (its version and the event through the engine's
viewer filter) into what the streams send. In one process the entries a
move appended are handed to the feed as the move built them
(:meth:`Feed.offer`); across replicas they come from the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import structlog

from ramino import reasons as R
from ramino.app.log import END_EVENTS, LogEvent, entry_turn, log_event
from ramino.engine import Seen, see_event
from ramino.errors import Busy, Interrupted, RaminoError
from ramino.store import Store

log = structlog.get_logger("ramino.watch")


def _resume_with(message: str, after_version: int) -> str:
    return f"{message}; resume with after_version={after_version}"


class WatcherTooSlow(Busy):
    """A stream ended because its client did not take what it was sent
    (``WATCHER_TOO_SLOW``): it resumes after :attr:`after_version`."""

    def __init__(self, message: str, after_version: int) -> None:
        super().__init__(_resume_with(message, after_version), R.WATCHER_TOO_SLOW)
        self.why, self.after_version = message, after_version

    def __reduce__(self) -> tuple[type[WatcherTooSlow], tuple[str, int]]:  # type: ignore[override]
        return (type(self), (self.why, self.after_version))


class WatchInterrupted(Interrupted):
    """A stream ended because following its game failed on the server
    (``WATCH_INTERRUPTED``): it resumes after :attr:`after_version`."""

    def __init__(self, message: str, after_version: int) -> None:
        super().__init__(_resume_with(message, after_version), R.WATCH_INTERRUPTED)
        self.why, self.after_version = message, after_version

    def __reduce__(self) -> tuple[type[WatchInterrupted], tuple[str, int]]:  # type: ignore[override]
        return (type(self), (self.why, self.after_version))


Resume = Callable[[int], RaminoError]
"""The error that ends a stream, made for the version it resumes after."""


def too_slow(after_version: int) -> WatcherTooSlow:
    """The end of a stream whose client did not take what it was sent."""
    return WatcherTooSlow("the stream fell behind", after_version)


def interrupted(after_version: int) -> WatchInterrupted:
    """The end of a stream whose game's feed failed."""
    return WatchInterrupted("following the game failed", after_version)


Turn = int | None
"""Whose turn it is after an entry (None: no seat is to play, or not logged)."""
Encode = Callable[[int, Seen[LogEvent], Turn], bytes]
"""An entry as a viewer class sees it (version, the event projected for
the class: a seat, or ``None`` for the spectators, and whose turn it is
after it) -> the bytes sent (measured against a stream's backlog)."""
EncodeBatch = Callable[[Sequence[tuple[int, Seen[LogEvent], Turn]]], bytes]
"""Entries in version order as a viewer class sees them -> the bytes of
one message carrying them all."""


@dataclass(frozen=True, slots=True)
class Own:
    """The last ``count`` entries of a write are a move of the stream
    ``by`` (a seat's session), which has them in the move's answer: its
    watcher is not handed them, and they are not encoded for it."""

    by: object
    count: int


@dataclass(frozen=True, slots=True)
class Delivery:
    """One entry, encoded for one viewer class."""

    version: int
    type: str
    payload: bytes
    turn: Turn = None
    """Whose turn it is after the entry."""


@dataclass(frozen=True, slots=True)
class Backlog:
    """How far a watch stream may fall behind before it is ended: entries
    and bytes handed to it and not yet taken, and seconds the oldest of
    them has waited."""

    entries: int = 1024
    bytes: int = 256 * 1024
    seconds: float = 1.0


class Watcher:
    """One watch stream's queue of encoded entries, bounded by ``backlog``.

    The stream takes an entry when it hands it to the transport; an entry
    not taken ``backlog.seconds`` after it came (the transport does not
    take more: the client stopped reading and its window is full), or a
    queue past ``backlog.entries`` or ``backlog.bytes``, ends the stream
    with WATCHER_TOO_SLOW naming the last version taken, which is the
    last the client gets: a resume from it repeats nothing."""

    __slots__ = (
        "viewer",
        "owner",
        "batched",
        "may_batch",
        "backlog",
        "clock",
        "sent",
        "_items",
        "_bytes",
        "_waiter",
        "_done",
        "_error",
        "on_end",
    )

    def __init__(
        self,
        viewer: int | None,
        backlog: Backlog,
        clock: Callable[[], float] = time.monotonic,
        batched: bool = False,
        may_batch: bool | None = None,
        owner: object | None = None,
    ) -> None:
        self.viewer = viewer
        self.owner = owner
        """The stream this watcher hands on to (a session): the entries of
        its own moves are not handed to it (:class:`Own`)."""
        self.batched = batched
        """Whether the stream is sent its feed's batches (spectators only)."""
        self.may_batch = batched if may_batch is None else may_batch
        """Whether the stream may be sent batches: a spectator's that did
        not ask for them is, once the replica's budget is spent."""
        self.backlog = backlog
        self.clock = clock
        self.sent = 0
        """The version of the last entry the stream took (for a resume)."""
        # Made when first needed: a quiet stream holds neither (a deque
        # and an Event's deque of waiters, about 1.5 kB of each idle
        # stream, measured: bench/README.md, issue 46).
        self._items: deque[tuple[float, Delivery]] | None = None
        self._bytes = 0
        self._waiter: asyncio.Future[None] | None = None
        """What :meth:`get` awaits while the queue is empty."""
        self._done = False
        self._error: RaminoError | None = None
        self.on_end: Callable[[], None] | None = None
        """Called once when nothing more comes to the stream (its feed
        closed, it failed, or it was ended as too slow): its transport may
        still hold a send that the client never takes, and the end behind it."""

    @property
    def queued(self) -> tuple[int, int]:
        """Entries and bytes handed to the stream and not taken yet."""
        return (0 if self._items is None else len(self._items)), self._bytes

    @property
    def error(self) -> RaminoError | None:
        """What the stream ends with once its queue is taken (None: no error)."""
        return self._error

    def push(self, item: Delivery) -> None:
        if self._done:
            return
        now = self.clock()
        size = len(item.payload)
        limit = self.backlog
        behind = None
        if self._items is None:
            self._items = deque()
        if len(self._items) >= limit.entries:
            behind = f"{len(self._items)} entries (the most is {limit.entries})"
        elif self._bytes + size > limit.bytes:
            behind = f"{self._bytes + size} bytes (the most is {limit.bytes})"
        elif self._items and now - self._items[0][0] > limit.seconds:
            behind = f"{now - self._items[0][0]:.1f} s (the most is {limit.seconds:g} s)"
        if behind is not None:
            self._items.clear()
            self._bytes = 0
            self.fail(WatcherTooSlow(f"the watch fell {behind} behind", self.sent))
            return
        self._items.append((now, item))
        self._bytes += size
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def end(self) -> None:
        """Nothing more comes: the stream ends once its queue is sent."""
        first = not self._done
        self._done = True
        self._wake()
        if first and self.on_end is not None:
            self.on_end()

    def fail(self, error: RaminoError) -> None:
        """The stream ends with ``error`` once its queue is sent."""
        if self._error is None:
            self._error = error
        self.end()

    async def get(self) -> Delivery | None:
        """The next entry, taken (:attr:`sent`); None once the feed has ended."""
        while not self._items:
            if self._error is not None:
                raise self._error
            if self._done:
                return None
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        _, item = self._items.popleft()
        self._bytes -= len(item.payload)
        self.sent = item.version
        return item


class SpectatorBudget:
    """The messages a second this replica sends its spectators in all,
    at most about ``per_second`` (``Limits.spectator_messages``), whether
    they asked for batches or not.

    A spectator's stream that asks for batches is sent one message per
    :meth:`interval` at most: ``floor`` (``Limits.spectator_interval``),
    or longer once the batching streams are many, so that together they
    stay within the budget. A spectator's stream that did not ask is sent
    a message per event, a cost no interval bounds (a fast game, many
    spectators), while the spectators were sent less than the budget in
    the last second (:meth:`reached`); once they were sent that much, its
    feed sends it batches too."""

    __slots__ = ("per_second", "floor", "clock", "batching", "_start", "_this", "_last")

    def __init__(
        self, per_second: float, floor: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.per_second = per_second
        self.floor = floor
        self.clock = clock
        self.batching = 0
        """Open spectators' streams that are sent batches, in every game."""
        self._start = clock()
        self._this = 0
        """Messages counted since ``_start`` (less than a second ago)."""
        self._last = 0
        """Messages counted in the second before ``_start``."""

    def interval(self) -> float:
        """Seconds between two batches to a game's batching spectators."""
        return max(self.floor, self.batching / self.per_second)

    def _roll(self, now: float) -> float:
        """Seconds into the current second, counted from ``_start``."""
        elapsed = now - self._start
        if elapsed >= 1.0:
            self._last = self._this if elapsed < 2.0 else 0
            self._this = 0
            self._start = now - elapsed % 1.0
            elapsed %= 1.0
        return elapsed

    def spend(self, messages: int) -> None:
        """Counts messages handed to spectators' streams."""
        self._roll(self.clock())
        self._this += messages

    def spent(self) -> float:
        """Messages handed to spectators' streams in about the last second."""
        elapsed = self._roll(self.clock())
        return self._this + self._last * (1.0 - elapsed)

    def reached(self) -> bool:
        """Whether the spectators were handed the budget's worth in the last second."""
        return self.spent() >= self.per_second


class Feed:
    """One game's entries after ``position``, fanned out to its watchers.

    The spectators that take batches (:attr:`Watcher.batched`) are handed
    one delivery per ``budget.interval()`` seconds at most, holding every
    entry since the last, made by :attr:`batch` once for all of them; an
    entry that comes after a quiet interval goes out at once. Batches end
    with the game's last entry and before the feed stops, so nothing is
    held back. The spectators that did not ask for batches are moved to
    them once the budget is reached (:meth:`SpectatorBudget.reached`), at
    an entry's delivery: the entries held for the next batch are sent
    first, so that none comes to a stream twice."""

    def __init__(
        self,
        store: Store,
        game_id: str,
        encode: Encode,
        position: int,
        on_close: Callable[[Feed], None],
        batch: EncodeBatch | None = None,
        budget: SpectatorBudget | None = None,
    ) -> None:
        self.store = store
        self.game_id = game_id
        self.encode = encode
        self.batch = batch
        """What a batch of spectators' entries is sent as."""
        self.budget = budget or SpectatorBudget(math.inf, 0.0)
        self.position = position
        """The version of the last entry handed out (or, to batched
        watchers, held for the next batch)."""
        self.closed = False
        self.classes: dict[int | None, set[Watcher]] = {}
        """The watchers sent each entry as it comes, by viewer class."""
        self.batched: set[Watcher] = set()
        """The spectators sent batches."""
        self._pending: list[tuple[int, Seen[LogEvent], Turn]] = []
        self._last_batch = -math.inf
        self._timer: asyncio.TimerHandle | None = None
        self._on_close = on_close
        self._task = asyncio.create_task(self._run(), name=f"watch feed {game_id}")

    def attach(self, watcher: Watcher) -> int:
        """Hands ``watcher`` every entry after the version returned."""
        if watcher.batched:
            self.batched.add(watcher)
            # The entries held for the next batch come in it.
            return self._pending[0][0] - 1 if self._pending else self.position
        self.classes.setdefault(watcher.viewer, set()).add(watcher)
        return self.position

    def detach(self, watcher: Watcher) -> None:
        self.batched.discard(watcher)
        watchers = self.classes.get(watcher.viewer)
        if watchers is not None:
            watchers.discard(watcher)
            if not watchers:
                del self.classes[watcher.viewer]
        if not self.classes and not self.batched:
            self.close()

    @property
    def task(self) -> asyncio.Task[None]:
        """The task following the game: done once the feed is closed."""
        return self._task

    def close(self) -> asyncio.Task[None]:
        """Stops following the game; every watcher ends after its queue.
        Returns the feed's task, done once its subscription is closed."""
        self._shut()
        self._task.cancel()
        return self._task

    def _watchers(self) -> list[Watcher]:
        return [w for watchers in self.classes.values() for w in watchers] + list(self.batched)

    def _shut(self) -> None:
        if self.closed:
            return
        self._send_batch()
        self.closed = True
        for w in self._watchers():
            w.end()
        self._on_close(self)

    def _send_batch(self) -> None:
        """Hands the entries held to the batched watchers, in one delivery."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, []
        if not pending or not self.batched:
            return
        assert self.batch is not None
        self._last_batch = asyncio.get_running_loop().time()
        version, last, turn = pending[-1]
        item = Delivery(version, type(last.value).__name__, self.batch(pending), turn)
        self.budget.spend(len(self.batched))
        for w in list(self.batched):
            w.push(item)

    def _batch_spectators(self) -> None:
        """Sends batches to the spectators that did not ask for them (the
        replica's budget is spent): after the entries held for the next
        batch go out to those that did, which the others already had."""
        watchers = self.classes.get(None, set())
        moving = [w for w in watchers if w.may_batch]
        if not moving:
            return
        self._send_batch()
        for w in moving:
            watchers.discard(w)
            w.batched = True
            self.batched.add(w)
            self.budget.batching += 1
        if not watchers:
            self.classes.pop(None, None)

    def _hold(self, version: int, event: Seen[LogEvent], turn: Turn) -> None:
        """Holds an entry for the next batch, sent now after a quiet interval."""
        self._pending.append((version, event, turn))
        if self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last_batch + self.budget.interval() - loop.time()
        if wait <= 0:
            self._send_batch()
        else:
            self._timer = loop.call_later(wait, self._send_batch)

    def offer(
        self,
        before: int,
        events: Sequence[LogEvent],
        turns: Sequence[Turn],
        own: Own | None = None,
    ) -> None:
        """The events of entries this replica appended after version
        ``before``, and whose turn it is after each, as the move built them:
        in one process the feed is handed them, not reading and parsing back
        what was just written. ``own``: the last of them are the answer of
        a session's move, not handed to its watcher.
        Taken only when they follow the last entry handed out; else (the
        subscription was first, or an entry of another writer comes
        between) the subscription brings them."""
        if self.closed or before != self.position:
            return
        mine = len(events) - own.count if own is not None else len(events)
        try:
            for i, (event, turn) in enumerate(zip(events, turns, strict=True)):
                by = own.by if own is not None and i >= mine else None
                if self._deliver(before + 1 + i, event, turn, by):
                    self.close()
                    return
        except Exception:
            self._failed()
            self.close()

    def _failed(self) -> None:
        """Ends every watcher with WATCH_INTERRUPTED (after what it was handed)."""
        log.exception("watch feed failed", game=self.game_id)
        self._send_batch()
        error = interrupted(self.position)
        for w in self._watchers():
            w.fail(error)

    def _deliver(self, version: int, event: LogEvent, turn: Turn, by: object = None) -> bool:
        """Hands one entry to each viewer class, projected for it by the
        engine and encoded once (not for a class whose only watcher is the
        stream ``by``, whose move made it); True when nothing can follow it."""
        spectators: Seen[LogEvent] | None = None
        kind = type(event).__name__
        if None in self.classes and self.batch is not None and self.budget.reached():
            self._batch_spectators()
        for viewer, watchers in list(self.classes.items()):
            if by is not None:
                watchers = {w for w in watchers if w.owner is not by}
                if not watchers:
                    continue
            seen = see_event(event, viewer)
            if viewer is None:
                spectators = seen
                self.budget.spend(len(watchers))
            item = Delivery(version, kind, self.encode(version, seen, turn), turn)
            for w in list(watchers):
                w.push(item)
        self.position = version
        if self.batched:
            self._hold(version, spectators or see_event(event, None), turn)
        if kind in END_EVENTS:
            self._send_batch()
            return True
        return False

    async def _run(self) -> None:
        entries = aiter(self.store.subscribe(self.game_id, self.position))
        try:
            async for e in entries:
                if e.version <= self.position:
                    continue  # handed over by this replica's move (:meth:`offer`)
                data = json.loads(e.data)
                if self._deliver(e.version, log_event(data), entry_turn(data)):
                    break
        except asyncio.CancelledError:
            raise
        except Exception:
            self._failed()
        finally:
            self._shut()
            close = getattr(entries, "aclose", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()
