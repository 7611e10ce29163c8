/** Typed errors carrying the server's ErrorInfo reason, and request ids applied once. */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  BotLevel,
  Code,
  ConnectError,
  InvalidArgument,
  MoveRejected,
  NotFound,
  PermissionDenied,
  Seat,
  ServiceError,
  StaleVersion,
  TurnPhase,
  Unauthenticated,
  sortCards,
  type Client,
} from "@ramino/client";
import type { Interceptor } from "@connectrpc/connect";
import { ServerProcess, clientOf } from "./support.js";

let server: ServerProcess;
before(async () => {
  server = await ServerProcess.start();
});
after(async () => {
  await server.stop();
});

/** A game of two people: [the seat whose turn it is, the other]. */
async function twoPeople(client: Client, variant = "ramino51"): Promise<[Seat, Seat]> {
  const created = await client.createGame({ variant, seats: ["ann", "bob"] });
  const ann = await client.join(created.name, "ann");
  const bob = await client.join(created.name, "bob");
  const view = await ann.view();
  return view.turn === ann.seat ? [ann, bob] : [bob, ann];
}

test("a refused move throws MoveRejected with the rule's reason NOT_YOUR_TURN", async () => {
  const client = clientOf(server);
  try {
    const [onTurn, waiting] = await twoPeople(client);
    const refused = await waiting.drawFromStock().then(
      () => assert.fail("drawing out of turn was accepted"),
      (e: unknown) => e,
    );
    assert.ok(refused instanceof MoveRejected && refused instanceof ServiceError);
    assert.equal(refused.reason, "NOT_YOUR_TURN");
    assert.equal(refused.code, Code.FailedPrecondition);
    assert.equal(refused.codeName, "FAILED_PRECONDITION");
    assert.equal(refused.domain, "ramino.v1");
    assert.ok(refused.detail.length > 0);
    assert.ok(refused.cause instanceof ConnectError);
    // ramino51: the first player starts with an extra card and no draw.
    assert.equal((await onTurn.view()).phase, TurnPhase.PLAY);
    await assert.rejects(onTurn.drawFromStock(), (e: unknown) => {
      assert.ok(e instanceof MoveRejected);
      assert.ok(["ALREADY_DREW", "FIRST_TURN_HAS_NO_DRAW"].includes(e.reason), e.reason);
      return true;
    });
  } finally {
    client.close();
  }
});

test("a stale expected version throws StaleVersion (ABORTED) with both versions, and changes nothing", async () => {
  const client = clientOf(server);
  try {
    const [onTurn] = await twoPeople(client);
    const view = await onTurn.view();
    const card = sortCards(view.hand)[0];
    assert.ok(card);
    await assert.rejects(onTurn.discard(card, { expectedVersion: view.version - 1n }), (e: unknown) => {
      assert.ok(e instanceof StaleVersion);
      assert.equal(e.reason, "VERSION_MISMATCH");
      assert.equal(e.code, Code.Aborted);
      assert.deepEqual([e.expected, e.actual], [view.version - 1n, view.version]);
      return true;
    });
    assert.equal((await onTurn.view()).version, view.version);
    const result = await onTurn.discard(card, { expectedVersion: view.version });
    assert.ok((result.view?.version ?? 0n) > view.version);
    assert.ok(!result.view?.hand.some((c) => c.id === card.id));
  } finally {
    client.close();
  }
});

