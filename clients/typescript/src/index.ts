/**
 * `@ramino/client`: the Ramino SDK for TypeScript, on Connect-ES v2. This
 * entry imports no Node-only module: it runs in browsers and Node alike,
 * given a transport. `@ramino/client/node` adds native gRPC,
 * `@ramino/client/web` gRPC-web; each re-exports everything here.
 */
export {
  Client,
  Seat,
  Rules,
  CALLER_KEY,
  PLAYER_TOKEN_KEY,
  cardId,
  gameName,
  inviteCodeOf,
  inviteLink,
  isMyTurn,
  type CardRef,
  type ClientOptions,
  type CreateGameOptions,
  type CreatedGame,
  type JoinOptions,
  type ListGamesOptions,
  type MoveOptions,
  type MoveRequest,
  moveRequest,
  type Overrides,
  type SeatSpec,
  type VersionLike,
} from "./client.js";
export { Watch, endsMatch, watchItem, watchItems, type WatchItem, type WatchOptions } from "./watch.js";
export {
  ServiceError,
  InvalidArgument,
  MoveRejected,
  StaleVersion,
  NotFound,
  AlreadyExists,
  Unauthenticated,
  PermissionDenied,
  ResourceExhausted,
  Unavailable,
  CODE_NAMES,
  RETRYABLE_CODES,
  RESUMABLE_WATCH_REASONS,
  decodeErrorInfo,
  errorFromRpc,
  errorFromStatus,
  errorInfo,
  watchResumable,
  type ErrorInfo,
} from "./errors.js";
export { REASON_CODES, Reasons, type Reason } from "./reasons.js";
export { DEFAULT_RETRY, NO_RETRY, delays, type RetryPolicy } from "./retry.js";
export {
  cardName,
  cardSymbol,
  compareCards,
  groupBySuit,
  handText,
  isRed,
  parseCard,
  rankLabel,
  sortCards,
  suitSymbol,
  type CardLike,
} from "./cards.js";
export { draws, hasMoves, movesOf, type MoveKind, type MoveValue } from "./moves.js";
export { newCallerKey, newRequestId } from "./ids.js";
export { Code, ConnectError } from "@connectrpc/connect";
export * from "./gen/ramino/v1/types_pb.js";
export * from "./gen/ramino/v1/game_pb.js";
export * from "./gen/ramino/v1/rules_pb.js";
export * from "./gen/ramino/v1/match_pb.js";
export {
  Session,
  endsMatch as sessionEnds,
  updateOf,
  type SendOptions,
  type SessionOptions,
  type SessionUpdate,
} from "./session.js";
export { choose, overtaken, playSession, type OnRefused, type Options, type PlayOptions, type Strategy } from "./bot.js";
export {
  PARTY_LOOK_MS,
  Quick,
  TicketEnded,
  partyName,
  ticketName,
  type Clause,
  type TicketOptions,
} from "./quick.js";
