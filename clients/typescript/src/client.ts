/**
 * The client: {@link Client} (lobby, games, rules), {@link Seat} (one seat of
 * one game, one method per move) over any Connect transport: native gRPC in
 * Node (`@ramino/client/node`), gRPC-web in browsers (`@ramino/client/web`).
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { createClient, type Client as ConnectClient, type Transport } from "@connectrpc/connect";
import {
  BotLevel,
  GameService,
  type Game,
  type GameStatus,
  type GameView,
  type GetLegalMovesResponse,
  type Move,
  type MoveResult,
  type MoveSchema,
  type PlayGameRequestSchema,
  type SeatConfig,
  type SeatConfigSchema,
  Visibility,
} from "./gen/ramino/v1/game_pb.js";
import {
  RulesService,
  type AnalyzeHandResponse,
  type BotLevelInfo,
  type ValidateMeldResponse,
} from "./gen/ramino/v1/rules_pb.js";
import {
  End,
  VariantParametersSchema,
  type Variant,
  type VariantParameters,
} from "./gen/ramino/v1/types_pb.js";
import { RETRYABLE_CODES, errorFromRpc } from "./errors.js";
import { newCallerKey, newRequestId } from "./ids.js";
import { DEFAULT_RETRY, delays, sleep, type RetryPolicy } from "./retry.js";
import { Quick } from "./quick.js";
import { Watch, type WatchOptions } from "./watch.js";
import type { MoveKind } from "./moves.js";
import { Session, type SessionOptions } from "./session.js";

/** Metadata that scopes this client's request ids on CreateGame and JoinGame. */
export const CALLER_KEY = "ramino-caller-key";
/** Metadata carrying the host's player token, for a server that knows players. */
export const PLAYER_TOKEN_KEY = "ramino-player-token";

export interface ClientOptions {
  /** How calls travel: see `@ramino/client/node` and `@ramino/client/web`. */
  transport: Transport;
  /** Bounds each unary call (not a watch); 10 s by default, 0 for none. */
  timeoutMs?: number | undefined;
  /** Used on UNAVAILABLE (and a server's CANCELLED), with the same request. */
  retry?: RetryPolicy | undefined;
  /** The player token of the host's auth, sent on every call. */
  playerToken?: string | undefined;
  /**
   * The secret that scopes this client's request ids on CreateGame and
   * JoinGame: a random one per client by default; give the same one to
   * retry such a call from another client.
   */
  callerKey?: string | undefined;
  /** Called by `close()`: releases the transport's connections. */
  onClose?: (() => void) | undefined;
  /**
   * Whether the transport carries bidirectional streams (native gRPC does,
   * gRPC-web does not): without, a seat's session plays through the unary
   * moves and its watch. True by default.
   */
  bidiStreams?: boolean | undefined;
}

/** A seat asked for at creation: a person's name ("" for anyone), or a bot level. */
export type SeatSpec = string | BotLevel;

/** A card by its id, or a card (of a game) that has one. */
export type CardRef = number | { readonly id?: number | undefined; readonly code?: string };

/** A version as the server counts them (int64): a bigint, or a number. */
export type VersionLike = bigint | number;

/** Parameters that differ from a preset (and the match settings target_score, max_rounds). */
export type Overrides = MessageInitShape<typeof VariantParametersSchema>;

export function cardId(card: CardRef): number {
  if (typeof card === "number") return card;
  if (card.id === undefined) {
    throw new RangeError(`${card.code ?? "a card"} has no id: only cards of a game can be played`);
  }
  return card.id;
}

/** `games/{id}` from a name or a bare id. */
export function gameName(game: string): string {
  return game.startsWith("games/") ? game : `games/${game}`;
}

/** How a link carries an invite code: `BASE#invite=CODE` (or `?invite=`). */
const INVITE_MARK = "invite=";

/**
 * The link that opens a private game's invite: `baseUrl#invite=CODE` (the
 * web page joins the game it opens).
 */
export function inviteLink(baseUrl: string, inviteCode: string): string {
  return `${baseUrl.split("#", 1)[0]}#${INVITE_MARK}${inviteCode}`;
}

