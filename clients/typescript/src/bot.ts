/**
 * A bot that plays a seat to the end of its match from what the seat's
 * session pushes (the answers' and the pushed options: no GetLegalMoves),
 * with a simple strategy chosen from the server's legal moves and hints: it
 * draws from the stock, knocks (gin) with the hint's best knock, lays
 * whatever melds and lay-offs the server proposes, and discards the card the
 * hint suggests.
 */
import { create } from "@bufbuild/protobuf";
import { MoveSchema, type GameView, type Hint, type Move, type SeatOptions } from "./gen/ramino/v1/game_pb.js";
import { MoveRejected, StaleVersion, type ServiceError } from "./errors.js";
import { Reasons } from "./reasons.js";
import type { Seat } from "./client.js";
import type { MoveKind } from "./moves.js";

/** What the seat may do: SeatOptions, GetLegalMovesResponse or a MoveResult's options. */
export interface Options {
  readonly moves: readonly Move[];
  readonly hint?: Hint | undefined;
}

/**
 * A strategy: the move to make from `options` and the seat's view at their
 * version (the table they are for: the top of `view.discardPile` is the card
 * TakeDiscard takes), or undefined for none; or a promise of it (a strategy
 * that asks something else first).
 */
export type Strategy = (
  options: SeatOptions,
  view: GameView | undefined,
) => Move | undefined | Promise<Move | undefined>;

/** Told of a move the game refused for having been overtaken ({@link overtaken}), with the options it was chosen from. */
export type OnRefused = (error: ServiceError, options: SeatOptions) => void;

/** The bot's strategy: the move to make from `options`, undefined when there is none. */
export function choose(options: Options): Move | undefined {
  const moves = options.moves;
  const first = (kind: MoveKind): Move | undefined => moves.find((m) => m.move.case === kind);
  const best = options.hint?.bestKnock;
  if (best !== undefined && first("knock") !== undefined) return create(MoveSchema, { move: { case: "knock", value: best } });
  for (const kind of ["drawFromStock", "turnOverDiscardPile", "takeDiscard", "layMelds", "layOff"] as const) {
    const m = first(kind);
    if (m) return m;
  }
  const hinted = options.hint?.suggestedDiscard?.id;
  if (hinted !== undefined) {
    const m = moves.find((x) => x.move.case === "discard" && x.move.value.cardId === hinted);
    if (m) return m;
  }
  return (
    first("discard") ?? first("acceptLayout") ?? first("passUpcard") ?? moves.find((m) => m.move.case !== "resign") ?? moves[0]
  );
}

/**
 * Whether a refused move was overtaken by the game, the next options saying
 * what to do: its version was stale (another move came first: a bot, a turn
 * timer, a unary call), the turn had passed, the match was over.
 */
export function overtaken(error: unknown): boolean {
  if (error instanceof StaleVersion) return true;
  return error instanceof MoveRejected && (error.reason === Reasons.NOT_YOUR_TURN || error.reason === Reasons.MATCH_OVER);
}

export interface PlayOptions {
  /** The strategy; {@link choose} by default. */
  strategy?: Strategy | undefined;
  /** Told of each move overtaken by the game; play goes on from the next options. */
  onRefused?: OnRefused | undefined;
  /** Aborting it stops the bot (its promise resolves with the seat's last view). */
  signal?: AbortSignal | undefined;
}

/**
 * Plays `seat` until its match ends, acting on every update that brings
 * options with moves (on the session, or its fallback where there is no
 * PlayGame), the strategy handed them and the seat's view at their version,
 * and resolves with the seat's final view. A move overtaken by another (a
 * stale version, a turn passed) is told to `onRefused` and play goes on: the
 * options that follow say what to do; any other refusal is thrown.
 */
export async function playSession(seat: Seat, options: PlayOptions = {}): Promise<GameView> {
  const strategy = options.strategy ?? ((o: SeatOptions) => choose(o));
  const session = seat.session({ signal: options.signal });
  const chosen = new Map<string, SeatOptions>(); // by request id: told back with a refusal
  try {
    for await (const update of session) {
      if (update.kind === "refused") {
        const from = chosen.get(update.requestId);
        chosen.delete(update.requestId);
        if (!overtaken(update.error)) throw update.error;
        if (from !== undefined) options.onRefused?.(update.error, from);
        continue;
      }
      if (update.kind === "answer") chosen.delete(update.requestId);
      if (session.ended) break;
      const legal = update.options;
      if (legal === undefined || legal.moves.length === 0) continue;
      // The session keeps the view pushed with the options as the seat's
      // last; its fallback (no PlayGame) asks for it.
      const view = session.fallback && legal.view === undefined ? await seat.view() : seat.lastView;
      const move = await strategy(legal, view);
      if (move !== undefined) chosen.set(await session.send(move, { expectedVersion: legal.version }), legal);
    }
  } finally {
    session.close();
  }
  return seat.view();
}
