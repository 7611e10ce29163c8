package dev.ramino.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.lang.reflect.Modifier

class ProtosTest {
    /** The OrBuilder interfaces of every message of ramino.v1, nested ones too. */
    private fun orBuilders(): List<Class<*>> {
        val outers = listOf("GameOuterClass", "Types", "Rules", "Match").map { Class.forName("ramino.v1.$it") }
        fun walk(c: Class<*>): List<Class<*>> = listOf(c) + c.declaredClasses.flatMap { walk(it) }
        return outers.flatMap { walk(it) }.filter { it.isInterface && it.simpleName.endsWith("OrBuilder") }
    }

    @Test
    fun `every field with a hasX has its xOrNull`() {
        val accessors = Class.forName("dev.ramino.client.ProtosKt").methods
            .filter { Modifier.isStatic(it.modifiers) && it.name.endsWith("OrNull") }
            .map { it.name to it.parameterTypes.single() }
            .toSet()
        val fields = orBuilders().flatMap { owner ->
            owner.declaredMethods.filter { it.name.startsWith("has") && it.parameterCount == 0 }.map { owner to it.name.removePrefix("has") }
        }
        assertTrue(fields.size > 100, "only ${fields.size} fields with a hasX: the walk missed classes")
        val missing = fields.filter { (owner, field) -> ("get${field}OrNull" to owner) !in accessors }
        assertEquals(emptyList<String>(), missing.map { (owner, field) -> "${owner.simpleName}.$field" }, "run `make kotlin-names`")
    }

    @Test
    fun `an unset optional field is null, a set one its value even at zero`() {
        assertNull(Card.newBuilder().build().idOrNull)
        assertEquals(0, Card.newBuilder().setId(0).build().idOrNull)
        assertNull(GameView.getDefaultInstance().turnOrNull)
        assertNull(GameView.getDefaultInstance().seatOrNull)
        val params: VariantParameters = VariantParameters.newBuilder().setScoring(Scoring.SCORING_PENALTY).build()
        assertEquals(Scoring.SCORING_PENALTY, params.scoringOrNull)
        assertNull(params.targetScoreOrNull)
        val hint: Hint = Hint.getDefaultInstance()
        assertNull(hint.bestKnockOrNull)
        val event: GameEvent = GameEvent.newBuilder().setMatchEnded(MatchEnded.newBuilder().addWinners(1)).build()
        assertEquals(listOf(1), event.matchEndedOrNull?.winnersList)
        assertNull(event.roundEndedOrNull)
        val ended: RoundEnded = RoundEnded.getDefaultInstance()
        assertNull(ended.winnerOrNull)
    }

    @Test
    fun `a batch of events is one watch item per event, its options on the last`() {
        val options = SeatOptions.newBuilder().setVersion(9).setTurn(1).build()
        val batch = WatchItem.newBuilder().setVersion(9).setOptions(options).setEvents(
            GameEvents.newBuilder()
                .addEvents(GameEvent.newBuilder().setVersion(8))
                .addEvents(GameEvent.newBuilder().setVersion(9)),
        ).build()
        val items = GameWatch.watchItems(batch)
        assertEquals(listOf(8L, 9L), items.map { it.version })
        assertEquals(listOf(8L, 9L), items.map { it.event.version })
        assertEquals(listOf(false, true), items.map { it.hasOptions() })
        assertEquals(options, items.last().options)
        val single = WatchItem.newBuilder().setVersion(3).setEvent(GameEvent.newBuilder().setVersion(3)).build()
        assertEquals(listOf(single), GameWatch.watchItems(single))
    }
}
