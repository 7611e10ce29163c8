/**
 * Ramino in a browser: the lobby, a seat at a table, or a spectator's view,
 * on the TypeScript SDK over gRPC-web (through `ramino gateway`).
 *
 * Routes: `#/` the lobby, `#/play/{game}` a seat (its token kept in
 * localStorage, so a reload or a return keeps the seat), `#/watch/{game}`
 * a spectator. The API is the page's own origin, or `?api=URL`.
 */
import "./style.css";
import {
  BotLevel,
  End,
  GameStatus,
  ServiceError,
  TurnPhase,
  connect,
  groupBySuit,
  isRed,
  movesOf,
  sortCards,
  suitSymbol,
  type Card,
  type Client,
  type Game,
  type GameEvent,
  type GameView,
  type GetLegalMovesResponse,
  type Move,
  type Seat,
  type TableMeld,
  type Variant,
} from "@ramino/client/web";
import { cardLabel, codeText, describeEvent, escape, meldOrder, seatName } from "./text.ts";

const api = new URLSearchParams(location.search).get("api") ?? location.origin;
const client: Client = connect(api);
const app = document.getElementById("app") as HTMLElement;
const connection = document.getElementById("connection") as HTMLElement;

interface Saved {
  seat: number;
  token: string;
}

function savedSeat(game: string): Saved | undefined {
  const raw = localStorage.getItem(`ramino:seat:${game}`);
  return raw ? (JSON.parse(raw) as Saved) : undefined;
}

function saveSeat(game: string, saved: Saved): void {
  localStorage.setItem(`ramino:seat:${game}`, JSON.stringify(saved));
}

function gameId(name: string): string {
  return name.replace(/^games\//, "");
}

function setConnection(text: string, down = false): void {
  connection.textContent = text;
  connection.classList.toggle("down", down);
}

/** A refused call in words: the server's explanation, and its reason code. */
function explain(e: unknown): string {
  if (e instanceof ServiceError) {
    const words = e.detail || e.reason.toLowerCase().replace(/_/g, " ");
    return `${words} (${e.reason})`;
  }
  return e instanceof Error ? e.message : String(e);
}

// --- lobby -----------------------------------------------------------------

let lobbyTimer: number | undefined;

async function showLobby(): Promise<void> {
  const name = localStorage.getItem("ramino:name") ?? "";
  app.innerHTML = `
    <section class="panel" aria-labelledby="new-game">
      <h2 id="new-game">New game</h2>
      <form id="create" class="row">
        <label>Your name <input name="name" required maxlength="32" value="${escape(name)}" autocomplete="nickname"></label>
        <label>Variant <select name="variant" id="variant"></select></label>
        <label>Seats <select name="seats" id="seat-count"></select></label>
        <span id="others" class="row"></span>
        <button class="primary" type="submit">Create and sit</button>
      </form>
      <p id="lobby-error" class="error" role="alert"></p>
    </section>
    <section class="panel" aria-labelledby="open-games">
      <h2 id="open-games">Games</h2>
      <table class="games"><thead><tr><th>Game</th><th>Variant</th><th>Seats</th><th>State</th><th></th></tr></thead>
      <tbody id="game-list"><tr><td colspan="5" class="muted">loading…</td></tr></tbody></table>
    </section>`;
  const form = document.getElementById("create") as HTMLFormElement;
  const variantSelect = document.getElementById("variant") as HTMLSelectElement;
  const countSelect = document.getElementById("seat-count") as HTMLSelectElement;
  const others = document.getElementById("others") as HTMLElement;
  const error = document.getElementById("lobby-error") as HTMLElement;
  let variants: Variant[] = [];
  try {
    variants = await client.rules.listVariants();
    setConnection("connected");
  } catch (e) {
    error.textContent = `Cannot reach the server: ${explain(e)}`;
    setConnection("offline", true);
  }
  variantSelect.innerHTML = variants
    .map((v) => `<option value="${escape(v.name)}">${escape(v.name)}</option>`)
    .join("");
  const fillCounts = (): void => {
    const v = variants.find((x) => x.name === variantSelect.value);
    const low = v?.parameters?.minPlayers ?? 2;
    const high = v?.parameters?.maxPlayers ?? 4;
    countSelect.innerHTML = Array.from({ length: high - low + 1 }, (_, i) => low + i)
      .map((n) => `<option value="${n}">${n}</option>`)
      .join("");
    fillOthers();
  };
  const fillOthers = (): void => {
    const n = Number(countSelect.value || 2);
    others.innerHTML = Array.from({ length: n - 1 }, (_, i) => {
      const seat = i + 1;
      return `<label>Seat ${seat + 1} <select name="seat${seat}">
        <option value="MEDIUM">Bot (medium)</option>
        <option value="EASY">Bot (easy)</option>
        <option value="HARD">Bot (hard)</option>
        <option value="EXPERT">Bot (expert)</option>
        <option value="RANDOM">Bot (random)</option>
        <option value="person">A person</option></select></label>`;
    }).join("");
  };
  variantSelect.addEventListener("change", fillCounts);
  countSelect.addEventListener("change", fillOthers);
  fillCounts();
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void createAndSit(new FormData(form), error);
  });
  await refreshGames();
  lobbyTimer = window.setInterval(() => void refreshGames(), 3000);
}

