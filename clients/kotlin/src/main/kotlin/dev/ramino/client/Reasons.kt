// Generated from service/ramino/reasons.py by backend/ramino_reasons.py (make reasons): do not edit.
package dev.ramino.client

/** Reasons the server puts in ErrorInfo, for `e.reason == Reasons.NOT_YOUR_TURN`. */
public object Reasons {
    /** FAILED_PRECONDITION: the match has ended. */
    public const val MATCH_OVER: String = "MATCH_OVER"

    /** FAILED_PRECONDITION: the seat has resigned. */
    public const val SEAT_RESIGNED: String = "SEAT_RESIGNED"

    /** FAILED_PRECONDITION: it is another seat's turn. */
    public const val NOT_YOUR_TURN: String = "NOT_YOUR_TURN"

    /** FAILED_PRECONDITION: draw before anything else this turn. */
    public const val MUST_DRAW_FIRST: String = "MUST_DRAW_FIRST"

    /** FAILED_PRECONDITION: the seat has drawn this turn already. */
    public const val ALREADY_DREW: String = "ALREADY_DREW"

    /** FAILED_PRECONDITION: the first player's first turn has no draw. */
    public const val FIRST_TURN_HAS_NO_DRAW: String = "FIRST_TURN_HAS_NO_DRAW"

    /** FAILED_PRECONDITION: the stock is empty. */
    public const val STOCK_EMPTY: String = "STOCK_EMPTY"

    /** FAILED_PRECONDITION: the discard pile is turned over only once the stock is empty. */
    public const val STOCK_NOT_EMPTY: String = "STOCK_NOT_EMPTY"

    /** FAILED_PRECONDITION: the discard pile is empty. */
    public const val DISCARD_PILE_EMPTY: String = "DISCARD_PILE_EMPTY"

    /** FAILED_PRECONDITION: the variant reshuffles the discard pile or never turns it over. */
    public const val TURN_OVER_NOT_ALLOWED: String = "TURN_OVER_NOT_ALLOWED"

    /** FAILED_PRECONDITION: the discard may not be taken to open. */
    public const val CANNOT_OPEN_WITH_DISCARD: String = "CANNOT_OPEN_WITH_DISCARD"

    /** FAILED_PRECONDITION: a discard taken before opening must be melded in the opening this turn. */
    public const val MUST_OPEN_WITH_TAKEN_DISCARD: String = "MUST_OPEN_WITH_TAKEN_DISCARD"

    /** FAILED_PRECONDITION: a card of the command is not in the seat's hand. */
    public const val CARD_NOT_IN_HAND: String = "CARD_NOT_IN_HAND"

    /** FAILED_PRECONDITION: cards laid that are not a meld (the kernel's reason in the message). */
    public const val INVALID_MELD: String = "INVALID_MELD"

    /** FAILED_PRECONDITION: the opening melds are worth less than the variant's threshold. */
    public const val OPENING_BELOW_THRESHOLD: String = "OPENING_BELOW_THRESHOLD"

    /** FAILED_PRECONDITION: the opening needs a run without jokers. */
    public const val OPENING_NEEDS_PURE_RUN: String = "OPENING_NEEDS_PURE_RUN"

    /** FAILED_PRECONDITION: the seat has not opened yet. */
    public const val NOT_OPENED: String = "NOT_OPENED"

    /** FAILED_PRECONDITION: no laying off in the turn of the opening. */
    public const val NO_LAYOFF_ON_OPENING_TURN: String = "NO_LAYOFF_ON_OPENING_TURN"

    /** FAILED_PRECONDITION: no joker swap in the turn of the opening. */
    public const val NO_SWAP_ON_OPENING_TURN: String = "NO_SWAP_ON_OPENING_TURN"

    /** FAILED_PRECONDITION: the table has no such meld. */
    public const val NO_SUCH_MELD: String = "NO_SUCH_MELD"

    /** FAILED_PRECONDITION: the meld is closed (a set of four). */
    public const val MELD_CLOSED: String = "MELD_CLOSED"

    /** FAILED_PRECONDITION: the card does not extend that meld. */
    public const val CANNOT_LAY_OFF: String = "CANNOT_LAY_OFF"

    /** FAILED_PRECONDITION: the variant has no joker swaps. */
    public const val JOKER_SWAP_NOT_ALLOWED: String = "JOKER_SWAP_NOT_ALLOWED"

    /** FAILED_PRECONDITION: that meld has no joker there. */
    public const val NO_SUCH_JOKER: String = "NO_SUCH_JOKER"

    /** FAILED_PRECONDITION: a joker is swapped for a natural card. */
    public const val SWAP_NEEDS_NATURAL_CARD: String = "SWAP_NEEDS_NATURAL_CARD"

    /** FAILED_PRECONDITION: the joker stands for another card than the one offered. */
    public const val JOKER_STANDS_FOR_OTHER_CARD: String = "JOKER_STANDS_FOR_OTHER_CARD"

    /** FAILED_PRECONDITION: a swapped joker goes into a new meld before anything else. */
    public const val SWAPPED_JOKER_NOT_MELDED: String = "SWAPPED_JOKER_NOT_MELDED"

    /** FAILED_PRECONDITION: the joker could not be laid in a new meld this turn. */
    public const val SWAPPED_JOKER_CANNOT_BE_MELDED: String = "SWAPPED_JOKER_CANNOT_BE_MELDED"

