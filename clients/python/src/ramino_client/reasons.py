"""The server's reasons (ErrorInfo ``reason``). Generated from service/ramino/reasons.py by backend/ramino_reasons.py (make reasons): do not edit."""

from __future__ import annotations

from typing import Final

MATCH_OVER: Final = "MATCH_OVER"
"""FAILED_PRECONDITION: the match has ended."""
SEAT_RESIGNED: Final = "SEAT_RESIGNED"
"""FAILED_PRECONDITION: the seat has resigned."""
NOT_YOUR_TURN: Final = "NOT_YOUR_TURN"
"""FAILED_PRECONDITION: it is another seat's turn."""
MUST_DRAW_FIRST: Final = "MUST_DRAW_FIRST"
"""FAILED_PRECONDITION: draw before anything else this turn."""
ALREADY_DREW: Final = "ALREADY_DREW"
"""FAILED_PRECONDITION: the seat has drawn this turn already."""
FIRST_TURN_HAS_NO_DRAW: Final = "FIRST_TURN_HAS_NO_DRAW"
"""FAILED_PRECONDITION: the first player's first turn has no draw."""
STOCK_EMPTY: Final = "STOCK_EMPTY"
"""FAILED_PRECONDITION: the stock is empty."""
STOCK_NOT_EMPTY: Final = "STOCK_NOT_EMPTY"
"""FAILED_PRECONDITION: the discard pile is turned over only once the stock is empty."""
DISCARD_PILE_EMPTY: Final = "DISCARD_PILE_EMPTY"
"""FAILED_PRECONDITION: the discard pile is empty."""
TURN_OVER_NOT_ALLOWED: Final = "TURN_OVER_NOT_ALLOWED"
"""FAILED_PRECONDITION: the variant reshuffles the discard pile or never turns it over."""
CANNOT_OPEN_WITH_DISCARD: Final = "CANNOT_OPEN_WITH_DISCARD"
"""FAILED_PRECONDITION: the discard may not be taken to open."""
MUST_OPEN_WITH_TAKEN_DISCARD: Final = "MUST_OPEN_WITH_TAKEN_DISCARD"
"""FAILED_PRECONDITION: a discard taken before opening must be melded in the opening this turn."""
CARD_NOT_IN_HAND: Final = "CARD_NOT_IN_HAND"
"""FAILED_PRECONDITION: a card of the command is not in the seat's hand."""
INVALID_MELD: Final = "INVALID_MELD"
"""FAILED_PRECONDITION: cards laid that are not a meld (the kernel's reason in the message)."""
OPENING_BELOW_THRESHOLD: Final = "OPENING_BELOW_THRESHOLD"
"""FAILED_PRECONDITION: the opening melds are worth less than the variant's threshold."""
OPENING_NEEDS_PURE_RUN: Final = "OPENING_NEEDS_PURE_RUN"
"""FAILED_PRECONDITION: the opening needs a run without jokers."""
NOT_OPENED: Final = "NOT_OPENED"
"""FAILED_PRECONDITION: the seat has not opened yet."""
NO_LAYOFF_ON_OPENING_TURN: Final = "NO_LAYOFF_ON_OPENING_TURN"
"""FAILED_PRECONDITION: no laying off in the turn of the opening."""
NO_SWAP_ON_OPENING_TURN: Final = "NO_SWAP_ON_OPENING_TURN"
"""FAILED_PRECONDITION: no joker swap in the turn of the opening."""
NO_SUCH_MELD: Final = "NO_SUCH_MELD"
"""FAILED_PRECONDITION: the table has no such meld."""
MELD_CLOSED: Final = "MELD_CLOSED"
"""FAILED_PRECONDITION: the meld is closed (a set of four)."""
CANNOT_LAY_OFF: Final = "CANNOT_LAY_OFF"
"""FAILED_PRECONDITION: the card does not extend that meld."""
JOKER_SWAP_NOT_ALLOWED: Final = "JOKER_SWAP_NOT_ALLOWED"
"""FAILED_PRECONDITION: the variant has no joker swaps."""
NO_SUCH_JOKER: Final = "NO_SUCH_JOKER"
"""FAILED_PRECONDITION: that meld has no joker there."""
SWAP_NEEDS_NATURAL_CARD: Final = "SWAP_NEEDS_NATURAL_CARD"
"""FAILED_PRECONDITION: a joker is swapped for a natural card."""
JOKER_STANDS_FOR_OTHER_CARD: Final = "JOKER_STANDS_FOR_OTHER_CARD"
"""FAILED_PRECONDITION: the joker stands for another card than the one offered."""
SWAPPED_JOKER_NOT_MELDED: Final = "SWAPPED_JOKER_NOT_MELDED"
"""FAILED_PRECONDITION: a swapped joker goes into a new meld before anything else."""
SWAPPED_JOKER_CANNOT_BE_MELDED: Final = "SWAPPED_JOKER_CANNOT_BE_MELDED"
"""FAILED_PRECONDITION: the joker could not be laid in a new meld this turn."""
LAST_CARD_MUST_BE_DISCARDED: Final = "LAST_CARD_MUST_BE_DISCARDED"
"""FAILED_PRECONDITION: the last card of a hand goes out by a discard."""
CANNOT_DISCARD_TAKEN_CARD: Final = "CANNOT_DISCARD_TAKEN_CARD"
"""FAILED_PRECONDITION: the card taken from the discard pile may not be discarded this turn."""
CANNOT_DISCARD_TAKEN_TWIN: Final = "CANNOT_DISCARD_TAKEN_TWIN"
"""FAILED_PRECONDITION: nor may its twin from the other pack."""
NOT_KNOCKING_PLAY: Final = "NOT_KNOCKING_PLAY"
"""FAILED_PRECONDITION: the variant has no knocking."""
CANNOT_PASS: Final = "CANNOT_PASS"
"""FAILED_PRECONDITION: pass only on the first upcard or at the wall."""
UPCARD_PASSED: Final = "UPCARD_PASSED"
"""FAILED_PRECONDITION: both passed the upcard: draw from the stock."""
TAKE_OR_PASS_UPCARD: Final = "TAKE_OR_PASS_UPCARD"
"""FAILED_PRECONDITION: take the first upcard or pass."""
WALL_REACHED: Final = "WALL_REACHED"
"""FAILED_PRECONDITION: the stock is at the wall: knock with the upcard or pass."""
WALL_NEEDS_KNOCK: Final = "WALL_NEEDS_KNOCK"
"""FAILED_PRECONDITION: at the wall the upcard is taken only to knock."""
MUST_KNOCK: Final = "MUST_KNOCK"
"""FAILED_PRECONDITION: the upcard taken at the wall obliges a knock."""
MELDS_ONLY_BY_KNOCKING: Final = "MELDS_ONLY_BY_KNOCKING"
"""FAILED_PRECONDITION: in knocking play melds are shown only by knocking."""
KNOCK_TOO_HIGH: Final = "KNOCK_TOO_HIGH"
"""FAILED_PRECONDITION: the deadwood is above the knock card."""
BIG_GIN_NOT_ALLOWED: Final = "BIG_GIN_NOT_ALLOWED"
"""FAILED_PRECONDITION: the variant has no big gin."""
BIG_GIN_MELDS_ALL: Final = "BIG_GIN_MELDS_ALL"
"""FAILED_PRECONDITION: big gin melds all eleven cards."""
DEFENDER_TO_PLAY: Final = "DEFENDER_TO_PLAY"
"""FAILED_PRECONDITION: after a knock the defender lays off, melds or accepts the layout."""
NO_LAYOFF_ON_GIN: Final = "NO_LAYOFF_ON_GIN"
"""FAILED_PRECONDITION: no laying off on a gin hand."""
LAYOFF_ONLY_ON_KNOCKERS_MELDS: Final = "LAYOFF_ONLY_ON_KNOCKERS_MELDS"
"""FAILED_PRECONDITION: the defender lays off on the knocker's melds only."""
NO_LAYOFF_AFTER_MELDS: Final = "NO_LAYOFF_AFTER_MELDS"
"""FAILED_PRECONDITION: lay-offs come before the defender's own melds."""
NO_CARD_LEFT_TO_DISCARD: Final = "NO_CARD_LEFT_TO_DISCARD"
"""FAILED_PRECONDITION: only the taken discard (or its twin) would be left to discard."""
UNKNOWN_COMMAND: Final = "UNKNOWN_COMMAND"
"""INVALID_ARGUMENT: no such command."""
UNKNOWN_SEAT: Final = "UNKNOWN_SEAT"
"""INVALID_ARGUMENT: no such seat in the game."""
UNKNOWN_CARD: Final = "UNKNOWN_CARD"
"""INVALID_ARGUMENT: no such card."""
DUPLICATE_CARD: Final = "DUPLICATE_CARD"
"""INVALID_ARGUMENT: the same card twice in one command."""
BAD_END: Final = "BAD_END"
"""INVALID_ARGUMENT: a run's end that is neither its low nor its high end."""
NO_MELDS: Final = "NO_MELDS"
"""INVALID_ARGUMENT: a meld command without melds."""
BAD_FIELD: Final = "BAD_FIELD"
"""INVALID_ARGUMENT: a field of the wrong type or range."""
PLAYER_COUNT: Final = "PLAYER_COUNT"
"""INVALID_ARGUMENT: more or fewer players than the variant seats."""
BAD_PLAYER_NAME: Final = "BAD_PLAYER_NAME"
"""INVALID_ARGUMENT: a player name that is empty, too long or not printable."""
BAD_SEED: Final = "BAD_SEED"
"""INVALID_ARGUMENT: a seed that is not an integer from 0 to 2**256 - 1."""
BAD_DECK: Final = "BAD_DECK"
"""INVALID_ARGUMENT: a stacked deck or a deck token that is not the variant's."""
DECK_TOO_SMALL: Final = "DECK_TOO_SMALL"
"""INVALID_ARGUMENT: too few cards to deal every seat."""
RECORD_FORMAT: Final = "RECORD_FORMAT"
"""INVALID_ARGUMENT: a record that cannot be read."""
RECORD_VERSION: Final = "RECORD_VERSION"
"""INVALID_ARGUMENT: a record of an unknown format version."""
RECORD_INCONSISTENT: Final = "RECORD_INCONSISTENT"
"""INVALID_ARGUMENT: a record whose events do not replay."""
BAD_CARD: Final = "BAD_CARD"
"""INVALID_ARGUMENT: a card token that is not one (`AS`, `10H`, `JK`...)."""
TOO_MANY_COPIES: Final = "TOO_MANY_COPIES"
"""INVALID_ARGUMENT: more copies of a card than the deck holds."""
TOO_SHORT: Final = "TOO_SHORT"
"""a meld of fewer than 3 cards."""
SET_TOO_LONG: Final = "SET_TOO_LONG"
"""a set of more cards than it may hold."""
RUN_TOO_LONG: Final = "RUN_TOO_LONG"
"""a run longer than ace to ace."""
TOO_MANY_JOKERS: Final = "TOO_MANY_JOKERS"
"""more jokers in a meld than the variant allows."""
TOO_FEW_NATURALS: Final = "TOO_FEW_NATURALS"
"""too few natural cards beside the jokers."""
MIXED_SUITS: Final = "MIXED_SUITS"
"""a run of more than one suit."""
DUPLICATE_SUIT: Final = "DUPLICATE_SUIT"
"""a set with a suit twice."""
GAP: Final = "GAP"
"""a run with a gap no joker fills."""
WRAP_AROUND: Final = "WRAP_AROUND"
"""a run that goes round the corner (K A 2)."""
OUT_OF_ORDER: Final = "OUT_OF_ORDER"
"""a run's cards not in order."""
ACE_HIGH_NOT_ALLOWED: Final = "ACE_HIGH_NOT_ALLOWED"
"""an ace above the king, in a variant where aces are low."""
JOKER_BEYOND_ACE: Final = "JOKER_BEYOND_ACE"
"""a joker standing for a card past the ace."""
EMPTY_HAND: Final = "EMPTY_HAND"
"""INVALID_ARGUMENT: a search of no cards."""
HAND_TOO_LARGE: Final = "HAND_TOO_LARGE"
"""INVALID_ARGUMENT: a hand of more cards than the search takes."""
BAD_TABLE_MELD: Final = "BAD_TABLE_MELD"
"""INVALID_ARGUMENT: a table meld that is not a meld."""
UNKNOWN_VARIANT: Final = "UNKNOWN_VARIANT"
"""INVALID_ARGUMENT: no such variant."""
UNKNOWN_PARAMETER: Final = "UNKNOWN_PARAMETER"
"""INVALID_ARGUMENT: no such variant parameter."""
BAD_PARAMETER: Final = "BAD_PARAMETER"
"""INVALID_ARGUMENT: a variant parameter out of its type or range."""
MALFORMED_REQUEST: Final = "MALFORMED_REQUEST"
"""INVALID_ARGUMENT: a request that does not decode."""
BAD_REQUEST_ID: Final = "BAD_REQUEST_ID"
"""INVALID_ARGUMENT: a request id that is too long."""
REQUEST_ID_REUSED: Final = "REQUEST_ID_REUSED"
"""INVALID_ARGUMENT: a request id already used for another request."""
BAD_GAME_NAME: Final = "BAD_GAME_NAME"
"""INVALID_ARGUMENT: a game name that is not "games/{game}"."""
BAD_CARD_ID: Final = "BAD_CARD_ID"
"""INVALID_ARGUMENT: no card has that id."""
BAD_MELD_INDEX: Final = "BAD_MELD_INDEX"
"""INVALID_ARGUMENT: no meld or joker has that index."""
EMPTY_MELD: Final = "EMPTY_MELD"
"""INVALID_ARGUMENT: a meld without card ids."""
TOO_MANY_CARDS: Final = "TOO_MANY_CARDS"
"""INVALID_ARGUMENT: more cards to lay than a hand holds."""
BAD_PAGE_SIZE: Final = "BAD_PAGE_SIZE"
"""INVALID_ARGUMENT: a negative page size."""
SESSION_START: Final = "SESSION_START"
"""INVALID_ARGUMENT: a session opens with one start message, and only its first is one."""
SESSION_GAME: Final = "SESSION_GAME"
"""INVALID_ARGUMENT: a move on a session names another game."""
SESSION_REQUEST_ID: Final = "SESSION_REQUEST_ID"
"""INVALID_ARGUMENT: a move on a session without a request id (its answer is matched by it)."""
SESSION_RESEND: Final = "SESSION_RESEND"
"""INVALID_ARGUMENT: a session start whose resend names more than 16 ids, an id twice, or one too long."""
AFTER_VERSION_OUT_OF_RANGE: Final = "AFTER_VERSION_OUT_OF_RANGE"
"""OUT_OF_RANGE: after_version is negative or past the game's version."""
BAD_PAGE_TOKEN: Final = "BAD_PAGE_TOKEN"
"""INVALID_ARGUMENT: a page token this server did not give."""
BAD_HINT_LEVEL: Final = "BAD_HINT_LEVEL"
"""INVALID_ARGUMENT: no such hint level."""
NO_SEATS: Final = "NO_SEATS"
"""INVALID_ARGUMENT: a game created with no seats."""
ALL_BOT_GAME: Final = "ALL_BOT_GAME"
"""INVALID_ARGUMENT: a game of bots only, on a server that does not host them."""
BAD_BOT: Final = "BAD_BOT"
"""INVALID_ARGUMENT: no such bot."""
BAD_TURN_TIMER: Final = "BAD_TURN_TIMER"
"""INVALID_ARGUMENT: a turn timer out of range."""
BAD_SEAT: Final = "BAD_SEAT"
"""INVALID_ARGUMENT: the game has no such seat to join."""
CALLER_KEY_REQUIRED: Final = "CALLER_KEY_REQUIRED"
"""INVALID_ARGUMENT: a request id without a caller key to scope it."""
NO_OPEN_SEAT: Final = "NO_OPEN_SEAT"
"""FAILED_PRECONDITION: every seat is taken."""
SEAT_TAKEN: Final = "SEAT_TAKEN"
"""FAILED_PRECONDITION: that seat is taken."""
ALREADY_SEATED: Final = "ALREADY_SEATED"
"""FAILED_PRECONDITION: the player holds a seat of this game already."""
GAME_NOT_STARTED: Final = "GAME_NOT_STARTED"
"""FAILED_PRECONDITION: the game waits for its players."""
GAME_FINISHED: Final = "GAME_FINISHED"
"""FAILED_PRECONDITION: the game has ended."""
GAME_NOT_FOUND: Final = "GAME_NOT_FOUND"
"""NOT_FOUND: no such game."""
INVITE_NOT_VALID: Final = "INVITE_NOT_VALID"
"""NOT_FOUND: an invite code that opens no game (wrong, or its game was dealt or ended)."""
BAD_VISIBILITY: Final = "BAD_VISIBILITY"
"""INVALID_ARGUMENT: no such visibility."""
RATED_NEEDS_PLAYERS: Final = "RATED_NEEDS_PLAYERS"
"""FAILED_PRECONDITION: a rated game on a server that does not know players."""
RATED_WITH_BOT: Final = "RATED_WITH_BOT"
"""INVALID_ARGUMENT: a rated game created with a bot seat."""
RATED_WITHOUT_TIMER: Final = "RATED_WITHOUT_TIMER"
"""INVALID_ARGUMENT: a rated game created without a turn timer."""
QUICK_PLAY_WITHOUT_TIMER: Final = "QUICK_PLAY_WITHOUT_TIMER"
"""INVALID_ARGUMENT: a table quick play may fill created without a turn timer."""
RATED_IN_PLAY: Final = "RATED_IN_PLAY"
"""FAILED_PRECONDITION: a rated game cannot be cancelled once dealt (its players resign instead)."""
GAME_EXISTS: Final = "GAME_EXISTS"
"""ALREADY_EXISTS: a game of that id exists."""
VERSION_MISMATCH: Final = "VERSION_MISMATCH"
"""ABORTED: expected_version is not the game's version (metadata: expected, actual)."""
SPECTATING_DISABLED: Final = "SPECTATING_DISABLED"
"""PERMISSION_DENIED: the game takes no spectators."""
NO_SUCH_SEAT: Final = "NO_SUCH_SEAT"
"""PERMISSION_DENIED: the token claims a seat the game does not have."""
TOKEN_MISSING: Final = "TOKEN_MISSING"
"""UNAUTHENTICATED: the call needs a seat or creator token."""
TOKEN_INVALID: Final = "TOKEN_INVALID"
"""UNAUTHENTICATED: a token this server did not sign."""
TOKEN_EXPIRED: Final = "TOKEN_EXPIRED"
"""UNAUTHENTICATED: the token has expired."""
BAD_SEAT_CLAIM: Final = "BAD_SEAT_CLAIM"
"""UNAUTHENTICATED: a seat token whose claims are not a seat's."""
PLAYER_TOKEN_MISSING: Final = "PLAYER_TOKEN_MISSING"
"""UNAUTHENTICATED: the server knows players: send the ramino-player-token."""
PLAYER_TOKEN_INVALID: Final = "PLAYER_TOKEN_INVALID"
"""UNAUTHENTICATED: a player token the host did not sign."""
PLAYER_TOKEN_EXPIRED: Final = "PLAYER_TOKEN_EXPIRED"
"""UNAUTHENTICATED: the player token has expired."""
BAD_CALLER_KEY: Final = "BAD_CALLER_KEY"
"""INVALID_ARGUMENT: a caller key that is empty or too long."""
WRONG_GAME: Final = "WRONG_GAME"
"""PERMISSION_DENIED: the token is another game's."""
WRONG_PLAYER: Final = "WRONG_PLAYER"
"""PERMISSION_DENIED: the token is another player's."""
NOT_CREATOR: Final = "NOT_CREATOR"
"""PERMISSION_DENIED: only the game's creator may do this."""
SEAT_NOT_BOUND: Final = "SEAT_NOT_BOUND"
"""PERMISSION_DENIED: a seat token bound to no player, on a server that knows players."""
CREATOR_NOT_BOUND: Final = "CREATOR_NOT_BOUND"
"""PERMISSION_DENIED: a creator token bound to no player, on a server that knows players."""
REQUEST_TOO_LARGE: Final = "REQUEST_TOO_LARGE"
"""RESOURCE_EXHAUSTED: a request above the server's message size."""
TABLE_TOO_LARGE: Final = "TABLE_TOO_LARGE"
"""INVALID_ARGUMENT: a table of more melds than a game holds."""
MELD_TOO_LARGE: Final = "MELD_TOO_LARGE"
"""INVALID_ARGUMENT: a meld of more cards than a game holds."""
SERVER_BUSY: Final = "SERVER_BUSY"
"""RESOURCE_EXHAUSTED: the server's work pool is full: retry later."""
SERVER_STREAMS_FULL: Final = "SERVER_STREAMS_FULL"
"""RESOURCE_EXHAUSTED: the server holds as many streams as its memory allows: retry later."""
TOO_MANY_CLIENT_STREAMS: Final = "TOO_MANY_CLIENT_STREAMS"
"""RESOURCE_EXHAUSTED: the client's address or network holds its share of the server's streams."""
TOO_MANY_WATCHERS: Final = "TOO_MANY_WATCHERS"
"""RESOURCE_EXHAUSTED: the game or the seat has as many watch streams as it may."""
TOO_MANY_STREAMS: Final = "TOO_MANY_STREAMS"
"""RESOURCE_EXHAUSTED: the connection has as many streams as it may."""
WATCHER_TOO_SLOW: Final = "WATCHER_TOO_SLOW"
"""RESOURCE_EXHAUSTED: the watch fell too far behind: resume after its last version."""
WATCH_INTERRUPTED: Final = "WATCH_INTERRUPTED"
"""UNAVAILABLE: following the game failed on the server: resume after its last version."""
NOT_REPLICATED: Final = "NOT_REPLICATED"
"""UNAVAILABLE: a write not yet on the replicas asked for: retry with the request id."""
STORE_UNAVAILABLE: Final = "STORE_UNAVAILABLE"
"""UNAVAILABLE: the game store is out of reach: retry with the request id."""
SHARD_UNAVAILABLE: Final = "SHARD_UNAVAILABLE"
"""UNAVAILABLE: the store's node that holds the game is down and no replica can take its place: retry after the hint (RetryInfo) with the request id."""
BAD_SEAT_COUNTS: Final = "BAD_SEAT_COUNTS"
"""INVALID_ARGUMENT: the acceptable seat counts are not a range the variant can deal."""
BAD_TICKET_PROPERTIES: Final = "BAD_TICKET_PROPERTIES"
"""INVALID_ARGUMENT: too many ticket properties, or one too long or not printable."""
BAD_BOUND_SEAT: Final = "BAD_BOUND_SEAT"
"""INVALID_ARGUMENT: a seat bound to a player at creation is a person's, with a name."""
TOO_MANY_TICKETS: Final = "TOO_MANY_TICKETS"
"""INVALID_ARGUMENT: the player holds the most tickets the server allows at once."""
TICKET_EXISTS: Final = "TICKET_EXISTS"
"""ALREADY_EXISTS: a ticket id already held by another ticket (the store refuses a second one)."""
TICKET_NOT_FOUND: Final = "TICKET_NOT_FOUND"
"""NOT_FOUND: no such ticket, or another player's (not told apart)."""
PLAYER_REQUIRED: Final = "PLAYER_REQUIRED"
"""INVALID_ARGUMENT: quick play needs a verified player (the host's player token)."""
BAD_PAGE: Final = "BAD_PAGE"
"""INVALID_ARGUMENT: a leaderboard or history read with a bad page size or token."""
BAD_TICKET_NAME: Final = "BAD_TICKET_NAME"
"""INVALID_ARGUMENT: a ticket name that is not "tickets/{ticket}"."""
TOO_MANY_TICKET_STREAMS: Final = "TOO_MANY_TICKET_STREAMS"
"""RESOURCE_EXHAUSTED: the player holds the most ticket streams a replica allows at once."""
GAME_NOT_FINISHED: Final = "GAME_NOT_FINISHED"
"""FAILED_PRECONDITION: a game's whole record is given once it has finished."""
BAD_MATCH_CLAUSE: Final = "BAD_MATCH_CLAUSE"
"""INVALID_ARGUMENT: a ticket's clauses: too many, or one with no occur, a bad key, an empty or too long any_of, or a range without bounds, not finite or upside down."""
BAD_RATING_BAND: Final = "BAD_RATING_BAND"
"""INVALID_ARGUMENT: a ticket's rating band that is negative or not a finite number."""
BAD_PARTY_NAME: Final = "BAD_PARTY_NAME"
"""INVALID_ARGUMENT: a party name that is not "parties/{party}"."""
PARTY_NOT_FOUND: Final = "PARTY_NOT_FOUND"
"""NOT_FOUND: no such party, or one the caller is not in (not told apart), or one disbanded or forgotten."""
PARTY_LEADER_ONLY: Final = "PARTY_LEADER_ONLY"
"""PERMISSION_DENIED: only the party's leader invites players and queues the party."""
NOT_INVITED: Final = "NOT_INVITED"
"""PERMISSION_DENIED: no invitation of the caller's by that id in that party (another player's is not told apart)."""
INVITATION_EXPIRED: Final = "INVITATION_EXPIRED"
"""FAILED_PRECONDITION: an invitation to a party accepted too late."""
INVITATION_USED: Final = "INVITATION_USED"
"""FAILED_PRECONDITION: an invitation to a party accepted before."""
BAD_INVITEE: Final = "BAD_INVITEE"
"""INVALID_ARGUMENT: an invitation for no player, the leader, or a member of the party already."""
TOO_MANY_INVITATIONS: Final = "TOO_MANY_INVITATIONS"
"""RESOURCE_EXHAUSTED: the party holds the most open invitations the server allows."""
PARTY_FULL: Final = "PARTY_FULL"
"""FAILED_PRECONDITION: the party holds the most players the server allows."""
PARTY_TOO_LARGE: Final = "PARTY_TOO_LARGE"
"""INVALID_ARGUMENT: a party with more players than the ticket's largest seat count."""
PARTY_QUEUED: Final = "PARTY_QUEUED"
"""FAILED_PRECONDITION: the party's ticket is live: players join and it queues again once that ticket ends."""
IN_ANOTHER_PARTY: Final = "IN_ANOTHER_PARTY"
"""FAILED_PRECONDITION: the player is in another party (one party at a time): leave it before creating or joining."""
PARTY_CHANGED: Final = "PARTY_CHANGED"
"""FAILED_PRECONDITION: the party's players changed while it queued: its ticket was cancelled, queue again."""
INTERNAL: Final = "INTERNAL"
"""INTERNAL: an error the server did not expect (logged once): a bug."""
SPECTATOR_TOKEN: Final = "SPECTATOR_TOKEN"
"""PERMISSION_DENIED: a seat's call made with a spectator's token."""
EMPTY_WATCH_MESSAGE: Final = "EMPTY_WATCH_MESSAGE"
"""INTERNAL: a watch message with no payload."""

CODES: Final[dict[str, str]] = {
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
}
"""The status code (its gRPC name) each reason comes with."""

RESUMABLE_WATCH: Final[frozenset[str]] = frozenset({
    WATCHER_TOO_SLOW,
    WATCH_INTERRUPTED,
})
"""Reasons that end a watch stream which a resume continues."""
