package dev.ramino.client

import io.grpc.CallOptions
import io.grpc.Status
import io.grpc.kotlin.ClientCalls
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.FlowCollector
import kotlinx.coroutines.flow.consumeAsFlow
import kotlinx.coroutines.flow.takeWhile
import ramino.v1.GameOuterClass.AcceptLayoutRequest
import ramino.v1.GameOuterClass.DiscardRequest
import ramino.v1.GameOuterClass.DrawFromStockRequest
import ramino.v1.GameOuterClass.KnockRequest
import ramino.v1.GameOuterClass.LayMeldsRequest
import ramino.v1.GameOuterClass.LayOffRequest
import ramino.v1.GameOuterClass.Move.MoveCase
import ramino.v1.GameOuterClass.PassUpcardRequest
import ramino.v1.GameOuterClass.PlayGameRequest
import ramino.v1.GameOuterClass.PlayGameResponse
import ramino.v1.GameOuterClass.PlayGameStart
import ramino.v1.GameOuterClass.ResignRequest
import ramino.v1.GameOuterClass.SwapJokerRequest
import ramino.v1.GameOuterClass.TakeDiscardRequest
import ramino.v1.GameOuterClass.TurnOverDiscardPileRequest
import ramino.v1.GameServiceGrpc

/**
 * One message of a seat's session, with the game's [version] after it and,
 * when they changed, the seat's [options] (what it may do now).
 */
public sealed class SessionUpdate {
    public abstract val version: Long

    /** What the seat may do now, set when it changed (an answer's: its result's). */
    public abstract val options: SeatOptions?

    /** Whether nothing can follow in the seat's match (it, or the game, has ended). */
    public abstract val endsMatch: Boolean

    /** The events this update brings, in order: an event's, or those an answered move made. */
    public val events: List<GameEvent>
        get() = when (this) {
            is Event -> listOf(event)
            is Answer -> result.eventsList
            else -> emptyList()
        }

    /** The seat's view: the session's first message (unless resuming). */
    public class Snapshot internal constructor(
        override val version: Long,
        public val view: GameView,
        override val options: SeatOptions?,
    ) : SessionUpdate() {
        override val endsMatch: Boolean get() = view.status == GameStatus.GAME_STATUS_FINISHED

        override fun toString(): String = "Snapshot(version=$version)"
    }

    /** An event the seat may see, made by another seat, a bot, a timer or a unary call of this seat. */
    public class Event internal constructor(
        override val version: Long,
        public val event: GameEvent,
        override val options: SeatOptions?,
    ) : SessionUpdate() {
        override val endsMatch: Boolean get() = event.hasMatchEnded() || event.hasGameEnded()

        override fun toString(): String = "Event(version=$version, ${event.eventCase})"
    }

    /** The answer to one of this session's moves, by its [requestId]: the events it made are in [result]. */
    public class Answer internal constructor(
        override val version: Long,
        public val requestId: String,
        public val result: MoveResult,
        override val options: SeatOptions?,
    ) : SessionUpdate() {
        override val endsMatch: Boolean get() = result.view.status == GameStatus.GAME_STATUS_FINISHED

        override fun toString(): String = "Answer(version=$version, requestId=$requestId)"
    }

    /** One of this session's moves, refused as its unary call would be ([error]); the session goes on. */
    public class Refused internal constructor(
        override val version: Long,
        public val requestId: String,
        public val error: RaminoException,
    ) : SessionUpdate() {
        override val options: SeatOptions? get() = null
        override val endsMatch: Boolean get() = false

        override fun toString(): String = "Refused(version=$version, requestId=$requestId, ${error.reason})"
    }

    /** The seat's options alone (at [version]), when no snapshot, event or answer carries them. */
    public class Options internal constructor(
        override val version: Long,
        override val options: SeatOptions,
    ) : SessionUpdate() {
        override val endsMatch: Boolean get() = false

        override fun toString(): String = "Options(version=$version, moves=${options.movesCount})"
    }

