package dev.ramino.client

import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.firstOrNull
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.onEach
import ramino.v1.Match.CancelTicketRequest
import ramino.v1.Match.CreatePartyRequest
import ramino.v1.Match.GetPartyRequest
import ramino.v1.Match.InviteToPartyRequest
import ramino.v1.Match.JoinPartyRequest
import ramino.v1.Match.LeavePartyRequest
import ramino.v1.Match.MatchClause
import ramino.v1.Match.NumberRange
import ramino.v1.Match.StringSet
import ramino.v1.Match.GetGameRecordRequest
import ramino.v1.Match.GetRatingRequest
import ramino.v1.Match.ListLeaderboardRequest
import ramino.v1.Match.ListPlayerGamesRequest
import ramino.v1.Match.TicketState
import ramino.v1.Match.WatchTicketRequest
import ramino.v1.MatchServiceGrpc

/**
 * What a quick-play ticket asks for: a game of [variant] (with [overrides];
 * tickets meet only tickets of the same variant, overrides and [rated]),
 * sat under [playerName], at a table of [minSeats] to [maxSeats] seats (2 to
 * 6; 0: [minSeats]), whose [properties] (up to 8: region, language...) agree
 * where both set a key; bots may fill the table after the server's wait
 * unless [bots] is false. The matching grammar (docs/matchmaking.md):
 * [numericProperties] (up to 8), [clauses] on the other tickets'
 * properties (up to 8), [ratingBand] (0: the server's window). [party]
 * ("parties/ID"): the caller's party, which the caller leads, queues as one
 * ticket; its members take their seats with [Quick.partyPlay].
 */
public data class TicketSpec(
    val variant: String,
    val playerName: String,
    val minSeats: Int = 2,
    val maxSeats: Int = 0,
    val rated: Boolean = true,
    val properties: Map<String, String> = emptyMap(),
    val overrides: VariantParameters? = null,
    val bots: Boolean = true,
    val numericProperties: Map<String, Double> = emptyMap(),
    val clauses: List<Clause> = emptyList(),
    val ratingBand: Double = 0.0,
    val party: String = "",
) {
    /** The SubmitTicket request. */
    public fun request(): SubmitTicketRequest {
        val b = SubmitTicketRequest.newBuilder()
            .setVariant(variant)
            .setPlayerName(playerName)
            .setMinSeats(minSeats)
            .setMaxSeats(maxSeats)
            .setRated(rated)
            .putAllProperties(properties)
            .setWithoutBots(!bots)
            .putAllNumericProperties(numericProperties)
            .addAllClauses(clauses.map { it.message() })
            .setRatingBand(ratingBand)
            .setParty(if (party.isEmpty()) "" else Quick.partyName(party))
        overrides?.let { b.setOverrides(it) }
        return b.build()
    }
}

/**
 * A condition on the tickets a ticket may meet, tested on the other ticket's
 * properties: [anyOf] string values, or a [min]/[max] range of a numeric one.
 * [occur] is "must", "should" (it gives way after the server's preference
 * time) or "must_not".
 */
public data class Clause(
    val occur: String,
    val key: String,
    val anyOf: List<String> = emptyList(),
    val min: Double? = null,
    val max: Double? = null,
) {
    /** The MatchClause message. */
    public fun message(): MatchClause {
        val b = MatchClause.newBuilder().setKey(key).setOccur(
            when (occur) {
                "must" -> MatchClause.Occur.OCCUR_MUST
                "should" -> MatchClause.Occur.OCCUR_SHOULD
                "must_not" -> MatchClause.Occur.OCCUR_MUST_NOT
                else -> MatchClause.Occur.OCCUR_UNSPECIFIED
            },
        )
        if (anyOf.isNotEmpty()) {
            b.setAnyOf(StringSet.newBuilder().addAllValues(anyOf))
        } else if (min != null || max != null) {
            val range = NumberRange.newBuilder()
            min?.let { range.setMin(it) }
            max?.let { range.setMax(it) }
            b.setRange(range)
        }
        return b.build()
    }
}

/** A ticket expired or was cancelled before a game was found; [update] is its last. */
public class TicketEndedException(public val update: TicketUpdate) :
    Exception("the ticket ${update.ticket} ended without a game: ${update.state}")

/**
 * Quick play (MatchService) as `client.quick`: tickets that find a game,
 * ratings, leaderboards, a player's finished games and a game's record.
 * Every call needs the client's player token ([ClientOptions.playerToken]).
 */
public class Quick internal constructor(private val client: RaminoClient) {
    /** A new ticket's updates (searching, widened...), until it is matched or ends. */
    public fun submit(ticket: TicketSpec): Flow<TicketUpdate> =
        client.stream(MatchServiceGrpc.getSubmitTicketMethod(), ticket.request()).map { it.update }

    /** A ticket's updates again (after a reconnect), from its state now. */
    public fun watch(ticket: String): Flow<TicketUpdate> =
        client.stream(MatchServiceGrpc.getWatchTicketMethod(), WatchTicketRequest.newBuilder().setTicket(ticketName(ticket)).build())
            .map { it.update }

    /** Cancels one of the caller's tickets while it waits; a ticket matched or ended is answered as it is. */
    public suspend fun cancel(ticket: String): TicketUpdate =
        client.call(MatchServiceGrpc.getCancelTicketMethod(), CancelTicketRequest.newBuilder().setTicket(ticketName(ticket)).build())
            .update

