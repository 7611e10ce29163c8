/**
 * What a seat may do, pushed: a seat's watch carries its options (the turn
 * coming to it, leaving it), a move's answer its next ones, so that a seat
 * plays a whole match with no GetLegalMoves.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { create, equals } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { BotLevel, GameStatus, watchItem, watchItems, type SeatOptions, type WatchItem } from "@ramino/client";
import {
  GameEventSchema,
  GameEventsSchema,
  MoveSchema,
  SeatOptionsSchema,
  WatchGameResponseSchema,
} from "@ramino/client/gen/game";
import { ServerProcess, choose, clientOf, consecutive } from "./support.js";

/** Counts the calls a client makes, by method (a stream counts once). */
function counter(): { calls: Map<string, number>; interceptor: Interceptor } {
  const calls = new Map<string, number>();
  const interceptor: Interceptor = (next) => (req) => {
    calls.set(req.method.name, (calls.get(req.method.name) ?? 0) + 1);
    return next(req);
  };
  return { calls, interceptor };
}

const sameMoves = (a: SeatOptions, b: { moves: SeatOptions["moves"] }): boolean =>
  a.moves.length === b.moves.length && a.moves.every((m, i) => equals(MoveSchema, m, b.moves[i]!));

test("a seat plays a whole match from its watch's pushed options and its moves' answers, with no GetLegalMoves", { timeout: 120_000 }, async () => {
  const server = await ServerProcess.start();
  const { calls, interceptor } = counter();
  const client = clientOf(server, { interceptors: [interceptor] });
  // Checks from the side, not counted: GetLegalMoves at the same version, a spectator.
  const checker = clientOf(server);
  try {
    const created = await checker.createGame({
      variant: "rummy",
      seats: ["", BotLevel.GREEDY],
      overrides: { targetScore: 0, maxRounds: 2 },
    });
    const seat = await client.join(created.name, "ann");
    const spectator = checker.watch(created.name);
    const spectated = (async () => {
      const items: WatchItem[] = [];
      for await (const item of spectator) items.push(item);
      return items;
    })();
    const other = await checker.seat(created.name, seat.token);

    const watch = seat.watch();
    const items: WatchItem[] = [];
    /** The latest version whose options the player knows (a move's answer is often ahead of the watch). */
    let known = -1n;
    let moves = 0;
    let turns = 0;
    let checkedSnapshot = false;
    for await (const item of watch) {
      items.push(item);
      const pushed = item.options;
      if (pushed === undefined) continue;
      // Options ride on the item they follow.
      assert.equal(pushed.version, item.version);
      if (pushed.version < known) continue; // past: this seat moved on since
      if (pushed.moves.length === 0) {
        assert.notEqual(pushed.turn, seat.seat, `no moves at ${pushed.version} though the turn is the seat's`);
        continue;
      }
      assert.equal(pushed.turn, seat.seat);
      // The game waits for this seat: GetLegalMoves says the same.
      const asked = await other.legalMoves();
      assert.equal(asked.version, pushed.version);
      assert.ok(sameMoves(pushed, asked), `pushed and asked moves differ at ${pushed.version}`);
      assert.ok(equals(SeatOptionsSchema, pushed, asked.options!), "GetLegalMoves' options differ from the pushed ones");
      if (!checkedSnapshot) {
        // A new watch of the seat starts with a snapshot carrying the options.
        const again = other.watch();
        for await (const first of again) {
          assert.equal(first.kind, "snapshot");
          assert.ok(first.options && equals(SeatOptionsSchema, first.options, pushed), "the snapshot's options differ");
          again.cancel();
        }
        checkedSnapshot = true;
      }
      turns += 1;
      let options: SeatOptions = pushed;
      while (options.moves.length > 0) {
        const move = choose(options);
        assert.ok(move);
        const result = await seat.play(move, { expectedVersion: options.version });
        moves += 1;
        assert.ok(result.options, "a move's answer without options");
        assert.equal(result.options.version, result.view?.version);
        assert.ok(sameMoves(result.options, { moves: result.legalMoves }));
        options = result.options;
        known = options.version;
      }
    }
    const final = await other.view();
    assert.equal(final.status, GameStatus.FINISHED);
    assert.ok(turns >= 2 && moves >= turns * 2, `${turns} turns, ${moves} moves`);
    assert.equal(items.at(-1)?.version, final.version);
    assert.ok(consecutive(items.map((i) => i.version)));
    // The watch keeps the last options pushed: none once the match is over.
    const last = items.filter((i) => i.options !== undefined).at(-1);
    assert.equal(watch.options, last?.options);
    assert.equal(watch.options?.moves.length, 0);
    // Each turn that came to the seat came with its moves (the loop played
    // only from them), and each left it with none.
    const withMoves = items.filter((i) => i.options?.moves.length);
    assert.ok(withMoves.every((i) => i.kind === "snapshot" || i.event.turn === seat.seat));
    // Not one GetLegalMoves or GetGame: the moves, the join and one watch.
    assert.equal(calls.get("GetLegalMoves"), undefined);
    assert.equal(calls.get("GetGame"), undefined);
    assert.equal(calls.get("WatchGame"), 1);
    const moveCalls = [...calls].filter(([m]) => !["JoinGame", "WatchGame"].includes(m)).reduce((n, [, c]) => n + c, 0);
    assert.equal(moveCalls, moves);
    // A spectator's watch carries no seat's options.
    const seen = await spectated;
    assert.equal(seen.at(-1)?.version, final.version);
    assert.ok(seen.every((i) => i.options === undefined));
  } finally {
    client.close();
    checker.close();
    await server.stop();
  }
});

test("a watch message's options ride on its item, on the last of a batch", () => {
  const events = [5n, 6n, 7n].map((version) =>
    create(GameEventSchema, { version, turn: 0, event: { case: "discarded", value: { cardId: Number(version) } } }),
  );
  const options = create(SeatOptionsSchema, { version: 7n, turn: 0 });
  const batch = create(WatchGameResponseSchema, {
    version: 7n,
    payload: { case: "events", value: create(GameEventsSchema, { events }) },
    options,
  });
  assert.deepEqual(
    watchItems(batch).map((i) => [i.version, i.options?.version]),
    [
      [5n, undefined],
      [6n, undefined],
      [7n, 7n],
    ],
  );
  const one = create(WatchGameResponseSchema, { version: 5n, payload: { case: "event", value: events[0]! }, options });
  assert.equal(watchItem(one).options, options);
  assert.equal(watchItems(one)[0]?.options, options);
  // No options in the message: none on the item (not an empty one).
  const bare = create(WatchGameResponseSchema, { version: 5n, payload: { case: "event", value: events[0]! } });
  assert.equal("options" in watchItem(bare), false);
  assert.equal("options" in watchItems(batch)[0]!, false);
});
