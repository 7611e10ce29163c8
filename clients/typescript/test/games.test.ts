/** Whole games of every variant played to the end by SDK seats against bots. */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { BotLevel, GameStatus, TurnPhase, type Overrides, type WatchItem } from "@ramino/client";
import { ServerProcess, clientOf, consecutive, playTurn, playUntilFinished } from "./support.js";

let server: ServerProcess;
before(async () => {
  server = await ServerProcess.start();
});
after(async () => {
  await server.stop();
});

// rummy and gin play to a target by default: a two-round match keeps the
// tests short and still crosses a round boundary.
const VARIANTS: Record<string, Overrides> = {
  ramino51: {},
  rami51: {},
  rummy: { targetScore: 0, maxRounds: 2 },
  gin: { targetScore: 0, maxRounds: 2 },
};

async function collect(items: AsyncIterable<WatchItem>): Promise<WatchItem[]> {
  const out: WatchItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

for (const [variant, overrides] of Object.entries(VARIANTS)) {
  test(`a ${variant} game is played to its end by an SDK seat against bots`, async () => {
    const client = clientOf(server);
    try {
      // gin is for two: one person and a bot; the others one person and two bots.
      const seats = variant === "gin" ? ["ann", BotLevel.GREEDY] : ["ann", BotLevel.GREEDY, BotLevel.RANDOM];
      const created = await client.createGame({ variant, seats, overrides });
      assert.equal(created.game.status, GameStatus.WAITING);
      assert.equal(created.game.openSeats, 1);
      const seat = await client.join(created.name, "ann");
      assert.equal(seat.seat, 0);
      assert.equal(seat.lastView?.status, GameStatus.PLAYING);
      assert.ok((seat.lastView?.hand.length ?? 0) > 0);

      const spectator = collect(client.watch(created.name));
      const mine = collect(seat.watch());
      await playUntilFinished([seat]);
      const [watched, own] = await Promise.all([spectator, mine]);
      const view = await seat.view();

      assert.equal(view.status, GameStatus.FINISHED);
      assert.equal(view.phase, TurnPhase.NONE);
      assert.equal(view.turn, undefined);
      assert.ok(view.winners.length > 0);
      assert.equal(createHash("sha256").update(view.seed).digest("hex"), view.seedHash);
      assert.equal(view.rounds.length, overrides.maxRounds ?? 1);
      for (const feed of [watched, own]) {
        // A snapshot, then every event once, in order, to the end of the match.
        assert.equal(feed[0]?.kind, "snapshot");
        const last = feed.at(-1);
        assert.ok(last?.kind === "event" && last.event.event.case === "matchEnded");
        assert.equal(last.version, view.version);
        assert.ok(consecutive(feed.map((i) => i.version)));
      }
      const first = watched[0];
      assert.ok(first?.kind === "snapshot" && first.view.seat === undefined);
      // The spectator sees no drawn card; the seat sees its own.
      for (const item of watched) {
        if (item.kind === "event" && item.event.event.case === "drewFromStock") {
          assert.equal(item.event.event.value.cardId, undefined);
        }
      }
      const drawn = own.filter((i) => i.kind === "event" && i.event.event.case === "drewFromStock");
      for (const item of drawn) {
        assert.ok(item.kind === "event" && item.event.event.case === "drewFromStock");
        assert.equal(item.event.event.value.cardId !== undefined, item.event.seat === 0);
      }
      const scores = watched.flatMap((i) =>
        i.kind === "event" && i.event.event.case === "roundEnded" ? [i.event.event.value.scores] : [],
      );
      assert.deepEqual(scores, view.rounds.map((r) => r.scores));
      const endings = new Set(view.rounds.map((r) => r.ending));
      const allowed =
        variant === "gin"
          ? ["knock", "gin", "big_gin", "undercut", "drawn"]
          : ["went_out", "stock_exhausted", "turn_limit", "resignations"];
      assert.ok([...endings].every((e) => allowed.includes(e)), [...endings].join(","));
    } finally {
      client.close();
    }
  });
}

test("two SDK seats and a bot play a rummy match, each driven by its own watch", async () => {
  const client = clientOf(server);
  try {
    const created = await client.createGame({
      variant: "rummy",
      seats: ["ann", "bob", BotLevel.GREEDY],
      overrides: VARIANTS["rummy"],
    });
    const ann = await client.join(created.name, "ann", { seat: 0 });
    const bob = await client.join(created.name, "bob");
    assert.deepEqual([ann.seat, bob.seat], [0, 1]);
    const drive = async (seat: typeof ann): Promise<WatchItem[]> => {
      const feed: WatchItem[] = [];
      for await (const item of seat.watch()) {
        feed.push(item);
        await playTurn(seat);
      }
      return feed;
    };
    const feeds = await Promise.all([drive(ann), drive(bob)]);
    const view = await client.getGame(created.name);
    assert.equal(view.status, GameStatus.FINISHED);
    assert.equal(view.seat, undefined);
    assert.equal(view.hand.length, 0);
    const finished = [];
    for await (const g of client.listGames({ status: GameStatus.FINISHED, pageSize: 1 })) finished.push(g.name);
    assert.ok(finished.includes(created.name));
    for (const [i, feed] of feeds.entries()) {
      const first = feed[0];
      assert.ok(first?.kind === "snapshot" && first.view.seat === i);
      assert.ok(consecutive(feed.map((x) => x.version)));
      for (const item of feed) {
        if (item.kind === "event" && item.event.event.case === "roundStarted") {
          const dealt = item.event.event.value;
          assert.equal(dealt.hand.length, dealt.handSizes[i]);
        }
      }
    }
  } finally {
    client.close();
  }
});
