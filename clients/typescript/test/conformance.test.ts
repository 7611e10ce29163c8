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
import { createHash, createHmac } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { create, createFileRegistry, fromJson, toJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import {
  CODE_NAMES,
  ServiceError,
  errorFromRpc,
  newRequestId,
  GameService,
  GameSchema,
  ListGamesRequestSchema,
  MatchService,
  SubmitTicketRequestSchema,
  TicketState,
  TicketUpdateSchema,
  WatchTicketRequestSchema,
  PlayGameRequestSchema,
  PlayGameResponseSchema,
  PlayGameStartSchema,
  WatchGameRequestSchema,
  WatchGameResponseSchema,
  type Client,
  type PlayGameRequest,
  type PlayGameResponse,
  type TicketUpdate,
  type WatchGameResponse,
} from "@ramino/client";
import { REPO, ServerProcess, clientOf } from "./support.js";

const HERE = join(REPO, "tests/conformance");
const SCENARIOS = join(HERE, "scenarios");
const OUT = join(HERE, "transcripts/typescript");
const FORMAT_VERSION = 1;
const FORGED_TOKEN = "forged.conformance.token";
const WATCH_TIMEOUT_MS = 10_000;
const STEP_FIELDS = new Set(["op", "game", "as", "args", "watch", "session", "count", "resume", "expect", "ticket", "party"]);
/** The ops whose game and caller are those of the stream they act on. */
const ON_A_STREAM = new Set(["watch_next", "watch_close", "session_send", "session_next", "session_close", "session_end"]);
const TOKEN_KEYS = new Set(["seatToken", "creatorToken"]);
const TIME_KEYS = new Set(["createTime", "turnDeadline", "submitTime", "expireTime"]);
/** Doubles (their JSON differs by language; a wait or window by the clock). */
const NUMBER_KEYS = new Set(["ratingWindow", "expectedWait", "rating"]);
const SECRET_KEYS: Record<string, string> = { inviteCode: "<invite>", invitation: "<invitation>" };
/** A player token's exp (2100-01-01): the same token from every runner. */
const PLAYER_TOKEN_EXP = 4102444800;
const FINAL_STATES = new Set([TicketState.MATCHED, TicketState.EXPIRED, TicketState.CANCELLED]);

/**
 * `google.rpc.ErrorInfo` (googleapis' google/rpc/error_details.proto: reason
 * = 1, domain = 2, metadata = 3), described here so that protobuf JSON can
 * print a refused answer's `details` (an Any holding one): the package
 * generates only google/rpc/status.proto.
 */
const ERROR_DETAILS = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: "google/rpc/error_details.proto",
    package: "google.rpc",
    syntax: "proto3",
    messageType: [
      {
        name: "ErrorInfo",
        field: [
          { name: "reason", jsonName: "reason", number: 1, type: FieldDescriptorProto_Type.STRING, label: FieldDescriptorProto_Label.OPTIONAL },
          { name: "domain", jsonName: "domain", number: 2, type: FieldDescriptorProto_Type.STRING, label: FieldDescriptorProto_Label.OPTIONAL },
          {
            name: "metadata",
            jsonName: "metadata",
            number: 3,
            type: FieldDescriptorProto_Type.MESSAGE,
            label: FieldDescriptorProto_Label.REPEATED,
            typeName: ".google.rpc.ErrorInfo.MetadataEntry",
          },
        ],
        nestedType: [
          {
            name: "MetadataEntry",
            field: [
              { name: "key", jsonName: "key", number: 1, type: FieldDescriptorProto_Type.STRING, label: FieldDescriptorProto_Label.OPTIONAL },
              { name: "value", jsonName: "value", number: 2, type: FieldDescriptorProto_Type.STRING, label: FieldDescriptorProto_Label.OPTIONAL },
            ],
            options: { mapEntry: true },
          },
        ],
      },
    ],
  }),
  () => undefined,
);

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
  join_invite: "joinGame",
};
/** The calls that change something carry a request id (the SDK's own when the scenario gives none). */
const WITH_REQUEST_ID = new Set(
  Object.keys(UNARY).filter((op) => !["get_game", "legal_moves", "cancel_game", "join_invite"].includes(op)),
);
/** The MatchService method of each unary op of a player. */
const MATCH_UNARY: Record<string, string> = {
  ticket_cancel: "cancelTicket",
  ticket_list: "listTickets",
  party_create: "createParty",
  party_invite: "inviteToParty",
  party_join: "joinParty",
  party_get: "getParty",
};

