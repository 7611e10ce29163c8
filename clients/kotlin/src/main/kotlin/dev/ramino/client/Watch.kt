package dev.ramino.client

import io.grpc.Status
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.FlowCollector
import ramino.v1.GameOuterClass.WatchGameRequest
import ramino.v1.GameServiceGrpc

/**
 * A game's live feed as a [Flow] of [WatchItem]s: a snapshot (unless
 * resuming), then every event, each with the game's version after it.
 *
 * When the stream drops (a server restarting, a connection aged out, a
 * watcher ended as too slow) it is opened again after the last version
 * yielded, with the client's retry policy: no event is missed or repeated.
 * The watch keeps that version across collections, so collecting it again
 * after a cancel resumes where the last collection stopped. It completes
 * after the match (or game) has ended, unless made with `pastTheEnd`.
 * A refusal (a bad token, no such game) is thrown as a [RaminoException].
 *
 * It asks for the events several to a message (`batch_events`: fewer
 * messages for the server to send when many watch) and yields them one
 * item each, in order; a batch's options ride on its last event's item.
 * Closing the client ends a collection of it at once, without an error.
 */
public class GameWatch internal constructor(
    private val client: RaminoClient,
    public val name: String,
    private val token: String?,
    private val afterVersion: Long?,
    private val snapshot: Boolean,
    private val pastTheEnd: Boolean,
) : Flow<WatchItem> {
    @Volatile private var last: Long? = null

    @Volatile private var ended: Boolean = false

    @Volatile private var reconnectCount: Int = 0

    /** The version of the last item yielded: where the watch resumes. */
    public val lastVersion: Long? get() = last

    /** How many times the stream was opened again. */
    public val reconnects: Int get() = reconnectCount

    private fun request(): WatchGameRequest {
        val b = WatchGameRequest.newBuilder().setName(name).setBatchEvents(true)
        val resume = last
        if (resume != null) {
            b.setAfterVersion(resume)
        } else {
            afterVersion?.let { b.setAfterVersion(it) }
            b.setSnapshot(snapshot)
        }
        return b.build()
    }

    private class Finished : RuntimeException() {
        override fun fillInStackTrace(): Throwable = this
    }

    /** What the collector threw: passed on as it is, never taken for a dropped stream. */
    private class Downstream(cause: Throwable) : RuntimeException(cause) {
        override fun fillInStackTrace(): Throwable = this
    }

    override suspend fun collect(collector: FlowCollector<WatchItem>) {
        if (ended && !pastTheEnd) return
        var delays = client.options.retry.delays()
        while (true) {
            var failure: RaminoException? = null
            try {
                untilClosed(client) {
                    client.stream(GameServiceGrpc.getWatchGameMethod(), request(), token).collect { message ->
                        for (item in watchItems(message)) {
                            val seen = last
                            if (item.hasSnapshot() || seen == null || item.version == seen + 1) {
                                last = item.version
                                ended = endsMatch(item)
                                delays = client.options.retry.delays()
                                try {
                                    collector.emit(item)
                                } catch (e: CancellationException) {
                                    throw e
                                } catch (e: Throwable) {
                                    throw Downstream(e)
                                }
                                if (ended && !pastTheEnd) throw Finished()
                            } else if (item.version > seen + 1) {
                                // A gap: ask again after the last version yielded.
                                throw RaminoException.make(Status.Code.UNAVAILABLE, "WATCH_GAP", "events after $seen skipped")
                            }
                            // At or below the last version: yielded before a reconnect.
                        }
                    }
                }
                if (ended || client.isClosed) return
            } catch (_: Finished) {
                return
            } catch (_: ClientClosed) {
                return
            } catch (d: Downstream) {
                throw d.cause ?: d
            } catch (e: CancellationException) {
                throw e
            } catch (e: Exception) {
                if (client.isClosed) return // the channel's shutdown, seen before the close signal
                val refused = RaminoException.from(e) ?: throw e
                if (!resumable(refused)) throw refused
                failure = refused
            }
            val wait = delays.next()
                ?: throw failure ?: RaminoException.make(Status.Code.UNAVAILABLE, "UNAVAILABLE", "the watch stream closed")
            reconnectCount++
            delay(wait)
        }
    }

    internal companion object {
        /**
         * The items of one message, in order: a batch of events (asked with
         * `batch_events`) gives one item per event, the message's options
         * (what the seat may do after all of it) on the last one.
         */
        internal fun watchItems(message: WatchItem): List<WatchItem> {
            if (!message.hasEvents() || message.events.eventsCount == 0) return listOf(message)
            val events = message.events.eventsList
            return events.mapIndexed { i, event ->
                val item = WatchItem.newBuilder().setVersion(event.version).setEvent(event)
                if (i == events.lastIndex && message.hasOptions()) item.setOptions(message.options)
                item.build()
            }
        }

        internal fun endsMatch(item: WatchItem): Boolean =
            if (item.hasSnapshot()) {
                item.snapshot.status == GameStatus.GAME_STATUS_FINISHED
            } else {
                item.event.hasMatchEnded() || item.event.hasGameEnded()
            }

        internal fun resumable(e: RaminoException): Boolean =
            e.code == Status.Code.UNAVAILABLE || e.code == Status.Code.CANCELLED || e.reason in Reasons.RESUMABLE_WATCH
    }
}

/** Thrown into a stream's collection when its client closes: the flow ends there, cleanly. */
internal class ClientClosed : RuntimeException() {
    override fun fillInStackTrace(): Throwable = this
}

/**
 * Runs [block] (one stream's collection, emitting from this coroutine) until
 * it returns or [client] closes, or [alsoOn] completes, whichever comes
 * first: on a close it throws [ClientClosed] at once, with the call cancelled.
 */
internal suspend fun untilClosed(client: RaminoClient, alsoOn: Deferred<Unit>? = null, block: suspend () -> Unit) {
    coroutineScope {
        val closers = listOfNotNull(
            launch(start = CoroutineStart.UNDISPATCHED) {
                client.awaitClose()
                throw ClientClosed()
            },
            alsoOn?.let {
                launch(start = CoroutineStart.UNDISPATCHED) {
                    it.await()
                    throw ClientClosed()
                }
            },
        )
        try {
            block()
        } finally {
            closers.forEach { it.cancel() }
        }
    }
}
