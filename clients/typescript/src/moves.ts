/** The legal moves of a seat, sorted by kind, and how to pick from them. */
import type { GetLegalMovesResponse, Move } from "./gen/ramino/v1/game_pb.js";

/** The kind of a move: "drawFromStock", "discard", "layMelds"... */
export type MoveKind = NonNullable<Move["move"]["case"]>;

/** The message of a move of kind `K`: `movesOf(legal, "discard")` gives DiscardMove[]. */
export type MoveValue<K extends MoveKind> = Extract<Move["move"], { case: K }> extends { value: infer V } ? V : never;

/** The moves of one kind, in the server's order. */
export function movesOf<K extends MoveKind>(legal: { readonly moves: readonly Move[] }, kind: K): MoveValue<K>[] {
  const out: MoveValue<K>[] = [];
  for (const m of legal.moves) {
    if (m.move.case === kind) out.push(m.move.value as unknown as MoveValue<K>);
  }
  return out;
}

/** The draws among the legal moves (stock, discard, turning the pile over). */
export function draws(legal: { readonly moves: readonly Move[] }): Move[] {
  return legal.moves.filter(
    (m) =>
      m.move.case === "drawFromStock" ||
      m.move.case === "takeDiscard" ||
      m.move.case === "turnOverDiscardPile",
  );
}

/** Whether the seat has any move to make now. */
export function hasMoves(legal: GetLegalMovesResponse): boolean {
  return legal.moves.length > 0;
}
