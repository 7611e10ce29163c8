/** Words for the page: card names, seat names, events, and a meld's card order. */
import { BotLevel, cardName, type Card, type GameEvent, type GameView } from "@ramino/client/web";

export function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function cardLabel(card: Card): string {
  return card.joker ? "Joker" : cardName(card);
}

const SUITS: Record<string, string> = { S: "♠", H: "♥", D: "♦", C: "♣" };

/** "7♥" from the notation of a card id in the game's deck. */
export function codeText(code: string | undefined): string {
  if (!code) return "a card";
  if (code === "JK") return "🃏";
  const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
  return `${rank}${SUITS[code.slice(-1)] ?? code.slice(-1)}`;
}

export function seatName(view: GameView | undefined, seat: number | undefined): string {
  if (seat === undefined) return "nobody";
  const s = view?.seats[seat];
  if (!s) return `seat ${seat + 1}`;
  if (s.bot === BotLevel.GREEDY) return `Bot ${seat + 1} (greedy)`;
  if (s.bot === BotLevel.RANDOM) return `Bot ${seat + 1} (random)`;
  if (s.bot === BotLevel.EASY) return `Bot ${seat + 1} (easy)`;
  if (s.bot === BotLevel.MEDIUM) return `Bot ${seat + 1} (medium)`;
  if (s.bot === BotLevel.HARD) return `Bot ${seat + 1} (hard)`;
  if (s.bot === BotLevel.EXPERT) return `Bot ${seat + 1} (expert)`;
  return s.playerName || `seat ${seat + 1}`;
}

/** One line of the feed. */
export function describeEvent(e: GameEvent, view: GameView | undefined, deck: string[]): string {
  const who = seatName(view, e.seat);
  const card = (id: number | undefined): string => codeText(id === undefined ? undefined : deck[id]);
  const meld = (ids: number[]): string => ids.map((id) => card(id)).join(" ");
  const ev = e.event;
  switch (ev.case) {
    case "gameCreated":
      return `Game created (${ev.value.variant}).`;
    case "seatJoined":
      return `${ev.value.playerName || who} sat down.`;
    case "seatTimedOut":
      return `${who} ran out of time: a bot played the turn.`;
    case "seatReclaimed":
      return `${who} is back.`;
    case "gameEnded":
      return `The game ended (${ev.value.reason}).`;
    case "roundStarted":
      return `Round ${ev.value.round} dealt; ${seatName(view, ev.value.firstPlayer)} starts.`;
    case "drewFromStock":
      return ev.value.cardId === undefined ? `${who} drew from the stock.` : `${who} drew ${card(ev.value.cardId)} from the stock.`;
    case "tookDiscard":
      return `${who} took ${card(ev.value.cardId)} from the discard pile.`;
    case "discardPileTurnedOver":
      return `${who} turned the discard pile over.`;
    case "stockReshuffled":
      return `The discard pile was shuffled into a new stock (${ev.value.stockSize} cards).`;
    case "meldsLaid":
      return `${who} ${ev.value.opening ? "opened with" : "laid"} ${ev.value.melds.map((m) => meld(m.cardIds)).join(" | ")}.`;
    case "laidOff":
      return `${who} laid off ${card(ev.value.cardId)} on meld ${ev.value.meldIndex + 1}.`;
    case "jokerSwapped":
      return `${who} gave ${card(ev.value.cardId)} for the joker of meld ${ev.value.meldIndex + 1}.`;
    case "discarded":
      return `${who} discarded ${card(ev.value.cardId)}.`;
    case "resigned":
      return `${who} resigned.`;
    case "passedUpcard":
      return `${who} passed the upcard.`;
    case "knocked":
      return `${who} knocked with ${ev.value.deadwood} unmatched.`;
    case "layoutAccepted":
      return `${who} accepted the layout.`;
    case "roundEnded": {
      const winner = ev.value.winner === undefined ? "no winner" : `${seatName(view, ev.value.winner)} won`;
      return `Round ${ev.value.round} ended (${ev.value.ending}): ${winner}; scores ${ev.value.scores.join(", ")}.`;
    }
    case "matchEnded":
      return `The match is over: ${ev.value.winners.map((w) => seatName(view, w)).join(", ")} won; totals ${ev.value.totals.join(", ")}.`;
    default:
      return `Version ${e.version}.`;
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
