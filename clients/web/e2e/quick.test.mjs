// Quick play in the browser: two people open the page with their host's
// player tokens (?player=), press "Quick play" for the same variant, and
// each lands on its own seat of the same table; a page without a token has
// the button disabled, saying why.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { Servers } from "./servers.mjs";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
const PLAYER_SECRET = "browser-test-player-token-secret-32-bytes!";

function playerToken(player) {
  const b64 = (text) => Buffer.from(text).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const body = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(JSON.stringify({ sub: player, iat: now, exp: now + 600 }))}`;
  return `${body}.${createHmac("sha256", PLAYER_SECRET).update(body).digest("base64url")}`;
}

let servers;
let browser;

before(async () => {
  const probe = new Servers();
  const secret = join(probe.dir, "player-secret");
  writeFileSync(secret, PLAYER_SECRET);
  servers = await new Servers(["--player-token-secret-file", secret]).start();
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
