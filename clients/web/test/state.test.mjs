// The table's state folded from the watch's events and the moves' answers
// (src/state.ts), and the words of every language (src/words.ts), compiled
// by `npm run test:unit` into build/unit.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { End, GameStatus, MeldKind, ScorePartKind, Suit, TurnPhase, cardName } from "@ramino/client/web";
import {
  applyEvent,
  applyLegal,
  applyMoveResult,
  applyView,
  emptyState,
  hintedDiscard,
  needsLegalMoves,
} from "../build/unit/state.js";
import { cardLabel, describeEvent, roundEndText, scorePartsText } from "../build/unit/text.js";
import { COUNTED_KEYS, KEYS, LANGS, asLang, browserLang, cards, count, countedOf, pluralOf, setLang, tableOf } from "../build/unit/words.js";

// Card ids 0..7 of a small deck.
const DECK = ["7H", "8H", "9H", "JK", "5S", "5D", "KC", "2C"];

function card(id) {
  const code = DECK[id];
  const suits = { S: Suit.SPADES, H: Suit.HEARTS, D: Suit.DIAMONDS, C: Suit.CLUBS };
  const joker = code === "JK";
  return { id, code, rank: joker ? 0 : code[0] === "K" ? 13 : Number(code[0]), suit: joker ? Suit.UNSPECIFIED : suits[code[1]], joker };
}

/** A card of any code: rank, suit and joker as the SDK gives them. */
function parse(code) {
  const suits = { S: Suit.SPADES, H: Suit.HEARTS, D: Suit.DIAMONDS, C: Suit.CLUBS };
  const ranks = { A: 1, T: 10, J: 11, Q: 12, K: 13 };
  if (code === "JK") return { code, rank: 0, suit: Suit.UNSPECIFIED, joker: true };
  return { code, rank: ranks[code[0]] ?? Number(code[0]), suit: suits[code[1]], joker: false };
}

function seatView(seat, handSize) {
  return { seat, playerName: seat === 0 ? "Ada" : "", bot: seat === 0 ? 0 : 2, taken: true, handSize, opened: false, total: 0, resigned: false, timedOut: false };
}

/** Seat 0's view at version 10: seat 1 to draw. */
function view(extra = {}) {
  return {
    name: "games/g",
    version: 10n,
    status: GameStatus.PLAYING,
    variant: { name: "rummy", parameters: { knocking: false } },
    seat: 0,
    hand: [card(0), card(1), card(4)],
    seats: [seatView(0, 3), seatView(1, 4)],
    table: [],
    discardPile: [card(7)],
    stockSize: 20,
    turn: 1,
    phase: TurnPhase.DRAW,
    round: 1,
    dealer: 0,
    winners: [],
    rounds: [],
    deck: DECK,
    endReason: "",
    ...extra,
  };
}

const ev = (version, seat, kase, value) => ({ version, seat, event: { case: kase, value } });
/** An event that says whose turn it is after it, as servers since issue 21 do. */
const evTurn = (version, seat, turn, kase, value) => ({ ...ev(version, seat, kase, value), turn });
/** SeatOptions as the watch, a move's answer and GetLegalMoves give them. */
const options = (version, turn, moves) => ({ version, turn, moves, hint: undefined });
const DRAW = { move: { case: "drawFromStock", value: {} } };
const TAKE = { move: { case: "takeDiscard", value: {} } };
const DISCARD = { move: { case: "discard", value: { cardId: 5 } } };