/**
 * The invite code in `codeOrLink`: a code as it is, or the code of a link
 * made by {@link inviteLink} (`#invite=` or `?invite=`).
 */
export function inviteCodeOf(codeOrLink: string): string {
  const text = codeOrLink.trim();
  for (const mark of ["#", "?", "&"]) {
    const at = text.indexOf(mark + INVITE_MARK);
    if (at >= 0) return text.slice(at + mark.length + INVITE_MARK.length).split("&", 1)[0] ?? "";
  }
  return text;
}

function seatConfig(spec: SeatSpec): MessageInitShape<typeof SeatConfigSchema> {
  return typeof spec === "number" ? { bot: spec } : { playerName: spec };
}

function cardsText(cards: string | readonly string[]): string[] {
  return typeof cards === "string" ? cards.split(/\s+/).filter((c) => c !== "") : [...cards];
}

function version(v: VersionLike | undefined): bigint | undefined {
  return v === undefined ? undefined : BigInt(v);
}

export interface CreateGameOptions {
  /** Preset: ramino51, rami51, rummy or gin (ramino51 by default). */
  variant?: string | undefined;
  /** One per seat, in turn order: `["ann", BotLevel.GREEDY]` by default. */
  seats?: readonly SeatSpec[] | undefined;
  overrides?: Overrides | undefined;
  /** Seconds per turn; 0 (the default) for no limit. */
  turnTimerSeconds?: number | undefined;
  /** A retry with the same id (and caller key) returns the first answer; fresh by default. */
  requestId?: string | undefined;
  /** Only seats may watch the game. */
  spectatorsDisabled?: boolean | undefined;
  /**
   * Never listed, no spectators; joined with the `inviteCode` of the answer
   * (`client.joinInvite`), which the creator shares.
   */
  private?: boolean | undefined;
  /** Its end changes its players' ratings (a server that knows players; no bot seat; a turn timer). */
  rated?: boolean | undefined;
  /** Quick-play tickets of its queue may take its open seats (a public game). */
  quickPlay?: boolean | undefined;
}

/** A game just created, with the token that cancels it. */
export interface CreatedGame {
  readonly game: Game;
  /** `games/{id}`. */
  readonly name: string;
  /** Cancels the game (`client.cancelGame`); not a seat token. */
  readonly creatorToken: string;
  /**
   * A private game's invite code ("" for a public one): share it, or its
   * {@link inviteLink}; it opens the game until the game is dealt.
   */
  readonly inviteCode: string;
}

export interface JoinOptions {
  /** A specific open seat; the first open one by default. */
  seat?: number | undefined;
  requestId?: string | undefined;
}

export interface ListGamesOptions {
  variant?: string | undefined;
  openSeatsOnly?: boolean | undefined;
  status?: GameStatus | undefined;
  pageSize?: number | undefined;
}

export interface MoveOptions {
  /** The version the caller last saw; a mismatch is ABORTED (`StaleVersion`). */
  expectedVersion?: VersionLike | undefined;
  /** Fresh by default; kept across the client's retries. */
  requestId?: string | undefined;
}

/** Whether it is the viewer's turn in `view`. */
export function isMyTurn(view: GameView): boolean {
  return view.seat !== undefined && view.turn === view.seat;
}

/**
 * A connection to a Ramino server. Every call is retried on UNAVAILABLE
 * (and a server's CANCELLED) with the same request, so a move's request id
 * is applied once; failures are thrown as {@link ServiceError} subclasses.
 */
export class Client {
  /** The generated GameService client, for calls the layer does not wrap. */
  readonly games: ConnectClient<typeof GameService>;
  /** The generated RulesService client. */
  readonly rulesService: ConnectClient<typeof RulesService>;
  readonly rules: Rules;
  /** Quick play: tickets, ratings, leaderboards, histories (needs `playerToken`). */
  readonly quick: Quick;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly callerKey: string;
  /** Whether seats' sessions use PlayGame (see {@link ClientOptions.bidiStreams}). */
  readonly bidiStreams: boolean;
  private readonly playerToken: string | undefined;
  private readonly onClose: (() => void) | undefined;

