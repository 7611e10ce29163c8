/** Quick play against `ramino serve` with a player verifier: two tickets meet, each takes its own seat; ratings, the board, the history and the record. */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { NotFound, TicketState } from "@ramino/client";
import { ServerProcess, clientOf, scratchDir } from "./support.js";

const PLAYER_SECRET = "typescript-sdk-player-token-secret-32b!";

function playerToken(player: string): string {
  const b64 = (text: string): string => Buffer.from(text).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const body = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(JSON.stringify({ sub: player, iat: now, exp: now + 600 }))}`;
  return `${body}.${createHmac("sha256", PLAYER_SECRET).update(body).digest("base64url")}`;
}

let server: ServerProcess;
before(async () => {
  const secret = join(scratchDir("player"), "secret");
  writeFileSync(secret, PLAYER_SECRET);
  server = await ServerProcess.start({ extra: ["--player-token-secret-file", secret] });
});
after(async () => {
  await server.stop();
});

test("two tickets meet; each player gets its own seat, then its rating", async () => {
  const ann = clientOf(server, { playerToken: playerToken("ann") });
  const bob = clientOf(server, { playerToken: playerToken("bob") });
  try {
    const states: TicketState[] = [];
    const [annSeat, bobSeat] = await Promise.all([
      ann.quick.play({ variant: "rummy", playerName: "Ann", minSeats: 2, maxSeats: 2 }, (u) => states.push(u.state)),
      bob.quick.play({ variant: "rummy", playerName: "Bob", minSeats: 2, maxSeats: 2 }),
    ]);
    assert.equal(states[0], TicketState.SEARCHING);
    assert.equal(annSeat.name, bobSeat.name);
    assert.notEqual(annSeat.seat, bobSeat.seat);
    await bobSeat.resign();
    const rating = await bob.quick.rating("rummy");
    assert.equal(rating.rank, 2);
    assert.equal(rating.rating?.games, 1);
    const board = await bob.quick.leaderboard("rummy", 10);
    assert.deepEqual(board.entries.map((e) => e.player), ["ann", "bob"]);
    const [game] = await bob.quick.games();
    assert.ok(game?.rated);
    const record = await bob.quick.record(bobSeat.name);
    assert.equal(createHash("sha256").update(record.seed).digest("hex"), record.seedHash);
  } finally {
    ann.close();
    bob.close();
  }
});

test("another player's ticket is not found; a cancel ends the stream", async () => {
  const ann = clientOf(server, { playerToken: playerToken("ann") });
  const mallory = clientOf(server, { playerToken: playerToken("mallory") });
  try {
    const updates = ann.quick.submit({ variant: "rummy", playerName: "Ann", minSeats: 3, maxSeats: 3 });
    const first = (await updates.next()).value;
    assert.ok(first && first.state === TicketState.SEARCHING);
    await assert.rejects(mallory.quick.cancel(first.ticket), (e: unknown) => e instanceof NotFound);
    assert.equal((await ann.quick.cancel(first.ticket))?.state, TicketState.CANCELLED);
    let last = first;
    for await (const u of updates) last = u;
    assert.equal(last.state, TicketState.CANCELLED);
  } finally {
    ann.close();
    mallory.close();
  }
});

test("play resumes its ticket after its server is killed and started again", async () => {
  const dir = scratchDir("resume");
  const secret = join(dir, "secret");
  writeFileSync(secret, PLAYER_SECRET);
  const own = await ServerProcess.start({
    store: `sqlite:${join(dir, "games.db")}`,
    extra: ["--player-token-secret-file", secret, "--quick-ticket-grace", "60"],
  });
  const ann = clientOf(own, { playerToken: playerToken("ann") });
  const bob = clientOf(own, { playerToken: playerToken("bob") });
  try {
    const playing = ann.quick.play({ variant: "rummy", playerName: "Ann", minSeats: 2, maxSeats: 2 });
    let listed: string[] = [];
    for (let i = 0; i < 500 && listed.length === 0; i++) {
      listed = (await ann.quick.tickets()).map((t) => t.ticket);
      if (listed.length === 0) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(listed.length, 1);
    await own.kill();
    await own.start();
    assert.deepEqual((await ann.quick.tickets()).map((t) => t.ticket), listed);
    const bobSeat = await bob.quick.play({ variant: "rummy", playerName: "Bob", minSeats: 2, maxSeats: 2 });
    const annSeat = await playing;
    assert.equal(annSeat.name, bobSeat.name);
    assert.deepEqual(await ann.quick.tickets(), []);
  } finally {
    ann.close();
    bob.close();
    await own.stop();
  }
});

test("a party plays together: the leader queues it, the member's partyPlay finds his seat", async () => {
  const ann = clientOf(server, { playerToken: playerToken("pia") });
  const bob = clientOf(server, { playerToken: playerToken("quin") });
  try {
    const party = await ann.quick.createParty("Pia");
    const invited = await ann.quick.inviteToParty(party.name, "quin");
    const joined = await bob.quick.joinParty(party.name, invited.invitation, "Quin");
    assert.deepEqual(joined.members.map((m) => m.player), ["quin"]);
    const updates: TicketState[] = [];
    let opponents: string[] = [];
    const [annSeat, bobSeat] = await Promise.all([
      ann.quick.play({ variant: "rummy", playerName: "Pia", minSeats: 2, maxSeats: 2, party: party.name }, (u) => {
        updates.push(u.state);
        opponents = u.opponents.map((o) => o.player);
      }),
      bob.quick.partyPlay(party.name, 30_000),
    ]);
    assert.equal(annSeat.name, bobSeat.name);
    assert.notEqual(annSeat.seat, bobSeat.seat);
    assert.deepEqual(opponents, ["quin"]);
    await bob.quick.leaveParty(party.name);
    assert.deepEqual((await ann.quick.getParty(party.name)).members, []);
  } finally {
    ann.close();
    bob.close();
  }
});

test("the matching grammar: clauses decide who meets; a bad clause is refused by name", async () => {
  const ann = clientOf(server, { playerToken: playerToken("rae") });
  const bob = clientOf(server, { playerToken: playerToken("sam") });
  try {
    const [annSeat, bobSeat] = await Promise.all([
      ann.quick.play({
        variant: "rummy",
        playerName: "Rae",
        clauses: [
          { occur: "must", key: "region", anyOf: ["eu"] },
          { occur: "must", key: "ping", max: 80 },
        ],
        ratingBand: 10,
      }),
      bob.quick.play({ variant: "rummy", playerName: "Sam", properties: { region: "eu" }, numericProperties: { ping: 20 } }),
    ]);
    assert.equal(annSeat.name, bobSeat.name);
    await assert.rejects(
      ann.quick.play({ variant: "rummy", playerName: "Rae", clauses: [{ occur: "must", key: "ping" }] }),
      (e: Error & { reason?: string }) => e.reason === "BAD_MATCH_CLAUSE" && /clause 0/.test(e.message),
    );
  } finally {
    ann.close();
    bob.close();
  }
});