describe("the table's state, folded", () => {
  test("a bot's draw and discard move the piles and give the turn back", () => {
    const s = emptyState();
    applyView(s, view());
    assert.equal(needsLegalMoves(s), false);
    applyEvent(s, ev(11n, 1, "drewFromStock", {}));
    assert.equal(s.view.stockSize, 19);
    assert.equal(s.view.seats[1].handSize, 5);
    assert.equal(s.view.phase, TurnPhase.PLAY);
    applyEvent(s, ev(12n, 1, "discarded", { cardId: 6 }));
    assert.deepEqual(s.view.discardPile.map((c) => c.code), ["2C", "KC"]);
    assert.equal(s.view.seats[1].handSize, 4);
    assert.equal(s.view.turn, 0);
    assert.equal(s.view.phase, TurnPhase.DRAW);
    assert.equal(s.view.version, 12n);
    assert.equal(s.stale, false);
    // The person's turn: the page asks for its legal moves, once.
    assert.equal(needsLegalMoves(s), true);
    applyLegal(s, { version: 12n, moves: [{ move: { case: "drawFromStock", value: {} } }], hint: undefined });
    assert.equal(needsLegalMoves(s), false);
    assert.deepEqual(s.events.map((e) => e.version), [11n, 12n]);
  });

  test("a move's answer is the view; its events, watched after, join the feed once and are not folded again", () => {
    const s = emptyState();
    applyView(s, view({ turn: 0 }));
    const drew = ev(11n, 0, "drewFromStock", { cardId: 5 });
    const after = view({ version: 11n, turn: 0, phase: TurnPhase.PLAY, stockSize: 19, hand: [card(0), card(1), card(4), card(5)], deck: [] });
    applyMoveResult(s, { events: [drew], view: after, legalMoves: [{ move: { case: "discard", value: { cardId: 5 } } }], hint: undefined });
    assert.equal(s.view.hand.length, 4);
    assert.deepEqual(s.deck, DECK, "a move's answer has no deck: the known one stays");
    assert.equal(needsLegalMoves(s), false, "the answer's legal moves are used");
    applyEvent(s, drew); // the same event, from the watch
    assert.equal(s.view.hand.length, 4);
    assert.equal(s.view.stockSize, 19);
    assert.equal(s.events.length, 1);
  });

  test("history replayed after a load fills the feed without changing the view", () => {
    const s = emptyState();
    applyView(s, view());
    for (let v = 1n; v <= 10n; v++) applyEvent(s, ev(v, 1, "passedUpcard", {}));
    assert.equal(s.events.length, 10);
    assert.equal(s.view.turn, 1);
    assert.equal(s.view.version, 10n);
  });

  test("melds laid by another seat join the table numbered, with their jokers; a lay-off at the start", () => {
    const s = emptyState();
    applyView(s, view({ turn: 1, phase: TurnPhase.PLAY }));
    const run = { kind: MeldKind.RUN, value: 24, jokers: [{ index: 1, standsFor: ["8H"] }], closed: false, pure: false };
    applyEvent(s, ev(11n, 1, "meldsLaid", { melds: [{ cardIds: [0, 3, 2] }], opening: true, described: [run] }));
    const m = s.view.table[0];
    assert.equal(m.index, 0);
    assert.equal(m.owner, 1);
    assert.equal(m.meld.kind, MeldKind.RUN);
    assert.equal(m.meld.value, 24);
    assert.deepEqual(m.meld.jokers.map((j) => [j.index, j.standsFor]), [[1, ["8H"]]]);
    assert.equal(s.view.seats[1].opened, true);
    assert.equal(s.view.seats[1].handSize, 1);
    assert.equal(s.view.hand.length, 3, "another seat's cards leave its hand, not the person's");
    // The server's description of the meld the lay-off made, whatever its cards (the page works out nothing).
    const after = { kind: MeldKind.RUN, value: 29, jokers: [{ index: 2, standsFor: ["8H"] }], closed: false, pure: false };
    applyEvent(s, ev(12n, 0, "laidOff", { cardId: 4, meldIndex: 0, end: End.FIRST, described: after }));
    assert.equal(s.view.table[0].meld.value, 29);
    assert.deepEqual(s.view.table[0].meld.jokers.map((j) => [j.index, j.standsFor]), [[2, ["8H"]]]);
    assert.deepEqual(s.view.table[0].meld.cards.map((c) => c.code), ["5S", "7H", "JK", "9H"]);
    assert.deepEqual(s.view.hand.map((c) => c.id), [0, 1]);
  });

  test("a set laid with a joker is what the server described: its kind, its joker's role, closed and pure", () => {
    const s = emptyState();
    applyView(s, view({ turn: 1, phase: TurnPhase.PLAY }));
    const set = { kind: MeldKind.SET, value: 15, jokers: [{ index: 2, standsFor: ["5H", "5C"] }], closed: false, pure: false };
    applyEvent(s, ev(11n, 1, "meldsLaid", { melds: [{ cardIds: [4, 5, 3] }], opening: false, described: [set] }));
    assert.equal(s.stale, false);
    const meld = s.view.table[0].meld;
    assert.equal(meld.kind, MeldKind.SET);
    assert.deepEqual(meld.cards.map((c) => c.code), ["5S", "5D", "JK"]);
    assert.deepEqual(meld.jokers.map((j) => [j.index, j.standsFor]), [[2, ["5H", "5C"]]]);
    assert.equal(meld.closed, false);
    assert.equal(meld.pure, false);
  });

  test("melds an event does not describe (logged before the server said) are not worked out: the view is fetched", () => {
    const s = emptyState();
    applyView(s, view({ turn: 1, phase: TurnPhase.PLAY }));
    applyEvent(s, ev(11n, 1, "meldsLaid", { melds: [{ cardIds: [4, 5, 3] }], opening: false, described: [] }));
    assert.equal(s.stale, true);
    assert.equal(s.view.version, 10n, "the view is left as it was");
    assert.equal(s.view.table.length, 0);
  });

  test("a round's end makes a summary and its scores; the next round deals the person's hand", () => {
    const s = emptyState();
    applyView(s, view());
    applyEvent(s, ev(11n, undefined, "roundEnded", { round: 1, ending: "went_out", winner: 1, closedHand: false, scores: [-12, 12], hands: [{ cardIds: [0, 1, 4] }, { cardIds: [] }] }));
    assert.equal(s.summary.winner, 1);
    assert.deepEqual(s.summary.totals, [-12, 12]);
    assert.equal(s.summary.dismissed, false);
    assert.equal(s.view.rounds.length, 1);
    assert.equal(s.view.turn, undefined);
    applyEvent(s, ev(12n, undefined, "roundStarted", { round: 2, dealer: 1, firstPlayer: 0, hand: [6, 7], handSizes: [2, 2], upcard: 2, stockSize: 3 }));
    assert.deepEqual(s.view.hand.map((c) => c.code), ["KC", "2C"]);
    assert.deepEqual(s.view.discardPile.map((c) => c.code), ["9H"]);
    assert.equal(s.view.round, 2);
    assert.equal(needsLegalMoves(s), true);
    applyEvent(s, ev(13n, undefined, "matchEnded", { totals: [-12, 12], winners: [1] }));
    assert.equal(s.view.status, GameStatus.FINISHED);
    assert.deepEqual(s.summary.matchWinners, [1]);
  });

  test("a round ended by the person's own move keeps its summary when the watch brings the event after the answer", () => {
    const s = emptyState();
    applyView(s, view({ turn: 0, phase: TurnPhase.DISCARD }));
    const ended = ev(11n, 0, "roundEnded", { round: 1, ending: "went_out", winner: 0, closedHand: false, scores: [0, 12], hands: [{ cardIds: [] }, { cardIds: [5, 6] }] });
    const after = view({ version: 11n, hand: [], turn: undefined, phase: TurnPhase.NONE, seats: [{ ...seatView(0, 0), total: 0 }, { ...seatView(1, 2), total: 12 }] });
    applyMoveResult(s, { view: after, events: [ended], legalMoves: [], hint: undefined });
    assert.equal(s.summary.winner, 0);
    assert.equal(s.summary.dismissed, false);
    assert.deepEqual(s.summary.totals, [0, 12]);
    applyEvent(s, ended);
    assert.equal(s.summary.dismissed, false, "the watch's copy of the event hid the summary");
    assert.equal(s.events.length, 1);
  });

  test("a round's end replayed from history after a load starts dismissed", () => {
    const s = emptyState();
    applyView(s, view({ version: 12n, round: 2 }));
    applyEvent(s, ev(11n, undefined, "roundEnded", { round: 1, ending: "went_out", winner: 1, closedHand: false, scores: [-12, 12], hands: [] }));
    assert.equal(s.summary.round, 1);
    assert.equal(s.summary.dismissed, true);
  });

  test("a gap in the versions, or an event the page cannot fold, marks the view stale", () => {
    const s = emptyState();
    applyView(s, view());
    applyEvent(s, ev(12n, 1, "drewFromStock", {}));
    assert.equal(s.stale, true);
    assert.equal(s.view.version, 10n);
    applyView(s, view({ version: 12n }));
    assert.equal(s.stale, false);
    applyEvent(s, ev(13n, 1, "discardPileTurnedOver", { rebuild: 1 }));
    assert.equal(s.stale, true);
  });

  test("the watch's pushed options give the person's turn its moves: nothing to ask", () => {
    const s = emptyState();
    applyView(s, view());
    applyEvent(s, evTurn(11n, 1, 1, "drewFromStock", {}));
    // The bot's discard brings the turn, and with it (same message) the moves.
    applyEvent(s, evTurn(12n, 1, 0, "discarded", { cardId: 6 }));
    assert.equal(s.view.turn, 0);
    applyLegal(s, options(12n, 0, [DRAW, TAKE]));
    assert.equal(needsLegalMoves(s), false);
    assert.deepEqual(s.legal.moves.map((m) => m.move.case), ["drawFromStock", "takeDiscard"]);
    // The person's draw, answered: its options are the next moves.
    const after = view({ version: 13n, turn: 0, phase: TurnPhase.PLAY, hand: [card(0), card(1), card(4), card(5)], deck: [] });
    applyMoveResult(s, { events: [evTurn(13n, 0, 0, "drewFromStock", { cardId: 5 })], view: after, legalMoves: [DISCARD], hint: undefined, options: options(13n, 0, [DISCARD]) });
    assert.equal(s.legal.version, 13n);
    assert.deepEqual(s.legal.moves, [DISCARD]);
    // The watch's copy of that event, with options of the same version, changes nothing.
    applyEvent(s, evTurn(13n, 0, 0, "drewFromStock", { cardId: 5 }));
    applyLegal(s, options(13n, 0, [DISCARD]));
    assert.equal(s.view.hand.length, 4);
    assert.deepEqual(s.legal.moves, [DISCARD]);
  });

  test("gin: while the person may knock, the hint's discard is the best knock's, the one the knock preview shows", () => {
    const s = emptyState();
    applyView(s, view({ turn: 0, phase: TurnPhase.PLAY }));
    const knock = { move: { case: "knock", value: { discardCardId: 5, melds: [], deadwood: 8 } } };
    const hint = { suggestedDiscard: card(4), bestKnock: { discardCardId: 5, melds: [], deadwood: 8 } };
    applyLegal(s, { version: s.view.version, moves: [DISCARD, knock], hint });
    assert.equal(hintedDiscard(s), 5);
    // No knock among the moves: the policy's discard.
    applyLegal(s, { version: s.view.version, moves: [DISCARD], hint });
    assert.equal(hintedDiscard(s), 4);
  });

  test("the turn leaving the person: no moves, known, and nothing to ask while others play", () => {
    const s = emptyState();
    applyView(s, view({ turn: 0, phase: TurnPhase.PLAY }));
    applyLegal(s, options(10n, 0, [DISCARD]));
    const after = view({ version: 11n, turn: 1, hand: [card(0), card(1)], discardPile: [card(7), card(4)] });
    applyMoveResult(s, { events: [evTurn(11n, 0, 1, "discarded", { cardId: 4 })], view: after, legalMoves: [], hint: undefined, options: options(11n, 1, []) });
    assert.equal(s.legal.version, 11n);
    assert.deepEqual(s.legal.moves, []);
    assert.equal(needsLegalMoves(s), false);
    // The bot's draw: its turn still; the old options are dropped, none needed.
    applyEvent(s, evTurn(12n, 1, 1, "drewFromStock", {}));
    assert.equal(s.legal, undefined);
    assert.equal(needsLegalMoves(s), false);
  });

  test("options older than what is known are past: a move's answer behind the watch keeps the watch's", () => {
    const s = emptyState();
    applyView(s, view({ turn: 0 }));
    applyLegal(s, options(10n, 0, [DRAW]));
    // The watch ran ahead: the person's draw (11), then the options at 11.
    applyEvent(s, evTurn(11n, 0, 0, "drewFromStock", { cardId: 5 }));
    applyLegal(s, options(11n, 0, [DISCARD]));
    // Options at 10 again (a slow answer, a late push): dropped.
    applyLegal(s, options(10n, 0, [DRAW]));
    assert.deepEqual(s.legal.moves, [DISCARD]);
    // A move's answer at 11 after a newer view (12, the turn gone) leaves both.
    applyEvent(s, evTurn(12n, 0, 1, "discarded", { cardId: 5 }));
    applyMoveResult(s, { events: [], view: view({ version: 11n, turn: 0, phase: TurnPhase.PLAY }), legalMoves: [DISCARD], hint: undefined, options: options(11n, 0, [DISCARD]) });
    assert.equal(s.view.version, 12n);
    assert.equal(s.view.turn, 1);
    assert.equal(s.legal, undefined, "options older than the view were taken");
    assert.equal(needsLegalMoves(s), false);
  });

  test("whose turn it is after an event is the server's word when the event says it", () => {
    const s = emptyState();
    const three = view({ seats: [seatView(0, 3), seatView(1, 4), seatView(2, 4)] });
    applyView(s, three);
    // Seat 1's discard: the fold alone would say seat 2; the server says seat 0 (seat 2 is out).
    applyEvent(s, evTurn(11n, 1, 0, "discarded", { cardId: 6 }));
    assert.equal(s.view.turn, 0);
    assert.equal(needsLegalMoves(s), true, "the person's turn with no options pushed: a recovery asks");
    // An event logged before servers said whose turn: the fold's reckoning.
    applyEvent(s, ev(12n, 0, "discarded", { cardId: 4 }));
    assert.equal(s.view.turn, 1);
  });

  test("after a gap the view is fetched again, and the person's turn without options is asked for", () => {
    const s = emptyState();
    applyView(s, view());
    applyEvent(s, evTurn(12n, 1, 0, "discarded", { cardId: 6 }));
    assert.equal(s.stale, true);
    applyLegal(s, options(12n, 0, [DRAW]));
    // The view fetched again, at the options' version: they stand.
    applyView(s, view({ version: 12n, turn: 0 }));
    assert.equal(needsLegalMoves(s), false);
    // One version later (no options pushed for it yet): ask.
    applyView(s, view({ version: 13n, turn: 0, phase: TurnPhase.PLAY }));
    assert.equal(s.legal, undefined);
    assert.equal(needsLegalMoves(s), true);
  });

  test("the feed says a round's ending in words", () => {
    setLang("en");
    const line = describeEvent(ev(5n, undefined, "roundEnded", { round: 1, ending: "went_out", winner: 0, scores: [0, 9], hands: [] }), view(), DECK);
    assert.equal(line, "Round 1 is over: Ada went out; scores 0, 9.");
    setLang("it");
    assert.match(describeEvent(ev(5n, undefined, "roundEnded", { round: 1, ending: "went_out", winner: 0, scores: [0, 9], hands: [] }), view(), DECK), /ha chiuso/);
    setLang("en");
  });
});

