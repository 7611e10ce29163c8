/**
 * A seat at a table, or a spectator's view: the watch kept open (its state
 * folded by ./state.ts), the moves sent (their answers folded too), and the
 * person's clicks and keys.
 */
import {
  GameStatus,
  NO_RETRY,
  connect,
  movesOf,
  newRequestId,
  watchItems,
  type Client,
  type GameView,
  type MoveOptions,
  type MoveResult,
  type Seat,
} from "@ramino/client/web";
import { cardShort, handIds, legalKinds, tableHtml, type Ui } from "./render.ts";
import {
  applyEvent,
  applyLegal,
  applyMoveResult,
  applyView,
  emptyState,
  lastEventVersion,
  needsLegalMoves,
  noteHistory,
  type TableState,
} from "./state.ts";
import { isOutage, refusalText } from "./refusals.ts";
import { escape, meldOrder } from "./text.ts";
import { cards, t } from "./words.ts";

/** How long a card or meld that just arrived is drawn moving in (style.css: 0.35 s). */
const ARRIVAL_MS = 400;

export interface Page {
  client: Client;
  api: string;
  app: HTMLElement;
  /** The page knows the host's player token (`?player=`): quick play works. */
  quick: boolean;
  /** The host's player token, sent on every call (a server that knows players asks it of each). */
  playerToken: string | undefined;
  setConnection(text: string, down?: boolean): void;
}

interface Saved {
  seat: number;
  token: string;
}

export function savedSeat(game: string): Saved | undefined {
  const raw = localStorage.getItem(`ramino:seat:${game}`);
  return raw ? (JSON.parse(raw) as Saved) : undefined;
}

export function saveSeat(game: string, saved: Saved): void {
  localStorage.setItem(`ramino:seat:${game}`, JSON.stringify(saved));
}

/** A move the person made, with the request id it keeps until the server has answered it. */
interface Move {
  send: (seat: Seat, options: MoveOptions) => Promise<MoveResult>;
  requestId: string;
  /** Sends that failed while the watch stayed connected (the server up, the move unanswered). */
  failures: number;
}

/** Sends of a move that fail while the page is connected before the page gives it up and says so. */
const MOVE_TRIES = 4;

export class Table {
  readonly state: TableState = emptyState();
  readonly ui: Ui = { spectating: true, live: false, selected: new Set(), pending: [], message: "", hint: "", hintMelds: [], knocking: false };
  private readonly abort = new AbortController();
  private seat: Seat | undefined;
  private busy = false;
  private asking = false;
  /** A move made while the server was away, sent (with its request id: played once) when it is back. */
  private waiting: Move | undefined;
  /** Calls without the SDK's retries: the watch and its probe tell at once when the server is away. */
  private readonly quick: Client;
  private shown: { hand: number[]; melds: string[] } | undefined;
  private readonly fresh = { cards: new Set<number>(), melds: new Set<number>(), since: 0 };

  constructor(
    private readonly page: Page,
    readonly id: string,
    private readonly spectate: boolean,
  ) {
    this.quick = connect(page.api, { retry: NO_RETRY, playerToken: page.playerToken });
  }

  close(): void {
    this.abort.abort();
  }

  get closed(): boolean {
    return this.abort.signal.aborted;
  }

  async open(): Promise<void> {
    const saved = this.spectate ? undefined : savedSeat(this.id);
    this.page.app.innerHTML = `<p class="muted">${escape(t("opening"))}</p>`;
    try {
      if (saved) this.seat = await this.page.client.seat(this.id, saved.token);
    } catch (e) {
      this.refused(e, isOutage(e) ? "" : `<p><a href="#/watch/${this.id}">${escape(t("watchInstead"))}</a></p>`);
      return;
    }
    this.ui.spectating = this.seat === undefined;
    if (this.seat?.lastView) applyView(this.state, this.seat.lastView);
    void this.follow(this.seat?.lastView);
  }

