"""The games this replica holds: each game's lock, the cache of games caught
up with the store, and what a game's summary in the store says."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import structlog
from prometheus_client import Gauge

from ramino import reasons as R
from ramino.app.games.life import GameLife
from ramino.app.hosted import HostedGame
from ramino.errors import BadRequest, GameStateError
from ramino.store import GameSummary, RequestRecord, Store

log = structlog.get_logger("ramino.app")

ACTIVE = Gauge("ramino_active_games", "Games being played in this replica's cache")
MAX_CACHED = 20_000

Clock = Callable[[], float]
T = TypeVar("T")


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
class Limits:
    """What one replica allows."""

    max_watchers_per_game: int = 1000
    """Open spectators' watch streams of one game in this replica (the
    seats' own streams are not counted: see ``max_streams_per_seat``)."""
    max_streams_per_seat: int = 16
    """Open watch streams of one seat of a game in this replica."""
    watch_queue: int = 1024
    """Entries a watch stream may fall behind before it is ended."""
    watch_queue_bytes: int = 256 * 1024
    """Bytes of entries a watch stream may fall behind before it is ended."""
    watch_lag: float = 1.0
    """Seconds an entry may wait for a watch stream that takes none before
    the stream is ended."""
    spectator_interval: float = 0.1
    """Seconds between two batches of a game's entries to the spectators
    that take batches, at least."""
    spectator_messages: float = 2000.0
    """Messages a second this replica sends its spectators in all, about at
    most: past it the batching spectators' interval grows (1,000 of them:
    0.5 s), and the spectators that did not ask for batches are sent
    batches too (``app/fanout.py`` ``SpectatorBudget``)."""
    allow_bot_games: bool = False
    """Whether a game may have bots in every seat (tests, demos)."""
    abandon_after: float = 0.0
    """Seconds after which a game where no person acted is ended as
    abandoned (a rated game in play: forfeited by the seats that stopped
    playing, no sooner than :func:`rated_abandon_after`); 0 for never."""


RATED_ABANDON_TIMERS = 2
"""A rated game in play is abandoned no sooner than this many of its turn
timers after a person last acted in it: the turn timer acts first for a
seat that walked away (the greedy bot draws for it, and it is marked timed
out, as in any game with a timer), and the seat may come back until the
abandonment makes it forfeit (``docs/ratings.md``)."""


def rated_abandon_after(abandon_after: float, turn_timer_seconds: int) -> float:
    """The abandon time of a rated game in play, with the server's
    ``abandon_after`` (0: never) and the game's turn timer: never shorter
    than :data:`RATED_ABANDON_TIMERS` timers, so that the timer acts before
    the abandonment whatever the server's setting."""
    if abandon_after <= 0:
        return abandon_after
    return max(abandon_after, float(RATED_ABANDON_TIMERS * turn_timer_seconds))


def request_id_reused() -> BadRequest:
    return BadRequest(
        "this request id was already used for another request (another caller, "
        "method or request): send a new request id for a new request",
        R.REQUEST_ID_REUSED,
    )


def first_answer(first: RequestRecord, request: RequestRecord) -> bytes:
    """The first answer to a request id (as stored), for a retry of that
    same request; for anything else, REQUEST_ID_REUSED."""
    if not first.matches(request):
        raise request_id_reused()
    return first.response


def ended_error(game: HostedGame) -> GameStateError:
    """The error of a call that needs a game that has not finished."""
    why = f" ({game.ended})" if game.ended else ""
    return GameStateError(
        f"the game has ended{why}",
        R.GAME_FINISHED,
    )


