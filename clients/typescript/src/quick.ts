/**
 * Quick play (MatchService) as `client.quick`: tickets with their updates,
 * ratings, leaderboards, a player's games and a game's record. Every call
 * needs the client's `playerToken` (the host's).
 */
import { create } from "@bufbuild/protobuf";
import { createClient, type Client as ConnectClient, type Transport } from "@connectrpc/connect";
import { GameStatus } from "./gen/ramino/v1/game_pb.js";
import {
  MatchClauseSchema,
  MatchClause_Occur,
  MatchService,
  TicketState,
  type InviteToPartyResponse,
  type MatchClause,
  type Party,
  type GetGameRecordResponse,
  type GetRatingResponse,
  type ListLeaderboardResponse,
  type PlayerGame,
  type TicketUpdate,
} from "./gen/ramino/v1/match_pb.js";
import { VariantParametersSchema } from "./gen/ramino/v1/types_pb.js";
import { errorFromRpc, RETRYABLE_CODES, ServiceError } from "./errors.js";
import { newRequestId } from "./ids.js";
import type { Client, Overrides, Seat } from "./client.js";
import { gameName } from "./client.js";

/** What a ticket asks for. */
export interface TicketOptions {
  variant: string;
  playerName: string;
  /** 2 to 6 (default 2). */
  minSeats?: number;
  /** Default: minSeats. */
  maxSeats?: number;
  /** Default true. */
  rated?: boolean;
  /** Up to 8, such as region or language. */
  properties?: Record<string, string>;
  overrides?: Overrides;
  /** Whether bots may fill the table after the server's wait (default true). */
  bots?: boolean;
  /** Ends the ticket's stream (the ticket is cancelled after the server's grace). */
  signal?: AbortSignal;
  /**
   * Chosen once per press of "play": submitted again with the same request id
   * (a retry after a broken stream), the ticket is the first one's, never a
   * second. `play` chooses one when none is given.
   */
  requestId?: string;
  /** Up to 8 numbers (latency, tier...) that other tickets' clauses test. */
  numericProperties?: Record<string, number>;
  /** Up to 8 conditions on the tickets this one may meet. */
  clauses?: Clause[];
  /** The most rating difference the player accepts (0: the server's window). */
  ratingBand?: number;
  /**
   * "parties/ID" (or its id): the caller's party, which the caller leads,
   * queues as one ticket; every member sits in the same game (members take
   * their seats with `partyPlay`).
   */
  party?: string;
}

/**
 * A condition on the tickets a ticket may meet, tested on the other ticket's
 * properties (docs/matchmaking.md, "The matching grammar"): `anyOf` string
 * values, or a `min`/`max` range of a numeric one.
 */
export interface Clause {
  /** `should` gives way after the server's preference time. */
  occur: "must" | "should" | "must_not";
  key: string;
  anyOf?: string[];
  min?: number;
  max?: number;
}

const OCCURS = {
  must: MatchClause_Occur.MUST,
  should: MatchClause_Occur.SHOULD,
  must_not: MatchClause_Occur.MUST_NOT,
};

function clauseMessage(c: Clause): MatchClause {
  const occur = OCCURS[c.occur] ?? MatchClause_Occur.UNSPECIFIED;
  if (c.anyOf?.length) {
    return create(MatchClauseSchema, { occur, key: c.key, test: { case: "anyOf", value: { values: c.anyOf } } });
  }
  if (c.min !== undefined || c.max !== undefined) {
    const range = { ...(c.min !== undefined ? { min: c.min } : {}), ...(c.max !== undefined ? { max: c.max } : {}) };
    return create(MatchClauseSchema, { occur, key: c.key, test: { case: "range", value: range } });
  }
  return create(MatchClauseSchema, { occur, key: c.key });
}

/** "parties/ID" for an id or a name. */
export function partyName(party: string): string {
  return party.startsWith("parties/") ? party : `parties/${party}`;
}

/** Milliseconds between two looks of `partyPlay` at a party that is not queued. */
export const PARTY_LOOK_MS = 500;

/**
 * `play` ended without a seat: the ticket expired or was cancelled (`state`),
 * or its stream stayed broken after every resume (`state` UNSPECIFIED, the
 * last error its `cause`). Always carries the ticket ("tickets/ID"; empty only
 * when no answer ever named it) and its request id: `watch`, `cancel`, or
 * `play` again with that `requestId`, take it up.
 */
