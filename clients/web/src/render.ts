/** The table drawn from a {@link TableState}: one function per panel. */
import {
  End,
  GameStatus,
  MeldKind,
  Scoring,
  TurnPhase,
  groupBySuit,
  isRed,
  movesOf,
  sortCards,
  suitSymbol,
  type Card,
  type GameView,
  type Move,
  type TableMeld,
} from "@ramino/client/web";
import { hintedDiscard, type TableState } from "./state.ts";
import { cardLabel, codeText, describeEvent, endingText, escape, names, reasonText, roundEndText, scorePartsText, seatName, variantName } from "./text.ts";
import { cards, t } from "./words.ts";

/** What the person is doing on the page, besides the game's state. */
export interface Ui {
  spectating: boolean;
  live: boolean;
  selected: Set<number>;
  pending: number[][];
  message: string;
  hint: string;
  hintMelds: number[][];
  knocking: boolean;
}

export function legalKinds(s: TableState): Set<string> {
  return new Set((s.legal?.moves ?? []).map((m) => m.move.case ?? ""));
}

function rankText(rank: number): string {
  return { 1: "A", 11: "J", 12: "Q", 13: "K" }[rank] ?? String(rank);
}

export function cardShort(c: Card): string {
  return c.joker ? "🃏" : `${rankText(c.rank)}${suitSymbol(c.suit)}`;
}

interface CardOpts {
  button?: boolean;
  pressed?: boolean;
  classes?: string[];
  note?: string;
  from?: string;
}

export function cardHtml(card: Card, opts: CardOpts = {}): string {
  const classes = ["card", card.joker ? "joker" : isRed(card.suit) ? "red" : "", ...(opts.classes ?? [])].filter(Boolean);
  const label = cardLabel(card) + (opts.note ? ` (${opts.note})` : "");
  const face = `<span aria-hidden="true">${cardShort(card)}${opts.note ? `<small>${escape(opts.note)}</small>` : ""}</span>`;
  const from = opts.from ? ` data-from="${opts.from}"` : "";
  if (opts.button) {
    // Named by its words (a hidden span), not by an aria-label that differs from the face.
    return `<button type="button" class="${classes.join(" ")}" data-card="${card.id}" aria-pressed="${opts.pressed ? "true" : "false"}"${from}>${face}<span class="sr-only">${escape(label)}</span></button>`;
  }
  return `<span class="${classes.join(" ")}" role="img" aria-label="${escape(label)}"${from}>${face}</span>`;
}

function isGin(v: GameView): boolean {
  return v.variant?.parameters?.knocking === true || v.variant?.name === "gin";
}

function meldTargets(s: TableState, cardId: number, meldIndex: number): Move[] {
  return (s.legal?.moves ?? []).filter(
    (mv) =>
      (mv.move.case === "layOff" || mv.move.case === "swapJoker") &&
      mv.move.value.cardId === cardId &&
      mv.move.value.meldIndex === meldIndex,
  );
}

