// Issue 43, the faults a person meets on the page at a desktop's 1280x800
// and a phone's 390x844, each with its check, in Debian's chromium against
// a real server that knows players and its gateway. Screenshots of each
// fault's place at both sizes go to clients/web/screenshots/faults-*.png.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";
import { CHROMIUM, playerToken, serversWithPlayers } from "./servers.mjs";

const SHOTS = resolve(import.meta.dirname, "..", "screenshots");
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let servers;
let browser;

/** The page at both sizes, saved as faults-{name}-desktop.png and faults-{name}-phone.png; the phone's size is kept. */
async function shots(page, name) {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(SHOTS, `faults-${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(SHOTS, `faults-${name}-phone.png`), fullPage: true });
}

/** A page of its own browser context; opened once with `player`'s token (then kept by the page) unless `player` is null. */
async function pageOf(player, viewport = PHONE) {
  const page = await (await browser.newContext({ viewport, locale: "en-GB" })).newPage();
  await page.goto(player === null ? servers.origin : `${servers.origin}/?player=${playerToken(player)}`);
  await page.locator("#variant option").first().waitFor({ state: "attached" });
  return page;
}

const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - innerWidth);

async function axe(page) {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations.map((v) => ({ id: v.id, impact: v.impact, html: v.nodes[0]?.html })));
  return found.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** Creates a game at the lobby and sits in its first seat; `others`: each other seat's option ("medium", "person"). */
async function create(page, name, variant, others) {
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Variant").selectOption(variant);
  await page.getByLabel("Seats").selectOption(String(others.length + 1));
  for (const [i, kind] of others.entries()) await page.getByLabel(`Seat ${i + 2}`).selectOption(kind);
  await page.getByRole("button", { name: "Create and sit" }).click();
  await page.waitForURL(/#\/play\//);
  // Dealt when every seat is taken: a seat left for a person waits.
  await page.locator(others.includes("person") ? ".seat.me" : "#hand .card").first().waitFor();
  return page.url().split("#/play/")[1];
}

/** Until the person's turn (true) or a round's end (false, its summary dismissed). */
async function myTurn(page) {
  await page.waitForFunction(() => /^Your turn/.test(document.getElementById("status")?.textContent ?? "") || document.getElementById("summary") !== null, undefined, { timeout: 60_000 });
  if ((await page.locator("#summary").count()) === 0) return true;
  const more = page.locator('#summary [data-action="dismiss"]');
  if (await more.count()) await more.click();
  return false;
}

const feedCount = (page) => page.evaluate(() => Number(document.getElementById("feed")?.dataset.count ?? 0));

/** Until the feed grows past `n` lines (a move's events) or the move is refused (which fails). */
async function moved(page, n) {
  await page.waitForFunction((n) => Number(document.getElementById("feed")?.dataset.count ?? 0) > n || (document.getElementById("move-error")?.textContent ?? "") !== "", n, { timeout: 60_000 });
  assert.equal(await page.locator("#move-error").textContent(), "");
}

/** A rummy turn: draw, lay the hinted melds, discard the suggested card (or the last). */
async function rummyTurn(page) {
  let n = await feedCount(page);
  await page.locator("#stock").click();
  await moved(page, n);
  if (!(await myTurn(page))) return;
  await page.getByRole("button", { name: "Hint", exact: true }).click();
  const lay = page.getByRole("button", { name: "Lay these melds" });
  if (await lay.count()) {
    n = await feedCount(page);
    await lay.click();
    await moved(page, n);
    if (!(await myTurn(page))) return;
    await page.getByRole("button", { name: "Hint", exact: true }).click();
  }
  if ((await page.locator('#hand .card[aria-pressed="true"]').count()) !== 1) {
    const suggested = page.locator("#hand .card.suggested");
    await ((await suggested.count()) ? suggested.first() : page.locator("#hand .card").last()).click();
  }
  n = await feedCount(page);
  await page.getByRole("button", { name: "Discard", exact: true }).click();
  await moved(page, n);
}

describe("issue 43: faults on the page", { timeout: 900_000 }, () => {
  before(async () => {
    assert.ok(CHROMIUM, "chromium is not installed: make chromium");
    mkdirSync(SHOTS, { recursive: true });
    servers = await serversWithPlayers();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });

  after(async () => {
    await browser?.close();
    await servers?.stop();
  });

  test("a private table: its invite fits a phone, says who and what, tells the host, and is found again", async (t) => {
    const ada = await pageOf("ada");
    await ada.getByLabel("Your name").fill("Ada");
    await ada.getByLabel("Variant").selectOption("rummy");
    await ada.getByLabel("Seats").selectOption("2");
    await ada.getByLabel("Seat 2").selectOption("medium");
    await ada.getByRole("button", { name: "Play with a friend" }).click();
    const box = ada.getByLabel("Invite link");
    await box.waitFor();
    const link = await box.inputValue();
    const id = link.split("#invite=")[1].split(".")[0];

    await t.test("item 1: at 390x844 the page with the invite shown is no wider than the screen", async () => {
      assert.equal(await overflow(ada), 0);
      const right = (await box.boundingBox()).x + (await box.boundingBox()).width;
      assert.ok(right <= PHONE.width, `the link's box ends at ${right}`);
    });
    await t.test("item 2: the friend's seat says so, and no control of the form contradicts the invite", async () => {
      const seat2 = ada.getByLabel("Seat 2");
      assert.equal(await seat2.inputValue(), "friend");
      assert.equal(await seat2.locator("option:checked").textContent(), "Your friend (invited)");
      for (const control of [ada.getByLabel("Your name"), ada.getByLabel("Variant"), ada.getByLabel("Seats"), seat2]) {
        assert.ok(await control.isDisabled(), await control.evaluate((e) => e.outerHTML));
      }
      for (const name of ["Create and sit", "Quick play", "Play with a friend"]) {
        assert.ok(await ada.getByRole("button", { name }).isDisabled(), name);
      }
    });
    await shots(ada, "invite");
    assert.equal(await overflow(ada), 0, "the desktop's shot left the phone's page wider than the screen");
    await t.test("accessibility: axe-core finds no serious violation on the lobby with the invite", async () => {
      assert.deepEqual(await axe(ada), []);
    });

    await t.test("item 3: the waiting table is among Ada's tables at once", async () => {
      const waiting = ada.getByRole("region", { name: "Your tables" }).getByRole("listitem").filter({ hasText: "Rummy with a free seat waiting (1 open)" });
      await waiting.waitFor();
      assert.equal(await waiting.getAttribute("data-game"), id);
    });

    // Bea opens the link with no player token first: a server that knows
    // players seats no one without, and her page says what to do.
    const bea = await (await browser.newContext({ viewport: PHONE, locale: "en-GB" })).newPage();
    await bea.goto(link);
    await bea.getByRole("heading", { name: "You are invited to a game" }).waitFor();
    await t.test("item 4: the invite page names the host and the variant in words", async () => {
      assert.equal(await bea.locator("#invite-words").textContent(), "Ada invites you to a game of Rummy. Choose your name and sit down.");
      assert.match(await bea.locator("#invite-variant").textContent(), /^Rummy: one deck/);
    });
    await bea.getByLabel("Your name").fill("Bea");
    await bea.getByRole("button", { name: "Sit down" }).click();
    const refusal = bea.getByRole("alert");
    await refusal.filter({ hasText: /\S/ }).waitFor();
    await t.test("item 4: a friend without a player token is told what to do, in plain words", async () => {
      const text = await refusal.textContent();
      assert.match(text, /signed-in players only.*Open the link from the game's app or site/);
      assert.match(text, /ask Ada/);
      assert.doesNotMatch(text, /token|metadata|PLAYER_TOKEN/);
    });
    await shots(bea, "invite-signin");

    // Signed in (the host's player token), she sits down.
    await bea.goto(`${servers.origin}/?player=${playerToken("bea")}`);
    await bea.goto(link);
    await bea.getByLabel("Your name").fill("Bea");
    await bea.getByRole("button", { name: "Sit down" }).click();
    await bea.waitForURL(new RegExp(`#/play/${id}$`), { timeout: 60_000 });

    await t.test("item 3: the host's invite panel tells when the friend has sat down", async () => {
      const seated = ada.getByRole("status").filter({ hasText: "Bea has sat down at your table." });
      await seated.waitFor({ timeout: 20_000 });
      assert.match(await seated.textContent(), /The cards are dealt: go to your table\./);
    });
    await shots(ada, "invite-seated");

    // A finished table of Ada's besides: she resigns against a bot.
    await ada.goto(`${servers.origin}/#/`);
    await ada.locator("#variant option").first().waitFor({ state: "attached" });
    const over = await create(ada, "Ada", "gin", ["medium"]);
    ada.once("dialog", (d) => void d.accept());
    await ada.locator('[data-action="resign"]:not([disabled])').click();
    await ada.getByRole("heading", { name: "The match is over" }).waitFor({ timeout: 30_000 });

    await ada.getByRole("link", { name: "← Lobby" }).click();
    const mine = ada.getByRole("region", { name: "Your tables" });
    await t.test("item 3: the lobby lists the tables this browser holds, unfinished first, each with a way back", async () => {
      await mine.getByRole("listitem").nth(1).waitFor({ timeout: 20_000 });
      const items = mine.getByRole("listitem");
      assert.deepEqual(await items.evaluateAll((li) => li.map((x) => x.dataset.game)), [id, over]);
      assert.match(await items.nth(0).textContent(), /^Rummy with Bea (your turn|playing)$/);
      assert.match(await items.nth(1).textContent(), /^Gin rummy with Bot 2 \(medium\) over$/);
    });
    await shots(ada, "your-tables");
    await mine.getByRole("link", { name: "Rummy with Bea" }).click();
    await ada.waitForURL(new RegExp(`#/play/${id}$`));
    await ada.locator("#hand .card").first().waitFor();
    assert.match(await ada.locator(".seat.me").textContent(), /Ada \(you\)/);
  });

  test("item 6: the lobby's game list fits a phone, its Watch links within the screen", async () => {
    // A long name without a space: the widest a row gets.
    const cy = await pageOf("cy", DESKTOP);
    await create(cy, "Maximiliana-Wolfeschlegelsteinh", "ramino51", ["person", "medium"]);
    await cy.goto(`${servers.origin}/#/`);
    await cy.setViewportSize(PHONE);
    const watch = cy.locator("#game-list").getByRole("link", { name: "Watch" });
    await watch.first().waitFor();
    const rights = await watch.evaluateAll((links) => links.map((a) => a.getBoundingClientRect().right));
    assert.ok(rights.length > 0 && rights.every((r) => r <= 390), JSON.stringify(rights));
    assert.equal(await overflow(cy), 0);
    assert.equal(await cy.locator(".scroll").evaluate((s) => s.scrollWidth - s.clientWidth), 0, "the list scrolls sideways");
    await shots(cy, "games");
  });

  test("item 9: Quick play waits while it searches, in a player's words", async () => {
    const dee = await pageOf("dee");
    await dee.getByLabel("Your name").fill("Dee");
    await dee.getByLabel("Variant").selectOption("gin");
    const quick = dee.getByRole("button", { name: "Quick play" });
    await quick.click();
    const stop = dee.getByRole("button", { name: "Stop looking" });
    await stop.waitFor();
    assert.ok(await quick.isDisabled(), "Quick play is enabled while it searches");
    const status = dee.locator("#quick-status");
    assert.match(await status.textContent(), /^(Looking for players of your level…|Nobody of your level yet: now looking among players a little stronger or weaker than you…)$/);
    assert.doesNotMatch(await status.textContent(), /points|within|rating/);
    await shots(dee, "quick");
    await stop.click();
    await dee.locator("#quick-status", { hasText: "You stopped looking." }).waitFor();
    assert.ok(await stop.isHidden());
    assert.ok(!(await quick.isDisabled()), "Quick play stays disabled once stopped");
  });

  test("item 10: the table's header, piles, moves and a meld's arrival", async (t) => {
    const eve = await pageOf("eve", DESKTOP);
    // Rummy: melds laid freely, so one comes to the table soon; each meld
    // that arrives is measured as its animation starts (paused at 0, then finished).
    await eve.addInitScript(() => {
      window.arrivals = [];
      new MutationObserver(() => {
        const melds = document.getElementById("melds");
        const heading = document.getElementById("table-title");
        if (!melds || !heading || !melds.querySelector(".meld.fresh")) return;
        const limit = heading.getBoundingClientRect().bottom;
        for (const a of melds.getAnimations({ subtree: true })) {
          a.pause();
          a.currentTime = 0;
          const el = a.effect.target;
          let top = el.getBoundingClientRect().top;
          // What shows of it: clipped by any box between it and the melds' row.
          for (let p = el.parentElement; p && p !== melds.parentElement; p = p.parentElement) {
            if (getComputedStyle(p).overflowY !== "visible") top = Math.max(top, p.getBoundingClientRect().top);
          }
          window.arrivals.push({ top, limit });
          a.finish();
        }
      }).observe(document, { childList: true, subtree: true });
    });
    await eve.reload();
    await eve.locator("#variant option").first().waitFor({ state: "attached" });
    await create(eve, "Eve", "rummy", ["medium"]);
    await t.test("the header names the variant in words, as the lobby does", async () => {
      const line = await eve.locator(".gameline").textContent();
      assert.match(line, /· Rummy ·/);
      assert.doesNotMatch(line, /· rummy ·/);
    });
    await t.test("Resign is with the other moves, on their row, last", async () => {
      for (const lang of ["en", "it"]) {
        await eve.evaluate((l) => localStorage.setItem("ramino:lang", l), lang);
        await eve.reload();
        await eve.locator('[data-action="resign"]').waitFor();
        const tops = await eve.locator(".actions button").evaluateAll((bs) => bs.map((b) => [b.dataset.action ?? b.dataset.move, Math.round(b.getBoundingClientRect().top)]));
        assert.equal(tops.at(-1)[0], "resign", JSON.stringify(tops));
        assert.ok(tops.every(([, top]) => top === tops[0][1]), `${lang}: ${JSON.stringify(tops)}`);
      }
      await eve.evaluate(() => localStorage.setItem("ramino:lang", "en"));
      await eve.reload();
      await eve.locator("#hand .card").first().waitFor();
    });
    // Turns until the discard pile shows a card while it cannot be taken
    // (drawn from the stock), and a meld arrived on the table.
    let checked = false;
    for (let i = 0; i < 40; i++) {
      if (!(await myTurn(eve))) continue;
      if (!checked) {
        const n = await feedCount(eve);
        await eve.locator("#stock").click();
        await moved(eve, n);
        if ((await myTurn(eve)) && (await eve.locator("button#discard-pile[disabled]").count())) {
          await t.test("a discard pile that cannot be taken keeps its top card readable", async () => {
            const pile = eve.locator("button#discard-pile");
            const style = await pile.evaluate((b) => ({ opacity: getComputedStyle(b).opacity, border: getComputedStyle(b).borderStyle, cursor: getComputedStyle(b).cursor }));
            assert.deepEqual(style, { opacity: "1", border: "dashed", cursor: "default" });
            assert.equal(await pile.locator("span[aria-hidden]").evaluate((s) => getComputedStyle(s).opacity), "1");
            // Hovered, it stays as drawn: the card's face, the stock's back.
            await pile.hover();
            assert.equal(await pile.evaluate((b) => getComputedStyle(b).backgroundColor), "rgb(255, 253, 247)");
            const stock = eve.locator("button#stock[disabled]");
            await stock.hover();
            assert.match(await stock.evaluate((b) => getComputedStyle(b).backgroundImage), /repeating-linear-gradient/);
            await eve.mouse.move(0, 0);
          });
          await shots(eve, "table");
          await eve.setViewportSize(DESKTOP);
          checked = true;
        }
        if (!(await myTurn(eve))) continue;
        const m = await feedCount(eve);
        await eve.locator("#hand .card").last().click();
        await eve.getByRole("button", { name: "Discard", exact: true }).click();
        await moved(eve, m);
        continue;
      }
      if ((await eve.evaluate(() => window.arrivals.length)) > 0) break;
      await rummyTurn(eve);
    }
    assert.ok(checked, "the discard pile never showed a card after a draw");
    await t.test("a meld that arrives rises within its own frame, never over the Table heading", async () => {
      const arrivals = await eve.evaluate(() => window.arrivals);
      assert.ok(arrivals.length > 0, "no meld arrived in 40 turns");
      for (const { top, limit } of arrivals) assert.ok(top >= limit, `a meld showed from ${top}, over the heading ending at ${limit}`);
    });
    await shots(eve, "melds");
  });
});
