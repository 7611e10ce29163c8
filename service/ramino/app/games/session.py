"""A seat's session: the seat's moves in; out, in version order, each
move's answer, every event the seat may see, and what it may do whenever
that changes.

A session is a seat's watch (:meth:`Watch.watch`, through the game's feed:
one encoding per viewer class, the same bounded queue and the same
``WATCHER_TOO_SLOW``) merged with the answers of its moves, played one
after the other through :meth:`Moves.move` as a unary call plays them (same
outcome, idempotency and errors; a unary move of the same seat is an event
here like any other). A move's own events come in its answer, not again as
events: while a move is being played the events that arrive are held, and
when its answer comes (the move ended at version ``V`` with ``k`` events)
those up to ``V - k`` are sent first, those from ``V - k + 1`` to ``V``
dropped (they are the answer's), the rest after it.

A reopened session may name, in its start, the moves it is about to send
again (``resend``: their answers were lost with the last session, which may
have played them or not). They count as being played from the start: no
event, options or snapshot is sent before their answers can be placed, so
a resent move played before the loss is answered in place of its own
events, which the resumed watch replays (the first answer again, from its
request id's record), and one not played is played now. Either way each
version is handed out once, whatever the timing of the loss and of the
resend: the client needs no guard of its own. The named moves are waited
for until the client sends another move or ask, or half-closes, or the game
ends (its watch ends, the replica not shutting down): then the session ends
too, with the events held for them.

Options (a seat's legal moves and hint, :class:`LegalMoves`) ride with the
message after which they changed: with an event after which the turn is
the seat's (made once the queue holds nothing newer: a burst of events
costs one), with an event after which the turn has left it (none), with
an answer (its own). None are made for an event the game is known to be
past (:attr:`WatchItem.past`): a catch-up over a long game costs what a
spectator's does, and the options once, at its end. A session that asked
for ``option_views`` has options with moves made with the seat's view at
their version (:attr:`LegalMoves.seen`), under the same lock: its policy
sees the table they are for. Nothing here knows
the transport: items are values, and events come as the bytes the
watch's encoder made.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from ramino import reasons as R
from ramino import tasks
from ramino.app.games.cache import Limits
from ramino.app.games.fanout import Encode, WatcherTooSlow
from ramino.app.games.moves import Moves
from ramino.app.games.options import SeatTold
from ramino.app.games.outcomes import KeptAnswer, LegalMoves, MoveOutcome, SeenGame
from ramino.app.games.watch import Cancelling, StreamEnd, Watch, WatchItem
from ramino.app.log import END_EVENTS
from ramino.engine import Command
from ramino.errors import RaminoError
from ramino.store import RequestRecord

__all__ = ["Answer", "Ask", "SessionItem", "Session", "MAX_MOVES_QUEUED"]

FOLLOW_AHEAD = 4
"""The watch's items a session takes from its watcher before the merge has
taken the first: the merge keeps up, and the follower goes straight back
to the watcher (no wait for each item to be taken)."""

MAX_MOVES_QUEUED = 16
"""Answers a session holds unsent before it reads the client's next move:
a client that sends and does not read waits (the transport's flow
control), it is never buffered."""


@dataclass(frozen=True, slots=True)
class Answer:
    """The answer to one move of a session: its outcome or why it was
    refused; or what an ask brings (``snapshot``, or ``options`` made again
    with their hint), with no request id."""

    request_id: str
    outcome: MoveOutcome | KeptAnswer | None = None
    error: RaminoError | None = None
    snapshot: SeenGame | None = None
    options: LegalMoves | None = None
    asked: bool = False
    """An ask's answer (sent only when it brings a snapshot or options)."""

    def span(self) -> tuple[int, int] | None:
        """The version the move ended at and its number of events (None:
        a refusal, an answer kept as bytes, an ask); a snapshot's is its
        version and every event before it."""
        if isinstance(self.outcome, MoveOutcome):
            return self.outcome.version, len(self.outcome.events)
        if self.snapshot is not None:
            return self.snapshot.version, self.snapshot.version
        return None


@dataclass(frozen=True, slots=True)
class SessionItem:
    """One message of a session: a snapshot (``game``), an event
    (``payload``, as the watch's encoder made it), an answer, or options
    alone; ``options``: what the seat may do after it, when that changed."""

    version: int
    game: SeenGame | None = None
    payload: bytes = b""
    answer: Answer | None = None
    options: LegalMoves | None = None
    hints: bool = True
    """Whether the session asked for hints when this was sent: ``options``
    carry theirs only then."""


@dataclass(frozen=True, slots=True)
class Ask:
    """What a session sends from now on (None: unchanged), and whether a
    snapshot is wanted now."""

    hints: bool | None = None
    views: bool | None = None
    snapshot: bool = False


