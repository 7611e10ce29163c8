"""Moves: a seat's, a bot's or a turn timer's, and the end of a game.

One move: load the game (from this replica's cache, caught up with the
store), check the expected version and the request id, let the engine decide,
append the new entries at the version the decision was made on, and only then
keep the result. Bots and turn timers act through the same path.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import orjson
import structlog
from prometheus_client import Counter

from ramino import reasons as R
from ramino.app.games.cache import GameCache, ended_error, first_answer
from ramino.app.games.fanout import Own
from ramino.app.games.outcomes import (
    KeptAnswer,
    LegalMoves,
    MoveOutcome,
    SeenGame,
    legal_moves,
    seen_game,
    with_hint,
)
from ramino.app.hosted import HostedGame
from ramino.app.log import (
    END_REASONS,
    GameCreated,
    LogEvent,
    engine_entries,
    entry,
    entry_turn,
    log_event,
)
from ramino.bots import make_bot
from ramino.bots.search import hint_budget
from ramino.engine import Command, Event, Game, Resign, see_event
from ramino.engine.access import check_seat
from ramino.errors import GameStateError, RaminoError
from ramino.pool import WorkPool
from ramino.store import DuplicateRequest, RequestRecord, StoreError, VersionConflict

log = structlog.get_logger("ramino.app")

MOVES = Counter("ramino_moves_applied", "Moves applied to games, by command", ["command"])
_MOVE_COUNTERS: dict[type, Any] = {}  # MOVES' children by command type, looked up once
POOLED_HAND = 16
"""Hands of more cards than every preset deals (15, and one drawn) are
searched in the work pool, off the event loop."""


@dataclass(frozen=True, slots=True)
class Applied:
    """A decided move: the version it was decided on, its entries, the
    engine's events among them, and the event of every entry."""

    before: int
    tail: str | None
    """The entry at ``before``, which the move was decided over."""
    entries: list[str]
    events: tuple[Event, ...]
    logged: tuple[LogEvent, ...]
    turns: tuple[int | None, ...]
    """Whose turn it is after each entry."""


