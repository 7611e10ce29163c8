/**
 * A game's live events as an async iterator that resumes after a dropped
 * stream from the last version it yielded, so that no event is missed or
 * repeated; a seat's watch also brings what the seat may do, pushed.
 */
import { Code } from "@connectrpc/connect";
import type { GameEvent, GameView, SeatOptions, WatchGameResponse } from "./gen/ramino/v1/game_pb.js";
import { GameStatus } from "./gen/ramino/v1/game_pb.js";
import { ServiceError, Unavailable, errorFromRpc, watchResumable } from "./errors.js";
import { Reasons } from "./reasons.js";
import { delays, sleep } from "./retry.js";
import type { Client } from "./client.js";

/**
 * One item of a watch: a snapshot of the game, or one event. On a seat's
 * watch, `options` is what the seat may do once this item is applied (at
 * `options.version`, the item's), set when the server pushed them: when the
 * turn comes to the seat and after each of its moves while the turn stays
 * its (moves and hint), when the turn leaves it (no moves), and with a
 * snapshot. Unset: nothing new about the seat's options.
 */
export type WatchItem =
  | { readonly kind: "snapshot"; readonly version: bigint; readonly view: GameView; readonly options?: SeatOptions }
  | { readonly kind: "event"; readonly version: bigint; readonly event: GameEvent; readonly options?: SeatOptions };

/** `item` with the options of the message it came in, when the message has them. */
function withOptions<T extends WatchItem>(item: T, options: SeatOptions | undefined): T {
  return options === undefined ? item : { ...item, options };
}

/** The item of one WatchGame message holding a snapshot or one event, with the message's options. */
export function watchItem(r: WatchGameResponse): WatchItem {
  if (r.payload.case === "snapshot") {
    return withOptions({ kind: "snapshot", version: r.version, view: r.payload.value }, r.options);
  }
  if (r.payload.case === "event") {
    return withOptions({ kind: "event", version: r.payload.value.version, event: r.payload.value }, r.options);
  }
  if (r.payload.case === "events" && r.payload.value.events.length === 1) {
    const event = r.payload.value.events[0]!;
    return withOptions({ kind: "event", version: event.version, event }, r.options);
  }
  throw new ServiceError(Code.Internal, Reasons.EMPTY_WATCH_MESSAGE, "a watch message with no payload");
}

/**
 * The items of one WatchGame message, in order: a batch of events (asked
 * for with `batchEvents`) gives one item per event. The message's options
 * are what the seat may do after all of it: they ride on its last item.
 */
export function watchItems(r: WatchGameResponse): WatchItem[] {
  if (r.payload.case === "events" && r.payload.value.events.length > 0) {
    const events = r.payload.value.events;
    return events.map((event, i) =>
      withOptions({ kind: "event", version: event.version, event }, i === events.length - 1 ? r.options : undefined),
    );
  }
  return [watchItem(r)];
}

/** Whether nothing can follow `item`: the match has ended, or the game. */
export function endsMatch(item: WatchItem): boolean {
  if (item.kind === "snapshot") return item.view.status === GameStatus.FINISHED;
  const c = item.event.event.case;
  return c === "matchEnded" || c === "gameEnded";
}

/**
 * Where a received item falls after the last version yielded: the next one
 * (or a snapshot, always taken), one already yielded, or past a gap.
 */
export function order(item: WatchItem, last: bigint | undefined): "next" | "seen" | "gap" {
  if (item.kind === "snapshot" || last === undefined || item.version === last + 1n) return "next";
  return item.version <= last ? "seen" : "gap";
}

export interface WatchOptions {
  /** Resume after this version; unset to start with a snapshot. */
  afterVersion?: bigint | number | undefined;
  /** Start with a full snapshot even when resuming. */
  snapshot?: boolean | undefined;
  /** End the iteration once the match (or the game) has ended; true by default. */
  stopAtEnd?: boolean | undefined;
  /** Aborting it ends the iteration. */
  signal?: AbortSignal | undefined;
}

/**
 * The live events of a game: iterate it with `for await`. It yields a
 * snapshot first unless resuming (`afterVersion`), then every event once, in
 * version order. A stream that drops (the server restarting, a connection
 * closed, a stream ended as too slow) is opened again from the last version
 * yielded, with the client's retry policy counting failures in a row; an
 * event received twice across a reconnect is skipped, and a gap makes it ask
 * again. `cancel()` (or breaking out of the loop) ends it. Iterate it once.
 *
 * A seat's watch (`seat.watch()`) carries the seat's options on the items
 * they came with (see {@link WatchItem}), and keeps the last ones in
 * `options`: play from them, with no GetLegalMoves. Options older than
 * what the seat already knows (a move's answer, `MoveResult.options`, is
 * often ahead of the watch) are past: compare `version`s.
 */
