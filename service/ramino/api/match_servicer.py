"""MatchService: quick-play tickets, ratings, leaderboards, histories and
game records (``proto/ramino/v1/match.proto``).

Thin, as the game servicer is: it decodes, finds the caller's player from
the host's player token (a server without a player verifier has no
MatchService), calls the application's quick play
(:class:`~ramino.app.quick.QuickPlay`), and encodes the values it gets back.
It holds only what belongs to the transport: the ticket streams a player
has open on this replica, and the seat tokens a matched ticket is answered
with.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import grpc

import ramino
from ramino import reasons
from ramino.api import convert
from ramino.api.auth import PLAYER_TOKEN_KEY, PlayerVerifier, TokenIssuer, metadata_value
from ramino.api.errors import ApiError
from ramino.api.events import event_message
from ramino.app.quick.play import QuickPlay, TicketSight
from ramino.app.quick.queues import QueueSpec
from ramino.app.quick.ratings import new_rating
from ramino.app.quick.tickets import Party, Ticket
from ramino.app.values import (
    CANCELLED,
    EXPIRED,
    MATCHED,
    HistoryEntry,
    PartyMember,
    RatingRecord,
)
from ramino.errors import BadRequest, Busy
from ramino.slots import CountedSlots
from ramino.v1 import game_pb2, match_pb2, match_pb2_grpc

if TYPE_CHECKING:
    Context = grpc.aio.ServicerContext[Any, Any]
else:
    Context = grpc.aio.ServicerContext

__all__ = ["MatchServicer", "STREAMS_PER_PLAYER"]

STREAMS_PER_PLAYER = 4
"""Ticket streams one player may hold open on one replica at once."""
FINAL: dict[str, Any] = {
    MATCHED: match_pb2.TICKET_STATE_MATCHED,
    EXPIRED: match_pb2.TICKET_STATE_EXPIRED,
    CANCELLED: match_pb2.TICKET_STATE_CANCELLED,
}


def _rating(r: RatingRecord | None) -> match_pb2.Rating | None:
    """A rating: the application's, or the record in a history or a board entry."""
    if r is None:
        return None
    return match_pb2.Rating(mu=r.mu, sigma=r.sigma, score=r.score, games=r.games)


def _name(prefix: str, name: str, reason: str) -> str:
    """The id in a resource name ``prefix/{id}``: INVALID_ARGUMENT otherwise."""
    head, sep, rest = name.partition("/")
    if head != prefix or not sep or not rest or "/" in rest or len(rest) > 128:
        raise BadRequest(f"expected a name {prefix}/{{id}}, not {name[:40]!r}", reason)
    return rest