async function createAndSit(data: FormData, error: HTMLElement): Promise<void> {
  const name = String(data.get("name") ?? "").trim();
  localStorage.setItem("ramino:name", name);
  const count = Number(data.get("seats") ?? 2);
  const seats: (string | BotLevel)[] = [name];
  for (let s = 1; s < count; s++) {
    const kind = String(data.get(`seat${s}`));
    const levels: Record<string, BotLevel> = {
      EASY: BotLevel.EASY,
      MEDIUM: BotLevel.MEDIUM,
      HARD: BotLevel.HARD,
      EXPERT: BotLevel.EXPERT,
      RANDOM: BotLevel.RANDOM,
    };
    seats.push(levels[kind] ?? "");
  }
  try {
    const created = await client.createGame({ variant: String(data.get("variant")), seats });
    const seat = await client.join(created.name, name, { seat: 0 });
    saveSeat(gameId(created.name), { seat: seat.seat, token: seat.token });
    location.hash = `#/play/${gameId(created.name)}`;
  } catch (e) {
    error.textContent = explain(e);
  }
}

async function refreshGames(): Promise<void> {
  const body = document.getElementById("game-list");
  if (!body) return;
  const games: Game[] = [];
  try {
    for await (const g of client.listGames({ pageSize: 30 })) {
      if (g.status !== GameStatus.FINISHED) games.push(g);
      if (games.length >= 30) break;
    }
  } catch (e) {
    setConnection(`offline: ${explain(e)}`, true);
    return;
  }
  setConnection("connected");
  body.innerHTML =
    games
      .map((g) => {
        const id = gameId(g.name);
        const mine = savedSeat(id);
        const people = g.seats
          .map((s) => (s.bot ? `bot` : s.taken ? escape(s.playerName || "?") : "open"))
          .join(", ");
        const actions = [
          mine ? `<a href="#/play/${id}">Return to my seat</a>` : "",
          !mine && g.openSeats > 0 ? `<button data-join="${id}">Join</button>` : "",
          `<a href="#/watch/${id}">Watch</a>`,
        ].join(" ");
        const state = g.status === GameStatus.WAITING ? `waiting (${g.openSeats} open)` : "playing";
        return `<tr><td>${id.slice(0, 8)}</td><td>${escape(g.variant)}</td><td>${people}</td><td>${state}</td><td>${actions}</td></tr>`;
      })
      .join("") || `<tr><td colspan="5" class="muted">No games yet: create one.</td></tr>`;
  body.querySelectorAll<HTMLButtonElement>("button[data-join]").forEach((b) =>
    b.addEventListener("click", () => void joinGame(b.dataset["join"] ?? "")),
  );
}

async function joinGame(id: string): Promise<void> {
  const error = document.getElementById("lobby-error") as HTMLElement;
  const input = document.querySelector<HTMLInputElement>("input[name=name]");
  const name = input?.value.trim() || "guest";
  localStorage.setItem("ramino:name", name);
  try {
    const seat = await client.join(id, name);
    saveSeat(id, { seat: seat.seat, token: seat.token });
    location.hash = `#/play/${id}`;
  } catch (e) {
    error.textContent = explain(e);
  }
}

