package dev.ramino.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

class CardsTest {
    @Test
    fun `notation is read, ten either way, jokers apart, anything else is refused by name`() {
        val ten = parseCard("10h")
        assertEquals("TH", ten.code)
        assertEquals(10, ten.rank)
        assertEquals(Suit.SUIT_HEARTS, ten.suit)
        assertEquals(ten, parseCard(" TH "))
        assertTrue(parseCard("JK").joker)
        assertEquals(listOf("AS", "2S", "JK"), parseCards("AS 2S,JK").map { it.code })
        for (bad in listOf("", "1S", "AX", "ZZ", "10", "QHH")) {
            val e = assertThrows<IllegalArgumentException> { parseCard(bad) }
            assertTrue(e.message!!.contains("not a card"), e.message)
        }
        assertEquals("not a card: \"ABCDEFGH...\"", assertThrows<IllegalArgumentException> { parseCard("ABCDEFGHIJ") }.message)
    }

    @Test
    fun `a deck's card carries its id and an id outside the deck is refused`() {
        val deck = listOf("AS", "KD", "JK")
        val card = deckCard(deck, 1)
        assertEquals(1, card.id)
        assertEquals("KD", card.code)
        assertEquals("K♦", card.symbol)
        val e = assertThrows<IllegalArgumentException> { deckCard(deck, 3) }
        assertEquals("card id 3 is not in a deck of 3", e.message)
        assertThrows<IllegalArgumentException> { deckCard(deck, -1) }
    }

    @Test
    fun `sorting by suit or rank puts jokers last and groups keep jokers apart`() {
        val deck = listOf("KH", "JK", "2S", "TH", "2C", "AS")
        val cards = deck.indices.map { deckCard(deck, it) }
        assertEquals("A♠ 2♠ 10♥ K♥ 2♣ 🃏", symbols(cards.sortedBySuit()))
        assertEquals("A♠ 2♠ 2♣ 10♥ K♥ 🃏", symbols(cards.sortedByRank()))
        val groups = cards.groupBySuit()
        assertEquals(listOf("TH", "KH"), groups[Suit.SUIT_HEARTS]!!.map { it.code })
        assertEquals(listOf("JK"), groups[Suit.SUIT_UNSPECIFIED]!!.map { it.code })
        assertEquals(listOf(5, 2), groups[Suit.SUIT_SPADES]!!.cardIds())
        assertThrows<IllegalArgumentException> { listOf(parseCard("AS")).cardIds() }
    }
}
