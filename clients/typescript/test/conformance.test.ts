/**
 * The TypeScript runner of the conformance suite (tests/conformance/README.md
 * is its specification): every scenario replayed through this SDK's call
 * layer (seat tokens, the caller key, request ids, retries on UNAVAILABLE,
 * typed errors carrying the ErrorInfo reason) and its WatchGame stream,
 * against a live `ramino serve --test-seed`; each step's response turned into
 * protobuf JSON, normalized, checked, and written to
 * tests/conformance/transcripts/typescript/NAME.txt.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fromJson, toJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import {
  CODE_NAMES,
  ServiceError,
  errorFromRpc,
  newRequestId,
  GameService,
  WatchGameRequestSchema,
  WatchGameResponseSchema,
  type Client,
  type WatchGameResponse,
} from "@ramino/client";
import { REPO, ServerProcess, clientOf } from "./support.js";

const HERE = join(REPO, "tests/conformance");
const SCENARIOS = join(HERE, "scenarios");
const OUT = join(HERE, "transcripts/typescript");
const FORMAT_VERSION = 1;
const FORGED_TOKEN = "forged.conformance.token";
const WATCH_TIMEOUT_MS = 10_000;
const STEP_FIELDS = new Set(["op", "game", "as", "args", "watch", "count", "resume", "expect"]);
const TOKEN_KEYS = new Set(["seatToken", "creatorToken"]);
const TIME_KEYS = new Set(["createTime", "turnDeadline"]);

/** The GameService method of each unary op. */
const UNARY: Record<string, string> = {
  create: "createGame",
  join: "joinGame",
  get_game: "getGame",
  legal_moves: "getLegalMoves",
  draw_from_stock: "drawFromStock",
  take_discard: "takeDiscard",
  turn_over_discard_pile: "turnOverDiscardPile",
  lay_melds: "layMelds",
  lay_off: "layOff",
  swap_joker: "swapJoker",
  discard: "discard",
  resign: "resign",
  pass_upcard: "passUpcard",
  knock: "knock",
  accept_layout: "acceptLayout",
  cancel_game: "cancelGame",
};
/** The calls that change something carry a request id (the SDK's own when the scenario gives none). */
const WITH_REQUEST_ID = new Set(Object.keys(UNARY).filter((op) => !["get_game", "legal_moves", "cancel_game"].includes(op)));

type Json = JsonValue;
type JsonObject = { [k: string]: Json };
interface Step {
  op: string;
  game?: string;
  as?: string;
  args?: JsonObject;
  watch?: string;
  count?: number;
  resume?: string;
  expect?: { error?: { code: string; reason: string }; facts?: { path: string; equals: Json }[] };
}
interface Scenario {
  name: string;
  data: { description?: string; steps: Step[] };
  sha256: string;
}

/** The scenario file itself is malformed (not a disagreement with the server). */
class ScenarioError extends Error {}
/** An expectation of the scenario was not met. */
class Mismatch extends Error {}

function suite(): { formatVersion: number; testSeed: number } {
  return JSON.parse(readFileSync(join(HERE, "suite.json"), "utf8")) as { formatVersion: number; testSeed: number };
}

function scenarios(): Scenario[] {
  const names = readdirSync(SCENARIOS)
    .filter((f) => f.endsWith(".json"))
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return names.map((f) => {
    const raw = readFileSync(join(SCENARIOS, f));
    return {
      name: f.slice(0, -".json".length),
      data: JSON.parse(raw.toString("utf8")) as Scenario["data"],
      sha256: createHash("sha256").update(raw).digest("hex"),
    };
  });
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: JsonObject = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as JsonObject)[k] ?? null);
    return out;
  }
  return value;
}

/** The canonical JSON of the README ("The transcript"). */
function canonical(value: Json): string {
  return JSON.stringify(sortKeys(value));
}

/** `message` in protobuf JSON, fields without presence always printed. */
function protoJson<D extends DescMessage>(schema: D, message: Parameters<typeof toJson<D>>[1]): Json {
  return toJson(schema, message, { alwaysEmitImplicit: true });
}

/** Tokens and times replaced, game names by their labels. */
function normalize(value: Json, labels: Map<string, string>): Json {
  if (Array.isArray(value)) return value.map((v) => normalize(v, labels));
  if (value !== null && typeof value === "object") {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = TOKEN_KEYS.has(k) ? "<token>" : TIME_KEYS.has(k) ? "<time>" : normalize(v, labels);
    }
    return out;
  }
  if (typeof value === "string" && labels.has(value)) return `games/${labels.get(value)}`;
  return value;
}

function isObject(v: Json): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function kindOf(value: JsonObject, path: string): Json {
  // Beside the kind: a GameEvent's version, seat and turn after it, a watch
  // message's version and the seat's options.
  const keys = Object.keys(value).filter((k) => !["version", "seat", "turn", "options"].includes(k));
  if (keys.length !== 1) throw new Mismatch(`${path}: @kind of an object with members ${JSON.stringify(keys.sort())}`);
  const only = keys[0] as string;
  const inner = value[only] ?? null;
  if (only === "event" && isObject(inner)) return kindOf(inner, path);
  return only;
}

