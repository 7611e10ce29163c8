/**
 * Many seats in one process (issue 35): a client's streams spread over
 * connections as they fill, so that none reaches the server's
 * `--max-streams-per-connection`; a closed stream gives its place back.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client, NO_RETRY } from "@ramino/client";
import { connect, grpcTransport } from "@ramino/client/node";
import { ServerProcess } from "./support.js";

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

test("streams past a full connection go to the next, and a closed one gives its place back", async () => {
  // The server refuses a fourth stream on a connection (TOO_MANY_STREAMS).
  const server = await ServerProcess.start({ extra: ["--max-streams-per-connection", "3"] });
  const { transport, streams } = grpcTransport(server.address, false, [], 3);
  const client = new Client({ transport, retry: NO_RETRY, onClose: () => streams.abort() });
  try {
    const { name } = await client.createGame({ variant: "rummy", seats: ["ann", "bob"] });
    const watches = [0, 1, 2, 3, 4].map(() => client.watch(name));
    for (const watch of watches) {
      const first = await watch[Symbol.asyncIterator]().next(); // a refusal is thrown here
      assert.equal(first.value?.kind, "snapshot");
    }
    assert.deepEqual(streams.streams, [3, 2]);
    watches[0]!.cancel();
    await until(() => streams.streams[0] === 2, "the cancelled watch's place given back");
    const seat = await client.join(name, "ann");
    const session = seat.session();
    const update = await session[Symbol.asyncIterator]().next();
    assert.equal(update.value?.kind, "snapshot");
    assert.deepEqual(streams.streams, [3, 2]);
    session.close();
    for (const watch of watches.slice(1)) watch.cancel();
    await until(() => streams.streams.every((n) => n === 0), "every place given back");
  } finally {
    client.close();
    await server.stop();
  }
});

test("streamsPerConnection below one is refused", () => {
  assert.throws(() => connect("127.0.0.1:1", { streamsPerConnection: 0 }), /streamsPerConnection must be an integer of at least 1, not 0/);
});
