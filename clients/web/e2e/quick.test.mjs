// Quick play in the browser: two people open the page with their host's
// player tokens (?player=), press "Quick play" for the same variant, each
// lands on its own seat of the same table, and the two play it to the
// round's end, each page live throughout, with a spectator following; a
// page without a token has the button disabled, saying why.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { connectionTexts, feed, publicFeed, playRound, recordConnection, summary } from "./player.mjs";
import { CHROMIUM, playerToken, serversWithPlayers } from "./servers.mjs";

let servers;
let browser;

before(async () => {
  servers = await serversWithPlayers();
  browser = await chromium.launch({ executablePath: CHROMIUM });
});

after(async () => {
  await browser?.close();
  await servers?.stop();
});

async function quickPlay(player, name) {
  const context = await browser.newContext();
  await recordConnection(context);
  const page = await context.newPage();
  await page.goto(`${servers.origin}/?player=${playerToken(player)}`);
  await page.locator("#variant option").first().waitFor({ state: "attached" });
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Variant").selectOption("rummy");
  await page.getByLabel("Seats").selectOption("2");
  await page.getByRole("button", { name: "Quick play" }).click();
  return page;
}

test("two people press Quick play, meet at one table and play it to the round's end", { skip: !CHROMIUM, timeout: 900_000 }, async () => {
  const [ada, bea] = await Promise.all([quickPlay("ada", "Ada"), quickPlay("bea", "Bea")]);
  await Promise.all([ada.waitForURL(/#\/play\//, { timeout: 60_000 }), bea.waitForURL(/#\/play\//, { timeout: 60_000 })]);
  assert.equal(ada.url().split("#/play/")[1], bea.url().split("#/play/")[1]);
  await ada.locator("#hand .card").first().waitFor();
  await bea.locator("#hand .card").first().waitFor();
  assert.match(await ada.locator(".seat.me").textContent(), /Ada \(you\)/);
  assert.match(await bea.locator(".seat.me").textContent(), /Bea \(you\)/);

  // A third person, signed in too, watches the table.
  const id = ada.url().split("#/play/")[1];
  const context = await browser.newContext();
  await recordConnection(context);
  const cy = await context.newPage();
  await cy.goto(`${servers.origin}/?player=${playerToken("cy")}#/watch/${id}`);
  await cy.locator(".spectating").waitFor();
  await cy.locator("#connection").filter({ hasText: /^live/ }).waitFor();
  assert.equal(await cy.locator("#hand").count(), 0, "a spectator sees no hand");

  const [adaTurns, beaTurns] = await Promise.all([playRound(ada), playRound(bea)]);
  assert.ok(adaTurns + beaTurns > 4, `${adaTurns} + ${beaTurns} turns`);
  const [adaSummary, beaSummary, cySummary] = await Promise.all([summary(ada), summary(bea), summary(cy)]);
  assert.match(adaSummary.line, /won the round|Nobody won/);
  assert.deepEqual(beaSummary, adaSummary);
  assert.deepEqual(cySummary, adaSummary);
  // The same feed on every page, but for the card each seat alone sees drawn.
  const last = await publicFeed(ada);
  await cy.waitForFunction((line) => [...document.querySelectorAll("#feed li")].at(-1)?.textContent === line, (await feed(ada)).at(-1));
  assert.deepEqual(await publicFeed(bea), last);
  assert.deepEqual(await publicFeed(cy), last);
  for (const [who, p] of [["Ada", ada], ["Bea", bea], ["Cy", cy]]) {
    const texts = await connectionTexts(p);
    assert.ok(!texts.some((t) => t.startsWith("down")), `${who}'s page went down: ${texts}`);
    assert.ok(texts.some((t) => t === "live"), `${who}'s page was never live: ${texts}`);
  }
});

test("without a player token the button is disabled and says why", { skip: !CHROMIUM }, async () => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(servers.origin);
  const button = page.getByRole("button", { name: "Quick play" });
  assert.ok(await button.isDisabled());
  assert.match((await button.getAttribute("title")) ?? "", /player token/);
});
