"""GameService: its 18 handlers. Each decodes its request
(:mod:`ramino.api.requests`), checks the caller's tokens
(:mod:`ramino.api.claims`), calls the application layer, and encodes what
it returns (:mod:`ramino.api.messages`, :mod:`ramino.api.events`) after the
game's lock, once. No rule is decided here."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, TypeVar

from ramino import logs, reasons, tasks
from ramino.api import convert
from ramino.api.auth import PlayerVerifier, TokenIssuer, bearer
from ramino.api.claims import Claims
from ramino.api.commands import command_of
from ramino.api.connections import network_of
from ramino.api.errors import ApiError
from ramino.api.events import watch_event, watch_events
from ramino.api.interceptors import Context
from ramino.api.messages import STATUS_NAMES, Messages, game_message, move_message
from ramino.api.requests import (
    check_request_id,
    game_id_of,
    request_hash,
    request_record,
)
from ramino.api.session import SessionEncoder, options_bytes, read_moves, resend_of, start_of
from ramino.api.stream_budget import peer_address
from ramino.api.streams import StreamEnder
from ramino.app import GameApp, SeatSpec, WatchItem
from ramino.app.games import invites
from ramino.app.games.fanout import Encode, EncodeBatch
from ramino.app.games.invites import InviteNotValid
from ramino.app.games.outcomes import seen_game
from ramino.engine.access import check_spectator
from ramino.slots import CountedSlots
from ramino.v1 import game_pb2, game_pb2_grpc

__all__ = ["GameServicer", "request_hash"]

BOTS = convert.BOTS
VISIBILITIES = (
    game_pb2.VISIBILITY_UNSPECIFIED,
    game_pb2.VISIBILITY_PUBLIC,
    game_pb2.VISIBILITY_PRIVATE,
)
R = TypeVar("R")


class GameServicer(game_pb2_grpc.GameServiceServicer):
    def __init__(
        self,
        app: GameApp,
        tokens: TokenIssuer,
        players: PlayerVerifier | None = None,
        max_streams_per_connection: int = 100,
        connection_prefixes: tuple[int, int] = (24, 64),
    ) -> None:
        """``players``: the verifier of the host's player tokens; with it,
        lobby calls need a player token and seat tokens are bound to it. The
        searches of large hands run in the app's work pool.
        ``connection_prefixes``: the lengths of a client's network (IPv4,
        IPv6), among which a game's spectator places are shared."""
        tokens.refuse_shared_secret(players)
        self.app = app
        self.tokens = tokens
        self.claims = Claims(tokens, players)
        """The caller's tokens checked (``claims.players``: the verifier, if any)."""
        self.messages = Messages()
        """The encoders of answers, with the pieces they keep built."""
        self.max_streams_per_connection = max_streams_per_connection
        self.connection_prefixes = connection_prefixes
        self._streams: CountedSlots[str] = CountedSlots()
        """Open watch streams and sessions by connection (the peer's address and port)."""
        self.encode_event: Encode = watch_event
        """What a watch stream sends of an event, made once per viewer class."""
        self.encode_events: EncodeBatch = watch_events
        """What a spectator's stream that takes batches sends of its events."""
        self._endings: set[asyncio.Task[Any]] = set()
        """The statuses of streams ended from outside their task, on their
        way to clients that have not read what came before them."""

    def drain(self) -> None:
        """The server stops: end the watch streams now, not at the grace's end."""
        self.app.begin_shutdown()

    async def close(self) -> None:
        """The server has stopped: its calls are gone, and so are the
        statuses on their way to them (the app is left by whoever entered
        it: ``ramino serve``)."""
        await tasks.stop(list(self._endings))

    @staticmethod
    def _bind(game_id: str, request_id: str = "") -> None:
        logs.bind_context(
            game=game_id, request_hash=request_hash(request_id) if request_id else None
        )

    # --- lobby ------------------------------------------------------------------

    async def CreateGame(  # noqa: N802
        self, request: game_pb2.CreateGameRequest, context: Context
    ) -> game_pb2.CreateGameResponse:
        check_request_id(request.request_id)
        if request.request_id:
            logs.bind_context(request_hash=request_hash(request.request_id))
        scope, player = self.claims.caller(context, request.request_id)
        if request.visibility not in VISIBILITIES:
            raise convert.invalid(
                reasons.BAD_VISIBILITY,
                f"no visibility {request.visibility}: PUBLIC (the default) or PRIVATE",
            )
        if request.rated and self.claims.players is None:
            raise ApiError(
                reasons.RATED_NEEDS_PLAYERS,
                "a rated game needs a server that knows players (player tokens): this one "
                "does not",
            )
        seats = [SeatSpec(s.player_name.strip(), BOTS.get(s.bot)) for s in request.seats]
        table = await self.app.open_table(
            convert.preset(request.variant),
            convert.overrides(request.overrides),
            seats,
            request.turn_timer_seconds,
            request_record(request, "CreateGame", scope),
            spectators_disabled=request.spectators_disabled,
            rated=request.rated,
            private=request.visibility == game_pb2.VISIBILITY_PRIVATE,
            quick_play=request.quick_play,
        )
        game = table.game
        self._bind(game.game_id)
        return game_pb2.CreateGameResponse(
            game=game_message(self.app.summary(game)),
            creator_token=self.tokens.issue_creator(game.game_id, player=player),
            invite_code=table.invite_code,
        )

    async def CancelGame(  # noqa: N802
        self, request: game_pb2.CancelGameRequest, context: Context
    ) -> game_pb2.CancelGameResponse:
        game_id = game_id_of(request.name)
        self._bind(game_id)
        token = bearer(context.invocation_metadata())
        if token is None:
            raise ApiError(
                reasons.TOKEN_MISSING,
                "cancelling needs the creator token in the authorization metadata",
            )
        claim = self.tokens.verify_creator(token)
        if claim.game_id != game_id:
            raise ApiError(
                reasons.WRONG_GAME,
                "this creator token is for another game",
            )
        self.claims.beside_player(
            context,
            claim.player,
            "creator",
            reasons.CREATOR_NOT_BOUND,
            "this creator token is bound to no player (made before creator tokens were "
            "bound): it cannot cancel on a server that knows players",
        )
        game = await self.app.cancel(game_id)
        return game_pb2.CancelGameResponse(
            view=self.messages.view(seen_game(game, None), with_deck=True)
        )

    async def JoinGame(  # noqa: N802
        self, request: game_pb2.JoinGameRequest, context: Context
    ) -> game_pb2.JoinGameResponse:
        check_request_id(request.request_id)
        named = game_id_of(request.name) if request.name or not request.invite_code else None
        if named is not None:
            self._bind(named, request.request_id)
        scope, player = self.claims.caller(context, request.request_id)
        seat = request.seat if request.HasField("seat") else None
        record = request_record(request, "JoinGame", scope)
        if request.invite_code:
            if named is not None and invites.parse(request.invite_code)[0] != named:
                raise InviteNotValid()  # a code for another game than the one named
            game, taken = await self.app.join_invited(
                request.invite_code, seat, request.player_name, record, player
            )
        else:
            assert named is not None
            game, taken = await self.app.join(named, seat, request.player_name, record, player)
        game_id = game.game_id
        self._bind(game_id, request.request_id)
        logs.bind_context(seat=taken)
        return game_pb2.JoinGameResponse(
            seat=taken,
            seat_token=self.tokens.issue(game_id, taken, player=player),
            view=self.messages.view(seen_game(game, taken), with_deck=True),
        )

    async def GetGame(  # noqa: N802
        self, request: game_pb2.GetGameRequest, context: Context
    ) -> game_pb2.GetGameResponse:
        game_id = game_id_of(request.name)
        self._bind(game_id)
        viewer = self.claims.viewer(context, game_id)
        game = await self.app.load(game_id)
        self.claims.in_game(game, viewer)
        invites.check_visible(game_id, game.header.private, viewer)
        check_spectator(viewer, game.header.spectators_disabled)
        return game_pb2.GetGameResponse(
            view=self.messages.view(seen_game(game, viewer), with_deck=True)
        )

    async def ListGames(  # noqa: N802
        self, request: game_pb2.ListGamesRequest, context: Context
    ) -> game_pb2.ListGamesResponse:
        if request.page_size < 0:
            raise convert.invalid(reasons.BAD_PAGE_SIZE, "page_size cannot be negative")
        page = await self.app.list_games(
            request.page_size,
            request.page_token,
            request.variant,
            STATUS_NAMES.get(request.status, ""),
            request.open_seats_only,
        )
        return game_pb2.ListGamesResponse(
            games=[game_message(g) for g in page.games], next_page_token=page.next_page_token
        )

    # --- moves ------------------------------------------------------------------

    async def _move(self, request: Any, context: Context, response: type[R]) -> R:
        """Plays the move of ``request`` and answers ``response`` with its
        MoveResult, encoded here from the app's outcome (after the game's lock)."""
        check_request_id(request.request_id)
        game_id = game_id_of(request.name)
        self._bind(game_id, request.request_id)
        claim = self.claims.claimed(context, game_id)
        command = command_of(request)
        outcome = await self.app.move(
            game_id,
            claim.seat,
            command,
            request.expected_version if request.HasField("expected_version") else None,
            request_record(request, type(command).__name__, self.claims.seat_scope(claim)),
        )
        return self.messages.move_response(outcome, response)

    async def DrawFromStock(  # noqa: N802
        self, request: game_pb2.DrawFromStockRequest, context: Context
    ) -> game_pb2.DrawFromStockResponse:
        return await self._move(request, context, game_pb2.DrawFromStockResponse)

    async def TakeDiscard(  # noqa: N802
        self, request: game_pb2.TakeDiscardRequest, context: Context
    ) -> game_pb2.TakeDiscardResponse:
        return await self._move(request, context, game_pb2.TakeDiscardResponse)

    async def TurnOverDiscardPile(  # noqa: N802
        self, request: game_pb2.TurnOverDiscardPileRequest, context: Context
    ) -> game_pb2.TurnOverDiscardPileResponse:
        return await self._move(request, context, game_pb2.TurnOverDiscardPileResponse)

    async def LayMelds(  # noqa: N802
        self, request: game_pb2.LayMeldsRequest, context: Context
    ) -> game_pb2.LayMeldsResponse:
        return await self._move(request, context, game_pb2.LayMeldsResponse)

    async def LayOff(  # noqa: N802
        self, request: game_pb2.LayOffRequest, context: Context
    ) -> game_pb2.LayOffResponse:
        return await self._move(request, context, game_pb2.LayOffResponse)

    async def SwapJoker(  # noqa: N802
        self, request: game_pb2.SwapJokerRequest, context: Context
    ) -> game_pb2.SwapJokerResponse:
        return await self._move(request, context, game_pb2.SwapJokerResponse)

    async def Discard(  # noqa: N802
        self, request: game_pb2.DiscardRequest, context: Context
    ) -> game_pb2.DiscardResponse:
        return await self._move(request, context, game_pb2.DiscardResponse)

    async def Resign(  # noqa: N802
        self, request: game_pb2.ResignRequest, context: Context
    ) -> game_pb2.ResignResponse:
        return await self._move(request, context, game_pb2.ResignResponse)

    async def PassUpcard(  # noqa: N802
        self, request: game_pb2.PassUpcardRequest, context: Context
    ) -> game_pb2.PassUpcardResponse:
        return await self._move(request, context, game_pb2.PassUpcardResponse)

    async def Knock(  # noqa: N802
        self, request: game_pb2.KnockRequest, context: Context
    ) -> game_pb2.KnockResponse:
        return await self._move(request, context, game_pb2.KnockResponse)

    async def AcceptLayout(  # noqa: N802
        self, request: game_pb2.AcceptLayoutRequest, context: Context
    ) -> game_pb2.AcceptLayoutResponse:
        return await self._move(request, context, game_pb2.AcceptLayoutResponse)

    # --- reading ----------------------------------------------------------------

    def _stream_slot(self, context: Context, what: str) -> contextlib.AbstractContextManager[None]:
        """One of the connection's open streams (watches and sessions
        alike), refused past ``max_streams_per_connection``."""

        def refused(open_streams: int) -> ApiError:
            return ApiError(
                reasons.TOO_MANY_STREAMS,
                f"this connection has {open_streams} open watch streams and sessions, "
                f"the most this server allows: no {what} more",
            )

        return self._streams.slot(context.peer(), self.max_streams_per_connection, refused)

    def _origin(self, context: Context) -> tuple[str, ...]:
        """The client's address and network (none for a peer with no IP
        address), among which a game's spectator places are shared."""
        address = peer_address(context.peer())
        if address is None:
            return ()
        return address, network_of(address, *self.connection_prefixes)

    async def WatchGame(  # noqa: N802
        self, request: game_pb2.WatchGameRequest, context: Context
    ) -> AsyncIterator[game_pb2.WatchGameResponse | bytes]:
        """The watch's messages; an event's comes serialized, made once per
        viewer class (the interceptor sends bytes as they are). A seat's
        watch carries its options whenever they change, made only for the
        game's current version: a catch-up over past versions costs what a
        spectator's does, and the options once at its end."""
        game_id = game_id_of(request.name)
        self._bind(game_id)
        viewer = self.claims.viewer(context, game_id)
        header = None
        if viewer is not None:
            game = await self.app.load(game_id)
            self.claims.in_game(game, viewer)
            header = game.public_header()
        after = request.after_version if request.HasField("after_version") else None
        with self._stream_slot(context, "watch"):
            item: WatchItem
            ender = StreamEnder(context, after, self._endings)
            # A spectator that did not ask for batches is sent them once the
            # replica's spectator budget is spent (app/fanout.py).
            watch = self.app.watch(
                game_id,
                viewer,
                after,
                request.snapshot,
                self.encode_event,
                self.encode_events,
                end=ender,
                asked=request.batch_events,
                origin=self._origin(context) if viewer is None else (),
            )
            # The seat's options: the session's rule (app/options.py); a
            # watch tells nothing of a turn that was never the seat's.
            told = None if viewer is None else self.app.seat_told(game_id, viewer, told=False)
            async for item in watch:
                legal = None
                if told is not None:
                    if item.game is None:
                        legal = await told.after(item)
                    elif not item.past:
                        legal = await told.at(item.version)
                if item.game is not None:
                    msg = game_pb2.WatchGameResponse(
                        version=item.version,
                        snapshot=self.messages.view(item.game, with_deck=True),
                    )
                    if legal is not None and header is not None:
                        self.messages.options(header, legal, legal.version, legal.turn, msg.options)
                    ender.handed(item.version)
                    yield msg
                elif legal is not None and header is not None:
                    ender.handed(item.version)
                    yield item.payload + options_bytes(
                        self.messages, header, legal, game_pb2.WatchGameResponse
                    )
                else:
                    ender.handed(item.version)
                    yield item.payload

    async def PlayGame(  # noqa: N802
        self, requests: AsyncIterator[game_pb2.PlayGameRequest], context: Context
    ) -> None:
        """A seat's session: the first message names the game, the others
        are moves; out come the session's messages in version order
        (:mod:`ramino.app.games.session`), an event's as the seat's watch has
        it, made once per viewer class, each written straight to the call."""
        start = start_of(await anext(aiter(requests), None))
        resend = resend_of(start)
        game_id = game_id_of(start.name)
        self._bind(game_id)
        claim = self.claims.claimed(context, game_id)
        game = await self.app.load(game_id)
        self.claims.in_game(game, claim.seat)
        encoder = SessionEncoder(self.messages, game.public_header())
        after = start.after_version if start.HasField("after_version") else None
        with self._stream_slot(context, "session"):
            session = self.app.session(
                game_id,
                claim.seat,
                self.encode_event,
                start.hints,
                start.answer_views,
                resend,
                start.option_views,
            )
            reader = asyncio.create_task(read_moves(requests, session, claim, self.claims))
            ender = StreamEnder(context, after, self._endings)
            try:
                async for item in session.run(after, start.snapshot, end=ender):
                    message = encoder.message(item)
                    ender.handed(item.version)
                    await context.write(message)
            finally:
                await tasks.stop([reader])

    async def GetLegalMoves(  # noqa: N802
        self, request: game_pb2.GetLegalMovesRequest, context: Context
    ) -> game_pb2.GetLegalMovesResponse:
        game_id = game_id_of(request.name)
        self._bind(game_id)
        seat = self.claims.seat(context, game_id)
        level = None
        if request.hint_level != game_pb2.BOT_LEVEL_UNSPECIFIED:
            level = BOTS.get(request.hint_level)
            if level is None:
                raise ApiError(
                    reasons.BAD_HINT_LEVEL,
                    f"hint_level {request.hint_level} is not a bot level",
                )
        # The moves, their hint and the suggested move: the game's lock taken once.
        legal, header, suggested = await self.app.legal_with_hint(game_id, seat, level)
        response = game_pb2.GetLegalMovesResponse(version=legal.version)
        if legal.moves or legal.hint is not None:
            self.messages.legal(header, legal, response, response.hint)
            self.messages.options(header, legal, legal.version, legal.turn, response.options)
        else:
            response.options.version = legal.version
            if legal.turn is not None:
                response.options.turn = legal.turn
        if suggested is not None:
            response.hint.suggested_move.CopyFrom(move_message(suggested))
        return response
