'use strict';
// A two-player rummy for boardgame.io 0.50.2: the baseline of
// bench/vs_boardgameio.py (issue 17). The rules are those of Ramino's `rummy`
// preset (shared RULES.md, "rummy") as far as one hand goes: one 52-card
// deck, no jokers, 10 cards each, the next card turned up to start the
// discard pile; a turn is a draw (stock or discard top), any number of melds
// (a set of 3-4 of a rank, or a run of 3+ of a suit, ace low only) and
// lay-offs onto any meld on the table, then a discard; the card taken from
// the discard pile may not be discarded in the same turn. The player who
// plays their last card (by melding, laying off or discarding) wins the hand,
// and the match is over (one hand only). An empty stock is refilled by
// shuffling the discard pile but its top card into it.
//
// Hidden information: each player sees only their own hand (the other hand
// as a count), and nobody sees the stock (a count only): `playerView`.
// Every move runs on the server only (`client: false`): a client cannot
// compute a draw from the stock it does not see.

const { INVALID_MOVE } = require('boardgame.io/core');

const RANKS = 13;
const HAND = 10;

/** A card is an integer 0..51: suit = floor(card / 13), rank = card % 13 + 1 (1 ace .. 13 king). */
const suitOf = (card) => Math.floor(card / RANKS);
const rankOf = (card) => (card % RANKS) + 1;

function isCard(card) {
  return Number.isInteger(card) && card >= 0 && card < 4 * RANKS;
}

/** 'set', 'run' or null: what the cards make as a meld (3 or more). */
function meldKind(cards) {
  if (cards.length < 3 || new Set(cards).size !== cards.length) return null;
  if (cards.every((c) => rankOf(c) === rankOf(cards[0]))) return cards.length <= 4 ? 'set' : null;
  if (!cards.every((c) => suitOf(c) === suitOf(cards[0]))) return null;
  const ranks = cards.map(rankOf).sort((a, b) => a - b);
  for (let i = 1; i < ranks.length; i++) if (ranks[i] !== ranks[i - 1] + 1) return null;
  return 'run';
}

/** True when `card` extends the meld (its cards) by one. */
function extendsMeld(meld, card) {
  return meldKind([...meld.cards, card]) === meld.kind;
}

/** Removes the cards from the hand; false (hand unchanged) unless all are in it. */
function takeFromHand(hand, cards) {
  if (!cards.every((c) => hand.includes(c))) return false;
  for (const c of cards) hand.splice(hand.indexOf(c), 1);
  return true;
}

function endTurn(G, events) {
  G.drawn = false;
  G.taken = null;
  events.endTurn();
}

const moves = {
  drawStock: {
    move: ({ G, playerID, random }) => {
      if (G.drawn) return INVALID_MOVE;
      if (G.stock.length === 0) {
        if (G.discard.length < 2) return INVALID_MOVE;
        const top = G.discard.pop();
        G.stock = random.Shuffle(G.discard);
        G.discard = [top];
      }
      G.hands[playerID].push(G.stock.pop());
      G.drawn = true;
      return undefined;
    },
    client: false,
  },
  takeDiscard: {
    move: ({ G, playerID }) => {
      if (G.drawn || G.discard.length === 0) return INVALID_MOVE;
      const card = G.discard.pop();
      G.hands[playerID].push(card);
      G.drawn = true;
      G.taken = card;
      return undefined;
    },
    client: false,
  },
  meld: {
    move: ({ G, playerID }, cards) => {
      if (!G.drawn || !Array.isArray(cards) || !cards.every(isCard)) return INVALID_MOVE;
      const kind = meldKind(cards);
      if (kind === null || !takeFromHand(G.hands[playerID], cards)) return INVALID_MOVE;
      G.table.push({ kind, cards: [...cards].sort((a, b) => a - b) });
      return undefined;
    },
    client: false,
  },
  layOff: {
    move: ({ G, playerID }, card, meldIndex) => {
      if (!G.drawn || !isCard(card) || !Number.isInteger(meldIndex)) return INVALID_MOVE;
      const meld = G.table[meldIndex];
      if (meld === undefined || !extendsMeld(meld, card)) return INVALID_MOVE;
      if (!takeFromHand(G.hands[playerID], [card])) return INVALID_MOVE;
      meld.cards.push(card);
      meld.cards.sort((a, b) => a - b);
      return undefined;
    },
    client: false,
  },
  discard: {
    move: ({ G, playerID, events }, card) => {
      if (!G.drawn || !isCard(card) || card === G.taken) return INVALID_MOVE;
      if (!takeFromHand(G.hands[playerID], [card])) return INVALID_MOVE;
      G.discard.push(card);
      endTurn(G, events);
      return undefined;
    },
    client: false,
  },
};

const Rummy = {
  name: 'rummy',
  minPlayers: 2,
  maxPlayers: 2,
  disableUndo: true, // a draw from a hidden stock cannot be taken back

  setup: ({ random }) => {
    const deck = random.Shuffle([...Array(4 * RANKS).keys()]);
    const hands = [deck.splice(0, HAND), deck.splice(0, HAND)];
    const discard = [deck.pop()];
    return { hands, stock: deck, discard, table: [], drawn: false, taken: null };
  },

  moves,

  endIf: ({ G }) => {
    const out = G.hands.findIndex((hand) => hand.length === 0);
    return out === -1 ? undefined : { winner: String(out) };
  },

  playerView: ({ G, playerID }) => ({
    hands: G.hands.map((hand, i) => (String(i) === playerID ? hand : hand.length)),
    stock: G.stock.length,
    discard: G.discard,
    table: G.table,
    drawn: G.drawn,
    taken: G.taken,
  }),
};

module.exports = { Rummy, meldKind, extendsMeld, suitOf, rankOf };
