package dev.ramino.client

import ramino.v1.GameOuterClass.AcceptLayoutRequest
import ramino.v1.GameOuterClass.DiscardRequest
import ramino.v1.GameOuterClass.DrawFromStockRequest
import ramino.v1.GameOuterClass.GetLegalMovesRequest
import ramino.v1.GameOuterClass.KnockRequest
import ramino.v1.GameOuterClass.LayMeldsRequest
import ramino.v1.GameOuterClass.LayOffRequest
import ramino.v1.GameOuterClass.PassUpcardRequest
import ramino.v1.GameOuterClass.ResignRequest
import ramino.v1.GameOuterClass.SwapJokerRequest
import ramino.v1.GameOuterClass.TakeDiscardRequest
import ramino.v1.GameOuterClass.TurnOverDiscardPileRequest
import ramino.v1.GameOuterClass.Move.MoveCase
import ramino.v1.GameServiceGrpc

/**
 * A seat of a game, held by its seat token: one method per move, its view,
 * its legal moves and its watch. Each move takes [expectedVersion] (refused
 * with [RaminoException.Aborted], VERSION_MISMATCH, when the game has moved
 * on) and [requestId] (fresh per move unless given; a retry, by the client or
 * by you with the same id, is applied once). Keep [token] to come back with
 * [RaminoClient.seatFromToken].
 */