export class Watch implements AsyncIterable<WatchItem> {
  /** The version of the last item yielded. */
  lastVersion: bigint | undefined;
  /**
   * The seat's options last pushed (with an item yielded): what it may do
   * at `options.version`; unset before any (and always on a spectator's watch).
   */
  options: SeatOptions | undefined;
  /** Whether the last item yielded ended the match. */
  ended = false;
  /** Streams opened again after a drop. */
  reconnects = 0;
  private closed = false;
  private abort: AbortController | undefined;
  private readonly afterVersion: bigint | undefined;
  private readonly snapshot: boolean;
  private readonly stopAtEnd: boolean;

  constructor(
    private readonly client: Client,
    /** `games/{id}`. */
    readonly name: string,
    private readonly token: string | undefined,
    options: WatchOptions = {},
  ) {
    this.afterVersion = options.afterVersion === undefined ? undefined : BigInt(options.afterVersion);
    this.snapshot = options.snapshot ?? false;
    this.stopAtEnd = options.stopAtEnd ?? true;
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) this.closed = true;
      else signal.addEventListener("abort", () => this.cancel(), { once: true });
    }
  }

  /** Ends the watch: the loop over it stops. */
  cancel(): void {
    this.closed = true;
    this.abort?.abort();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchItem> {
    return this.run();
  }

  /**
   * What to ask for: after the last item yielded (the first time: from
   * `afterVersion`, with a snapshot when asked), the events several to a
   * message (fewer messages for the server to send when many watch).
   */
  private request(): { name: string; afterVersion?: bigint; snapshot: boolean; batchEvents: boolean } {
    if (this.lastVersion === undefined) {
      return this.afterVersion === undefined
        ? { name: this.name, snapshot: this.snapshot, batchEvents: true }
        : { name: this.name, afterVersion: this.afterVersion, snapshot: this.snapshot, batchEvents: true };
    }
    return { name: this.name, afterVersion: this.lastVersion, snapshot: false, batchEvents: true };
  }

  /** Whether the game has finished and nothing follows what this watch has seen. */
  private async pastTheEnd(): Promise<boolean> {
    const seen = this.lastVersion ?? this.afterVersion;
    if (seen === undefined) return false;
    const view = await this.client.view(this.name, this.token);
    if (view.status !== GameStatus.FINISHED || view.version > seen) return false;
    this.ended = true;
    this.closed = true;
    return true;
  }

  private async *run(): AsyncGenerator<WatchItem, void, undefined> {
    let waits = delays(this.client.retry);
    while (!this.closed) {
      const abort = new AbortController();
      this.abort = abort;
      let failure: ServiceError | undefined;
      try {
        const stream = this.client.games.watchGame(this.request(), {
          headers: this.client.headers(this.token),
          signal: abort.signal,
        });
        received: for await (const response of stream) {
          for (const item of watchItems(response)) {
            const where = order(item, this.lastVersion);
            if (where === "seen") continue; // yielded before a reconnect
            if (where === "gap") break received; // ask again from what was yielded
            this.lastVersion = item.version;
            if (item.options) this.options = item.options;
            this.ended = endsMatch(item);
            waits = delays(this.client.retry);
            yield item;
            if (this.closed || (this.stopAtEnd && this.ended)) {
              this.closed = true;
              return;
            }
          }
        }
        // The stream ended: after the match it is over; otherwise the
        // server is going away (draining): resume elsewhere, unless the
        // game had ended before the version asked for.
        if (this.ended || (await this.pastTheEnd())) return;
      } catch (e) {
        if (this.closed) return;
        failure = errorFromRpc(e);
        if (!watchResumable(failure)) throw failure;
      } finally {
        abort.abort();
        if (this.abort === abort) this.abort = undefined;
      }
      if (this.closed) return;
      const wait = waits.next();
      if (wait.done) {
        throw failure ?? new Unavailable(Code.Unavailable, "UNAVAILABLE", "stream closed");
      }
      this.reconnects += 1;
      await sleep(wait.value);
    }
  }
}
