/**
 * A table's state folded from what the page already has: the watch's
 * snapshot and events, the seat's options the watch pushes with them (the
 * turn coming to the person, leaving it), and each move's answer (its view
 * and options). Nothing here calls the server: `stale` says when an
 * event's effect cannot be folded or a version is missing (then one
 * GetGame), and `needsLegalMoves` when the person's turn is known but not
 * its moves (a recovery only: the watch pushes them).
 */
import {
  End,
  GameStatus,
  TurnPhase,
  parseCard,
  type Card,
  type GameEvent,
  type GameView,
  type Hint,
  type Meld,
  type MeldDescription,
  type Move,
  type MoveResult,
  type ScorePart,
  type SeatOptions,
  type TableMeld,
} from "@ramino/client/web";

/** What the person may do at `version` (none when it is not its turn). */
export interface Legal {
  /** The version of the game these moves are for. */
  version: bigint;
  moves: Move[];
  hint: Hint | undefined;
}

/** What the end of a round showed: for the summary panel. */
export interface RoundSummary {
  round: number;
  ending: string;
  winner: number | undefined;
  scores: number[];
  /** Each seat's hand left (card ids), and its count. */
  hands: number[][];
  /** Totals after the round. */
  totals: number[];
  /** What each seat's score is made of, as the server said (none from a server before it did). */
  parts: ScorePart[][];
  /** The match ended with this round: its winners. */
  matchWinners: number[] | undefined;
  /** The match ended with this round: what each seat's total is made of (its bonuses). */
  matchParts: ScorePart[][] | undefined;
  dismissed: boolean;
}

export interface TableState {
  view: GameView | undefined;
  /** Card id to notation, from a snapshot or GetGame (a move's answer leaves it out). */
  deck: string[];
  legal: Legal | undefined;
  /** Every event seen, in version order, once: the feed. */
  events: GameEvent[];
  summary: RoundSummary | undefined;
  /** An event the fold cannot follow arrived: the view must be fetched. */
  stale: boolean;
}

export function emptyState(): TableState {
  return { view: undefined, deck: [], legal: undefined, events: [], summary: undefined, stale: false };
}

/** The version of the last event in the feed (0n before any). */
export function lastEventVersion(s: TableState): bigint {
  return s.events.length ? (s.events[s.events.length - 1] as GameEvent).version : 0n;
}

/** A full view (a snapshot, GetGame, a join) replaces the folded one when it is not older. */
export function applyView(s: TableState, view: GameView): void {
  if (s.view && view.version < s.view.version) return;
  const known = s.view;
  s.view = view;
  if (view.deck.length) s.deck = [...view.deck];
  if (known?.variant && view.variant?.parameters === undefined) view.variant = known.variant;
  s.stale = false;
  if (s.legal && s.legal.version < view.version) s.legal = undefined;
}

/**
 * A move's answer: its view, and its options (the next moves while the turn
 * stays the mover's, none once it passed). The watch may be ahead of it:
 * what is older than the state folded so far is dropped.
 */
export function applyMoveResult(s: TableState, result: MoveResult): void {
  if (result.view) applyView(s, result.view);
  // The move's own events join the feed here, often before the watch brings
  // them: a round this move ended gets its summary now.
  for (const e of result.events) if (addEvent(s, e)) noteRoundEnd(s, e, false);
  const version = result.view?.version ?? s.view?.version ?? 0n;
  applyLegal(s, result.options ?? { version, moves: result.legalMoves, hint: result.hint });
}

/**
 * What the person may do at a version: pushed by the watch (`options`), a
 * move's answer, or GetLegalMoves'. Kept unless older than the view or the
 * options known.
 */
export function applyLegal(s: TableState, legal: Legal | SeatOptions): void {
  if (s.view && legal.version < s.view.version) return;
  if (s.legal && legal.version < s.legal.version) return;
  s.legal = { version: legal.version, moves: legal.moves, hint: legal.hint };
}

/** Whether the folded view says it is the person's turn and no legal moves are known for it. */
export function needsLegalMoves(s: TableState): boolean {
  const v = s.view;
  if (!v || v.seat === undefined || v.status !== GameStatus.PLAYING || v.turn !== v.seat) return false;
  return s.legal === undefined || s.legal.version < v.version;
}

/**
 * The discard the hint points at: in gin, while the person may knock, the
 * best knock's (the one the knock preview shows), else the policy's
 * suggested discard.
 */
export function hintedDiscard(s: TableState): number | undefined {
  const hint = s.legal?.hint;
  const mayKnock = (s.legal?.moves ?? []).some((m) => m.move.case === "knock");
  if (hint?.bestKnock && mayKnock) return hint.bestKnock.discardCardId;
  return hint?.suggestedDiscard?.id;
}

/** Adds `e` to the feed once (by version); true when it is new. */
function addEvent(s: TableState, e: GameEvent): boolean {
  const last = lastEventVersion(s);
  if (e.version <= last) return false;
  s.events.push(e);
  return true;
}

