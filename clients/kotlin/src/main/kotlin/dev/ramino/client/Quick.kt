package dev.ramino.client

import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.firstOrNull
import kotlinx.coroutines.flow.map
import kotlinx.coroutines.flow.onEach
import ramino.v1.Match.CancelTicketRequest
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
 * unless [bots] is false.
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
        overrides?.let { b.setOverrides(it) }
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

    public companion object {
        private val FINAL = setOf(TicketState.TICKET_STATE_MATCHED, TicketState.TICKET_STATE_EXPIRED, TicketState.TICKET_STATE_CANCELLED)

        /** "tickets/{id}" from a ticket's id or name. */
        public fun ticketName(ticket: String): String = if (ticket.startsWith("tickets/")) ticket else "tickets/$ticket"
    }
}
