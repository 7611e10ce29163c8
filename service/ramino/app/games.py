"""The application layer: hosted games over a store.

One move: load the game (from this replica's cache, caught up with the
store), check the expected version and the request id, let the engine decide,
append the new entries at the version the decision was made on, and only then
keep the result. Bots and turn timers act through the same path.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import structlog
from prometheus_client import Counter, Gauge

import ramino
from ramino import limits
from ramino.app.duties import Duties
from ramino.app.fanout import Encode, Feed, Watcher
from ramino.app.log import (
    END_EVENTS,
    END_REASONS,
    Header,
    HostedGame,
    SeatSpec,
    engine_entries,
    entry,
    public_entry,
)
from ramino.app.outcomes import AnswerCodec, LegalMoves, MoveOutcome, legal_moves
from ramino.bots import BOT_KINDS
from ramino.engine import Command, Event, Game, View
from ramino.errors import BadRequest, Busy, GameStateError, NotPermitted, RaminoError
from ramino.pool import WorkPool
from ramino.store import (
    DuplicateRequest,
    Entry,
    GameExists,
    GameSummary,
    Page,
    RequestRecord,
    Store,
    VersionConflict,
)

log = structlog.get_logger("ramino.app")

MOVES = Counter("ramino_moves_applied", "Moves applied to games, by command", ["command"])
_MOVE_COUNTERS: dict[type, Any] = {}  # MOVES' children by command type, looked up once
ACTIVE = Gauge("ramino_active_games", "Games being played in this replica's cache")
MAX_CACHED = 20_000
POOLED_HAND = 16
"""Hands of more cards than every preset deals (15, and one drawn) are
searched in the work pool, off the event loop."""

Clock = Callable[[], float]
T = TypeVar("T")
A = TypeVar("A")


class GameLock:
    """The lock of one game id (first come, first served), kept in its table
    only while someone holds it or waits for it: a table of every game id
    ever named would grow without bound (ids come from clients, existing or
    not). Cheaper than an ``asyncio.Lock`` made for each use: taking a free
    lock and giving it back await nothing."""

    __slots__ = ("_table", "_game_id", "_locked", "_waiters", "_users")

    def __init__(self, table: dict[str, GameLock], game_id: str) -> None:
        self._table, self._game_id = table, game_id
        self._locked = False
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._users = 0  # the holder and the waiters

    def locked(self) -> bool:
        return self._locked

    async def __aenter__(self) -> None:
        self._users += 1
        if not self._locked:
            self._locked = True
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter  # resolved when the lock is handed over
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self._hand_over()  # handed over as this waiter was cancelled: pass it on
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            self._leave()
            raise

    async def __aexit__(self, *exc: object) -> None:
        self._hand_over()
        self._leave()

    def _hand_over(self) -> None:
        """The lock to the first live waiter (it stays locked), or free."""
        waiters = self._waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._locked = False

    def _leave(self) -> None:
        self._users -= 1
        if self._users == 0 and self._table.get(self._game_id) is self:
            del self._table[self._game_id]


@dataclass(frozen=True, slots=True)
class Applied:
    """A decided move: the version it was decided on, its entries, and the
    engine's events among them."""

    before: int
    entries: list[str]
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class WatchItem:
    """One message of a watch: a snapshot (``game``) or an entry (its
    ``type`` and ``payload``, what the watch's encoder made of it)."""

    version: int
    game: HostedGame | None = None
    type: str = ""
    payload: Any = None


@dataclass(frozen=True, slots=True)
class Limits:
    """What one replica allows."""

    max_watchers_per_game: int = 1000
    """Open watch streams of one game in this replica."""
    watch_queue: int = 1024
    """Entries a watch stream may fall behind before it is ended."""
    allow_bot_games: bool = False
    """Whether a game may have bots in every seat (tests, demos)."""
    abandon_after: float = 0.0
    """Seconds after which a game where no person acted is ended as
    abandoned; 0 for never."""


