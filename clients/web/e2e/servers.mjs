// A real `ramino serve` (sqlite store) and `ramino gateway` (Envoy) serving
// the built page, both from the project's .venv, on free loopback ports.
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdtempSync, openSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../../..");
const VENV = process.env.RAMINO_VENV ?? join(ROOT, ".venv");
const RAMINO = join(VENV, "bin", "ramino");

/** Debian's chromium, where it is installed. */
export const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

const PLAYER_SECRET = "browser-test-player-token-secret-32-bytes!";

/** The host's player token of `player` (HS256 over PLAYER_SECRET, ten minutes). */
export function playerToken(player) {
  const b64 = (text) => Buffer.from(text).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const body = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(JSON.stringify({ sub: player, iat: now, exp: now + 600 }))}`;
  return `${body}.${createHmac("sha256", PLAYER_SECRET).update(body).digest("base64url")}`;
}

/** Started servers that know players by the tokens of {@link playerToken}. */
export async function serversWithPlayers() {
  const probe = new Servers();
  const secret = join(probe.dir, "player-secret");
  writeFileSync(secret, PLAYER_SECRET);
  return new Servers(["--player-token-secret-file", secret]).start();
}

export function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

function accepts(port) {
  return new Promise((ok) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      ok(true);
    });
    socket.once("error", () => ok(false));
  });
}

async function until(what, check, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up`);
}

export class Servers {
  /** `extra`: more `ramino serve` arguments (a player verifier, say). */
  constructor(extra = []) {
    this.extra = extra;
    this.dir = mkdtempSync(join(tmpdir(), "ramino-web-"));
    this.log = openSync(join(this.dir, "processes.log"), "a");
    this.secret = "browser-test-seat-token-secret-of-32-bytes-or-more";
  }

  async start() {
    this.grpcPort = await freePort();
    this.webPort = await freePort();
    this.adminPort = await freePort();
    await this.startServer();
    this.gateway = spawn(
      RAMINO,
      [
        "gateway",
        "--port", String(this.webPort),
        "--upstream", `127.0.0.1:${this.grpcPort}`,
        // RAMINO_WEB_PAGE: another build of the page (e.g. an older one, to see a test fail on it).
        "--page", process.env.RAMINO_WEB_PAGE ?? join(ROOT, "clients", "web", "dist"),
        "--admin-port", String(this.adminPort),
      ],
      { stdio: ["ignore", this.log, this.log] },
    );
    await until("the gateway", async () => {
      try {
        const r = await fetch(`http://127.0.0.1:${this.adminPort}/ready`);
        return (await r.text()).trim() === "LIVE";
      } catch {
        return false;
      }
    });
    return this;
  }

  get origin() {
    return `http://127.0.0.1:${this.webPort}`;
  }

  async startServer() {
    this.server = spawn(
      RAMINO,
      [
        "serve",
        "--host", "127.0.0.1",
        "--port", String(this.grpcPort),
        "--store", `sqlite:${join(this.dir, "ramino.db")}`,
        "--bot-delay", "0.05",
        "--grace", "1",
        ...this.extra,
      ],
      { stdio: ["ignore", this.log, this.log], env: { ...process.env, RAMINO_TOKEN_SECRET: this.secret } },
    );
    await until("the server", () => accepts(this.grpcPort));
  }

  /** The server stopped (SIGTERM, its drain); `startServer` brings it back on the same store. */
  async stopServer() {
    await stop(this.server);
  }

  /** The server stopped (SIGTERM, its drain) and started again on the same store. */
  async restartServer() {
    await stop(this.server);
    await this.startServer();
  }

  async stop() {
    await stop(this.gateway);
    await stop(this.server);
  }
}

async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await once(child, "exit");
  clearTimeout(timer);
}