/** The value `path` (README, "Paths") gives on `value`. */
function evaluate(value: Json, path: string): Json {
  return walk(value, path.split("."), path);
}

function walk(start: Json, segments: string[], path: string): Json {
  let value: Json = start;
  for (const [i, seg] of segments.entries()) {
    if (value === null) return null;
    if (seg === "*") {
      if (!Array.isArray(value)) throw new Mismatch(`${path}: '*' of a non-array`);
      return value.map((v) => walk(v, segments.slice(i + 1), path));
    }
    if (seg === "#") {
      if (!Array.isArray(value)) throw new Mismatch(`${path}: '#' of a non-array`);
      value = value.length;
    } else if (seg === "@kind") {
      if (!isObject(value)) throw new Mismatch(`${path}: '@kind' of a non-object`);
      value = kindOf(value, path);
    } else if (/^-?\d+$/.test(seg)) {
      if (!Array.isArray(value)) throw new Mismatch(`${path}: index ${seg} of a non-array`);
      const index = Number(seg);
      value = index >= -value.length && index < value.length ? (value.at(index) ?? null) : null;
    } else {
      if (!isObject(value)) throw new Mismatch(`${path}: field '${seg}' of a non-object`);
      value = value[seg] ?? null;
    }
  }
  return value;
}

/** JSON equality: the same type, the same members, arrays in order. */
function same(a: Json, b: Json): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i] ?? null));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return canonical(ka) === canonical(kb) && ka.every((k) => same(a[k] ?? null, b[k] ?? null));
  }
  return typeof a === typeof b && a === b;
}

interface OpenWatch {
  stream: AsyncIterator<WatchGameResponse>;
  abort: AbortController;
  caller: string;
  game: string;
  lastVersion: string | undefined;
  open: boolean;
}

/** One scenario's run: what the runner remembers between steps. */
class Replay {
  readonly games = new Map<string, { name: string; creator: string }>();
  readonly seats = new Map<string, { game: string; token: string }>();
  readonly watches = new Map<string, OpenWatch>();
  readonly lines: string[] = [];

  constructor(
    private readonly client: Client,
    private readonly scenario: Scenario,
  ) {}

  private labels(): Map<string, string> {
    return new Map([...this.games].map(([label, g]) => [g.name, label]));
  }

  private gameName(label: string): string {
    const g = this.games.get(label);
    if (!g) throw new ScenarioError(`no game labelled '${label}' yet`);
    return g.name;
  }

  private token(caller: string, game: string): string | undefined {
    if (caller === "spectator") return undefined;
    if (caller === "forged") return FORGED_TOKEN;
    if (caller === "creator") return this.games.get(game)?.creator;
    const seat = this.seats.get(caller);
    if (!seat) throw new ScenarioError(`no seat labelled '${caller}' yet`);
    return seat.token;
  }

  /** Replays the scenario; the failure, or undefined. */
  async run(): Promise<string | undefined> {
    const s = this.scenario;
    this.lines.push(`format ${FORMAT_VERSION}`, `scenario ${s.name} sha256=${s.sha256}`);
    try {
      for (const [i, step] of s.data.steps.entries()) {
        try {
          await this.step(i, step);
        } catch (e) {
          if (!(e instanceof Mismatch)) throw e;
          this.lines.push(`FAILED ${e.message}`);
          return `step ${i} (${step.op}): ${e.message}`;
        }
      }
      return undefined;
    } finally {
      for (const w of this.watches.values()) if (w.open) w.abort.abort();
    }
  }

  private async step(index: number, step: Step): Promise<void> {
    const unknown = Object.keys(step).filter((k) => !STEP_FIELDS.has(k));
    if (unknown.length > 0) throw new ScenarioError(`step ${index}: unknown fields ${JSON.stringify(unknown.sort())}`);
    const op = step.op;
    let game = step.game ?? "g";
    let caller = step.as ?? "spectator";
    if (op === "watch_next" || op === "watch_close") {
      const w = this.watches.get(step.watch ?? "");
      if (!w) throw new ScenarioError(`step ${index}: no watch labelled '${step.watch}'`);
      game = w.game;
      caller = w.caller;
    }
    this.lines.push(`step ${index} ${op} ${game} ${caller}`);
    const expect = step.expect ?? {};
    let response: Json;
    try {
      response = await this.call(op, game, caller, step);
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      const code = CODE_NAMES[e.code];
      this.lines.push(`error ${code} ${e.reason}`);
      const wanted = expect.error;
      if (wanted === undefined) throw new Mismatch(`expected success, got ${code} ${e.reason}: ${e.detail}`);
      if (wanted.code !== code || wanted.reason !== e.reason) {
        throw new Mismatch(`expected ${wanted.code} ${wanted.reason}, got ${code} ${e.reason}`);
      }
      return;
    }
    const normalized = normalize(response, this.labels());
    this.lines.push(`ok ${canonical(normalized)}`);
    if (expect.error !== undefined) {
      throw new Mismatch(`expected ${expect.error.code} ${expect.error.reason}, got success`);
    }
    for (const fact of expect.facts ?? []) {
      const got = evaluate(normalized, fact.path);
      this.lines.push(`fact ${fact.path} ${canonical(got)}`);
      if (!same(got, fact.equals)) {
        throw new Mismatch(`${fact.path}: expected ${canonical(fact.equals)}, got ${canonical(got)}`);
      }
    }
  }