describe("the page's words", () => {
  test("every language has every key, with the same placeholders", () => {
    for (const lang of LANGS) {
      const table = tableOf(lang);
      for (const key of KEYS) {
        assert.ok(table[key], `${lang} lacks ${key}`);
        const holes = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
        assert.deepEqual(holes(table[key]), holes(tableOf("en")[key]), `${lang} ${key}`);
      }
      assert.deepEqual(Object.keys(table).sort(), [...KEYS].sort());
    }
  });

  test("the browser's language picks the words, English otherwise", () => {
    assert.equal(browserLang(["it-IT", "en"]), "it");
    assert.equal(browserLang(["uk-UA", "en"]), "uk");
    assert.equal(browserLang(["de-DE", "UK", "it"]), "uk");
    assert.equal(browserLang(["de-DE", "en-GB"]), "en");
    assert.equal(browserLang(["fr"]), "en");
  });

  test("a stored choice is taken only when the page has that language", () => {
    assert.equal(asLang("uk"), "uk");
    assert.equal(asLang("it"), "it");
    assert.equal(asLang("ru"), undefined);
    assert.equal(asLang(null), undefined);
  });

  test("every counted word has a form for every plural category of its language", () => {
    for (const lang of LANGS) {
      const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
      const counted = countedOf(lang);
      assert.deepEqual(Object.keys(counted).sort(), [...COUNTED_KEYS].sort(), lang);
      for (const key of COUNTED_KEYS) {
        for (let n = 0; n <= 1000; n++) {
          const form = counted[key][pluralOf(lang, n)];
          assert.ok(form, `${lang} ${key} lacks the form of ${n} (${pluralOf(lang, n)})`);
          assert.match(form, /\{n\}/, `${lang} ${key} ${pluralOf(lang, n)}`);
        }
        assert.ok(counted[key].other, `${lang} ${key} lacks other`);
        for (const category of Object.keys(counted[key])) {
          assert.ok(categories.includes(category), `${lang} ${key}: ${category} is no category of ${lang}`);
        }
      }
    }
  });

  test("Ukrainian counts cards in its three forms", () => {
    setLang("uk");
    const said = [1, 2, 5, 11, 21, 22, 25, 0, 4, 12, 14, 101, 111].map((n) => cards(n));
    assert.deepEqual(said, [
      "1 карта",
      "2 карти",
      "5 карт",
      "11 карт",
      "21 карта",
      "22 карти",
      "25 карт",
      "0 карт",
      "4 карти",
      "12 карт",
      "14 карт",
      "101 карта",
      "111 карт",
    ]);
    setLang("en");
    assert.deepEqual([1, 2, 21].map((n) => count("cards", n)), ["1 card", "2 cards", "21 cards"]);
    setLang("it");
    assert.deepEqual([1, 2, 21].map((n) => cards(n)), ["1 carta", "2 carte", "21 carte"]);
    setLang("en");
  });

  test("a card is named in the page's language, English as the SDK names it", () => {
    const cardsOf = ["7H", "KS", "AD", "QC", "JH", "TS", "JK"].map((code, id) => ({ ...card(0), ...parse(code), id }));
    setLang("en");
    assert.deepEqual(cardsOf.map(cardLabel), cardsOf.map((c) => (c.joker ? "Joker" : cardName(c))));
    setLang("it");
    assert.deepEqual(cardsOf.map(cardLabel), ["7 di cuori", "Re di picche", "Asso di quadri", "Donna di fiori", "Fante di cuori", "10 di picche", "Jolly"]);
    setLang("uk");
    assert.deepEqual(cardsOf.map(cardLabel), ["7 чирв", "Король пік", "Туз бубен", "Дама треф", "Валет чирв", "10 пік", "Джокер"]);
    setLang("en");
  });

  test("the feed speaks Ukrainian", () => {
    setLang("uk");
    const ended = ev(5n, undefined, "roundEnded", { round: 1, ending: "went_out", winner: 0, scores: [0, 9], hands: [] });
    assert.equal(describeEvent(ended, view(), DECK), "Раунд 1 завершено: Ada позбувається всіх карт; очки 0, 9.");
    setLang("en");
  });
});

