/** Words for the page: card names, seat names, events, and a meld's card order. */
import { BotLevel, ScorePartKind, Suit, type Card, type GameEvent, type GameView, type ScorePart } from "@ramino/client/web";
import { cards, t } from "./words.ts";

export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const SUIT_WORDS: Readonly<Record<number, string>> = {
  [Suit.SPADES]: "suit.spades",
  [Suit.HEARTS]: "suit.hearts",
  [Suit.DIAMONDS]: "suit.diamonds",
  [Suit.CLUBS]: "suit.clubs",
};

/** A card's name in words, as a screen reader says it: "7 of Hearts", "Король пік". */
export function cardLabel(card: Card): string {
  if (card.joker) return t("joker");
  const rank = card.rank === 1 || card.rank > 10 ? t(`rank.${card.rank}`) : String(card.rank);
  const suit = SUIT_WORDS[card.suit];
  return t("card.name", { rank, suit: suit ? t(suit) : "?" });
}

const SUITS: Record<string, string> = { S: "♠", H: "♥", D: "♦", C: "♣" };

/** "7♥" from the notation of a card id in the game's deck. */
export function codeText(code: string | undefined): string {
  if (!code) return t("aCard");
  if (code === "JK") return "🃏";
  const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
  return `${rank}${SUITS[code.slice(-1)] ?? code.slice(-1)}`;
}

/** The bots the lobby offers for a seat, by its option's value, medium first. */
export const LEVELS: readonly (readonly [string, BotLevel])[] = [
  ["medium", BotLevel.MEDIUM],
  ["easy", BotLevel.EASY],
  ["hard", BotLevel.HARD],
  ["expert", BotLevel.EXPERT],
  ["random", BotLevel.RANDOM],
];
const BOT_NAMES = new Map<BotLevel, string>([
  ...LEVELS.map(([name, level]) => [level, name] as const),
  [BotLevel.GREEDY, "greedy"],
]);

export function seatName(view: GameView | undefined, seat: number | undefined): string {
  if (seat === undefined) return t("nobody");
  const s = view?.seats[seat];
  const level = BOT_NAMES.get(s?.bot ?? BotLevel.UNSPECIFIED);
  if (level) return t(`seat.${level}`, { n: seat + 1 });
  return s?.playerName || t("seat.default", { n: seat + 1 });
}

/** A round's ending in words ("went out"), its code when the page has no words for it. */
export function endingText(code: string): string {
  const key = `ending.${code}`;
  const text = t(key);
  return text === key ? code.replace(/_/g, " ") : text;
}

/** A variant in words, with its rules in short ("Rummy: one deck, …"); its id when the page has no words for it. */
export function describeVariant(variant: string): string {
  const key = `variant.${variant}`;
  const text = t(key);
  return text === key ? variant : text;
}

/** A variant's name in words ("Gin rummy"), as the lobby lists it. */
export function variantName(variant: string): string {
  return describeVariant(variant).split(":")[0] ?? variant;
}

/** Why a game ended, in words. */
export function reasonText(code: string): string {
  const key = `reason.${code}`;
  const text = t(key);
  return text === key ? code.replace(/_/g, " ") : text;
}

/** Names joined: "Ada", "Ada and Bea", "Ada, Bea and Cy". */
export function names(list: string[]): string {
  if (list.length < 2) return list.join("");
  return `${list.slice(0, -1).join(", ")} ${t("and")} ${list[list.length - 1]}`;
}

/** One line of the feed. */
export function describeEvent(e: GameEvent, view: GameView | undefined, deck: readonly string[]): string {
  const who = seatName(view, e.seat);
  const card = (id: number | undefined): string => codeText(id === undefined ? undefined : deck[id]);
  const meld = (ids: number[]): string => ids.map((id) => card(id)).join(" ");
  const ev = e.event;
  switch (ev.case) {
    case "gameCreated":
      return t("ev.created", { variant: ev.value.variant });
    case "seatJoined":
      return t("ev.joined", { who: ev.value.playerName || who });
    case "seatTimedOut":
      return t("ev.timedOut", { who });
    case "seatReclaimed":
      return t("ev.reclaimed", { who });
    case "gameEnded":
      return t("ev.gameEnded", { reason: reasonText(ev.value.reason) });
    case "roundStarted": {
      const first = seatName(view, ev.value.firstPlayer);
      return ev.value.upcard === undefined
        ? t("ev.roundStarted", { n: ev.value.round, who: first })
        : t("ev.roundStartedUpcard", { n: ev.value.round, who: first, card: card(ev.value.upcard) });
    }
    case "drewFromStock":
      return ev.value.cardId === undefined ? t("ev.drew", { who }) : t("ev.drewCard", { who, card: card(ev.value.cardId) });
    case "tookDiscard":
      return t("ev.took", { who, card: card(ev.value.cardId) });
    case "discardPileTurnedOver":
      return t("ev.turnedOver", { who });
    case "stockReshuffled":
      return t("ev.reshuffled", { cards: cards(ev.value.stockSize) });
    case "meldsLaid":
      return t(ev.value.opening ? "ev.opened" : "ev.laid", { who, melds: ev.value.melds.map((m) => meld(m.cardIds)).join(" | ") });
    case "laidOff":
      return t("ev.laidOff", { who, card: card(ev.value.cardId), n: ev.value.meldIndex + 1 });
    case "jokerSwapped":
      return t("ev.swapped", { who, card: card(ev.value.cardId), n: ev.value.meldIndex + 1 });
    case "discarded":
      return t("ev.discarded", { who, card: card(ev.value.cardId) });
    case "resigned":
      return t("ev.resigned", { who });
    case "passedUpcard":
      return t("ev.passed", { who });
    case "knocked":
      return t("ev.knocked", { who, n: ev.value.deadwood });
    case "layoutAccepted":
      return t("ev.accepted", { who });
    case "roundEnded": {
      const how = endingText(ev.value.ending);
      const result =
        ev.value.winner === undefined
          ? t("ev.roundNoWinner", { how })
          : t("ev.roundWinner", { who: seatName(view, ev.value.winner), how });
      return t("ev.roundEnded", { n: ev.value.round, result, scores: ev.value.scores.join(", ") });
    }
    case "matchEnded":
      return t("ev.matchEnded", {
        who: names(ev.value.winners.map((w) => seatName(view, w))) || t("nobody"),
        totals: ev.value.totals.join(", "),
      });
    default:
      return t("ev.version", { n: String(e.version) });
  }
}