export class TicketEnded extends Error {
  constructor(
    readonly state: TicketState,
    readonly ticket = "",
    readonly requestId = "",
    cause?: unknown,
  ) {
    super(
      state === TicketState.UNSPECIFIED
        ? `the ticket's stream stayed broken: ${ticket || "its ticket"} may still wait (request id ${requestId})`
        : `the ticket ended without a game (${TicketState[state]})`,
      cause === undefined ? undefined : { cause },
    );
  }
}

/** Times `play` submits its ticket again after a broken stream. */
export const RESUMES = 8;

const FINAL = new Set([TicketState.MATCHED, TicketState.EXPIRED, TicketState.CANCELLED]);

/** "tickets/ID" for an id or a name. */
export function ticketName(ticket: string): string {
  return ticket.startsWith("tickets/") ? ticket : `tickets/${ticket}`;
}

export class Quick {
  /** The generated MatchService client. */
  readonly service: ConnectClient<typeof MatchService>;

  constructor(
    private readonly client: Client,
    transport: Transport,
  ) {
    this.service = createClient(MatchService, transport);
  }

  /** A new ticket's updates, until it is matched or ends. */
  async *submit(options: TicketOptions): AsyncGenerator<TicketUpdate> {
    const request = {
      variant: options.variant,
      playerName: options.playerName,
      minSeats: options.minSeats ?? 2,
      maxSeats: options.maxSeats ?? 0,
      rated: options.rated ?? true,
      properties: options.properties ?? {},
      withoutBots: options.bots === false,
      requestId: options.requestId ?? "",
      numericProperties: options.numericProperties ?? {},
      clauses: (options.clauses ?? []).map(clauseMessage),
      ratingBand: options.ratingBand ?? 0,
      party: options.party ? partyName(options.party) : "",
      ...(options.overrides ? { overrides: create(VariantParametersSchema, options.overrides) } : {}),
    };
    yield* this.follow(this.service.submitTicket(request, this.options(options.signal)));
  }

  /** A ticket's updates again, after a reconnect. */
  async *watch(ticket: string, signal?: AbortSignal): AsyncGenerator<TicketUpdate> {
    yield* this.follow(this.service.watchTicket({ ticket: ticketName(ticket) }, this.options(signal)));
  }

  private options(signal?: AbortSignal): { headers: Record<string, string>; signal?: AbortSignal } {
    return { headers: this.client.headers(), ...(signal ? { signal } : {}) };
  }

  private async *follow(stream: AsyncIterable<{ update?: TicketUpdate }>): AsyncGenerator<TicketUpdate> {
    try {
      for await (const message of stream) {
        if (message.update) yield message.update;
      }
    } catch (e) {
      throw errorFromRpc(e);
    }
  }

