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
import { errorFromRpc } from "./errors.js";
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
}

/** A ticket expired or was cancelled before a game was found. */
export class TicketEnded extends Error {
  constructor(readonly state: TicketState) {
    super(`the ticket ended without a game (${TicketState[state]})`);
  }
}

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

  /** Submits a ticket and takes the seat it finds; {@link TicketEnded} otherwise. */
  async play(options: TicketOptions, onUpdate?: (update: TicketUpdate) => void): Promise<Seat> {
    for await (const update of this.submit(options)) {
      onUpdate?.(update);
      if (update.state === TicketState.MATCHED) return this.client.seat(update.game, update.seatToken);
      if (FINAL.has(update.state)) throw new TicketEnded(update.state);
    }
    throw new TicketEnded(TicketState.UNSPECIFIED);
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
