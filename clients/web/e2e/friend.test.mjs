// "Play with a friend" in the browser, on a server that knows players: Ada
// creates a private table and is shown its link (without her player token);
// the lobby never lists it; Bea opens the link, gives her name and sits at
// the same table; the two play it to the round's end, each page live
// throughout, and a move Ada makes while the server is down is kept and
// played once when it is back; a stranger who opens the table to watch is
// told once, in words, that it cannot be watched; once the table is dealt,
// the link opens nothing for a third person.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";
import { connectionTexts, feed, publicFeed, feedCount, myTurnOrRoundEnd, playRound, playTurn, recordConnection, settled, status, summary } from "./player.mjs";
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
  const context = await browser.newContext();
  await recordConnection(context);
  const page = await context.newPage();
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

test("a friend opens the link of a private table, sits at it, and the two play it to the round's end", { skip: !CHROMIUM, timeout: 900_000 }, async () => {
  const ada = await pageOf("ada");
  await ada.getByLabel("Your name").fill("Ada");
  await ada.getByLabel("Variant").selectOption("rummy");
  await ada.getByLabel("Seats").selectOption("2");
  await ada.getByRole("button", { name: "Play with a friend" }).click();
  const box = ada.getByLabel("Invite link");
  await box.waitFor();
  const link = await box.inputValue();
  assert.match(link, new RegExp(`^${servers.origin}/#invite=[0-9a-f]{16}\\.[A-Za-z0-9_-]{22}(&[^#]*)?$`));
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

  // Dealt: the link opens nothing now, and says so in words.
  await sitByLink(eve, link, "Eve");
  await eve.getByRole("alert").filter({ hasText: "This invite opens no seat any more" }).waitFor();
  assert.match(eve.url(), /#invite=/);

  // A stranger who opens the table to watch is told once that it cannot
  // be: no "reconnecting", no retried refusal.
  await eve.goto(`${servers.origin}/#/watch/${id}`);
  const refusal = eve.getByRole("alert");
  await refusal.filter({ hasText: /cannot be watched|There is no such game/ }).waitFor();
  assert.equal(await refusal.count(), 1);
  assert.doesNotMatch(await eve.locator("#connection").textContent(), /reconnecting/);
  assert.ok(!(await connectionTexts(eve)).some((t) => t.includes("reconnecting")), String(await connectionTexts(eve)));
  assert.equal(await eve.locator("#hand").count(), 0);

  // A move made while the server is down is kept, and played once when it is back.
  await ada.locator("#status").filter({ hasText: /^Your turn|to play\.$/ }).waitFor();
  const first = /^Your turn/.test(await status(ada)) ? ada : bea;
  assert.ok(await myTurnOrRoundEnd(first), "the round ended before a move");
  if (!/draw a card/.test(await status(first))) await playTurn(first);
  const mover = /draw a card/.test(await status(ada)) ? ada : bea;
  assert.match(await status(mover), /draw a card/);
  const events = await feedCount(mover);
  const hand = await mover.locator("#hand .card").count();
  await servers.stopServer();
  await mover.locator("#connection.down").waitFor({ timeout: 60_000 });
  await mover.locator("#app").focus();
  await mover.keyboard.press("d");
  await mover.locator("#move-error").filter({ hasText: /kept/ }).waitFor();
  await servers.startServer();
  await mover.locator("#connection:not(.down)").filter({ hasText: /^live/ }).waitFor({ timeout: 60_000 });
  await settled(mover, (n) => document.querySelectorAll("#hand .card").length === n + 1, hand);
  assert.equal(await mover.locator("#move-error").textContent(), "", "the kept move's message stays after it was played");
  const drawn = (await feed(mover)).slice(events - (await feedCount(mover)));
  assert.equal(drawn.length, 1, `one event for the kept move: ${drawn}`);
  assert.match(drawn[0], /drew/);
  for (const p of [ada, bea]) await p.locator("#connection:not(.down)").filter({ hasText: /^live/ }).waitFor({ timeout: 60_000 });
  const liveFrom = await Promise.all([ada, bea].map(async (p) => (await connectionTexts(p)).length));

  // The two play the table to the round's end.
  const [adaTurns, beaTurns] = await Promise.all([playRound(ada), playRound(bea)]);
  assert.ok(adaTurns + beaTurns > 4, `${adaTurns} + ${beaTurns} turns`);
  const [adaSummary, beaSummary] = await Promise.all([summary(ada), summary(bea)]);
  assert.match(adaSummary.line, /won the round|Nobody won/);
  assert.deepEqual(beaSummary, adaSummary);
  assert.deepEqual(await publicFeed(bea), await publicFeed(ada));
  // Live throughout: from the restart on, neither connection line went down.
  for (const [i, p] of [ada, bea].entries()) {
    const texts = (await connectionTexts(p)).slice(liveFrom[i]);
    assert.ok(!texts.some((t) => t.startsWith("down")), `${["Ada", "Bea"][i]}'s page went down: ${texts}`);
  }
});
