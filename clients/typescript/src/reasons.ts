// Generated from service/ramino/reasons.py by backend/ramino_reasons.py (make reasons): do not edit.

/** The server's reasons (ErrorInfo `reason`): `e.reason === Reasons.NOT_YOUR_TURN`. */
export const Reasons = {
  /** FAILED_PRECONDITION: the match has ended. */
  MATCH_OVER: "MATCH_OVER",
  /** FAILED_PRECONDITION: the seat has resigned. */
  SEAT_RESIGNED: "SEAT_RESIGNED",
  /** FAILED_PRECONDITION: it is another seat's turn. */
  NOT_YOUR_TURN: "NOT_YOUR_TURN",
  /** FAILED_PRECONDITION: draw before anything else this turn. */
  MUST_DRAW_FIRST: "MUST_DRAW_FIRST",
  /** FAILED_PRECONDITION: the seat has drawn this turn already. */
  ALREADY_DREW: "ALREADY_DREW",
  /** FAILED_PRECONDITION: the first player's first turn has no draw. */
  FIRST_TURN_HAS_NO_DRAW: "FIRST_TURN_HAS_NO_DRAW",
  /** FAILED_PRECONDITION: the stock is empty. */
  STOCK_EMPTY: "STOCK_EMPTY",
  /** FAILED_PRECONDITION: the discard pile is turned over only once the stock is empty. */
  STOCK_NOT_EMPTY: "STOCK_NOT_EMPTY",
  /** FAILED_PRECONDITION: the discard pile is empty. */
  DISCARD_PILE_EMPTY: "DISCARD_PILE_EMPTY",
  /** FAILED_PRECONDITION: the variant reshuffles the discard pile or never turns it over. */
  TURN_OVER_NOT_ALLOWED: "TURN_OVER_NOT_ALLOWED",
  /** FAILED_PRECONDITION: the discard may not be taken to open. */
  CANNOT_OPEN_WITH_DISCARD: "CANNOT_OPEN_WITH_DISCARD",
  /** FAILED_PRECONDITION: a discard taken before opening must be melded in the opening this turn. */
  MUST_OPEN_WITH_TAKEN_DISCARD: "MUST_OPEN_WITH_TAKEN_DISCARD",
  /** FAILED_PRECONDITION: a card of the command is not in the seat's hand. */
  CARD_NOT_IN_HAND: "CARD_NOT_IN_HAND",
  /** FAILED_PRECONDITION: cards laid that are not a meld (the kernel's reason in the message). */
  INVALID_MELD: "INVALID_MELD",
  /** FAILED_PRECONDITION: the opening melds are worth less than the variant's threshold. */
  OPENING_BELOW_THRESHOLD: "OPENING_BELOW_THRESHOLD",
  /** FAILED_PRECONDITION: the opening needs a run without jokers. */
  OPENING_NEEDS_PURE_RUN: "OPENING_NEEDS_PURE_RUN",
  /** FAILED_PRECONDITION: the seat has not opened yet. */
  NOT_OPENED: "NOT_OPENED",
  /** FAILED_PRECONDITION: no laying off in the turn of the opening. */
  NO_LAYOFF_ON_OPENING_TURN: "NO_LAYOFF_ON_OPENING_TURN",
  /** FAILED_PRECONDITION: no joker swap in the turn of the opening. */
  NO_SWAP_ON_OPENING_TURN: "NO_SWAP_ON_OPENING_TURN",
  /** FAILED_PRECONDITION: the table has no such meld. */
  NO_SUCH_MELD: "NO_SUCH_MELD",
  /** FAILED_PRECONDITION: the meld is closed (a set of four). */
  MELD_CLOSED: "MELD_CLOSED",
  /** FAILED_PRECONDITION: the card does not extend that meld. */
  CANNOT_LAY_OFF: "CANNOT_LAY_OFF",
  /** FAILED_PRECONDITION: the variant has no joker swaps. */
  JOKER_SWAP_NOT_ALLOWED: "JOKER_SWAP_NOT_ALLOWED",
  /** FAILED_PRECONDITION: that meld has no joker there. */
  NO_SUCH_JOKER: "NO_SUCH_JOKER",
  /** FAILED_PRECONDITION: a joker is swapped for a natural card. */
  SWAP_NEEDS_NATURAL_CARD: "SWAP_NEEDS_NATURAL_CARD",
  /** FAILED_PRECONDITION: the joker stands for another card than the one offered. */
  JOKER_STANDS_FOR_OTHER_CARD: "JOKER_STANDS_FOR_OTHER_CARD",
  /** FAILED_PRECONDITION: a swapped joker goes into a new meld before anything else. */
  SWAPPED_JOKER_NOT_MELDED: "SWAPPED_JOKER_NOT_MELDED",
  /** FAILED_PRECONDITION: the joker could not be laid in a new meld this turn. */
  SWAPPED_JOKER_CANNOT_BE_MELDED: "SWAPPED_JOKER_CANNOT_BE_MELDED",
  /** FAILED_PRECONDITION: the last card of a hand goes out by a discard. */
  LAST_CARD_MUST_BE_DISCARDED: "LAST_CARD_MUST_BE_DISCARDED",
  /** FAILED_PRECONDITION: the card taken from the discard pile may not be discarded this turn. */
  CANNOT_DISCARD_TAKEN_CARD: "CANNOT_DISCARD_TAKEN_CARD",
  /** FAILED_PRECONDITION: nor may its twin from the other pack. */
  CANNOT_DISCARD_TAKEN_TWIN: "CANNOT_DISCARD_TAKEN_TWIN",
  /** FAILED_PRECONDITION: the variant has no knocking. */
  NOT_KNOCKING_PLAY: "NOT_KNOCKING_PLAY",
  /** FAILED_PRECONDITION: pass only on the first upcard or at the wall. */
  CANNOT_PASS: "CANNOT_PASS",
  /** FAILED_PRECONDITION: both passed the upcard: draw from the stock. */
  UPCARD_PASSED: "UPCARD_PASSED",
  /** FAILED_PRECONDITION: take the first upcard or pass. */
  TAKE_OR_PASS_UPCARD: "TAKE_OR_PASS_UPCARD",
  /** FAILED_PRECONDITION: the stock is at the wall: knock with the upcard or pass. */
  WALL_REACHED: "WALL_REACHED",
  /** FAILED_PRECONDITION: at the wall the upcard is taken only to knock. */
  WALL_NEEDS_KNOCK: "WALL_NEEDS_KNOCK",
  /** FAILED_PRECONDITION: the upcard taken at the wall obliges a knock. */
  MUST_KNOCK: "MUST_KNOCK",
  /** FAILED_PRECONDITION: in knocking play melds are shown only by knocking. */
  MELDS_ONLY_BY_KNOCKING: "MELDS_ONLY_BY_KNOCKING",
  /** FAILED_PRECONDITION: the deadwood is above the knock card. */
  KNOCK_TOO_HIGH: "KNOCK_TOO_HIGH",
  /** FAILED_PRECONDITION: the variant has no big gin. */
  BIG_GIN_NOT_ALLOWED: "BIG_GIN_NOT_ALLOWED",
  /** FAILED_PRECONDITION: big gin melds all eleven cards. */
  BIG_GIN_MELDS_ALL: "BIG_GIN_MELDS_ALL",
  /** FAILED_PRECONDITION: after a knock the defender lays off, melds or accepts the layout. */
  DEFENDER_TO_PLAY: "DEFENDER_TO_PLAY",
  /** FAILED_PRECONDITION: no laying off on a gin hand. */
  NO_LAYOFF_ON_GIN: "NO_LAYOFF_ON_GIN",
  /** FAILED_PRECONDITION: the defender lays off on the knocker's melds only. */
  LAYOFF_ONLY_ON_KNOCKERS_MELDS: "LAYOFF_ONLY_ON_KNOCKERS_MELDS",
  /** FAILED_PRECONDITION: lay-offs come before the defender's own melds. */
  NO_LAYOFF_AFTER_MELDS: "NO_LAYOFF_AFTER_MELDS",
  /** FAILED_PRECONDITION: only the taken discard (or its twin) would be left to discard. */
  NO_CARD_LEFT_TO_DISCARD: "NO_CARD_LEFT_TO_DISCARD",
  /** INVALID_ARGUMENT: no such command. */
  UNKNOWN_COMMAND: "UNKNOWN_COMMAND",
  /** INVALID_ARGUMENT: no such seat in the game. */
  UNKNOWN_SEAT: "UNKNOWN_SEAT",
  /** INVALID_ARGUMENT: no such card. */
  UNKNOWN_CARD: "UNKNOWN_CARD",
  /** INVALID_ARGUMENT: the same card twice in one command. */
  DUPLICATE_CARD: "DUPLICATE_CARD",
  /** INVALID_ARGUMENT: a run's end that is neither its low nor its high end. */
  BAD_END: "BAD_END",
  /** INVALID_ARGUMENT: a meld command without melds. */
  NO_MELDS: "NO_MELDS",
  /** INVALID_ARGUMENT: a field of the wrong type or range. */
  BAD_FIELD: "BAD_FIELD",
  /** INVALID_ARGUMENT: more or fewer players than the variant seats. */
  PLAYER_COUNT: "PLAYER_COUNT",
  /** INVALID_ARGUMENT: a player name that is empty, too long or not printable. */
  BAD_PLAYER_NAME: "BAD_PLAYER_NAME",
  /** INVALID_ARGUMENT: a seed that is not an integer from 0 to 2**256 - 1. */
  BAD_SEED: "BAD_SEED",
  /** INVALID_ARGUMENT: a stacked deck or a deck token that is not the variant's. */
  BAD_DECK: "BAD_DECK",
  /** INVALID_ARGUMENT: too few cards to deal every seat. */
  DECK_TOO_SMALL: "DECK_TOO_SMALL",
  /** INVALID_ARGUMENT: a record that cannot be read. */
  RECORD_FORMAT: "RECORD_FORMAT",
  /** INVALID_ARGUMENT: a record of an unknown format version. */
  RECORD_VERSION: "RECORD_VERSION",
  /** INVALID_ARGUMENT: a record whose events do not replay. */
  RECORD_INCONSISTENT: "RECORD_INCONSISTENT",
  /** INVALID_ARGUMENT: a card token that is not one (`AS`, `10H`, `JK`...). */
  BAD_CARD: "BAD_CARD",
  /** INVALID_ARGUMENT: more copies of a card than the deck holds. */
  TOO_MANY_COPIES: "TOO_MANY_COPIES",
  /** a meld of fewer than 3 cards. */
  TOO_SHORT: "TOO_SHORT",
  /** a set of more cards than it may hold. */
  SET_TOO_LONG: "SET_TOO_LONG",
  /** a run longer than ace to ace. */
  RUN_TOO_LONG: "RUN_TOO_LONG",
  /** more jokers in a meld than the variant allows. */
  TOO_MANY_JOKERS: "TOO_MANY_JOKERS",
  /** too few natural cards beside the jokers. */
  TOO_FEW_NATURALS: "TOO_FEW_NATURALS",
  /** a run of more than one suit. */
  MIXED_SUITS: "MIXED_SUITS",
  /** a set with a suit twice. */
  DUPLICATE_SUIT: "DUPLICATE_SUIT",
  /** a run with a gap no joker fills. */
  GAP: "GAP",
  /** a run that goes round the corner (K A 2). */
  WRAP_AROUND: "WRAP_AROUND",
  /** a run's cards not in order. */
  OUT_OF_ORDER: "OUT_OF_ORDER",
  /** an ace above the king, in a variant where aces are low. */
  ACE_HIGH_NOT_ALLOWED: "ACE_HIGH_NOT_ALLOWED",
  /** a joker standing for a card past the ace. */
  JOKER_BEYOND_ACE: "JOKER_BEYOND_ACE",
  /** INVALID_ARGUMENT: a search of no cards. */
  EMPTY_HAND: "EMPTY_HAND",
  /** INVALID_ARGUMENT: a hand of more cards than the search takes. */
  HAND_TOO_LARGE: "HAND_TOO_LARGE",
  /** INVALID_ARGUMENT: a table meld that is not a meld. */
  BAD_TABLE_MELD: "BAD_TABLE_MELD",
  /** INVALID_ARGUMENT: no such variant. */
  UNKNOWN_VARIANT: "UNKNOWN_VARIANT",
  /** INVALID_ARGUMENT: no such variant parameter. */
  UNKNOWN_PARAMETER: "UNKNOWN_PARAMETER",
  /** INVALID_ARGUMENT: a variant parameter out of its type or range. */
  BAD_PARAMETER: "BAD_PARAMETER",
  /** INVALID_ARGUMENT: a request that does not decode. */
  MALFORMED_REQUEST: "MALFORMED_REQUEST",
  /** INVALID_ARGUMENT: a request id that is too long. */
  BAD_REQUEST_ID: "BAD_REQUEST_ID",
  /** INVALID_ARGUMENT: a request id already used for another request. */
  REQUEST_ID_REUSED: "REQUEST_ID_REUSED",
  /** INVALID_ARGUMENT: a game name that is not "games/{game}". */
  BAD_GAME_NAME: "BAD_GAME_NAME",
  /** INVALID_ARGUMENT: no card has that id. */
  BAD_CARD_ID: "BAD_CARD_ID",
  /** INVALID_ARGUMENT: no meld or joker has that index. */
  BAD_MELD_INDEX: "BAD_MELD_INDEX",
  /** INVALID_ARGUMENT: a meld without card ids. */
  EMPTY_MELD: "EMPTY_MELD",
  /** INVALID_ARGUMENT: more cards to lay than a hand holds. */
  TOO_MANY_CARDS: "TOO_MANY_CARDS",
  /** INVALID_ARGUMENT: a negative page size. */
  BAD_PAGE_SIZE: "BAD_PAGE_SIZE",
  /** INVALID_ARGUMENT: a session opens with one start message, and only its first is one. */
  SESSION_START: "SESSION_START",
  /** INVALID_ARGUMENT: a move on a session names another game. */
  SESSION_GAME: "SESSION_GAME",
  /** INVALID_ARGUMENT: a move on a session without a request id (its answer is matched by it). */
  SESSION_REQUEST_ID: "SESSION_REQUEST_ID",
  /** INVALID_ARGUMENT: a session start whose resend names more than 16 ids, an id twice, or one too long. */
  SESSION_RESEND: "SESSION_RESEND",
  /** OUT_OF_RANGE: after_version is negative or past the game's version. */
  AFTER_VERSION_OUT_OF_RANGE: "AFTER_VERSION_OUT_OF_RANGE",
  /** INVALID_ARGUMENT: a page token this server did not give. */
  BAD_PAGE_TOKEN: "BAD_PAGE_TOKEN",
  /** INVALID_ARGUMENT: no such hint level. */
  BAD_HINT_LEVEL: "BAD_HINT_LEVEL",
  /** INVALID_ARGUMENT: a game created with no seats. */
  NO_SEATS: "NO_SEATS",
  /** INVALID_ARGUMENT: a game of bots only, on a server that does not host them. */
  ALL_BOT_GAME: "ALL_BOT_GAME",
  /** INVALID_ARGUMENT: no such bot. */
  BAD_BOT: "BAD_BOT",
  /** INVALID_ARGUMENT: a turn timer out of range. */
  BAD_TURN_TIMER: "BAD_TURN_TIMER",
  /** INVALID_ARGUMENT: the game has no such seat to join. */
  BAD_SEAT: "BAD_SEAT",
  /** INVALID_ARGUMENT: a request id without a caller key to scope it. */
  CALLER_KEY_REQUIRED: "CALLER_KEY_REQUIRED",
  /** FAILED_PRECONDITION: every seat is taken. */
  NO_OPEN_SEAT: "NO_OPEN_SEAT",
  /** FAILED_PRECONDITION: that seat is taken. */
  SEAT_TAKEN: "SEAT_TAKEN",
  /** FAILED_PRECONDITION: the player holds a seat of this game already. */
  ALREADY_SEATED: "ALREADY_SEATED",
  /** FAILED_PRECONDITION: the game waits for its players. */
  GAME_NOT_STARTED: "GAME_NOT_STARTED",
  /** FAILED_PRECONDITION: the game has ended. */
  GAME_FINISHED: "GAME_FINISHED",
  /** NOT_FOUND: no such game. */
  GAME_NOT_FOUND: "GAME_NOT_FOUND",
  /** NOT_FOUND: an invite code that opens no game (wrong, or its game was dealt or ended). */
  INVITE_NOT_VALID: "INVITE_NOT_VALID",
  /** INVALID_ARGUMENT: no such visibility. */
  BAD_VISIBILITY: "BAD_VISIBILITY",
  /** FAILED_PRECONDITION: a rated game on a server that does not know players. */
  RATED_NEEDS_PLAYERS: "RATED_NEEDS_PLAYERS",
  /** INVALID_ARGUMENT: a rated game created with a bot seat. */
  RATED_WITH_BOT: "RATED_WITH_BOT",
  /** INVALID_ARGUMENT: a rated game created without a turn timer. */
  RATED_WITHOUT_TIMER: "RATED_WITHOUT_TIMER",
  /** INVALID_ARGUMENT: a table quick play may fill created without a turn timer. */
  QUICK_PLAY_WITHOUT_TIMER: "QUICK_PLAY_WITHOUT_TIMER",
  /** FAILED_PRECONDITION: a rated game cannot be cancelled once dealt (its players resign instead). */
  RATED_IN_PLAY: "RATED_IN_PLAY",
  /** ALREADY_EXISTS: a game of that id exists. */
  GAME_EXISTS: "GAME_EXISTS",
  /** ABORTED: expected_version is not the game's version (metadata: expected, actual). */
  VERSION_MISMATCH: "VERSION_MISMATCH",
  /** PERMISSION_DENIED: the game takes no spectators. */
  SPECTATING_DISABLED: "SPECTATING_DISABLED",
  /** PERMISSION_DENIED: the token claims a seat the game does not have. */
  NO_SUCH_SEAT: "NO_SUCH_SEAT",
  /** UNAUTHENTICATED: the call needs a seat or creator token. */
  TOKEN_MISSING: "TOKEN_MISSING",
  /** UNAUTHENTICATED: a token this server did not sign. */
  TOKEN_INVALID: "TOKEN_INVALID",
  /** UNAUTHENTICATED: the token has expired. */
  TOKEN_EXPIRED: "TOKEN_EXPIRED",
  /** UNAUTHENTICATED: a seat token whose claims are not a seat's. */
  BAD_SEAT_CLAIM: "BAD_SEAT_CLAIM",
  /** UNAUTHENTICATED: the server knows players: send the ramino-player-token. */
  PLAYER_TOKEN_MISSING: "PLAYER_TOKEN_MISSING",
  /** UNAUTHENTICATED: a player token the host did not sign. */
  PLAYER_TOKEN_INVALID: "PLAYER_TOKEN_INVALID",
  /** UNAUTHENTICATED: the player token has expired. */
  PLAYER_TOKEN_EXPIRED: "PLAYER_TOKEN_EXPIRED",
  /** INVALID_ARGUMENT: a caller key that is empty or too long. */
  BAD_CALLER_KEY: "BAD_CALLER_KEY",
  /** PERMISSION_DENIED: the token is another game's. */
  WRONG_GAME: "WRONG_GAME",
  /** PERMISSION_DENIED: the token is another player's. */
  WRONG_PLAYER: "WRONG_PLAYER",
  /** PERMISSION_DENIED: only the game's creator may do this. */
  NOT_CREATOR: "NOT_CREATOR",
  /** PERMISSION_DENIED: a seat token bound to no player, on a server that knows players. */
  SEAT_NOT_BOUND: "SEAT_NOT_BOUND",
  /** PERMISSION_DENIED: a creator token bound to no player, on a server that knows players. */
  CREATOR_NOT_BOUND: "CREATOR_NOT_BOUND",
  /** RESOURCE_EXHAUSTED: a request above the server's message size. */
  REQUEST_TOO_LARGE: "REQUEST_TOO_LARGE",
  /** INVALID_ARGUMENT: a table of more melds than a game holds. */
  TABLE_TOO_LARGE: "TABLE_TOO_LARGE",
  /** INVALID_ARGUMENT: a meld of more cards than a game holds. */
  MELD_TOO_LARGE: "MELD_TOO_LARGE",
  /** RESOURCE_EXHAUSTED: the server's work pool is full: retry later. */
  SERVER_BUSY: "SERVER_BUSY",
  /** RESOURCE_EXHAUSTED: the server holds as many streams as its memory allows: retry later. */
  SERVER_STREAMS_FULL: "SERVER_STREAMS_FULL",
  /** RESOURCE_EXHAUSTED: the client's address or network holds its share of the server's streams. */
  TOO_MANY_CLIENT_STREAMS: "TOO_MANY_CLIENT_STREAMS",
  /** RESOURCE_EXHAUSTED: the game or the seat has as many watch streams as it may. */
  TOO_MANY_WATCHERS: "TOO_MANY_WATCHERS",
  /** RESOURCE_EXHAUSTED: the connection has as many streams as it may. */
  TOO_MANY_STREAMS: "TOO_MANY_STREAMS",
  /** RESOURCE_EXHAUSTED: the watch fell too far behind: resume after its last version. */
  WATCHER_TOO_SLOW: "WATCHER_TOO_SLOW",
  /** UNAVAILABLE: following the game failed on the server: resume after its last version. */
  WATCH_INTERRUPTED: "WATCH_INTERRUPTED",
  /** UNAVAILABLE: a write not yet on the replicas asked for: retry with the request id. */
  NOT_REPLICATED: "NOT_REPLICATED",
  /** UNAVAILABLE: the game store is out of reach: retry with the request id. */
  STORE_UNAVAILABLE: "STORE_UNAVAILABLE",
  /** UNAVAILABLE: the store's node that holds the game is down and no replica can take its place: retry after the hint (RetryInfo) with the request id. */
  SHARD_UNAVAILABLE: "SHARD_UNAVAILABLE",
  /** INVALID_ARGUMENT: the acceptable seat counts are not a range the variant can deal. */
  BAD_SEAT_COUNTS: "BAD_SEAT_COUNTS",
  /** INVALID_ARGUMENT: too many ticket properties, or one too long or not printable. */
  BAD_TICKET_PROPERTIES: "BAD_TICKET_PROPERTIES",
  /** INVALID_ARGUMENT: a seat bound to a player at creation is a person's, with a name. */
  BAD_BOUND_SEAT: "BAD_BOUND_SEAT",
  /** INVALID_ARGUMENT: the player holds the most tickets the server allows at once. */
  TOO_MANY_TICKETS: "TOO_MANY_TICKETS",
  /** ALREADY_EXISTS: a ticket id already held by another ticket (the store refuses a second one). */
  TICKET_EXISTS: "TICKET_EXISTS",
  /** NOT_FOUND: no such ticket, or another player's (not told apart). */
  TICKET_NOT_FOUND: "TICKET_NOT_FOUND",
  /** INVALID_ARGUMENT: quick play needs a verified player (the host's player token). */
  PLAYER_REQUIRED: "PLAYER_REQUIRED",
  /** INVALID_ARGUMENT: a leaderboard or history read with a bad page size or token. */
  BAD_PAGE: "BAD_PAGE",
  /** INVALID_ARGUMENT: a ticket name that is not "tickets/{ticket}". */
  BAD_TICKET_NAME: "BAD_TICKET_NAME",
  /** RESOURCE_EXHAUSTED: the player holds the most ticket streams a replica allows at once. */
  TOO_MANY_TICKET_STREAMS: "TOO_MANY_TICKET_STREAMS",
  /** FAILED_PRECONDITION: a game's whole record is given once it has finished. */
  GAME_NOT_FINISHED: "GAME_NOT_FINISHED",
  /** INVALID_ARGUMENT: a ticket's clauses: too many, or one with no occur, a bad key, an empty or too long any_of, or a range without bounds, not finite or upside down. */
  BAD_MATCH_CLAUSE: "BAD_MATCH_CLAUSE",
  /** INVALID_ARGUMENT: a ticket's rating band that is negative or not a finite number. */
  BAD_RATING_BAND: "BAD_RATING_BAND",
  /** INVALID_ARGUMENT: a party name that is not "parties/{party}". */
  BAD_PARTY_NAME: "BAD_PARTY_NAME",
  /** NOT_FOUND: no such party, or one the caller is not in (not told apart), or one disbanded or forgotten. */
  PARTY_NOT_FOUND: "PARTY_NOT_FOUND",
  /** PERMISSION_DENIED: only the party's leader invites players and queues the party. */
  PARTY_LEADER_ONLY: "PARTY_LEADER_ONLY",
  /** PERMISSION_DENIED: no invitation of the caller's by that id in that party (another player's is not told apart). */
  NOT_INVITED: "NOT_INVITED",
  /** FAILED_PRECONDITION: an invitation to a party accepted too late. */
  INVITATION_EXPIRED: "INVITATION_EXPIRED",
  /** FAILED_PRECONDITION: an invitation to a party accepted before. */
  INVITATION_USED: "INVITATION_USED",
  /** INVALID_ARGUMENT: an invitation for no player, the leader, or a member of the party already. */
  BAD_INVITEE: "BAD_INVITEE",
  /** RESOURCE_EXHAUSTED: the party holds the most open invitations the server allows. */
  TOO_MANY_INVITATIONS: "TOO_MANY_INVITATIONS",
  /** FAILED_PRECONDITION: the party holds the most players the server allows. */
  PARTY_FULL: "PARTY_FULL",
  /** INVALID_ARGUMENT: a party with more players than the ticket's largest seat count. */
  PARTY_TOO_LARGE: "PARTY_TOO_LARGE",
  /** FAILED_PRECONDITION: the party's ticket is live: players join and it queues again once that ticket ends. */
  PARTY_QUEUED: "PARTY_QUEUED",
  /** FAILED_PRECONDITION: the player is in another party (one party at a time): leave it before creating or joining. */
  IN_ANOTHER_PARTY: "IN_ANOTHER_PARTY",
  /** FAILED_PRECONDITION: the party's players changed while it queued: its ticket was cancelled, queue again. */
  PARTY_CHANGED: "PARTY_CHANGED",
  /** INTERNAL: an error the server did not expect (logged once): a bug. */
  INTERNAL: "INTERNAL",
  /** PERMISSION_DENIED: a seat's call made with a spectator's token. */
  SPECTATOR_TOKEN: "SPECTATOR_TOKEN",
  /** INTERNAL: a watch message with no payload. */
  EMPTY_WATCH_MESSAGE: "EMPTY_WATCH_MESSAGE",
} as const;