    /** FAILED_PRECONDITION: the last card of a hand goes out by a discard. */
    public const val LAST_CARD_MUST_BE_DISCARDED: String = "LAST_CARD_MUST_BE_DISCARDED"

    /** FAILED_PRECONDITION: the card taken from the discard pile may not be discarded this turn. */
    public const val CANNOT_DISCARD_TAKEN_CARD: String = "CANNOT_DISCARD_TAKEN_CARD"

    /** FAILED_PRECONDITION: nor may its twin from the other pack. */
    public const val CANNOT_DISCARD_TAKEN_TWIN: String = "CANNOT_DISCARD_TAKEN_TWIN"

    /** FAILED_PRECONDITION: the variant has no knocking. */
    public const val NOT_KNOCKING_PLAY: String = "NOT_KNOCKING_PLAY"

    /** FAILED_PRECONDITION: pass only on the first upcard or at the wall. */
    public const val CANNOT_PASS: String = "CANNOT_PASS"

    /** FAILED_PRECONDITION: both passed the upcard: draw from the stock. */
    public const val UPCARD_PASSED: String = "UPCARD_PASSED"

    /** FAILED_PRECONDITION: take the first upcard or pass. */
    public const val TAKE_OR_PASS_UPCARD: String = "TAKE_OR_PASS_UPCARD"

    /** FAILED_PRECONDITION: the stock is at the wall: knock with the upcard or pass. */
    public const val WALL_REACHED: String = "WALL_REACHED"

    /** FAILED_PRECONDITION: at the wall the upcard is taken only to knock. */
    public const val WALL_NEEDS_KNOCK: String = "WALL_NEEDS_KNOCK"

    /** FAILED_PRECONDITION: the upcard taken at the wall obliges a knock. */
    public const val MUST_KNOCK: String = "MUST_KNOCK"

    /** FAILED_PRECONDITION: in knocking play melds are shown only by knocking. */
    public const val MELDS_ONLY_BY_KNOCKING: String = "MELDS_ONLY_BY_KNOCKING"

    /** FAILED_PRECONDITION: the deadwood is above the knock card. */
    public const val KNOCK_TOO_HIGH: String = "KNOCK_TOO_HIGH"

    /** FAILED_PRECONDITION: the variant has no big gin. */
    public const val BIG_GIN_NOT_ALLOWED: String = "BIG_GIN_NOT_ALLOWED"

    /** FAILED_PRECONDITION: big gin melds all eleven cards. */
    public const val BIG_GIN_MELDS_ALL: String = "BIG_GIN_MELDS_ALL"

    /** FAILED_PRECONDITION: after a knock the defender lays off, melds or accepts the layout. */
    public const val DEFENDER_TO_PLAY: String = "DEFENDER_TO_PLAY"

    /** FAILED_PRECONDITION: no laying off on a gin hand. */
    public const val NO_LAYOFF_ON_GIN: String = "NO_LAYOFF_ON_GIN"

    /** FAILED_PRECONDITION: the defender lays off on the knocker's melds only. */
    public const val LAYOFF_ONLY_ON_KNOCKERS_MELDS: String = "LAYOFF_ONLY_ON_KNOCKERS_MELDS"

    /** FAILED_PRECONDITION: lay-offs come before the defender's own melds. */
    public const val NO_LAYOFF_AFTER_MELDS: String = "NO_LAYOFF_AFTER_MELDS"

    /** FAILED_PRECONDITION: only the taken discard (or its twin) would be left to discard. */
    public const val NO_CARD_LEFT_TO_DISCARD: String = "NO_CARD_LEFT_TO_DISCARD"

    /** INVALID_ARGUMENT: no such command. */
    public const val UNKNOWN_COMMAND: String = "UNKNOWN_COMMAND"

    /** INVALID_ARGUMENT: no such seat in the game. */
    public const val UNKNOWN_SEAT: String = "UNKNOWN_SEAT"

    /** INVALID_ARGUMENT: no such card. */
    public const val UNKNOWN_CARD: String = "UNKNOWN_CARD"

    /** INVALID_ARGUMENT: the same card twice in one command. */
    public const val DUPLICATE_CARD: String = "DUPLICATE_CARD"

    /** INVALID_ARGUMENT: a run's end that is neither its low nor its high end. */
    public const val BAD_END: String = "BAD_END"

    /** INVALID_ARGUMENT: a meld command without melds. */
    public const val NO_MELDS: String = "NO_MELDS"

    /** INVALID_ARGUMENT: a field of the wrong type or range. */
    public const val BAD_FIELD: String = "BAD_FIELD"

    /** INVALID_ARGUMENT: more or fewer players than the variant seats. */
    public const val PLAYER_COUNT: String = "PLAYER_COUNT"

    /** INVALID_ARGUMENT: a player name that is empty, too long or not printable. */
    public const val BAD_PLAYER_NAME: String = "BAD_PLAYER_NAME"

    /** INVALID_ARGUMENT: a seed that is not an integer from 0 to 2**256 - 1. */
    public const val BAD_SEED: String = "BAD_SEED"

    /** INVALID_ARGUMENT: a stacked deck or a deck token that is not the variant's. */
    public const val BAD_DECK: String = "BAD_DECK"