class MatchServicer(match_pb2_grpc.MatchServiceServicer):
    def __init__(
        self,
        quick: QuickPlay,
        tokens: TokenIssuer,
        players: PlayerVerifier,
        streams_per_player: int = STREAMS_PER_PLAYER,
    ) -> None:
        self.quick = quick
        self.tokens = tokens
        self.players = players
        self.streams_per_player = streams_per_player
        self._streams: CountedSlots[str] = CountedSlots()
        """Open ticket streams by player."""

    def _player(self, context: Context) -> str:
        token = metadata_value(context.invocation_metadata(), PLAYER_TOKEN_KEY)
        if not token:
            raise ApiError(
                reasons.PLAYER_TOKEN_MISSING,
                f"quick play needs your player token in the {PLAYER_TOKEN_KEY} metadata",
            )
        return self.players.verify(token.removeprefix("Bearer ").strip())

    # --- tickets -----------------------------------------------------------------

    async def SubmitTicket(
        self, request: match_pb2.SubmitTicketRequest, context: Context
    ) -> AsyncIterator[match_pb2.SubmitTicketResponse]:
        player = self._player(context)
        async for update in self._stream(player, lambda: self._submit(player, request)):
            yield match_pb2.SubmitTicketResponse(update=update)

    async def _submit(self, player: str, request: match_pb2.SubmitTicketRequest) -> Ticket:
        overrides = convert.overrides(request.overrides if request.HasField("overrides") else None)
        low = request.min_seats or 2
        return await self.quick.submit(
            player,
            request.player_name,
            QueueSpec(request.variant, overrides, request.rated, not request.without_bots),
            low,
            request.max_seats or low,
            dict(request.properties),
            request.request_id,
            _name("parties", request.party, reasons.BAD_PARTY_NAME) if request.party else "",
            dict(request.numeric_properties),
            [_clause(c) for c in request.clauses],
            request.rating_band,
        )

    async def WatchTicket(
        self, request: match_pb2.WatchTicketRequest, context: Context
    ) -> AsyncIterator[match_pb2.WatchTicketResponse]:
        player = self._player(context)
        ticket_id = _name("tickets", request.ticket, reasons.BAD_TICKET_NAME)
        async for update in self._stream(player, lambda: self.quick.ticket(player, ticket_id)):
            yield match_pb2.WatchTicketResponse(update=update)

    async def _stream(
        self, player: str, first: Callable[[], Awaitable[Ticket]]
    ) -> AsyncIterator[match_pb2.TicketUpdate]:
        """The updates of the ticket ``first`` gives, in one of the player's
        stream slots."""
        with self._streams.slot(player, self.streams_per_player, self._too_many):
            async for sight in self.quick.follow(player, await first()):
                yield self._update(sight, player)

    async def CancelTicket(
        self, request: match_pb2.CancelTicketRequest, context: Context
    ) -> match_pb2.CancelTicketResponse:
        player = self._player(context)
        sight = await self.quick.cancel(
            player, _name("tickets", request.ticket, reasons.BAD_TICKET_NAME)
        )
        return match_pb2.CancelTicketResponse(update=self._update(sight, player))

    async def ListTickets(
        self, request: match_pb2.ListTicketsRequest, context: Context
    ) -> match_pb2.ListTicketsResponse:
        player = self._player(context)
        return match_pb2.ListTicketsResponse(
            tickets=[self._update(sight, player) for sight in await self.quick.tickets(player)]
        )

    def _too_many(self, open_streams: int) -> Busy:
        return Busy(
            f"at most {self.streams_per_player} ticket streams at once",
            reasons.TOO_MANY_TICKET_STREAMS,
        )

    def _update(self, sight: TicketSight, player: str) -> match_pb2.TicketUpdate:
        ticket = sight.ticket
        state = (
            match_pb2.TICKET_STATE_WIDENED if sight.widened else match_pb2.TICKET_STATE_SEARCHING
        )
        msg = match_pb2.TicketUpdate(
            ticket=f"tickets/{ticket.ticket_id}",
            state=FINAL.get(ticket.state, state),
            rating_window=sight.window,
            submit_time=convert.timestamp(ticket.created_at),
            party=f"parties/{ticket.party_id}" if ticket.party_id else "",
            queue_size=sight.queue_size,
            expected_wait=sight.expected_wait,
        )
        if ticket.state == MATCHED:
            seat = ticket.seat_of(player)
            msg.game = f"games/{ticket.game_id}"
            msg.seat = seat
            msg.seat_token = self.tokens.issue(ticket.game_id, seat, player=player)
            msg.opponents.extend(
                match_pb2.TicketSeat(
                    seat=i,
                    player_name=s["name"],
                    player=s["player_id"],
                    bot=convert.BOT_LEVELS.get(s["bot"] or "", game_pb2.BOT_LEVEL_UNSPECIFIED),
                    rating=s["rating"],
                )
                for i, s in enumerate(ticket.table)
                if i != seat
            )
        return msg

    # --- parties -------------------------------------------------------------------

    def _party(self, party: Party) -> match_pb2.Party:
        def member(m: PartyMember) -> match_pb2.PartyMember:
            return match_pb2.PartyMember(player=m.player_id, player_name=m.name)

        return match_pb2.Party(
            name=f"parties/{party.party_id}",
            leader=member(party.leader),
            members=[member(m) for m in party.members],
            ticket=f"tickets/{party.ticket_id}" if party.ticket_id else "",
            max_players=self.quick.matchmaker.config.party_size,
            expire_time=convert.timestamp(party.expires_at),
        )

    async def CreateParty(
        self, request: match_pb2.CreatePartyRequest, context: Context
    ) -> match_pb2.CreatePartyResponse:
        player = self._player(context)
        party = await self.quick.parties.create(player, request.player_name)
        return match_pb2.CreatePartyResponse(party=self._party(party))

    async def InviteToParty(
        self, request: match_pb2.InviteToPartyRequest, context: Context
    ) -> match_pb2.InviteToPartyResponse:
        player = self._player(context)
        invitation = await self.quick.parties.invite(
            player, _name("parties", request.party, reasons.BAD_PARTY_NAME), request.player
        )
        return match_pb2.InviteToPartyResponse(
            invitation=invitation.invitation_id,
            expire_time=convert.timestamp(invitation.expires_at),
        )

    async def JoinParty(
        self, request: match_pb2.JoinPartyRequest, context: Context
    ) -> match_pb2.JoinPartyResponse:
        player = self._player(context)
        party = await self.quick.parties.join(
            player,
            _name("parties", request.party, reasons.BAD_PARTY_NAME),
            request.invitation,
            request.player_name,
        )
        return match_pb2.JoinPartyResponse(party=self._party(party))

    async def LeaveParty(
        self, request: match_pb2.LeavePartyRequest, context: Context
    ) -> match_pb2.LeavePartyResponse:
        player = self._player(context)
        await self.quick.parties.leave(
            player, _name("parties", request.party, reasons.BAD_PARTY_NAME)
        )
        return match_pb2.LeavePartyResponse()

    async def GetParty(
        self, request: match_pb2.GetPartyRequest, context: Context
    ) -> match_pb2.GetPartyResponse:
        player = self._player(context)
        party = await self.quick.parties.get(
            player, _name("parties", request.party, reasons.BAD_PARTY_NAME)
        )
        return match_pb2.GetPartyResponse(party=self._party(party))

    # --- ratings, leaderboards, histories ------------------------------------------

    @staticmethod
    def _variant(name: str) -> str:
        ramino.Variant(name)  # an unknown variant is INVALID_ARGUMENT, named
        return name

    async def GetRating(
        self, request: match_pb2.GetRatingRequest, context: Context
    ) -> match_pb2.GetRatingResponse:
        player = self._player(context)
        found = await self.quick.rating(self._variant(request.variant), player)
        return match_pb2.GetRatingResponse(rating=_rating(found.rating), rank=found.rank or 0)

    async def ListLeaderboard(
        self, request: match_pb2.ListLeaderboardRequest, context: Context
    ) -> match_pb2.ListLeaderboardResponse:
        player = self._player(context)
        board = await self.quick.leaderboard(
            self._variant(request.variant),
            player,
            request.page_size,
            request.page_token,
            request.around_caller,
        )
        return match_pb2.ListLeaderboardResponse(
            entries=[
                match_pb2.LeaderboardEntry(
                    rank=e.rank,
                    player=e.player_id,
                    player_name=e.rating.name,
                    rating=_rating(e.rating),
                )
                for e in board.page.entries
            ],
            next_page_token=board.page.next_page_token,
            caller_rank=board.caller_rank or 0,
        )

    async def ListPlayerGames(
        self, request: match_pb2.ListPlayerGamesRequest, context: Context
    ) -> match_pb2.ListPlayerGamesResponse:
        player = self._player(context)
        variant = self._variant(request.variant) if request.variant else ""
        found = await self.quick.history(player, request.page_size, variant)
        return match_pb2.ListPlayerGamesResponse(games=[_player_game(h) for h in found])

    async def GetGameRecord(
        self, request: match_pb2.GetGameRecordRequest, context: Context
    ) -> match_pb2.GetGameRecordResponse:
        player = self._player(context)
        game_id = _name("games", request.name, reasons.BAD_GAME_NAME)
        record = await self.quick.record(game_id, player)
        h = record.header
        msg = match_pb2.GetGameRecordResponse(
            name=f"games/{game_id}",
            variant=h.variant,
            parameters=convert.parameters_message(
                ramino.Variant(h.variant, **h.overrides).to_dict()
            ),
            seed=str(h.seed),
            seed_hash=h.seed_hash,
        )
        for version, event in record.events:
            event_message(version, event, msg.events.add())
        return msg


