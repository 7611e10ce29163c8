package dev.ramino.client

// Card helpers: notation ("AS", "TH", "10H", "JK"), a deck's card by id,
// symbols for people ("10♥"), sorting and grouping.

private const val RANK_LETTERS = "A23456789TJQK"

private val SUIT_OF_LETTER = mapOf(
    'S' to Suit.SUIT_SPADES,
    'H' to Suit.SUIT_HEARTS,
    'D' to Suit.SUIT_DIAMONDS,
    'C' to Suit.SUIT_CLUBS,
)

private val SUIT_SYMBOL = mapOf(
    Suit.SUIT_SPADES to "♠",
    Suit.SUIT_HEARTS to "♥",
    Suit.SUIT_DIAMONDS to "♦",
    Suit.SUIT_CLUBS to "♣",
)

/** The card of [code] in notation (no id); an [IllegalArgumentException] naming it when it is not one. */
public fun parseCard(code: String): Card {
    var c = code.trim().uppercase()
    if (c == "JK") return Card.newBuilder().setCode(c).setJoker(true).build()
    if (c.length == 3 && c.startsWith("10")) c = "T" + c.substring(2)
    val rank = if (c.length == 2) RANK_LETTERS.indexOf(c[0]) else -1
    val suit = if (c.length == 2) SUIT_OF_LETTER[c[1]] else null
    require(rank >= 0 && suit != null) { "not a card: \"${code.take(8)}${if (code.length > 8) "..." else ""}\"" }
    return Card.newBuilder().setCode(c).setRank(rank + 1).setSuit(suit).build()
}

/** The cards of a hand in notation, separated by spaces or commas ("AS 2S JK"). */
public fun parseCards(hand: String): List<Card> = hand.split(' ', ',').filter { it.isNotBlank() }.map(::parseCard)

/** Card [id] of a game's [deck] (`GameView.deckList`), with its id. */
public fun deckCard(deck: List<String>, id: Int): Card {
    require(id in deck.indices) { "card id $id is not in a deck of ${deck.size}" }
    return parseCard(deck[id]).toBuilder().setId(id).build()
}

/** "10♥", "A♠", "🃏". */
public val Card.symbol: String
    get() {
        if (joker) return "🃏"
        val rank = when (rank) {
            10 -> "10"
            in 1..13 -> RANK_LETTERS[rank - 1].toString()
            else -> "?"
        }
        return rank + (SUIT_SYMBOL[suit] ?: "?")
    }

/** The symbols of [cards], separated by spaces. */
public fun symbols(cards: Iterable<Card>): String = cards.joinToString(" ") { it.symbol }

private fun Card.idOrMax(): Int = if (hasId()) id else Int.MAX_VALUE

/** By suit (spades, hearts, diamonds, clubs), then rank, then id; jokers last. */
public fun Iterable<Card>.sortedBySuit(): List<Card> =
    sortedWith(compareBy<Card>({ it.joker }, { it.suitValue }, { it.rank }, { it.idOrMax() }))

/** By rank, then suit, then id; jokers last. */
public fun Iterable<Card>.sortedByRank(): List<Card> =
    sortedWith(compareBy<Card>({ it.joker }, { it.rank }, { it.suitValue }, { it.idOrMax() }))

/** The cards of each suit, sorted; jokers under [Suit.SUIT_UNSPECIFIED]. */
public fun Iterable<Card>.groupBySuit(): Map<Suit, List<Card>> =
    groupBy { if (it.joker) Suit.SUIT_UNSPECIFIED else it.suit }.mapValues { (_, cards) -> cards.sortedBySuit() }

/** The ids of [this] cards; a card without an id is an [IllegalArgumentException]. */
public fun Iterable<Card>.cardIds(): List<Int> = map {
    require(it.hasId()) { "card ${it.code} has no id (a stateless card, not one of a game)" }
    it.id
}