    /** INVALID_ARGUMENT: too few cards to deal every seat. */
    public const val DECK_TOO_SMALL: String = "DECK_TOO_SMALL"

    /** INVALID_ARGUMENT: a record that cannot be read. */
    public const val RECORD_FORMAT: String = "RECORD_FORMAT"

    /** INVALID_ARGUMENT: a record of an unknown format version. */
    public const val RECORD_VERSION: String = "RECORD_VERSION"

    /** INVALID_ARGUMENT: a record whose events do not replay. */
    public const val RECORD_INCONSISTENT: String = "RECORD_INCONSISTENT"

    /** INVALID_ARGUMENT: a card token that is not one (`AS`, `10H`, `JK`...). */
    public const val BAD_CARD: String = "BAD_CARD"

    /** INVALID_ARGUMENT: more copies of a card than the deck holds. */
    public const val TOO_MANY_COPIES: String = "TOO_MANY_COPIES"

    /** a meld of fewer than 3 cards. */
    public const val TOO_SHORT: String = "TOO_SHORT"

    /** a set of more cards than it may hold. */
    public const val SET_TOO_LONG: String = "SET_TOO_LONG"

    /** a run longer than ace to ace. */
    public const val RUN_TOO_LONG: String = "RUN_TOO_LONG"

    /** more jokers in a meld than the variant allows. */
    public const val TOO_MANY_JOKERS: String = "TOO_MANY_JOKERS"

    /** too few natural cards beside the jokers. */
    public const val TOO_FEW_NATURALS: String = "TOO_FEW_NATURALS"

    /** a run of more than one suit. */
    public const val MIXED_SUITS: String = "MIXED_SUITS"

    /** a set with a suit twice. */
    public const val DUPLICATE_SUIT: String = "DUPLICATE_SUIT"

    /** a run with a gap no joker fills. */
    public const val GAP: String = "GAP"

    /** a run that goes round the corner (K A 2). */
    public const val WRAP_AROUND: String = "WRAP_AROUND"

    /** a run's cards not in order. */
    public const val OUT_OF_ORDER: String = "OUT_OF_ORDER"

    /** an ace above the king, in a variant where aces are low. */
    public const val ACE_HIGH_NOT_ALLOWED: String = "ACE_HIGH_NOT_ALLOWED"

    /** a joker standing for a card past the ace. */
    public const val JOKER_BEYOND_ACE: String = "JOKER_BEYOND_ACE"

    /** INVALID_ARGUMENT: a search of no cards. */
    public const val EMPTY_HAND: String = "EMPTY_HAND"

    /** INVALID_ARGUMENT: a hand of more cards than the search takes. */
    public const val HAND_TOO_LARGE: String = "HAND_TOO_LARGE"

    /** INVALID_ARGUMENT: a table meld that is not a meld. */
    public const val BAD_TABLE_MELD: String = "BAD_TABLE_MELD"

    /** INVALID_ARGUMENT: no such variant. */
    public const val UNKNOWN_VARIANT: String = "UNKNOWN_VARIANT"

    /** INVALID_ARGUMENT: no such variant parameter. */
    public const val UNKNOWN_PARAMETER: String = "UNKNOWN_PARAMETER"

    /** INVALID_ARGUMENT: a variant parameter out of its type or range. */
    public const val BAD_PARAMETER: String = "BAD_PARAMETER"

    /** INVALID_ARGUMENT: a request that does not decode. */
    public const val MALFORMED_REQUEST: String = "MALFORMED_REQUEST"

    /** INVALID_ARGUMENT: a request id that is too long. */
    public const val BAD_REQUEST_ID: String = "BAD_REQUEST_ID"

    /** INVALID_ARGUMENT: a request id already used for another request. */
    public const val REQUEST_ID_REUSED: String = "REQUEST_ID_REUSED"

    /** INVALID_ARGUMENT: a game name that is not "games/{game}". */
    public const val BAD_GAME_NAME: String = "BAD_GAME_NAME"

    /** INVALID_ARGUMENT: no card has that id. */
    public const val BAD_CARD_ID: String = "BAD_CARD_ID"

    /** INVALID_ARGUMENT: no meld or joker has that index. */
    public const val BAD_MELD_INDEX: String = "BAD_MELD_INDEX"

    /** INVALID_ARGUMENT: a meld without card ids. */
    public const val EMPTY_MELD: String = "EMPTY_MELD"

    /** INVALID_ARGUMENT: more cards to lay than a hand holds. */
    public const val TOO_MANY_CARDS: String = "TOO_MANY_CARDS"

    /** INVALID_ARGUMENT: a negative page size. */
    public const val BAD_PAGE_SIZE: String = "BAD_PAGE_SIZE"

    /** INVALID_ARGUMENT: a session opens with one start message, and only its first is one. */
    public const val SESSION_START: String = "SESSION_START"

    /** INVALID_ARGUMENT: a move on a session names another game. */
    public const val SESSION_GAME: String = "SESSION_GAME"

    /** INVALID_ARGUMENT: a move on a session without a request id (its answer is matched by it). */
    public const val SESSION_REQUEST_ID: String = "SESSION_REQUEST_ID"

    /** INVALID_ARGUMENT: a session start whose resend names more than 16 ids, an id twice, or one too long. */
    public const val SESSION_RESEND: String = "SESSION_RESEND"