class Moves:
    """Moves of seats, bots and timers, and ending games, over the replica's games."""

    def __init__(self, cache: GameCache, pool: WorkPool | None) -> None:
        """``pool``: where searches of a hand of more than ``POOLED_HAND``
        cards run (without one, on the event loop)."""
        self._t = cache
        self._pool = pool

    async def move(
        self,
        game_id: str,
        seat: int,
        command: Command,
        expected_version: int | None,
        request: RequestRecord | None,
        view: bool = True,
        hint: bool = True,
        by: object | None = None,
    ) -> MoveOutcome | KeptAnswer:
        """Plays ``command`` for ``seat`` and returns what the move did, as the mover sees it
        (``view``: with its view of the game; ``hint``: its next options with their hint;
        ``by``: the session that sent it, whose own watch is not handed the move's events);
        with a request id, the move's facts (the seat and its versions, :func:`move_facts`)
        are stored with it in ``request``'s record, so that a retry of the request gets the
        same outcome again (:meth:`_replay`) and a reuse of its id by anyone else gets
        REQUEST_ID_REUSED. Without ``expected_version``, a move that loses a race with
        another replica is decided again on the new state (up to a few times)."""
        for attempt in range(4):
            try:
                outcome, applied = await self._move_once(
                    game_id, seat, command, expected_version, request, view, hint
                )
            except VersionConflict:
                if expected_version is not None or attempt == 3:
                    raise
                continue
            if applied is not None:
                own = None if by is None else Own(by, len(applied.events))
                self._t.life.written(game_id, applied.before, applied.logged, applied.turns, own)
            return outcome
        raise AssertionError("unreachable")

    async def _move_once(
        self,
        game_id: str,
        seat: int,
        command: Command,
        expected_version: int | None,
        request: RequestRecord | None,
        view: bool,
        hint: bool,
    ) -> tuple[MoveOutcome | KeptAnswer, Applied | None]:
        """The move's answer, and what it appended (None when it answers a
        retry: nothing new), for the watch feeds once the lock is let go.

        The move is decided on the game as this replica holds it
        (:meth:`GameCache.cached`: on a shared store, one round trip a move)
        and appended over the entry it was decided on; when the store
        refuses that append (another replica wrote, or a failover lost what
        this one saw), or the move is refused, the game is loaded from the
        store and the move decided again there: a refusal is answered only
        as the store's game decides it."""
        async with self._t.lock(game_id):
            game = self._t.cached(game_id)
            # Where this replica is the store's only writer, its copy is the store's game.
            confirmed = game is None or not self._t.store.shared
            while True:
                try:
                    if game is None:
                        game = await self._t.load_locked(game_id)
                    return await self._decide(
                        game, seat, command, expected_version, request, view, hint
                    )
                except RaminoError as refused:
                    # A store's failure is no refusal: no first answer to look up.
                    lost = isinstance(refused, StoreError) and not isinstance(
                        refused, VersionConflict
                    )
                    if not confirmed and not lost:
                        game = None  # decided on this replica's copy: ask the store
                        confirmed = True
                        continue
                    if request is None or lost or refused.reason == R.REQUEST_ID_REUSED:
                        raise
                    # A request id is looked up only when the move is refused:
                    # a retry of a move that was applied meets a game that has
                    # moved on (stale version, illegal move) and gets the first
                    # answer instead; one that is legal again is caught by the
                    # store's append.
                    kept = await self._t.store.request(game_id, request.request_id)
                    if kept is None:
                        raise
                    return await self._replay(
                        game_id, first_answer(kept, request), view, hint
                    ), None

    async def _decide(
        self,
        game: HostedGame,
        seat: int,
        command: Command,
        expected_version: int | None,
        request: RequestRecord | None,
        view: bool,
        hint: bool,
    ) -> tuple[MoveOutcome | KeptAnswer, Applied | None]:
        """:meth:`_move_once` on ``game`` (the caller holds its lock)."""
        game_id = game.game_id
        check_seat(seat, len(game.players))
        if expected_version is not None and expected_version != game.version:
            raise VersionConflict(game_id, expected_version, game.version)
        if game.ended is not None:
            raise ended_error(game)
        if game.engine is None:
            raise GameStateError(
                "the game has not started: seats are open",
                R.GAME_NOT_STARTED,
            )
        reclaimed = seat in game.timed_out
        extra = (
            [entry("reclaimed", self._t.clock(), seat=seat, turn=game.engine.turn)]
            if reclaimed
            else []
        )
        applied = await self._apply(game, seat, command, extra, person=True)
        outcome = await self._outcome(
            game, seat, applied.events, applied.turns[len(extra) :], view, hint
        )
        if request is not None:
            facts = move_facts(seat, applied.before, game.version, len(applied.events))
            record = dataclasses.replace(request, response=facts)
            try:
                await self._append(game, applied, record)
            except DuplicateRequest as dup:
                first = first_answer(dup.record, request)
                return await self._replay(game_id, first, view, hint), None
        else:
            await self._append(game, applied, None)
        await self._applied(game, command, applied)
        return outcome, applied

    async def _replay(
        self, game_id: str, facts: bytes, view: bool, hint: bool
    ) -> MoveOutcome | KeptAnswer:
        """The outcome of the move whose facts a request record keeps (the
        caller holds the game's lock), the same as it was first: the game
        is folded from its log up to the move's version (this replica's
        copy when it is still there), and the mover's events, view and legal
        moves made again from that state. A record kept by an older server
        holds the transport's answer itself: it is given back as kept."""
        if not facts.startswith(b"{"):
            return KeptAnswer(facts)
        move = orjson.loads(facts)["move"]
        seat, version, count = int(move["seat"]), int(move["version"]), int(move["events"])
        game = await self._t.load_locked(game_id)
        # (A game loaded from a snapshot holds only the events after it.)
        if game.version != version or game.engine is None or len(game.engine.record.events) < count:
            entries = await self._t.store.read(game_id)
            game = HostedGame.fold([e for e in entries if e.version <= version])
        assert game.engine is not None
        events = game.engine.record.events
        logged = [
            e for e in await self._t.store.read(game_id, version - count) if e.version <= version
        ]
        turns = tuple(entry_turn(json.loads(e.data)) for e in logged)
        if len(turns) != count:
            turns = (None,) * count
        return await self._outcome(game, seat, events[len(events) - count :], turns, view, hint)

    async def _apply(
        self,
        game: HostedGame,
        seat: int,
        command: Command,
        extra: list[str],
        person: bool = False,
    ) -> Applied:
        """Decides one command (the caller holds the game's lock and then
        appends the entries with :meth:`_append`); ``person``: the seat's
        person plays it."""
        assert game.engine is not None
        before, tail = game.version, game.tail
        turn = game.engine.turn
        events = game.engine.apply(seat, command)
        turns = game.engine.turns
        now = self._t.clock()
        entries = [*extra, *engine_entries(events, now, turns)]
        noted = [json.loads(e) for e in extra]
        for data in noted:
            game.note(data)
        game.wrote(before + len(entries), entries)
        game.last_at = now
        if person:
            game.person_at = now
        return Applied(
            before,
            tail,
            entries,
            tuple(events),
            (*(log_event(d) for d in noted), *events),
            (*(turn for _ in noted), *turns),
        )

    async def _append(
        self, game: HostedGame, applied: Applied, record: RequestRecord | None
    ) -> None:
        """Appends a decided move's entries over the entry it was decided on."""
        await self._t.append(game, applied.before, applied.tail, applied.entries, record)

    async def _applied(self, game: HostedGame, command: Command, applied: Applied) -> None:
        """What follows an appended move: metrics, snapshot, cache, duties
        (the watch feeds are told after the game's lock)."""
        before = applied.before
        counter = _MOVE_COUNTERS.get(type(command))
        if counter is None:
            counter = _MOVE_COUNTERS[type(command)] = MOVES.labels(type(command).__name__)
        counter.inc()
        if (
            game.engine is not None
            and game.version // self._t.snapshot_every > before // self._t.snapshot_every
        ):
            await self._t.store.save_snapshot(game.game_id, game.version, game.snapshot())
        self._t.remember(game)
        await self._t.life.moved(game, self._t.turn_duty_at(game) is not None)

    async def _outcome(
        self,
        game: HostedGame,
        seat: int,
        events: Sequence[Event],
        turns: Sequence[int | None],
        view: bool = True,
        hint: bool = True,
    ) -> MoveOutcome:
        """What the move that made ``events`` (and left ``game`` as it is)
        did, as ``seat``, its mover, sees it (``turns``: whose turn it was
        after each event; ``view``: with the mover's view, which is then
        built; ``hint``: its options with their hint)."""
        engine = game.engine
        assert engine is not None
        legal = None
        turn = engine.turn
        if turn == seat:
            legal = await self._legal(game, seat, hint)
        return MoveOutcome(
            game.version,
            game.public_header(),
            None if game.ended is not None else turn,
            seen_game(game, seat) if view else None,
            tuple(see_event(e, seat) for e in events),
            legal,
            tuple(turns),
        )

    async def _legal(self, game: HostedGame, seat: int, hint: bool = True) -> LegalMoves:
        """:func:`legal_moves`, computed once per state of the game and seat
        (the answer to a move and a GetLegalMoves after it share it), its
        hint searched only once asked for (``hint``), in the work pool for
        a hand of more than ``POOLED_HAND`` cards; the caller holds the
        game's lock, so nothing changes the game meanwhile."""
        cached = game.legal
        if cached is not None and cached[0] == game.version and cached[1] == seat:
            found: LegalMoves = cached[2]
            if found.hinted or not hint:
                return found
            search = partial(with_hint, game, seat, found)
        else:
            search = partial(legal_moves, game, seat, hint)
        assert game.engine is not None
        if self._pool is None or len(game.engine.hand(seat)) <= POOLED_HAND:
            legal = search()
        else:
            legal = await self._pool.run(search)
        game.legal = (game.version, seat, legal)
        return legal

    async def legal(self, game_id: str, seat: int) -> LegalMoves:
        """``seat``'s legal moves now and the hint on its hand (none before
        the deal or after the end)."""
        async with self._t.lock(game_id):
            game = await self._t.load_locked(game_id)
            check_seat(seat, len(game.players))
            if game.engine is None or game.ended is not None:
                return LegalMoves(game.version, (), None)
            return await self._legal(game, seat)

    async def options_at(
        self, game_id: str, seat: int, version: int, hint: bool = True, view: bool = False
    ) -> LegalMoves | None:
        """What ``seat`` may do at ``version`` (no moves when the turn is
        another's; ``hint``: with the hint on its hand; ``view``: moves come
        with the seat's view, :attr:`LegalMoves.seen`), or None when the
        game has moved past ``version``: the options pushed to a seat's
        streams after the event at ``version``, made once per state (they
        share :meth:`legal`'s cache). Made from this replica's copy of the
        game when it is at ``version`` (a version names one state: the
        copy's was written or read by this replica), else from the store."""
        async with self._t.lock(game_id):
            game = self._t.cached(game_id)
            if game is None or game.version < version:
                game = await self._t.load_locked(game_id)
            if game.version != version:
                return None
            options = await self._options(game, seat, hint)
            if view and options.moves:
                # A copy: the cached moves are shared with GetLegalMoves.
                return dataclasses.replace(options, seen=seen_game(game, seat))
            return options

    async def _options(self, game: HostedGame, seat: int, hint: bool) -> LegalMoves:
        """What ``seat`` may do in ``game`` now (the caller holds its lock):
        no moves, and whose turn it is, when the turn is another's."""
        engine = game.engine
        if engine is None or game.ended is not None or engine.turn != seat:
            turn = None if engine is None or game.ended is not None else engine.turn
            return LegalMoves(game.version, (), None, turn)
        return await self._legal(game, seat, hint)

    async def seen(self, game_id: str, seat: int, hint: bool) -> tuple[SeenGame, LegalMoves]:
        """The game now as ``seat`` sees it, and what it may do (``hint``:
        with the hint on its hand), taken at once under the game's lock."""
        async with self._t.lock(game_id):
            game = await self._t.load_locked(game_id)
            check_seat(seat, len(game.players))
            return seen_game(game, seat), await self._options(game, seat, hint)

    async def legal_with_hint(
        self, game_id: str, seat: int, level: str | None
    ) -> tuple[LegalMoves, GameCreated, Command | None]:
        """What GetLegalMoves answers, taken under the game's lock once (all
        of one version): :meth:`legal`, the game's public header (its
        encoder's), and with a bot ``level`` the move that level would make
        now in ``seat``'s place (None: no level, or no move to make)."""
        async with self._t.lock(game_id):
            game = await self._t.load_locked(game_id)
            check_seat(seat, len(game.players))
            header = game.public_header()
            if game.engine is None or game.ended is not None:
                return LegalMoves(game.version, (), None), header, None
            legal = await self._legal(game, seat)
            suggested = None
            if level is not None and legal.moves:
                suggested = await self._suggest(game, seat, level)
            return legal, header, suggested

    async def _suggest(self, game: HostedGame, seat: int, level: str) -> Command | None:
        """The move the bot of ``level`` would make now for ``seat`` (which
        sees only that seat's view), or None when it is not ``seat``'s turn;
        the caller holds the game's lock. A searching level runs in the work
        pool."""
        engine = game.engine
        if game.ended is not None or engine is None or engine.turn != seat:
            return None
        # Seeded by the game and its version, never by its secret seed,
        # and searching a fixed number of deals with no clock: asking
        # again gives the same move.
        digest = hashlib.sha256(f"{game.game_id}/{engine.version}".encode()).digest()
        bot = make_bot(level, int.from_bytes(digest[:8], "little"), hint_budget(level))
        if self._pool is not None and bot.heavy:
            return await self._pool.run(bot.choose, engine, seat)
        return bot.choose(engine, seat)

    async def act_for(
        self,
        game_id: str,
        seat: int,
        version: int,
        choose: Callable[[Game], Command],
        timed_out: bool,
        heavy: bool = False,
    ) -> bool:
        """A server-side move (bot or timer) for ``seat`` at ``version``;
        False when the game has moved on meanwhile. ``heavy``: the choice is
        a search (the hard and expert bots), always run in the work pool."""
        async with self._t.lock(game_id):
            game = await self._t.load_locked(game_id)
            if (
                game.version != version
                or game.ended is not None
                or game.engine is None
                or game.engine.turn != seat
            ):
                return False
            extra = (
                []
                if not timed_out or seat in game.timed_out
                else [entry("timed_out", self._t.clock(), seat=seat, turn=seat)]
            )
            engine = game.engine
            if self._pool is not None and (heavy or len(engine.hand(seat)) > POOLED_HAND):
                # A bot's searches (on a large hand, or playouts), in the work pool; the lock
                # is held, so nothing changes the game meanwhile. A duty waits
                # for its slot in the pool rather than being refused.
                command = await self._pool.duty(choose, engine)
            else:
                command = choose(engine)
            applied = await self._apply(game, seat, command, extra)
            try:
                await self._append(game, applied, None)
            except VersionConflict:
                return False
            await self._applied(game, command, applied)
        self._t.life.written(game_id, applied.before, applied.logged, applied.turns)
        return True

    async def forfeit(self, game_id: str, version: int) -> tuple[int, ...]:
        """The abandonment of a rated game in play, decided at ``version``:
        the seats that stopped playing (:func:`stopped_playing`) resign, the
        server playing each resignation as the seat's, in one append at
        ``version``; the match ends when fewer than two seats are left in,
        and is rated as any (the forfeiting seats lose), else the others
        play on. The seats that forfeited, or none when the game moved on
        meanwhile (a move, another replica's forfeit: the append at
        ``version`` fails, so a forfeit is written once)."""
        async with self._t.lock(game_id):
            game = await self._t.load_locked(game_id)
            if game.version != version or game.status != "playing" or not game.header.rated:
                return ()
            assert game.engine is not None
            seats = stopped_playing(game)
            state = game.engine.state
            still_in = [i for i, s in enumerate(state.seats) if not s.resigned and i not in seats]
            if all(game.header.seats[i].bot is not None for i in still_in):
                # No person would be left: the bots' match would go on for
                # no one. They resign too (bots have no rating), which ends it.
                seats = (*seats, *still_in)
            parts = []
            for seat in seats:
                if game.engine.finished:
                    break
                parts.append(await self._apply(game, seat, Resign(), []))
            if not parts:
                return ()
            applied = Applied(
                parts[0].before,
                parts[0].tail,
                [e for p in parts for e in p.entries],
                tuple(e for p in parts for e in p.events),
                tuple(e for p in parts for e in p.logged),
                tuple(t for p in parts for t in p.turns),
            )
            # As the log's fold decides it (``HostedGame.note``): a
            # resignation restarts the abandon time of the seats still in.
            game.person_at = game.last_at
            try:
                await self._append(game, applied, None)
            except VersionConflict:
                return ()
            await self._applied(game, Resign(), applied)
        self._t.life.written(game_id, applied.before, applied.logged, applied.turns)
        forfeited = seats[: len(parts)]
        log.info("rated game forfeited", game=game_id, seats=list(forfeited))
        return forfeited

    async def end(
        self, game_id: str, reason: str, version: int | None = None, rated_dealt: bool = True
    ) -> HostedGame:
        """Ends ``game_id`` for ``reason`` (:data:`END_REASONS`), at ``version``
        when given (else at its latest); a finished game is left as it is. The
        game is then finished: its watchers get GameEnded, the expiry of
        finished games archives it, and no seat or bot acts in it again.
        Without ``rated_dealt``, a rated game already dealt is not ended
        (RATED_IN_PLAY), decided on the state it would be ended in."""
        assert reason in END_REASONS
        for attempt in range(4):
            async with self._t.lock(game_id):
                game = await self._t.load_locked(game_id)
                if game.status == "finished" or (version is not None and game.version != version):
                    return game
                if not rated_dealt and game.header.rated and game.engine is not None:
                    raise GameStateError(
                        "a rated game cannot be cancelled once dealt: its players resign "
                        "instead, and lose",
                        R.RATED_IN_PLAY,
                    )
                now = self._t.clock()
                ended = entry("ended", now, reason=reason)
                before = game.version
                game.ended = reason
                game.last_at = now
                try:
                    version = await self._t.store.append(
                        game_id, before, [ended], self._t.summary(game)
                    )
                    game.wrote(version, [ended])
                except VersionConflict:
                    self._t.forget(game_id)
                    if version is not None or attempt == 3:
                        raise
                    continue
                except BaseException:
                    self._t.forget(game_id)
                    raise
                self._t.remember(game)
                log.info("game ended", game=game_id, reason=reason)
                return game
        raise AssertionError("unreachable")

    async def cancel(self, game_id: str) -> HostedGame:
        """Ends ``game_id`` as cancelled (its creator asks); a cancelled game
        answers as it is, one that finished otherwise is FAILED_PRECONDITION.
        A rated game is cancelled only before its deal: once dealt, a
        creator about to lose would otherwise cancel it to keep a rating."""
        game = await self.end(game_id, "cancelled", rated_dealt=False)
        if game.ended != "cancelled":
            raise ended_error(game)
        return game