class Session:
    """One seat's session over one game in this replica."""

    def __init__(
        self,
        moves: Moves,
        watch: Watch,
        game_id: str,
        seat: int,
        encode: Encode,
        limits: Limits,
        hints: bool = True,
        views: bool = True,
        resend: tuple[str, ...] = (),
        option_views: bool = False,
    ) -> None:
        """``hints``: options carry the hint on the seat's hand (else it is
        never searched for this session); ``views``: each answer carries
        the mover's view (else it is never built for it); ``resend``: the
        request ids of the moves the client is about to send again;
        ``option_views``: options pushed with moves carry the seat's view
        at their version."""
        self._moves = moves
        self._watch = watch
        self.game_id = game_id
        self.seat = seat
        self._encode = encode
        self._limits = limits
        self.hints = hints
        self.views = views
        self.option_views = option_views
        self._out: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._opened = asyncio.Event()
        """Set once the watch's checks passed: moves are played from then on."""
        self._unsent = 0
        """Answers handed to the merge and not yet sent."""
        self._sent = asyncio.Event()
        self._in_flight = len(resend)
        """Moves being played (their events held until their answers
        come), counting from the start the named resends not yet read."""
        self._unread = set(resend)
        """Named resends the client has not sent yet."""
        self._resends = set(resend)
        """Named resends not yet answered: nothing but events before them
        and their answers is sent meanwhile."""
        self._held: WatchItem | None = None
        """The watch's snapshot, held while named resends are unanswered."""
        self.last = 0
        """The version of the last event or answer sent (a resume point)."""
        self._seat = SeatTold(moves, game_id, seat, views=option_views)
        """What the seat was last told it may do, and the rule for what next."""
        self._past = False
        """Whether the game is known to be past the last event sent (its
        options, were they asked for, would be none)."""
        self._owed = False
        """Whether the turn came to the seat with an event sent without its
        options (more was on its way): they are made once the merge is quiet."""

    # --- the client's side -----------------------------------------------------------
    #
    # The moves are played by the task that reads them (the transport's
    # reader), one at a time, in the order sent, once the session is open
    # (its watch's checks passed): no queue and no task of their own.

    async def play(
        self,
        request_id: str,
        command: Command,
        expected_version: int | None,
        record: RequestRecord | None,
    ) -> None:
        """Plays a move; its answer comes in the session's order."""
        await self._room()
        if request_id in self._unread:
            self._unread.discard(request_id)  # counted in flight from the start
        else:
            self._release()
            self._in_flight += 1  # before the move's events can reach the watch
        try:
            outcome = await self._moves.move(
                self.game_id,
                self.seat,
                command,
                expected_version,
                record,
                view=self.views,
                hint=self.hints,
                by=self,
            )
        except RaminoError as refused:
            self._hand(("played", Answer(request_id, error=refused)))
        except BaseException as bug:
            self._out.put_nowait(("failed", bug))
            raise
        else:
            self._hand(("played", Answer(request_id, outcome)))

    async def refuse(self, request_id: str, error: RaminoError) -> None:
        """Answers a move refused before it reached the game (its fields),
        in its place among the others."""
        await self._room()
        if request_id in self._unread:
            self._unread.discard(request_id)
            self._hand(("played", Answer(request_id, error=error)))
        else:
            self._release()
            self._hand(("answer", Answer(request_id, error=error)))

    async def ask(self, ask: Ask) -> None:
        """Changes what the session sends, in its place among the moves."""
        await self._room()
        self._release()
        await self._asked(ask)

    def fail(self, error: RaminoError) -> None:
        """Ends the session with ``error`` (the client sent what is no move)."""
        self._out.put_nowait(("failed", error))

    async def done(self) -> None:
        """The client sends no more moves: the session ends once they are answered."""
        await self._opened.wait()
        self._release()
        self._out.put_nowait(("closed", None))

    def _release(self) -> None:
        """The named resends not sent yet are not coming (the client sent
        something else first): the merge stops waiting for them."""
        if self._unread:
            self._out.put_nowait(("released", frozenset(self._unread)))
            self._unread.clear()

    async def _room(self) -> None:
        """Waits until the session is open and fewer than
        ``MAX_MOVES_QUEUED`` of its answers wait to be sent: a client that
        sends moves and reads nothing is not read further (the transport's
        flow control), its answers are never held without bound."""
        await self._opened.wait()
        while self._unsent >= MAX_MOVES_QUEUED:
            self._sent.clear()
            await self._sent.wait()

    def _hand(self, message: tuple[str, Answer]) -> None:
        self._unsent += 1
        self._out.put_nowait(message)

    async def _asked(self, ask: Ask) -> None:
        """An ask's answer, made in the moves' order (between two moves,
        the game as the first left it): a snapshot and its options when
        wanted, or the options again with their hint when hints were just
        turned on on the seat's turn; else nothing is sent."""
        turned_on = ask.hints is True and not self.hints
        if ask.hints is not None:
            self.hints = ask.hints
        if ask.views is not None:
            self.views = ask.views
        if ask.snapshot:
            self._in_flight += 1  # the events up to the snapshot are in it
            try:
                seen, options = await self._moves.seen(self.game_id, self.seat, self.hints)
            except BaseException as bug:
                self._out.put_nowait(("failed", bug))
                raise
            self._hand(("played", Answer("", snapshot=seen, options=options, asked=True)))
        elif turned_on and self._seat.told:
            now = await self._moves.options_at(
                self.game_id, self.seat, self.last, True, self.option_views
            )
            if now is not None and now.moves:
                self._hand(("answer", Answer("", options=now, asked=True)))

    # --- the watch's side ------------------------------------------------------------

    async def _follow(self, items: AsyncIterator[WatchItem]) -> None:
        """Hands the watch's items on, up to ``FOLLOW_AHEAD`` not yet taken
        by the merge: while the client is slow to read, the rest wait in
        the watcher's bounded queue (whose lag ends the session)."""
        try:
            async for item in items:
                self._ahead += 1
                self._out.put_nowait(("item", item))
                while self._ahead >= FOLLOW_AHEAD:
                    self._taken.clear()
                    await self._taken.wait()
        except RaminoError as error:
            self._out.put_nowait(("error", error))
            return
        self._out.put_nowait(("end", None))

    # --- the merge -------------------------------------------------------------------

    async def run(
        self, after_version: int | None, snapshot: bool, end: StreamEnd | None = None
    ) -> AsyncIterator[SessionItem]:
        """The session's messages until the game ends, the client is done
        (its moves answered) or the replica shuts down; raises
        ``WATCHER_TOO_SLOW`` (resume after :attr:`last`) for a client that
        does not keep up, and the watch's own errors. ``end``: what ends
        the session's stream from outside its task (see :meth:`Watch.watch`;
        by default the task iterating is cancelled)."""
        self._taken = asyncio.Event()
        self._ahead = 0
        """The watch's items handed to the merge and not yet taken by it."""
        ready = asyncio.Event()
        items = self._watch.watch(
            self.game_id,
            self.seat,
            after_version,
            snapshot,
            self._encode,
            end=end or Cancelling(asyncio.current_task()),
            ready=ready,
            owner=self,
        )
        # The watch's checks (the seat, the stream limits) are made before
        # anything runs beside the stream: its first item, or its being
        # ready (a session resumed at the game's version has no item until
        # the next event, and its moves are answered meanwhile).
        first = asyncio.ensure_future(anext(items, None))
        waiting = asyncio.ensure_future(ready.wait())
        try:
            await asyncio.wait((first, waiting), return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            first.cancel()  # this stream was cancelled: the watch ends
            raise
        finally:
            waiting.cancel()
        if first.done():
            first.result()  # the watch's refusal, raised here
        if after_version is not None:
            self.last = after_version
        # Resumed at the game's version with the turn the seat's: nothing
        # to replay, so its options come first (before any move it sent).
        # (Not while named resends are on their way: their answers bring them.)
        opening = (
            None
            if first.done() or self._resends
            else await self._moves.options_at(
                self.game_id, self.seat, self.last, self.hints, self.option_views
            )
        )
        follower = asyncio.create_task(self._follow(_chain(first, items)))
        self._opened.set()
        answers: deque[Answer] = deque()
        events: deque[WatchItem] = deque()
        ended = closed = False
        try:
            if opening is not None and opening.moves:
                self._seat.answered(opening)
                yield SessionItem(self.last, options=opening, hints=self.hints)
            while True:
                kind, value = await self._out.get()
                if kind == "item":
                    self._ahead -= 1
                    self._taken.set()
                    if value.game is not None:
                        if self._resends:
                            self._held = value
                        else:
                            yield await self._snapshot(value)
                    elif value.version > self.last:
                        events.append(value)
                        if len(events) > self._limits.watch_queue:
                            raise too_slow(self.last)
                elif kind in ("answer", "played"):
                    if kind == "played":
                        self._in_flight -= 1
                    answers.append(value)
                elif kind == "released":
                    self._in_flight -= len(value)
                    self._resends -= value
                elif kind == "end":
                    ended = True
                    if self._unread and not self._watch.closing:
                        # The game is over (the replica is not shutting
                        # down): the named resends the client has not sent
                        # are not coming in time to be played. Waiting for
                        # them would hold the session open, its last
                        # events unsent, until the client acts.
                        self._release()
                elif kind == "closed":
                    closed = True
                elif kind == "error":
                    if value.reason == R.WATCHER_TOO_SLOW:
                        raise too_slow(self.last)
                    raise value
                else:
                    raise value
                async for out in self._flush(answers, events):
                    yield out
                idle = self._in_flight == 0 and not answers
                if (ended and idle and not events) or (closed and idle):
                    return
                if (
                    not ended
                    and (self._seat.told is None or self._owed)
                    and not self._past
                    and self._quiet(events, answers)
                ):
                    self._owed = False
                    options = await self._seat.at(self.last, self.hints)
                    if options is not None:
                        yield SessionItem(self.last, options=options, hints=self.hints)
        finally:
            await tasks.stop([follower, first])
            with contextlib.suppress(Exception):
                await items.aclose()  # type: ignore[attr-defined]

    def _quiet(self, events: deque[WatchItem], answers: deque[Answer]) -> bool:
        return (
            not events
            and not answers
            and self._in_flight == 0
            and self._held is None
            and self._out.empty()
        )

    async def _snapshot(self, item: WatchItem) -> SessionItem:
        """The message of the watch's snapshot, with the options at its version."""
        assert item.game is not None
        self.last = item.version
        options = await self._seat.at(item.version, self.hints, with_view=False)
        return SessionItem(item.version, game=item.game, options=options, hints=self.hints)

    async def _flush(
        self, answers: deque[Answer], events: deque[WatchItem]
    ) -> AsyncIterator[SessionItem]:
        """What can be sent now, in version order."""
        while True:
            held = self._held
            if held is not None and not self._resends:
                self._held = None  # the named resends are answered (none went past it)
                yield await self._snapshot(held)
                continue
            # What the client will have been told once the held snapshot is sent.
            reach = self.last if held is None else max(self.last, held.version)
            if answers:
                answer = answers[0]
                span = answer.span()
                if span is None or span[0] <= reach:
                    self._popped(answers)
                    if (out := self._answered(answer)) is not None:
                        yield out
                    continue
                version, count = span
                if held is not None and held.version <= version - count:
                    self._held = None  # a resend played after the snapshot's version
                    yield await self._snapshot(held)
                    continue
                if events and events[0].version <= version - count:
                    async for out in self._event(events.popleft(), events, answers):
                        yield out
                    continue
                if reach >= version - count or (events and events[0].version > version - count):
                    self._popped(answers)
                    while events and events[0].version <= version:
                        events.popleft()  # the answer's own events (a snapshot's: all)
                    if (out := self._answered(answer)) is not None:
                        yield out
                    continue
                return  # the events before the move are still on their way
            if events and self._in_flight == 0 and held is None:
                async for out in self._event(events.popleft(), events, answers):
                    yield out
                continue
            return

    def _popped(self, answers: deque[Answer]) -> None:
        """Takes the first answer off to be sent: the client's next move may be read."""
        answers.popleft()
        self._unsent -= 1
        self._sent.set()

    def _answered(self, answer: Answer) -> SessionItem | None:
        """The message of an answer (None: an ask's options that the game
        has moved past since)."""
        self._resends.discard(answer.request_id)
        options = answer.options
        if answer.snapshot is not None:
            self.last = max(self.last, answer.snapshot.version)
            self._seat.answered(options)
            return SessionItem(self.last, game=answer.snapshot, options=options, hints=self.hints)
        if answer.asked:
            if options is None or options.version != self.last:
                return None
            self._seat.answered(options)
            return SessionItem(self.last, options=options, hints=self.hints)
        span = answer.span()
        if span is not None:
            self.last = max(self.last, span[0])
            outcome = answer.outcome
            assert isinstance(outcome, MoveOutcome)
            self._seat.answered(outcome.legal)
            self._owed = False
        return SessionItem(self.last, answer=answer, hints=self.hints)

    async def _event(
        self, item: WatchItem, events: deque[WatchItem], answers: deque[Answer]
    ) -> AsyncIterator[SessionItem]:
        if item.version <= self.last:
            return
        self.last = item.version
        self._past = item.past
        # Made once the queue holds nothing newer (a burst costs one), else
        # owed until nothing newer is on its way (the merge's loop makes
        # them when it is quiet, at the last version).
        now = self._quiet(events, answers)
        options = await self._seat.after(item, self.hints, now)
        self._owed = (
            item.turn == self.seat and item.type not in END_EVENTS and not (item.past or now)
        )
        yield SessionItem(item.version, payload=item.payload, options=options, hints=self.hints)


async def _chain(
    first: asyncio.Future[WatchItem | None], rest: AsyncIterator[WatchItem]
) -> AsyncIterator[WatchItem]:
    item = await first
    if item is None:
        return
    yield item
    async for item in rest:
        yield item


def too_slow(last: int) -> WatcherTooSlow:
    """The error of a session whose client does not keep up."""
    return WatcherTooSlow("the session fell behind", last)