    /**
     * Submits [ticket] and follows it until it is matched: the seat found,
     * with its token. [onUpdate] is told every update. A ticket that expires
     * or is cancelled (or whose stream ends first) throws [TicketEndedException].
     */
    public suspend fun play(ticket: TicketSpec, onUpdate: ((TicketUpdate) -> Unit)? = null): Seat {
        val end = submit(ticket).onEach { onUpdate?.invoke(it) }.firstOrNull { it.state in FINAL }
        if (end?.state != TicketState.TICKET_STATE_MATCHED) throw TicketEndedException(end ?: TicketUpdate.getDefaultInstance())
        return client.seat(end.game, end.seat, end.seatToken)
    }

    /** The caller's rating in [variant] and its rank (`rank` 0 while unrated). */
    public suspend fun rating(variant: String): GetRatingResponse =
        client.call(MatchServiceGrpc.getGetRatingMethod(), GetRatingRequest.newBuilder().setVariant(variant).build())

    /** A page of [variant]'s leaderboard: from [pageToken] ("" for the top), or the page around the caller. */
    public suspend fun leaderboard(
        variant: String,
        pageSize: Int = 20,
        pageToken: String = "",
        aroundCaller: Boolean = false,
    ): ListLeaderboardResponse = client.call(
        MatchServiceGrpc.getListLeaderboardMethod(),
        ListLeaderboardRequest.newBuilder().setVariant(variant).setPageSize(pageSize).setPageToken(pageToken)
            .setAroundCaller(aroundCaller).build(),
    )

    /** The caller's most recent finished games, newest first ([variant] "" for all). */
    public suspend fun games(variant: String = "", pageSize: Int = 20): List<PlayerGame> = client.call(
        MatchServiceGrpc.getListPlayerGamesMethod(),
        ListPlayerGamesRequest.newBuilder().setVariant(variant).setPageSize(pageSize).build(),
    ).gamesList

    /** A finished game's whole record: every event as spectators saw it, and its seed. */
    public suspend fun record(game: String): GetGameRecordResponse = client.call(
        MatchServiceGrpc.getGetGameRecordMethod(),
        GetGameRecordRequest.newBuilder().setName(RaminoClient.gameName(game)).build(),
    )

    /** A new party led by the caller, who sits under [playerName]. */
    public suspend fun createParty(playerName: String): Party =
        client.call(MatchServiceGrpc.getCreatePartyMethod(), CreatePartyRequest.newBuilder().setPlayerName(playerName).build())
            .party

    /**
     * Invites [player] (their player token's subject) to the caller's party:
     * the answer's `invitation` is what the leader sends them, accepted once,
     * before its `expireTime`.
     */
    public suspend fun inviteToParty(party: String, player: String): InviteToPartyResponse = client.call(
        MatchServiceGrpc.getInviteToPartyMethod(),
        InviteToPartyRequest.newBuilder().setParty(partyName(party)).setPlayer(player).build(),
    )

    /** Joins the party an invitation naming the caller is to. */
    public suspend fun joinParty(party: String, invitation: String, playerName: String): Party = client.call(
        MatchServiceGrpc.getJoinPartyMethod(),
        JoinPartyRequest.newBuilder().setParty(partyName(party)).setInvitation(invitation).setPlayerName(playerName).build(),
    ).party

    /** Leaves the party (its leader disbands it); a waiting ticket of the party is cancelled. */
    public suspend fun leaveParty(party: String) {
        client.call(MatchServiceGrpc.getLeavePartyMethod(), LeavePartyRequest.newBuilder().setParty(partyName(party)).build())
    }

    /** The party, to its leader and members. */
    public suspend fun getParty(party: String): Party =
        client.call(MatchServiceGrpc.getGetPartyMethod(), GetPartyRequest.newBuilder().setParty(partyName(party)).build()).party

    /**
     * A member's [play]: waits for the party's ticket (its leader's [play]
     * with [TicketSpec.party]), follows it, and takes the caller's seat in its
     * game. A ticket that ends unseated, or whose game has finished (the
     * party's last game), is followed by the party's next one; the caller's
     * timeout bounds the wait; a party that is gone throws its NotFound.
     */
    public suspend fun partyPlay(party: String): Seat {
        var ended = ""
        while (true) {
            val ticket = getParty(party).ticket
            if (ticket.isNotEmpty() && ticket != ended) {
                val matched = watch(ticket).firstOrNull { it.state in FINAL }
                if (matched?.state == TicketState.TICKET_STATE_MATCHED) {
                    val seat = client.seat(matched.game, matched.seat, matched.seatToken)
                    if (seat.view().status != GameStatus.GAME_STATUS_FINISHED) return seat
                }
                ended = ticket
            }
            delay(PARTY_LOOK_MS)
        }
    }

    public companion object {
        /** Milliseconds between two looks of [partyPlay] at a party that is not queued. */
        public const val PARTY_LOOK_MS: Long = 500

        /** "parties/{id}" from a party's id or name. */
        public fun partyName(party: String): String = if (party.startsWith("parties/")) party else "parties/$party"

        private val FINAL = setOf(TicketState.TICKET_STATE_MATCHED, TicketState.TICKET_STATE_EXPIRED, TicketState.TICKET_STATE_CANCELLED)

        /** "tickets/{id}" from a ticket's id or name. */
        public fun ticketName(ticket: String): String = if (ticket.startsWith("tickets/")) ticket else "tickets/$ticket"
    }
}