function meldHtml(s: TableState, ui: Ui, m: TableMeld, fresh: boolean): string {
  const v = s.view as GameView;
  const meld = m.meld;
  if (!meld) return "";
  const jokers = new Map(meld.jokers.map((j) => [j.index, j.standsFor.map(codeText).join("/")]));
  const cardsHtml = meld.cards.map((c, i) => cardHtml(c, jokers.has(i) ? { note: `= ${jokers.get(i)}` } : {})).join("");
  const selected = [...ui.selected];
  const only = selected.length === 1 ? (selected[0] as number) : undefined;
  const chosen = v.hand.find((c) => c.id === only);
  const targets = only !== undefined && chosen ? meldTargets(s, only, m.index) : [];
  const n = m.index + 1;
  const buttons = targets
    .map((mv) => {
      if (mv.move.case === "layOff") {
        const isRun = meld.kind === MeldKind.RUN;
        const label = isRun
          ? t("act.layOffAt", { card: cardShort(chosen as Card), end: t(mv.move.value.end === End.FIRST ? "end.start" : "end.end"), n })
          : t("act.layOffOn", { card: cardShort(chosen as Card), n });
        return `<button type="button" class="legal" data-layoff="${m.index}" data-end="${mv.move.value.end}">${escape(label)}</button>`;
      }
      if (mv.move.case === "swapJoker") {
        return `<button type="button" class="legal" data-swap="${m.index}" data-joker="${mv.move.value.jokerId}">${escape(t("act.swap", { card: cardShort(chosen as Card), n }))}</button>`;
      }
      return "";
    })
    .join("");
  const kind = t(meld.kind === MeldKind.RUN ? "table.run" : "table.set");
  return `<div class="meld${targets.length ? " target" : ""}${fresh ? " fresh" : ""}" data-meld="${m.index}" role="group" aria-label="${escape(`${t("table.meld", { n })}, ${kind}, ${seatName(v, m.owner)}`)}">
    <span class="owner"><strong class="meld-no">${n}</strong> ${escape(seatName(v, m.owner))} · ${kind}</span>
    <div class="cards">${cardsHtml}</div>${buttons ? `<div class="row">${buttons}</div>` : ""}</div>`;
}

function pilesHtml(s: TableState, ui: Ui, kinds: Set<string>): string {
  const v = s.view as GameView;
  const top = v.discardPile[v.discardPile.length - 1];
  const draw = ui.live && kinds.has("drawFromStock");
  const take = ui.live && kinds.has("takeDiscard");
  const stockLabel = t(draw ? "table.stockDraw" : "table.stock", { cards: cards(v.stockSize) });
  const stock = ui.spectating
    ? `<span class="card back" role="img" aria-label="${escape(stockLabel)}">${v.stockSize}</span>`
    : `<button type="button" id="stock" class="card back${draw ? " legal" : ""}" aria-label="${escape(stockLabel)}"${draw ? "" : " disabled"}>${v.stockSize}</button>`;
  let pile: string;
  if (!top) {
    pile = `<span class="muted">${escape(t("table.discardEmpty"))}</span>`;
  } else {
    const label = t(take ? "table.discardTake" : "table.discardTop", { cards: cards(v.discardPile.length), card: cardLabel(top) });
    pile = ui.spectating
      ? `<span id="discard-pile" role="img" aria-label="${escape(label)}">${cardHtml(top)}</span>`
      : `<button type="button" id="discard-pile" class="card pile ${top.joker ? "joker" : isRed(top.suit) ? "red" : ""}${take ? " legal" : ""}"${take ? "" : " disabled"}><span aria-hidden="true">${cardShort(top)}</span><span class="sr-only">${escape(label)}</span></button>`;
    pile += ` <span class="muted">${escape(t("table.discardCount", { cards: cards(v.discardPile.length) }))}</span>`;
  }
  return `<div class="row piles">${stock}${pile}</div>`;
}

function seatsHtml(v: GameView, gin: boolean): string {
  return v.seats
    .map((x) => {
      const me = v.seat === x.seat;
      const classes = ["seat", v.turn === x.seat ? "turn" : "", me ? "me" : ""].filter(Boolean).join(" ");
      const name = seatName(v, x.seat);
      const who = me ? t("seat.you", { name }) : name;
      const opened = gin ? (v.knocker === x.seat ? t("seat.knocker") : "") : t(x.opened ? "seat.opened" : "seat.notOpened");
      const bits = [cards(x.handSize), opened, t("seat.total", { n: x.total }), x.resigned ? t("seat.resigned") : "", v.turn === x.seat ? `<em>${escape(t("seat.toPlay"))}</em>` : ""]
        .filter(Boolean)
        .map((b) => (b.startsWith("<em>") ? b : escape(b)));
      return `<div class="${classes}" data-seat="${x.seat}"><strong>${escape(who)}</strong><br>${bits.join(" · ")}</div>`;
    })
    .join("");
}

