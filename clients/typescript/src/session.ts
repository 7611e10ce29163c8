/**
 * A seat's session (`PlayGame`): its moves go out, and in come, in version
 * order, each move's answer (by request id), every event the seat may see,
 * and the seat's options (what it may do now) pushed whenever they change,
 * so that the client never asks.
 *
 * A dropped session is opened again after the last version received (no
 * event missed or repeated), and the moves not yet answered are sent again
 * with their request ids (the server applies each once and answers a retry
 * with its first answer). Where there is no PlayGame (gRPC-web, which has no
 * bidirectional streams, or a server that answers UNIMPLEMENTED) the session
 * plays the same through the unary moves and the seat's watch.
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import {
  GameStatus,
  SeatOptionsSchema,
  type GameEvent,
  type GameView,
  type Move,
  type MoveResult,
  type MoveSchema,
  type PlayGameRequestSchema,
  type PlayGameResponse,
  type SeatOptions,
} from "./gen/ramino/v1/game_pb.js";
import { ServiceError, Unavailable, errorFromRpc, errorFromStatus, watchResumable } from "./errors.js";
import { newRequestId } from "./ids.js";
import { delays, sleep } from "./retry.js";
import { moveRequest, type MoveRequest, type Seat, type VersionLike } from "./client.js";
import type { Watch, WatchItem } from "./watch.js";

/**
 * One message of a session. `options`, what the seat may do now, is set
 * when they changed (an answer's are its result's).
 */
export type SessionUpdate =
  | { readonly kind: "snapshot"; readonly version: bigint; readonly view: GameView; readonly options?: SeatOptions | undefined }
  | { readonly kind: "event"; readonly version: bigint; readonly event: GameEvent; readonly options?: SeatOptions | undefined }
  /** The answer to one of this session's moves. */
  | {
      readonly kind: "answer";
      readonly version: bigint;
      readonly requestId: string;
      readonly result: MoveResult;
      readonly options?: SeatOptions | undefined;
    }
  /** One of this session's moves, refused as its unary call would be: the session goes on. */
  | {
      readonly kind: "refused";
      readonly version: bigint;
      readonly requestId: string;
      readonly error: ServiceError;
      readonly options?: undefined;
    }
  | { readonly kind: "options"; readonly version: bigint; readonly options: SeatOptions };

export interface SessionOptions {
  /** Resume after this version (the last one received); unset to start with a snapshot. */
  afterVersion?: VersionLike | undefined;
  /** Aborting it closes the session. */
  signal?: AbortSignal | undefined;
}

export interface SendOptions {
  /** The version the move is meant for; a mismatch is refused (`StaleVersion`). */
  expectedVersion?: VersionLike | undefined;
  /** Fresh by default; the same id sent again is applied once and answered once. */
  requestId?: string | undefined;
}

/** Whether nothing can follow `update` in the seat's match. */
export function endsMatch(update: SessionUpdate): boolean {
  switch (update.kind) {
    case "snapshot":
      return update.view.status === GameStatus.FINISHED;
    case "event":
      return update.event.event.case === "matchEnded" || update.event.event.case === "gameEnded";
    case "answer":
      return update.result.view?.status === GameStatus.FINISHED;
    default:
      return false;
  }
}

/** The update of one server message. */
export function updateOf(r: PlayGameResponse): SessionUpdate {
  const options = r.options;
  switch (r.payload.case) {
    case "snapshot":
      return { kind: "snapshot", version: r.version, view: r.payload.value, options };
    case "event":
      return { kind: "event", version: r.payload.value.version, event: r.payload.value, options };
    case "answer": {
      const answer = r.payload.value;
      if (answer.outcome.case === "result") {
        const result = answer.outcome.value;
        return {
          kind: "answer",
          version: result.view?.version ?? r.version,
          requestId: answer.requestId,
          result,
          options: result.options ?? options,
        };
      }
      if (answer.outcome.case === "error") {
        return { kind: "refused", version: r.version, requestId: answer.requestId, error: errorFromStatus(answer.outcome.value) };
      }
      throw new ServiceError(Code.Internal, "EMPTY_ANSWER", `the answer to ${answer.requestId} has no outcome`);
    }
    default:
      if (options === undefined) {
        throw new ServiceError(Code.Internal, "EMPTY_SESSION_MESSAGE", "a session message with nothing in it");
      }
      return { kind: "options", version: r.version, options };
  }
}