  constructor(options: ClientOptions) {
    this.games = createClient(GameService, options.transport);
    this.rulesService = createClient(RulesService, options.transport);
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.callerKey = options.callerKey || newCallerKey();
    this.playerToken = options.playerToken;
    this.onClose = options.onClose;
    this.bidiStreams = options.bidiStreams ?? true;
    this.rules = new Rules(this);
    this.quick = new Quick(this, options.transport);
  }

  /** Releases the connections (Node); the client is not used after. */
  close(): void {
    this.onClose?.();
  }

  /** The metadata of every call: the caller key, a player token, a seat or creator token. */
  headers(token?: string): Record<string, string> {
    const headers: Record<string, string> = { [CALLER_KEY]: this.callerKey };
    if (this.playerToken) headers[PLAYER_TOKEN_KEY] = this.playerToken;
    if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
    return headers;
  }

  /**
   * One unary call, retried on UNAVAILABLE or a server's CANCELLED with the
   * same request; `call` gets the options to pass to the generated client.
   */
  async call<T>(
    call: (options: { headers: Record<string, string>; timeoutMs?: number }) => Promise<T>,
    token?: string,
  ): Promise<T> {
    const waits = delays(this.retry);
    for (;;) {
      try {
        const options = this.timeoutMs > 0 ? { timeoutMs: this.timeoutMs } : {};
        return await call({ headers: this.headers(token), ...options });
      } catch (e) {
        const error = errorFromRpc(e);
        if (RETRYABLE_CODES.has(error.code)) {
          const wait = waits.next();
          if (!wait.done) {
            await sleep(wait.value);
            continue;
          }
        }
        throw error;
      }
    }
  }

  // --- lobby ---------------------------------------------------------------

  /**
   * A new game. A seat is a person's name ("" for anyone) or a
   * {@link BotLevel}; bot seats are filled at once, people join.
   */
  async createGame(options: CreateGameOptions = {}): Promise<CreatedGame> {
    const seats = options.seats ?? ["", BotLevel.GREEDY];
    const request = {
      variant: options.variant ?? "ramino51",
      overrides: create(VariantParametersSchema, options.overrides ?? {}),
      seats: seats.map(seatConfig),
      turnTimerSeconds: options.turnTimerSeconds ?? 0,
      requestId: options.requestId ?? newRequestId(),
      spectatorsDisabled: options.spectatorsDisabled ?? false,
      visibility: options.private === true ? Visibility.PRIVATE : Visibility.PUBLIC,
      rated: options.rated ?? false,
      quickPlay: options.quickPlay ?? false,
    };
    const response = await this.call((o) => this.games.createGame(request, o));
    if (!response.game) throw new TypeError("CreateGame answered no game");
    return {
      game: response.game,
      name: response.game.name,
      creatorToken: response.creatorToken,
      inviteCode: response.inviteCode,
    };
  }

  /** Ends `game` as cancelled, with the creator token; returns its final view (a spectator's). */
  async cancelGame(game: string, creatorToken: string): Promise<GameView> {
    const response = await this.call(
      (o) => this.games.cancelGame({ name: gameName(game) }, o),
      creatorToken,
    );
    return required(response.view, "CancelGame");
  }

  /** Takes a seat of `game` (the first open one, or `options.seat`) as `playerName`. */
  async join(game: string, playerName: string, options: JoinOptions = {}): Promise<Seat> {
    const request = {
      name: gameName(game),
      playerName,
      requestId: options.requestId ?? newRequestId(),
      ...(options.seat === undefined ? {} : { seat: options.seat }),
    };
    const response = await this.call((o) => this.games.joinGame(request, o));
    const view = required(response.view, "JoinGame");
    return new Seat(this, view.name, response.seat, response.seatToken, view);
  }