/** The person's layout: the hint's melds and deadwood on the hand. */
function layoutHtml(s: TableState): string {
  const d = s.legal?.hint?.minDeadwood;
  if (!d) return "";
  const melds = d.melds.map((m) => m.cards.map(cardShort).join(" ")).join(" | ") || "—";
  const dead = d.deadwood.map(cardShort).join(" ") || "—";
  return `<p class="layout-line" id="my-layout">${escape(t("hand.layout", { melds, deadwood: dead, value: d.value }))}</p>`;
}

/** The hand's card ids of the hint's melds (the meld search names cards by code). */
export function handIds(hand: Card[], melds: Card[][]): number[][] {
  const used = new Set<number>();
  return melds.map((meld) =>
    meld.map((c) => {
      const found = hand.find((h) => h.code === c.code && h.id !== undefined && !used.has(h.id) && (c.id === undefined || c.id === h.id));
      const id = found?.id ?? -1;
      used.add(id);
      return id;
    }),
  );
}

function handHtml(s: TableState, ui: Ui, fresh: Set<number>): string {
  const v = s.view as GameView;
  const hintMelds = new Set(ui.hintMelds.flat());
  const hinted = ui.hint ? hintedDiscard(s) : undefined;
  const layable = new Set(movesOf(s.legal ?? { moves: [] }, "layOff").map((m) => m.cardId));
  const pending = new Set(ui.pending.flat());
  const groups = groupBySuit(sortCards(v.hand.filter((c) => !pending.has(c.id ?? -1))));
  return [...groups.values()]
    .map(
      (group) =>
        `<div class="suit-group">${group
          .map((c) =>
            cardHtml(c, {
              button: true,
              pressed: ui.selected.has(c.id ?? -1),
              classes: [
                hintMelds.has(c.id ?? -1) ? "hinted" : "",
                layable.has(c.id ?? -1) ? "layable" : "",
                hinted === c.id ? "suggested" : "",
                fresh.has(c.id ?? -1) ? "fresh" : "",
              ],
            }),
          )
          .join("")}</div>`,
    )
    .join("");
}

function actionsHtml(s: TableState, ui: Ui, kinds: Set<string>): string {
  const v = s.view as GameView;
  if (v.status !== GameStatus.PLAYING) return "";
  const gin = isGin(v);
  const live = ui.live;
  const on = (k: string, extra = true): string => (live && kinds.has(k) && extra ? " legal" : "");
  const dis = (k: string): string => (live && kinds.has(k) ? "" : " disabled");
  const b = (attrs: string, cls: string, label: string, key?: string): string =>
    `<button type="button" ${attrs} class="${cls.trim()}"${key ? ` aria-keyshortcuts="${key}" title="${key}"` : ""}>${escape(label)}</button>`;
  const out: string[] = [];
  const upcard = kinds.has("passUpcard");
  if (kinds.has("drawFromStock") || !gin || !upcard) out.push(b(`data-action="draw"${dis("drawFromStock")}`, on("drawFromStock"), t("act.draw"), "d"));
  out.push(b(`data-action="take"${dis("takeDiscard")}`, on("takeDiscard"), t(upcard ? "act.takeUpcard" : "act.take"), "t"));
  if (kinds.has("passUpcard")) out.push(b(`data-move="passUpcard"${dis("passUpcard")}`, on("passUpcard"), t("act.pass"), "p"));
  if (kinds.has("turnOverDiscardPile")) out.push(b(`data-move="turnOverDiscardPile"`, on("turnOverDiscardPile"), t("act.turnOver")));
  if (!gin) {
    out.push(b(`data-action="group"${kinds.has("layMelds") && live ? "" : " disabled"}`, "", t("act.group"), "g"));
    out.push(b(`data-action="lay"${dis("layMelds")}`, on("layMelds", ui.pending.length > 0 || ui.selected.size > 2), t("act.lay"), "m"));
  }
  if (v.phase !== TurnPhase.LAYOFF) out.push(b(`data-action="discard"${dis("discard")}`, on("discard", ui.selected.size === 1), t("act.discard"), "x"));
  if (gin && kinds.has("knock")) out.push(b(`data-action="knock"${dis("knock")}`, on("knock"), t("act.knock"), "k"));
  if (kinds.has("acceptLayout")) out.push(b(`data-move="acceptLayout"${dis("acceptLayout")}`, on("acceptLayout"), t("act.accept"), "a"));
  out.push(b(`data-action="hint"`, "", t("act.hint"), "h"));
  out.push(b(`data-action="resign"${live ? "" : " disabled"}`, "", t("act.resign")));
  return `<div class="row actions" role="toolbar" aria-label="${escape(t("act.moves"))}">${out.join("")}</div>`;
}

