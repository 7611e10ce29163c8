/**
 * Card helpers: notation, suit symbols, names, a display order, grouping by
 * suit. They take the server's `Card` messages (or anything shaped like
 * them) and know no rule of the game.
 */
import { Suit } from "./gen/ramino/v1/types_pb.js";

/** What the helpers read of a card: the fields of the `Card` message. */
export interface CardLike {
  readonly id?: number | undefined;
  /** Card notation: "AS", "TH", "JK". */
  readonly code: string;
  /** 1 (ace) to 13 (king); 0 for a joker. */
  readonly rank: number;
  readonly suit: Suit;
  readonly joker: boolean;
}

const SUIT_SYMBOLS: Readonly<Record<number, string>> = {
  [Suit.SPADES]: "♠",
  [Suit.HEARTS]: "♥",
  [Suit.DIAMONDS]: "♦",
  [Suit.CLUBS]: "♣",
};
const SUIT_LETTERS: Readonly<Record<string, Suit>> = {
  S: Suit.SPADES,
  H: Suit.HEARTS,
  D: Suit.DIAMONDS,
  C: Suit.CLUBS,
};
const SUIT_NAMES: Readonly<Record<number, string>> = {
  [Suit.SPADES]: "Spades",
  [Suit.HEARTS]: "Hearts",
  [Suit.DIAMONDS]: "Diamonds",
  [Suit.CLUBS]: "Clubs",
};
/** Display order: suits alternating in colour, jokers last. */
const SUIT_ORDER: Readonly<Record<number, number>> = {
  [Suit.SPADES]: 0,
  [Suit.HEARTS]: 1,
  [Suit.CLUBS]: 2,
  [Suit.DIAMONDS]: 3,
};
const RANK_SHORT: Readonly<Record<number, string>> = { 1: "A", 11: "J", 12: "Q", 13: "K" };
const RANK_NAMES: Readonly<Record<number, string>> = { 1: "Ace", 11: "Jack", 12: "Queen", 13: "King" };
const RANKS: Readonly<Record<string, number>> = {
  A: 1,
  T: 10,
  "10": 10,
  J: 11,
  Q: 12,
  K: 13,
  ...Object.fromEntries([2, 3, 4, 5, 6, 7, 8, 9].map((n) => [String(n), n])),
};

/** The sign of a suit: ♠ ♥ ♦ ♣ ("" for none). */
export function suitSymbol(suit: Suit): string {
  return SUIT_SYMBOLS[suit] ?? "";
}

/** Whether the suit is red (hearts, diamonds). */
export function isRed(suit: Suit): boolean {
  return suit === Suit.HEARTS || suit === Suit.DIAMONDS;
}

function isJoker(card: CardLike): boolean {
  return card.joker || card.suit === Suit.UNSPECIFIED;
}

/** `A`, `2` ... `10`, `J`, `Q`, `K`; `JK` for a joker. */
export function rankLabel(card: CardLike): string {
  return isJoker(card) ? "JK" : (RANK_SHORT[card.rank] ?? String(card.rank));
}

/** Short with the suit's sign: `A♠`, `10♥`; `JK` for a joker. */
export function cardSymbol(card: CardLike): string {
  return isJoker(card) ? "JK" : rankLabel(card) + suitSymbol(card.suit);
}

/** In words: `Ace of Spades`, `10 of Hearts`, `Joker`. */
export function cardName(card: CardLike): string {
  if (isJoker(card)) return "Joker";
  return `${RANK_NAMES[card.rank] ?? String(card.rank)} of ${SUIT_NAMES[card.suit] ?? "?"}`;
}

/**
 * A card from its notation: "AS", "TH" (or "10H"), "JK"; `id` when it names
 * a physical card of a game. Throws on anything else, naming the text.
 */
export function parseCard(code: string, id?: number): CardLike {
  const text = code.trim().toUpperCase();
  if (text === "JK" || text === "JOKER") {
    return { code: "JK", rank: 0, suit: Suit.UNSPECIFIED, joker: true, id };
  }
  const rank = RANKS[text.slice(0, -1)];
  const suit = SUIT_LETTERS[text.slice(-1)];
  if (rank === undefined || suit === undefined) {
    throw new RangeError(`not a card: ${JSON.stringify(code.slice(0, 16))}`);
  }
  const short = rank === 10 ? "T" : text.slice(0, -1);
  return { code: short + text.slice(-1), rank, suit, joker: false, id };
}

/** Compares two cards in display order: suit (♠ ♥ ♣ ♦), rank ascending, jokers last, then id. */
export function compareCards(a: CardLike, b: CardLike): number {
  const key = (c: CardLike): [number, number, number] =>
    isJoker(c) ? [4, 0, c.id ?? 0] : [SUIT_ORDER[c.suit] ?? 4, c.rank, c.id ?? 0];
  const [x, y] = [key(a), key(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** The cards in display order (a new array). */
export function sortCards<C extends CardLike>(cards: Iterable<C>): C[] {
  return [...cards].sort(compareCards);
}

/**
 * Sorted cards by suit, suits in display order; jokers under
 * `Suit.UNSPECIFIED`, last. A Map keeps that order when iterated.
 */
export function groupBySuit<C extends CardLike>(cards: Iterable<C>): Map<Suit, C[]> {
  const groups = new Map<Suit, C[]>();
  for (const c of sortCards(cards)) {
    const suit = isJoker(c) ? Suit.UNSPECIFIED : c.suit;
    const group = groups.get(suit);
    if (group) group.push(c);
    else groups.set(suit, [c]);
  }
  return groups;
}

/** The cards as symbols joined by spaces: "A♠ 2♠ 3♠ JK". */
export function handText(cards: Iterable<CardLike>): string {
  return [...cards].map(cardSymbol).join(" ");
}
