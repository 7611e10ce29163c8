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
import { MoveRejected, StaleVersion } from "./errors.js";
import { Reasons } from "./reasons.js";
import type { Seat } from "./client.js";
import type { MoveKind } from "./moves.js";

/** What the seat may do: SeatOptions, GetLegalMovesResponse or a MoveResult's options. */
export interface Options {
  readonly moves: readonly Move[];
  readonly hint?: Hint | undefined;
}

/** A strategy: the move to make from `options` (and the seat's last view), or undefined for none. */
export type Strategy = (options: SeatOptions, view: GameView | undefined) => Move | undefined;

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

/** Refusals after which newer options are on their way: a version moved on, a turn passed. */
function overtaken(error: unknown): boolean {
  if (error instanceof StaleVersion) return true;
  return error instanceof MoveRejected && (error.reason === Reasons.NOT_YOUR_TURN || error.reason === Reasons.MATCH_OVER);
}

export interface PlayOptions {
  /** The strategy; {@link choose} by default. */
  strategy?: Strategy | undefined;
  /** Aborting it stops the bot (its promise resolves with the seat's last view). */
  signal?: AbortSignal | undefined;
}

/**
 * Plays `seat` until its match ends, acting on every update that brings
 * options with moves (on the session, or its fallback where there is no
 * PlayGame), and resolves with the seat's final view. A move overtaken by
 * another (a stale version, a turn passed) is dropped: the options that
 * follow say what to do; any other refusal is thrown.
 */
export async function playSession(seat: Seat, options: PlayOptions = {}): Promise<GameView> {
  const strategy = options.strategy ?? ((o: SeatOptions) => choose(o));
  const session = seat.session({ signal: options.signal });
  try {
    for await (const update of session) {
      if (update.kind === "refused") {
        if (overtaken(update.error)) continue;
        throw update.error;
      }
      if (session.ended) break;
      const legal = update.options;
      if (legal === undefined || legal.moves.length === 0) continue;
      const move = strategy(legal, seat.lastView);
      if (move !== undefined) await session.send(move, { expectedVersion: legal.version });
    }
  } finally {
    session.close();
  }
  return seat.view();
}