/** Gin's knock: the chosen discard, and the melds and deadwood it leaves. */
function knockHtml(s: TableState, ui: Ui): string {
  if (!ui.knocking) return "";
  const knocks = movesOf(s.legal ?? { moves: [] }, "knock");
  const only = ui.selected.size === 1 ? [...ui.selected][0] : s.legal?.hint?.bestKnock?.discardCardId;
  const knock = knocks.find((k) => k.discardCardId === only) ?? (only === undefined ? knocks[0] : undefined);
  const hand = (s.view as GameView).hand;
  if (!knock) return `<div class="panel knock" id="knock-preview" role="region" aria-label="${escape(t("act.knock"))}"><p>${escape(t("knock.none"))}</p>${`<button type="button" data-action="knock-cancel">${escape(t("act.cancel"))}</button>`}</div>`;
  const byId = new Map(hand.map((c) => [c.id, c]));
  const used = new Set(knock.melds.flatMap((m) => m.cardIds));
  const melds = knock.melds.map((m) => m.cardIds.map((id) => cardShort(byId.get(id) as Card)).join(" ")).join(" | ") || "—";
  const dead = hand.filter((c) => c.id !== knock.discardCardId && !used.has(c.id ?? -1)).map(cardShort).join(" ") || "—";
  const discard = knock.discardCardId === undefined ? undefined : byId.get(knock.discardCardId);
  const label = discard ? t("act.knockConfirm", { card: cardShort(discard) }) : t("act.gin");
  return `<div class="panel knock" id="knock-preview" role="region" aria-label="${escape(t("act.knock"))}">
    <p>${escape(t("knock.preview", { card: discard ? cardShort(discard) : "—", melds, deadwood: dead, value: knock.deadwood }))}</p>
    <div class="row"><button type="button" class="primary" data-knock="${knock.discardCardId ?? ""}">${escape(label)}</button>
    <button type="button" data-action="knock-cancel">${escape(t("act.cancel"))}</button></div></div>`;
}

export function statusText(s: TableState, ui: Ui): string {
  const now = turnStatusText(s, ui);
  const sum = s.summary;
  // A round that has just ended says so, and who won it, until its summary is dismissed.
  return sum && !sum.dismissed ? `${roundEndText(sum.round, sum.ending, sum.winner, s.view)} ${now}` : now;
}

function turnStatusText(s: TableState, ui: Ui): string {
  const v = s.view as GameView;
  if (!ui.live && v.status === GameStatus.PLAYING) return t("status.down");
  if (v.status === GameStatus.WAITING) return t("status.waiting");
  if (v.status === GameStatus.FINISHED) return t("status.over");
  if (v.turn === undefined) return t("status.between");
  const me = v.seat;
  if (me === undefined || v.turn !== me) {
    return v.phase === TurnPhase.LAYOFF
      ? t("status.otherLayoff", { who: seatName(v, v.turn) })
      : v.knocker === me && me !== undefined
        ? t("status.knockedWait", { who: seatName(v, v.turn) })
        : t("status.other", { who: seatName(v, v.turn) });
  }
  const kinds = legalKinds(s);
  if (v.phase === TurnPhase.LAYOFF) return t("status.layoff", { knocker: seatName(v, v.knocker) });
  if (kinds.has("passUpcard")) return t("status.upcard");
  if (kinds.has("turnOverDiscardPile") && !kinds.has("drawFromStock")) return t("status.turnOver");
  if (v.phase === TurnPhase.DRAW) return t("status.draw");
  return t(isGin(v) ? "status.playGin" : "status.play");
}