class GameCache:
    """Hosted games over one store, as one replica holds them: loading under
    each game's lock, the cache, summaries and when a game is next due."""

    def __init__(self, store: Store, clock: Clock, limits: Limits, snapshot_every: int) -> None:
        self.store = store
        self.clock = clock
        self.limits = limits
        self.snapshot_every = snapshot_every
        """Entries between two snapshots of a game."""
        self.cache: dict[str, HostedGame] = {}
        self.locks: dict[str, GameLock] = {}
        self.life = GameLife()
        """The games' steps and who is told of each (:mod:`ramino.app.games.life`)."""
        self.life.forget = self.forget
        ACTIVE.set_function(lambda: sum(1 for g in self.cache.values() if g.status == "playing"))

    def lock(self, game_id: str) -> GameLock:
        """The game's lock, for ``async with``."""
        lock = self.locks.get(game_id)
        if lock is None:
            lock = self.locks[game_id] = GameLock(self.locks, game_id)
        return lock

    async def with_game(self, game_id: str, use: Callable[[HostedGame], Awaitable[T]]) -> T:
        """``use`` of the game at the store's latest version, under the game's
        lock: no move of this replica changes the game while ``use`` awaits."""
        async with self.lock(game_id):
            return await use(await self.load_locked(game_id))

    async def load(self, game_id: str) -> HostedGame:
        """The game at the store's latest version. Taken under the game's lock,
        so that no move of this replica is half applied while it is read."""
        async with self.lock(game_id):
            return await self.load_locked(game_id)

    def cached(self, game_id: str) -> HostedGame | None:
        """The game as this replica last wrote or read it, when a move may
        be decided on it without asking the store (the caller holds the
        game's lock): its append then names the entry it was decided over
        (:meth:`append`), so that a store that moved on or lost that entry
        refuses it, and a refusal decided on it is confirmed with
        :meth:`load_locked` before it is answered. None: load the game."""
        cached = self.cache.get(game_id)
        if cached is None or (self.store.shared and cached.tail is None):
            return None
        return cached

    async def append(
        self,
        game: HostedGame,
        before: int,
        tail: str | None,
        entries: list[str],
        record: RequestRecord | None,
    ) -> None:
        """Appends a decided move's entries at the version it was decided
        on, over the entry ``tail`` the game had there (on a shared store;
        None where the game was loaded from the store under this lock)."""
        try:
            await self.store.append(
                game.game_id,
                before,
                entries,
                self.summary(game),
                record,
                tail if self.store.shared else None,
            )
        except BaseException:
            # The engine has moved on but the store has not: fold again next time.
            self.forget(game.game_id)
            raise

    async def load_locked(self, game_id: str) -> HostedGame:
        """:meth:`load`, for a caller that holds the game's lock."""
        cached = self.cache.get(game_id)
        if cached is not None:
            if not self.store.shared:
                return cached
            # From the entry at the cached version: a replica checks that the
            # store still has the entry it last wrote or read there.
            newer = await self.store.read(game_id, cached.version - 1)
            if (
                newer
                and newer[0].version == cached.version
                and cached.tail in (None, newer[0].data)
            ):
                cached.tail = newer[0].data
                if cached.catch_up(newer[1:]):
                    return cached
            else:
                log.warning(
                    "a cached game is ahead of the store or apart from it: a write was lost",
                    game=game_id,
                    version=cached.version,
                    store_version=newer[-1].version if newer else None,
                )
        game = await self._from_store(game_id)
        self.remember(game)
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

    def remember(self, game: HostedGame) -> None:
        cache = self.cache
        if game.status == "finished":
            # Finished games are read rarely: fold them again when asked.
            cache.pop(game.game_id, None)
            return
        if len(cache) >= MAX_CACHED and game.game_id not in cache:
            del cache[next(iter(cache))]
        cache[game.game_id] = game

    def forget(self, game_id: str) -> None:
        self.cache.pop(game_id, None)

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
            duty_at=self.duty_at(game),
            finished_at=game.last_at if game.status == "finished" else None,
            extra={
                "seed_hash": h.seed_hash,
                "turn_timer_seconds": h.turn_timer_seconds,
                "spectators_disabled": h.spectators_disabled,
                "fixed_deal": h.fixed_deal,
                **({"private": True} if h.private else {}),
                **({"rated": True} if h.rated else {}),
                **({"quick_play": True} if h.quick_play else {}),
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

    def duty_at(self, game: HostedGame) -> float | None:
        """When a bot, a turn timer or the abandon time must next act in ``game``."""
        turn = self.turn_duty_at(game)
        abandon = self.abandon_at(game)
        if turn is None or abandon is None:
            return abandon if turn is None else turn
        return min(turn, abandon)

    def abandon_at(self, game: HostedGame) -> float | None:
        """When ``game`` is ended as abandoned unless a person acts in it (a
        rated game in play: when the seats that stopped playing forfeit,
        :func:`rated_abandon_after`)."""
        after = self.limits.abandon_after
        if after <= 0 or game.status == "finished":
            return None
        if game.header.rated and game.engine is not None:
            after = rated_abandon_after(after, game.header.turn_timer_seconds)
        return game.person_at + after

    @staticmethod
    def turn_duty_at(game: HostedGame) -> float | None:
        """When a bot or a turn timer must next act in ``game``."""
        engine = game.engine
        if game.ended is not None or engine is None or engine.finished or engine.turn is None:
            return None
        if game.header.seats[engine.turn].bot is not None:
            return game.last_at
        timer = game.header.turn_timer_seconds
        return game.last_at + timer if timer > 0 else None
