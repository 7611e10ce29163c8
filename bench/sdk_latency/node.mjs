// The TypeScript SDK's side of bench/sdk_latency.py: the same calls as
// main.go (GetLegalMoves on one seat, then the moves of whole two-seat rummy
// games, each seat playing from its move's answer with the SDK bot's
// choose), one at a time, printed as JSON latencies in nanoseconds.
//
//   node node.mjs --server 127.0.0.1:50051 [--calls N] [--moves N] [--warmup N] [--raw | --connect]
//
// --raw times GetLegalMoves as a bare gRPC call on node:http2 (no Connect,
// the answer not decoded), the floor of Node's own HTTP/2 for the same
// bytes; --connect runs the SDK on Connect-node's own gRPC transport (the
// SDK's Node transport before it made its unary calls itself).
import { connect as h2connect } from "node:http2";
import { parseArgs } from "node:util";
import { create, fromBinary, toBinary } from "../../clients/typescript/node_modules/@bufbuild/protobuf/dist/esm/index.js";
import { GameStatus, choose } from "../../clients/typescript/dist/index.js";
import { GetLegalMovesRequestSchema, GetLegalMovesResponseSchema } from "../../clients/typescript/dist/index.js";
import { Client } from "../../clients/typescript/dist/index.js";
import { connect } from "../../clients/typescript/dist/node.js";
import {
  Http2SessionManager,
  createGrpcTransport,
} from "../../clients/typescript/node_modules/@connectrpc/connect-node/dist/esm/index.js";

const { values } = parseArgs({
  options: {
    server: { type: "string", default: "127.0.0.1:50051" },
    calls: { type: "string", default: "2000" },
    moves: { type: "string", default: "2000" },
    warmup: { type: "string", default: "200" },
    raw: { type: "boolean", default: false },
    connect: { type: "boolean", default: false },
  },
});
const calls = Number(values.calls);
const moves = Number(values.moves);
const warmup = Number(values.warmup);

async function newGame(client) {
  const created = await client.createGame({ variant: "rummy", seats: ["a", "b"], overrides: { maxRounds: 1, targetScore: 0 } });
  return [await client.join(created.name, "a"), await client.join(created.name, "b")];
}

/** One GetLegalMoves as a bare gRPC call on a kept node:http2 session. */
function rawCaller(session, seat) {
  const body = toBinary(GetLegalMovesRequestSchema, create(GetLegalMovesRequestSchema, { name: seat.name }));
  const frame = Buffer.alloc(5 + body.length);
  frame.writeUInt32BE(body.length, 1);
  frame.set(body, 5);
  return () =>
    new Promise((ok, fail) => {
      const stream = session.request({
        ":method": "POST",
        ":path": "/ramino.v1.GameService/GetLegalMoves",
        "content-type": "application/grpc",
        te: "trailers",
        authorization: `Bearer ${seat.token}`,
      });
      const chunks = [];
      stream.on("data", (c) => chunks.push(c));
      stream.on("trailers", (t) => {
        if (t["grpc-status"] !== "0") fail(new Error(`grpc-status ${t["grpc-status"]}`));
      });
      stream.on("error", fail);
      stream.on("end", () => {
        const all = Buffer.concat(chunks);
        ok(fromBinary(GetLegalMovesResponseSchema, all.subarray(5)));
      });
      stream.end(frame);
    });
}

function connectOnly(target) {
  const url = `http://${target}`;
  const sessionManager = new Http2SessionManager(url, { pingIntervalMs: 30_000 });
  return new Client({ transport: createGrpcTransport({ baseUrl: url, sessionManager }), onClose: () => sessionManager.abort() });
}

const client = values.connect ? connectOnly(values.server) : connect(values.server);
let seats = await newGame(client);
const out = { legal: [], move: [] };
let legalCall = () => seats[0].legalMoves();
let session;
if (values.raw) {
  session = h2connect(`http://${values.server}`);
  legalCall = rawCaller(session, seats[0]);
}
for (let i = 0; i < warmup + calls; i++) {
  const start = process.hrtime.bigint();
  await legalCall();
  if (i >= warmup) out.legal.push(Number(process.hrtime.bigint() - start));
}
for (let played = 0; played < warmup + moves; ) {
  const view = await seats[0].view();
  const turn = view.turn ?? 0;
  let legal = await seats[turn].legalMoves();
  for (;;) {
    const move = choose(legal);
    if (move === undefined) throw new Error(`no move at version ${legal.version}`);
    const start = process.hrtime.bigint();
    const result = await seats[turn].play(move, { expectedVersion: legal.version });
    if (played >= warmup) out.move.push(Number(process.hrtime.bigint() - start));
    played++;
    if (result.view?.status === GameStatus.FINISHED) {
      seats = await newGame(client);
      break;
    }
    if (result.legalMoves.length === 0 || played >= warmup + moves) break;
    legal = { version: result.view?.version ?? legal.version, moves: result.legalMoves, hint: result.hint };
  }
}
session?.close();
client.close();
process.stdout.write(JSON.stringify(out) + "\n");
