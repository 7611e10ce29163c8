/** Cancelling a game, the stateless rules, and a watch ended by its signal. */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  BotLevel,
  GameStatus,
  MeldKind,
  NotFound,
  PermissionDenied,
  Visibility,
  handText,
  inviteCodeOf,
  inviteLink,
  sortCards,
  type WatchItem,
} from "@ramino/client";
import { ServerProcess, clientOf } from "./support.js";

let server: ServerProcess;
before(async () => {
  server = await ServerProcess.start();
});
after(async () => {
  await server.stop();
});

test("the creator token cancels a game; a seat token cannot (NOT_CREATOR)", async () => {
  const client = clientOf(server);
  try {
    const created = await client.createGame({ variant: "rummy", seats: ["ann", BotLevel.GREEDY] });
    const seat = await client.join(created.name, "ann");
    await assert.rejects(client.cancelGame(created.name, seat.token), (e: unknown) => {
      assert.ok(e instanceof PermissionDenied);
      assert.equal(e.reason, "NOT_CREATOR");
      return true;
    });
    const view = await client.cancelGame(created.name, created.creatorToken);
    assert.equal(view.status, GameStatus.FINISHED);
    assert.equal(view.endReason, "cancelled");
    assert.equal(view.seat, undefined);
    // Cancelling again answers the same view.
    assert.equal((await client.cancelGame(created.game.name, created.creatorToken)).version, view.version);
    const ended: WatchItem[] = [];
    for await (const item of seat.watch({ afterVersion: 0 })) ended.push(item);
    const last = ended.at(-1);
    assert.ok(last?.kind === "event" && last.event.event.case === "gameEnded");
    assert.equal(last.event.event.value.reason, "cancelled");
  } finally {
    client.close();
  }
});

test("the rules service validates melds, analyses hands and lists the variants", async () => {
  const client = clientOf(server);
  try {
    const run = await client.rules.validateMeld("AS 2S 3S", "ramino51");
    assert.ok(run.valid);
    assert.equal(run.meld?.kind, MeldKind.RUN);
    assert.equal(handText(run.meld?.cards ?? []), "A♠ 2♠ 3♠");
    const wrong = await client.rules.validateMeld(["QS", "KS", "AS"], "ramino51", { aceHigh: false });
    assert.ok(!wrong.valid);
    assert.equal(wrong.reason, "ACE_HIGH_NOT_ALLOWED");
    const analysis = await client.rules.analyzeHand("AS 2S 3S QH KH AH JK TD TC", { variant: "ramino51" });
    assert.ok(analysis.minDeadwood !== undefined);
    assert.ok(sortCards(analysis.minDeadwood.deadwood).length < 9);
    const variants = await client.rules.listVariants();
    assert.deepEqual(new Set(variants.map((v) => v.name)), new Set(["ramino51", "rami51", "rummy", "gin"]));
    const levels = await client.rules.listBotLevels();
    assert.deepEqual(
      levels.map((b) => b.level),
      [BotLevel.EASY, BotLevel.MEDIUM, BotLevel.HARD, BotLevel.EXPERT],
    );
    for (const b of levels) {
      assert.ok(b.description.length > 0);
      assert.ok(Math.abs(b.rating - (b.ratingMu - 3 * b.ratingSigma)) < 1e-9);
      assert.equal(b.timeMs > 0, b.level === BotLevel.HARD || b.level === BotLevel.EXPERT);
    }
  } finally {
    client.close();
  }
});

test("aborting a watch's signal ends the loop over it", async () => {
  const client = clientOf(server);
  try {
    const created = await client.createGame({ variant: "rummy", seats: ["", BotLevel.GREEDY] });
    const abort = new AbortController();
    const seen: WatchItem[] = [];
    for await (const item of client.watch(created.name, { signal: abort.signal })) {
      seen.push(item);
      abort.abort(); // the game waits for a person: nothing else would come
    }
    assert.deepEqual(seen.map((i) => i.kind), ["snapshot"]);
  } finally {
    client.close();
  }
});

test("a friend joins a private game by its link; a wrong code is INVITE_NOT_VALID", async () => {
  const ann = clientOf(server);
  const bob = clientOf(server);
  try {
    const created = await ann.createGame({ variant: "rummy", seats: ["", ""], private: true });
    assert.equal(created.game.visibility, Visibility.PRIVATE);
    assert.ok(created.inviteCode !== "" && created.game.spectatorsDisabled);
    for await (const g of ann.listGames()) assert.notEqual(g.name, created.name);
    await assert.rejects(bob.joinInvite(created.inviteCode.slice(0, -1), "Bob"), (e: unknown) => {
      assert.ok(e instanceof NotFound);
      assert.equal(e.reason, "INVITE_NOT_VALID");
      return true;
    });
    const link = inviteLink("https://play.example/ramino/", created.inviteCode);
    assert.equal(link, `https://play.example/ramino/#invite=${created.inviteCode}`);
    const mine = await ann.joinInvite(created.inviteCode, "Ann");
    const theirs = await bob.joinInvite(link, "Bob");
    assert.deepEqual([mine.seat, theirs.seat, theirs.name], [0, 1, created.name]);
    // Dealt: the code opens nothing now.
    await assert.rejects(bob.joinInvite(created.inviteCode, "Cid"), NotFound);
  } finally {
    ann.close();
    bob.close();
  }
});

test("invite codes are read from links", () => {
  const code = "0123456789abcdef.AbC-d_ef";
  for (const text of [
    code,
    ` ${code} `,
    inviteLink("https://x.example/#old", code),
    `https://x.example/?invite=${code}`,
    `https://x.example/?a=1&invite=${code}&b=2`,
  ]) {
    assert.equal(inviteCodeOf(text), code);
  }
});
