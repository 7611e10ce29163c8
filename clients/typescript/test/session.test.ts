/**
 * Seats' sessions (PlayGame) against a real `ramino serve`: whole games
 * played by the bot helper from what the sessions push, refusals as
 * answers on a stream that stays open, a retried request id answered once,
 * a session resumed across a killed server missing and repeating nothing,
 * unary moves of the same seat interleaving, and the fallback to unary
 * moves plus the watch (a transport without bidirectional streams, and a
 * server without PlayGame).
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Interceptor } from "@connectrpc/connect";
import {
  BotLevel,
  GameStatus,
  NO_RETRY,
  StaleVersion,
  choose,
  playSession,
  type Client,
  type Seat,
  type Session,
  type SessionUpdate,
} from "@ramino/client";
import { connect } from "@ramino/client/node";
import { connect as connectWeb } from "@ramino/client/web";
import {
  PATIENT,
  PYTHON,
  REPO,
  ServerProcess,
  TOKEN_SECRET,
  clientOf,
  consecutive,
  freePort,
  scratchDir,
} from "./support.js";

let server: ServerProcess;
before(async () => {
  server = await ServerProcess.start();
});
after(async () => {
  await server.stop();
});

/** Counts the calls made through a client, by method name. */
function counting(): { calls: Map<string, number>; interceptor: Interceptor } {
  const calls = new Map<string, number>();
  const interceptor: Interceptor = (next) => (request) => {
    calls.set(request.method.name, (calls.get(request.method.name) ?? 0) + 1);
    return next(request);
  };
  return { calls, interceptor };
}

/** A rummy game of one round between two people, both joined. */
async function twoPeople(client: Client): Promise<[Seat, Seat]> {
  const created = await client.createGame({ variant: "rummy", seats: ["ann", "bo"], overrides: { targetScore: 0, maxRounds: 1 } });
  return [await client.join(created.name, "ann"), await client.join(created.name, "bo")];
}

/** The seat whose turn it is first, and the other. */
async function byTurn(seats: [Seat, Seat]): Promise<[Seat, Seat]> {
  const view = await seats[0].view();
  return view.turn === seats[0].seat ? seats : [seats[1], seats[0]];
}

/** The versions of the events an update brings (a snapshot's own version). */
function versionsOf(update: SessionUpdate): bigint[] {
  if (update.kind === "snapshot") return [update.version];
  if (update.kind === "event") return [update.version];
  if (update.kind === "answer") return update.result.events.map((e) => e.version);
  return [];
}

async function next(session: { next(): Promise<SessionUpdate | undefined> }): Promise<SessionUpdate> {
  const update = await session.next();
  assert.ok(update !== undefined, "the session ended early");
  return update;
}

/** `run` with the seat to move first in a fresh game, its session, and the session's first update. */
async function onTurn(run: (mover: Seat, session: Session, first: SessionUpdate) => Promise<void>): Promise<void> {
  const client = clientOf(server);
  try {
    const [mover] = await byTurn(await twoPeople(client));
    const session = mover.session();
    try {
      await run(mover, session, await next(session));
    } finally {
      session.close();
    }
  } finally {
    client.close();
  }
}

test("two seats play a game to its end from their sessions, asking for nothing", async () => {
  const { calls, interceptor } = counting();
  const client = clientOf(server, { interceptors: [interceptor] });
  try {
    const seats = await twoPeople(client);
    calls.clear();
    const finals = await Promise.all(seats.map((seat) => playSession(seat)));
    for (const view of finals) assert.equal(view.status, GameStatus.FINISHED);
    assert.ok(finals[0]!.winners.length > 0);
    // One session each and the final view: no GetLegalMoves, no unary move.
    assert.equal(calls.get("PlayGame"), 2);
    assert.equal(calls.get("GetLegalMoves"), undefined);
    assert.equal(calls.get("DrawFromStock"), undefined);
    assert.equal(calls.get("GetGame"), 2);
  } finally {
    client.close();
  }
});

test("a seat plays against a bot from its session", async () => {
  const client = clientOf(server);
  try {
    const created = await client.createGame({ variant: "gin", seats: ["ann", BotLevel.GREEDY], overrides: { targetScore: 0, maxRounds: 2 } });
    const seat = await client.join(created.name, "ann");
    const view = await playSession(seat);
    assert.equal(view.status, GameStatus.FINISHED);
    assert.equal(view.rounds.length, 2);
  } finally {
    client.close();
  }
});

