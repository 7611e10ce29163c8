"""The application layer: hosted games over a store, as one replica serves them.

:class:`GameApp` builds the application's two halves and is the one facade
the GameService's servicer calls: the games' (:mod:`ramino.app.games`: the
cache and locks, :class:`~ramino.app.games.cache.GameCache`; the lobby,
the moves, watching and sessions, housekeeping, and the duties, which see
the app only as a :class:`~ramino.app.games.duties.DutyHost`; a game's life
and who is told of it, :mod:`ramino.app.games.life`) and quick play's
(:mod:`ramino.app.quick`: :class:`~ramino.app.quick.play.QuickPlay`, the
MatchService's, over the matchmaker, which sees the games only through the
protocols of :mod:`ramino.app.hosting`). Its background work runs while it is
entered (``async with``). It knows no transport: it returns domain outcomes
and raises the domain errors of :mod:`ramino.errors`."""

from __future__ import annotations

import functools
import secrets
import time
from collections.abc import AsyncIterator, Callable, Hashable, Mapping, Sequence
from typing import Any

from ramino.app.games.cache import Clock, GameCache, Limits
from ramino.app.games.duties import Duties
from ramino.app.games.fanout import Encode, EncodeBatch
from ramino.app.games.housekeeping import Housekeeping
from ramino.app.games.lobby import Lobby, NewTable
from ramino.app.games.moves import Moves
from ramino.app.games.options import SeatTold
from ramino.app.games.outcomes import KeptAnswer, LegalMoves, MoveOutcome
from ramino.app.games.session import Session
from ramino.app.games.watch import StreamEnd, Watch, WatchItem
from ramino.app.hosted import HostedGame
from ramino.app.log import GameCreated, SeatSpec
from ramino.app.quick.matchmaker import Matchmaker
from ramino.app.quick.play import QuickPlay
from ramino.app.quick.queues import MatchmakerConfig
from ramino.app.quick.ratings import Ratings
from ramino.bots.search import LEVEL_BUDGETS, Budget
from ramino.engine import Command, Game
from ramino.engine.deck import SEED_LIMIT
from ramino.pool import WorkPool
from ramino.store import GameSummary, Page, RequestRecord, Store
from ramino.store.ratings import RatingStore, ratings_beside
from ramino.store.tickets import TicketStore, tickets_beside