// --- the table ---------------------------------------------------------------

interface Table {
  id: string;
  seat: Seat | undefined;
  view: GameView | undefined;
  legal: GetLegalMovesResponse | undefined;
  selected: Set<number>;
  pending: number[][];
  feed: string[];
  message: string;
  hint: string;
  hintMelds: number[][];
  busy: boolean;
  abort: AbortController;
  deck: string[];
}

let table: Table | undefined;

async function showTable(id: string, spectate: boolean): Promise<void> {
  const saved = spectate ? undefined : savedSeat(id);
  const t: Table = {
    id,
    seat: undefined,
    view: undefined,
    legal: undefined,
    selected: new Set(),
    pending: [],
    feed: [],
    message: "",
    hint: "",
    hintMelds: [],
    busy: false,
    abort: new AbortController(),
    deck: [],
  };
  table = t;
  app.innerHTML = `<p class="muted">Opening the game…</p>`;
  try {
    if (saved) t.seat = await client.seat(id, saved.token);
  } catch (e) {
    app.innerHTML = `<p class="error" role="alert">${escape(explain(e))}</p><p><a href="#/watch/${id}">Watch instead</a></p>`;
    return;
  }
  void follow(t);
}

/** The watch, for as long as the page shows this game: the SDK resumes a
 * dropped stream by itself; past its retries, this starts it again. */
