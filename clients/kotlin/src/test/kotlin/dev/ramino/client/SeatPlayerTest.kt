package dev.ramino.client

import dev.ramino.client.bot.Bot
import kotlinx.coroutines.async
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import kotlin.time.Duration.Companion.minutes

/**
 * The seat player (issue 35) against a real `ramino serve` dealing from a
 * fixed seed: a move refused for having been overtaken (made stale on
 * purpose: the same seat plays it first by a unary call) is told to
 * `onRefused` with the options it was chosen from, and the player plays the
 * match to its end; the view handed to the policy at each decision is the
 * seat's at the options' version, equal to GetGame's then (the discard
 * pile's top, the card TakeDiscard takes, included); a refusal that nothing
 * overtook is thrown.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SeatPlayerTest {
    private val server = TestServer(args = listOf("--test-seed", "20261203")).start()
    private val client = RaminoClient(server.address, ClientOptions(retry = FAST_RETRY))

    @AfterAll
    fun stop() {
        client.close()
        server.stop()
    }

    @Test
    fun `a player told of its stale moves plays the match to its end, each decision on the current view`(): Unit = runBlocking {
        withTimeout(5.minutes) {
            val game = client.createGame(GameSpec("rummy", listOf(person("ann"), person("bo"))))
            val ann = client.joinGame(game.name, "ann")
            val bo = client.joinGame(game.name, "bo")
            // A Seat of its own on ann's token: GetGame as the seat sees it, and the unary moves.
            val witness = client.seat(game.name, ann.number, ann.token)
            val staleAt = setOf(2, 9, 20)
            var decisions = 0
            var drawsWithADiscard = 0
            val mismatches = mutableListOf<Pair<Long, Long?>>()
            val staled = mutableListOf<Long>()
            val refused = mutableListOf<Pair<RaminoException, SeatOptions>>()
            val other = async { Bot.playSession(bo) }
            val final = Bot.playSession(ann, onRefused = { e, o -> refused += e to o }) { options, view ->
                val server = witness.view()
                if (view != server || server.version != options.version) mismatches += options.version to view?.version
                if (options.movesList.any { it.hasDrawFromStock() } && server.discardPileCount > 0) drawsWithADiscard++
                val move = Bot.choose(options)
                if (move != null && decisions in staleAt) {
                    witness.play(move, expectedVersion = options.version)
                    staled += options.version
                }
                decisions++
                move
            }
            other.await()
            assertEquals(GameStatus.GAME_STATUS_FINISHED, final.status)
            assertEquals(emptyList<Pair<Long, Long?>>(), mismatches.take(3))
            assertTrue(decisions > 40 && drawsWithADiscard > 20, "$decisions decisions, $drawsWithADiscard draws")
            assertEquals(staleAt.size, staled.size)
            assertEquals(staled, refused.map { it.second.version })
            for ((error, _) in refused) {
                assertTrue(error is RaminoException.Aborted && Session.overtaken(error), "$error")
                assertEquals(Reasons.VERSION_MISMATCH, error.reason)
            }
        }
    }

    @Test
    fun `a refusal nothing overtook (an illegal move) is thrown by the player`(): Unit = runBlocking {
        withTimeout(2.minutes) {
            val game = client.createGame(GameSpec("rummy", listOf(person("ann"), person("bo"))))
            val seats = listOf(client.joinGame(game.name, "ann"), client.joinGame(game.name, "bo"))
            val mover = seats[seats[0].view().turnOrNull ?: 0]
            var told = 0
            // A discard before drawing: the game waits on the seat, no new options would come.
            val thrown = assertThrows<RaminoException> {
                runBlocking {
                    Bot.playSession(mover, onRefused = { _, _ -> told++ }) { _, view ->
                        Move.newBuilder().setDiscard(DiscardMove.newBuilder().setCardId(view!!.handList[0].id)).build()
                    }
                }
            }
            assertTrue(thrown is RaminoException.FailedPrecondition && !Session.overtaken(thrown), "$thrown")
            assertEquals(0, told)
        }
    }
}