    public companion object {
        /** The update of one server message of PlayGame. */
        public fun of(r: PlayGameResponse): SessionUpdate {
            val options = if (r.hasOptions()) r.options else null
            return when (r.payloadCase) {
                PlayGameResponse.PayloadCase.SNAPSHOT -> Snapshot(r.version, r.snapshot, options)
                PlayGameResponse.PayloadCase.EVENT -> Event(r.event.version, r.event, options)
                PlayGameResponse.PayloadCase.ANSWER -> {
                    val answer = r.answer
                    if (answer.hasError()) {
                        Refused(r.version, answer.requestId, RaminoException.of(answer.error))
                    } else {
                        val result = answer.result
                        val version = if (result.hasView()) result.view.version else r.version
                        Answer(version, answer.requestId, result, if (result.hasOptions()) result.options else options)
                    }
                }
                PlayGameResponse.PayloadCase.PAYLOAD_NOT_SET, null -> Options(
                    r.version,
                    options ?: throw RaminoException.make(
                        Status.Code.INTERNAL,
                        "EMPTY_SESSION_MESSAGE",
                        "a session message with nothing in it",
                    ),
                )
            }
        }
    }
}

/**
 * A seat's session (PlayGame), from [Seat.session]: a cold [Flow] of
 * [SessionUpdate]s, in version order, of each move's answer (by request
 * id), every event the seat may see, and the seat's options pushed whenever
 * they change, so that the client never asks; [send] sends a move.
 *
 * Collecting it opens the bidirectional stream. A stream the server drains
 * or loses is opened again (with the client's retry policy) after the last
 * version received, and the moves not yet answered are sent again under
 * their request ids, named in the start (`PlayGameStart.resend`): the server
 * applies each once, answers it once (a move played before the loss with
 * its first answer, in place of its events) and pushes no options before
 * those answers, so nothing is missed or repeated across it and nothing is
 * filtered here.
 *
 * The flow completes once the match has ended (or [closeSend] was called)
 * and every move sent is answered, or at once on [close] or when the client
 * closes; a start the server refuses (a bad token) is thrown as a
 * [RaminoException]. Collect it from one coroutine at a time; [send] may
 * be called from any.
 */
