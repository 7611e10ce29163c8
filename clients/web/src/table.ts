/**
 * A seat at a table, or a spectator's view: the watch kept open (its state
 * folded by ./state.ts), the moves sent (their answers folded too), and the
 * person's clicks and keys.
 */
import {
  GameStatus,
  NO_RETRY,
  ServiceError,
  connect,
  movesOf,
  watchItems,
  type Client,
  type GameView,
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
import { escape, meldOrder } from "./text.ts";
import { t } from "./words.ts";

/** How long a card or meld that just arrived is drawn moving in (style.css: 0.35 s). */
const ARRIVAL_MS = 400;

export interface Page {
  client: Client;
  api: string;
  app: HTMLElement;
  /** The page knows the host's player token (`?player=`): quick play works. */
  quick: boolean;
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

/** A refused call in words: the server's explanation, and its reason code. */
export function explain(e: unknown): string {
  if (e instanceof ServiceError) {
    const words = e.detail || e.reason.toLowerCase().replace(/_/g, " ");
    return `${words} (${e.reason})`;
  }
  return e instanceof Error ? e.message : String(e);
}

export class Table {
  readonly state: TableState = emptyState();
  readonly ui: Ui = { spectating: true, live: false, selected: new Set(), pending: [], message: "", hint: "", hintMelds: [], knocking: false };
  private readonly abort = new AbortController();
  private seat: Seat | undefined;
  private busy = false;
  private asking = false;
  /** Calls without the SDK's retries: the watch and its probe tell at once when the server is away. */
  private readonly quick: Client;
  private shown: { hand: number[]; melds: string[] } | undefined;
  private readonly fresh = { cards: new Set<number>(), melds: new Set<number>(), since: 0 };

  constructor(
    private readonly page: Page,
    readonly id: string,
    private readonly spectate: boolean,
  ) {
    this.quick = connect(page.api, { retry: NO_RETRY });
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
      this.page.app.innerHTML = `<p class="error" role="alert">${escape(explain(e))}</p><p><a href="#/watch/${this.id}">${escape(t("watchInstead"))}</a></p>`;
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

  private down(why: string): void {
    if (this.closed) return;
    this.ui.live = false;
    this.page.setConnection(`${t("conn.down")} ${why}`.trim(), true);
    this.render();
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
        // A move refused while the server was away: that is over now.
        if (this.ui.message === t("conn.notConnected")) this.ui.message = "";
        wait = 250;
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
        this.down("");
      } catch (e) {
        if (this.closed) return;
        this.down(`(${explain(e)})`);
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
      this.down(`(${explain(e)})`);
    } finally {
      this.asking = false;
    }
  }

  private async act(what: (seat: Seat) => Promise<MoveResult>): Promise<void> {
    const seat = this.seat;
    if (!seat || this.busy) return;
    if (!this.ui.live) {
      this.ui.message = t("conn.notConnected");
      this.render();
      return;
    }
    this.busy = true;
    this.ui.message = "";
    try {
      const result = await what(seat);
      applyMoveResult(this.state, result);
      this.ui.selected.clear();
      this.ui.hint = "";
      this.ui.hintMelds = [];
      this.ui.knocking = false;
    } catch (e) {
      this.ui.message = explain(e);
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
    if (target.id === "stock") return void this.act((s) => s.drawFromStock());
    if (target.id === "discard-pile") return void this.act((s) => s.takeDiscard());
    const one = this.selectedIds()[0] as number;
    if (target.dataset["layoff"] !== undefined) {
      return void this.act((s) => s.layOff(one, Number(target.dataset["layoff"]), Number(target.dataset["end"])));
    }
    if (target.dataset["swap"] !== undefined) {
      return void this.act((s) => s.swapJoker(one, Number(target.dataset["swap"]), Number(target.dataset["joker"])));
    }
    if (target.dataset["knock"] !== undefined) {
      const discard = target.dataset["knock"] === "" ? undefined : Number(target.dataset["knock"]);
      const knock = movesOf(this.state.legal ?? { moves: [] }, "knock").find((k) => k.discardCardId === discard);
      if (knock) return void this.act((s) => s.knock(knock.discardCardId, knock.melds.map((m) => m.cardIds)));
      return;
    }
    if (target.dataset["move"] !== undefined) {
      const move = this.state.legal?.moves.find((m) => m.move.case === target.dataset["move"]);
      if (move) return void this.act((s) => s.play(move));
      return;
    }
    this.doAction(target.dataset["action"] ?? "");
  }

  doAction(action: string): void {
    const ui = this.ui;
    const hand = this.state.view?.hand ?? [];
    switch (action) {
      case "draw":
        return void this.act((s) => s.drawFromStock());
      case "take":
        return void this.act((s) => s.takeDiscard());
      case "pass":
        return void this.act((s) => s.passUpcard());
      case "accept":
        return void this.act((s) => s.acceptLayout());
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
        return void this.act(async (s) => {
          const r = await s.layMelds(melds);
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
        return void this.act((s) => s.discard(ids[0] as number));
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
        if (confirm(t("act.resignConfirm"))) void this.act((s) => s.resign());
        return;
      case "hint":
        return this.showHint();
      case "lay-hint": {
        const melds = ui.hintMelds;
        if (melds.length) void this.act((s) => s.layMelds(melds));
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
    if (hint?.minDeadwood && legal?.moves.length) parts.push(t("hint.deadwood", { n: hint.minDeadwood.value }));
    if (hint?.bestKnock && kinds.has("knock")) parts.push(t("hint.knock", { n: hint.bestKnock.deadwood }));
    if (hint?.suggestedDiscard && kinds.has("discard")) parts.push(t("hint.discard", { card: cardShort(hint.suggestedDiscard) }));
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