__all__ = ["GameApp", "Limits", "WatchItem"]


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
        test_seed: int | None = None,
        ratings: RatingStore | None = None,
        matchmaker: MatchmakerConfig | None = None,
        tickets: TicketStore | None = None,
        ticket_poll: float | None = None,
        ticket_push: bool = True,
        secret: bytes | None = None,
        bot_budgets: Mapping[str, Budget] = LEVEL_BUDGETS,
        retention: float | None = None,
        archive_dir: str | None = None,
    ) -> None:
        """``snapshot_every``: entries between two snapshots of a game;
        ``pool``: where searches of a hand of more than ``POOLED_HAND`` cards
        run (without one, on the event loop); ``test_seed``: test mode, every
        game is dealt from this seed and marked ``fixed_deal``; ``ratings``:
        where finished games' ratings and histories go (by default beside
        ``store``: :func:`~ramino.store.ratings.ratings_beside`);
        ``matchmaker``: quick play's configuration, for a replica that
        serves it (its tickets in ``tickets``, by default beside ``store``:
        :func:`~ramino.store.tickets.tickets_beside`; its streams look at
        their tickets every ``ticket_poll`` seconds, woken by the store when
        their ticket changes, or, without ``ticket_push``, poll it:
        :class:`~ramino.app.quick.play.QuickPlay`): quick play starts
        and stops with the app. ``secret``: the server's, shared by its
        replicas (``ramino serve`` derives it from the seat-token secret),
        which keys the ids of people's tables and their invite codes
        (:class:`~ramino.app.games.lobby.Lobby`); by default one per process.
        ``bot_budgets``: the searching bots' budgets by level (the
        server's: :func:`~ramino.bots.search.level_budgets`). With
        ``retention`` seconds, finished games expire that long after their
        end (archived as ``archive_dir/{game}.jsonl`` first when given).

        Its background work runs while the app is entered (``async with``,
        as ``ramino serve`` does): :meth:`start` and :meth:`close`."""
        self.cache = GameCache(store, clock, limits or Limits(), snapshot_every)
        if test_seed is not None:
            if not 0 <= test_seed < SEED_LIMIT:
                raise ValueError("a test seed is an integer from 0 to 2**256 - 1")
            seed_source = functools.partial(int, test_seed)
        self.lobby = Lobby(self.cache, seed_source, fixed_deal=test_seed is not None, secret=secret)
        self.moves = Moves(self.cache, pool)
        self.watching = Watch(self.cache)
        self.housekeeping = Housekeeping(self.cache, retention, archive_dir)
        self.ratings = Ratings(ratings or ratings_beside(store), clock)
        self.cache.life.ratings = self.ratings.game_finished
        self.quick: QuickPlay | None = None
        if matchmaker is not None:
            matching = Matchmaker(
                tickets or tickets_beside(store),
                store,
                self.lobby,
                self.ratings,
                clock,
                matchmaker,
            )
            self.quick = QuickPlay(
                self.cache, self.ratings, matching, ticket_poll, clock, ticket_push
            )
        self.duties = Duties(self, clock, bot_delay, bot_budgets) if run_duties else None
        if self.duties is not None:
            self.cache.life.due = self.duties.kick

    @property
    def store(self) -> Store:
        return self.cache.store

    async def __aenter__(self) -> GameApp:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Starts this replica's background work: the games' (duties: bots,
        timers, the sweep; the expiry of finished games) and quick play's
        (the matchmaker), when the app serves it."""
        if self.duties is not None:
            self.duties.start()
        await self.housekeeping.start()
        if self.quick is not None:
            self.quick.start()

    async def close(self) -> None:
        """Stops it all, the watches first, and closes the stores."""
        self.watching.begin_shutdown()
        await self.watching.stopped()
        if self.duties is not None:
            await self.duties.stop()
        if self.quick is not None:
            await self.quick.close()
        await self.housekeeping.stop()
        await self.ratings.store.close()
        await self.store.close()

    # --- the replica's games ------------------------------------------------------

    async def load(self, game_id: str) -> HostedGame:
        return await self.cache.load(game_id)

    def summary(self, game: HostedGame) -> GameSummary:
        return self.cache.summary(game)

    def abandon_at(self, game: HostedGame) -> float | None:
        return self.cache.abandon_at(game)

    # --- lobby ------------------------------------------------------------------------

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
        return await self.lobby.create(
            variant, overrides, seats, turn_timer_seconds, request, decks, spectators_disabled
        )

    async def open_table(
        self,
        variant: str,
        overrides: dict[str, Any],
        seats: Sequence[SeatSpec],
        turn_timer_seconds: int = 0,
        request: RequestRecord | None = None,
        spectators_disabled: bool = False,
        rated: bool = False,
        private: bool = False,
        quick_play: bool = False,
    ) -> NewTable:
        """A game a person creates, maybe private, rated or open to quick
        play (:meth:`Lobby.open_table`; such a table is offered to the
        matchmaker's queues, when this app serves quick play)."""
        table = await self.lobby.open_table(
            variant,
            overrides,
            seats,
            turn_timer_seconds,
            request,
            spectators_disabled,
            rated,
            private,
            quick_play,
        )
        if quick_play and self.quick is not None:
            await self.quick.matchmaker.offer_table(table.game)
        return table

    async def join(
        self,
        game_id: str,
        seat: int | None,
        player_name: str,
        request: RequestRecord | None = None,
        player_id: str | None = None,
    ) -> tuple[HostedGame, int]:
        return await self.lobby.join(game_id, seat, player_name, request, player_id)

    async def join_invited(
        self,
        code: str,
        seat: int | None,
        player_name: str,
        request: RequestRecord | None = None,
        player_id: str | None = None,
    ) -> tuple[HostedGame, int]:
        """A seat of the private game that the invite ``code`` opens."""
        return await self.lobby.join_invited(code, seat, player_name, request, player_id)

    async def list_games(
        self, page_size: int, page_token: str, variant: str, status: str, open_only: bool
    ) -> Page:
        return await self.lobby.list_games(page_size, page_token, variant, status, open_only)

    # --- moves ------------------------------------------------------------------------

    async def move(
        self,
        game_id: str,
        seat: int,
        command: Command,
        expected_version: int | None,
        request: RequestRecord | None,
    ) -> MoveOutcome | KeptAnswer:
        return await self.moves.move(game_id, seat, command, expected_version, request)

    async def legal(self, game_id: str, seat: int) -> LegalMoves:
        return await self.moves.legal(game_id, seat)

    async def legal_with_hint(
        self, game_id: str, seat: int, level: str | None
    ) -> tuple[LegalMoves, GameCreated, Command | None]:
        return await self.moves.legal_with_hint(game_id, seat, level)

    async def act_for(
        self,
        game_id: str,
        seat: int,
        version: int,
        choose: Callable[[Game], Command],
        timed_out: bool,
        heavy: bool = False,
    ) -> bool:
        return await self.moves.act_for(game_id, seat, version, choose, timed_out, heavy)

    async def end(self, game_id: str, reason: str, version: int | None = None) -> HostedGame:
        return await self.moves.end(game_id, reason, version)

    async def forfeit(self, game_id: str, version: int) -> tuple[int, ...]:
        return await self.moves.forfeit(game_id, version)

    async def cancel(self, game_id: str) -> HostedGame:
        return await self.moves.cancel(game_id)

    # --- watching ---------------------------------------------------------------------

    def watch(
        self,
        game_id: str,
        viewer: int | None,
        after_version: int | None,
        snapshot: bool,
        encode: Encode,
        batch: EncodeBatch | None = None,
        end: StreamEnd | None = None,
        asked: bool = True,
        origin: Sequence[Hashable] = (),
    ) -> AsyncIterator[WatchItem]:
        """A viewer's watch of a game (see :meth:`Watch.watch`)."""
        return self.watching.watch(
            game_id,
            viewer,
            after_version,
            snapshot,
            encode,
            batch,
            end=end,
            asked=asked,
            origin=origin,
        )

    def seat_told(self, game_id: str, seat: int, told: bool | None = None) -> SeatTold:
        """The rule for a seat's stream's options (see :class:`SeatTold`)."""
        return SeatTold(self.moves, game_id, seat, told)

    def session(
        self,
        game_id: str,
        seat: int,
        encode: Encode,
        hints: bool = True,
        views: bool = True,
        resend: tuple[str, ...] = (),
        option_views: bool = False,
    ) -> Session:
        """A seat's session (see :mod:`ramino.app.games.session`): its moves, the
        events it may see and its options, in version order (``hints``:
        options with their hint; ``views``: answers with the mover's view;
        ``resend``: the request ids of the moves a reopened session is
        about to send again;
        ``option_views``: options with moves with the seat's view)."""
        return Session(
            self.moves,
            self.watching,
            game_id,
            seat,
            encode,
            self.cache.limits,
            hints,
            views,
            resend,
            option_views,
        )

    def begin_shutdown(self) -> None:
        self.watching.begin_shutdown()