    /** OUT_OF_RANGE: after_version is negative or past the game's version. */
    public const val AFTER_VERSION_OUT_OF_RANGE: String = "AFTER_VERSION_OUT_OF_RANGE"

    /** INVALID_ARGUMENT: a page token this server did not give. */
    public const val BAD_PAGE_TOKEN: String = "BAD_PAGE_TOKEN"

    /** INVALID_ARGUMENT: no such hint level. */
    public const val BAD_HINT_LEVEL: String = "BAD_HINT_LEVEL"

    /** INVALID_ARGUMENT: a game created with no seats. */
    public const val NO_SEATS: String = "NO_SEATS"

    /** INVALID_ARGUMENT: a game of bots only, on a server that does not host them. */
    public const val ALL_BOT_GAME: String = "ALL_BOT_GAME"

    /** INVALID_ARGUMENT: no such bot. */
    public const val BAD_BOT: String = "BAD_BOT"

    /** INVALID_ARGUMENT: a turn timer out of range. */
    public const val BAD_TURN_TIMER: String = "BAD_TURN_TIMER"

    /** INVALID_ARGUMENT: the game has no such seat to join. */
    public const val BAD_SEAT: String = "BAD_SEAT"

    /** INVALID_ARGUMENT: a request id without a caller key to scope it. */
    public const val CALLER_KEY_REQUIRED: String = "CALLER_KEY_REQUIRED"

    /** FAILED_PRECONDITION: every seat is taken. */
    public const val NO_OPEN_SEAT: String = "NO_OPEN_SEAT"

    /** FAILED_PRECONDITION: that seat is taken. */
    public const val SEAT_TAKEN: String = "SEAT_TAKEN"

    /** FAILED_PRECONDITION: the player holds a seat of this game already. */
    public const val ALREADY_SEATED: String = "ALREADY_SEATED"

    /** FAILED_PRECONDITION: the game waits for its players. */
    public const val GAME_NOT_STARTED: String = "GAME_NOT_STARTED"

    /** FAILED_PRECONDITION: the game has ended. */
    public const val GAME_FINISHED: String = "GAME_FINISHED"

    /** NOT_FOUND: no such game. */
    public const val GAME_NOT_FOUND: String = "GAME_NOT_FOUND"

    /** NOT_FOUND: an invite code that opens no game (wrong, or its game was dealt or ended). */
    public const val INVITE_NOT_VALID: String = "INVITE_NOT_VALID"

    /** INVALID_ARGUMENT: no such visibility. */
    public const val BAD_VISIBILITY: String = "BAD_VISIBILITY"

    /** FAILED_PRECONDITION: a rated game on a server that does not know players. */
    public const val RATED_NEEDS_PLAYERS: String = "RATED_NEEDS_PLAYERS"

    /** INVALID_ARGUMENT: a rated game created with a bot seat. */
    public const val RATED_WITH_BOT: String = "RATED_WITH_BOT"

    /** INVALID_ARGUMENT: a rated game created without a turn timer. */
    public const val RATED_WITHOUT_TIMER: String = "RATED_WITHOUT_TIMER"

    /** INVALID_ARGUMENT: a table quick play may fill created without a turn timer. */
    public const val QUICK_PLAY_WITHOUT_TIMER: String = "QUICK_PLAY_WITHOUT_TIMER"

    /** FAILED_PRECONDITION: a rated game cannot be cancelled once dealt (its players resign instead). */
    public const val RATED_IN_PLAY: String = "RATED_IN_PLAY"

    /** ALREADY_EXISTS: a game of that id exists. */
    public const val GAME_EXISTS: String = "GAME_EXISTS"

    /** ABORTED: expected_version is not the game's version (metadata: expected, actual). */
    public const val VERSION_MISMATCH: String = "VERSION_MISMATCH"

    /** PERMISSION_DENIED: the game takes no spectators. */
    public const val SPECTATING_DISABLED: String = "SPECTATING_DISABLED"

    /** PERMISSION_DENIED: the token claims a seat the game does not have. */
    public const val NO_SUCH_SEAT: String = "NO_SUCH_SEAT"

    /** UNAUTHENTICATED: the call needs a seat or creator token. */
    public const val TOKEN_MISSING: String = "TOKEN_MISSING"

    /** UNAUTHENTICATED: a token this server did not sign. */
    public const val TOKEN_INVALID: String = "TOKEN_INVALID"

    /** UNAUTHENTICATED: the token has expired. */
    public const val TOKEN_EXPIRED: String = "TOKEN_EXPIRED"

    /** UNAUTHENTICATED: a seat token whose claims are not a seat's. */
    public const val BAD_SEAT_CLAIM: String = "BAD_SEAT_CLAIM"

    /** UNAUTHENTICATED: the server knows players: send the ramino-player-token. */
    public const val PLAYER_TOKEN_MISSING: String = "PLAYER_TOKEN_MISSING"

    /** UNAUTHENTICATED: a player token the host did not sign. */
    public const val PLAYER_TOKEN_INVALID: String = "PLAYER_TOKEN_INVALID"

    /** UNAUTHENTICATED: the player token has expired. */
    public const val PLAYER_TOKEN_EXPIRED: String = "PLAYER_TOKEN_EXPIRED"

    /** INVALID_ARGUMENT: a caller key that is empty or too long. */
    public const val BAD_CALLER_KEY: String = "BAD_CALLER_KEY"