/** The player token of the README ("Players"): an HS256 JWT, byte for byte the same from every runner. */
function playerToken(player: string, secret: Buffer): string {
  const b64 = (raw: string | Buffer): string => Buffer.from(raw).toString("base64url");
  const signed = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(`{"sub":"${player}","exp":${PLAYER_TOKEN_EXP}}`)}`;
  return `${signed}.${createHmac("sha256", secret).update(signed).digest("base64url")}`;
}

type Json = JsonValue;
type JsonObject = { [k: string]: Json };
interface Step {
  op: string;
  game?: string;
  as?: string;
  args?: JsonObject;
  watch?: string;
  session?: string;
  count?: number;
  resume?: string;
  ticket?: string;
  party?: string;
  expect?: { error?: { code: string; reason: string }; facts?: { path: string; equals: Json }[] };
}
interface Scenario {
  name: string;
  data: { description?: string; server?: string; steps: Step[] };
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
      if (TOKEN_KEYS.has(k)) out[k] = "<token>";
      else if (TIME_KEYS.has(k)) out[k] = "<time>";
      else if (NUMBER_KEYS.has(k) && typeof v === "number") out[k] = "<number>";
      else if (k in SECRET_KEYS && typeof v === "string" && v !== "") out[k] = SECRET_KEYS[k] as string;
      else out[k] = normalize(v, labels);
    }
    const refusal = "requestId" in out ? out["error"] : undefined;
    if (refusal !== undefined && isObject(refusal) && "message" in refusal) {
      // A session's refused answer (a google.rpc.Status): its text is never
      // compared, as no unary error's is.
      refusal["message"] = "<message>";
    }
    return out;
  }
  if (typeof value === "string" && labels.has(value)) {
    const label = labels.get(value) as string;
    return label.includes("/") ? label : `games/${label}`;
  }
  return value;
}

function isObject(v: Json): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function kindOf(value: JsonObject, path: string): Json {
  // Beside the kind: a GameEvent's version, seat and turn after it, a watch
  // message's version and the seat's options.
  const keys = Object.keys(value).filter((k) => !["version", "seat", "turn", "options"].includes(k));
  if (keys.length === 0 && "options" in value) return "options"; // a session's message of options alone
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

/** A session's client messages: an async iterable the bidi call reads, fed by the steps. */
class Outbox implements AsyncIterable<PlayGameRequest> {
  private readonly queued: PlayGameRequest[] = [];
  private wake: (() => void) | undefined;
  private ended = false;

  push(message: PlayGameRequest): void {
    this.queued.push(message);
    this.wake?.();
  }

  /** No more moves (the client half-closes). */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<PlayGameRequest> {
    for (;;) {
      const next = this.queued.shift();
      if (next !== undefined) yield next;
      else if (this.ended) return;
      else await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}

interface OpenSession {
  outbox: Outbox;
  stream: AsyncIterator<PlayGameResponse>;
  /** The read under way (started at the open, so that the call starts then). */
  pending: Promise<IteratorResult<PlayGameResponse>> | undefined;
  abort: AbortController;
  caller: string;
  game: string;
  lastVersion: string | undefined;
  open: boolean;
}

/** A player's SubmitTicket or WatchTicket call and the last update read. */
interface TicketStream {
  stream: AsyncIterator<{ update?: TicketUpdate }>;
  abort: AbortController;
  last: TicketUpdate;
}

/**
 * One scenario's run: what the runner remembers between steps. `client`
 * calls the scenario's server; `player` gives a player's client on the
 * server of players (made once per player).
 */
class Replay {
  readonly games = new Map<string, { name: string; creator: string; invite: string }>();
  readonly seats = new Map<string, { game: string; token: string }>();
  readonly watches = new Map<string, OpenWatch>();
  readonly sessions = new Map<string, OpenSession>();
  /** Tickets and parties by label, in the order bound (a name's first label is printed). */
  readonly tickets = new Map<string, string>();
  readonly parties = new Map<string, string>();
  readonly invitations = new Map<string, string>();
  readonly ticketStreams = new Map<string, TicketStream>();
  readonly lines: string[] = [];

  constructor(
    private readonly client: Client,
    private readonly scenario: Scenario,
    private readonly player: (label: string) => Client,
  ) {}

  private labels(): Map<string, string> {
    const out = new Map([...this.games].map(([label, g]) => [g.name, label]));
    for (const [kind, bound] of [["tickets", this.tickets], ["parties", this.parties]] as const) {
      for (const [label, name] of [...bound].reverse()) out.set(name, `${kind}/${label}`); // the first label wins
    }
    return out;
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
      for (const s of this.sessions.values()) if (s.open) s.abort.abort();
      for (const t of this.ticketStreams.values()) t.abort.abort();
    }
  }

  private async step(index: number, step: Step): Promise<void> {
    const unknown = Object.keys(step).filter((k) => !STEP_FIELDS.has(k));
    if (unknown.length > 0) throw new ScenarioError(`step ${index}: unknown fields ${JSON.stringify(unknown.sort())}`);
    const op = step.op;
    let game = step.game ?? "g";
    let caller = step.as ?? "spectator";
    if (ON_A_STREAM.has(op)) {
      const onSession = op.startsWith("session_");
      const label = (onSession ? step.session : step.watch) ?? "";
      const stream = onSession ? this.sessions.get(label) : this.watches.get(label);
      if (!stream) throw new ScenarioError(`step ${index}: no ${onSession ? "session" : "watch"} labelled '${label}'`);
      game = stream.game;
      caller = stream.caller;
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
    if (op.startsWith("session_")) return this.session(op, game, caller, step, args);
    if (op === "ticket_submit" || op === "ticket_watch" || op === "ticket_wait") return this.ticket(op, game, caller, step, args);
    if (op in MATCH_UNARY) return this.match(op, caller, step, args);
    if (op === "list_games") return this.listGames(args);
    const methodName = UNARY[op];
    if (methodName === undefined) throw new ScenarioError(`unknown op '${op}'`);
    const method = GameService.method[methodName as keyof typeof GameService.method];
    if (op === "join_invite") {
      if (!("inviteCode" in args)) {
        const g = this.games.get(game);
        if (!g) throw new ScenarioError(`no game labelled '${game}' yet`);
        args["inviteCode"] = g.invite;
      }
    } else if (op !== "create") args["name"] = this.gameName(game);
    if (WITH_REQUEST_ID.has(op) && !("requestId" in args)) args["requestId"] = newRequestId();
    const request = fromJson(method.input, args);
    const token = op === "create" || op === "join" || op === "join_invite" ? undefined : this.token(caller, game);
    const call = this.client.games[methodName as keyof Client["games"]] as unknown as (
      req: unknown,
      options: object,
    ) => Promise<never>;
    const response = await this.client.call((o) => call(request, o), token);
    if (op === "create") {
      // The creator token is remembered before normalization hides it.
      const r = response as { game?: { name: string }; creatorToken: string; inviteCode: string };
      const bound = this.games.get(game);
      if (bound !== undefined && bound.name !== r.game?.name) {
        throw new Mismatch(`create '${game}' again made another game (a retry makes none)`);
      }
      this.games.set(game, { name: r.game?.name ?? "", creator: r.creatorToken, invite: r.inviteCode });
    } else if (op === "join" || op === "join_invite") {
      this.seats.set(caller, { game, token: (response as { seatToken: string }).seatToken });
    }
    return toJson(method.output, response, { alwaysEmitImplicit: true });
  }

  /** Every page of ListGames, only the scenario's games kept. */
  private async listGames(args: JsonObject): Promise<Json> {
    const mine = this.labels();
    const games: Json[] = [];
    const asked: JsonObject = { pageSize: 100, ...args };
    for (;;) {
      const request = fromJson(ListGamesRequestSchema, asked);
      const page = await this.client.call((o) => this.client.games.listGames(request, o));
      for (const g of page.games) if (mine.has(g.name)) games.push(protoJson(GameSchema, g));
      if (!page.nextPageToken) return { games };
      asked["pageToken"] = page.nextPageToken;
    }
  }

  private bound(map: Map<string, string>, kind: string, label: string | undefined): string {
    const name = label === undefined ? undefined : map.get(label);
    if (name === undefined) throw new ScenarioError(`no ${kind} labelled '${label}'`);
    return name;
  }

  /** A unary call of MatchService as the player `caller`. */
  private async match(op: string, caller: string, step: Step, args: JsonObject): Promise<Json> {
    const methodName = MATCH_UNARY[op] as keyof typeof MatchService.method;
    const method = MatchService.method[methodName];
    if (op === "ticket_cancel") args["ticket"] = this.bound(this.tickets, "ticket", step.ticket);
    else if (op !== "ticket_list" && op !== "party_create") args["party"] = this.bound(this.parties, "party", step.party);
    if (op === "party_join" && !("invitation" in args)) {
      args["invitation"] = this.invitations.get(`${step.party}\n${caller}`) ?? "";
    }
    const request = fromJson(method.input, args);
    const client = this.player(caller);
    const call = client.quick.service[methodName] as unknown as (req: unknown, options: object) => Promise<never>;
    const response = await client.call((o) => call(request, o));
    if (op === "party_create") {
      this.parties.set(step.party ?? "", (response as { party?: { name: string } }).party?.name ?? "");
    } else if (op === "party_invite") {
      this.invitations.set(`${step.party}\n${String(args["player"])}`, (response as { invitation: string }).invitation);
    }
    return toJson(method.output, response, { alwaysEmitImplicit: true });
  }

  /**
   * A ticket's stream as the player `caller`: opened by SubmitTicket or
   * WatchTicket (its first update read), or read to its final update.
   */
  private async ticket(op: string, game: string, caller: string, step: Step, args: JsonObject): Promise<Json> {
    const label = step.ticket;
    if (label === undefined) throw new ScenarioError(`${op}: no ticket label`);
    const key = `${label}\n${caller}`;
    if (op === "ticket_wait") {
      const t = this.ticketStreams.get(key);
      if (!t) throw new ScenarioError(`ticket '${label}' has no stream of '${caller}'`);
      while (!FINAL_STATES.has(t.last.state)) t.last = await readUpdate(t, label);
      const update = t.last;
      if (update.game) {
        const bound = this.games.get(game);
        if (bound !== undefined && bound.name !== update.game) {
          throw new Mismatch(`ticket '${label}' seated in another game than '${game}'`);
        }
        this.games.set(game, { name: update.game, creator: "", invite: "" });
        this.seats.set(caller, { game, token: update.seatToken });
      }
      return { update: protoJson(TicketUpdateSchema, update) };
    }
    const client = this.player(caller);
    const abort = new AbortController();
    const options = { headers: client.headers(), signal: abort.signal };
    let stream: AsyncIterable<{ update?: TicketUpdate }>;
    if (op === "ticket_submit") {
      if (step.party !== undefined) args["party"] = this.bound(this.parties, "party", step.party);
      stream = client.quick.service.submitTicket(fromJson(SubmitTicketRequestSchema, args), options);
    } else {
      args["ticket"] = this.bound(this.tickets, "ticket", label);
      stream = client.quick.service.watchTicket(fromJson(WatchTicketRequestSchema, args), options);
    }
    this.ticketStreams.get(key)?.abort.abort();
    this.ticketStreams.delete(key);
    const t = { stream: stream[Symbol.asyncIterator](), abort } as TicketStream;
    try {
      t.last = await readUpdate(t, label);
    } catch (e) {
      abort.abort();
      throw e;
    }
    this.ticketStreams.set(key, t);
    if (!this.tickets.has(label)) this.tickets.set(label, t.last.ticket);
    return { ticket: t.last.ticket };
  }

  private async session(op: string, game: string, caller: string, step: Step, args: JsonObject): Promise<Json> {
    const label = step.session ?? "";
    if (op === "session_open") {
      if (step.resume !== undefined) {
        const last = this.sessions.get(step.resume)?.lastVersion;
        if (last === undefined) throw new ScenarioError(`session '${step.resume}' read nothing to resume after`);
        args["afterVersion"] = last;
      }
      args["name"] = this.gameName(game);
      const outbox = new Outbox();
      outbox.push(create(PlayGameRequestSchema, { message: { case: "start", value: fromJson(PlayGameStartSchema, args) } }));
      const abort = new AbortController();
      // The generated service's bidi call on the SDK's transport, with the
      // headers the SDK sends (token, caller key).
      const stream = this.client.games
        .playGame(outbox, { headers: this.client.headers(this.token(caller, game)), signal: abort.signal })
        [Symbol.asyncIterator]();
      const s: OpenSession = { outbox, stream, pending: undefined, abort, caller, game, lastVersion: undefined, open: true };
      s.pending = stream.next();
      s.pending.catch(() => undefined); // its failure is the next read's
      this.sessions.set(label, s);
      return {};
    }
    const s = this.sessions.get(label);
    if (!s) throw new ScenarioError(`no session labelled '${label}'`);
    if (op === "session_send") {
      const move = fromJson(PlayGameRequestSchema, args);
      if (move.message.case === undefined || move.message.case === "start") {
        throw new ScenarioError("session_send: args must hold one move");
      }
      s.outbox.push(move);
      return {};
    }
    if (op === "session_close") {
      s.abort.abort();
      s.open = false;
      return {};
    }
    if (op !== "session_next" && op !== "session_end") throw new ScenarioError(`unknown op '${op}'`);
    if (op === "session_end") s.outbox.end();
    const count = op === "session_next" ? Number(step.count) : Infinity;
    const messages: Json[] = [];
    while (messages.length < count) {
      const got = await nextOf(s, label);
      if (got.done) {
        s.open = false;
        if (op === "session_end") break;
        throw new Mismatch(`session '${label}': the stream ended`);
      }
      const json = toJson(PlayGameResponseSchema, got.value, { alwaysEmitImplicit: true, registry: ERROR_DETAILS }) as JsonObject;
      messages.push(json);
      s.lastVersion = String(json["version"]);
    }
    return { messages };
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

/** The ticket stream's next update (10 s at most); a failed stream throws its ServiceError. */
async function readUpdate(t: TicketStream, label: string): Promise<TicketUpdate> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => {
    timer = setTimeout(() => r("timeout"), WATCH_TIMEOUT_MS);
  });
  let got: IteratorResult<{ update?: TicketUpdate }> | "timeout";
  try {
    got = await Promise.race([t.stream.next(), timeout]);
  } catch (e) {
    throw errorFromRpc(e);
  } finally {
    clearTimeout(timer);
  }
  if (got === "timeout") throw new Mismatch(`ticket '${label}': no update within ${WATCH_TIMEOUT_MS / 1000} s`);
  if (got.done || got.value.update === undefined) throw new Mismatch(`ticket '${label}': the stream ended`);
  return got.value.update;
}

/** One message of a session, or its end; a failed stream throws its ServiceError. */
async function nextOf(s: OpenSession, label: string): Promise<IteratorResult<PlayGameResponse>> {
  const read = s.pending ?? s.stream.next();
  s.pending = read;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => {
    timer = setTimeout(() => r("timeout"), WATCH_TIMEOUT_MS);
  });
  try {
    const got = await Promise.race([read, timeout]);
    if (got === "timeout") throw new Mismatch(`session '${label}': no message within ${WATCH_TIMEOUT_MS / 1000} s`);
    s.pending = undefined;
    return got;
  } catch (e) {
    if (e instanceof Mismatch) throw e;
    s.pending = undefined;
    s.open = false;
    throw errorFromRpc(e);
  } finally {
    clearTimeout(timer);
  }
}

const SUITE = suite();
let server: ServerProcess;
let players: ServerProcess;
let client: Client;
const playerClients = new Map<string, Client>();
const SECRET_FILE = join(HERE, "player-token.secret");
const SECRET = Buffer.from(readFileSync(SECRET_FILE, "utf8").trim());

/** A player's client on the server of players ("": one without a player token). */
function player(label: string): Client {
  let c = playerClients.get(label);
  if (c === undefined) {
    c = clientOf(players, label ? { playerToken: playerToken(label, SECRET) } : {});
    playerClients.set(label, c);
  }
  return c;
}

before(async () => {
  assert.equal(SUITE.formatVersion, FORMAT_VERSION, `suite.json: unknown formatVersion ${SUITE.formatVersion}`);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const testMode = ["--test-seed", String(SUITE.testSeed), "--abandon-after", "0"];
  server = await ServerProcess.start({ extra: testMode });
  // The server of players (README, "Starting the servers").
  players = await ServerProcess.start({
    extra: [...testMode, "--player-token-secret-file", SECRET_FILE, "--quick-bots-after", "0", "--quick-settle", "0"],
  });
  client = clientOf(server);
});

after(async () => {
  client.close();
  for (const c of playerClients.values()) c.close();
  await server.stop();
  await players.stop();
});

for (const scenario of scenarios()) {
  test(`conformance scenario ${scenario.name} replays through the TypeScript SDK`, async () => {
    const replay = new Replay(scenario.data.server === "players" ? player("") : client, scenario, player);
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