describe("a round's scores explained", () => {
  const part = (kind, points, extra = {}) => ({ kind, points, base: 0, factor: 0, ...extra });

  test("the summary keeps each seat's parts as the server sent them and says them in words", () => {
    const s = emptyState();
    applyView(s, view({ variant: { name: "ramino51", parameters: { knocking: false } } }));
    applyEvent(
      s,
      ev(11n, undefined, "roundEnded", {
        round: 1,
        ending: "went_out",
        winner: 0,
        closedHand: false,
        scores: [-40, 100],
        hands: [{ cardIds: [] }, { cardIds: [0, 1] }],
        parts: [{ parts: [part(ScorePartKind.WENT_OUT, -40)] }, { parts: [part(ScorePartKind.NEVER_OPENED, 100, { base: 83 })] }],
      }),
    );
    assert.deepEqual(s.summary.parts.map((p) => p.map((x) => x.points)), [[-40], [100]]);
    assert.deepEqual(s.view.rounds[0].parts.map((p) => p.parts.map((x) => x.kind)), [[ScorePartKind.WENT_OUT], [ScorePartKind.NEVER_OPENED]]);
    assert.equal(scorePartsText(s.summary.parts[0], s.view), "went out: -40");
    assert.equal(scorePartsText(s.summary.parts[1], s.view), "83 in hand → 100: never opened");
    assert.equal(roundEndText(s.summary.round, s.summary.ending, s.summary.winner, s.view), "Round 1 is over: Ada won (went out).");
    setLang("it");
    assert.equal(scorePartsText(s.summary.parts[1], s.view), "83 in mano → 100: mai aperto");
    assert.equal(roundEndText(1, "went_out", 0, s.view), "La smazzata 1 è finita: ha vinto Ada (ha chiuso).");
    setLang("en");
  });

  test("a closed hand's multiplier, gin's undercut and the match's box are said from their parts", () => {
    const v = view();
    assert.equal(
      scorePartsText([part(ScorePartKind.HAND_PENALTY, 22), part(ScorePartKind.CLOSED_HAND_MULTIPLIER, 22, { base: 22, factor: 2 })], v),
      "22 in hand, closed in hand × 2: +22",
    );
    assert.equal(
      scorePartsText([part(ScorePartKind.OPPONENT_DEADWOOD, 3, { seat: 0 }), part(ScorePartKind.OWN_DEADWOOD, -1), part(ScorePartKind.UNDERCUT_BONUS, 25)], v),
      "Ada's deadwood +3, own deadwood -1, undercut +25",
    );
    assert.equal(scorePartsText([part(ScorePartKind.OPPONENT_DEADWOOD, 20, { seat: 0 }), part(ScorePartKind.GIN_BONUS, 25)], v), "Ada's deadwood +20, gin +25");
    assert.equal(scorePartsText([part(ScorePartKind.HAND_COLLECTED, 100, { base: 12, seat: 0 })], v), "Ada's hand 12 → 100: never opened");
    const s = emptyState();
    applyView(s, view({ variant: { name: "gin", parameters: { knocking: true } } }));
    applyEvent(s, ev(11n, undefined, "roundEnded", { round: 4, ending: "gin", winner: 0, closedHand: false, scores: [45, 0], hands: [], parts: [] }));
    applyEvent(
      s,
      ev(12n, undefined, "matchEnded", {
        totals: [240, 65],
        winners: [0],
        parts: [
          { parts: [part(ScorePartKind.ROUNDS, 90), part(ScorePartKind.BOX_BONUS, 50, { base: 25, factor: 2 }), part(ScorePartKind.GAME_BONUS, 100)] },
          { parts: [part(ScorePartKind.ROUNDS, 40), part(ScorePartKind.BOX_BONUS, 25, { base: 25, factor: 1 })] },
        ],
      }),
    );
    assert.equal(scorePartsText(s.summary.matchParts[0], s.view), "rounds 90, box 25 × 2, game bonus +100");
    assert.equal(scorePartsText(s.summary.matchParts[1], s.view), "rounds 40, box 25 × 1");
  });

  test("a round ended by a server that sent no parts has its summary, with nothing to explain", () => {
    const s = emptyState();
    applyView(s, view());
    applyEvent(s, ev(11n, undefined, "roundEnded", { round: 1, ending: "stock_exhausted", winner: undefined, closedHand: false, scores: [0, 0], hands: [] }));
    assert.deepEqual(s.summary.parts, []);
    assert.equal(scorePartsText(s.summary.parts[0], s.view), "");
    assert.equal(roundEndText(1, "stock_exhausted", undefined, s.view), "Round 1 is over with no winner (the stock ran out).");
  });
});