    /** PERMISSION_DENIED: the token is another game's. */
    public const val WRONG_GAME: String = "WRONG_GAME"

    /** PERMISSION_DENIED: the token is another player's. */
    public const val WRONG_PLAYER: String = "WRONG_PLAYER"

    /** PERMISSION_DENIED: only the game's creator may do this. */
    public const val NOT_CREATOR: String = "NOT_CREATOR"

    /** PERMISSION_DENIED: a seat token bound to no player, on a server that knows players. */
    public const val SEAT_NOT_BOUND: String = "SEAT_NOT_BOUND"

    /** PERMISSION_DENIED: a creator token bound to no player, on a server that knows players. */
    public const val CREATOR_NOT_BOUND: String = "CREATOR_NOT_BOUND"

    /** RESOURCE_EXHAUSTED: a request above the server's message size. */
    public const val REQUEST_TOO_LARGE: String = "REQUEST_TOO_LARGE"

    /** INVALID_ARGUMENT: a table of more melds than a game holds. */
    public const val TABLE_TOO_LARGE: String = "TABLE_TOO_LARGE"

    /** INVALID_ARGUMENT: a meld of more cards than a game holds. */
    public const val MELD_TOO_LARGE: String = "MELD_TOO_LARGE"

    /** RESOURCE_EXHAUSTED: the server's work pool is full: retry later. */
    public const val SERVER_BUSY: String = "SERVER_BUSY"

    /** RESOURCE_EXHAUSTED: the server holds as many streams as its memory allows: retry later. */
    public const val SERVER_STREAMS_FULL: String = "SERVER_STREAMS_FULL"

    /** RESOURCE_EXHAUSTED: the client's address or network holds its share of the server's streams. */
    public const val TOO_MANY_CLIENT_STREAMS: String = "TOO_MANY_CLIENT_STREAMS"

    /** RESOURCE_EXHAUSTED: the game or the seat has as many watch streams as it may. */
    public const val TOO_MANY_WATCHERS: String = "TOO_MANY_WATCHERS"

    /** RESOURCE_EXHAUSTED: the connection has as many streams as it may. */
    public const val TOO_MANY_STREAMS: String = "TOO_MANY_STREAMS"

    /** RESOURCE_EXHAUSTED: the watch fell too far behind: resume after its last version. */
    public const val WATCHER_TOO_SLOW: String = "WATCHER_TOO_SLOW"

    /** UNAVAILABLE: following the game failed on the server: resume after its last version. */
    public const val WATCH_INTERRUPTED: String = "WATCH_INTERRUPTED"

    /** UNAVAILABLE: a write not yet on the replicas asked for: retry with the request id. */
    public const val NOT_REPLICATED: String = "NOT_REPLICATED"

    /** UNAVAILABLE: the game store is out of reach: retry with the request id. */
    public const val STORE_UNAVAILABLE: String = "STORE_UNAVAILABLE"

    /** UNAVAILABLE: the store's node that holds the game is down and no replica can take its place: retry after the hint (RetryInfo) with the request id. */
    public const val SHARD_UNAVAILABLE: String = "SHARD_UNAVAILABLE"

    /** INVALID_ARGUMENT: the acceptable seat counts are not a range the variant can deal. */
    public const val BAD_SEAT_COUNTS: String = "BAD_SEAT_COUNTS"

    /** INVALID_ARGUMENT: too many ticket properties, or one too long or not printable. */
    public const val BAD_TICKET_PROPERTIES: String = "BAD_TICKET_PROPERTIES"

    /** INVALID_ARGUMENT: a seat bound to a player at creation is a person's, with a name. */
    public const val BAD_BOUND_SEAT: String = "BAD_BOUND_SEAT"

    /** INVALID_ARGUMENT: the player holds the most tickets the server allows at once. */
    public const val TOO_MANY_TICKETS: String = "TOO_MANY_TICKETS"

    /** ALREADY_EXISTS: a ticket id already held by another ticket (the store refuses a second one). */
    public const val TICKET_EXISTS: String = "TICKET_EXISTS"

    /** NOT_FOUND: no such ticket, or another player's (not told apart). */
    public const val TICKET_NOT_FOUND: String = "TICKET_NOT_FOUND"

    /** INVALID_ARGUMENT: quick play needs a verified player (the host's player token). */
    public const val PLAYER_REQUIRED: String = "PLAYER_REQUIRED"

    /** INVALID_ARGUMENT: a leaderboard or history read with a bad page size or token. */
    public const val BAD_PAGE: String = "BAD_PAGE"

    /** INVALID_ARGUMENT: a ticket name that is not "tickets/{ticket}". */
    public const val BAD_TICKET_NAME: String = "BAD_TICKET_NAME"

    /** RESOURCE_EXHAUSTED: the player holds the most ticket streams a replica allows at once. */
    public const val TOO_MANY_TICKET_STREAMS: String = "TOO_MANY_TICKET_STREAMS"

    /** FAILED_PRECONDITION: a game's whole record is given once it has finished. */
    public const val GAME_NOT_FINISHED: String = "GAME_NOT_FINISHED"

    /** INVALID_ARGUMENT: a ticket's clauses: too many, or one with no occur, a bad key, an empty or too long any_of, or a range without bounds, not finite or upside down. */
    public const val BAD_MATCH_CLAUSE: String = "BAD_MATCH_CLAUSE"

