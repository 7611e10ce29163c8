"""Server-side duties of a game: bots take their turns, a seat whose turn
timer runs out has its turn played by the greedy bot, and a game where no
person acted for the abandon time is ended as abandoned (a rated game in
play is not: the seats that stopped playing forfeit it, and it ends rated).

One task per game in this replica, woken by every move it sees (``kick``).
Before acting, a replica takes the game's lease in the store (renewed at each
step, lost when the replica dies), so that one replica at a time acts for a
game. Each replica also sweeps the store's index of due duties, which is how
a game whose replica died is picked up by another once the lease runs out.
Each action goes through :meth:`DutyHost.act_for` at the version it was
decided on, so a duty that loses a race changes nothing. Duties know the
application only through the narrow :class:`DutyHost`: nothing here imports
the application.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Protocol

import structlog

from ramino import tasks
from ramino.app.hosted import HostedGame
from ramino.bots import Bot, SearchBot, make_bot
from ramino.bots.search import LEVEL_BUDGETS, Budget, Decision
from ramino.engine import (
    Command,
    Discard,
    DrawFromStock,
    Game,
    IllegalMove,
    TakeDiscard,
    TurnOverDiscardPile,
)
from ramino.store import Store, VersionConflict

log = structlog.get_logger("ramino.duties")

LEASE_SECONDS = 3.0
SWEEP_SECONDS = 0.5


class DutyHost(Protocol):
    """What duties need of the application: its store (leases, the index of
    due duties), a game, its abandon time, ending it, and acting in it."""

    @property
    def store(self) -> Store: ...

    async def load(self, game_id: str) -> HostedGame: ...

    def abandon_at(self, game: HostedGame) -> float | None: ...

    async def end(self, game_id: str, reason: str, version: int | None = None) -> HostedGame: ...

    async def forfeit(self, game_id: str, version: int) -> tuple[int, ...]: ...

    async def act_for(
        self,
        game_id: str,
        seat: int,
        version: int,
        choose: Callable[[Game], Command],
        timed_out: bool,
        heavy: bool = False,
    ) -> bool: ...


STARVED_LOG_SECONDS = 10.0
"""At most one "bot decisions starved" line per this many seconds."""


class StarvedLog:
    """Says in the log when the machine starves the searching bots: the
    first starved decision at once, then at most one line per
    :data:`STARVED_LOG_SECONDS`, with how many of the decisions since the
    last line were starved and the last one's figures (a line per decision
    would flood the log of a saturated server)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._logged_at = -math.inf
        self._decisions = 0
        self._starved = 0
        self.lines = 0

    def note(self, game_id: str, decision: Decision) -> None:
        if decision.deals == 0:
            return  # nothing was searched
        self._decisions += 1
        if not decision.starved:
            return
        self._starved += 1
        now = self._clock()
        if now - self._logged_at < STARVED_LOG_SECONDS:
            return
        log.warning(
            "bot decisions starved",
            starved=self._starved,
            searched=self._decisions,
            bot=decision.level,  # "level" is the line's own (warning)
            game=game_id,
            wall_ms=round(decision.wall_ms, 1),
            cpu_ms=round(decision.cpu_ms, 1),
            budget_ms=decision.budget_ms,
            deals=decision.deals,
        )
        self.lines += 1
        self._logged_at = now
        self._decisions = self._starved = 0