test("lookups and tokens: NotFound, a forged token Unauthenticated, another game's token PermissionDenied", async () => {
  const client = clientOf(server);
  try {
    const [onTurn, waiting] = await twoPeople(client);
    await assert.rejects(client.getGame("games/nosuchgame"), (e: unknown) => {
      assert.ok(e instanceof NotFound);
      assert.equal(e.reason, "GAME_NOT_FOUND");
      return true;
    });
    await assert.rejects(client.seat(onTurn.name, "not-a-token"), (e: unknown) => {
      assert.ok(e instanceof Unauthenticated);
      assert.equal(e.reason, "TOKEN_INVALID");
      return true;
    });
    const other = await client.createGame({ variant: "rummy", seats: ["carol", BotLevel.GREEDY] });
    const intruder = new Seat(client, other.name, 0, onTurn.token);
    await assert.rejects(intruder.legalMoves(), (e: unknown) => {
      assert.ok(e instanceof PermissionDenied);
      assert.equal(e.reason, "WRONG_GAME");
      return true;
    });
    await assert.rejects(onTurn.layMelds([[]]), (e: unknown) => {
      assert.ok(e instanceof InvalidArgument);
      assert.equal(e.reason, "EMPTY_MELD");
      return true;
    });
    await assert.rejects(client.createGame({ seats: [] }), InvalidArgument);
    const back = await client.seat(waiting.gameId, waiting.token);
    assert.equal(back.seat, waiting.seat);
  } finally {
    client.close();
  }
});

/**
 * Lets the first call of `method` reach the server, then reports UNAVAILABLE
 * as if the answer had been lost on the way back; records each attempt's
 * request id.
 */
function loseFirstAnswer(method: string, requestIds: string[]): Interceptor {
  let lost = false;
  return (next) => async (req) => {
    const response = await next(req);
    if (req.method.name === method) {
      requestIds.push((req.message as unknown as { requestId: string }).requestId);
      if (!lost) {
        lost = true;
        throw new ConnectError("answer lost on the way back", Code.Unavailable);
      }
    }
    return response;
  };
}

test("a move whose answer is lost is retried with the same request id and applied once", async () => {
  const requestIds: string[] = [];
  const client = clientOf(server, { interceptors: [loseFirstAnswer("Discard", requestIds)] });
  try {
    const [onTurn] = await twoPeople(client);
    const before = await onTurn.view();
    const card = before.hand[0];
    assert.ok(card);
    const result = await onTurn.discard(card);
    // Two attempts, one request id: the server answered the retry with its first answer.
    assert.equal(requestIds.length, 2);
    assert.equal(requestIds[0], requestIds[1]);
    const after = await onTurn.view();
    assert.equal(result.view?.version, after.version);
    assert.equal(after.hand.length, before.hand.length - 1);
    const discards = result.events.filter((e) => e.event.case === "discarded");
    assert.equal(discards.length, 1);
    // Replaying the request id by hand is answered the same, and applies nothing.
    const again = await onTurn.discard(card, { requestId: requestIds[0] });
    assert.equal(again.view?.version, result.view?.version);
    assert.equal((await onTurn.view()).version, after.version);
  } finally {
    client.close();
  }
});

test("create and join request ids are scoped by the caller key (ramino-caller-key)", async () => {
  const mine = clientOf(server);
  const stranger = clientOf(server);
  try {
    assert.notEqual(mine.callerKey, stranger.callerKey);
    const game = await mine.createGame({ variant: "rummy", seats: ["", ""], requestId: "create-1" });
    const same = await mine.createGame({ variant: "rummy", seats: ["", ""], requestId: "create-1" });
    assert.equal(same.name, game.name);
    const theirs = await stranger.createGame({ variant: "rummy", seats: ["", ""], requestId: "create-1" });
    assert.notEqual(theirs.name, game.name);
    const seat = await mine.join(game.name, "ann", { requestId: "join-1" });
    await assert.rejects(stranger.join(game.name, "ann", { requestId: "join-1" }), (e: unknown) => {
      assert.ok(e instanceof ServiceError);
      assert.equal(e.reason, "REQUEST_ID_REUSED");
      return true;
    });
    const again = clientOf(server, { callerKey: mine.callerKey });
    try {
      assert.equal((await again.join(game.name, "ann", { requestId: "join-1" })).seat, seat.seat);
    } finally {
      again.close();
    }
  } finally {
    mine.close();
    stranger.close();
  }
});
