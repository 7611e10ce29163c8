/** The card helpers: notation, symbols, names, display order, grouping by suit. */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Suit,
  cardName,
  cardSymbol,
  groupBySuit,
  handText,
  isRed,
  parseCard,
  sortCards,
  suitSymbol,
} from "@ramino/client";

test("cards are read from their notation, and anything else is refused naming it", () => {
  assert.deepEqual(parseCard("10h", 7), { code: "TH", rank: 10, suit: Suit.HEARTS, joker: false, id: 7 });
  assert.equal(parseCard("AS").rank, 1);
  assert.equal(parseCard("KD").suit, Suit.DIAMONDS);
  assert.ok(parseCard("JK").joker);
  assert.throws(() => parseCard("1X"), /not a card: "1X"/);
  assert.throws(() => parseCard("ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"), /not a card: "Z{16}"$/);
});

test("symbols and names: A♠, 10♥, JK; Ace of Spades, Joker", () => {
  assert.equal(cardSymbol(parseCard("AS")), "A♠");
  assert.equal(cardSymbol(parseCard("TH")), "10♥");
  assert.equal(cardSymbol(parseCard("QD")), "Q♦");
  assert.equal(cardSymbol(parseCard("JK")), "JK");
  assert.equal(cardName(parseCard("AS")), "Ace of Spades");
  assert.equal(cardName(parseCard("7C")), "7 of Clubs");
  assert.equal(cardName(parseCard("JK")), "Joker");
  assert.equal(suitSymbol(Suit.CLUBS), "♣");
  assert.ok(isRed(Suit.HEARTS) && isRed(Suit.DIAMONDS) && !isRed(Suit.SPADES));
});

test("a hand sorts by suit (♠ ♥ ♣ ♦), rank ascending, jokers last, and groups by suit in that order", () => {
  const hand = ["JK", "2D", "KS", "AS", "5H", "5C", "3D"].map((c, i) => parseCard(c, i));
  assert.equal(handText(sortCards(hand)), "A♠ K♠ 5♥ 5♣ 2♦ 3♦ JK");
  const groups = groupBySuit(hand);
  assert.deepEqual([...groups.keys()], [Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS, Suit.UNSPECIFIED]);
  assert.deepEqual(groups.get(Suit.DIAMONDS)?.map((c) => c.code), ["2D", "3D"]);
  // Two copies of a card (two decks) keep their ids' order.
  const twins = [parseCard("9S", 60), parseCard("9S", 8)];
  assert.deepEqual(sortCards(twins).map((c) => c.id), [8, 60]);
});