class Duties:
    def __init__(
        self,
        app: DutyHost,
        clock: Callable[[], float],
        bot_delay: float = 0.0,
        bot_budgets: Mapping[str, Budget] = LEVEL_BUDGETS,
    ) -> None:
        """``bot_budgets``: the searching levels' budgets (the server's:
        :func:`~ramino.bots.search.level_budgets`)."""
        self._app = app
        self.bot_budgets = bot_budgets
        self._starved = StarvedLog()
        self._clock = clock
        self.bot_delay = bot_delay
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._wake: dict[str, asyncio.Event] = {}
        self._bots: dict[tuple[str, int, str], Bot] = {}
        self.owner = uuid.uuid4().hex
        self._leased: set[str] = set()
        self._sweeper: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Starts sweeping the store for due duties (idempotent)."""
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep(), name="duty sweeper")

    async def _sweep(self) -> None:
        store = self._app.store
        while True:
            try:
                for game_id in await store.due_games(self._clock()):
                    task = self._tasks.get(game_id)
                    if task is None or task.done():
                        self.kick(game_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("duty sweep failed")
            await asyncio.sleep(SWEEP_SECONDS)

    def kick(self, game_id: str) -> None:
        """Something happened in ``game_id``: look at it again."""
        wake = self._wake.get(game_id)
        if wake is not None:
            wake.set()
        task = self._tasks.get(game_id)
        if task is None or task.done():
            self._wake[game_id] = asyncio.Event()
            self._tasks[game_id] = asyncio.create_task(self._run(game_id), name=f"duties {game_id}")

    async def stop(self) -> None:
        await tasks.stop([*self._tasks.values(), self._sweeper])
        self._tasks.clear()

    def _bot(self, game_id: str, seed: int, seat: int, kind: str) -> Bot:
        key = (game_id, seat, kind)
        bot = self._bots.get(key)
        if bot is None:
            seed = (seed + 1_000_003 * (seat + 1)) % 2**64
            bot = self._bots[key] = make_bot(kind, seed, self.bot_budgets.get(kind))
        return bot

    async def _run(self, game_id: str) -> None:
        self._leased.discard(game_id)
        try:
            while await self._step(game_id):
                pass
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("duty failed", game=game_id)
        finally:
            self._tasks.pop(game_id, None)
            self._wake.pop(game_id, None)
            if game_id in self._leased:
                self._leased.discard(game_id)
                with contextlib.suppress(Exception):
                    await self._app.store.release_lease(game_id, self.owner)

    async def _step(self, game_id: str) -> bool:
        """Does what is due now or waits for it; False when nothing will be."""
        wake = self._wake[game_id]
        wake.clear()
        # The lease first: a replica that does not hold it leaves the game
        # alone without loading it (the sweep looks again later).
        if not await self._app.store.acquire_lease(game_id, self.owner, LEASE_SECONDS):
            return False
        self._leased.add(game_id)
        game = await self._app.load(game_id)
        if game.status == "finished":
            return False
        abandon_at = self._app.abandon_at(game)
        if abandon_at is not None and abandon_at <= self._clock():
            if game.header.rated and game.engine is not None:
                # A rated game in play ends rated: the seats that stopped
                # playing forfeit (at the version decided on: a move
                # meanwhile keeps the game going), and those left play on.
                await self._app.forfeit(game_id, game.version)
                return True
            # No person acted for the abandon time: end it, at the version
            # decided on (a move meanwhile keeps the game going).
            with contextlib.suppress(VersionConflict):
                await self._app.end(game_id, "abandoned", game.version)
            return False
        engine = game.engine
        if engine is None or engine.finished or engine.turn is None:
            return False
        seat = engine.turn
        spec = game.header.seats[seat]
        timer = game.header.turn_timer_seconds
        if spec.bot is None and timer <= 0:
            return False
        if spec.bot is not None:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            bot = self._bot(game_id, game.header.seed, seat, spec.bot)
            if isinstance(bot, SearchBot):
                bot.last = None
            await self._app.act_for(
                game_id,
                seat,
                game.version,
                lambda g: bot.choose(g, seat),
                timed_out=False,
                heavy=bot.heavy,
            )
            if isinstance(bot, SearchBot) and bot.last is not None:
                self._starved.note(game_id, bot.last)
            await asyncio.sleep(0)
            return True
        delay = game.last_at + timer - self._clock()
        if delay > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(delay, LEASE_SECONDS / 2)):
                    await wake.wait()
            return True
        stand_in = self._bot(game_id, game.header.seed, seat, "greedy")
        await self._app.act_for(
            game_id, seat, game.version, lambda g: timeout_move(g, seat, stand_in), timed_out=True
        )
        return True


def timeout_move(game: Game, seat: int, fallback: Bot) -> Command:
    """The move played for a seat whose time ran out: draw (from the stock
    when it can), then discard the card the hint names (the engine's one
    discard policy); anything else the turn requires (a swapped joker to
    lay) is left to the greedy bot."""
    legal = game.legal_moves(seat)
    for kind in (DrawFromStock, TurnOverDiscardPile, TakeDiscard):
        if any(isinstance(m, kind) for m in legal):
            return kind()
    hint = game.hint(seat, legal)
    if hint is None or not any(isinstance(m, Discard) for m in legal):
        return fallback.choose(game, seat)
    discard = Discard(hint.discard)
    try:
        game.check(seat, discard)
    except IllegalMove:
        return fallback.choose(game, seat)
    return discard