function scoringNote(v: GameView): string {
  const high = v.variant?.parameters?.scoring === Scoring.WINNER_COLLECTS || isGin(v);
  return `<p class="muted scoring">${escape(t(high ? "scores.high" : "scores.low"))}</p>`;
}

function scoresHtml(v: GameView): string {
  if (!v.rounds.length) return `<p class="muted">${escape(t("scores.none"))}</p>${scoringNote(v)}`;
  const head = v.seats.map((x) => `<th scope="col">${escape(seatName(v, x.seat))}</th>`).join("");
  const rows = v.rounds
    .map((r) => {
      // Each score with what it is made of, as the server said, on hover and to a screen reader.
      const cell = (x: number, i: number): string => {
        const why = scorePartsText(r.parts[i]?.parts, v);
        return why ? `<td title="${escape(why)}"><span aria-hidden="true">${x}</span><span class="sr-only">${x} (${escape(why)})</span></td>` : `<td>${x}</td>`;
      };
      return `<tr><th scope="row">${r.round}</th>${r.scores.map(cell).join("")}<td>${escape(endingText(r.ending))}</td></tr>`;
    })
    .join("");
  return `<table class="scores"><thead><tr><th scope="col">${escape(t("scores.round"))}</th>${head}<th scope="col">${escape(t("scores.ending"))}</th></tr></thead><tbody>
    ${rows}<tr><th scope="row">${escape(t("scores.total"))}</th>${v.seats.map((x) => `<th>${x.total}</th>`).join("")}<td></td></tr></tbody></table>${scoringNote(v)}`;
}

function summaryHtml(s: TableState): string {
  const v = s.view as GameView;
  const sum = s.summary;
  const over = v.status === GameStatus.FINISHED;
  if (!sum || (sum.dismissed && !over)) {
    if (!over) return "";
    const who = names(v.winners.map((w) => seatName(v, w)));
    return `<section class="panel summary" id="summary" aria-labelledby="summary-title"><h2 id="summary-title" tabindex="-1">${escape(t("summary.match"))}</h2>
      <p>${escape(who ? t("summary.matchWinners", { who }) : t("summary.matchNone"))}${v.endReason ? ` (${escape(reasonText(v.endReason))})` : ""}</p>${scoresHtml(v)}</section>`;
  }
  const how = endingText(sum.ending);
  const line = sum.winner === undefined ? t("summary.noWinner", { how }) : t("summary.winner", { who: seatName(v, sum.winner), how });
  const rows = v.seats
    .map((x, i) => {
      const hand = (sum.hands[i] ?? []).map((id) => codeText(s.deck[id])).join(" ") || "—";
      // Each score as the server made it up; at the match's end, each total too (its bonuses).
      const bonuses = sum.matchParts?.[i]?.length ? ` <span class="score-parts">(${escape(scorePartsText(sum.matchParts[i], v))})</span>` : "";
      return `<tr><th scope="row">${escape(seatName(v, x.seat))}</th><td class="hand-left">${escape(hand)}</td><td>${sum.scores[i] ?? 0}</td><td class="score-parts">${escape(scorePartsText(sum.parts[i], v))}</td><td>${sum.totals[i] ?? x.total}${bonuses}</td></tr>`;
    })
    .join("");
  const matchLine = over
    ? `<p><strong>${escape(v.winners.length ? t("summary.matchWinners", { who: names(v.winners.map((w) => seatName(v, w))) }) : t("summary.matchNone"))}</strong></p>`
    : v.round > sum.round
      ? `<p>${escape(t("summary.next", { n: v.round }))}</p>`
      : "";
  const title = over ? t("summary.match") : t("summary.round", { n: sum.round });
  return `<section class="panel summary" id="summary" aria-labelledby="summary-title">
    <h2 id="summary-title" tabindex="-1">${escape(title)}</h2><p id="summary-line">${escape(line)}</p>
    <table class="scores"><thead><tr><th scope="col"></th><th scope="col">${escape(t("summary.hand"))}</th><th scope="col">${escape(t("summary.score"))}</th><th scope="col">${escape(t("summary.parts"))}</th><th scope="col">${escape(t("summary.total"))}</th></tr></thead><tbody>${rows}</tbody></table>
    ${scoringNote(v)}${matchLine}${over ? "" : `<button type="button" class="primary" data-action="dismiss">${escape(t("act.continue"))}</button>`}</section>`;
}

