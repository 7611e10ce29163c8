// Quick play in the browser: two people open the page with their host's
// player tokens (?player=), press "Quick play" for the same variant, and
// each lands on its own seat of the same table; a page without a token has
// the button disabled, saying why.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
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
  const page = await context.newPage();
  await page.goto(`${servers.origin}/?player=${playerToken(player)}`);
  await page.locator("#variant option").first().waitFor({ state: "attached" });
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Variant").selectOption("rummy");
  await page.getByLabel("Seats").selectOption("2");
  await page.getByRole("button", { name: "Quick play" }).click();
  return page;
}

test("two people press Quick play and meet at one table, each in its own seat", { skip: !CHROMIUM }, async () => {
  const [ada, bea] = await Promise.all([quickPlay("ada", "Ada"), quickPlay("bea", "Bea")]);
  await Promise.all([ada.waitForURL(/#\/play\//, { timeout: 60_000 }), bea.waitForURL(/#\/play\//, { timeout: 60_000 })]);
  assert.equal(ada.url().split("#/play/")[1], bea.url().split("#/play/")[1]);
  await ada.locator("#hand .card").first().waitFor();
  await bea.locator("#hand .card").first().waitFor();
  assert.match(await ada.locator(".seat.me").textContent(), /Ada \(you\)/);
  assert.match(await bea.locator(".seat.me").textContent(), /Bea \(you\)/);
});

test("without a player token the button is disabled and says why", { skip: !CHROMIUM }, async () => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(servers.origin);
  const button = page.getByRole("button", { name: "Quick play" });
  assert.ok(await button.isDisabled());
  assert.match((await button.getAttribute("title")) ?? "", /player token/);
});