  /** The game's view, fetched once per connection (with its deck), the seat's or a spectator's. */
  private async probe(): Promise<GameView> {
    const token = this.seat?.token;
    return this.quick.view(`games/${this.id}`, token);
  }

  private down(): void {
    if (this.closed) return;
    this.ui.live = false;
    this.page.setConnection(t("conn.down"), true);
    this.render();
  }

  /**
   * A refusal no retry changes (no such game, a table that cannot be
   * watched, a player token missing): said once, in the page's words, with
   * what to do; the page stops asking.
   */
  private refused(e: unknown, more = ""): void {
    if (this.closed) return;
    this.abort.abort();
    this.ui.live = false;
    this.page.setConnection(t("conn.offline"), true);
    this.page.app.innerHTML = `<p class="error" role="alert">${escape(refusalText(e))}</p>${more}<p><a href="#/">${escape(t("lobby"))}</a></p>`;
  }

  /**
   * The watch, for as long as the page shows this game. Each connection
   * starts with the view (a probe that fails fast while the server is away;
   * on the first, the one the seat was just opened with) and replays the
   * events after the last one in the feed (all of them after a load: the
   * feed's history), folding those the view lacks. The seat's watch pushes
   * what the person may do with the events (its turn coming, leaving):
   * nothing is asked per event or per turn.
   */
  private async follow(opened: GameView | undefined): Promise<void> {
    let wait = 250;
    let first = opened;
    while (!this.closed) {
      try {
        const view = first ?? (await this.probe());
        first = undefined;
        applyView(this.state, view);
        if (this.closed) return;
        const history = lastEventVersion(this.state);
        const stream = this.quick.games.watchGame(
          { name: `games/${this.id}`, afterVersion: history },
          { headers: this.quick.headers(this.seat?.token), signal: this.abort.signal },
        );
        this.ui.live = true;
        this.page.setConnection(t("conn.live"));
        wait = 250;
        const waiting = this.waiting;
        if (waiting) {
          this.ui.message = t("conn.moveSending");
          void this.send(waiting);
        }
        let replaying = view.version > history;
        this.render();
        if (!replaying) void this.recover();
        for await (const response of stream) {
          for (const item of watchItems(response)) {
            if (item.kind === "snapshot") {
              applyView(this.state, item.view);
            } else {
              applyEvent(this.state, item.event);
              if (item.event.event.case === "roundStarted") this.ui.pending = [];
            }
            if (item.options) applyLegal(this.state, item.options);
          }
          if (replaying && (this.state.view?.version ?? 0n) <= lastEventVersion(this.state)) {
            replaying = false;
            noteHistory(this.state);
          }
          if (this.state.stale) applyView(this.state, await this.probe());
          this.render();
          if (!replaying) void this.recover();
        }
        if (this.state.view?.status === GameStatus.FINISHED) {
          this.page.setConnection(t("conn.connected"));
          this.ui.live = true;
          this.render();
          return;
        }
        this.down();
      } catch (e) {
        if (this.closed) return;
        if (!isOutage(e)) return this.refused(e);
        this.down();
      }
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 2000);
    }
  }

  /**
   * The seat's legal moves, asked only when the folded state has the
   * person's turn without them: the view fetched again after a gap, or a
   * connection resumed with nothing new to push. The watch pushes them with
   * the event that brings the turn, a move's answer brings the next ones.
   */
  private async recover(): Promise<void> {
    // While a move is on its way its answer brings the legal moves (its
    // events may come through the watch first).
    if (!this.seat || this.asking || this.busy || !needsLegalMoves(this.state)) return;
    this.asking = true;
    try {
      const legal = await this.seat.legalMoves();
      applyLegal(this.state, { version: legal.version, moves: legal.moves, hint: legal.hint });
      this.render();
    } catch (e) {
      if (isOutage(e)) this.down();
      else this.ui.message = refusalText(e);
      this.render();
    } finally {
      this.asking = false;
    }
  }

  /**
   * A move the person made: sent now, or, while the server is away, kept
   * (one at a time: the last made replaces it) and sent when the watch is
   * back. Its request id stays with it, so a move that reached the server
   * before the connection broke is played once.
   */
  private async act(send: Move["send"]): Promise<void> {
    if (!this.seat || this.busy) return;
    const move = { send, requestId: newRequestId(), failures: 0 };
    if (!this.ui.live) {
      this.waiting = move;
      this.ui.message = t("conn.notConnected");
      this.render();
      return;
    }
    await this.send(move);
  }

  private async send(move: Move): Promise<void> {
    const seat = this.seat;
    if (!seat || this.busy) return;
    this.busy = true;
    try {
      const result = await move.send(seat, { requestId: move.requestId });
      if (this.waiting === move) this.waiting = undefined;
      this.ui.message = "";
      applyMoveResult(this.state, result);
      this.ui.selected.clear();
      this.ui.hint = "";
      this.ui.hintMelds = [];
      this.ui.knocking = false;
    } catch (e) {
      if (isOutage(e) && this.ui.live && ++move.failures >= MOVE_TRIES) {
        // Connected, yet the move goes unanswered: said plainly, not kept forever.
        if (this.waiting === move) this.waiting = undefined;
        this.ui.message = t("conn.moveLost");
      } else if (isOutage(e)) {
        // Kept: sent again when the watch is back, or soon while it stays connected.
        this.waiting = move;
        this.ui.message = t("conn.moveWaiting");
        if (this.ui.live) {
          const retry = (): void => {
            if (this.waiting === move && this.ui.live && !this.closed) void this.send(move);
          };
          window.setTimeout(retry, 500 * 2 ** move.failures);
        }
      } else {
        if (this.waiting === move) this.waiting = undefined;
        this.ui.message = refusalText(e);
      }
    } finally {
      this.busy = false;
    }
    this.render();
    // A move's answer brings the options at its version; a refused one
    // may leave the person's turn without them (recover asks only then).
    void this.recover();
  }

  render(): void {
    const v = this.state.view;
    if (!v || this.closed) return;
    const app = this.page.app;
    const active = document.activeElement instanceof HTMLElement ? focusKey(document.activeElement) : "";
    const summaryBefore = app.querySelector("#summary") !== null;
    app.innerHTML = tableHtml(this.state, this.ui, this.id, this.arrivals(v));
    const feed = document.getElementById("feed");
    if (feed) feed.scrollTop = feed.scrollHeight;
    const summary = app.querySelector<HTMLElement>("#summary-title");
    if (summary && !summaryBefore) summary.focus();
    else if (active) app.querySelector<HTMLElement>(active)?.focus();
  }

  /**
   * The cards that came into the hand and the melds laid since the hand or
   * the table last changed (none on the first render): they move in.
   */
  private arrivals(v: GameView): { cards: Set<number>; melds: Set<number> } {
    const hand = v.hand.map((c) => c.id ?? -1);
    const melds = v.table.map((m) => `${m.index}:${m.meld?.cards.length ?? 0}`);
    const key = (xs: (number | string)[]): string => xs.join(",");
    const now = performance.now();
    if (this.shown && key(hand) !== key(this.shown.hand)) {
      const before = new Set(this.shown.hand);
      this.fresh.cards = new Set(hand.filter((id) => !before.has(id)));
      this.fresh.since = now;
    }
    if (this.shown && key(melds) !== key(this.shown.melds)) {
      const before = new Set(this.shown.melds);
      this.fresh.melds = new Set(v.table.filter((_, i) => !before.has(melds[i] as string)).map((m) => m.index));
      this.fresh.since = now;
    }
    this.shown = { hand, melds };
    // Renders while it plays (the move's own event coming back) keep it;
    // later ones do not start it again.
    if (now - this.fresh.since > ARRIVAL_MS) return { cards: new Set(), melds: new Set() };
    return this.fresh;
  }

  private selectedIds(): number[] {
    return [...this.ui.selected];
  }

  onClick(target: HTMLButtonElement): void {
    const ui = this.ui;
    if (target.dataset["action"] === "dismiss") {
      if (this.state.summary) this.state.summary.dismissed = true;
      this.render();
      document.getElementById("status")?.focus();
      return;
    }
    if (!this.seat) return;
    if (target.dataset["card"] !== undefined && target.closest("#hand")) {
      const id = Number(target.dataset["card"]);
      if (ui.selected.has(id)) ui.selected.delete(id);
      else ui.selected.add(id);
      this.render();
      return;
    }
    if (target.id === "stock") return void this.act((s, o) => s.drawFromStock(o));
    if (target.id === "discard-pile") return void this.act((s, o) => s.takeDiscard(o));
    const one = this.selectedIds()[0] as number;
    if (target.dataset["layoff"] !== undefined) {
      return void this.act((s, o) => s.layOff(one, Number(target.dataset["layoff"]), Number(target.dataset["end"]), o));
    }
    if (target.dataset["swap"] !== undefined) {
      return void this.act((s, o) => s.swapJoker(one, Number(target.dataset["swap"]), Number(target.dataset["joker"]), o));
    }
    if (target.dataset["knock"] !== undefined) {
      const discard = target.dataset["knock"] === "" ? undefined : Number(target.dataset["knock"]);
      const knock = movesOf(this.state.legal ?? { moves: [] }, "knock").find((k) => k.discardCardId === discard);
      if (knock) return void this.act((s, o) => s.knock(knock.discardCardId, knock.melds.map((m) => m.cardIds), o));
      return;
    }
    if (target.dataset["move"] !== undefined) {
      const move = this.state.legal?.moves.find((m) => m.move.case === target.dataset["move"]);
      if (move) return void this.act((s, o) => s.play(move, o));
      return;
    }
    this.doAction(target.dataset["action"] ?? "");
  }

  doAction(action: string): void {
    const ui = this.ui;
    const hand = this.state.view?.hand ?? [];
    switch (action) {
      case "draw":
        return void this.act((s, o) => s.drawFromStock(o));
      case "take":
        return void this.act((s, o) => s.takeDiscard(o));
      case "pass":
        return void this.act((s, o) => s.passUpcard(o));
      case "accept":
        return void this.act((s, o) => s.acceptLayout(o));
      case "group": {
        const chosen = hand.filter((c) => ui.selected.has(c.id ?? -1));
        if (chosen.length) {
          ui.pending.push(meldOrder(chosen).map((c) => c.id as number));
          ui.selected.clear();
        } else ui.message = t("err.selectMeld");
        return this.render();
      }
      case "clear-pending":
        ui.pending = [];
        return this.render();
      case "lay": {
        const melds = [...ui.pending];
        const chosen = hand.filter((c) => ui.selected.has(c.id ?? -1));
        if (chosen.length) melds.push(meldOrder(chosen).map((c) => c.id as number));
        if (!melds.length) {
          ui.message = t("err.selectMeld");
          return this.render();
        }
        return void this.act(async (s, o) => {
          const r = await s.layMelds(melds, o);
          ui.pending = [];
          return r;
        });
      }
      case "discard": {
        const ids = this.selectedIds();
        if (ids.length !== 1) {
          ui.message = t("err.selectDiscard");
          return this.render();
        }
        return void this.act((s, o) => s.discard(ids[0] as number, o));
      }
      case "knock":
        ui.knocking = true;
        this.render();
        document.querySelector<HTMLElement>("#knock-preview button")?.focus();
        return;
      case "knock-cancel":
        ui.knocking = false;
        return this.render();
      case "resign":
        if (confirm(t("act.resignConfirm"))) void this.act((s, o) => s.resign(o));
        return;
      case "hint":
        return this.showHint();
      case "lay-hint": {
        const melds = ui.hintMelds;
        if (melds.length) void this.act((s, o) => s.layMelds(melds, o));
        return;
      }
    }
  }

  /** The hint from the legal moves the page has (no call): it marks cards, it selects none. */
  private showHint(): void {
    const ui = this.ui;
    const legal = this.state.legal;
    const kinds = legalKinds(this.state);
    const hint = legal?.hint;
    const parts: string[] = [];
    ui.hintMelds = [];
    const hand = this.state.view?.hand ?? [];
    if (!legal?.moves.length) parts.push(t("hint.notTurn"));
    else if (kinds.has("drawFromStock") || kinds.has("passUpcard")) parts.push(t("hint.draw"));
    else if (kinds.has("acceptLayout")) parts.push(t("hint.layoffPhase"));
    const opening = hint?.bestOpening;
    if (opening && opening.melds.length && kinds.has("layMelds")) {
      const text = opening.melds.map((m) => m.cards.map(cardShort).join(" ")).join(" | ");
      const opened = this.state.view?.seats[this.state.view.seat ?? 0]?.opened;
      parts.push(opened ? t("hint.melds", { melds: text }) : t("hint.open", { value: opening.value, melds: text }));
      ui.hintMelds = handIds(hand, opening.melds.map((m) => m.cards));
    }
    if (hint?.minDeadwood && legal?.moves.length) parts.push(t("hint.deadwood", { n: hint.minDeadwood.value, cards: cards(hand.length) }));
    const knock = hint?.bestKnock && kinds.has("knock") ? hint.bestKnock : undefined;
    const knockDiscard = knock?.discardCardId === undefined ? undefined : hand.find((c) => c.id === knock.discardCardId);
    if (knock) {
      // The knock and the discard the hint names are one move: the knock preview's.
      parts.push(knockDiscard ? t("hint.knock", { n: knock.deadwood, card: cardShort(knockDiscard) }) : t("hint.gin"));
    } else if (hint?.suggestedDiscard && kinds.has("discard")) {
      parts.push(t("hint.discard", { card: cardShort(hint.suggestedDiscard) }));
    }
    const offs = movesOf(legal ?? { moves: [] }, "layOff");
    if (offs.length) {
      const byId = new Map(hand.map((c) => [c.id, c]));
      const names = [...new Set(offs.map((o) => o.cardId))].map((id) => byId.get(id)).filter((c) => c !== undefined).map(cardShort);
      parts.push(t("hint.layoffs", { cards: names.join(" ") }));
    }
    ui.hint = escape(parts.join(" ") || t("hint.none"));
    if (ui.hintMelds.length) ui.hint += ` <button type="button" class="legal" data-action="lay-hint">${escape(t("act.layHint"))}</button>`;
    this.render();
  }

  onKey(ev: KeyboardEvent): void {
    if (!this.seat) return;
    const keys: Record<string, string> = { d: "draw", t: "take", p: "pass", g: "group", m: "lay", x: "discard", h: "hint", k: "knock", a: "accept" };
    const action = keys[ev.key];
    if (!action) return;
    const kinds = legalKinds(this.state);
    if (action === "pass" && !kinds.has("passUpcard")) return;
    if (action === "accept" && !kinds.has("acceptLayout")) return;
    if (action === "knock" && !kinds.has("knock")) return;
    ev.preventDefault();
    this.doAction(action);
  }
}

/** A selector that finds the same control again after a render. */
function focusKey(el: HTMLElement): string {
  if (el.id) return `#${el.id}`;
  for (const key of ["card", "action", "move", "layoff", "knock"]) {
    const value = el.dataset[key];
    if (value !== undefined) return `[data-${key}="${value}"]`;
  }
  return "";
}