async function follow(t: Table): Promise<void> {
  let after: bigint | undefined;
  while (!t.abort.signal.aborted) {
    const options = { signal: t.abort.signal, stopAtEnd: false, ...(after === undefined ? {} : { afterVersion: after }) };
    const watch = t.seat ? t.seat.watch(options) : client.watch(t.id, options);
    try {
      for await (const item of watch) {
        setConnection(watch.reconnects > 0 ? `live (reconnected ${watch.reconnects}×)` : "live");
        after = item.version;
        if (item.kind === "snapshot") {
          t.view = item.view;
          if (item.view.deck.length) t.deck = item.view.deck;
          await refresh(t, false);
        } else {
          t.feed.push(describeEvent(item.event, t.view, t.deck));
          await refresh(t, true, item.event);
        }
      }
    } catch (e) {
      if (t.abort.signal.aborted) return;
      setConnection(`connection lost, reconnecting… (${explain(e)})`, true);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** The view after an event, and the seat's legal moves on its turn. */
async function refresh(t: Table, fetchView: boolean, event?: GameEvent): Promise<void> {
  try {
    if (fetchView) {
      const view = t.seat ? await t.seat.view() : await client.getGame(t.id);
      if (!t.view || view.version >= t.view.version) t.view = view;
      if (view.deck.length) t.deck = view.deck;
    }
    const v = t.view;
    if (t.seat && v && v.turn === v.seat && v.status === GameStatus.PLAYING) {
      t.legal = await t.seat.legalMoves();
    } else {
      t.legal = undefined;
    }
    if (event?.event.case === "roundStarted") t.pending = [];
  } catch (e) {
    setConnection(`connection lost, reconnecting… (${explain(e)})`, true);
  }
  if (table === t) render(t);
}

function legalKinds(t: Table): Set<string> {
  return new Set((t.legal?.moves ?? []).map((m) => m.move.case ?? ""));
}

function cardHtml(card: Card, opts: { button?: boolean; pressed?: boolean; classes?: string[]; note?: string } = {}): string {
  const classes = ["card", card.joker ? "joker" : isRed(card.suit) ? "red" : "", ...(opts.classes ?? [])];
  const label = cardLabel(card);
  const inner = `${card.joker ? "🃏" : `${rankText(card.rank)}${suitSymbol(card.suit)}`}${opts.note ? `<small>${escape(opts.note)}</small>` : ""}`;
  if (opts.button) {
    return `<button type="button" class="${classes.join(" ")}" data-card="${card.id}" aria-pressed="${opts.pressed ? "true" : "false"}" aria-label="${escape(label)}">${inner}</button>`;
  }
  return `<span class="${classes.join(" ")}" aria-label="${escape(label)}">${inner}</span>`;
}

function rankText(rank: number): string {
  return { 1: "A", 11: "J", 12: "Q", 13: "K" }[rank] ?? String(rank);
}

function meldHtml(t: Table, m: TableMeld): string {
  const v = t.view as GameView;
  const meld = m.meld;
  if (!meld) return "";
  const jokers = new Map(meld.jokers.map((j) => [j.index, j.standsFor.map(codeText).join("/")]));
  const cards = meld.cards.map((c, i) => cardHtml(c, jokers.has(i) ? { note: `= ${jokers.get(i)}` } : {})).join("");
  const selected = [...t.selected];
  const targets = t.seat && selected.length === 1 ? meldTargets(t, selected[0] as number, m.index) : [];
  const buttons = targets
    .map((mv) => {
      if (mv.move.case === "layOff") {
        const end = mv.move.value.end === End.FIRST ? "start" : "end";
        return `<button type="button" class="legal" data-layoff="${m.index}" data-end="${mv.move.value.end}">Lay off at ${end}</button>`;
      }
      if (mv.move.case === "swapJoker") {
        return `<button type="button" class="legal" data-swap="${m.index}" data-joker="${mv.move.value.jokerId}">Swap for the joker</button>`;
      }
      return "";
    })
    .join("");
  return `<div class="meld${targets.length ? " target" : ""}" data-meld="${m.index}">
    <span class="owner">${escape(seatName(v, m.owner))} · ${meld.kind === 2 ? "run" : "set"} · ${meld.value}</span>
    <div class="cards">${cards}</div>${buttons ? `<div class="row">${buttons}</div>` : ""}</div>`;
}

function meldTargets(t: Table, cardId: number, meldIndex: number): Move[] {
  return (t.legal?.moves ?? []).filter(
    (mv) =>
      (mv.move.case === "layOff" && mv.move.value.cardId === cardId && mv.move.value.meldIndex === meldIndex) ||
      (mv.move.case === "swapJoker" && mv.move.value.cardId === cardId && mv.move.value.meldIndex === meldIndex),
  );
}

function render(t: Table): void {
  const v = t.view;
  if (!v) return;
  const me = t.seat?.seat;
  const kinds = legalKinds(t);
  const myTurn = me !== undefined && v.turn === me && v.status === GameStatus.PLAYING;
  const hintIds = new Set(handIds(v.hand, (t.legal?.hint?.bestOpening?.melds ?? []).map((m) => m.cards)).flat());
  const layable = new Set(movesOf(t.legal ?? { moves: [] }, "layOff").map((m) => m.cardId));
  const pendingIds = new Set(t.pending.flat());

  const seats = v.seats
    .map((s) => {
      const classes = ["seat", v.turn === s.seat ? "turn" : "", me === s.seat ? "me" : ""].join(" ");
      const who = `${escape(seatName(v, s.seat))}${me === s.seat ? " (you)" : ""}`;
      return `<div class="${classes}" data-seat="${s.seat}"><strong>${who}</strong><br>
        <span>${s.handSize} cards</span> · <span>${s.opened ? "opened" : "not opened"}</span><br>
        <span>total ${s.total}</span>${s.resigned ? " · resigned" : ""}${v.turn === s.seat ? " · <em>to play</em>" : ""}</div>`;
    })
    .join("");

  const top = v.discardPile[v.discardPile.length - 1];
  const drawLegal = kinds.has("drawFromStock");
  const takeLegal = kinds.has("takeDiscard");
  const piles = `<div class="row">
    <button type="button" id="stock" class="card back${drawLegal ? " legal" : ""}" aria-label="Stock, ${v.stockSize} cards: draw">${v.stockSize}</button>
    ${top ? `<button type="button" id="discard-pile" class="${takeLegal ? "legal" : ""}" aria-label="Discard pile, top ${escape(cardLabel(top))}: take it">${cardHtml(top)}</button>` : `<span class="muted">empty discard pile</span>`}
    <span class="muted">${v.discardPile.length} in the discard pile</span></div>`;

  let hand = "";
  if (me !== undefined) {
    const groups = groupBySuit(sortCards(v.hand.filter((c) => !pendingIds.has(c.id ?? -1))));
    hand = [...groups.values()]
      .map(
        (cards) =>
          `<div class="suit-group">${cards
            .map((c) =>
              cardHtml(c, {
                button: true,
                pressed: t.selected.has(c.id ?? -1),
                classes: [hintIds.has(c.id ?? -1) ? "hinted" : "", layable.has(c.id ?? -1) ? "layable" : ""],
              }),
            )
            .join("")}</div>`,
      )
      .join("");
  }
  const pending = t.pending.length
    ? `<p class="pending">Melds to lay: ${t.pending
        .map((m) => m.map((id) => escape(t.deck[id] ?? "?")).join(" "))
        .join(" | ")} <button type="button" data-action="clear-pending">Take back</button></p>`
    : "";

  const noArg: [string, string][] = [
    ["turnOverDiscardPile", "Turn the discard pile over"],
    ["passUpcard", "Pass the upcard"],
    ["acceptLayout", "Done laying off"],
  ];
  const actions =
    me === undefined
      ? ""
      : `<div class="row" role="toolbar" aria-label="Moves">
      <button type="button" data-action="draw" class="${drawLegal ? "legal" : ""}" title="d">Draw</button>
      <button type="button" data-action="take" class="${takeLegal ? "legal" : ""}" title="t">Take discard</button>
      <button type="button" data-action="group" title="g">Group as meld</button>
      <button type="button" data-action="lay" class="${kinds.has("layMelds") && (t.pending.length || t.selected.size) ? "legal" : ""}" title="m">Lay melds</button>
      <button type="button" data-action="discard" class="${kinds.has("discard") && t.selected.size === 1 ? "legal" : ""}" title="x">Discard</button>
      ${kinds.has("knock") ? `<button type="button" data-action="knock" class="legal">Knock</button>` : ""}
      ${noArg.filter(([k]) => kinds.has(k)).map(([k, label]) => `<button type="button" class="legal" data-move="${k}">${label}</button>`).join("")}
      <button type="button" data-action="hint" title="h">Hint</button>
      <button type="button" data-action="resign">Resign</button>
    </div>`;

  const status =
    v.status === GameStatus.WAITING
      ? "Waiting for players to join."
      : v.status === GameStatus.FINISHED
        ? `The match is over. ${v.winners.length ? `Won by ${v.winners.map((w) => escape(seatName(v, w))).join(", ")}.` : ""}${v.endReason ? ` (${escape(v.endReason)})` : ""}`
        : v.turn === undefined
          ? "Between rounds."
          : myTurn
            ? `Your turn: ${v.phase === TurnPhase.DRAW ? "draw a card" : v.phase === TurnPhase.LAYOFF ? "lay off, then accept" : "meld, lay off, then discard"}.`
            : `${escape(seatName(v, v.turn))} to play.`;

  const rounds = v.rounds.length
    ? `<table class="scores"><thead><tr><th>Round</th>${v.seats.map((s) => `<th>${escape(seatName(v, s.seat))}</th>`).join("")}<th>Ending</th></tr></thead><tbody>
      ${v.rounds.map((r) => `<tr><td>${r.round}</td>${r.scores.map((x) => `<td>${x}</td>`).join("")}<td>${escape(r.ending)}</td></tr>`).join("")}
      <tr><th>Total</th>${v.seats.map((s) => `<th>${s.total}</th>`).join("")}<td></td></tr></tbody></table>`
    : `<p class="muted">No round scored yet.</p>`;

  const focusId = document.activeElement instanceof HTMLElement ? focusKey(document.activeElement) : "";
  app.innerHTML = `
    <p class="row"><a href="#/">← Lobby</a> <span>Game ${escape(t.id.slice(0, 8))} · ${escape(v.variant?.name ?? "")} · round ${v.round}</span>
      ${me === undefined ? `<strong class="spectating">Spectating</strong>` : ""}</p>
    <p id="status" aria-live="polite">${status}</p>
    <p id="move-error" class="error" role="alert">${escape(t.message)}</p>
    <div class="layout">
      <div>
        <section class="panel" aria-label="Table"><h2>Table</h2>
          <div class="row" id="melds">${v.table.map((m) => meldHtml(t, m)).join("") || `<span class="muted">No melds yet.</span>`}</div>
          <h2>Stock and discard pile</h2>${piles}
        </section>
        ${me !== undefined ? `<section class="panel" aria-label="Your hand"><h2>Your hand (${v.hand.length})</h2><div class="cards" id="hand">${hand}</div>${pending}${actions}<p id="hint" class="muted" aria-live="polite">${t.hint}</p></section>` : ""}
        <section class="panel" aria-label="Seats"><h2>Seats</h2><div class="seats">${seats}</div></section>
      </div>
      <div>
        <section class="panel" aria-label="What happened"><h2>What happened</h2><ol class="feed" id="feed" data-count="${t.feed.length}" start="${Math.max(t.feed.length - 59, 1)}">${t.feed
          .slice(-60)
          .map((x) => `<li>${escape(x)}</li>`)
          .join("")}</ol></section>
        <section class="panel" aria-label="Scores"><h2>Scores</h2>${rounds}</section>
      </div>
    </div>`;
  const feed = document.getElementById("feed");
  if (feed) feed.scrollTop = feed.scrollHeight;
  if (focusId) (app.querySelector(focusId) as HTMLElement | null)?.focus();
}

/** A selector that finds the same control again after a render. */
function focusKey(el: HTMLElement): string {
  if (el.id) return `#${el.id}`;
  for (const key of ["card", "action", "move", "layoff"]) {
    const value = el.dataset[key];
    if (value !== undefined) return `[data-${key}="${value}"]`;
  }
  return "";
}

async function act(t: Table, what: () => Promise<unknown>): Promise<void> {
  if (t.busy) return;
  t.busy = true;
  t.message = "";
  try {
    const result = (await what()) as { view?: GameView; legalMoves?: Move[] } | undefined;
    if (result?.view && t.view && result.view.version >= t.view.version) {
      t.view = { ...result.view, deck: t.view.deck, variant: t.view.variant };
    }
    t.selected.clear();
    t.hint = "";
    await refresh(t, false);
  } catch (e) {
    t.message = explain(e);
    render(t);
  } finally {
    t.busy = false;
  }
}

function selectedCards(t: Table): Card[] {
  const byId = new Map((t.view?.hand ?? []).map((c) => [c.id, c]));
  return [...t.selected].map((id) => byId.get(id)).filter((c): c is Card => c !== undefined);
}

function onClick(ev: MouseEvent): void {
  const t = table;
  const target = (ev.target as HTMLElement).closest("button");
  if (!t || !target || !t.seat) return;
  const seat = t.seat;
  if (target.dataset["card"] !== undefined && target.closest("#hand")) {
    const id = Number(target.dataset["card"]);
    if (t.selected.has(id)) t.selected.delete(id);
    else t.selected.add(id);
    render(t);
    return;
  }
  if (target.id === "stock") return void act(t, () => seat.drawFromStock());
  if (target.id === "discard-pile") return void act(t, () => seat.takeDiscard());
  if (target.dataset["layoff"] !== undefined) {
    const card = [...t.selected][0] as number;
    return void act(t, () => seat.layOff(card, Number(target.dataset["layoff"]), Number(target.dataset["end"]) as End));
  }
  if (target.dataset["swap"] !== undefined) {
    const card = [...t.selected][0] as number;
    return void act(t, () => seat.swapJoker(card, Number(target.dataset["swap"]), Number(target.dataset["joker"])));
  }
  if (target.dataset["move"] !== undefined) {
    const kind = target.dataset["move"];
    const move = t.legal?.moves.find((m) => m.move.case === kind);
    if (move) return void act(t, () => seat.play(move));
  }
  doAction(t, seat, target.dataset["action"] ?? "");
}

function doAction(t: Table, seat: Seat, action: string): void {
  switch (action) {
    case "draw":
      return void act(t, () => seat.drawFromStock());
    case "take":
      return void act(t, () => seat.takeDiscard());
    case "group": {
      const cards = selectedCards(t);
      if (cards.length) {
        t.pending.push(meldOrder(cards).map((c) => c.id as number));
        t.selected.clear();
      }
      return render(t);
    }
    case "clear-pending":
      t.pending = [];
      return render(t);
    case "lay": {
      const melds = [...t.pending];
      const cards = selectedCards(t);
      if (cards.length) melds.push(meldOrder(cards).map((c) => c.id as number));
      if (!melds.length) {
        t.message = "Select the cards of a meld first.";
        return render(t);
      }
      return void act(t, async () => {
        const r = await seat.layMelds(melds);
        t.pending = [];
        return r;
      });
    }
    case "discard": {
      const cards = [...t.selected];
      if (cards.length !== 1) {
        t.message = "Select one card to discard.";
        return render(t);
      }
      return void act(t, () => seat.discard(cards[0] as number));
    }
    case "knock": {
      const knock = t.legal?.hint?.bestKnock ?? movesOf(t.legal ?? { moves: [] }, "knock")[0];
      if (knock) return void act(t, () => seat.knock(knock.discardCardId, knock.melds.map((m) => m.cardIds)));
      return;
    }
    case "resign":
      if (confirm("Leave the match?")) void act(t, () => seat.resign());
      return;
    case "hint":
      return void showHint(t);
    case "lay-hint": {
      const melds = t.hintMelds;
      if (melds.length) void act(t, () => seat.layMelds(melds));
      return;
    }
  }
}

async function showHint(t: Table): Promise<void> {
  if (!t.seat) return;
  try {
    const legal = t.legal ?? (await t.seat.legalMoves());
    const hint = legal.hint;
    const parts: string[] = [];
    if (!legal.moves.length) parts.push("Not your turn.");
    if (legal.moves.some((m) => m.move.case === "drawFromStock")) parts.push("Draw a card first.");
    if (hint?.bestOpening) {
      parts.push(
        `You can open with ${hint.bestOpening.value}: ${hint.bestOpening.melds.map((m) => m.cards.map(cardLabelShort).join(" ")).join(" | ")} (highlighted).`,
      );
    }
    if (hint?.minDeadwood) parts.push(`Least deadwood: ${hint.minDeadwood.value}.`);
    if (hint?.suggestedDiscard) parts.push(`Suggested discard: ${cardLabelShort(hint.suggestedDiscard)}.`);
    const offs = movesOf(legal, "layOff");
    if (offs.length) parts.push(`${offs.length} lay-off${offs.length > 1 ? "s" : ""} possible (cards underlined).`);
    t.hint = escape(parts.join(" ") || "No hint.");
    t.hintMelds = [];
    if (hint?.bestOpening && legal.moves.some((m) => m.move.case === "layMelds")) {
      t.hintMelds = handIds(t.view?.hand ?? [], hint.bestOpening.melds.map((m) => m.cards));
      t.hint += ` <button type="button" class="legal" data-action="lay-hint">Lay these melds</button>`;
    }
    if (hint?.suggestedDiscard?.id !== undefined && legal.moves.some((m) => m.move.case === "discard") && !hint.bestOpening) {
      t.selected = new Set([hint.suggestedDiscard.id]);
    }
  } catch (e) {
    t.hint = escape(explain(e));
  }
  render(t);
}

/** The hand's card ids of the hint's melds (the meld search names cards by code). */
function handIds(hand: Card[], melds: Card[][]): number[][] {
  const used = new Set<number>();
  return melds.map((cards) =>
    cards.map((c) => {
      const found = hand.find((h) => h.code === c.code && h.id !== undefined && !used.has(h.id) && (c.id === undefined || c.id === h.id));
      const id = found?.id ?? -1;
      used.add(id);
      return id;
    }),
  );
}

function cardLabelShort(c: Card): string {
  return c.joker ? "🃏" : `${rankText(c.rank)}${suitSymbol(c.suit)}`;
}

function onKey(ev: KeyboardEvent): void {
  const t = table;
  if (!t?.seat || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) return;
  const keys: Record<string, string> = { d: "draw", t: "take", g: "group", m: "lay", x: "discard", h: "hint" };
  const action = keys[ev.key];
  if (action) {
    ev.preventDefault();
    doAction(t, t.seat, action);
  }
}

// --- routing -------------------------------------------------------------------

function route(): void {
  if (lobbyTimer !== undefined) window.clearInterval(lobbyTimer);
  lobbyTimer = undefined;
  table?.abort.abort();
  table = undefined;
  const [, page, id] = location.hash.split("/");
  if ((page === "play" || page === "watch") && id) void showTable(id, page === "watch");
  else void showLobby();
  app.focus();
}

app.addEventListener("click", onClick);
document.addEventListener("keydown", onKey);
window.addEventListener("hashchange", route);
route();