_OCCURS = {
    match_pb2.MatchClause.OCCUR_MUST: "must",
    match_pb2.MatchClause.OCCUR_SHOULD: "should",
    match_pb2.MatchClause.OCCUR_MUST_NOT: "must_not",
}


def _clause(c: match_pb2.MatchClause) -> dict[str, Any]:
    """A clause as the application reads it (``ramino.app.quick.clauses``)."""
    clause: dict[str, Any] = {"occur": _OCCURS.get(c.occur, ""), "key": c.key}
    if c.HasField("any_of"):
        clause["any_of"] = list(c.any_of.values)
    elif c.HasField("range"):
        clause["min"] = c.range.min if c.range.HasField("min") else None
        clause["max"] = c.range.max if c.range.HasField("max") else None
    return clause


def _player_game(h: HistoryEntry) -> match_pb2.PlayerGame:
    g = h.game
    return match_pb2.PlayerGame(
        game=f"games/{g.game_id}",
        variant=g.variant,
        finish_time=convert.timestamp(g.finished_at),
        seats=[
            match_pb2.PlayerGameSeat(
                seat=s.seat,
                player_name=s.name,
                player=s.player_id,
                score=s.score,
                rank=s.rank,
                lost=s.lost,
            )
            for s in g.seats
        ],
        rated=h.after is not None,
        rating_before=_rating(h.before or (new_rating() if h.after is not None else None)),
        rating_after=_rating(h.after),
    )