/**
 * The cards of one meld in meld order: a set as it is, jokers last; a run
 * ascending with each joker in a gap (or at an end).
 */
export function meldOrder(cards: Card[]): Card[] {
  const naturals = cards.filter((c) => !c.joker).sort((a, b) => a.rank - b.rank);
  const jokers = cards.filter((c) => c.joker);
  const suits = new Set(naturals.map((c) => c.suit));
  const ranks = new Set(naturals.map((c) => c.rank));
  if (suits.size !== 1 || ranks.size !== naturals.length || naturals.length < 2) {
    return [...naturals, ...jokers];
  }
  // A run; an ace after a king counts high when the low end is far.
  let run = naturals;
  const low = run[0] as Card;
  if (low.rank === 1 && run.some((c) => c.rank >= 12)) run = [...run.slice(1), low];
  const value = (c: Card, i: number): number => (i === run.length - 1 && c.rank === 1 && run.length > 1 && run[0]?.rank !== 1 ? 14 : c.rank);
  const out: Card[] = [];
  const spare = [...jokers];
  run.forEach((c, i) => {
    if (i > 0) {
      const gap = value(c, i) - value(run[i - 1] as Card, i - 1) - 1;
      for (let g = 0; g < gap && spare.length; g++) out.push(spare.pop() as Card);
    }
    out.push(c);
  });
  const high = value(run[run.length - 1] as Card, run.length - 1);
  while (spare.length) {
    if (high < 13 + (run.some((c) => c.rank === 1) ? 1 : 0) && high < 14) out.push(spare.pop() as Card);
    else out.unshift(spare.pop() as Card);
  }
  return out;
}

/** The words of each kind of a score's part (see `scorePartText`). */
const SCORE_PART_KEYS: Readonly<Record<ScorePartKind, string>> = {
  [ScorePartKind.UNSPECIFIED]: "part.unknown",
  [ScorePartKind.WENT_OUT]: "part.wentOut",
  [ScorePartKind.CLOSED_HAND]: "part.closedHand",
  [ScorePartKind.HAND_PENALTY]: "part.handPenalty",
  [ScorePartKind.NEVER_OPENED]: "part.neverOpened",
  [ScorePartKind.CLOSED_HAND_MULTIPLIER]: "part.closedHandMultiplier",
  [ScorePartKind.HAND_COLLECTED]: "part.handCollected",
  [ScorePartKind.RUMMY_MULTIPLIER]: "part.rummyMultiplier",
  [ScorePartKind.OPPONENT_DEADWOOD]: "part.opponentDeadwood",
  [ScorePartKind.OWN_DEADWOOD]: "part.ownDeadwood",
  [ScorePartKind.GIN_BONUS]: "part.ginBonus",
  [ScorePartKind.BIG_GIN_BONUS]: "part.bigGinBonus",
  [ScorePartKind.UNDERCUT_BONUS]: "part.undercutBonus",
  [ScorePartKind.ROUNDS]: "part.rounds",
  [ScorePartKind.BOX_BONUS]: "part.boxBonus",
  [ScorePartKind.GAME_BONUS]: "part.gameBonus",
  [ScorePartKind.SHUTOUT_MULTIPLIER]: "part.shutoutMultiplier",
};

/** Points with their sign: "+25", "-40", "0". */
function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

/**
 * One part of a seat's score in words, as the server decided it ("83 in
 * hand → 100: never opened", "undercut +25", "box 25 × 2"): the page works
 * nothing out, it names the kind and says the numbers the server sent.
 */
export function scorePartText(part: ScorePart, view: GameView | undefined): string {
  // A hand collected from a seat that never opened counts a flat score in
  // place of its penalty (`base`).
  const key =
    part.kind === ScorePartKind.HAND_COLLECTED && part.base !== part.points
      ? "part.handCollectedNeverOpened"
      : (SCORE_PART_KEYS[part.kind] ?? "part.unknown");
  return t(key, {
    n: part.points,
    points: signed(part.points),
    base: part.base,
    factor: part.factor,
    who: seatName(view, part.seat),
  });
}

/** A seat's score parts in words, in the server's order ("" for none). */
export function scorePartsText(parts: readonly ScorePart[] | undefined, view: GameView | undefined): string {
  return (parts ?? []).map((p) => scorePartText(p, view)).join(", ");
}

/** The end of a round for the status line: who won it and how. */
export function roundEndText(round: number, ending: string, winner: number | undefined, view: GameView | undefined): string {
  const how = endingText(ending);
  return winner === undefined ? t("status.roundNoWinner", { n: round, how }) : t("status.roundWon", { n: round, who: seatName(view, winner), how });
}