/**
 * A watched event: into the feed, and folded into the view when the view
 * does not have it yet. Events older than the view (history replayed after
 * a load, or a move whose answer came first) only join the feed.
 */
export function applyEvent(s: TableState, e: GameEvent): void {
  const fresh = addEvent(s, e);
  const v = s.view;
  if (!v || e.version <= v.version) {
    // New to the feed yet older than the view: history replayed after a
    // load. One the feed has (a move's answer brought it) keeps its summary.
    if (fresh) noteRoundEnd(s, e, true);
    return;
  }
  if (e.version !== v.version + 1n) {
    s.stale = true; // a gap: the view is fetched again
    return;
  }
  const next = structuredClone(v);
  if (!fold(s, next, e)) {
    s.stale = true;
    return;
  }
  next.version = e.version;
  // Whose turn it is after the event, as the server says (events logged
  // before servers said leave the fold's own reckoning).
  if (e.turn !== undefined) next.turn = e.turn;
  s.view = next;
  if (s.legal && s.legal.version < next.version) s.legal = undefined;
}

function card(s: TableState, id: number): Card {
  const code = s.deck[id] ?? "JK";
  return { $typeName: "ramino.v1.Card", ...parseCard(code, id) } as Card;
}

function nextSeat(v: GameView, seat: number): number {
  const n = v.seats.length;
  for (let i = 1; i <= n; i++) {
    const candidate = (seat + i) % n;
    if (!v.seats[candidate]?.resigned) return candidate;
  }
  return seat;
}

function removeFromHand(v: GameView, seat: number, ids: number[]): void {
  const gone = new Set(ids);
  if (v.seat === seat) v.hand = v.hand.filter((c) => !gone.has(c.id ?? -1));
  const s = v.seats[seat];
  if (s) s.handSize -= ids.length;
}

/**
 * A table meld's cards with what the server decided of them (set or run,
 * value, each joker's role, closed, pure): the page works no rule out.
 * None when the event does not say (one logged before the server did): the
 * view is fetched instead.
 */
function described(cards: Card[], d: MeldDescription | undefined): Meld | undefined {
  if (!d) return undefined;
  return {
    $typeName: "ramino.v1.Meld",
    kind: d.kind,
    value: d.value,
    cards,
    jokers: d.jokers.map((j) => ({ ...j })),
    closed: d.closed,
    pure: d.pure,
  } as Meld;
}

/** Puts melds laid by `seat` on the table (`descriptions` in their order); false when one is not described. */
function layMelds(s: TableState, v: GameView, seat: number, melds: { cardIds: number[] }[], descriptions: MeldDescription[] | undefined): boolean {
  const laid = melds.map((m, i) => described(m.cardIds.map((id) => card(s, id)), descriptions?.[i]));
  if (laid.some((m) => m === undefined)) return false;
  laid.forEach((meld, i) => {
    v.table.push({ $typeName: "ramino.v1.TableMeld", index: v.table.length, owner: seat, meld } as TableMeld);
    removeFromHand(v, seat, melds[i]?.cardIds ?? []);
  });
  return true;
}

