// "Play with a friend" in the browser: Ada creates a private table and is
// shown its link (without her player token); the lobby never lists it; Bea
// opens the link, gives her name and sits at the same table; once the table
// is dealt, the link opens nothing for a third person.
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

/** A page of its own browser context, that the host's player token opened once (kept). */
async function pageOf(player) {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${servers.origin}/?player=${playerToken(player)}`);
  await page.locator("#variant option").first().waitFor({ state: "attached" });
  return page;
}

async function sitByLink(page, link, name) {
  await page.goto(link);
  await page.getByRole("heading", { name: "You are invited to a game" }).waitFor();
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: "Sit down" }).click();
}

test("a friend opens the link of a private table and sits at it", { skip: !CHROMIUM }, async () => {
  const ada = await pageOf("ada");
  await ada.getByLabel("Your name").fill("Ada");
  await ada.getByLabel("Variant").selectOption("rummy");
  await ada.getByLabel("Seats").selectOption("2");
  await ada.getByRole("button", { name: "Play with a friend" }).click();
  const box = ada.getByLabel("Invite link");
  await box.waitFor();
  const link = await box.inputValue();
  assert.match(link, new RegExp(`^${servers.origin}/#invite=[0-9a-f]{16}\\.[A-Za-z0-9_-]{22}$`));
  assert.ok(!link.includes("player="), "the link carries Ada's player token");
  const id = link.split("#invite=")[1].split(".")[0];
  // The lobby never lists it, on Ada's page or another's.
  const eve = await pageOf("eve");
  await eve.locator("#game-list tr").first().waitFor();
  assert.ok(!(await eve.locator("#game-list").textContent()).includes(id.slice(0, 8)));

  const bea = await pageOf("bea");
  await sitByLink(bea, link, "Bea");
  await bea.waitForURL(new RegExp(`#/play/${id}$`), { timeout: 60_000 });
  await ada.getByRole("link", { name: "Go to your table" }).click();
  await ada.waitForURL(new RegExp(`#/play/${id}$`));
  await ada.locator("#hand .card").first().waitFor();
  await bea.locator("#hand .card").first().waitFor();
  assert.match(await ada.locator(".seat.me").textContent(), /Ada \(you\)/);
  assert.match(await bea.locator(".seat.me").textContent(), /Bea \(you\)/);

  // Dealt: the link opens nothing now, and says so.
  await sitByLink(eve, link, "Eve");
  await eve.getByRole("alert").filter({ hasText: "INVITE_NOT_VALID" }).waitFor();
  assert.match(eve.url(), /#invite=/);
});
