// A person at a table, as the browser tests play one: turns by clicks and
// keys (draw, the hint's melds, lay-offs, the hint's discard), waiting on
// what the page shows, never on time; and what a page's connection line
// said while it played.
import assert from "node:assert/strict";

/** The page's status line. */
export async function status(p) {
  return (await p.locator("#status").textContent()) ?? "";
}

/** Events in a page's feed (it shows the last 60). */
export async function feedCount(p) {
  return p.evaluate(() => Number(document.getElementById("feed")?.dataset.count ?? 0));
}

/** Waits until it is the person's turn (true) or the first round has ended (false). */
export async function myTurnOrRoundEnd(p) {
  await p.waitForFunction(
    () =>
      /^Your turn/.test(document.getElementById("status")?.textContent ?? "") ||
      document.querySelector("table.scores") !== null,
    undefined,
    { timeout: 120_000 },
  );
  return (await p.locator("table.scores").count()) === 0;
}

/**
 * Waits for a move's effect; a refused move fails the test with the page's
 * words. A message already shown when it is called (an earlier move's) is
 * not this move's refusal: the page clears it once the move is played.
 */
export async function settled(p, done, arg) {
  const shown = (await p.locator("#move-error").textContent()) ?? "";
  const ok = await p.waitForFunction(
    ({ done, arg, shown }) => {
      if (new Function("n", `return (${done})(n)`)(arg)) return "ok";
      const error = document.getElementById("move-error")?.textContent ?? "";
      return error && error !== shown ? `refused: ${error}` : false;
    },
    { done: done.toString(), arg, shown },
    { timeout: 60_000 },
  );
  assert.equal(await ok.jsonValue(), "ok");
}

const handSize = (n) => document.querySelectorAll("#hand .card").length !== n || document.querySelector("table.scores") !== null;

async function showHint(p) {
  await p.locator("#app").focus();
  await p.keyboard.press("h");
  await p.locator("#hint").filter({ hasText: /./ }).waitFor();
}

/**
 * One turn: draw (the key d, or a click on the stock), lay the hint's melds,
 * lay off every card the page marks as one that can be, then discard the
 * hint's card (a click on it, then the key x or a click on Discard).
 * Returns at the round's end.
 */
export async function playTurn(p, { keyboard = true } = {}) {
  if ((await status(p)).includes("draw a card")) {
    if (keyboard) {
      await p.locator("#app").focus();
      await p.keyboard.press("d");
    } else {
      await p.locator("#stock").click();
    }
    await settled(p, () => !/draw a card/.test(document.getElementById("status")?.textContent ?? ""));
  }
  if (!(await myTurnOrRoundEnd(p))) return;
  await showHint(p);
  const lay = p.getByRole("button", { name: "Lay these melds" });
  if (await lay.count()) {
    const before = await p.locator("#melds .meld").count();
    await lay.click();
    await settled(p, (n) => document.querySelectorAll("#melds .meld").length > n || document.querySelector("table.scores") !== null, before);
    if (!(await myTurnOrRoundEnd(p))) return;
  }
  for (let i = 0; i < 12; i++) {
    const layable = p.locator("#hand .card.layable");
    if (!(await layable.count())) break;
    await layable.first().click();
    const cards = await p.locator("#hand .card").count();
    await p.locator("#melds button[data-layoff]").first().click();
    await settled(p, handSize, cards);
    if (!(await myTurnOrRoundEnd(p))) return;
  }
  await showHint(p);
  // The hint outlines its discard without selecting it.
  assert.equal(await p.locator('#hand .card[aria-pressed="true"]').count(), 0, "the hint selected a card");
  const suggested = p.locator("#hand .card.suggested");
  await ((await suggested.count()) ? suggested.first() : p.locator("#hand .card").last()).click();
  const events = await feedCount(p);
  if (keyboard) await p.keyboard.press("x");
  else await p.getByRole("button", { name: "Discard", exact: true }).click();
  await settled(
    p,
    (n) => Number(document.getElementById("feed")?.dataset.count ?? 0) > n && !/^Your turn: lay/.test(document.getElementById("status")?.textContent ?? ""),
    events,
  );
}

/** Plays the person's turns until the first round ends; returns the turns played. */
export async function playRound(p, limit = 250) {
  let turns = 0;
  while (await myTurnOrRoundEnd(p)) {
    await playTurn(p, { keyboard: turns % 2 === 0 });
    turns += 1;
    assert.ok(turns < limit, "the round does not end");
  }
  return turns;
}

/**
 * Each text the page's connection line (#connection) shows, in order, from
 * the page's first load on: a test asks `connectionTexts` whether the page
 * stayed live.
 */
export async function recordConnection(context) {
  await context.addInitScript(() => {
    const seen = [];
    Object.defineProperty(window, "__connection", { value: seen });
    document.addEventListener("DOMContentLoaded", () => {
      const line = document.getElementById("connection");
      if (!line) return;
      const note = () => {
        const text = `${line.classList.contains("down") ? "down: " : ""}${line.textContent ?? ""}`;
        if (seen.at(-1) !== text) seen.push(text);
      };
      note();
      new MutationObserver(note).observe(line, { childList: true, characterData: true, subtree: true, attributes: true });
    });
  });
}

/** What the page's connection line showed since the page loaded. */
export async function connectionTexts(p) {
  return p.evaluate(() => [...(window.__connection ?? [])]);
}

/** The round's summary as a person reads it: the line, and each seat's row. */
export async function summary(p) {
  await p.locator("#summary").waitFor();
  return {
    line: (await p.locator("#summary-line").textContent()) ?? "",
    rows: await p.locator("#summary table.scores tbody tr").allTextContents(),
  };
}

/**
 * The feed's lines as every viewer reads them: a draw from the stock names
 * its card to the seat that drew it alone, so the card is left out.
 */
export async function publicFeed(p) {
  return (await feed(p)).map((line) => line.replace(/ drew .* from the stock\./, " drew from the stock."));
}

/** The feed's lines. */
export async function feed(p) {
  return p.locator("#feed li").allTextContents();
}