/** One of {@link Reasons}. */
export type Reason = (typeof Reasons)[keyof typeof Reasons];

/** The status code (its gRPC name) each reason comes with. */
export const REASON_CODES: Readonly<Record<Reason, string>> = {
  MATCH_OVER: "FAILED_PRECONDITION",
  SEAT_RESIGNED: "FAILED_PRECONDITION",
  NOT_YOUR_TURN: "FAILED_PRECONDITION",
  MUST_DRAW_FIRST: "FAILED_PRECONDITION",
  ALREADY_DREW: "FAILED_PRECONDITION",
  FIRST_TURN_HAS_NO_DRAW: "FAILED_PRECONDITION",
  STOCK_EMPTY: "FAILED_PRECONDITION",
  STOCK_NOT_EMPTY: "FAILED_PRECONDITION",
  DISCARD_PILE_EMPTY: "FAILED_PRECONDITION",
  TURN_OVER_NOT_ALLOWED: "FAILED_PRECONDITION",
  CANNOT_OPEN_WITH_DISCARD: "FAILED_PRECONDITION",
  MUST_OPEN_WITH_TAKEN_DISCARD: "FAILED_PRECONDITION",
  CARD_NOT_IN_HAND: "FAILED_PRECONDITION",
  INVALID_MELD: "FAILED_PRECONDITION",
  OPENING_BELOW_THRESHOLD: "FAILED_PRECONDITION",
  OPENING_NEEDS_PURE_RUN: "FAILED_PRECONDITION",
  NOT_OPENED: "FAILED_PRECONDITION",
  NO_LAYOFF_ON_OPENING_TURN: "FAILED_PRECONDITION",
  NO_SWAP_ON_OPENING_TURN: "FAILED_PRECONDITION",
  NO_SUCH_MELD: "FAILED_PRECONDITION",
  MELD_CLOSED: "FAILED_PRECONDITION",
  CANNOT_LAY_OFF: "FAILED_PRECONDITION",
  JOKER_SWAP_NOT_ALLOWED: "FAILED_PRECONDITION",
  NO_SUCH_JOKER: "FAILED_PRECONDITION",
  SWAP_NEEDS_NATURAL_CARD: "FAILED_PRECONDITION",
  JOKER_STANDS_FOR_OTHER_CARD: "FAILED_PRECONDITION",
  SWAPPED_JOKER_NOT_MELDED: "FAILED_PRECONDITION",
  SWAPPED_JOKER_CANNOT_BE_MELDED: "FAILED_PRECONDITION",
  LAST_CARD_MUST_BE_DISCARDED: "FAILED_PRECONDITION",
  CANNOT_DISCARD_TAKEN_CARD: "FAILED_PRECONDITION",
  CANNOT_DISCARD_TAKEN_TWIN: "FAILED_PRECONDITION",
  NOT_KNOCKING_PLAY: "FAILED_PRECONDITION",
  CANNOT_PASS: "FAILED_PRECONDITION",
  UPCARD_PASSED: "FAILED_PRECONDITION",
  TAKE_OR_PASS_UPCARD: "FAILED_PRECONDITION",
  WALL_REACHED: "FAILED_PRECONDITION",
  WALL_NEEDS_KNOCK: "FAILED_PRECONDITION",
  MUST_KNOCK: "FAILED_PRECONDITION",
  MELDS_ONLY_BY_KNOCKING: "FAILED_PRECONDITION",
  KNOCK_TOO_HIGH: "FAILED_PRECONDITION",
  BIG_GIN_NOT_ALLOWED: "FAILED_PRECONDITION",
  BIG_GIN_MELDS_ALL: "FAILED_PRECONDITION",
  DEFENDER_TO_PLAY: "FAILED_PRECONDITION",
  NO_LAYOFF_ON_GIN: "FAILED_PRECONDITION",
  LAYOFF_ONLY_ON_KNOCKERS_MELDS: "FAILED_PRECONDITION",
  NO_LAYOFF_AFTER_MELDS: "FAILED_PRECONDITION",
  NO_CARD_LEFT_TO_DISCARD: "FAILED_PRECONDITION",
  UNKNOWN_COMMAND: "INVALID_ARGUMENT",
  UNKNOWN_SEAT: "INVALID_ARGUMENT",
  UNKNOWN_CARD: "INVALID_ARGUMENT",
  DUPLICATE_CARD: "INVALID_ARGUMENT",
  BAD_END: "INVALID_ARGUMENT",
  NO_MELDS: "INVALID_ARGUMENT",
  BAD_FIELD: "INVALID_ARGUMENT",
  PLAYER_COUNT: "INVALID_ARGUMENT",
  BAD_PLAYER_NAME: "INVALID_ARGUMENT",
  BAD_SEED: "INVALID_ARGUMENT",
  BAD_DECK: "INVALID_ARGUMENT",
  DECK_TOO_SMALL: "INVALID_ARGUMENT",
  RECORD_FORMAT: "INVALID_ARGUMENT",
  RECORD_VERSION: "INVALID_ARGUMENT",
  RECORD_INCONSISTENT: "INVALID_ARGUMENT",
  BAD_CARD: "INVALID_ARGUMENT",
  TOO_MANY_COPIES: "INVALID_ARGUMENT",
  TOO_SHORT: "OK",
  SET_TOO_LONG: "OK",
  RUN_TOO_LONG: "OK",
  TOO_MANY_JOKERS: "OK",
  TOO_FEW_NATURALS: "OK",
  MIXED_SUITS: "OK",
  DUPLICATE_SUIT: "OK",
  GAP: "OK",
  WRAP_AROUND: "OK",
  OUT_OF_ORDER: "OK",
  ACE_HIGH_NOT_ALLOWED: "OK",
  JOKER_BEYOND_ACE: "OK",
  EMPTY_HAND: "INVALID_ARGUMENT",
  HAND_TOO_LARGE: "INVALID_ARGUMENT",
  BAD_TABLE_MELD: "INVALID_ARGUMENT",
  UNKNOWN_VARIANT: "INVALID_ARGUMENT",
  UNKNOWN_PARAMETER: "INVALID_ARGUMENT",
  BAD_PARAMETER: "INVALID_ARGUMENT",
  MALFORMED_REQUEST: "INVALID_ARGUMENT",
  BAD_REQUEST_ID: "INVALID_ARGUMENT",
  REQUEST_ID_REUSED: "INVALID_ARGUMENT",
  BAD_GAME_NAME: "INVALID_ARGUMENT",
  BAD_CARD_ID: "INVALID_ARGUMENT",
  BAD_MELD_INDEX: "INVALID_ARGUMENT",
  EMPTY_MELD: "INVALID_ARGUMENT",
  TOO_MANY_CARDS: "INVALID_ARGUMENT",
  BAD_PAGE_SIZE: "INVALID_ARGUMENT",
  SESSION_START: "INVALID_ARGUMENT",
  SESSION_GAME: "INVALID_ARGUMENT",
  SESSION_REQUEST_ID: "INVALID_ARGUMENT",
  SESSION_RESEND: "INVALID_ARGUMENT",
  AFTER_VERSION_OUT_OF_RANGE: "OUT_OF_RANGE",
  BAD_PAGE_TOKEN: "INVALID_ARGUMENT",
  BAD_HINT_LEVEL: "INVALID_ARGUMENT",
  NO_SEATS: "INVALID_ARGUMENT",
  ALL_BOT_GAME: "INVALID_ARGUMENT",
  BAD_BOT: "INVALID_ARGUMENT",
  BAD_TURN_TIMER: "INVALID_ARGUMENT",
  BAD_SEAT: "INVALID_ARGUMENT",
  CALLER_KEY_REQUIRED: "INVALID_ARGUMENT",
  NO_OPEN_SEAT: "FAILED_PRECONDITION",
  SEAT_TAKEN: "FAILED_PRECONDITION",
  ALREADY_SEATED: "FAILED_PRECONDITION",
  GAME_NOT_STARTED: "FAILED_PRECONDITION",
  GAME_FINISHED: "FAILED_PRECONDITION",
  GAME_NOT_FOUND: "NOT_FOUND",
  INVITE_NOT_VALID: "NOT_FOUND",
  BAD_VISIBILITY: "INVALID_ARGUMENT",
  RATED_NEEDS_PLAYERS: "FAILED_PRECONDITION",
  RATED_WITH_BOT: "INVALID_ARGUMENT",
  RATED_WITHOUT_TIMER: "INVALID_ARGUMENT",
  QUICK_PLAY_WITHOUT_TIMER: "INVALID_ARGUMENT",
  RATED_IN_PLAY: "FAILED_PRECONDITION",
  GAME_EXISTS: "ALREADY_EXISTS",
  VERSION_MISMATCH: "ABORTED",
  SPECTATING_DISABLED: "PERMISSION_DENIED",
  NO_SUCH_SEAT: "PERMISSION_DENIED",
  TOKEN_MISSING: "UNAUTHENTICATED",
  TOKEN_INVALID: "UNAUTHENTICATED",
  TOKEN_EXPIRED: "UNAUTHENTICATED",
  BAD_SEAT_CLAIM: "UNAUTHENTICATED",
  PLAYER_TOKEN_MISSING: "UNAUTHENTICATED",
  PLAYER_TOKEN_INVALID: "UNAUTHENTICATED",
  PLAYER_TOKEN_EXPIRED: "UNAUTHENTICATED",
  BAD_CALLER_KEY: "INVALID_ARGUMENT",
  WRONG_GAME: "PERMISSION_DENIED",
  WRONG_PLAYER: "PERMISSION_DENIED",
  NOT_CREATOR: "PERMISSION_DENIED",
  SEAT_NOT_BOUND: "PERMISSION_DENIED",
  CREATOR_NOT_BOUND: "PERMISSION_DENIED",
  REQUEST_TOO_LARGE: "RESOURCE_EXHAUSTED",
  TABLE_TOO_LARGE: "INVALID_ARGUMENT",
  MELD_TOO_LARGE: "INVALID_ARGUMENT",
  SERVER_BUSY: "RESOURCE_EXHAUSTED",
  SERVER_STREAMS_FULL: "RESOURCE_EXHAUSTED",
  TOO_MANY_CLIENT_STREAMS: "RESOURCE_EXHAUSTED",
  TOO_MANY_WATCHERS: "RESOURCE_EXHAUSTED",
  TOO_MANY_STREAMS: "RESOURCE_EXHAUSTED",
  WATCHER_TOO_SLOW: "RESOURCE_EXHAUSTED",
  WATCH_INTERRUPTED: "UNAVAILABLE",
  NOT_REPLICATED: "UNAVAILABLE",
  STORE_UNAVAILABLE: "UNAVAILABLE",
  SHARD_UNAVAILABLE: "UNAVAILABLE",
  BAD_SEAT_COUNTS: "INVALID_ARGUMENT",
  BAD_TICKET_PROPERTIES: "INVALID_ARGUMENT",
  BAD_BOUND_SEAT: "INVALID_ARGUMENT",
  TOO_MANY_TICKETS: "INVALID_ARGUMENT",
  TICKET_EXISTS: "ALREADY_EXISTS",
  TICKET_NOT_FOUND: "NOT_FOUND",
  PLAYER_REQUIRED: "INVALID_ARGUMENT",
  BAD_PAGE: "INVALID_ARGUMENT",
  BAD_TICKET_NAME: "INVALID_ARGUMENT",
  TOO_MANY_TICKET_STREAMS: "RESOURCE_EXHAUSTED",
  GAME_NOT_FINISHED: "FAILED_PRECONDITION",
  BAD_MATCH_CLAUSE: "INVALID_ARGUMENT",
  BAD_RATING_BAND: "INVALID_ARGUMENT",
  BAD_PARTY_NAME: "INVALID_ARGUMENT",
  PARTY_NOT_FOUND: "NOT_FOUND",
  PARTY_LEADER_ONLY: "PERMISSION_DENIED",
  NOT_INVITED: "PERMISSION_DENIED",
  INVITATION_EXPIRED: "FAILED_PRECONDITION",
  INVITATION_USED: "FAILED_PRECONDITION",
  BAD_INVITEE: "INVALID_ARGUMENT",
  TOO_MANY_INVITATIONS: "RESOURCE_EXHAUSTED",
  PARTY_FULL: "FAILED_PRECONDITION",
  PARTY_TOO_LARGE: "INVALID_ARGUMENT",
  PARTY_QUEUED: "FAILED_PRECONDITION",
  IN_ANOTHER_PARTY: "FAILED_PRECONDITION",
  PARTY_CHANGED: "FAILED_PRECONDITION",
  INTERNAL: "INTERNAL",
  SPECTATOR_TOKEN: "PERMISSION_DENIED",
  EMPTY_WATCH_MESSAGE: "INTERNAL",
};

/** Reasons that end a watch stream which a resume continues. */
export const RESUMABLE_WATCH_REASONS: ReadonlySet<string> = new Set([
  Reasons.WATCHER_TOO_SLOW,
  Reasons.WATCH_INTERRUPTED,
]);
