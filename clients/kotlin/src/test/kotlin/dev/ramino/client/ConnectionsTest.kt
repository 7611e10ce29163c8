package dev.ramino.client

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import kotlin.time.Duration.Companion.minutes

/** Streams spread over connections as they fill (issue 35): one client holds more than a connection allows. */
class ConnectionsTest {
    /** [count] watches of [game] held open at once; each one's first item, or its refusal. */
    private suspend fun hold(client: RaminoClient, game: String, count: Int, check: () -> Unit): List<Result<WatchItem>> =
        kotlinx.coroutines.coroutineScope {
            val gate = CompletableDeferred<Unit>()
            val started = List(count) { CompletableDeferred<Unit>() }
            val watches = List(count) { i ->
                async {
                    runCatching {
                        client.watch(game).first { item ->
                            started[i].complete(Unit)
                            gate.await()
                            true
                        }
                    }.also { started[i].complete(Unit) }
                }
            }
            started.awaitAll()
            check()
            gate.complete(Unit)
            watches.awaitAll()
        }

    @Test
    fun `watches past a connection's limit go on connections of their own and give their places back`(): Unit =
        withServer(args = listOf("--max-streams-per-connection", "4")) { server ->
            runBlocking {
                withTimeout(2.minutes) {
                    RaminoClient(server.address, ClientOptions(retry = FAST_RETRY, streamsPerConnection = 3)).use { client ->
                        val game = client.createGame(GameSpec("rummy", listOf(person("ann"), greedyBot()))).name
                        val got = hold(client, game, 10) { assertEquals(listOf(3, 3, 3, 1), client.streams.open()) }
                        assertTrue(got.all { it.getOrThrow().hasSnapshot() }, "a watch was not served: $got")
                        assertEquals(listOf(0, 0, 0, 0), client.streams.open())
                    }
                    // Without the spreading (more streams a connection than the server
                    // allows) the fifth is refused: the limit the spreading keeps under.
                    RaminoClient(server.address, ClientOptions(retry = FAST_RETRY, streamsPerConnection = 10)).use { client ->
                        val game = client.createGame(GameSpec("rummy", listOf(person("ann"), greedyBot()))).name
                        val got = hold(client, game, 6) {}
                        val refused = got.mapNotNull { it.exceptionOrNull() as? RaminoException }
                        assertTrue(refused.isNotEmpty() && refused.all { it.reason == Reasons.TOO_MANY_STREAMS }, "$got")
                    }
                }
            }
        }

    @Test
    fun `a client asking for no stream a connection is refused`() {
        assertThrows(IllegalArgumentException::class.java) {
            RaminoClient("127.0.0.1:1", ClientOptions(streamsPerConnection = 0))
        }
    }
}
