/**
 * Quick play (MatchService) as `client.quick`: tickets with their updates,
 * ratings, leaderboards, a player's games and a game's record. Every call
 * needs the client's `playerToken` (the host's).
 */
import { create } from "@bufbuild/protobuf";
import { createClient, type Client as ConnectClient, type Transport } from "@connectrpc/connect";
import {
  MatchService,
  TicketState,
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
}

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
