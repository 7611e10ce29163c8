/**
 * The seat player (issue 35) against a real `ramino serve` dealing from a
 * fixed seed: a move refused for having been overtaken (made stale on
 * purpose: the same seat plays it first by a unary call) is told to
 * `onRefused` with the options it was chosen from, and the player plays the
 * match to its end from the next options; the view handed to the strategy
 * at each decision is the seat's at the options' version, equal to GetGame's
 * then (the discard pile's top, the card TakeDiscard takes, included); a
 * refusal that nothing overtook is thrown.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { create, equals } from "@bufbuild/protobuf";
import {
  GameStatus,
  GameViewSchema,
  MoveRejected,
  MoveSchema,
  StaleVersion,
  choose,
  overtaken,
  playSession,
  type GameView,
  type Move,
  type SeatOptions,
  type ServiceError,
} from "@ramino/client";
import { ServerProcess, clientOf } from "./support.js";

let server: ServerProcess;
before(async () => {
  server = await ServerProcess.start({ extra: ["--test-seed", "20261203"] });
});
after(async () => {
  await server.stop();
});

/** The decisions (counted from 0) at which the first seat's move is made stale on purpose. */
const STALE_AT = [2, 9, 20];

test("a player told of its stale moves plays the match to its end, each decision on the current view", async () => {
  const client = clientOf(server);
  const other = clientOf(server);
  try {
    const created = await client.createGame({ variant: "rummy", seats: ["ann", "bo"] });
    const seats = [await client.join(created.name, "ann"), await client.join(created.name, "bo")] as const;
    // A Seat of its own on the first seat's token: GetGame as the seat sees it, and the unary moves.
    const witness = await other.seat(created.name, seats[0].token);
    let decisions = 0;
    let drawsWithADiscard = 0;
    const mismatches: [bigint, bigint | undefined, bigint][] = [];
    const staled: bigint[] = [];
    const refused: [ServiceError, SeatOptions][] = [];
    const strategy = async (options: SeatOptions, view: GameView | undefined): Promise<Move | undefined> => {
      const server = await witness.view();
      if (view === undefined || !equals(GameViewSchema, view, server) || server.version !== options.version) {
        mismatches.push([options.version, view?.version, server.version]);
      }
      if (options.moves.some((m) => m.move.case === "drawFromStock") && server.discardPile.length > 0) drawsWithADiscard++;
      const move = choose(options);
      if (move !== undefined && STALE_AT.includes(decisions)) {
        await witness.play(move, { expectedVersion: options.version });
        staled.push(options.version);
      }
      decisions++;
      return move;
    };
    const finals = await Promise.all([
      playSession(seats[0], { strategy, onRefused: (error, options) => refused.push([error, options]) }),
      playSession(seats[1]),
    ]);
    for (const view of finals) assert.equal(view.status, GameStatus.FINISHED);
    assert.deepEqual(mismatches.slice(0, 3), []);
    assert.ok(decisions > 40 && drawsWithADiscard > 20, `${decisions} decisions, ${drawsWithADiscard} draws`);
    assert.equal(staled.length, STALE_AT.length);
    assert.deepEqual(
      refused.map(([, options]) => options.version),
      staled,
    );
    for (const [error] of refused) {
      assert.ok(error instanceof StaleVersion && overtaken(error));
      assert.equal(error.reason, "VERSION_MISMATCH");
    }
  } finally {
    client.close();
    other.close();
  }
});

test("a refusal nothing overtook (an illegal move) is thrown by the player", async () => {
  const client = clientOf(server);
  try {
    const created = await client.createGame({ variant: "rummy", seats: ["ann", "bo"] });
    const seats = [await client.join(created.name, "ann"), await client.join(created.name, "bo")];
    const turn = (await seats[0]!.view()).turn ?? 0;
    const mover = seats[turn]!;
    let told = 0;
    // A discard before drawing: the game waits on the seat, no new options would come.
    const illegal = (_: SeatOptions, view: GameView | undefined): Move =>
      create(MoveSchema, { move: { case: "discard", value: { cardId: view?.hand[0]?.id ?? 0 } } });
    await assert.rejects(
      playSession(mover, { strategy: illegal, onRefused: () => told++ }),
      (error: unknown) => error instanceof MoveRejected && !overtaken(error),
    );
    assert.equal(told, 0);
  } finally {
    client.close();
  }
});
