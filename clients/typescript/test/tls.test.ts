/**
 * The Node entry over TLS and mutual TLS: `tls: { ca, cert, key }` against a
 * `ramino serve` whose certificates come from a CA the test makes (the
 * repository's tests/support/tls.py, with Python's cryptography package).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Code } from "@connectrpc/connect";
import { BotLevel, NO_RETRY, ServiceError } from "@ramino/client";
import { connect, tlsSessionOptions, type TlsOptions } from "@ramino/client/node";
import { PYTHON, REPO, ServerProcess, scratchDir } from "./support.js";

interface Pki {
  ca: string;
  server: { cert: string; key: string };
  /** A server certificate for ramino.games.test only. */
  named: { cert: string; key: string };
  client: { cert: string; key: string };
  stranger: { cert: string; key: string };
}

/** A CA and its certificates, as files in a scratch folder. */
function makePki(): Pki {
  const dir = scratchDir("tls");
  execFileSync(PYTHON, ["-m", "tests.support.tls", dir], { cwd: REPO });
  const pair = (name: string) => ({ cert: join(dir, `${name}.pem`), key: join(dir, `${name}-key.pem`) });
  return {
    ca: join(dir, "ca", "ca.pem"),
    server: pair("server"),
    named: pair("named"),
    client: pair("client"),
    stranger: pair("stranger"),
  };
}

function tlsFlags(pki: Pki, mutual: boolean): string[] {
  const flags = ["--tls-cert-file", pki.server.cert, "--tls-key-file", pki.server.key];
  return mutual ? [...flags, "--tls-client-ca-file", pki.ca] : flags;
}

const CARDS = ["5H", "6H", "7H"];

/**
 * A call that the TLS handshake refused: node's http2 reports the dropped
 * connection as UNAVAILABLE or as a stream CANCELled, both retryable codes
 * of the SDK (RETRYABLE_CODES), neither an answer of the server.
 */
function refused(error: unknown): boolean {
  assert.ok(error instanceof ServiceError, String(error));
  assert.ok([Code.Unavailable, Code.Canceled].includes(error.code), `${error.code}: ${error.message}`);
  return true;
}

test("a game over TLS trusting the CA; a plaintext client is refused", async () => {
  const pki = makePki();
  const ca = readFileSync(pki.ca);
  const server = await ServerProcess.start({ extra: tlsFlags(pki, false), tls: { ca } });
  const client = connect(`localhost:${server.port}`, { tls: { ca }, retry: NO_RETRY });
  const plain = connect(server.address, { retry: NO_RETRY, timeoutMs: 5000 });
  try {
    const game = await client.createGame({ variant: "rummy", seats: ["ann", BotLevel.GREEDY] });
    const seat = await client.join(game.name, "ann");
    const view = await seat.view();
    assert.ok(view.hand.length > 0, "a seated person sees a hand over TLS");
    assert.ok((await client.rules.validateMeld(CARDS, "rummy")).valid);
    await assert.rejects(plain.rules.validateMeld(CARDS, "rummy"), refused);
  } finally {
    client.close();
    plain.close();
    await server.stop();
  }
});

test("mutual TLS: a client certificate of the CA is served, none or a stranger's refused", async () => {
  const pki = makePki();
  const ca = readFileSync(pki.ca);
  const withCert: TlsOptions = { ca, cert: readFileSync(pki.client.cert), key: readFileSync(pki.client.key) };
  const server = await ServerProcess.start({ extra: tlsFlags(pki, true), tls: withCert });
  const target = `localhost:${server.port}`;
  const ann = connect(target, { tls: withCert, retry: NO_RETRY });
  const anonymous = connect(target, { tls: { ca }, retry: NO_RETRY, timeoutMs: 5000 });
  const stranger = connect(target, {
    tls: { ca, cert: readFileSync(pki.stranger.cert), key: readFileSync(pki.stranger.key) },
    retry: NO_RETRY,
    timeoutMs: 5000,
  });
  try {
    assert.ok((await ann.rules.validateMeld(CARDS, "rummy")).valid);
    await assert.rejects(anonymous.rules.validateMeld(CARDS, "rummy"), refused);
    await assert.rejects(stranger.rules.validateMeld(CARDS, "rummy"), refused);
  } finally {
    for (const c of [ann, anonymous, stranger]) c.close();
    await server.stop();
  }
});

test("serverName checks the certificate's name instead of the target's", async () => {
  const pki = makePki();
  const ca = readFileSync(pki.ca);
  const tls = { ca, serverName: "ramino.games.test" };
  const extra = ["--tls-cert-file", pki.named.cert, "--tls-key-file", pki.named.key];
  const server = await ServerProcess.start({ extra, tls });
  // the certificate names ramino.games.test, not localhost
  const named = connect(`localhost:${server.port}`, { tls, retry: NO_RETRY });
  const unnamed = connect(`localhost:${server.port}`, { tls: { ca }, retry: NO_RETRY, timeoutMs: 5000 });
  try {
    assert.ok((await named.rules.validateMeld(CARDS, "rummy")).valid);
    await assert.rejects(unnamed.rules.validateMeld(CARDS, "rummy"), /does not match certificate's altnames/);
  } finally {
    named.close();
    unnamed.close();
    await server.stop();
  }
});

test("a client certificate without its key is refused before connecting", () => {
  assert.throws(() => tlsSessionOptions({ cert: "PEM" }), /cert and key go together/);
  assert.equal(tlsSessionOptions(true), undefined);
  assert.deepEqual(tlsSessionOptions({ ca: "A", serverName: "n" }), { ca: "A", servername: "n" });
});