public class Session internal constructor(
    public val seat: Seat,
    afterVersion: Long?,
) : Flow<SessionUpdate> {
    private val lock = Any()
    private val unanswered = LinkedHashMap<String, Pending>()
    private var outbox: Channel<PlayGameRequest>? = null
    private var halfClosed = false
    private val closing = CompletableDeferred<Unit>()

    @Volatile private var last: Long? = afterVersion

    @Volatile private var matchEnded = false

    @Volatile private var reconnectCount = 0

    /** The version of the last snapshot, event or answer received: where a reopened stream resumes. */
    public val lastVersion: Long? get() = last

    /** Whether the seat's match has ended. */
    public val ended: Boolean get() = matchEnded

    /** How many times the stream was opened again after it dropped or the server drained it. */
    public val reconnects: Int get() = reconnectCount

    /** The request ids of the moves sent and not yet answered. */
    public val pending: Set<String> get() = synchronized(lock) { unanswered.keys.toSet() }

    /** A move sent and not yet answered: its message. */
    private class Pending(val request: PlayGameRequest)

    /**
     * Sends [move] (one of the pushed options' moves, or any) with
     * [expectedVersion] (refused VERSION_MISMATCH when the game has moved
     * on) and [requestId] (fresh unless given), and returns the request id,
     * which its answer carries. It goes on the stream being collected, or
     * on the next one opened; it does not wait.
     */
    public fun send(move: Move, expectedVersion: Long? = null, requestId: String? = null): String {
        if (closing.isCompleted || seat.client.isClosed) {
            throw RaminoException.make(Status.Code.CANCELLED, "CANCELLED", "the session is closed")
        }
        val id = requestId ?: RaminoClient.newRequestId()
        val message = moveMessage(move, id, expectedVersion)
        synchronized(lock) {
            check(!halfClosed) { "Session.send after closeSend" }
            unanswered[id] = Pending(message)
            outbox?.trySend(message)
        }
        return id
    }

    /** No more moves: the flow completes once the moves sent are answered. */
    public fun closeSend() {
        synchronized(lock) {
            halfClosed = true
            outbox?.close()
        }
    }

    /** Ends the session at once: a collection of it completes (without an error), its stream cancelled. */
    public fun close() {
        closing.complete(Unit)
    }

    private fun over(): Boolean =
        closing.isCompleted || synchronized(lock) { unanswered.isEmpty() && (matchEnded || halfClosed) }

    /**
     * A new stream's first messages: the start, after the last version
     * received and naming the moves not answered, then those moves.
     */
    private fun open(): Channel<PlayGameRequest> {
        val channel = Channel<PlayGameRequest>(Channel.UNLIMITED)
        // Options with their hint (and, pushed with moves, the seat's view) and
        // answers with the mover's view: what the session's callers read (the
        // server sends none of them unless asked).
        val start = PlayGameStart.newBuilder().setName(seat.name).setHints(true).setAnswerViews(true).setOptionViews(true)
        last?.let { start.setAfterVersion(it) }
        synchronized(lock) {
            start.addAllResend(unanswered.keys)
            channel.trySend(PlayGameRequest.newBuilder().setStart(start).build())
            unanswered.values.forEach { channel.trySend(it.request) }
            if (halfClosed) channel.close()
            outbox = channel
        }
        return channel
    }

    private fun dropped(channel: Channel<PlayGameRequest>) {
        synchronized(lock) {
            if (outbox === channel) outbox = null
        }
        channel.close()
    }

    /** Takes a move off the unanswered ones. */
    private fun answered(requestId: String) {
        synchronized(lock) { unanswered.remove(requestId) }
    }

    /** Notes what [update] says: the move it answers, the last version, the view, the end. */
    private fun take(update: SessionUpdate) {
        val seen = last
        when (update) {
            is SessionUpdate.Answer -> {
                answered(update.requestId)
                seat.keep(update.result)
                if (seen == null || update.version > seen) last = update.version
            }
            is SessionUpdate.Refused -> answered(update.requestId)
            is SessionUpdate.Event -> last = update.version
            is SessionUpdate.Snapshot -> {
                seat.lastView = update.view
                last = update.version
            }
            is SessionUpdate.Options -> {}
        }
        // Options pushed with moves carry the seat's view at their version.
        if (update !is SessionUpdate.Snapshot) update.options?.takeIf { it.hasView() }?.let { seat.keep(it.view) }
        matchEnded = matchEnded || update.endsMatch
    }

    override suspend fun collect(collector: FlowCollector<SessionUpdate>) {
        val client = seat.client
        var delays = client.options.retry.delays()
        while (!over()) {
            val channel = open()
            val place = client.streams.take()
            var failure: RaminoException? = null
            try {
                untilClosed(client, closing) {
                    ClientCalls.bidiStreamingRpc(
                        place.channel,
                        GameServiceGrpc.getPlayGameMethod(),
                        channel.consumeAsFlow(),
                        CallOptions.DEFAULT,
                        client.headers(seat.token),
                    ).collect { response ->
                        delays = client.options.retry.delays()
                        val update = SessionUpdate.of(response)
                        take(update)
                        try {
                            collector.emit(update)
                        } catch (e: CancellationException) {
                            throw e
                        } catch (e: Throwable) {
                            throw Downstream(e)
                        }
                        if (over()) throw Finished()
                    }
                }
            } catch (_: Finished) {
                return
            } catch (_: ClientClosed) {
                return
            } catch (d: Downstream) {
                throw d.cause ?: d
            } catch (e: CancellationException) {
                throw e
            } catch (e: Exception) {
                if (client.isClosed || closing.isCompleted) return
                val refused = RaminoException.from(e) ?: throw e
                if (!GameWatch.resumable(refused)) throw refused
                failure = refused
            } finally {
                place.close()
                dropped(channel)
            }
            // The stream ended or dropped: over once the match has ended and
            // every move is answered; otherwise the server is draining or the
            // connection broke: open again after the last version received.
            if (over()) return
            val wait = delays.next()
                ?: throw failure ?: RaminoException.make(Status.Code.UNAVAILABLE, "UNAVAILABLE", "the session's stream kept ending")
            reconnectCount++
            delay(wait)
        }
    }

    /**
     * Plays the seat to the end of its match from what the session pushes:
     * on each update bringing options with moves, [choose] (given them and
     * the seat's view at their version: the table they are for, the top of
     * its discard pile the card TakeDiscard takes) picks the move to send at
     * their version (null: none). A move overtaken by another (a stale
     * version, as when a turn timer's bot played first, a turn passed, the
     * match over: [overtaken]) is told to [onRefused] with the options it
     * was chosen from, and play goes on from the options that follow; any
     * other refusal (an illegal move) is thrown. Answers the seat's last view.
     */
    public suspend fun play(
        onRefused: (RaminoException, SeatOptions) -> Unit = { _, _ -> },
        choose: suspend (SeatOptions, GameView?) -> Move?,
    ): GameView? {
        val chosen = HashMap<String, SeatOptions>() // by request id: told back with a refusal
        takeWhile { !it.endsMatch }.collect { update ->
            if (update is SessionUpdate.Refused) {
                val from = chosen.remove(update.requestId)
                if (!overtaken(update.error)) throw update.error
                from?.let { onRefused(update.error, it) }
                return@collect
            }
            if (update is SessionUpdate.Answer) chosen.remove(update.requestId)
            val legal = update.options ?: return@collect
            if (legal.movesCount == 0) return@collect
            choose(legal, seat.lastView)?.let { chosen[send(it, expectedVersion = legal.version)] = legal }
        }
        return seat.lastView
    }

    private class Finished : RuntimeException() {
        override fun fillInStackTrace(): Throwable = this
    }

    /** What the collector threw: passed on as it is, never taken for a dropped stream. */
    private class Downstream(cause: Throwable) : RuntimeException(cause) {
        override fun fillInStackTrace(): Throwable = this
    }

    public companion object {
        /**
         * Whether a refused move was overtaken by the game, the next options
         * saying what to do: its version was stale (another move came first:
         * a bot, a turn timer, a unary call), the turn had passed, the match
         * was over.
         */
        public fun overtaken(e: RaminoException): Boolean =
            e is RaminoException.Aborted || e.reason == Reasons.NOT_YOUR_TURN || e.reason == Reasons.MATCH_OVER

        /** A move as a session's message: its unary request, the session's game implied. */
        internal fun moveMessage(move: Move, requestId: String, expectedVersion: Long?): PlayGameRequest {
            val m = PlayGameRequest.newBuilder()
            when (move.moveCase) {
                MoveCase.DRAW_FROM_STOCK -> m.setDrawFromStock(
                    DrawFromStockRequest.newBuilder().setRequestId(requestId).apply { expectedVersion?.let { setExpectedVersion(it) } },
                )
                MoveCase.TAKE_DISCARD -> m.setTakeDiscard(
                    TakeDiscardRequest.newBuilder().setRequestId(requestId).apply { expectedVersion?.let { setExpectedVersion(it) } },
                )
                MoveCase.TURN_OVER_DISCARD_PILE -> m.setTurnOverDiscardPile(
                    TurnOverDiscardPileRequest.newBuilder().setRequestId(requestId).apply { expectedVersion?.let { setExpectedVersion(it) } },
                )
                MoveCase.LAY_MELDS -> m.setLayMelds(
                    LayMeldsRequest.newBuilder().setRequestId(requestId).addAllMelds(move.layMelds.meldsList)
                        .apply { expectedVersion?.let { setExpectedVersion(it) } },
                )
                MoveCase.LAY_OFF -> m.setLayOff(
                    LayOffRequest.newBuilder().setRequestId(requestId)
                        .setCardId(move.layOff.cardId).setMeldIndex(move.layOff.meldIndex).setEnd(move.layOff.end)
                        .apply { expectedVersion?.let { setExpectedVersion(it) } },
                )
                MoveCase.SWAP_JOKER -> m.setSwapJoker(
                    SwapJokerRequest.newBuilder().setRequestId(requestId)
                        .setCardId(move.swapJoker.cardId).setMeldIndex(move.swapJoker.meldIndex).setJokerId(move.swapJoker.jokerId)
                        .apply { expectedVersion?.let { setExpectedVersion(it) } },
                )
                MoveCase.DISCARD -> m.setDiscard(
                    DiscardRequest.newBuilder().setRequestId(requestId).setCardId(move.discard.cardId)
                        .apply { expectedVersion?.let { setExpectedVersion(it) } },
                )
                MoveCase.RESIGN -> m.setResign(
                    ResignRequest.newBuilder().setRequestId(requestId).apply { expectedVersion?.let { setExpectedVersion(it) } },
                )
                MoveCase.PASS_UPCARD -> m.setPassUpcard(
                    PassUpcardRequest.newBuilder().setRequestId(requestId).apply { expectedVersion?.let { setExpectedVersion(it) } },
                )
                MoveCase.KNOCK -> m.setKnock(
                    KnockRequest.newBuilder().setRequestId(requestId).addAllMelds(move.knock.meldsList)
                        .apply {
                            if (move.knock.hasDiscardCardId()) setDiscardCardId(move.knock.discardCardId)
                            expectedVersion?.let { setExpectedVersion(it) }
                        },
                )
                MoveCase.ACCEPT_LAYOUT -> m.setAcceptLayout(
                    AcceptLayoutRequest.newBuilder().setRequestId(requestId).apply { expectedVersion?.let { setExpectedVersion(it) } },
                )
                MoveCase.MOVE_NOT_SET, null -> throw IllegalArgumentException("Session.send: the move has no case set")
            }
            return m.build()
        }
    }
}