  private async call(op: string, game: string, caller: string, step: Step): Promise<Json> {
    const args: JsonObject = { ...(step.args ?? {}) };
    if (op === "watch_open" || op === "watch_next" || op === "watch_close") {
      return this.watch(op, game, caller, step, args);
    }
    const methodName = UNARY[op];
    if (methodName === undefined) throw new ScenarioError(`unknown op '${op}'`);
    const method = GameService.method[methodName as keyof typeof GameService.method];
    if (op !== "create") args["name"] = this.gameName(game);
    if (WITH_REQUEST_ID.has(op) && !("requestId" in args)) args["requestId"] = newRequestId();
    const request = fromJson(method.input, args);
    const token = op === "create" || op === "join" ? undefined : this.token(caller, game);
    const call = this.client.games[methodName as keyof Client["games"]] as unknown as (
      req: unknown,
      options: object,
    ) => Promise<never>;
    const response = await this.client.call((o) => call(request, o), token);
    if (op === "create") {
      // The creator token is remembered before normalization hides it.
      const r = response as { game?: { name: string }; creatorToken: string };
      const bound = this.games.get(game);
      if (bound !== undefined && bound.name !== r.game?.name) {
        throw new Mismatch(`create '${game}' again made another game (a retry makes none)`);
      }
      this.games.set(game, { name: r.game?.name ?? "", creator: r.creatorToken });
    } else if (op === "join") {
      this.seats.set(caller, { game, token: (response as { seatToken: string }).seatToken });
    }
    return toJson(method.output, response, { alwaysEmitImplicit: true });
  }

  private async watch(op: string, game: string, caller: string, step: Step, args: JsonObject): Promise<Json> {
    const label = step.watch ?? "";
    if (op === "watch_open") {
      if (step.resume !== undefined) {
        const last = this.watches.get(step.resume)?.lastVersion;
        if (last === undefined) throw new ScenarioError(`watch '${step.resume}' read nothing to resume after`);
        args["afterVersion"] = last;
      }
      args["name"] = this.gameName(game);
      const request = fromJson(WatchGameRequestSchema, args);
      const abort = new AbortController();
      const stream = this.client.games
        .watchGame(request, { headers: this.client.headers(this.token(caller, game)), signal: abort.signal })
        [Symbol.asyncIterator]();
      this.watches.set(label, { stream, abort, caller, game, lastVersion: undefined, open: true });
      return {};
    }
    const w = this.watches.get(label);
    if (!w) throw new ScenarioError(`no watch labelled '${label}'`);
    if (op === "watch_close") {
      w.abort.abort();
      w.open = false;
      return {};
    }
    const messages: Json[] = [];
    for (let n = 0; n < Number(step.count); n++) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((r) => {
        timer = setTimeout(() => r("timeout"), WATCH_TIMEOUT_MS);
      });
      let got: IteratorResult<WatchGameResponse> | "timeout";
      try {
        got = await Promise.race([w.stream.next(), timeout]);
      } catch (e) {
        throw errorFromRpc(e);
      } finally {
        clearTimeout(timer);
      }
      if (got === "timeout") throw new Mismatch(`watch '${label}': no message within ${WATCH_TIMEOUT_MS / 1000} s`);
      if (got.done) throw new Mismatch(`watch '${label}': the stream ended`);
      const json = protoJson(WatchGameResponseSchema, got.value) as JsonObject;
      messages.push(json);
      w.lastVersion = String(json["version"]);
    }
    return { messages };
  }
}

const SUITE = suite();
let server: ServerProcess;
let client: Client;

before(async () => {
  assert.equal(SUITE.formatVersion, FORMAT_VERSION, `suite.json: unknown formatVersion ${SUITE.formatVersion}`);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  server = await ServerProcess.start({
    extra: ["--test-seed", String(SUITE.testSeed), "--abandon-after", "0"],
  });
  client = clientOf(server);
});

after(async () => {
  client.close();
  await server.stop();
});

for (const scenario of scenarios()) {
  test(`conformance scenario ${scenario.name} replays through the TypeScript SDK`, async () => {
    const replay = new Replay(client, scenario);
    let failure: string | undefined;
    try {
      failure = await replay.run();
    } catch (e) {
      if (!(e instanceof ScenarioError)) throw e;
      replay.lines.push(`FAILED malformed scenario: ${e.message}`);
      failure = `malformed scenario: ${e.message}`;
    } finally {
      writeFileSync(join(OUT, `${scenario.name}.txt`), replay.lines.join("\n") + "\n");
    }
    assert.equal(failure, undefined, failure);
  });
}