    /** INVALID_ARGUMENT: a ticket's rating band that is negative or not a finite number. */
    public const val BAD_RATING_BAND: String = "BAD_RATING_BAND"

    /** INVALID_ARGUMENT: a party name that is not "parties/{party}". */
    public const val BAD_PARTY_NAME: String = "BAD_PARTY_NAME"

    /** NOT_FOUND: no such party, or one the caller is not in (not told apart), or one disbanded or forgotten. */
    public const val PARTY_NOT_FOUND: String = "PARTY_NOT_FOUND"

    /** PERMISSION_DENIED: only the party's leader invites players and queues the party. */
    public const val PARTY_LEADER_ONLY: String = "PARTY_LEADER_ONLY"

    /** PERMISSION_DENIED: no invitation of the caller's by that id in that party (another player's is not told apart). */
    public const val NOT_INVITED: String = "NOT_INVITED"

    /** FAILED_PRECONDITION: an invitation to a party accepted too late. */
    public const val INVITATION_EXPIRED: String = "INVITATION_EXPIRED"

    /** FAILED_PRECONDITION: an invitation to a party accepted before. */
    public const val INVITATION_USED: String = "INVITATION_USED"

    /** INVALID_ARGUMENT: an invitation for no player, the leader, or a member of the party already. */
    public const val BAD_INVITEE: String = "BAD_INVITEE"

    /** RESOURCE_EXHAUSTED: the party holds the most open invitations the server allows. */
    public const val TOO_MANY_INVITATIONS: String = "TOO_MANY_INVITATIONS"

    /** FAILED_PRECONDITION: the party holds the most players the server allows. */
    public const val PARTY_FULL: String = "PARTY_FULL"

    /** INVALID_ARGUMENT: a party with more players than the ticket's largest seat count. */
    public const val PARTY_TOO_LARGE: String = "PARTY_TOO_LARGE"

    /** FAILED_PRECONDITION: the party's ticket is live: players join and it queues again once that ticket ends. */
    public const val PARTY_QUEUED: String = "PARTY_QUEUED"

    /** FAILED_PRECONDITION: the player is in another party (one party at a time): leave it before creating or joining. */
    public const val IN_ANOTHER_PARTY: String = "IN_ANOTHER_PARTY"

    /** FAILED_PRECONDITION: the party's players changed while it queued: its ticket was cancelled, queue again. */
    public const val PARTY_CHANGED: String = "PARTY_CHANGED"

    /** INTERNAL: an error the server did not expect (logged once): a bug. */
    public const val INTERNAL: String = "INTERNAL"

    /** PERMISSION_DENIED: a seat's call made with a spectator's token. */
    public const val SPECTATOR_TOKEN: String = "SPECTATOR_TOKEN"

    /** INTERNAL: a watch message with no payload. */
    public const val EMPTY_WATCH_MESSAGE: String = "EMPTY_WATCH_MESSAGE"

