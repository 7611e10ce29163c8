package dev.ramino.client

import dev.ramino.client.bot.Bot
import kotlinx.coroutines.async
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import java.security.MessageDigest
import kotlin.time.Duration.Companion.minutes

class GamesTest : LiveServerTest() {

    @Test
    fun `the server lists every preset`() = runBlocking {
        val names = client.listVariants().map { it.name }
        assertTrue(names.containsAll(listOf("ramino51", "rami51", "rummy", "gin")), "variants: $names")
    }

    @Test
    fun `the server lists every bot level weakest first with its rating`() = runBlocking {
        val levels = client.listBotLevels()
        assertEquals(
            listOf(BotLevel.BOT_LEVEL_EASY, BotLevel.BOT_LEVEL_MEDIUM, BotLevel.BOT_LEVEL_HARD, BotLevel.BOT_LEVEL_EXPERT),
            levels.map { it.level },
        )
        for (b in levels) {
            assertTrue(b.description.isNotEmpty(), "${b.level} has no description")
            assertEquals(b.ratingMu - 3 * b.ratingSigma, b.rating, 1e-9)
            val searches = b.level == BotLevel.BOT_LEVEL_HARD || b.level == BotLevel.BOT_LEVEL_EXPERT
            assertEquals(searches, b.timeMs > 0, "${b.level}: time a decision ${b.timeMs}")
        }
    }

    @ParameterizedTest
    @ValueSource(strings = ["ramino51", "rami51", "rummy", "gin"])
    fun `a whole game against bots, watched by a spectator`(variant: String): Unit = runBlocking {
        withTimeout(5.minutes) {
            val preset = client.listVariants().single { it.name == variant }
            val seats = listOf(person("kotlin"), greedyBot(), randomBot()).take(preset.parameters.maxPlayers)
            val overrides = if (preset.parameters.maxRounds != 1) {
                VariantParameters.newBuilder().setTargetScore(0).setMaxRounds(2).build()
            } else {
                null
            }
            val created = client.createGame(GameSpec(variant, seats, overrides))
            assertEquals(GameStatus.GAME_STATUS_WAITING, created.game.status)
            assertEquals(1, created.game.openSeats)
            val seat = client.joinGame(created.name, "kotlin")
            assertEquals(0, seat.number)
            assertTrue(seat.lastView!!.handCount > 0, "joined with no cards")

            val spectator = async { client.watch(created.name).toList() }
            val view = Bot.play(seat)
            val watched = spectator.await()

            assertEquals(GameStatus.GAME_STATUS_FINISHED, view.status)
            assertTrue(view.winnersCount > 0, "no winner")
            assertFalse(view.hasTurn(), "a turn after the end")
            assertEquals(TurnPhase.TURN_PHASE_NONE, view.phase)
            assertTrue(view.roundsCount > 0, "no round")
            val digest = MessageDigest.getInstance("SHA-256").digest(view.seed.toByteArray())
            assertEquals(view.seedHash, digest.joinToString("") { "%02x".format(it) }, "the revealed seed does not match its hash")

            assertTrue(watched.first().hasSnapshot() && !watched.first().snapshot.hasSeat(), "the feed starts with a spectator's snapshot")
            val last = watched.last()
            assertTrue(last.event.hasMatchEnded(), "the feed ends with $last")
            assertEquals(view.version, last.version)
            assertTrue(consecutive(watched), "the feed's versions are not consecutive")
            val ours = watched.count {
                it.hasEvent() && it.event.hasSeat() && it.event.seat == seat.number && !it.event.hasSeatJoined()
            }
            assertTrue(ours > 0, "the SDK's seat made no move")
            for (item in watched) {
                if (item.hasEvent() && item.event.hasDrewFromStock()) {
                    assertFalse(item.event.drewFromStock.hasCardId(), "a spectator saw the card drawn at ${item.version}")
                }
            }
            val ended = watched.filter { it.hasEvent() && it.event.hasRoundEnded() }.map { it.event.roundEnded }
            val rounds = view.roundsList.takeLast(ended.size)
            ended.zip(rounds).forEach { (e, r) -> assertEquals(r.scoresList, e.scoresList, "round ${e.round}'s scores") }
        }
    }
}
