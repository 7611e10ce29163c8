/** Watches that resume after a dropped stream, with no event missed or repeated. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { BotLevel, GameStatus, isMyTurn, watchItems, type Watch, type WatchItem } from "@ramino/client";
import { GameEventSchema, GameEventsSchema, WatchGameResponseSchema } from "@ramino/client/gen/game";
import { ServerProcess, clientOf, consecutive, playTurn, playUntilFinished, scratchDir } from "./support.js";

function follow(watch: Watch): { feed: WatchItem[]; done: Promise<void> } {
  const feed: WatchItem[] = [];
  const done = (async () => {
    for await (const item of watch) feed.push(item);
  })();
  return { feed, done };
}

async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

function assertWholeFeed(feed: WatchItem[], finalVersion: bigint): void {
  assert.equal(feed[0]?.kind, "snapshot");
  const last = feed.at(-1);
  assert.ok(last?.kind === "event" && last.event.event.case === "matchEnded");
  assert.equal(last.version, finalVersion);
  // No event missed or repeated: the versions run one after another.
  const versions = feed.map((i) => i.version);
  assert.ok(consecutive(versions), `versions not consecutive: ${versions.join(",")}`);
}

test("watches resume across a killed and restarted sqlite server with no event missed or repeated", async () => {
  const server = await ServerProcess.start({ store: `sqlite:${join(scratchDir("db"), "ramino.db")}` });
  const client = clientOf(server);
  let watches: Watch[] | undefined;
  try {
    const created = await client.createGame({ variant: "ramino51", seats: ["ann", BotLevel.GREEDY] });
    const seat = await client.join(created.name, "ann");
    watches = [client.watch(created.name), seat.watch()];
    const followers = watches.map(follow);
    let turns = 0;
    while (turns < 2 && (await seat.view()).status !== GameStatus.FINISHED) {
      if (await playTurn(seat)) turns += 1;
    }
    // The bot moves after ann's discard: wait for it, so that nothing is in
    // flight when the server is killed, and for both streams to catch up, so
    // that the kill cuts them.
    let before = await seat.view();
    await until(async () => {
      before = await seat.view();
      return before.status === GameStatus.FINISHED || isMyTurn(before);
    }, "the bot's turn ended");
    await until(() => followers.every((f) => f.feed.at(-1)?.version === before.version), "the watches caught up");

    await server.kill();
    // Back in a moment; meanwhile the calls and the watches retry.
    const restarted = new Promise((r) => setTimeout(r, 300)).then(() => server.start());
    const after = await seat.view();
    assert.equal(after.version, before.version);
    assert.deepEqual(after.hand.map((c) => c.id), before.hand.map((c) => c.id));
    await restarted;
    await playUntilFinished([seat]);
    await Promise.all(followers.map((f) => f.done));
    const final = await seat.view();
    assert.equal(final.status, GameStatus.FINISHED);
    for (const [i, watch] of watches.entries()) {
      assert.ok(watch.reconnects >= 1, "the stream was not cut");
      assertWholeFeed(followers[i]?.feed ?? [], final.version);
    }
  } finally {
    for (const w of watches ?? []) w.cancel();
    client.close();
    await server.stop();
  }
});

test("watches resume when the server ends their connections (max connection age)", async () => {
  // Every connection is asked to go after 0.5 s and cut 0.2 s later: the
  // streams of a longer game drop and resume on new connections.
  const server = await ServerProcess.start({
    extra: ["--max-connection-age", "0.5", "--max-connection-age-grace", "0.2"],
  });
  const client = clientOf(server);
  let watches: Watch[] | undefined;
  try {
    const created = await client.createGame({
      variant: "rummy",
      seats: ["ann", BotLevel.GREEDY],
      overrides: { targetScore: 0, maxRounds: 3 },
    });
    const seat = await client.join(created.name, "ann");
    watches = [client.watch(created.name), seat.watch()];
    const followers = watches.map(follow);
    // Play slowly enough that the connections age out mid-game.
    for (;;) {
      const played = await playTurn(seat);
      const view = await seat.view();
      if (view.status === GameStatus.FINISHED) break;
      if (!played) await new Promise((r) => setTimeout(r, 5));
      if (watches.every((w) => w.reconnects > 0)) {
        await playUntilFinished([seat]);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await Promise.all(followers.map((f) => f.done));
    const final = await seat.view();
    for (const [i, watch] of watches.entries()) {
      assert.ok(watch.reconnects >= 1, "the stream was not cut");
      assertWholeFeed(followers[i]?.feed ?? [], final.version);
    }
  } finally {
    for (const w of watches ?? []) w.cancel();
    client.close();
    await server.stop();
  }
});

test("a watch resumed from a version yields what followed it, once", async () => {
  const server = await ServerProcess.start();
  const client = clientOf(server);
  try {
    const created = await client.createGame({ variant: "rami51", seats: ["ann", BotLevel.GREEDY] });
    const seat = await client.join(created.name, "ann");
    await playUntilFinished([seat]);
    const whole: WatchItem[] = [];
    for await (const item of seat.watch({ afterVersion: 0 })) whole.push(item);
    assert.equal(whole[0]?.version, 1n);
    const middle = whole[Math.floor(whole.length / 2)];
    assert.ok(middle);
    const rest: WatchItem[] = [];
    for await (const item of seat.watch({ afterVersion: middle.version })) rest.push(item);
    assert.deepEqual(
      rest.map((i) => i.version),
      whole.filter((i) => i.version > middle.version).map((i) => i.version),
    );
    assert.ok(rest.every((i) => i.kind === "event"));
    // Watching a finished game from its last version ends at once.
    const last = whole.at(-1);
    assert.ok(last);
    const none: WatchItem[] = [];
    for await (const item of seat.watch({ afterVersion: last.version })) none.push(item);
    assert.deepEqual(none, []);
    // cancel() ends a watch that waits for events.
    const waiting = await client.createGame({ variant: "rummy", seats: ["", BotLevel.GREEDY] });
    const watch = client.watch(waiting.name);
    const seen: WatchItem[] = [];
    const done = (async () => {
      for await (const item of watch) {
        seen.push(item);
        watch.cancel();
      }
    })();
    await done;
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.kind, "snapshot");
  } finally {
    client.close();
    await server.stop();
  }
});

test("a batch of events is yielded one event at a time, in order", () => {
  const events = [5n, 6n, 7n].map((version) =>
    create(GameEventSchema, { version, event: { case: "discarded", value: { cardId: Number(version) } } }),
  );
  const batch = create(WatchGameResponseSchema, {
    version: 7n,
    payload: { case: "events", value: create(GameEventsSchema, { events }) },
  });
  const items = watchItems(batch);
  assert.deepEqual(
    items.map((i) => [i.kind, i.version]),
    [
      ["event", 5n],
      ["event", 6n],
      ["event", 7n],
    ],
  );
  const one = create(WatchGameResponseSchema, { version: 8n, payload: { case: "event", value: events[0]! } });
  assert.deepEqual(
    watchItems(one).map((i) => i.version),
    [5n],
  );
});