    /** The status code (its gRPC name) each reason comes with. */
    public val CODES: Map<String, String> = mapOf(
        MATCH_OVER to "FAILED_PRECONDITION",
        SEAT_RESIGNED to "FAILED_PRECONDITION",
        NOT_YOUR_TURN to "FAILED_PRECONDITION",
        MUST_DRAW_FIRST to "FAILED_PRECONDITION",
        ALREADY_DREW to "FAILED_PRECONDITION",
        FIRST_TURN_HAS_NO_DRAW to "FAILED_PRECONDITION",
        STOCK_EMPTY to "FAILED_PRECONDITION",
        STOCK_NOT_EMPTY to "FAILED_PRECONDITION",
        DISCARD_PILE_EMPTY to "FAILED_PRECONDITION",
        TURN_OVER_NOT_ALLOWED to "FAILED_PRECONDITION",
        CANNOT_OPEN_WITH_DISCARD to "FAILED_PRECONDITION",
        MUST_OPEN_WITH_TAKEN_DISCARD to "FAILED_PRECONDITION",
        CARD_NOT_IN_HAND to "FAILED_PRECONDITION",
        INVALID_MELD to "FAILED_PRECONDITION",
        OPENING_BELOW_THRESHOLD to "FAILED_PRECONDITION",
        OPENING_NEEDS_PURE_RUN to "FAILED_PRECONDITION",
        NOT_OPENED to "FAILED_PRECONDITION",
        NO_LAYOFF_ON_OPENING_TURN to "FAILED_PRECONDITION",
        NO_SWAP_ON_OPENING_TURN to "FAILED_PRECONDITION",
        NO_SUCH_MELD to "FAILED_PRECONDITION",
        MELD_CLOSED to "FAILED_PRECONDITION",
        CANNOT_LAY_OFF to "FAILED_PRECONDITION",
        JOKER_SWAP_NOT_ALLOWED to "FAILED_PRECONDITION",
        NO_SUCH_JOKER to "FAILED_PRECONDITION",
        SWAP_NEEDS_NATURAL_CARD to "FAILED_PRECONDITION",
        JOKER_STANDS_FOR_OTHER_CARD to "FAILED_PRECONDITION",
        SWAPPED_JOKER_NOT_MELDED to "FAILED_PRECONDITION",
        SWAPPED_JOKER_CANNOT_BE_MELDED to "FAILED_PRECONDITION",
        LAST_CARD_MUST_BE_DISCARDED to "FAILED_PRECONDITION",
        CANNOT_DISCARD_TAKEN_CARD to "FAILED_PRECONDITION",
        CANNOT_DISCARD_TAKEN_TWIN to "FAILED_PRECONDITION",
        NOT_KNOCKING_PLAY to "FAILED_PRECONDITION",
        CANNOT_PASS to "FAILED_PRECONDITION",
        UPCARD_PASSED to "FAILED_PRECONDITION",
        TAKE_OR_PASS_UPCARD to "FAILED_PRECONDITION",
        WALL_REACHED to "FAILED_PRECONDITION",
        WALL_NEEDS_KNOCK to "FAILED_PRECONDITION",
        MUST_KNOCK to "FAILED_PRECONDITION",
        MELDS_ONLY_BY_KNOCKING to "FAILED_PRECONDITION",
        KNOCK_TOO_HIGH to "FAILED_PRECONDITION",
        BIG_GIN_NOT_ALLOWED to "FAILED_PRECONDITION",
        BIG_GIN_MELDS_ALL to "FAILED_PRECONDITION",
        DEFENDER_TO_PLAY to "FAILED_PRECONDITION",
        NO_LAYOFF_ON_GIN to "FAILED_PRECONDITION",
        LAYOFF_ONLY_ON_KNOCKERS_MELDS to "FAILED_PRECONDITION",
        NO_LAYOFF_AFTER_MELDS to "FAILED_PRECONDITION",
        NO_CARD_LEFT_TO_DISCARD to "FAILED_PRECONDITION",
        UNKNOWN_COMMAND to "INVALID_ARGUMENT",
        UNKNOWN_SEAT to "INVALID_ARGUMENT",
        UNKNOWN_CARD to "INVALID_ARGUMENT",
        DUPLICATE_CARD to "INVALID_ARGUMENT",
        BAD_END to "INVALID_ARGUMENT",
        NO_MELDS to "INVALID_ARGUMENT",
        BAD_FIELD to "INVALID_ARGUMENT",
        PLAYER_COUNT to "INVALID_ARGUMENT",
        BAD_PLAYER_NAME to "INVALID_ARGUMENT",
        BAD_SEED to "INVALID_ARGUMENT",
        BAD_DECK to "INVALID_ARGUMENT",
        DECK_TOO_SMALL to "INVALID_ARGUMENT",
        RECORD_FORMAT to "INVALID_ARGUMENT",
        RECORD_VERSION to "INVALID_ARGUMENT",
        RECORD_INCONSISTENT to "INVALID_ARGUMENT",
        BAD_CARD to "INVALID_ARGUMENT",
        TOO_MANY_COPIES to "INVALID_ARGUMENT",
        TOO_SHORT to "OK",
        SET_TOO_LONG to "OK",
        RUN_TOO_LONG to "OK",
        TOO_MANY_JOKERS to "OK",
        TOO_FEW_NATURALS to "OK",
        MIXED_SUITS to "OK",
        DUPLICATE_SUIT to "OK",
        GAP to "OK",
        WRAP_AROUND to "OK",
        OUT_OF_ORDER to "OK",
        ACE_HIGH_NOT_ALLOWED to "OK",
        JOKER_BEYOND_ACE to "OK",
        EMPTY_HAND to "INVALID_ARGUMENT",
        HAND_TOO_LARGE to "INVALID_ARGUMENT",
        BAD_TABLE_MELD to "INVALID_ARGUMENT",
        UNKNOWN_VARIANT to "INVALID_ARGUMENT",
        UNKNOWN_PARAMETER to "INVALID_ARGUMENT",
        BAD_PARAMETER to "INVALID_ARGUMENT",
        MALFORMED_REQUEST to "INVALID_ARGUMENT",
        BAD_REQUEST_ID to "INVALID_ARGUMENT",
        REQUEST_ID_REUSED to "INVALID_ARGUMENT",
        BAD_GAME_NAME to "INVALID_ARGUMENT",
        BAD_CARD_ID to "INVALID_ARGUMENT",
        BAD_MELD_INDEX to "INVALID_ARGUMENT",
        EMPTY_MELD to "INVALID_ARGUMENT",
        TOO_MANY_CARDS to "INVALID_ARGUMENT",
        BAD_PAGE_SIZE to "INVALID_ARGUMENT",
        SESSION_START to "INVALID_ARGUMENT",
        SESSION_GAME to "INVALID_ARGUMENT",
        SESSION_REQUEST_ID to "INVALID_ARGUMENT",
        SESSION_RESEND to "INVALID_ARGUMENT",
        AFTER_VERSION_OUT_OF_RANGE to "OUT_OF_RANGE",
        BAD_PAGE_TOKEN to "INVALID_ARGUMENT",
        BAD_HINT_LEVEL to "INVALID_ARGUMENT",
        NO_SEATS to "INVALID_ARGUMENT",
        ALL_BOT_GAME to "INVALID_ARGUMENT",
        BAD_BOT to "INVALID_ARGUMENT",
        BAD_TURN_TIMER to "INVALID_ARGUMENT",
        BAD_SEAT to "INVALID_ARGUMENT",
        CALLER_KEY_REQUIRED to "INVALID_ARGUMENT",
        NO_OPEN_SEAT to "FAILED_PRECONDITION",
        SEAT_TAKEN to "FAILED_PRECONDITION",
        ALREADY_SEATED to "FAILED_PRECONDITION",
        GAME_NOT_STARTED to "FAILED_PRECONDITION",
        GAME_FINISHED to "FAILED_PRECONDITION",
        GAME_NOT_FOUND to "NOT_FOUND",
        INVITE_NOT_VALID to "NOT_FOUND",
        BAD_VISIBILITY to "INVALID_ARGUMENT",
        RATED_NEEDS_PLAYERS to "FAILED_PRECONDITION",
        RATED_WITH_BOT to "INVALID_ARGUMENT",
        RATED_WITHOUT_TIMER to "INVALID_ARGUMENT",
        QUICK_PLAY_WITHOUT_TIMER to "INVALID_ARGUMENT",
        RATED_IN_PLAY to "FAILED_PRECONDITION",
        GAME_EXISTS to "ALREADY_EXISTS",
        VERSION_MISMATCH to "ABORTED",
        SPECTATING_DISABLED to "PERMISSION_DENIED",
        NO_SUCH_SEAT to "PERMISSION_DENIED",
        TOKEN_MISSING to "UNAUTHENTICATED",
        TOKEN_INVALID to "UNAUTHENTICATED",
        TOKEN_EXPIRED to "UNAUTHENTICATED",
        BAD_SEAT_CLAIM to "UNAUTHENTICATED",
        PLAYER_TOKEN_MISSING to "UNAUTHENTICATED",
        PLAYER_TOKEN_INVALID to "UNAUTHENTICATED",
        PLAYER_TOKEN_EXPIRED to "UNAUTHENTICATED",
        BAD_CALLER_KEY to "INVALID_ARGUMENT",
        WRONG_GAME to "PERMISSION_DENIED",
        WRONG_PLAYER to "PERMISSION_DENIED",
        NOT_CREATOR to "PERMISSION_DENIED",
        SEAT_NOT_BOUND to "PERMISSION_DENIED",
        CREATOR_NOT_BOUND to "PERMISSION_DENIED",
        REQUEST_TOO_LARGE to "RESOURCE_EXHAUSTED",
        TABLE_TOO_LARGE to "INVALID_ARGUMENT",
        MELD_TOO_LARGE to "INVALID_ARGUMENT",
        SERVER_BUSY to "RESOURCE_EXHAUSTED",
        SERVER_STREAMS_FULL to "RESOURCE_EXHAUSTED",
        TOO_MANY_CLIENT_STREAMS to "RESOURCE_EXHAUSTED",
        TOO_MANY_WATCHERS to "RESOURCE_EXHAUSTED",
        TOO_MANY_STREAMS to "RESOURCE_EXHAUSTED",
        WATCHER_TOO_SLOW to "RESOURCE_EXHAUSTED",
        WATCH_INTERRUPTED to "UNAVAILABLE",
        NOT_REPLICATED to "UNAVAILABLE",
        STORE_UNAVAILABLE to "UNAVAILABLE",
        SHARD_UNAVAILABLE to "UNAVAILABLE",
        BAD_SEAT_COUNTS to "INVALID_ARGUMENT",
        BAD_TICKET_PROPERTIES to "INVALID_ARGUMENT",
        BAD_BOUND_SEAT to "INVALID_ARGUMENT",
        TOO_MANY_TICKETS to "INVALID_ARGUMENT",
        TICKET_EXISTS to "ALREADY_EXISTS",
        TICKET_NOT_FOUND to "NOT_FOUND",
        PLAYER_REQUIRED to "INVALID_ARGUMENT",
        BAD_PAGE to "INVALID_ARGUMENT",
        BAD_TICKET_NAME to "INVALID_ARGUMENT",
        TOO_MANY_TICKET_STREAMS to "RESOURCE_EXHAUSTED",
        GAME_NOT_FINISHED to "FAILED_PRECONDITION",
        BAD_MATCH_CLAUSE to "INVALID_ARGUMENT",
        BAD_RATING_BAND to "INVALID_ARGUMENT",
        BAD_PARTY_NAME to "INVALID_ARGUMENT",
        PARTY_NOT_FOUND to "NOT_FOUND",
        PARTY_LEADER_ONLY to "PERMISSION_DENIED",
        NOT_INVITED to "PERMISSION_DENIED",
        INVITATION_EXPIRED to "FAILED_PRECONDITION",
        INVITATION_USED to "FAILED_PRECONDITION",
        BAD_INVITEE to "INVALID_ARGUMENT",
        TOO_MANY_INVITATIONS to "RESOURCE_EXHAUSTED",
        PARTY_FULL to "FAILED_PRECONDITION",
        PARTY_TOO_LARGE to "INVALID_ARGUMENT",
        PARTY_QUEUED to "FAILED_PRECONDITION",
        IN_ANOTHER_PARTY to "FAILED_PRECONDITION",
        PARTY_CHANGED to "FAILED_PRECONDITION",
        INTERNAL to "INTERNAL",
        SPECTATOR_TOKEN to "PERMISSION_DENIED",
        EMPTY_WATCH_MESSAGE to "INTERNAL",
    )

    /** A watch that ended with one of these is opened again after its last version. */
    internal val RESUMABLE_WATCH: Set<String> = setOf(WATCHER_TOO_SLOW, WATCH_INTERRUPTED)
}
