package dev.ramino.client

import dev.ramino.client.bot.Bot
import kotlinx.coroutines.async
import kotlinx.coroutines.flow.onEach
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.time.Duration.Companion.minutes

class WatchTest {
    @Test
    fun `a watch collected again resumes after the last version it yielded`(): Unit = withServer { server ->
        runBlocking {
            withTimeout(3.minutes) {
                RaminoClient(server.address, ClientOptions(retry = FAST_RETRY)).use { client ->
                    val game = client.createGame(GameSpec("ramino51", listOf(person("ann"), greedyBot()), ONE_ROUND))
                    val seat = client.joinGame(game.name, "ann")
                    val watch = client.watch(game.name)
                    val first = watch.take(4).onEach { if (it.hasSnapshot()) Bot.playTurn(seat) }.toList()
                    assertTrue(first[0].hasSnapshot(), "the first item is not a snapshot")
                    assertEquals(first.last().version, watch.lastVersion)
                    repeat(3) { Bot.playTurn(seat) }
                    val rest = async { watch.toList() }
                    Bot.play(seat)
                    val all = first + rest.await()
                    assertTrue(consecutive(all), "the two collections do not make one feed")
                    assertEquals(1, all.count { it.hasSnapshot() }, "a snapshot again on resuming")
                    assertTrue(all.last().event.hasMatchEnded())
                    assertEquals(seat.view().version, all.last().version)
                }
            }
        }
    }

    @Test
    fun `a seat's watch goes on across a server restart with no event missed or repeated`(@TempDir dir: File): Unit =
        withServer(store = "sqlite:" + File(dir, "ramino.db").path) { server ->
            runBlocking {
                withTimeout(4.minutes) {
                    RaminoClient(server.address, ClientOptions(retry = FAST_RETRY)).use { client ->
                        val game = client.createGame(GameSpec("rami51", listOf(person("ann"), randomBot(), greedyBot()), ONE_ROUND))
                        val seat = client.joinGame(game.name, "ann")
                        val watch = seat.watch()
                        val feed = mutableListOf<WatchItem>()
                        var restarted = false
                        watch.collect { item ->
                            feed += item
                            if (feed.size == 2 && !restarted) {
                                server.kill()
                                server.start()
                                restarted = true
                                while (!Bot.playTurn(seat)) {
                                    // the bots' turns first
                                }
                            }
                            Bot.playTurn(seat)
                        }
                        val view = seat.view()
                        assertTrue(restarted)
                        assertTrue(watch.reconnects >= 1, "reconnects: ${watch.reconnects}")
                        assertEquals(GameStatus.GAME_STATUS_FINISHED, view.status)
                        assertTrue(feed.last().event.hasMatchEnded(), "the feed ends with ${feed.last()}")
                        assertEquals(view.version, feed.last().version)
                        assertTrue(consecutive(feed), "versions missed or repeated across the restart")
                        assertEquals(1, feed.count { it.hasSnapshot() })
                    }
                }
            }
        }

    @Test
    fun `a move is retried while the server restarts and applied once`(@TempDir dir: File): Unit =
        withServer(store = "sqlite:" + File(dir, "ramino.db").path) { server ->
            runBlocking {
                withTimeout(3.minutes) {
                    val retried = kotlinx.coroutines.CompletableDeferred<RetryEvent>()
                    val options = ClientOptions(retry = FAST_RETRY, onRetry = { retried.complete(it) })
                    RaminoClient(server.address, options).use { client ->
                        val (first, _) = twoPeople(client, "rummy")
                        val before = first.view()
                        server.kill()
                        val move = async { first.drawFromStock(expectedVersion = before.version, requestId = "kotlin-draw-across-restart") }
                        val failure = retried.await() // the call failed once with the server down
                        server.start()
                        val result = move.await()
                        assertTrue(failure.error is RaminoException.Unavailable, "the first failure: ${failure.error}")
                        val after = first.view()
                        assertEquals(before.version + 1, after.version)
                        assertEquals(after.version, result.view.version)
                        val again = first.drawFromStock(expectedVersion = before.version, requestId = "kotlin-draw-across-restart")
                        assertEquals(after.version, again.view.version)
                        assertEquals(before.handCount + 1, first.view().handCount, "the repeated request id applied again")
                        assertEquals(after.version, first.view().version)
                    }
                }
            }
        }
}
