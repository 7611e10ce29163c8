/**
 * The Node transport's own unary calls (src/h2unary.ts) against a real
 * server: a call the server does not answer ends at its deadline, and the
 * kept connection serves the next call; a server's error comes with its
 * status and ErrorInfo through an interceptor as without one.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Interceptor } from "@connectrpc/connect";
import { Code, NO_RETRY, NotFound, ServiceError } from "@ramino/client";
import { connect } from "@ramino/client/node";
import { ServerProcess } from "./support.js";

let server: ServerProcess;
before(async () => {
  server = await ServerProcess.start();
});
after(async () => {
  await server.stop();
});

test("a unary call the server does not answer ends at its deadline, and the connection serves the next", async () => {
  const client = connect(server.address, { retry: NO_RETRY, timeoutMs: 300 });
  const child = server.process;
  assert.ok(child !== undefined);
  try {
    await client.rules.listVariants(); // the connection is up
    child.kill("SIGSTOP"); // the server answers nothing until it is continued
    let error: unknown;
    try {
      await client.rules.listVariants();
    } catch (e) {
      error = e;
    } finally {
      child.kill("SIGCONT");
    }
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, Code.DeadlineExceeded);
    assert.ok((await client.rules.listVariants()).length > 0);
  } finally {
    child.kill("SIGCONT");
    client.close();
  }
});

test("a server's error has its status and reason with and without interceptors", async () => {
  const seen: string[] = [];
  const interceptor: Interceptor = (next) => async (request) => {
    seen.push(request.method.name);
    return next(request);
  };
  for (const interceptors of [[], [interceptor]]) {
    const client = connect(server.address, { retry: NO_RETRY, interceptors });
    try {
      await assert.rejects(client.getGame("games/0000000000000000"), (e: unknown) => {
        assert.ok(e instanceof NotFound, String(e));
        assert.equal(e.code, Code.NotFound);
        assert.equal(e.reason, "GAME_NOT_FOUND");
        return true;
      });
    } finally {
      client.close();
    }
  }
  assert.deepEqual(seen, ["GetGame"]);
});