public class Seat internal constructor(
    public val client: RaminoClient,
    /** "games/{id}". */
    public val name: String,
    public val number: Int,
    public val token: String,
    view: GameView?,
) {
    /** The last view a call gave this seat (a move's answer keeps the deck and variant of the one before). */
    @Volatile public var lastView: GameView? = view
        internal set

    /** The game's id (the name without "games/"). */
    public val gameId: String get() = name.removePrefix("games/")

    /** The seat's view now. */
    public suspend fun view(): GameView = client.view(name, token).also { lastView = it }

    /** The moves this seat may make now, with the hint of the meld search. */
    public suspend fun legalMoves(): LegalMoves =
        client.call(GameServiceGrpc.getGetLegalMovesMethod(), GetLegalMovesRequest.newBuilder().setName(name).build(), token)

    /** The seat's watch (its hand in its events); see [GameWatch]. */
    public fun watch(afterVersion: Long? = null, snapshot: Boolean = false, pastTheEnd: Boolean = false): GameWatch =
        GameWatch(client, name, token, afterVersion, snapshot, pastTheEnd)

    /**
     * The seat's session (PlayGame): a [Flow] of [SessionUpdate]s in version
     * order, and [Session.send] for its moves; see [Session]. [afterVersion]
     * resumes after a version (null: start with a snapshot).
     */
    public fun session(afterVersion: Long? = null): Session = Session(this, afterVersion)

    /** Draw the stock's top card. */
    public suspend fun drawFromStock(expectedVersion: Long? = null, requestId: String? = null): MoveResult {
        val r = DrawFromStockRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId())
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getDrawFromStockMethod(), r.build(), token).result)
    }

    /** Take the discard pile's top card. */
    public suspend fun takeDiscard(expectedVersion: Long? = null, requestId: String? = null): MoveResult {
        val r = TakeDiscardRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId())
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getTakeDiscardMethod(), r.build(), token).result)
    }

    /** With an empty stock that turns over: turn the discard pile over and draw. */
    public suspend fun turnOverDiscardPile(expectedVersion: Long? = null, requestId: String? = null): MoveResult {
        val r = TurnOverDiscardPileRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId())
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getTurnOverDiscardPileMethod(), r.build(), token).result)
    }

    /** Lay new melds, each a list of card ids in meld order (the first time: the opening). */
    public suspend fun layMelds(melds: List<List<Int>>, expectedVersion: Long? = null, requestId: String? = null): MoveResult {
        val r = LayMeldsRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId())
            .addAllMelds(meldIds(melds))
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getLayMeldsMethod(), r.build(), token).result)
    }

    /** Add [cardId] to the table meld [meldIndex], at [end] of a run. */
    public suspend fun layOff(
        cardId: Int,
        meldIndex: Int,
        end: End = End.END_LAST,
        expectedVersion: Long? = null,
        requestId: String? = null,
    ): MoveResult {
        val r = LayOffRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId())
            .setCardId(cardId).setMeldIndex(meldIndex).setEnd(end)
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getLayOffMethod(), r.build(), token).result)
    }

    /** Give [cardId], the card table joker [jokerId] of meld [meldIndex] stands for, and take the joker. */
    public suspend fun swapJoker(
        cardId: Int,
        meldIndex: Int,
        jokerId: Int,
        expectedVersion: Long? = null,
        requestId: String? = null,
    ): MoveResult {
        val r = SwapJokerRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId())
            .setCardId(cardId).setMeldIndex(meldIndex).setJokerId(jokerId)
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getSwapJokerMethod(), r.build(), token).result)
    }

    /** Discard [cardId], ending the turn. */
    public suspend fun discard(cardId: Int, expectedVersion: Long? = null, requestId: String? = null): MoveResult {
        val r = DiscardRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId()).setCardId(cardId)
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getDiscardMethod(), r.build(), token).result)
    }

    /** Leave the match. */
    public suspend fun resign(expectedVersion: Long? = null, requestId: String? = null): MoveResult {
        val r = ResignRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId())
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getResignMethod(), r.build(), token).result)
    }

    /** Gin: decline the first upcard, or the upcard at the wall. */
    public suspend fun passUpcard(expectedVersion: Long? = null, requestId: String? = null): MoveResult {
        val r = PassUpcardRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId())
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getPassUpcardMethod(), r.build(), token).result)
    }

    /** Gin: discard [discardCardId] (null only for big gin) and lay the hand in [melds]. */
    public suspend fun knock(
        discardCardId: Int?,
        melds: List<List<Int>>,
        expectedVersion: Long? = null,
        requestId: String? = null,
    ): MoveResult {
        val r = KnockRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId())
            .addAllMelds(meldIds(melds))
        discardCardId?.let { r.setDiscardCardId(it) }
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getKnockMethod(), r.build(), token).result)
    }

    /** Gin, the defender: done laying off and melding; the hand is scored. */
    public suspend fun acceptLayout(expectedVersion: Long? = null, requestId: String? = null): MoveResult {
        val r = AcceptLayoutRequest.newBuilder().setName(name).setRequestId(requestId ?: RaminoClient.newRequestId())
        expectedVersion?.let { r.setExpectedVersion(it) }
        return keep(client.call(GameServiceGrpc.getAcceptLayoutMethod(), r.build(), token).result)
    }

    /** Any move, as [legalMoves] proposes it. */
    public suspend fun play(move: Move, expectedVersion: Long? = null, requestId: String? = null): MoveResult =
        when (move.moveCase) {
            MoveCase.DRAW_FROM_STOCK -> drawFromStock(expectedVersion, requestId)
            MoveCase.TAKE_DISCARD -> takeDiscard(expectedVersion, requestId)
            MoveCase.TURN_OVER_DISCARD_PILE -> turnOverDiscardPile(expectedVersion, requestId)
            MoveCase.LAY_MELDS -> layMelds(move.layMelds.meldsList.map { it.cardIdsList }, expectedVersion, requestId)
            MoveCase.LAY_OFF -> move.layOff.let { layOff(it.cardId, it.meldIndex, it.end, expectedVersion, requestId) }
            MoveCase.SWAP_JOKER -> move.swapJoker.let { swapJoker(it.cardId, it.meldIndex, it.jokerId, expectedVersion, requestId) }
            MoveCase.DISCARD -> discard(move.discard.cardId, expectedVersion, requestId)
            MoveCase.RESIGN -> resign(expectedVersion, requestId)
            MoveCase.PASS_UPCARD -> passUpcard(expectedVersion, requestId)
            MoveCase.KNOCK -> move.knock.let {
                knock(if (it.hasDiscardCardId()) it.discardCardId else null, it.meldsList.map { m -> m.cardIdsList }, expectedVersion, requestId)
            }
            MoveCase.ACCEPT_LAYOUT -> acceptLayout(expectedVersion, requestId)
            MoveCase.MOVE_NOT_SET, null -> throw IllegalArgumentException("Seat.play: the move has no case set")
        }

    internal fun keep(result: MoveResult): MoveResult {
        if (result.hasView()) keep(result.view)
        return result
    }

    /**
     * Keeps [view] as the seat's last, with the variant's parameters and the
     * deck of the view before it (a move's answer and the options a session
     * pushes leave them out: they never change in a game).
     */
    internal fun keep(view: GameView) {
        val known = lastView
        lastView = if (known == null) {
            view
        } else {
            val b = view.toBuilder()
            if (!view.variant.hasParameters() && known.hasVariant()) b.setVariant(known.variant)
            if (view.deckCount == 0) b.addAllDeck(known.deckList)
            b.build()
        }
    }

    private companion object {
        fun meldIds(melds: List<List<Int>>): List<MeldCardIds> = melds.map { MeldCardIds.newBuilder().addAllCardIds(it).build() }
    }
}
