package dev.ramino.client.bot

import dev.ramino.client.GameView
import dev.ramino.client.LegalMoves
import dev.ramino.client.Move
import dev.ramino.client.RaminoException
import dev.ramino.client.Reasons
import dev.ramino.client.Seat
import dev.ramino.client.SeatOptions
import io.grpc.Status
import ramino.v1.GameOuterClass.Hint
import ramino.v1.GameOuterClass.Move.MoveCase

/**
 * A simple strategy over the server's legal moves and hints: knock when the
 * hint has a knock; else draw (the stock, the turned-over pile, the discard),
 * meld and lay off what the server proposes; then discard the suggested card.
 */
public object Bot {
    /** The move to make among [legal]'s, or null when there is none. */
    public fun choose(legal: LegalMoves): Move? = choose(legal.movesList, if (legal.hasHint()) legal.hint else null)

    /** The move to make among the pushed [options]' (a session's, a move result's), or null when there is none. */
    public fun choose(options: SeatOptions): Move? = choose(options.movesList, if (options.hasHint()) options.hint else null)

    private fun choose(moves: List<Move>, hint: Hint?): Move? {
        fun first(case: MoveCase): Move? = moves.firstOrNull { it.moveCase == case }
        if (hint != null && hint.hasBestKnock() && first(MoveCase.KNOCK) != null) {
            return Move.newBuilder().setKnock(hint.bestKnock).build()
        }
        for (case in listOf(
            MoveCase.DRAW_FROM_STOCK,
            MoveCase.TURN_OVER_DISCARD_PILE,
            MoveCase.TAKE_DISCARD,
            MoveCase.LAY_MELDS,
            MoveCase.LAY_OFF,
        )) {
            first(case)?.let { return it }
        }
        if (hint != null && hint.hasSuggestedDiscard() && hint.suggestedDiscard.hasId()) {
            val id = hint.suggestedDiscard.id
            moves.firstOrNull { it.moveCase == MoveCase.DISCARD && it.discard.cardId == id }?.let { return it }
        }
        for (case in listOf(MoveCase.DISCARD, MoveCase.ACCEPT_LAYOUT, MoveCase.PASS_UPCARD)) {
            first(case)?.let { return it }
        }
        return moves.firstOrNull { it.moveCase != MoveCase.RESIGN } ?: moves.firstOrNull()
    }

    /**
     * Plays [seat]'s turn, if it is its turn, to its end (the discard, or a
     * move that passes the turn); true when it made a move. A move refused
     * because the game moved on meanwhile (a timer, a bot) is looked at again.
     */
    public suspend fun playTurn(seat: Seat): Boolean {
        var played = false
        var legal = seat.legalMoves()
        while (true) {
            val move = choose(legal) ?: return played
            val result = try {
                seat.play(move, expectedVersion = legal.version)
            } catch (e: RaminoException.Aborted) {
                legal = seat.legalMoves()
                continue
            } catch (e: RaminoException.FailedPrecondition) {
                if (e.reason == Reasons.NOT_YOUR_TURN || e.reason == Reasons.MATCH_OVER) return played
                throw e
            }
            played = true
            if (result.legalMovesCount == 0) return true
            legal = LegalMoves.newBuilder()
                .setVersion(result.view.version)
                .addAllMoves(result.legalMovesList)
                .setHint(result.hint)
                .build()
        }
    }

    /**
     * Plays [seat] until its match ends from what its session pushes (the
     * answers' and the pushed options: no GetLegalMoves), choosing with
     * [strategy] (given the options and the seat's view at their version),
     * and answers the seat's final view. A move overtaken by another (a
     * stale version, a turn passed) is told to [onRefused] and play goes on
     * from the options that follow (see [Session.play]). Against a server
     * without PlayGame (UNIMPLEMENTED) it plays as [play] does, with the
     * unary moves and the seat's watch.
     */
    public suspend fun playSession(
        seat: Seat,
        onRefused: (RaminoException, SeatOptions) -> Unit = { _, _ -> },
        strategy: suspend (SeatOptions, GameView?) -> Move? = { options, _ -> choose(options) },
    ): GameView {
        val session = seat.session()
        try {
            session.play(onRefused, strategy)
        } catch (e: RaminoException) {
            if (e.code != Status.Code.UNIMPLEMENTED) throw e
            return play(seat)
        } finally {
            session.close()
        }
        return seat.view()
    }

    /** Plays [seat] until the match ends, following its watch; answers the final view. */
    public suspend fun play(seat: Seat): GameView {
        seat.watch().collect { playTurn(seat) }
        return seat.view()
    }
}
