/**
 * A real `ramino serve` on a free loopback port (from the repository's
 * .venv, built by `make build`), and a simple policy that plays a seat from
 * the server's legal moves.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { openSync, closeSync, readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  NO_RETRY,
  StaleVersion,
  MoveRejected,
  GameStatus,
  type Client,
  type GetLegalMovesResponse,
  type Hint,
  type Move,
  type Seat,
} from "@ramino/client";
import { connect, type NodeOptions, type TlsOptions } from "@ramino/client/node";

/** The repository's root (this file is clients/typescript/build/test/support.js). */
export const REPO = resolve(fileURLToPath(import.meta.url), "../../../../..");
export const PYTHON = process.env["RAMINO_PYTHON"] ?? join(REPO, ".venv/bin/python");
/** Seat tokens stay valid across restarts of a server with the same secret. */
export const TOKEN_SECRET = "typescript-sdk-tests-secret-of-at-least-32-bytes";

/** Retries patient enough for a server process restarting on a busy machine. */
export const PATIENT = { attempts: 80, initialBackoffMs: 50, maxBackoffMs: 250, multiplier: 2, jitter: 0.2 };

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address ? address.port : 0;
      s.close(() => ok(port));
    });
  });
}

export function scratchDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `ramino-ts-${prefix}-`));
}

export interface ServerOptions {
  /** "memory" (default) or "sqlite:PATH": a sqlite store outlives a restart. */
  store?: string;
  allowBotGames?: boolean;
  extra?: string[];
  env?: Record<string, string>;
  /** How to reach a server started with TLS flags in `extra` (its readiness is checked so). */
  tls?: TlsOptions;
}

/** `ramino serve` as a child process on a fixed free port, to stop, kill and start again. */
export class ServerProcess {
  process: ChildProcess | undefined;
  readonly log: string;

  private constructor(
    readonly port: number,
    private readonly options: ServerOptions,
  ) {
    this.log = join(scratchDir("log"), "server.log");
  }

  static async start(options: ServerOptions = {}): Promise<ServerProcess> {
    const server = new ServerProcess(await freePort(), options);
    await server.start();
    return server;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = [
      "-m", "ramino", "serve",
      "--host", "127.0.0.1",
      "--port", String(this.port),
      "--store", this.options.store ?? "memory",
      "--bot-delay", "0",
      "--grace", "1",
      "--log-level", "warning",
      ...(this.options.allowBotGames ? ["--allow-bot-games"] : []),
      ...(this.options.extra ?? []),
    ];
    const out = openSync(this.log, "a");
    const env = { ...process.env, RAMINO_TOKEN_SECRET: TOKEN_SECRET, ...(this.options.env ?? {}) };
    this.process = spawn(PYTHON, args, { cwd: REPO, env, stdio: ["ignore", out, out] });
    closeSync(out);
    await this.waitServing();
  }

  private async waitServing(): Promise<void> {
    const target = this.options.tls ? `localhost:${this.port}` : this.address;
    const probe = connect(target, { retry: NO_RETRY, timeoutMs: 1000, tls: this.options.tls });
    try {
      for (let i = 0; i < 300; i++) {
        if (this.process?.exitCode !== null) {
          throw new Error(`server exited: ${readFileSync(this.log, "utf8").slice(-2000)}`);
        }
        try {
          await probe.rules.listVariants();
          return;
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      throw new Error(`server on ${this.address} did not come up`);
    } finally {
      probe.close();
    }
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    child.kill(signal);
    await exited;
  }

  /** kill -9: no drain, no goodbye. */
  kill(): Promise<void> {
    return this.end("SIGKILL");
  }

  /** SIGTERM: the server drains (--grace 1) and exits. */
  stop(): Promise<void> {
    return this.end("SIGTERM");
  }
}

/** A client of `server` that retries patiently. */
export function clientOf(server: ServerProcess, options: NodeOptions = {}): Client {
  return connect(server.address, { retry: PATIENT, ...options });
}

/** What a seat may do: GetLegalMovesResponse, or SeatOptions as a move's answer and a seat's watch push them. */
export interface Choices {
  readonly moves: readonly Move[];
  readonly hint?: Hint | undefined;
}

function pick(legal: Choices): Move | undefined {
  const first = (c: string): Move | undefined => legal.moves.find((m) => m.move.case === c);
  for (const c of ["drawFromStock", "turnOverDiscardPile", "takeDiscard"]) {
    const m = first(c);
    if (m) return m;
  }
  const knock = first("knock");
  if (knock) return knock;
  const meld = first("layMelds") ?? first("layOff");
  if (meld) return meld;
  const discards = legal.moves.filter((m) => m.move.case === "discard");
  if (discards.length > 0) {
    const hinted = legal.hint?.suggestedDiscard?.id;
    return discards.find((m) => m.move.case === "discard" && m.move.value.cardId === hinted) ?? discards[0];
  }
  return first("passUpcard") ?? first("acceptLayout") ?? legal.moves[0];
}

/**
 * A simple policy: draw (stock first), knock when gin allows, meld and lay
 * off whatever the server proposes, then discard what the hint suggests.
 */
export function choose(legal: Choices): Move | undefined {
  return pick(legal);
}

/** Plays this seat's moves until its turn ends; false when it was not its turn. */
export async function playTurn(seat: Seat): Promise<boolean> {
  let played = false;
  let legal = await seat.legalMoves();
  for (;;) {
    const move = choose(legal);
    if (move === undefined) return played;
    try {
      const result = await seat.play(move, { expectedVersion: legal.version });
      played = true;
      if (result.legalMoves.length === 0) return true;
      legal = { ...legal, version: result.view?.version ?? legal.version, moves: result.legalMoves, hint: result.hint };
    } catch (e) {
      if (e instanceof StaleVersion) {
        legal = await seat.legalMoves(); // a bot moved meanwhile: look again
        continue;
      }
      if (e instanceof MoveRejected && (e.reason === "NOT_YOUR_TURN" || e.reason === "MATCH_OVER")) {
        return played;
      }
      throw e;
    }
  }
}

/** Plays every seat with {@link playTurn} until the game has finished. */
export async function playUntilFinished(seats: Seat[], maxRounds = 100_000): Promise<void> {
  const first = seats[0];
  if (!first) throw new Error("no seat");
  for (let i = 0; i < maxRounds; i++) {
    let moved = false;
    for (const seat of seats) moved = (await playTurn(seat)) || moved;
    if ((await first.view()).status === GameStatus.FINISHED) return;
    if (!moved) await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error("the game did not finish");
}

/** Whether the versions run one after another. */
export function consecutive(versions: bigint[]): boolean {
  return versions.every((v, i) => i === 0 || v === (versions[i - 1] ?? 0n) + 1n);
}