test("a refused move is an answer with the SDK's error, and the session stays open", async () => {
  await onTurn(async (mover, session, first) => {
    assert.equal(first.kind, "snapshot");
    assert.ok(first.options && first.options.moves.length > 0, "the snapshot pushes the seat's options");
    const v = first.version;
    const draw = { move: { case: "drawFromStock" as const, value: {} } };

    const stale = await session.send(draw, { expectedVersion: v - 1n });
    const refused = await next(session);
    assert.ok(refused.kind === "refused" && refused.requestId === stale);
    assert.ok(refused.error instanceof StaleVersion);
    assert.equal(refused.error.reason, "VERSION_MISMATCH");
    assert.equal(refused.error.expected, v - 1n);
    assert.equal(refused.error.actual, v);

    // A card it does not hold: the same refusal as the unary call's.
    const bad = await session.send({ move: { case: "discard", value: { cardId: 9999 } } });
    const invalid = await next(session);
    assert.ok(invalid.kind === "refused" && invalid.requestId === bad);
    let unary: unknown;
    try {
      await mover.discard(9999);
    } catch (e) {
      unary = e;
    }
    assert.ok(unary instanceof Error && unary.constructor === invalid.error.constructor);
    assert.equal((unary as typeof invalid.error).reason, invalid.error.reason);

    const sent = await session.send(draw, { expectedVersion: v });
    const drew = await next(session);
    assert.ok(drew.kind === "answer" && drew.requestId === sent);
    assert.equal(drew.result.view?.version, v + 1n);
    assert.ok((drew.options?.moves.length ?? 0) > 0, "still its turn: a discard");
    assert.equal(session.lastVersion, v + 1n);
    assert.equal(session.reconnects, 0);
  });
});

test("a request id sent twice, and again as a unary call, is applied once and each sending answered alike", async () => {
  await onTurn(async (mover, session, first) => {
    const v = first.version;
    const draw = { move: { case: "drawFromStock" as const, value: {} } };
    const id = await session.send(draw, { expectedVersion: v });
    await session.send(draw, { expectedVersion: v, requestId: id });
    const drew = await next(session);
    assert.ok(drew.kind === "answer" && drew.requestId === id);
    assert.equal(drew.result.view?.version, v + 1n);
    // The retry is answered too (nothing is filtered): the first answer again.
    const retried = await next(session);
    assert.ok(retried.kind === "answer" && retried.requestId === id);
    assert.deepEqual(
      retried.result.events.map((e) => e.version),
      drew.result.events.map((e) => e.version),
    );
    // The same id as a unary call: the first answer again, nothing applied.
    const again = await mover.drawFromStock({ expectedVersion: v, requestId: id });
    assert.equal(again.view?.version, v + 1n);
    assert.deepEqual(
      again.events.map((e) => e.version),
      drew.result.events.map((e) => e.version),
    );
    // The next update is the discard's answer: the unary retry is no update.
    const discard = drew.options?.moves.find((m) => m.move.case === "discard");
    assert.ok(discard !== undefined);
    const discarded = await session.send(discard, { expectedVersion: v + 1n });
    const after = await next(session);
    assert.ok(after.kind === "answer" && after.requestId === discarded, `got ${after.kind}`);
    assert.equal(after.result.view?.version, v + 2n);
    assert.equal((await mover.view()).version, v + 2n);
  });
});

test("unary moves of the same seat interleave with its session's", async () => {
  await onTurn(async (mover, session, first) => {
    const v = first.version;
    // A unary draw: the session shows it as an event, with the options it leaves.
    const drew = await mover.drawFromStock({ expectedVersion: v });
    const event = await next(session);
    assert.ok(event.kind === "event" && event.event.event.case === "drewFromStock");
    assert.equal(event.version, v + 1n);
    assert.ok(event.options && event.options.version === v + 1n);
    assert.deepEqual(
      event.options.moves.map((m) => m.move.case).sort(),
      drew.legalMoves.map((m) => m.move.case).sort(),
    );
    // The discard on the session, then a unary move refused for its version.
    const discard = choose(event.options)!;
    const id = await session.send(discard, { expectedVersion: v + 1n });
    const answer = await next(session);
    assert.ok(answer.kind === "answer" && answer.requestId === id);
    assert.equal(answer.result.view?.version, v + 2n);
    await assert.rejects(mover.drawFromStock({ expectedVersion: v + 1n }), StaleVersion);
    assert.equal(session.lastVersion, v + 2n);
  });
});