/** Folds `e` into `v` (a copy); false when its effect is not known here. */
function fold(s: TableState, v: GameView, e: GameEvent): boolean {
  const seat = e.seat ?? -1;
  const me = v.seat;
  const sv = v.seats[seat];
  const ev = e.event;
  switch (ev.case) {
    case "gameCreated":
    case "layoutAccepted":
      return true;
    case "seatJoined":
      if (!sv) return false;
      sv.playerName = ev.value.playerName;
      sv.taken = true;
      return true;
    case "seatTimedOut":
      if (sv) sv.timedOut = true;
      return true;
    case "seatReclaimed":
      if (sv) sv.timedOut = false;
      return true;
    case "gameEnded":
      v.status = GameStatus.FINISHED;
      v.endReason = ev.value.reason;
      v.turn = undefined;
      v.phase = TurnPhase.NONE;
      return true;
    case "roundStarted": {
      const r = ev.value;
      v.status = GameStatus.PLAYING;
      v.round = r.round;
      v.dealer = r.dealer;
      v.turn = r.firstPlayer;
      v.phase = TurnPhase.DRAW;
      v.table = [];
      v.knocker = undefined;
      v.discardPile = r.upcard === undefined ? [] : [card(s, r.upcard)];
      v.stockSize = r.stockSize;
      v.hand = me === undefined ? [] : r.hand.map((id) => card(s, id));
      v.seats.forEach((x, i) => {
        x.handSize = r.handSizes[i] ?? 0;
        x.opened = false;
      });
      return true;
    }
    case "drewFromStock":
    case "tookDiscard": {
      if (!sv) return false;
      let id = ev.value.cardId;
      if (ev.case === "tookDiscard") {
        const top = v.discardPile.pop();
        id = top?.id ?? id;
      } else {
        v.stockSize -= 1;
      }
      sv.handSize += 1;
      if (seat === me && id !== undefined) v.hand.push(card(s, id));
      v.phase = TurnPhase.PLAY;
      return true;
    }
    case "stockReshuffled": {
      const kept = v.discardPile.find((c) => c.id === ev.value.keptCardId);
      v.discardPile = kept ? [kept] : [card(s, ev.value.keptCardId)];
      v.stockSize = ev.value.stockSize;
      return true;
    }
    case "meldsLaid": {
      if (!sv || !layMelds(s, v, seat, ev.value.melds, ev.value.described)) return false;
      sv.opened = true; // a seat that laid melds has opened (rummy has no opening rule)
      return true;
    }
    case "laidOff": {
      const target = v.table.find((m) => m.index === ev.value.meldIndex);
      if (!target?.meld || !sv) return false;
      const cards = [...target.meld.cards];
      const laid = card(s, ev.value.cardId);
      if (ev.value.end === End.FIRST) cards.unshift(laid);
      else cards.push(laid);
      const meld = described(cards, ev.value.described);
      if (!meld) return false;
      target.meld = meld;
      removeFromHand(v, seat, [ev.value.cardId]);
      return true;
    }
    case "jokerSwapped": {
      const target = v.table.find((m) => m.index === ev.value.meldIndex);
      if (!target?.meld || !sv) return false;
      const cards = target.meld.cards.map((c) => (c.id === ev.value.jokerId ? card(s, ev.value.cardId) : c));
      const meld = described(cards, ev.value.described);
      if (!meld) return false;
      target.meld = meld;
      removeFromHand(v, seat, [ev.value.cardId]);
      sv.handSize += 1;
      if (seat === me) v.hand.push(card(s, ev.value.jokerId));
      return true;
    }
    case "discarded":
      if (!sv) return false;
      v.discardPile.push(card(s, ev.value.cardId));
      removeFromHand(v, seat, [ev.value.cardId]);
      v.turn = nextSeat(v, seat);
      v.phase = TurnPhase.DRAW;
      return true;
    case "passedUpcard":
      v.turn = nextSeat(v, seat);
      v.phase = TurnPhase.DRAW;
      return true;
    case "knocked": {
      if (!sv) return false;
      if (!layMelds(s, v, seat, ev.value.melds, ev.value.described)) return false;
      if (ev.value.discardCardId !== undefined) {
        v.discardPile.push(card(s, ev.value.discardCardId));
        removeFromHand(v, seat, [ev.value.discardCardId]);
      }
      v.knocker = seat;
      v.turn = nextSeat(v, seat);
      v.phase = TurnPhase.LAYOFF;
      return true;
    }
    case "roundEnded": {
      const r = ev.value;
      v.rounds.push({ $typeName: "ramino.v1.RoundScores", round: r.round, scores: [...r.scores], winner: r.winner, ending: r.ending, parts: [...(r.parts ?? [])] } as GameView["rounds"][number]);
      v.seats.forEach((x, i) => {
        x.total += r.scores[i] ?? 0;
      });
      v.turn = undefined;
      v.phase = TurnPhase.NONE;
      noteRoundEnd(s, e, false, v);
      return true;
    }
    case "matchEnded":
      v.status = GameStatus.FINISHED;
      v.winners = [...ev.value.winners];
      v.turn = undefined;
      v.phase = TurnPhase.NONE;
      ev.value.totals.forEach((total, i) => {
        const x = v.seats[i];
        if (x) x.total = total;
      });
      if (s.summary) s.summary.matchWinners = [...ev.value.winners];
      if (s.summary) s.summary.totals = [...ev.value.totals];
      if (s.summary) s.summary.matchParts = (ev.value.parts ?? []).map((p) => [...p.parts]);
      return true;
    default:
      // Turning the discard pile over, a resignation: their effect on the
      // stock and the turn is the server's to say.
      return false;
  }
}

/** The summary of a round's end (`old`: seen again in replayed history, kept dismissed). */
function noteRoundEnd(s: TableState, e: GameEvent, old: boolean, v: GameView | undefined = s.view): void {
  if (e.event.case === "matchEnded" && s.summary) s.summary.matchParts = (e.event.value.parts ?? []).map((p) => [...p.parts]);
  if (e.event.case !== "roundEnded" || !v) return;
  const r = e.event.value;
  const totals = v.seats.map((x) => x.total);
  s.summary = {
    round: r.round,
    ending: r.ending,
    winner: r.winner,
    scores: [...r.scores],
    hands: r.hands.map((h) => [...h.cardIds]),
    totals,
    // A message built by hand rather than decoded may lack its parts.
    parts: (r.parts ?? []).map((p) => [...p.parts]),
    matchWinners: undefined,
    matchParts: undefined,
    dismissed: old,
  };
}

/** A match-ending event replayed from history: the summary names the winners. */
export function noteHistory(s: TableState): void {
  const v = s.view;
  if (v?.status === GameStatus.FINISHED && s.summary) {
    s.summary.matchWinners = [...v.winners];
    s.summary.totals = v.seats.map((x) => x.total);
    s.summary.dismissed = false;
  }
}