function feedHtml(s: TableState): string {
  const v = s.view;
  const lines = s.events.slice(-60);
  const start = Math.max(s.events.length - 59, 1);
  return `<ol class="feed" id="feed" data-count="${s.events.length}" start="${start}" tabindex="0" aria-label="${escape(t("feed.title"))}">${lines
    .map((e) => `<li data-version="${e.version}">${escape(describeEvent(e, v, s.deck))}</li>`)
    .join("")}</ol>`;
}

export interface Fresh {
  cards: Set<number>;
  melds: Set<number>;
}

/** The table as HTML. */
export function tableHtml(s: TableState, ui: Ui, id: string, fresh: Fresh): string {
  const v = s.view as GameView;
  const kinds = legalKinds(s);
  const gin = isGin(v);
  const mine = !ui.spectating && v.seat !== undefined;
  const pendingIds = ui.pending.map((m) => m.map((x) => codeText(s.deck[x])).join(" ")).join(" | ");
  const pending = ui.pending.length
    ? `<p class="pending">${escape(t("hand.pending", { melds: pendingIds }))} <button type="button" data-action="clear-pending">${escape(t("hand.takeBack"))}</button></p>`
    : "";
  const hand = mine
    ? `<section class="panel hand-panel" aria-labelledby="hand-title"><h2 id="hand-title">${escape(t("hand.title", { cards: cards(v.hand.length) }))}</h2>
      <div class="cards" id="hand" role="group" aria-labelledby="hand-title">${handHtml(s, ui, fresh.cards)}</div>${pending}${gin ? layoutHtml(s) : ""}
      ${knockHtml(s, ui)}${actionsHtml(s, ui, kinds)}<p id="hint" class="muted" aria-live="polite">${ui.hint}</p></section>`
    : "";
  const melds = v.table.map((m) => meldHtml(s, ui, m, fresh.melds.has(m.index))).join("") || `<span class="muted">${escape(t("table.noMelds"))}</span>`;
  return `
    <p class="row gameline"><a href="#/">${escape(t("lobby"))}</a> <span>${escape(t("gameLine", { id: id.slice(0, 8), variant: variantName(v.variant?.name ?? ""), round: v.round }))}</span>
      ${ui.spectating ? `<strong class="spectating">${escape(t("spectating"))}</strong>` : ""}</p>
    <p id="status" aria-live="polite" class="${!ui.live ? "down" : ""}">${escape(statusText(s, ui))}</p>
    <p id="move-error" class="error" role="alert">${escape(ui.message)}</p>
    ${summaryHtml(s)}
    <div class="layout">
      <div class="main-col">
        ${hand}
        <section class="panel" aria-labelledby="table-title"><h2 id="table-title">${escape(t("table.title"))}</h2>
          <div class="row" id="melds">${melds}</div>
          <h3 class="piles-title">${escape(t("table.piles"))}</h3>${pilesHtml(s, ui, kinds)}
        </section>
      </div>
      <div class="side-col">
        <section class="panel feed-panel" aria-labelledby="feed-title"><h2 id="feed-title">${escape(t("feed.title"))}</h2>${feedHtml(s)}</section>
        <section class="panel" aria-labelledby="seats-title"><h2 id="seats-title">${escape(t("seats.title"))}</h2><div class="seats">${seatsHtml(v, gin)}</div></section>
        <section class="panel" aria-labelledby="scores-title"><h2 id="scores-title">${escape(t("scores.title"))}</h2>${scoresHtml(v)}</section>
      </div>
    </div>`;
}