  /**
   * Takes a seat of the private game an invite code (or its link) opens. A
   * code that opens nothing is NOT_FOUND with reason INVITE_NOT_VALID,
   * whether or not its game exists.
   */
  async joinInvite(inviteCode: string, playerName: string, options: JoinOptions = {}): Promise<Seat> {
    const request = {
      inviteCode: inviteCodeOf(inviteCode),
      playerName,
      requestId: options.requestId ?? newRequestId(),
      ...(options.seat === undefined ? {} : { seat: options.seat }),
    };
    const response = await this.call((o) => this.games.joinGame(request, o));
    const view = required(response.view, "JoinGame");
    return new Seat(this, view.name, response.seat, response.seatToken, view);
  }

  /** The seat a saved token acts for (to come back to a game). */
  async seat(game: string, token: string): Promise<Seat> {
    const view = await this.view(gameName(game), token);
    if (view.seat === undefined) throw new RangeError("the server sees this token as a spectator");
    return new Seat(this, view.name, view.seat, token, view);
  }

  /** The game as a spectator sees it. */
  getGame(game: string): Promise<GameView> {
    return this.view(gameName(game), undefined);
  }

  /** The game as `token` (a seat token, or none) may see it. */
  async view(name: string, token: string | undefined): Promise<GameView> {
    const response = await this.call((o) => this.games.getGame({ name }, o), token);
    return required(response.view, "GetGame");
  }

  /** Every game that matches, page after page. */
  async *listGames(options: ListGamesOptions = {}): AsyncGenerator<Game, void, undefined> {
    let pageToken = "";
    for (;;) {
      const request = {
        pageSize: options.pageSize ?? 50,
        pageToken,
        variant: options.variant ?? "",
        openSeatsOnly: options.openSeatsOnly ?? false,
        ...(options.status === undefined ? {} : { status: options.status }),
      };
      const page = await this.call((o) => this.games.listGames(request, o));
      yield* page.games;
      pageToken = page.nextPageToken;
      if (!pageToken) return;
    }
  }

  /** The game's events as a spectator sees them (see {@link Watch}). */
  watch(game: string, options: WatchOptions = {}): Watch {
    return new Watch(this, gameName(game), undefined, options);
  }
}

function required<T>(value: T | undefined, method: string): T {
  if (value === undefined) throw new TypeError(`${method} answered without its view`);
  return value;
}

/** A move's answer: its events, the mover's view after it, and its next legal moves while it still plays. */
export type { MoveResult };

/**
 * One seat of one game, acting with its seat token: one method per move,
 * its legal moves, its view and its watch.
 */
export class Seat {
  constructor(
    readonly client: Client,
    /** `games/{id}`. */
    readonly name: string,
    readonly seat: number,
    /** The seat token (keep it to come back with `client.seat`). */
    readonly token: string,
    /** The latest view this object received (join, moves, `view()`). */
    public lastView?: GameView,
  ) {}

  get gameId(): string {
    return this.name.slice("games/".length);
  }

  /** Any move, e.g. one of `legalMoves()`, sent back as the server proposed it. */
  async play(move: Move | MessageInitShape<typeof MoveSchema>, options: MoveOptions = {}): Promise<MoveResult> {
    const request = moveRequest(move, this.name, options.requestId ?? newRequestId(), options.expectedVersion);
    // Each move's unary method is named as its case (drawFromStock...).
    const rpc = this.client.games[request.case] as (
      r: typeof request.value,
      o: { headers: Record<string, string>; timeoutMs?: number },
    ) => Promise<{ result?: MoveResult | undefined }>;
    const response = await this.client.call((o) => rpc(request.value, o), this.token);
    return this.received(required(response.result, "a move"));
  }

  /** This seat's session: moves out, answers, events and pushed options in (see {@link Session}). */
  session(options: SessionOptions = {}): Session {
    return new Session(this, options);
  }

  /**
   * `result` with the variant's parameters the seat last saw: a move's answer
   * names the variant only (its parameters never change in a game); kept
   * as the seat's last view.
   */
  received(result: MoveResult): MoveResult {
    if (result.view) this.seen(result.view);
    return result;
  }