type Request = MessageInitShape<typeof PlayGameRequestSchema>;

/** A move sent and not yet answered: its message, and the move itself for a unary call. */
interface Pending {
  readonly request: MoveRequest;
  readonly move: Move | MessageInitShape<typeof MoveSchema>;
  readonly expectedVersion: VersionLike | undefined;
}

/** The client's side of one PlayGame stream: the messages to send, in order, until closed. */
class Outbox implements AsyncIterable<Request> {
  private readonly queue: Request[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  push(message: Request): void {
    if (this.closed) return;
    this.queue.push(message);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Request, void, undefined> {
    for (;;) {
      const next = this.queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}

interface Stream {
  readonly outbox: Outbox;
  readonly abort: AbortController;
  readonly responses: AsyncIterator<PlayGameResponse>;
}

/**
 * A seat's session: `await send(move)`, and `for await (const update of
 * session)`, from one loop. Breaking out of the loop, `close()` or the
 * signal ends it; it also ends once the match has ended and every move
 * sent is answered. Iterate it once.
 */
export class Session implements AsyncIterable<SessionUpdate> {
  /** The version of the last event, snapshot or answer received: where a reopened stream resumes. */
  lastVersion: bigint | undefined;
  /** Whether the match has ended. */
  ended = false;
  /** Streams opened again after a drop. */
  reconnects = 0;
  /** No PlayGame here (gRPC-web, or an UNIMPLEMENTED answer): unary moves and the seat's watch. */
  fallback: boolean;
  private closed = false;
  private stream: Stream | undefined;
  private readonly unanswered = new Map<string, Pending>();
  private iterator: AsyncGenerator<SessionUpdate, void, undefined> | undefined;
  // The fallback's state: answers of unary moves not yet yielded, the calls in flight, the watch.
  private readonly answers: SessionUpdate[] = [];
  private readonly inflight = new Set<Promise<void>>();
  private watch: Watch | undefined;
  private watchItems: AsyncIterator<WatchItem> | undefined;

  constructor(
    readonly seat: Seat,
    options: SessionOptions = {},
  ) {
    this.lastVersion = options.afterVersion === undefined ? undefined : BigInt(options.afterVersion);
    this.fallback = !seat.client.bidiStreams;
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) this.closed = true;
      else signal.addEventListener("abort", () => this.close(), { once: true });
    }
  }

  /** Moves sent and not yet answered, by request id. */
  get pending(): ReadonlySet<string> {
    return new Set(this.unanswered.keys());
  }

  /**
   * Sends `move` (one of the pushed options' moves, or any) and returns its
   * request id, which its answer carries. In the fallback it is the unary
   * call, whose answer is the next update.
   */
  async send(move: Move | MessageInitShape<typeof MoveSchema>, options: SendOptions = {}): Promise<string> {
    const requestId = options.requestId ?? newRequestId();
    const expectedVersion = options.expectedVersion;
    if (this.closed) throw new ServiceError(Code.Canceled, "CANCELLED", "the session is closed");
    if (this.fallback) {
      await this.unary(requestId, move, expectedVersion);
      return requestId;
    }
    const request = moveRequest(move, "", requestId, expectedVersion);
    this.unanswered.set(requestId, { request, move, expectedVersion });
    // A stream opened now sends every unanswered move after its start, this one included.
    if (this.stream === undefined) this.open();
    else this.stream.outbox.push({ message: request });
    return requestId;
  }

  /** Ends the session: the loop over it stops. */
  close(): void {
    this.closed = true;
    if (this.stream) this.drop(this.stream);
    this.watch?.cancel();
  }

  /** The next update; undefined once the session has ended. */
  async next(): Promise<SessionUpdate | undefined> {
    const next = await this.updates().next();
    return next.done ? undefined : next.value;
  }

  [Symbol.asyncIterator](): AsyncIterator<SessionUpdate> {
    return this.updates();
  }

  private updates(): AsyncGenerator<SessionUpdate, void, undefined> {
    this.iterator ??= this.run();
    return this.iterator;
  }

  private open(): Stream {
    if (this.stream) return this.stream;
    const outbox = new Outbox();
    // Resumed after the last version received: nothing missed or repeated.
    const last = this.lastVersion;
    // Options with their hint (and, pushed with moves, the seat's view) and
    // answers with the mover's view: what the session's callers read (the
    // server sends none of them unless asked). The moves sent again are
    // named: the server answers each once (in place of its events) and
    // pushes no options before their answers.
    const resend = [...this.unanswered.keys()];
    const wanted = { name: this.seat.name, hints: true, answerViews: true, optionViews: true, resend };
    const start = last === undefined ? wanted : { ...wanted, afterVersion: last };
    outbox.push({ message: { case: "start", value: start } });
    for (const pending of this.unanswered.values()) outbox.push({ message: pending.request });
    const abort = new AbortController();
    const responses = this.seat.client.games.playGame(outbox, {
      headers: this.seat.client.headers(this.seat.token),
      signal: abort.signal,
    });
    this.stream = { outbox, abort, responses: responses[Symbol.asyncIterator]() };
    return this.stream;
  }

  private drop(stream: Stream): void {
    stream.outbox.close();
    stream.abort.abort();
    if (this.stream === stream) this.stream = undefined;
  }

  private over(): boolean {
    return this.closed || (this.ended && this.unanswered.size === 0 && this.inflight.size === 0 && this.answers.length === 0);
  }

  /**
   * Notes what `update` says: the move it answers, the last version, the
   * view, the end. Nothing is filtered: the server hands each version out
   * once, across reopened streams too (their resent moves are named).
   */
  private take(update: SessionUpdate): void {
    if (update.kind === "answer" || update.kind === "refused") this.unanswered.delete(update.requestId);
    if (update.kind === "answer") {
      this.seat.received(update.result);
      if (this.lastVersion === undefined || update.version > this.lastVersion) this.lastVersion = update.version;
    } else if (update.kind === "event") {
      this.lastVersion = update.version;
    } else if (update.kind === "snapshot") {
      this.seat.lastView = update.view;
      this.lastVersion = update.version;
    }
    // Options pushed with moves carry the seat's view at their version.
    if (update.kind !== "snapshot" && update.options?.view) this.seat.seen(update.options.view);
    this.ended ||= endsMatch(update);
  }

  private async *run(): AsyncGenerator<SessionUpdate, void, undefined> {
    let waits = delays(this.seat.client.retry);
    try {
      while (!this.over()) {
        if (this.fallback) {
          yield* this.runFallback();
          return;
        }
        const stream = this.open();
        let failure: ServiceError | undefined;
        try {
          for (;;) {
            const next = await stream.responses.next();
            if (next.done) break;
            waits = delays(this.seat.client.retry);
            const update = updateOf(next.value);
            this.take(update);
            yield update;
            if (this.over()) return;
          }
        } catch (e) {
          if (this.closed) return;
          failure = errorFromRpc(e);
          if (failure.code === Code.Unimplemented) {
            this.drop(stream);
            await this.fallBack();
            continue;
          }
          if (!watchResumable(failure)) throw failure;
        } finally {
          this.drop(stream);
        }
        // The stream ended or dropped: over after the match; otherwise the
        // server is going away (draining) or the connection broke: reopen
        // after the last version received.
        if (this.over()) return;
        const wait = waits.next();
        if (wait.done) throw failure ?? new Unavailable(Code.Unavailable, "UNAVAILABLE", "the session's stream kept ending");
        this.reconnects += 1;
        await sleep(wait.value);
      }
    } finally {
      this.close();
    }
  }

  // --- the fallback: unary moves and the seat's watch -------------------------

  /** From now on the unary calls: the moves sent on the stream and not answered go that way, with their ids. */
  private async fallBack(): Promise<void> {
    this.fallback = true;
    const pending = [...this.unanswered.entries()];
    this.unanswered.clear();
    for (const [requestId, p] of pending) await this.unary(requestId, p.move, p.expectedVersion);
  }

  private async unary(
    requestId: string,
    move: Move | MessageInitShape<typeof MoveSchema>,
    expectedVersion: VersionLike | undefined,
  ): Promise<void> {
    const call = (async () => {
      try {
        const result = await this.seat.play(move, { requestId, expectedVersion });
        const version = result.view?.version ?? 0n;
        this.answers.push({ kind: "answer", version, requestId, result, options: result.options });
      } catch (e) {
        const version = this.lastVersion ?? 0n;
        this.answers.push({ kind: "refused", version, requestId, error: errorFromRpc(e) });
      }
    })();
    this.inflight.add(call);
    try {
      await call;
    } finally {
      this.inflight.delete(call);
    }
  }

  /** The seat's options after a watched item: none to ask for when the event gives the turn to another seat. */
  private async optionsAfter(update: SessionUpdate): Promise<SeatOptions> {
    if (update.kind === "event" && update.event.turn !== undefined && update.event.turn !== this.seat.seat) {
      return create(SeatOptionsSchema, { version: update.version, turn: update.event.turn, moves: [] });
    }
    const legal = await this.seat.legalMoves();
    return legal.options ?? create(SeatOptionsSchema, { version: legal.version, moves: legal.moves, hint: legal.hint });
  }

  /**
   * The updates of the fallback, in version order: the watch's items, and
   * the unary moves' answers each after the events before it (the watch
   * may be behind the answer) and in place of its own events.
   */
  private async *runFallback(): AsyncGenerator<SessionUpdate, void, undefined> {
    for (;;) {
      const answer = this.answers[0];
      if (answer !== undefined) {
        const first = answer.kind === "answer" ? answer.result.events[0]?.version : undefined;
        if (first === undefined || this.lastVersion === undefined || first <= this.lastVersion + 1n) {
          this.answers.shift();
          this.take(answer);
          yield answer;
          continue;
        }
      } else if (this.over() || (this.ended && this.inflight.size === 0)) {
        return;
      }
      if (this.watchItems === undefined) {
        this.watch = this.seat.watch(this.lastVersion === undefined ? {} : { afterVersion: this.lastVersion });
        this.watchItems = this.watch[Symbol.asyncIterator]();
      }
      const next = await this.watchItems.next();
      // A move of this session in flight may be what the watch shows: its answer first.
      if (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
      if (next.done) {
        if (this.answers.length === 0) return;
        const rest = this.answers.splice(0);
        for (const a of rest) {
          this.take(a);
          yield a;
        }
        return;
      }
      const item = next.value;
      const version = item.version;
      if (this.answers.some((a) => a.kind === "answer" && a.result.events.some((e) => e.version === version))) {
        continue; // an event of this session's move: its answer brings it
      }
      const seen: SessionUpdate =
        item.kind === "snapshot"
          ? { kind: "snapshot", version, view: item.view }
          : { kind: "event", version, event: item.event };
      // The fallback merges two streams here: a move of this session, answered already.
      if (seen.kind === "event" && this.lastVersion !== undefined && version <= this.lastVersion) continue;
      this.take(seen);
      if (this.ended) {
        yield seen;
        continue;
      }
      yield { ...seen, options: await this.optionsAfter(seen) };
    }
  }
}
