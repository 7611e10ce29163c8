package dev.ramino.client

import dev.ramino.client.bot.Bot
import io.grpc.CallOptions
import io.grpc.Channel
import io.grpc.ClientCall
import io.grpc.ClientInterceptor
import io.grpc.MethodDescriptor
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.async
import kotlinx.coroutines.channels.Channel as Queue
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.minutes

/** Counts the calls a client starts, by method name. */
internal class CallCounter : ClientInterceptor {
    val calls: ConcurrentHashMap<String, AtomicInteger> = ConcurrentHashMap()

    fun count(method: String): Int = calls[method]?.get() ?: 0

    override fun <Req, Resp> interceptCall(method: MethodDescriptor<Req, Resp>, options: CallOptions, next: Channel): ClientCall<Req, Resp> {
        calls.computeIfAbsent(method.bareMethodName ?: method.fullMethodName) { AtomicInteger() }.incrementAndGet()
        return next.newCall(method, options)
    }
}

class SessionTest : LiveServerTest() {
    private fun kinds(updates: List<SessionUpdate>): List<String> = updates.map { it::class.simpleName!! }

    @Test
    fun `a bot plays every variant to its end on the session, from pushed options only`(): Unit = runBlocking {
        withTimeout(6.minutes) {
            val counter = CallCounter()
            RaminoClient(server.address, ClientOptions(retry = FAST_RETRY, configure = { it.intercept(counter) })).use { counted ->
                val tables = mapOf(
                    "ramino51" to listOf(person("ann"), greedyBot(), greedyBot()),
                    "rami51" to listOf(person("ann"), greedyBot()),
                    "rummy" to listOf(person("ann"), greedyBot(), randomBot(), greedyBot()),
                    "gin" to listOf(person("ann"), greedyBot()),
                )
                for ((variant, seats) in tables) {
                    val game = counted.createGame(GameSpec(variant, seats, ONE_ROUND))
                    val seat = counted.joinGame(game.name, "ann")
                    val getGames = counter.count("GetGame")
                    val view = Bot.playSession(seat)
                    assertEquals(GameStatus.GAME_STATUS_FINISHED, view.status, variant)
                    assertEquals(getGames + 1, counter.count("GetGame"), "$variant: GetGame during play (one is the final view)")
                }
                assertEquals(0, counter.count("GetLegalMoves"), "the bot asked for its legal moves")
                assertEquals(0, counter.count("DrawFromStock") + counter.count("Discard"), "unary moves")
                assertEquals(tables.size, counter.count("PlayGame"), "one session a game")
            }
        }
    }

    @Test
    fun `a session's move is answered by its request id, a refusal leaves the session open`(): Unit = runBlocking {
        withTimeout(2.minutes) {
            val (first, second) = twoPeople(client, "rummy")
            val session = first.session()
            val updates = Queue<SessionUpdate>(Queue.UNLIMITED)
            val reader = launch { session.collect { updates.send(it) } }
            val snapshot = updates.receive() as SessionUpdate.Snapshot
            val options = snapshot.options!!
            assertEquals(first.number, options.turnOrNull)
            val version = snapshot.version

            val stale = session.send(Bot.choose(options)!!, expectedVersion = version - 1, requestId = "kt-stale")
            val refused = updates.receive() as SessionUpdate.Refused
            assertEquals(stale, refused.requestId)
            assertTrue(refused.error is RaminoException.Aborted, "refused with ${refused.error}")
            assertEquals(Reasons.VERSION_MISMATCH, refused.error.reason)

            val draw = session.send(Bot.choose(options)!!, expectedVersion = version, requestId = "kt-draw")
            val answer = updates.receive() as SessionUpdate.Answer
            assertEquals(draw, answer.requestId)
            assertEquals(version + 1, answer.version)
            assertEquals(listOf(version + 1), answer.events.map { it.version }, "the move's own events, in its answer")
            assertEquals(answer.version, session.lastVersion)
            assertTrue(answer.options!!.movesCount > 0, "no options after a draw")
            assertEquals(answer.result.view.version, first.lastView!!.version)

            // The same request id again: the first answer, applied once.
            session.send(Bot.choose(options)!!, expectedVersion = version, requestId = "kt-draw")
            val again = updates.receive() as SessionUpdate.Answer
            assertEquals(answer.result, again.result)
            assertEquals(version + 1, first.view().version)
            assertEquals(setOf<String>(), session.pending)

            // The other seat's unary move comes as an event.
            val discard = answer.options.movesList.first { it.hasDiscard() }
            session.send(discard, expectedVersion = answer.version)
            val discarded = updates.receive() as SessionUpdate.Answer
            assertEquals(second.number, discarded.result.view.turnOrNull)
            val played = second.drawFromStock(expectedVersion = discarded.version)
            val event = updates.receive() as SessionUpdate.Event
            assertEquals(played.view.version, event.version)
            assertTrue(event.event.hasDrewFromStock())
            session.close()
            reader.join()
            assertTrue(updates.tryReceive().isFailure, "an update after the refusal's test")
        }
    }