MAX_NAME = 64
"""The longest player name, in characters (after stripping spaces)."""


def _game_id_for(request: RequestRecord) -> str:
    """A create retried with the same request id by the same caller names
    the same game; another caller's same id names another game."""
    key = f"create:{len(request.scope)}:{request.scope}:{request.request_id}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def request_id_reused() -> BadRequest:
    return BadRequest(
        "this request id was already used for another request (another caller, "
        "method or request): send a new request id for a new request",
        "REQUEST_ID_REUSED",
    )


def _answer(first: RequestRecord, request: RequestRecord) -> bytes:
    """The first answer to a request id (as stored), for a retry of that
    same request; for anything else, REQUEST_ID_REUSED."""
    if not first.matches(request):
        raise request_id_reused()
    return first.response


class GameApp:
    """Hosted games over one store, as one replica serves them."""

    def __init__(
        self,
        store: Store,
        clock: Clock = time.time,
        seed_source: Callable[[], int] = lambda: secrets.randbits(256),
        run_duties: bool = True,
        bot_delay: float = 0.0,
        snapshot_every: int = 200,
        limits: Limits | None = None,
        pool: WorkPool | None = None,
    ) -> None:
        """``snapshot_every``: entries between two snapshots of a game;
        ``pool``: where bots search a hand of more than ``POOLED_HAND`` cards
        (without one, on the event loop)."""
        self._pool = pool
        self.store = store
        self.limits = limits or Limits()
        self._feeds: dict[tuple[str, Encode], Feed] = {}
        self._watching: dict[str, int] = {}
        self._stopping: list[asyncio.Task[None]] = []
        """The feeds' tasks stopped by :meth:`begin_shutdown`, awaited by :meth:`close`."""
        self._clock = clock
        self._seed_source = seed_source
        self._cache: dict[str, HostedGame] = {}
        self.snapshot_every = snapshot_every
        self._locks: dict[str, GameLock] = {}
        self.duties = Duties(self, clock, bot_delay) if run_duties else None
        self._janitor: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        ACTIVE.set_function(lambda: sum(1 for g in self._cache.values() if g.status == "playing"))

    async def close(self) -> None:
        self.begin_shutdown()
        for task in self._stopping:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.duties is not None:
            await self.duties.stop()
        if self._janitor is not None:
            self._janitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._janitor
        await self.store.close()

    # --- loading ------------------------------------------------------------

    def lock(self, game_id: str) -> GameLock:
        """The game's lock, for ``async with``."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = GameLock(self._locks, game_id)
        return lock

    async def with_game(self, game_id: str, use: Callable[[HostedGame], Awaitable[T]]) -> T:
        """``use`` of the game at the store's latest version, under the game's
        lock: no move of this replica changes the game while ``use`` awaits."""
        async with self.lock(game_id):
            return await use(await self._load(game_id))

    async def load(self, game_id: str) -> HostedGame:
        """The game at the store's latest version. Taken under the game's lock,
        so that no move of this replica is half applied while it is read."""
        async with self.lock(game_id):
            return await self._load(game_id)

    async def _load(self, game_id: str) -> HostedGame:
        """:meth:`load`, for a caller that holds the game's lock."""
        cached = self._cache.get(game_id)
        if cached is not None:
            if not self.store.shared:
                return cached
            newer = await self.store.read(game_id, cached.version)
            if not newer:
                return cached
            if cached.catch_up(newer):
                return cached
        game = await self._from_store(game_id)
        self._remember(game)
        return game

    async def _from_store(self, game_id: str) -> HostedGame:
        """The game from its latest snapshot and the entries after it, or
        from its whole log."""
        snapshot = await self.store.load_snapshot(game_id)
        if snapshot is not None and snapshot[0] > 1:
            version, text = snapshot
            try:
                return HostedGame.from_snapshot(text, await self.store.read(game_id, version))
            except ValueError:
                log.warning("snapshot unusable, folding the log", game=game_id, version=version)
        return HostedGame.fold(await self.store.read(game_id))

    def _remember(self, game: HostedGame) -> None:
        cache = self._cache
        if game.status == "finished":
            # Finished games are read rarely: fold them again when asked.
            cache.pop(game.game_id, None)
            return
        if len(cache) >= MAX_CACHED and game.game_id not in cache:
            del cache[next(iter(cache))]
        cache[game.game_id] = game

    def forget(self, game_id: str) -> None:
        self._cache.pop(game_id, None)

    def summary(self, game: HostedGame) -> GameSummary:
        h = game.header
        return GameSummary(
            game_id=h.game_id,
            variant=h.variant,
            status=game.status,
            created_at=h.created_at,
            open_seats=len(game.open_seats),
            seats=len(h.seats),
            version=game.version,
            duty_at=self._duty_at(game),
            finished_at=game.last_at if game.status == "finished" else None,
            extra={
                "seed_hash": h.seed_hash,
                "turn_timer_seconds": h.turn_timer_seconds,
                "spectators_disabled": h.spectators_disabled,
                "seats": [
                    {
                        "name": game.players[i] or "",
                        "bot": s.bot or "",
                        "taken": game.players[i] is not None,
                    }
                    for i, s in enumerate(h.seats)
                ],
            },
        )

    def _duty_at(self, game: HostedGame) -> float | None:
        """When a bot, a turn timer or the abandon time must next act in ``game``."""
        turn = self._turn_duty_at(game)
        abandon = self.abandon_at(game)
        if turn is None or abandon is None:
            return abandon if turn is None else turn
        return min(turn, abandon)

    def abandon_at(self, game: HostedGame) -> float | None:
        """When ``game`` is ended as abandoned unless a person acts in it."""
        after = self.limits.abandon_after
        if after <= 0 or game.status == "finished":
            return None
        return game.person_at + after

    @staticmethod
    def _turn_duty_at(game: HostedGame) -> float | None:
        """When a bot or a turn timer must next act in ``game``."""
        engine = game.engine
        if game.ended is not None or engine is None or engine.finished or engine.turn is None:
            return None
        if game.header.seats[engine.turn].bot is not None:
            return game.last_at
        timer = game.header.turn_timer_seconds
        return game.last_at + timer if timer > 0 else None

    async def start(self, retention: float | None = None, archive_dir: str | None = None) -> None:
        """Starts this replica's background work: duties (bots, timers, the
        sweep) and, with ``retention`` seconds, the expiry of finished games
        (archived as ``archive_dir/{game}.jsonl`` first when given)."""
        if self.duties is not None:
            self.duties.start()
        if retention is not None and self._janitor is None:
            self._janitor = asyncio.create_task(self._expire(retention, archive_dir))

    async def _expire(self, retention: float, archive_dir: str | None) -> None:
        archive = None
        if archive_dir is not None:
            folder = Path(archive_dir)
            folder.mkdir(parents=True, exist_ok=True)

            async def write(game_id: str, entries: list[Entry]) -> None:
                lines = "".join(e.data + "\n" for e in entries)
                (folder / f"{game_id}.jsonl").write_text(lines)

            archive = write
        while True:
            try:
                gone = await self.store.expire_finished(self._clock() - retention, archive)
                for game_id in gone:
                    self.forget(game_id)
                if gone:
                    log.info(
                        "finished games expired", count=len(gone), archived=archive is not None
                    )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("expiry failed")
            await asyncio.sleep(min(30.0, max(retention / 4, 0.05)))

    # --- lobby ----------------------------------------------------------------

    async def create(
        self,
        variant: str,
        overrides: dict[str, Any],
        seats: Sequence[SeatSpec],
        turn_timer_seconds: int = 0,
        request: RequestRecord | None = None,
        decks: Sequence[Sequence[int]] = (),
        spectators_disabled: bool = False,
    ) -> HostedGame:
        """A new game; ``request`` is the record of its request id, if any
        (a retry of it gets the same game). ``decks`` stacks the first
        deals: for tests only, the API never sets it."""
        if not seats:
            raise BadRequest(
                "a game needs seats",
                "NO_SEATS",
            )
        if all(s.bot is not None for s in seats) and not self.limits.allow_bot_games:
            raise BadRequest(
                "a game needs at least one seat for a person: this server does not host "
                "games of bots only",
                "ALL_BOT_GAME",
            )
        for i, s in enumerate(seats):
            if len(s.name) > MAX_NAME or s.name != s.name.strip():
                raise BadRequest(
                    f"seat {i}: a player name is at most {MAX_NAME} characters "
                    "(empty for an open seat or a bot), without spaces around it",
                    "BAD_PLAYER_NAME",
                )
            if s.bot is not None and s.bot not in BOT_KINDS:
                raise BadRequest(
                    f"unknown bot {s.bot!r}",
                    "BAD_BOT",
                )
        if not 0 <= turn_timer_seconds <= 24 * 3600:
            raise BadRequest(
                "the turn timer is 0 (none) to 86400 seconds",
                "BAD_TURN_TIMER",
            )
        seed = self._seed_source()
        # Checks the variant, the overrides and the seat count now, by dealing once.
        limits.check_game_variant(ramino.Variant(variant, **overrides))
        Game.new(
            variant,
            [f"seat {i}" for i in range(len(seats))],
            seed=seed,
            overrides=overrides,
            decks=decks,
        )
        game_id = _game_id_for(request) if request is not None else secrets.token_hex(8)
        now = self._clock()
        named = tuple(
            SeatSpec(s.name or (f"{s.bot} bot {i + 1}" if s.bot else ""), s.bot)
            for i, s in enumerate(seats)
        )
        header = Header(
            game_id,
            variant,
            dict(overrides),
            named,
            seed,
            turn_timer_seconds,
            now,
            tuple(tuple(d) for d in decks),
            spectators_disabled,
        )
        game = HostedGame(header, [s.name if s.bot else None for s in named], 1, now)
        try:
            await self.store.create(
                self.summary(game), entry("created", now, header=header.to_data()), request
            )
        except GameExists:
            if request is None:
                raise
            # A retry: the game is the first attempt's when the record says
            # so (gone with the game's older records, it cannot be told).
            first = await self.store.request(game_id, request.request_id)
            if first is None:
                raise request_id_reused() from None
            _answer(first, request)
            return await self.load(game_id)
        if not game.open_seats:
            async with self.lock(game_id):
                await self._start(game, [])
        self._remember(game)
        log.info("game created", game=game_id, variant=variant, seats=len(named))
        return game

    async def _start(
        self, game: HostedGame, before: list[str], request: RequestRecord | None = None
    ) -> None:
        """Appends the entries ``before`` and the deal at once."""
        now = self._clock()
        entries = [*before, *engine_entries(game.start(), now)]
        game.version = await self.store.append(
            game.game_id, game.version, entries, self.summary(game), request
        )
        game.last_at = now
        if self.duties is not None:
            self.duties.kick(game.game_id)

    async def join(
        self,
        game_id: str,
        seat: int | None,
        player_name: str,
        request: RequestRecord | None = None,
        player_id: str | None = None,
    ) -> tuple[HostedGame, int]:
        """Seats a person: ``request`` is the record of the request id, if
        any (its answer is the seat taken); ``player_id`` the verified player,
        when the server knows players (one seat per player and game). Losing
        a race with another replica's append, it decides again on the new
        state: each such loss is another seat taken, so a few tries settle it
        (no open seat left is an answer too)."""
        name = player_name.strip()
        if not name or len(name) > MAX_NAME:
            raise BadRequest(
                f"a player name is 1 to {MAX_NAME} characters",
                "BAD_PLAYER_NAME",
            )
        attempt = 0
        while True:
            try:
                return await self._join_once(game_id, seat, name, request, player_id)
            except VersionConflict:
                attempt += 1
                game = await self.load(game_id)
                if attempt > len(game.players) + 1:
                    raise

    async def _join_once(
        self,
        game_id: str,
        seat: int | None,
        name: str,
        request: RequestRecord | None,
        player_id: str | None,
    ) -> tuple[HostedGame, int]:
        async with self.lock(game_id):
            game = await self._load(game_id)
            if request is not None:
                first = await self.store.request(game_id, request.request_id)
                if first is not None:
                    return game, int(_answer(first, request))
            if game.ended is not None:
                raise _ended(game)
            if player_id is not None and player_id in game.player_ids.values():
                raise GameStateError(
                    "this player already holds a seat of this game",
                    "ALREADY_SEATED",
                )
            open_seats = game.open_seats
            if seat is None:
                if not open_seats:
                    raise GameStateError(
                        "every seat is taken",
                        "NO_OPEN_SEAT",
                    )
                seat = open_seats[0]
            elif not 0 <= seat < len(game.players):
                raise BadRequest(
                    f"the game has no seat {seat}",
                    "BAD_SEAT",
                )
            elif seat not in open_seats:
                raise GameStateError(
                    f"seat {seat} is taken",
                    "SEAT_TAKEN",
                )
            fields: dict[str, Any] = {"seat": seat, "player_name": name}
            if player_id is not None:
                fields["player_id"] = player_id
            joined = entry("joined", self._clock(), **fields)
            game.note(json.loads(joined))
            record = None
            if request is not None:
                record = dataclasses.replace(request, response=str(seat).encode())
            try:
                if game.open_seats:
                    game.version = await self.store.append(
                        game_id, game.version, [joined], self.summary(game), record
                    )
                else:
                    await self._start(game, [joined], record)
            except DuplicateRequest as dup:
                # The same request id landed through another replica meanwhile.
                self.forget(game_id)
                assert request is not None
                taken = int(_answer(dup.record, request))
                return await self._load(game_id), taken
            except BaseException:
                self.forget(game_id)
                raise
            return game, seat

    async def list_games(
        self, page_size: int, page_token: str, variant: str, status: str, open_only: bool
    ) -> Page:
        size = 50 if page_size <= 0 else min(page_size, 200)
        try:
            return await self.store.list_games(size, page_token, variant, status, open_only)
        except ValueError as e:
            raise BadRequest(
                str(e),
                "BAD_PAGE_TOKEN",
            ) from None

    # --- moves ------------------------------------------------------------------

    async def move(
        self,
        game_id: str,
        seat: int,
        command: Command,
        expected_version: int | None,
        request: RequestRecord | None,
        codec: AnswerCodec[A],
    ) -> A:
        """Plays ``command`` for ``seat`` and answers ``codec``'s answer to
        its :class:`MoveOutcome`; with a request id, that answer is stored
        with the move in ``request``'s record, so that a retry of the request
        gets it again and a reuse of its id by anyone else gets
        REQUEST_ID_REUSED. Without ``expected_version``, a move that loses a
        race with another replica is decided again on the new state (up to
        a few times)."""
        for attempt in range(4):
            try:
                return await self._move_once(
                    game_id, seat, command, expected_version, request, codec
                )
            except VersionConflict:
                if expected_version is not None or attempt == 3:
                    raise
        raise AssertionError("unreachable")

    async def _move_once(
        self,
        game_id: str,
        seat: int,
        command: Command,
        expected_version: int | None,
        request: RequestRecord | None,
        codec: AnswerCodec[A],
    ) -> A:
        async with self.lock(game_id):
            # A request id is looked up only when the move is refused: a
            # retry of a move that was applied meets a game that has moved on
            # (stale version, illegal move) and gets the first answer instead;
            # one that is legal again is caught by the store's append.
            try:
                game = await self._load(game_id)
                if not 0 <= seat < len(game.players):
                    raise NotPermitted(
                        "this seat token claims a seat the game does not have",
                        "NO_SUCH_SEAT",
                    )
                if expected_version is not None and expected_version != game.version:
                    raise VersionConflict(game_id, expected_version, game.version)
                if game.ended is not None:
                    raise _ended(game)
                if game.engine is None:
                    raise GameStateError(
                        "the game has not started: seats are open",
                        "GAME_NOT_STARTED",
                    )
                reclaimed = seat in game.timed_out
                extra = [entry("reclaimed", self._clock(), seat=seat)] if reclaimed else []
                events = await self._apply(game, seat, command, extra, person=True)
                outcome = await self._outcome(game, seat, events)
                answer = codec.answer(outcome)
                if request is not None:
                    record = dataclasses.replace(request, response=codec.dump(answer))
                    try:
                        await self._append(game, events.before, events.entries, record)
                    except DuplicateRequest as dup:
                        return codec.load(_answer(dup.record, request))
                else:
                    await self._append(game, events.before, events.entries, None)
                await self._applied(game, command, events.before)
                return answer
            except (RaminoError, VersionConflict) as refused:
                if request is None or getattr(refused, "reason", "") == "REQUEST_ID_REUSED":
                    raise
                first = await self.store.request(game_id, request.request_id)
                if first is None:
                    raise
                return codec.load(_answer(first, request))

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
        before = game.version
        events = game.engine.apply(seat, command)
        now = self._clock()
        entries = [*extra, *engine_entries(events, now)]
        for e in extra:
            game.note(json.loads(e))
        game.version = before + len(entries)
        game.last_at = now
        if person:
            game.person_at = now
        return Applied(before, entries, tuple(events))

    async def _append(
        self, game: HostedGame, before: int, entries: list[str], record: RequestRecord | None
    ) -> None:
        """Appends a decided move's entries at the version it was decided on."""
        try:
            await self.store.append(game.game_id, before, entries, self.summary(game), record)
        except BaseException:
            # The engine has moved on but the store has not: fold again next time.
            self.forget(game.game_id)
            raise

    async def _applied(self, game: HostedGame, command: Command, before: int) -> None:
        """What follows an appended move: metrics, snapshot, cache, duties."""
        counter = _MOVE_COUNTERS.get(type(command))
        if counter is None:
            counter = _MOVE_COUNTERS[type(command)] = MOVES.labels(type(command).__name__)
        counter.inc()
        if (
            game.engine is not None
            and game.version // self.snapshot_every > before // self.snapshot_every
        ):
            await self.store.save_snapshot(game.game_id, game.version, game.snapshot())
        self._remember(game)
        if self.duties is not None and self._turn_duty_at(game) is not None:
            self.duties.kick(game.game_id)

    async def _outcome(self, game: HostedGame, seat: int, applied: Applied) -> MoveOutcome:
        engine = game.engine
        view = None if engine is None else engine.view(seat)
        legal = None
        if engine is not None and view is not None and engine.turn == seat:
            legal = await self._legal(game, seat, view)
        return MoveOutcome(game, seat, applied.events, view, legal)

    async def _legal(self, game: HostedGame, seat: int, view: View) -> LegalMoves:
        """:func:`legal_moves`, in the work pool for a hand of more than
        ``POOLED_HAND`` cards; the caller holds the game's lock, so nothing
        changes the game meanwhile."""
        if self._pool is None or len(view.hand or ()) <= POOLED_HAND:
            return legal_moves(game, seat, view)
        return await self._pool.run(legal_moves, game, seat, view)

    async def legal(self, game_id: str, seat: int) -> LegalMoves:
        """``seat``'s legal moves now and the hint on its hand (none before
        the deal or after the end)."""
        async with self.lock(game_id):
            game = await self._load(game_id)
            if not 0 <= seat < len(game.players):
                raise NotPermitted(
                    "this seat token claims a seat the game does not have", "NO_SUCH_SEAT"
                )
            if game.engine is None or game.ended is not None:
                return LegalMoves(game.version, (), None)
            return await self._legal(game, seat, game.engine.view(seat))

    async def act_for(
        self,
        game_id: str,
        seat: int,
        version: int,
        choose: Callable[[Game], Command],
        timed_out: bool,
    ) -> bool:
        """A server-side move (bot or timer) for ``seat`` at ``version``;
        False when the game has moved on meanwhile."""
        async with self.lock(game_id):
            game = await self._load(game_id)
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
                else [entry("timed_out", self._clock(), seat=seat)]
            )
            engine = game.engine
            if self._pool is not None and len(engine.state.seats[seat].hand) > POOLED_HAND:
                # A bot's searches on a large hand, in the work pool; the lock
                # is held, so nothing changes the game meanwhile. A full pool
                # fails this duty: the sweep comes back to it.
                command = await self._pool.run(choose, engine)
            else:
                command = choose(engine)
            applied = await self._apply(game, seat, command, extra)
            try:
                await self._append(game, applied.before, applied.entries, None)
            except VersionConflict:
                return False
            await self._applied(game, command, applied.before)
            return True

    # --- ending ------------------------------------------------------------------

    async def end(self, game_id: str, reason: str, version: int | None = None) -> HostedGame:
        """Ends ``game_id`` for ``reason`` (:data:`END_REASONS`), at ``version``
        when given (else at its latest); a finished game is left as it is. The
        game is then finished: its watchers get GameEnded, the expiry of
        finished games archives it, and no seat or bot acts in it again."""
        assert reason in END_REASONS
        for attempt in range(4):
            async with self.lock(game_id):
                game = await self._load(game_id)
                if game.status == "finished" or (version is not None and game.version != version):
                    return game
                now = self._clock()
                ended = entry("ended", now, reason=reason)
                before = game.version
                game.ended = reason
                game.last_at = now
                try:
                    game.version = await self.store.append(
                        game_id, before, [ended], self.summary(game)
                    )
                except VersionConflict:
                    self.forget(game_id)
                    if version is not None or attempt == 3:
                        raise
                    continue
                except BaseException:
                    self.forget(game_id)
                    raise
                self._remember(game)
                log.info("game ended", game=game_id, reason=reason)
                return game
        raise AssertionError("unreachable")

    async def cancel(self, game_id: str) -> HostedGame:
        """Ends ``game_id`` as cancelled (its creator asks); a cancelled game
        answers as it is, one that finished otherwise is FAILED_PRECONDITION."""
        game = await self.end(game_id, "cancelled")
        if game.ended != "cancelled":
            raise _ended(game)
        return game

    # --- reading ------------------------------------------------------------------

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
        game = await self.load(game_id)
        if viewer is None and game.header.spectators_disabled:
            raise NotPermitted(
                "this game has no spectators: only its seats may watch it",
                "SPECTATING_DISABLED",
            )
        open_streams = self._watching.get(game_id, 0)
        if open_streams >= self.limits.max_watchers_per_game:
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
                watcher = Watcher(viewer, self.limits.watch_queue)
                watcher.sent = start
                attached = feed.attach(watcher)
            if with_snapshot:
                yield WatchItem(game.version, game=game)
            if self._closing.is_set():
                return
            last = start
            if start < attached or watcher is None:
                for e in await self.store.read(game_id, start):
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
                self.store, game_id, encode, position, lambda f: self._drop_feed(key, f)
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


def _ended(game: HostedGame) -> GameStateError:
    """The error of a call that needs a game that has not finished."""
    why = f" ({game.ended})" if game.ended else ""
    return GameStateError(
        f"the game has ended{why}",
        "GAME_FINISHED",
    )