def stopped_playing(game: HostedGame) -> tuple[int, ...]:
    """Who stopped playing a game in play that no person acted in for its
    abandon time, as the log decides it (the same on every replica, and
    after a restart): the seat whose turn it is, every seat was waiting for
    it; and every seat whose turn timer ran out and that never came back
    (``timed_out``). The others were waiting for their turn and play on. A
    person's seat still in only (bots and resigned seats never forfeit);
    when none of them is to blame (no person to move, none timed out),
    every person still in stopped alike. The seat to move first."""
    engine = game.engine
    assert engine is not None
    seats = engine.state.seats
    people = [i for i, s in enumerate(game.header.seats) if s.bot is None and not seats[i].resigned]
    turn = engine.turn
    away = [i for i in people if i == turn] + [
        i for i in people if i in game.timed_out and i != turn
    ]
    return tuple(away or people)


def move_facts(seat: int, before: int, version: int, events: int) -> bytes:
    """What a request record keeps of a move: its seat, the versions it was
    decided on and it ended at, and how many engine events it made (the
    log's last entries up to ``version``); from these and the log the
    move's outcome is made again, the same (see :meth:`Moves._replay`)."""
    return orjson.dumps(
        {"move": {"seat": seat, "before": before, "version": version, "events": events}}
    )