    @Test
    fun `a session lost with a move unanswered reopens after its last version and resends the move once`(@TempDir dir: File): Unit =
        withServer(store = "sqlite:" + File(dir, "ramino.db").path) { own ->
            runBlocking {
                withTimeout(3.minutes) {
                    RaminoClient(own.address, ClientOptions(retry = FAST_RETRY)).use { client ->
                        val (first, _) = twoPeople(client, "rummy")
                        val session = first.session()
                        val seen = mutableListOf<SessionUpdate>()
                        val updates = Queue<SessionUpdate>(Queue.UNLIMITED)
                        val reader = launch { session.collect { seen += it; updates.send(it) } }
                        val snapshot = updates.receive() as SessionUpdate.Snapshot
                        val hand = snapshot.view.handCount
                        own.kill()
                        // Sent with the server down: kept, and sent again on the stream that reopens.
                        val id = session.send(Bot.choose(snapshot.options!!)!!, expectedVersion = snapshot.version)
                        own.start()
                        val answer = updates.receive() as SessionUpdate.Answer
                        assertEquals(id, answer.requestId)
                        assertTrue(session.reconnects >= 1, "reconnects: ${session.reconnects}")
                        assertEquals(snapshot.version + 1, answer.version)
                        val now = first.view()
                        assertEquals(answer.version, now.version, "the resent move applied twice, or not at all")
                        assertEquals(hand + 1, now.handCount)
                        session.close()
                        reader.join()
                        // The resent move named in the reopened start: the server pushes no
                        // options before its answer (nothing is filtered in the Session).
                        assertEquals(listOf("Snapshot", "Answer"), kinds(seen))
                    }
                }
            }
        }

    @Test
    fun `a session resumed after a version gets exactly what followed it`(): Unit = runBlocking {
        withTimeout(2.minutes) {
            val (first, second) = twoPeople(client, "rummy")
            val start = first.view().version
            Bot.playTurn(first)
            Bot.playTurn(second)
            val session = first.session(afterVersion = start)
            val updates = Queue<SessionUpdate>(Queue.UNLIMITED)
            val reader = launch { session.collect { updates.send(it) } }
            val now = first.view().version
            val got = mutableListOf<SessionUpdate>()
            while (got.lastOrNull()?.version != now) got += updates.receive()
            assertEquals(((start + 1)..now).toList(), got.map { it.version })
            assertTrue(got.all { it is SessionUpdate.Event }, "kinds: ${kinds(got)}")
            assertEquals(first.number, got.last().options!!.turnOrNull, "the turn back, with its options")
            session.close()
            reader.join()
        }
    }

    @Test
    fun `closing the client ends a watch and a session being collected, cleanly`(): Unit = runBlocking {
        withTimeout(2.minutes) {
            val own = RaminoClient(server.address, ClientOptions(retry = FAST_RETRY))
            val (first, _) = twoPeople(own, "rummy")
            val watched = Queue<WatchItem>(Queue.UNLIMITED)
            val played = Queue<SessionUpdate>(Queue.UNLIMITED)
            val watch = async(start = CoroutineStart.UNDISPATCHED) { runCatching { first.watch().collect { watched.send(it) } } }
            val session = async(start = CoroutineStart.UNDISPATCHED) { runCatching { first.session().collect { played.send(it) } } }
            assertTrue(watched.receive().hasSnapshot())
            assertTrue(played.receive() is SessionUpdate.Snapshot)
            own.closeAndWait()
            assertTrue(own.isClosed)
            val watchEnd = watch.await()
            val sessionEnd = session.await()
            assertTrue(watchEnd.isSuccess, "the watch ended with ${watchEnd.exceptionOrNull()}")
            assertTrue(sessionEnd.isSuccess, "the session ended with ${sessionEnd.exceptionOrNull()}")
            assertTrue(watched.tryReceive().isFailure && played.tryReceive().isFailure, "items after the close")

            var retries = 0
            val closed = RaminoClient(server.address, ClientOptions(retry = FAST_RETRY, onRetry = { retries++ }))
            closed.close()
            val failure = runCatching { closed.getGame(first.name) }.exceptionOrNull()
            assertTrue(failure is RaminoException, "a call after close: $failure")
            assertEquals(0, retries, "a call after close was retried")
            assertTrue(runCatching { first.session().collect { } }.isSuccess, "a session of a closed client does not end cleanly")
        }
    }

    @Test
    fun `a spectator's watch of a bot game, asked in batches, yields every version once and in order`(): Unit = runBlocking {
        withTimeout(3.minutes) {
            val game = client.createGame(GameSpec("rummy", listOf(person("ann"), greedyBot(), randomBot()), ONE_ROUND))
            val seat = client.joinGame(game.name, "ann")
            val watched = async(start = CoroutineStart.UNDISPATCHED) { client.watch(game.name).toList() }
            Bot.playSession(seat)
            val items = watched.await()
            assertTrue(items.first().hasSnapshot())
            assertTrue(consecutive(items), "versions missed or repeated")
            assertTrue(items.none { it.hasEvents() }, "a batch yielded as it came")
            assertTrue(items.last().event.hasMatchEnded())
            assertEquals(client.getGame(game.name).version, items.last().version)
        }
    }
}
