"""Who calls: the seat, creator and player tokens of a call, checked
against the game it names (``ramino.api.auth`` signs and verifies them)."""

from __future__ import annotations

from ramino import logs, reasons
from ramino.api.auth import (
    CALLER_KEY,
    PLAYER_TOKEN_KEY,
    PlayerVerifier,
    SeatClaim,
    TokenIssuer,
    bearer,
    caller_scope,
    metadata_value,
)
from ramino.api.errors import ApiError
from ramino.api.interceptors import Context
from ramino.app import HostedGame
from ramino.engine.access import check_seat

__all__ = ["Claims"]


class Claims:
    """The claims of a call's tokens, for a server with ``tokens`` and, when
    it knows players, their verifier ``players``."""

    def __init__(self, tokens: TokenIssuer, players: PlayerVerifier | None) -> None:
        self.tokens = tokens
        self.players = players

    def player(self, context: Context) -> str:
        """The verified player of the call (servers that know players)."""
        assert self.players is not None
        token = metadata_value(context.invocation_metadata(), PLAYER_TOKEN_KEY)
        if not token:
            raise ApiError(
                reasons.PLAYER_TOKEN_MISSING,
                f"this server knows players: send your player token in the "
                f"{PLAYER_TOKEN_KEY} metadata",
            )
        return self.players.verify(token.removeprefix("Bearer ").strip())

    def claim(self, context: Context) -> SeatClaim | None:
        token = bearer(context.invocation_metadata())
        if token is None:
            return None
        claim = self.tokens.verify(token)
        self.beside_player(
            context,
            claim.player,
            "seat",
            reasons.SEAT_NOT_BOUND,
            "this seat token is bound to no player: join again",
        )
        return claim

    def beside_player(
        self, context: Context, player: str | None, kind: str, unbound: str, why: str
    ) -> None:
        """On servers that know players, a token of ``kind`` (seat, creator)
        acts only beside its player's own token: else PERMISSION_DENIED,
        ``unbound`` (with ``why``) for a token bound to no player."""
        if self.players is None:
            return
        if player is None:
            raise ApiError(unbound, why)
        if self.player(context) != player:
            raise ApiError(
                reasons.WRONG_PLAYER,
                f"this {kind} token belongs to another player",
            )

    def claimed(self, context: Context, game_id: str) -> SeatClaim:
        """The seat the caller's token acts for in ``game_id``."""
        claim = self.claim(context)
        if claim is None:
            raise ApiError(
                reasons.TOKEN_MISSING,
                "moves need a seat token in the authorization metadata",
            )
        if claim.game_id != game_id:
            raise ApiError(
                reasons.WRONG_GAME,
                "this seat token is for another game",
            )
        logs.bind_context(seat=claim.seat)
        return claim

    def seat_scope(self, claim: SeatClaim) -> str:
        """The scope of a seat's request ids: its game and seat (and its
        player where the server knows players), the same for a unary move
        and one sent on a session, so that a retry on either gets the
        first answer."""
        scope = f"seat:{claim.game_id}:{claim.seat}"
        if claim.player is not None and self.players is not None:
            scope += f":player:{claim.player}"
        return scope

    def seat(self, context: Context, game_id: str) -> int:
        return self.claimed(context, game_id).seat

    def viewer(self, context: Context, game_id: str) -> int | None:
        """The caller's seat, or None for a spectator (no token)."""
        claim = self.claim(context)
        if claim is None:
            return None
        if claim.game_id != game_id:
            raise ApiError(
                reasons.WRONG_GAME,
                "this seat token is for another game",
            )
        return claim.seat

    @staticmethod
    def in_game(game: HostedGame, seat: int | None) -> None:
        """Refuses a seat claim (signed, so ours) the game has no seat for."""
        if seat is not None:
            check_seat(seat, len(game.players))

    def caller(self, context: Context, request_id: str) -> tuple[str, str | None]:
        """The request-id scope of a lobby call, and its verified player.

        With players known, the scope is the player. Else an anonymous
        caller's key (the ``ramino-caller-key`` metadata) is the scope; a
        request id without one is refused, since anyone could replay it."""
        if self.players is not None:
            player = self.player(context)
            return f"player:{player}", player
        key = metadata_value(context.invocation_metadata(), CALLER_KEY)
        if key is not None:
            return caller_scope(key), None
        if request_id:
            raise ApiError(
                reasons.CALLER_KEY_REQUIRED,
                f"a request id on CreateGame or JoinGame needs the caller's own key in "
                f"the {CALLER_KEY} metadata (a random secret the client keeps), so that "
                "only the caller gets the first answer again",
            )
        return "", None