test("a session resumes across a killed and restarted sqlite server, missing and repeating nothing", async () => {
  const sqlite = await ServerProcess.start({ store: `sqlite:${join(scratchDir("db"), "ramino.db")}` });
  const client = clientOf(sqlite);
  try {
    const created = await client.createGame({ variant: "rummy", seats: ["ann", BotLevel.GREEDY], overrides: { targetScore: 0, maxRounds: 1 } });
    const seat = await client.join(created.name, "ann");
    const session = seat.session();
    const covered: bigint[] = [];
    const answered: string[] = [];
    let decisions = 0;
    let cut: string | undefined;
    for await (const update of session) {
      covered.push(...versionsOf(update));
      if (update.kind === "answer") answered.push(update.requestId);
      assert.notEqual(update.kind, "refused", update.kind === "refused" ? update.error.message : "");
      if (session.ended) break;
      const legal = update.options;
      if (legal === undefined || legal.moves.length === 0) continue;
      const id = await session.send(choose(legal)!, { expectedVersion: legal.version });
      decisions += 1;
      if (decisions === 3) {
        // The move just sent may or may not have reached the server: either
        // way it is sent again after the restart and answered once.
        cut = id;
        await sqlite.kill();
        await sqlite.start();
      }
    }
    assert.ok(cut !== undefined && answered.includes(cut), "the move cut off was never answered");
    assert.ok(session.reconnects >= 1, "the stream was not cut");
    assert.equal(new Set(answered).size, answered.length, "an answer came twice");
    assert.equal(answered.length, decisions);
    const final = await seat.view();
    assert.equal(final.status, GameStatus.FINISHED);
    // From the snapshot to the end, every version once and in order.
    assert.ok(consecutive(covered), `versions: ${covered.join(",")}`);
    assert.equal(covered.at(-1), final.version);
  } finally {
    client.close();
    await sqlite.stop();
  }
});

test("without bidirectional streams the session plays through unary moves and the watch", async () => {
  const { calls, interceptor } = counting();
  const client = connect(server.address, { retry: PATIENT, interceptors: [interceptor], bidiStreams: false });
  try {
    const seats = await twoPeople(client);
    const sessions = seats.map((s) => s.session());
    // Both seats' loops, by hand, to see every update.
    const feeds = await Promise.all(
      sessions.map(async (session) => {
        const feed: SessionUpdate[] = [];
        for await (const update of session) {
          assert.ok(session.fallback);
          feed.push(update);
          if (update.kind === "refused") {
            if (update.error instanceof StaleVersion) continue;
            throw update.error;
          }
          if (session.ended) break;
          const legal = update.options;
          if (legal !== undefined && legal.moves.length > 0) {
            await session.send(choose(legal)!, { expectedVersion: legal.version });
          }
        }
        return feed;
      }),
    );
    assert.equal((await seats[0].view()).status, GameStatus.FINISHED);
    assert.equal(calls.get("PlayGame"), undefined);
    assert.ok((calls.get("WatchGame") ?? 0) >= 2);
    assert.ok((calls.get("DrawFromStock") ?? 0) > 0);
    for (const feed of feeds) {
      const versions = feed.flatMap(versionsOf);
      assert.ok(consecutive(versions), `versions: ${versions.join(",")}`);
      assert.equal(feed[0]?.kind, "snapshot");
    }
  } finally {
    client.close();
  }
});

/**
 * A server of GameService without PlayGame (as one from before sessions):
 * the real servicer and interceptor in a grpc.aio server that registers
 * every method but that one; its address, and how to stop it.
 */