  /**
   * `view` with the variant's parameters and the deck the seat last saw (a
   * move's answer and the options a session pushes leave them out: they
   * never change in a game), kept as the seat's last view.
   */
  seen(view: GameView): GameView {
    const known = this.lastView;
    if (known !== undefined) {
      if (view.variant?.parameters === undefined && known.variant !== undefined) view.variant = known.variant;
      if (view.deck.length === 0) view.deck = known.deck;
    }
    this.lastView = view;
    return view;
  }

  drawFromStock(options?: MoveOptions): Promise<MoveResult> {
    return this.play({ move: { case: "drawFromStock", value: {} } }, options);
  }

  takeDiscard(options?: MoveOptions): Promise<MoveResult> {
    return this.play({ move: { case: "takeDiscard", value: {} } }, options);
  }

  /** With an empty stock (stock_exhausted = turn_over): turn the discard pile over and draw. */
  turnOverDiscardPile(options?: MoveOptions): Promise<MoveResult> {
    return this.play({ move: { case: "turnOverDiscardPile", value: {} } }, options);
  }

  /** Lays new melds, each a list of cards (or ids) in meld order (a run ascending). */
  layMelds(meldCards: readonly (readonly CardRef[])[], options?: MoveOptions): Promise<MoveResult> {
    const value = { melds: meldCards.map((x) => ({ cardIds: x.map(cardId) })) };
    return this.play({ move: { case: "layMelds", value } }, options);
  }

  /** Adds `card` to table meld `meldIndex`, at the run's `end` (last by default). */
  layOff(card: CardRef, meldIndex: number, end: End = End.LAST, options?: MoveOptions): Promise<MoveResult> {
    const value = { cardId: cardId(card), meldIndex, end };
    return this.play({ move: { case: "layOff", value } }, options);
  }

  /** Gives `card` for the table joker `joker` of meld `meldIndex`. */
  swapJoker(card: CardRef, meldIndex: number, joker: CardRef, options?: MoveOptions): Promise<MoveResult> {
    const value = { cardId: cardId(card), meldIndex, jokerId: cardId(joker) };
    return this.play({ move: { case: "swapJoker", value } }, options);
  }

  /** Discards `card`, ending the turn. */
  discard(card: CardRef, options?: MoveOptions): Promise<MoveResult> {
    return this.play({ move: { case: "discard", value: { cardId: cardId(card) } } }, options);
  }

  /** Leaves the match. */
  resign(options?: MoveOptions): Promise<MoveResult> {
    return this.play({ move: { case: "resign", value: {} } }, options);
  }

  /** Gin: decline the first upcard, or the upcard at the wall (a draw). */
  passUpcard(options?: MoveOptions): Promise<MoveResult> {
    return this.play({ move: { case: "passUpcard", value: {} } }, options);
  }

  /** Gin: discard `discard` (undefined: big gin) and lay `melds`; the cards left are unmatched. */
  knock(discard: CardRef | undefined, meldCards: readonly (readonly CardRef[])[], options?: MoveOptions): Promise<MoveResult> {
    const value = {
      melds: meldCards.map((x) => ({ cardIds: x.map(cardId) })),
      ...(discard === undefined ? {} : { discardCardId: cardId(discard) }),
    };
    return this.play({ move: { case: "knock", value } }, options);
  }

  /** Gin: the defender is done laying off and melding. */
  acceptLayout(options?: MoveOptions): Promise<MoveResult> {
    return this.play({ move: { case: "acceptLayout", value: {} } }, options);
  }

  /** The moves this seat may make now (none when it is not its turn), with hints. */
  legalMoves(): Promise<GetLegalMovesResponse> {
    return this.client.call((o) => this.client.games.getLegalMoves({ name: this.name }, o), this.token);
  }

  /** The game as this seat sees it. */
  async view(): Promise<GameView> {
    this.lastView = await this.client.view(this.name, this.token);
    return this.lastView;
  }

  /** This seat's view of every event (see {@link Watch}). */
  watch(options: WatchOptions = {}): Watch {
    return new Watch(this.client, this.name, this.token, options);
  }
}