  /**
   * Submits a ticket and takes the seat it finds. A broken stream (the server
   * unavailable or gone, the connection cut, before or after its first
   * answer) is resumed: the ticket is submitted again under the same request
   * id (one is chosen when none is given), which follows the same ticket and
   * never makes a second. {@link TicketEnded}, with the ticket, when it
   * expires or is cancelled or its stream stays broken; an error of the
   * request itself (a bad variant...) as it is.
   */
  async play(options: TicketOptions, onUpdate?: (update: TicketUpdate) => void): Promise<Seat> {
    const asked = { ...options, requestId: options.requestId || newRequestId() };
    let ticket = "";
    let broken: unknown;
    for (let attempt = 0; attempt <= RESUMES; attempt++) {
      if (attempt) await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 2000)));
      try {
        for await (const update of this.submit(asked)) {
          ticket = update.ticket;
          onUpdate?.(update);
          if (update.state === TicketState.MATCHED) return await this.client.seat(update.game, update.seatToken);
          if (FINAL.has(update.state)) throw new TicketEnded(update.state, ticket, asked.requestId);
        }
      } catch (e) {
        if (e instanceof TicketEnded) throw e;
        const resumable = e instanceof ServiceError && RETRYABLE_CODES.has(e.code) && !options.signal?.aborted;
        if (!resumable) {
          if (!ticket) throw e;
          throw new TicketEnded(TicketState.UNSPECIFIED, ticket, asked.requestId, e);
        }
        broken = e;
      }
    }
    throw new TicketEnded(TicketState.UNSPECIFIED, ticket, asked.requestId, broken);
  }

  /** A new party led by the caller, who sits under `playerName`. */
  async createParty(playerName: string): Promise<Party> {
    const response = await this.client.call((o) => this.service.createParty({ playerName }, o));
    return response.party!;
  }

  /**
   * Invites `player` (their player token's subject) to the caller's party:
   * the answer's `invitation` is what the leader sends them, accepted once,
   * before its `expireTime`.
   */
  inviteToParty(party: string, player: string): Promise<InviteToPartyResponse> {
    return this.client.call((o) => this.service.inviteToParty({ party: partyName(party), player }, o));
  }

  /** Joins the party an invitation naming the caller is to. */
  async joinParty(party: string, invitation: string, playerName: string): Promise<Party> {
    const request = { party: partyName(party), invitation, playerName };
    return (await this.client.call((o) => this.service.joinParty(request, o))).party!;
  }

  /** Leaves the party (its leader disbands it); a waiting ticket of the party is cancelled. */
  async leaveParty(party: string): Promise<void> {
    await this.client.call((o) => this.service.leaveParty({ party: partyName(party) }, o));
  }

  /** The party, to its leader and members. */
  async getParty(party: string): Promise<Party> {
    return (await this.client.call((o) => this.service.getParty({ party: partyName(party) }, o))).party!;
  }

  /**
   * A member's `play`: waits for the party's ticket (its leader's `play` with
   * `party`), follows it, and takes the caller's seat in its game. A ticket
   * that ends unseated, or whose game has finished (the party's last game),
   * is followed by the party's next one; {@link TicketEnded} with the last
   * ticket once `timeoutMs` pass; NotFound once the party is gone.
   */
  async partyPlay(party: string, timeoutMs = 300_000): Promise<Seat> {
    const deadline = Date.now() + timeoutMs;
    let ended = "";
    let last = TicketState.UNSPECIFIED;
    while (Date.now() < deadline) {
      const ticket = (await this.getParty(party)).ticket;
      if (ticket && ticket !== ended) {
        for await (const update of this.watch(ticket)) {
          last = update.state;
          if (update.state !== TicketState.MATCHED) continue;
          const seat = await this.client.seat(update.game, update.seatToken);
          if ((await seat.view()).status !== GameStatus.FINISHED) return seat;
        }
        ended = ticket;
      }
      await new Promise((r) => setTimeout(r, PARTY_LOOK_MS));
    }
    throw new TicketEnded(last, ended);
  }

  /** The caller's live tickets (waiting or being seated), oldest first. */
  async tickets(): Promise<TicketUpdate[]> {
    return (await this.client.call((o) => this.service.listTickets({}, o))).tickets;
  }

  /** Cancels one of the caller's waiting tickets; a matched or ended one is answered as it is. */
  async cancel(ticket: string): Promise<TicketUpdate | undefined> {
    const response = await this.client.call((o) => this.service.cancelTicket({ ticket: ticketName(ticket) }, o));
    return response.update;
  }

  /** The caller's rating and rank (0 while unrated). */
  rating(variant: string): Promise<GetRatingResponse> {
    return this.client.call((o) => this.service.getRating({ variant }, o));
  }

  /** A page of the board: from `pageToken` ("" the top), or around the caller. */
  leaderboard(variant: string, pageSize = 20, pageToken = "", aroundCaller = false): Promise<ListLeaderboardResponse> {
    return this.client.call((o) => this.service.listLeaderboard({ variant, pageSize, pageToken, aroundCaller }, o));
  }

  /** The caller's most recent finished games, newest first. */
  async games(variant = "", pageSize = 20): Promise<PlayerGame[]> {
    return (await this.client.call((o) => this.service.listPlayerGames({ variant, pageSize }, o))).games;
  }

  /** A finished game's whole record: its events and its revealed seed. */
  record(game: string): Promise<GetGameRecordResponse> {
    return this.client.call((o) => this.service.getGameRecord({ name: gameName(game) }, o));
  }
}