async function olderServer(): Promise<{ address: string; stop: () => Promise<void> }> {
  const code = `
import asyncio, grpc, sys
from ramino.api.auth import TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.interceptors import DEFAULT_MAX_MESSAGE_BYTES, ServiceInterceptor
from ramino.app import GameApp
from ramino.store import open_store
from ramino.v1 import game_pb2

async def main():
    app = GameApp(open_store("memory"))
    await app.start()
    servicer = GameServicer(app, TokenIssuer(sys.argv[1]))
    service = game_pb2.DESCRIPTOR.services_by_name["GameService"]
    handlers = {}
    for method in service.methods:
        if method.name == "PlayGame":
            continue
        make = grpc.unary_stream_rpc_method_handler if method.server_streaming else grpc.unary_unary_rpc_method_handler
        handlers[method.name] = make(
            getattr(servicer, method.name),
            request_deserializer=getattr(game_pb2, method.input_type.name).FromString,
            response_serializer=lambda r: r if isinstance(r, bytes) else r.SerializeToString(),
        )
    # The server's own interceptor: errors mapped to their statuses, as served.
    server = grpc.aio.server(interceptors=[ServiceInterceptor(DEFAULT_MAX_MESSAGE_BYTES)])
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service.full_name, handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()

asyncio.run(main())
`;
  const child = spawn(PYTHON, ["-c", code, TOKEN_SECRET], { cwd: REPO, stdio: ["ignore", "pipe", "ignore"] });
  const line = await new Promise<string>((ok, fail) => {
    child.once("exit", (c) => fail(new Error(`the older server exited (${c})`)));
    createInterface({ input: child.stdout! }).once("line", ok);
  });
  const address = `127.0.0.1:${line.trim()}`;
  return {
    address,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

test("against a server without PlayGame (UNIMPLEMENTED) the session falls back, its pending move included", async () => {
  const older = await olderServer();
  const { calls, interceptor } = counting();
  const client = connect(older.address, { retry: NO_RETRY, interceptors: [interceptor] });
  try {
    const [mover, other] = await byTurn(await twoPeople(client));
    const view = await mover.view();
    const session = mover.session();
    // Sent before anything comes back: the stream's UNIMPLEMENTED sends it as a unary call.
    const id = await session.send({ move: { case: "drawFromStock", value: {} } }, { expectedVersion: view.version });
    const answer = await next(session);
    assert.ok(session.fallback);
    assert.ok(answer.kind === "answer" && answer.requestId === id);
    assert.equal(answer.result.view?.version, view.version + 1n);
    assert.equal(calls.get("PlayGame"), 1);
    assert.equal(calls.get("DrawFromStock"), 1);
    session.close();
    // And whole games, each seat by the bot helper.
    const finals = await Promise.all([playSession(mover), playSession(other)]);
    for (const final of finals) assert.equal(final.status, GameStatus.FINISHED);
    assert.ok((calls.get("GetLegalMoves") ?? 0) > 0);
  } finally {
    client.close();
    await older.stop();
  }
});

/** `ramino gateway` (Envoy, gRPC-web) in front of `upstream`, ready; its origin and how to stop it. */
async function gateway(upstream: string): Promise<{ origin: string; stop: () => Promise<void> }> {
  const [port, admin] = [await freePort(), await freePort()];
  const args = ["-m", "ramino", "gateway", "--port", String(port), "--upstream", upstream, "--admin-port", String(admin)];
  const child = spawn(PYTHON, args, { cwd: REPO, stdio: "ignore" });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    child.kill("SIGTERM");
    await exited;
  };
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode})`);
    try {
      const ready = await fetch(`http://127.0.0.1:${admin}/ready`);
      if ((await ready.text()).trim() === "LIVE") return { origin: `http://127.0.0.1:${port}`, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error("the gateway did not become ready");
}

test("through the web entry (gRPC-web, Envoy) the session plays through unary moves and the watch", async () => {
  const envoy = await gateway(server.address);
  const client = connectWeb(envoy.origin, { retry: PATIENT });
  try {
    const seats = await twoPeople(client);
    assert.ok(seats[0].session().fallback, "gRPC-web has no bidirectional streams");
    const finals = await Promise.all(seats.map((seat) => playSession(seat)));
    for (const view of finals) assert.equal(view.status, GameStatus.FINISHED);
    // A refusal through gRPC-web is the same typed error, as an update.
    const session = seats[0].session({ afterVersion: finals[0]!.version });
    const id = await session.send({ move: { case: "drawFromStock", value: {} } });
    const refused = await next(session);
    assert.ok(refused.kind === "refused" && refused.requestId === id);
    assert.equal(refused.error.reason, "MATCH_OVER");
    session.close();
  } finally {
    client.close();
    await envoy.stop();
  }
});