/** A move's request, as its unary call and a session's message take it: its case and fields. */
export type MoveRequest = Extract<
  NonNullable<MessageInitShape<typeof PlayGameRequestSchema>["message"]>,
  { case: MoveKind }
>;

/** The request of `move` for game `name` ("" on a session: the session's game). */
export function moveRequest(
  move: Move | MessageInitShape<typeof MoveSchema>,
  name: string,
  requestId: string,
  expectedVersion: VersionLike | undefined,
): MoveRequest {
  const common = {
    name,
    requestId,
    ...(expectedVersion === undefined ? {} : { expectedVersion: version(expectedVersion) }),
  };
  const m = move.move;
  if (m === undefined) throw new TypeError("not a move: no move is set");
  switch (m.case) {
    case "drawFromStock":
    case "takeDiscard":
    case "turnOverDiscardPile":
    case "resign":
    case "passUpcard":
    case "acceptLayout":
      return { case: m.case, value: common } as MoveRequest; // the same fields, each kind its own message
    case "layMelds":
      return { case: "layMelds", value: { ...common, melds: melds(m.value.melds ?? []) } };
    case "layOff": {
      const { cardId, meldIndex, end } = m.value;
      return { case: "layOff", value: { ...common, cardId, meldIndex, end } };
    }
    case "swapJoker": {
      const { cardId, meldIndex, jokerId } = m.value;
      return { case: "swapJoker", value: { ...common, cardId, meldIndex, jokerId } };
    }
    case "discard":
      return { case: "discard", value: { ...common, cardId: m.value.cardId } };
    case "knock": {
      const value = {
        ...common,
        melds: melds(m.value.melds ?? []),
        ...(m.value.discardCardId === undefined ? {} : { discardCardId: m.value.discardCardId }),
      };
      return { case: "knock", value };
    }
    default:
      throw new TypeError(`not a move: ${String((m as { case: unknown }).case)}`);
  }
}

function melds(list: readonly { readonly cardIds?: readonly number[] | undefined }[]): { cardIds: number[] }[] {
  return list.map((x) => ({ cardIds: [...(x.cardIds ?? [])] }));
}

/** The stateless RulesService: no game, no token. */
export class Rules {
  constructor(private readonly client: Client) {}

  /** Whether `cards` (notation, in meld order) are a legal meld under `variant`. */
  validateMeld(
    cards: string | readonly string[],
    variant = "ramino51",
    overrides: Overrides = {},
  ): Promise<ValidateMeldResponse> {
    const request = { variant, overrides: create(VariantParametersSchema, overrides), cards: cardsText(cards) };
    return this.client.call((o) => this.client.rulesService.validateMeld(request, o));
  }

  /** Best opening, minimum deadwood and lay-off targets of a hand. */
  analyzeHand(
    hand: string | readonly string[],
    options: {
      variant?: string;
      table?: readonly (string | readonly string[])[];
      include?: string;
      overrides?: Overrides;
    } = {},
  ): Promise<AnalyzeHandResponse> {
    const request = {
      variant: options.variant ?? "ramino51",
      overrides: create(VariantParametersSchema, options.overrides ?? {}),
      hand: cardsText(hand),
      table: (options.table ?? []).map((x) => ({ cards: cardsText(x) })),
      include: options.include ?? "",
    };
    return this.client.call((o) => this.client.rulesService.analyzeHand(request, o));
  }

  /** The variant presets with their parameters. */
  async listVariants(): Promise<Variant[]> {
    const response = await this.client.call((o) => this.client.rulesService.listVariants({}, o));
    return response.variants;
  }

  /**
   * The bot levels a person picks from, weakest first: how each plays, its
   * time a decision on the server, and its rating on one scale for every
   * level (`rating`: mu - 3 sigma, from the server's arena of the levels).
   */
  async listBotLevels(): Promise<BotLevelInfo[]> {
    const response = await this.client.call((o) => this.client.rulesService.listBotLevels({}, o));
    return response.levels;
  }
}

export type { SeatConfig, VariantParameters };
