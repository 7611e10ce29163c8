"""The lobby: games are created, seats are taken, games are listed."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Sequence
from typing import Any

import structlog

from ramino import reasons as R
from ramino.app.games import invites
from ramino.app.games.cache import GameCache, ended_error, first_answer, request_id_reused
from ramino.app.games.invites import InviteNotValid
from ramino.app.hosted import HostedGame
from ramino.app.log import Header, SeatSpec, engine_entries, entry
from ramino.app.names import checked_name, game_id_for
from ramino.bots import BOT_KINDS
from ramino.engine import trial_deal
from ramino.errors import BadRequest, GameStateError
from ramino.store import (
    DuplicateRequest,
    GameExists,
    GameNotFound,
    Page,
    RequestRecord,
    VersionConflict,
)

log = structlog.get_logger("ramino.app")

PROCESS_SECRET = secrets.token_bytes(32)
"""The secret of a lobby given none (tests, an app run without ``ramino
serve``): random for the life of the process, as the seat tokens' is."""


@dataclasses.dataclass(frozen=True, slots=True)
class NewTable:
    """A game created through the lobby, with what its creator is given."""

    game: HostedGame
    invite_code: str
    """A private game's invite code (:mod:`ramino.app.games.invites`); empty for
    a public one."""


class Lobby:
    """Creating games and seating people, over the replica's games."""

    def __init__(
        self,
        cache: GameCache,
        seed_source: Callable[[], int],
        fixed_deal: bool = False,
        secret: bytes | None = None,
    ) -> None:
        """``fixed_deal``: the seeds of ``seed_source`` are known in advance
        (test mode): every game created is marked so. ``secret``: the
        server's, shared by its replicas, which keys the ids of the games
        people create with a request id and the secrets of invite codes
        (:meth:`table_id`, :mod:`ramino.app.games.invites`); by default
        :data:`PROCESS_SECRET`."""
        self._t = cache
        self._seed_source = seed_source
        self._fixed_deal = fixed_deal
        self._secret = PROCESS_SECRET if secret is None else secret

    def table_id(self, request: RequestRecord | None) -> str:
        """The id of a game a person creates: for a request id, the
        HMAC-SHA-256 of its caller's scope and id under the server's secret,
        so that a retry by the same caller names the same game and no one
        without the secret can tell a table's id from its request id (which
        its creator may have chosen); without one, random."""
        if request is None:
            return secrets.token_hex(8)
        key = f"create:{len(request.scope)}:{request.scope}:{request.request_id}"
        return hmac.new(self._secret, key.encode(), hashlib.sha256).hexdigest()[:16]

    async def create(
        self,
        variant: str,
        overrides: dict[str, Any],
        seats: Sequence[SeatSpec],
        turn_timer_seconds: int = 0,
        request: RequestRecord | None = None,
        decks: Sequence[Sequence[int]] = (),
        spectators_disabled: bool = False,
        rated: bool = False,
        invite_hash: str = "",
        quick_play: bool = False,
        game_id: str | None = None,
    ) -> HostedGame:
        """A new game; ``request`` is the record of its request id, if any
        (a retry of it gets the same game). ``decks`` stacks the first
        deals: for tests only, the API never sets it. ``rated``: its end
        changes its players' ratings (``ramino.app.quick.ratings``);
        ``invite_hash``: a private game's (:attr:`Header.invite_hash`);
        ``quick_play``: quick-play tickets may take its open seats;
        ``game_id``: the game's id (a person's table: :meth:`table_id`),
        by default that of a request the server made itself (a match's,
        whose request id is random: :func:`~ramino.app.names.game_id_for`),
        or random."""
        if not seats:
            raise BadRequest(
                "a game needs seats",
                R.NO_SEATS,
            )
        if all(s.bot is not None for s in seats) and not self._t.limits.allow_bot_games:
            raise BadRequest(
                "a game needs at least one seat for a person: this server does not host "
                "games of bots only",
                R.ALL_BOT_GAME,
            )
        for i, s in enumerate(seats):
            if s.name and checked_name(s.name, i) != s.name:
                raise BadRequest(
                    f"seat {i}: a player name is given without spaces around it "
                    "(empty for an open seat or a bot)",
                    R.BAD_PLAYER_NAME,
                )
            if s.player_id is not None and (s.bot is not None or not s.name):
                raise BadRequest(
                    f"seat {i}: a seat bound to a player is a person's, with a name",
                    R.BAD_BOUND_SEAT,
                )
            if s.bot is not None and s.bot not in BOT_KINDS:
                raise BadRequest(
                    f"unknown bot {s.bot!r}",
                    R.BAD_BOT,
                )
        if not 0 <= turn_timer_seconds <= 24 * 3600:
            raise BadRequest(
                "the turn timer is 0 (none) to 86400 seconds",
                R.BAD_TURN_TIMER,
            )
        seed = self._seed_source()
        trial_deal(variant, overrides, len(seats), seed=seed, decks=decks)
        if game_id is None:
            game_id = game_id_for(request) if request is not None else secrets.token_hex(8)
        now = self._t.clock()
        named = tuple(
            SeatSpec(s.name or (f"{s.bot} bot {i + 1}" if s.bot else ""), s.bot, s.player_id)
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
            self._fixed_deal,
            rated,
            quick_play=quick_play,
            invite_hash=invite_hash,
        )
        game = HostedGame(
            header, header.initial_players(), 1, now, player_ids=header.bound_players()
        )
        game.tail = entry("created", now, header=header.to_data())
        try:
            await self._t.store.create(self._t.summary(game), game.tail, request)
        except GameExists:
            if request is None:
                raise
            # A retry: the game is the first attempt's when the record says
            # so (gone with the game's older records, it cannot be told).
            first = await self._t.store.request(game_id, request.request_id)
            if first is None:
                raise request_id_reused() from None
            first_answer(first, request)
            return await self._t.load(game_id)
        if not game.open_seats:
            async with self._t.lock(game_id):
                await self._start(game, [])
        self._t.remember(game)
        log.info("game created", game=game_id, variant=variant, seats=len(named))
        return game

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
        """A game a person creates (CreateGame): ``private``, never listed,
        joined with the invite code returned (:mod:`ramino.app.games.invites`), no
        spectators; ``rated`` (no bot seat: the API lets only a server that
        knows players ask for it, and :meth:`join` seats only verified
        players in it; a turn timer, so that walking away loses);
        ``quick_play``, a public table with a turn timer (as quick play's
        games have) whose open seats quick-play tickets of its queue may take
        (``ramino.app.quick.matchmaker``).
        A retry of ``request`` gets the first attempt's game and code."""
        if rated and any(s.bot is not None for s in seats):
            raise BadRequest(
                "a rated game has no bot seat: every seat is a verified player's",
                R.RATED_WITH_BOT,
            )
        if rated and turn_timer_seconds <= 0:
            # Without one, a player about to lose could walk away until the
            # game is abandoned, which rates no one.
            raise BadRequest(
                "a rated game needs a turn timer: a player who walks away is played for "
                "by a bot, and loses",
                R.RATED_WITHOUT_TIMER,
            )
        if private and quick_play:
            raise BadRequest(
                "a private table takes no quick-play tickets: only whoever holds its code",
                R.BAD_VISIBILITY,
            )
        if quick_play and turn_timer_seconds <= 0:
            # Quick play's own games have one: without it, a creator who sits
            # at the table and never moves holds every ticket seated there.
            raise BadRequest(
                "a table quick play may fill needs a turn timer, as quick play's games "
                "have: a player who walks away is played for by a bot",
                R.QUICK_PLAY_WITHOUT_TIMER,
            )
        game_id = self.table_id(request)
        # The secret follows from the id: a retry gets the same code, which
        # no store keeps.
        secret = invites.secret_for(self._secret, game_id) if private else ""
        game = await self.create(
            variant,
            overrides,
            seats,
            turn_timer_seconds,
            request,
            spectators_disabled=spectators_disabled or private,
            rated=rated,
            invite_hash=invites.secret_hash(secret) if private else "",
            quick_play=quick_play,
            game_id=game_id,
        )
        return NewTable(game, invites.invite_code(game.game_id, secret) if secret else "")

    async def deal_if_full(self, game_id: str) -> HostedGame:
        """Deals a game whose seats are all taken but that was never dealt (its
        creator died between the creation and the deal, which are two writes)."""
        async with self._t.lock(game_id):
            game = await self._t.load_locked(game_id)
            if game.engine is None and game.ended is None and not game.open_seats:
                await self._start(game, [])
                self._t.remember(game)
            return game

    async def _start(
        self, game: HostedGame, before: list[str], request: RequestRecord | None = None
    ) -> None:
        """Appends the entries ``before`` and the deal at once."""
        now = self._t.clock()
        dealt = game.start()
        assert game.engine is not None
        entries = [*before, *engine_entries(dealt, now, game.engine.turns)]
        game.wrote(
            await self._t.store.append(
                game.game_id, game.version, entries, self._t.summary(game), request
            ),
            entries,
        )
        game.last_at = now
        self._t.life.dealt(game)

    async def join(
        self,
        game_id: str,
        seat: int | None,
        player_name: str,
        request: RequestRecord | None = None,
        player_id: str | None = None,
        invite: str | None = None,
    ) -> tuple[HostedGame, int]:
        """Seats a person: ``request`` is the record of the request id, if
        any (its answer is the seat taken); ``player_id`` the verified player,
        when the server knows players (one seat per player and game);
        ``invite`` the secret of an invite code (see :meth:`join_invited`):
        a private game is joined with it only, and is answered as no game
        without it. Losing a race with another replica's append, it decides
        again on the new state: each such loss is another seat taken, so a
        few tries settle it (no open seat left is an answer too)."""
        name = checked_name(player_name)
        attempt = 0
        while True:
            try:
                return await self._join_once(game_id, seat, name, request, player_id, invite)
            except VersionConflict:
                attempt += 1
                game = await self._t.load(game_id)
                if attempt > len(game.players) + 1:
                    raise

    async def join_invited(
        self,
        code: str,
        seat: int | None,
        player_name: str,
        request: RequestRecord | None = None,
        player_id: str | None = None,
    ) -> tuple[HostedGame, int]:
        """:meth:`join` with an invite code, which names the game. A code that
        opens nothing is :class:`InviteNotValid`, whether its game exists or
        not: a secret this server did not make is refused before any lookup
        (:func:`~ramino.app.games.invites.made_here`)."""
        game_id, secret = invites.parse(code)
        if not invites.made_here(self._secret, game_id, secret):
            raise InviteNotValid()
        try:
            return await self.join(game_id, seat, player_name, request, player_id, secret)
        except GameNotFound:
            raise InviteNotValid() from None

    async def _join_once(
        self,
        game_id: str,
        seat: int | None,
        name: str,
        request: RequestRecord | None,
        player_id: str | None,
        invite: str | None,
    ) -> tuple[HostedGame, int]:
        async with self._t.lock(game_id):
            game = await self._t.load_locked(game_id)
            if game.header.private and (
                invite is None or not invites.opens(game.header.invite_hash, invite)
            ):
                # Before the request's record: a stranger's request id must
                # not find the creator's (REQUEST_ID_REUSED would tell the
                # table exists).
                raise GameNotFound(game_id)
            if request is not None:
                first = await self._t.store.request(game_id, request.request_id)
                if first is not None:
                    return game, int(first_answer(first, request))
            admit(game, invite, player_id)
            if game.ended is not None:
                raise ended_error(game)
            if player_id is not None and player_id in game.player_ids.values():
                raise GameStateError(
                    "this player already holds a seat of this game",
                    R.ALREADY_SEATED,
                )
            open_seats = game.open_seats
            if seat is None:
                if not open_seats:
                    raise GameStateError(
                        "every seat is taken",
                        R.NO_OPEN_SEAT,
                    )
                seat = open_seats[0]
            elif not 0 <= seat < len(game.players):
                raise BadRequest(
                    f"the game has no seat {seat}",
                    R.BAD_SEAT,
                )
            elif seat not in open_seats:
                raise GameStateError(
                    f"seat {seat} is taken",
                    R.SEAT_TAKEN,
                )
            fields: dict[str, Any] = {"seat": seat, "player_name": name}
            if player_id is not None:
                fields["player_id"] = player_id
            joined = entry("joined", self._t.clock(), **fields)
            game.note(json.loads(joined))
            record = None
            if request is not None:
                record = dataclasses.replace(request, response=str(seat).encode())
            try:
                if game.open_seats:
                    version = await self._t.store.append(
                        game_id, game.version, [joined], self._t.summary(game), record
                    )
                    game.wrote(version, [joined])
                else:
                    await self._start(game, [joined], record)
            except DuplicateRequest as dup:
                # The same request id landed through another replica meanwhile.
                self._t.forget(game_id)
                assert request is not None
                taken = int(first_answer(dup.record, request))
                return await self._t.load_locked(game_id), taken
            except BaseException:
                self._t.forget(game_id)
                raise
            return game, seat

    async def waiting_table(self, game_id: str) -> HostedGame | None:
        """The table as it is now if it still waits for players (an open
        seat, not dealt, not ended); ``None`` otherwise, or if it is gone."""
        try:
            game = await self._t.load(game_id)
        except GameNotFound:
            return None
        if game.engine is not None or game.ended is not None or not game.open_seats:
            return None
        return game

    async def list_games(
        self, page_size: int, page_token: str, variant: str, status: str, open_only: bool
    ) -> Page:
        size = 50 if page_size <= 0 else min(page_size, 200)
        try:
            return await self._t.store.list_games(size, page_token, variant, status, open_only)
        except ValueError as e:
            raise BadRequest(
                str(e),
                R.BAD_PAGE_TOKEN,
            ) from None


def admit(game: HostedGame, invite: str | None, player_id: str | None) -> None:
    """Whether a person may take a seat of ``game``, before its seats are
    looked at: with an invite's secret, only while the game it opens waits
    for players (:class:`InviteNotValid` otherwise, as for no game); a
    private game, only with its invite (else answered as no game at all); a
    rated game, only a verified player."""
    header = game.header
    if invite is not None:
        if (
            not invites.opens(header.invite_hash, invite)
            or game.engine is not None
            or game.ended is not None
        ):
            raise InviteNotValid()
    elif header.private:
        raise GameNotFound(game.game_id)
    if header.rated and player_id is None:
        raise GameStateError(
            "a rated game seats verified players only: this server knows no players",
            R.RATED_NEEDS_PLAYERS,
        )
