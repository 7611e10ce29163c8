"""Every reason Ramino gives, in one registry: its name, its gRPC status code
and what it means.

A reason is a stable, machine-readable UPPER_SNAKE string: clients and the
service branch on it, so a reason is never renamed or reused for another
rule. The service sends it as the ``reason`` of the status's
``google.rpc.ErrorInfo`` (or, for a meld that is not one, as
``ValidateMeldResponse.reason``); the SDKs' reason tables are generated from
this module (``make reasons``, ``backend/ramino_reasons.py``) and a test
fails when one is out of date. A new reason is one line here, then
``make reasons``.

The registry is the one source of the status code an error goes out with:
the service looks it up by the error's reason (:func:`code_of`), whatever
raised it.

The groups: :data:`ILLEGAL` are the reasons of
:class:`~ramino.engine.errors.IllegalMove` (a well-formed command the rules
forbid now), :data:`MALFORMED` those of
:class:`~ramino.engine.errors.MalformedCommand`, :data:`SETUP` and
:data:`RECORD` those of game creation and records; the kernel's own reasons
(cards, melds, hands, variants) come from the Rust core.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final


class Code(enum.StrEnum):
    """The gRPC status codes Ramino answers with, by their canonical names."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    ABORTED = "ABORTED"
    NOT_FOUND = "NOT_FOUND"
    ALREADY_EXISTS = "ALREADY_EXISTS"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    OUT_OF_RANGE = "OUT_OF_RANGE"
    UNAVAILABLE = "UNAVAILABLE"
    INTERNAL = "INTERNAL"
    OK = "OK"
    """Not a status: the reason is a field of a successful answer."""


@dataclass(frozen=True, slots=True)
class Reason:
    name: str
    code: Code
    """The status code it comes with."""
    meaning: str
    """One line: what the client asked that could not be."""
    group: str
    """Where it comes from: ``illegal``, ``malformed``, ``setup``, ``record``
    (the engine), ``kernel`` (the Rust core), ``service``, ``auth``,
    ``store``, ``limit``; ``sdk`` (raised by the SDKs themselves, never sent
    by the server)."""
    as_input: Code | None = None
    """The code it comes with when it is raised as bad input (a
    :class:`~ramino.errors.InputError`) rather than by its group: the kernel's
    hand search refuses a card to include that is not in the hand as
    INVALID_ARGUMENT, where the rules refuse a move of that card as
    FAILED_PRECONDITION."""


REGISTRY: dict[str, Reason] = {}
"""Every reason by name, in the order of this module."""


def _reason(name: str, code: Code, meaning: str, group: str, as_input: Code | None = None) -> str:
    if name in REGISTRY:
        raise ValueError(f"reason {name} is registered twice")
    REGISTRY[name] = Reason(name, code, meaning, group, as_input)
    return name


def _registrar(group: str, default: Code) -> Callable[..., str]:
    """The function that registers a reason of ``group`` (its code ``default``
    unless given)."""

    def register(
        name: str, meaning: str, code: Code = default, as_input: Code | None = None
    ) -> str:
        return _reason(name, code, meaning, group, as_input)

    return register


_illegal = _registrar("illegal", Code.FAILED_PRECONDITION)
_malformed = _registrar("malformed", Code.INVALID_ARGUMENT)
_setup = _registrar("setup", Code.INVALID_ARGUMENT)
_record = _registrar("record", Code.INVALID_ARGUMENT)
_kernel = _registrar("kernel", Code.INVALID_ARGUMENT)
_service = _registrar("service", Code.INVALID_ARGUMENT)
_auth = _registrar("auth", Code.UNAUTHENTICATED)
_limit = _registrar("limit", Code.RESOURCE_EXHAUSTED)
_store = _registrar("store", Code.UNAVAILABLE)
_match = _registrar("match", Code.INVALID_ARGUMENT)
_sdk = _registrar("sdk", Code.INTERNAL)

# --- illegal moves: the command is well formed, the rules refuse it now ---
MATCH_OVER: Final = _illegal("MATCH_OVER", "the match has ended")
SEAT_RESIGNED: Final = _illegal("SEAT_RESIGNED", "the seat has resigned")
NOT_YOUR_TURN: Final = _illegal("NOT_YOUR_TURN", "it is another seat's turn")
MUST_DRAW_FIRST: Final = _illegal("MUST_DRAW_FIRST", "draw before anything else this turn")
ALREADY_DREW: Final = _illegal("ALREADY_DREW", "the seat has drawn this turn already")
FIRST_TURN_HAS_NO_DRAW: Final = _illegal(
    "FIRST_TURN_HAS_NO_DRAW", "the first player's first turn has no draw"
)
STOCK_EMPTY: Final = _illegal("STOCK_EMPTY", "the stock is empty")
STOCK_NOT_EMPTY: Final = _illegal(
    "STOCK_NOT_EMPTY", "the discard pile is turned over only once the stock is empty"
)
DISCARD_PILE_EMPTY: Final = _illegal("DISCARD_PILE_EMPTY", "the discard pile is empty")
TURN_OVER_NOT_ALLOWED: Final = _illegal(
    "TURN_OVER_NOT_ALLOWED", "the variant reshuffles the discard pile or never turns it over"
)
CANNOT_OPEN_WITH_DISCARD: Final = _illegal(
    "CANNOT_OPEN_WITH_DISCARD", "the discard may not be taken to open"
)
MUST_OPEN_WITH_TAKEN_DISCARD: Final = _illegal(
    "MUST_OPEN_WITH_TAKEN_DISCARD",
    "a discard taken before opening must be melded in the opening this turn",
)
CARD_NOT_IN_HAND: Final = _illegal(
    "CARD_NOT_IN_HAND",
    "a card of the command is not in the seat's hand",
    as_input=Code.INVALID_ARGUMENT,
)
INVALID_MELD: Final = _illegal(
    "INVALID_MELD", "cards laid that are not a meld (the kernel's reason in the message)"
)
OPENING_BELOW_THRESHOLD: Final = _illegal(
    "OPENING_BELOW_THRESHOLD", "the opening melds are worth less than the variant's threshold"
)
OPENING_NEEDS_PURE_RUN: Final = _illegal(
    "OPENING_NEEDS_PURE_RUN", "the opening needs a run without jokers"
)
NOT_OPENED: Final = _illegal("NOT_OPENED", "the seat has not opened yet")
NO_LAYOFF_ON_OPENING_TURN: Final = _illegal(
    "NO_LAYOFF_ON_OPENING_TURN", "no laying off in the turn of the opening"
)
NO_SWAP_ON_OPENING_TURN: Final = _illegal(
    "NO_SWAP_ON_OPENING_TURN", "no joker swap in the turn of the opening"
)
NO_SUCH_MELD: Final = _illegal("NO_SUCH_MELD", "the table has no such meld")
MELD_CLOSED: Final = _illegal("MELD_CLOSED", "the meld is closed (a set of four)")
CANNOT_LAY_OFF: Final = _illegal("CANNOT_LAY_OFF", "the card does not extend that meld")
JOKER_SWAP_NOT_ALLOWED: Final = _illegal("JOKER_SWAP_NOT_ALLOWED", "the variant has no joker swaps")
NO_SUCH_JOKER: Final = _illegal("NO_SUCH_JOKER", "that meld has no joker there")
SWAP_NEEDS_NATURAL_CARD: Final = _illegal(
    "SWAP_NEEDS_NATURAL_CARD", "a joker is swapped for a natural card"
)
JOKER_STANDS_FOR_OTHER_CARD: Final = _illegal(
    "JOKER_STANDS_FOR_OTHER_CARD", "the joker stands for another card than the one offered"
)
SWAPPED_JOKER_NOT_MELDED: Final = _illegal(
    "SWAPPED_JOKER_NOT_MELDED", "a swapped joker goes into a new meld before anything else"
)
SWAPPED_JOKER_CANNOT_BE_MELDED: Final = _illegal(
    "SWAPPED_JOKER_CANNOT_BE_MELDED", "the joker could not be laid in a new meld this turn"
)
LAST_CARD_MUST_BE_DISCARDED: Final = _illegal(
    "LAST_CARD_MUST_BE_DISCARDED", "the last card of a hand goes out by a discard"
)
CANNOT_DISCARD_TAKEN_CARD: Final = _illegal(
    "CANNOT_DISCARD_TAKEN_CARD",
    "the card taken from the discard pile may not be discarded this turn",
)
CANNOT_DISCARD_TAKEN_TWIN: Final = _illegal(
    "CANNOT_DISCARD_TAKEN_TWIN", "nor may its twin from the other pack"
)
# knocking play (gin)
NOT_KNOCKING_PLAY: Final = _illegal("NOT_KNOCKING_PLAY", "the variant has no knocking")
CANNOT_PASS: Final = _illegal("CANNOT_PASS", "pass only on the first upcard or at the wall")
UPCARD_PASSED: Final = _illegal("UPCARD_PASSED", "both passed the upcard: draw from the stock")
TAKE_OR_PASS_UPCARD: Final = _illegal("TAKE_OR_PASS_UPCARD", "take the first upcard or pass")
WALL_REACHED: Final = _illegal(
    "WALL_REACHED", "the stock is at the wall: knock with the upcard or pass"
)
WALL_NEEDS_KNOCK: Final = _illegal(
    "WALL_NEEDS_KNOCK", "at the wall the upcard is taken only to knock"
)
MUST_KNOCK: Final = _illegal("MUST_KNOCK", "the upcard taken at the wall obliges a knock")
MELDS_ONLY_BY_KNOCKING: Final = _illegal(
    "MELDS_ONLY_BY_KNOCKING", "in knocking play melds are shown only by knocking"
)
KNOCK_TOO_HIGH: Final = _illegal("KNOCK_TOO_HIGH", "the deadwood is above the knock card")
BIG_GIN_NOT_ALLOWED: Final = _illegal("BIG_GIN_NOT_ALLOWED", "the variant has no big gin")
BIG_GIN_MELDS_ALL: Final = _illegal("BIG_GIN_MELDS_ALL", "big gin melds all eleven cards")
DEFENDER_TO_PLAY: Final = _illegal(
    "DEFENDER_TO_PLAY", "after a knock the defender lays off, melds or accepts the layout"
)
NO_LAYOFF_ON_GIN: Final = _illegal("NO_LAYOFF_ON_GIN", "no laying off on a gin hand")
LAYOFF_ONLY_ON_KNOCKERS_MELDS: Final = _illegal(
    "LAYOFF_ONLY_ON_KNOCKERS_MELDS", "the defender lays off on the knocker's melds only"
)
NO_LAYOFF_AFTER_MELDS: Final = _illegal(
    "NO_LAYOFF_AFTER_MELDS", "lay-offs come before the defender's own melds"
)
NO_CARD_LEFT_TO_DISCARD: Final = _illegal(
    "NO_CARD_LEFT_TO_DISCARD", "only the taken discard (or its twin) would be left to discard"
)

# --- malformed commands: wrong shape, unknown ids ---
UNKNOWN_COMMAND: Final = _malformed("UNKNOWN_COMMAND", "no such command")
UNKNOWN_SEAT: Final = _malformed("UNKNOWN_SEAT", "no such seat in the game")
UNKNOWN_CARD: Final = _malformed("UNKNOWN_CARD", "no such card")
DUPLICATE_CARD: Final = _malformed("DUPLICATE_CARD", "the same card twice in one command")
BAD_END: Final = _malformed("BAD_END", "a run's end that is neither its low nor its high end")
NO_MELDS: Final = _malformed("NO_MELDS", "a meld command without melds")
BAD_FIELD: Final = _malformed("BAD_FIELD", "a field of the wrong type or range")

# --- game creation ---
PLAYER_COUNT: Final = _setup("PLAYER_COUNT", "more or fewer players than the variant seats")
BAD_PLAYER_NAME: Final = _setup(
    "BAD_PLAYER_NAME", "a player name that is empty, too long or not printable"
)
BAD_SEED: Final = _setup("BAD_SEED", "a seed that is not an integer from 0 to 2**256 - 1")
BAD_DECK: Final = _setup("BAD_DECK", "a stacked deck or a deck token that is not the variant's")
DECK_TOO_SMALL: Final = _setup("DECK_TOO_SMALL", "too few cards to deal every seat")

# --- records ---
RECORD_FORMAT: Final = _record("RECORD_FORMAT", "a record that cannot be read")
RECORD_VERSION: Final = _record("RECORD_VERSION", "a record of an unknown format version")
RECORD_INCONSISTENT: Final = _record("RECORD_INCONSISTENT", "a record whose events do not replay")

# --- the kernel: cards, melds, hands, variants (Rust core) ---
BAD_CARD: Final = _kernel("BAD_CARD", "a card token that is not one (`AS`, `10H`, `JK`...)")
TOO_MANY_COPIES: Final = _kernel("TOO_MANY_COPIES", "more copies of a card than the deck holds")
TOO_SHORT: Final = _kernel("TOO_SHORT", "a meld of fewer than 3 cards", Code.OK)
SET_TOO_LONG: Final = _kernel("SET_TOO_LONG", "a set of more cards than it may hold", Code.OK)
RUN_TOO_LONG: Final = _kernel("RUN_TOO_LONG", "a run longer than ace to ace", Code.OK)
TOO_MANY_JOKERS: Final = _kernel(
    "TOO_MANY_JOKERS", "more jokers in a meld than the variant allows", Code.OK
)
TOO_FEW_NATURALS: Final = _kernel(
    "TOO_FEW_NATURALS", "too few natural cards beside the jokers", Code.OK
)
MIXED_SUITS: Final = _kernel("MIXED_SUITS", "a run of more than one suit", Code.OK)
DUPLICATE_SUIT: Final = _kernel("DUPLICATE_SUIT", "a set with a suit twice", Code.OK)
GAP: Final = _kernel("GAP", "a run with a gap no joker fills", Code.OK)
WRAP_AROUND: Final = _kernel("WRAP_AROUND", "a run that goes round the corner (K A 2)", Code.OK)
OUT_OF_ORDER: Final = _kernel("OUT_OF_ORDER", "a run's cards not in order", Code.OK)
ACE_HIGH_NOT_ALLOWED: Final = _kernel(
    "ACE_HIGH_NOT_ALLOWED", "an ace above the king, in a variant where aces are low", Code.OK
)
JOKER_BEYOND_ACE: Final = _kernel(
    "JOKER_BEYOND_ACE", "a joker standing for a card past the ace", Code.OK
)
EMPTY_HAND: Final = _kernel("EMPTY_HAND", "a search of no cards")
HAND_TOO_LARGE: Final = _kernel("HAND_TOO_LARGE", "a hand of more cards than the search takes")
BAD_TABLE_MELD: Final = _kernel("BAD_TABLE_MELD", "a table meld that is not a meld")
UNKNOWN_VARIANT: Final = _kernel("UNKNOWN_VARIANT", "no such variant")
UNKNOWN_PARAMETER: Final = _kernel("UNKNOWN_PARAMETER", "no such variant parameter")
BAD_PARAMETER: Final = _kernel("BAD_PARAMETER", "a variant parameter out of its type or range")

# --- the service: requests, lobby, games ---
MALFORMED_REQUEST: Final = _service("MALFORMED_REQUEST", "a request that does not decode")
BAD_REQUEST_ID: Final = _service("BAD_REQUEST_ID", "a request id that is too long")
REQUEST_ID_REUSED: Final = _service(
    "REQUEST_ID_REUSED", "a request id already used for another request"
)
BAD_GAME_NAME: Final = _service("BAD_GAME_NAME", 'a game name that is not "games/{game}"')
BAD_CARD_ID: Final = _service("BAD_CARD_ID", "no card has that id")
BAD_MELD_INDEX: Final = _service("BAD_MELD_INDEX", "no meld or joker has that index")
EMPTY_MELD: Final = _service("EMPTY_MELD", "a meld without card ids")
TOO_MANY_CARDS: Final = _service("TOO_MANY_CARDS", "more cards to lay than a hand holds")
BAD_PAGE_SIZE: Final = _service("BAD_PAGE_SIZE", "a negative page size")
SESSION_START: Final = _service(
    "SESSION_START", "a session opens with one start message, and only its first is one"
)
SESSION_GAME: Final = _service("SESSION_GAME", "a move on a session names another game")
SESSION_REQUEST_ID: Final = _service(
    "SESSION_REQUEST_ID", "a move on a session without a request id (its answer is matched by it)"
)
SESSION_RESEND: Final = _service(
    "SESSION_RESEND",
    "a session start whose resend names more than 16 ids, an id twice, or one too long",
)
AFTER_VERSION_OUT_OF_RANGE: Final = _service(
    "AFTER_VERSION_OUT_OF_RANGE",
    "after_version is negative or past the game's version",
    Code.OUT_OF_RANGE,
)
BAD_PAGE_TOKEN: Final = _service("BAD_PAGE_TOKEN", "a page token this server did not give")
BAD_HINT_LEVEL: Final = _service("BAD_HINT_LEVEL", "no such hint level")
NO_SEATS: Final = _service("NO_SEATS", "a game created with no seats")
ALL_BOT_GAME: Final = _service(
    "ALL_BOT_GAME", "a game of bots only, on a server that does not host them"
)
BAD_BOT: Final = _service("BAD_BOT", "no such bot")
BAD_TURN_TIMER: Final = _service("BAD_TURN_TIMER", "a turn timer out of range")
BAD_SEAT: Final = _service("BAD_SEAT", "the game has no such seat to join")
CALLER_KEY_REQUIRED: Final = _service(
    "CALLER_KEY_REQUIRED", "a request id without a caller key to scope it"
)
NO_OPEN_SEAT: Final = _service("NO_OPEN_SEAT", "every seat is taken", Code.FAILED_PRECONDITION)
SEAT_TAKEN: Final = _service("SEAT_TAKEN", "that seat is taken", Code.FAILED_PRECONDITION)
ALREADY_SEATED: Final = _service(
    "ALREADY_SEATED", "the player holds a seat of this game already", Code.FAILED_PRECONDITION
)
GAME_NOT_STARTED: Final = _service(
    "GAME_NOT_STARTED", "the game waits for its players", Code.FAILED_PRECONDITION
)
GAME_FINISHED: Final = _service("GAME_FINISHED", "the game has ended", Code.FAILED_PRECONDITION)
GAME_NOT_FOUND: Final = _service("GAME_NOT_FOUND", "no such game", Code.NOT_FOUND)
INVITE_NOT_VALID: Final = _service(
    "INVITE_NOT_VALID",
    "an invite code that opens no game (wrong, or its game was dealt or ended)",
    Code.NOT_FOUND,
)
BAD_VISIBILITY: Final = _service("BAD_VISIBILITY", "no such visibility")
RATED_NEEDS_PLAYERS: Final = _service(
    "RATED_NEEDS_PLAYERS",
    "a rated game on a server that does not know players",
    Code.FAILED_PRECONDITION,
)
RATED_WITH_BOT: Final = _service("RATED_WITH_BOT", "a rated game created with a bot seat")
RATED_WITHOUT_TIMER: Final = _service(
    "RATED_WITHOUT_TIMER", "a rated game created without a turn timer"
)
QUICK_PLAY_WITHOUT_TIMER: Final = _service(
    "QUICK_PLAY_WITHOUT_TIMER", "a table quick play may fill created without a turn timer"
)
RATED_IN_PLAY: Final = _service(
    "RATED_IN_PLAY",
    "a rated game cannot be cancelled once dealt (its players resign instead)",
    Code.FAILED_PRECONDITION,
)
GAME_EXISTS: Final = _service("GAME_EXISTS", "a game of that id exists", Code.ALREADY_EXISTS)
VERSION_MISMATCH: Final = _service(
    "VERSION_MISMATCH",
    "expected_version is not the game's version (metadata: expected, actual)",
    Code.ABORTED,
)
SPECTATING_DISABLED: Final = _service(
    "SPECTATING_DISABLED", "the game takes no spectators", Code.PERMISSION_DENIED
)
NO_SUCH_SEAT: Final = _service(
    "NO_SUCH_SEAT", "the token claims a seat the game does not have", Code.PERMISSION_DENIED
)

# --- tokens ---
TOKEN_MISSING: Final = _auth("TOKEN_MISSING", "the call needs a seat or creator token")
TOKEN_INVALID: Final = _auth("TOKEN_INVALID", "a token this server did not sign")
TOKEN_EXPIRED: Final = _auth("TOKEN_EXPIRED", "the token has expired")
BAD_SEAT_CLAIM: Final = _auth("BAD_SEAT_CLAIM", "a seat token whose claims are not a seat's")
PLAYER_TOKEN_MISSING: Final = _auth(
    "PLAYER_TOKEN_MISSING", "the server knows players: send the ramino-player-token"
)
PLAYER_TOKEN_INVALID: Final = _auth("PLAYER_TOKEN_INVALID", "a player token the host did not sign")
PLAYER_TOKEN_EXPIRED: Final = _auth("PLAYER_TOKEN_EXPIRED", "the player token has expired")
BAD_CALLER_KEY: Final = _auth(
    "BAD_CALLER_KEY", "a caller key that is empty or too long", Code.INVALID_ARGUMENT
)
WRONG_GAME: Final = _auth("WRONG_GAME", "the token is another game's", Code.PERMISSION_DENIED)
WRONG_PLAYER: Final = _auth("WRONG_PLAYER", "the token is another player's", Code.PERMISSION_DENIED)
NOT_CREATOR: Final = _auth(
    "NOT_CREATOR", "only the game's creator may do this", Code.PERMISSION_DENIED
)
SEAT_NOT_BOUND: Final = _auth(
    "SEAT_NOT_BOUND",
    "a seat token bound to no player, on a server that knows players",
    Code.PERMISSION_DENIED,
)
CREATOR_NOT_BOUND: Final = _auth(
    "CREATOR_NOT_BOUND",
    "a creator token bound to no player, on a server that knows players",
    Code.PERMISSION_DENIED,
)

# --- limits: too much at once ---
REQUEST_TOO_LARGE: Final = _limit("REQUEST_TOO_LARGE", "a request above the server's message size")
TABLE_TOO_LARGE: Final = _limit(
    "TABLE_TOO_LARGE", "a table of more melds than a game holds", Code.INVALID_ARGUMENT
)
MELD_TOO_LARGE: Final = _limit(
    "MELD_TOO_LARGE", "a meld of more cards than a game holds", Code.INVALID_ARGUMENT
)
SERVER_BUSY: Final = _limit("SERVER_BUSY", "the server's work pool is full: retry later")
SERVER_STREAMS_FULL: Final = _limit(
    "SERVER_STREAMS_FULL", "the server holds as many streams as its memory allows: retry later"
)
TOO_MANY_CLIENT_STREAMS: Final = _limit(
    "TOO_MANY_CLIENT_STREAMS",
    "the client's address or network holds its share of the server's streams",
)
TOO_MANY_WATCHERS: Final = _limit(
    "TOO_MANY_WATCHERS", "the game or the seat has as many watch streams as it may"
)
TOO_MANY_STREAMS: Final = _limit("TOO_MANY_STREAMS", "the connection has as many streams as it may")
WATCHER_TOO_SLOW: Final = _limit(
    "WATCHER_TOO_SLOW", "the watch fell too far behind: resume after its last version"
)
WATCH_INTERRUPTED: Final = _limit(
    "WATCH_INTERRUPTED",
    "following the game failed on the server: resume after its last version",
    Code.UNAVAILABLE,
)

# --- the store ---
NOT_REPLICATED: Final = _store(
    "NOT_REPLICATED", "a write not yet on the replicas asked for: retry with the request id"
)
STORE_UNAVAILABLE: Final = _store(
    "STORE_UNAVAILABLE", "the game store is out of reach: retry with the request id"
)
SHARD_UNAVAILABLE: Final = _store(
    "SHARD_UNAVAILABLE",
    "the store's node that holds the game is down and no replica can take its place: "
    "retry after the hint (RetryInfo) with the request id",
)

# --- quick play: tickets, the matchmaker, ratings and records ---
BAD_SEAT_COUNTS: Final = _match(
    "BAD_SEAT_COUNTS", "the acceptable seat counts are not a range the variant can deal"
)
BAD_TICKET_PROPERTIES: Final = _match(
    "BAD_TICKET_PROPERTIES", "too many ticket properties, or one too long or not printable"
)
BAD_BOUND_SEAT: Final = _match(
    "BAD_BOUND_SEAT", "a seat bound to a player at creation is a person's, with a name"
)
TOO_MANY_TICKETS: Final = _match(
    "TOO_MANY_TICKETS", "the player holds the most tickets the server allows at once"
)
TICKET_EXISTS: Final = _match(
    "TICKET_EXISTS",
    "a ticket id already held by another ticket (the store refuses a second one)",
    Code.ALREADY_EXISTS,
)
TICKET_NOT_FOUND: Final = _match(
    "TICKET_NOT_FOUND", "no such ticket, or another player's (not told apart)", Code.NOT_FOUND
)
PLAYER_REQUIRED: Final = _match(
    "PLAYER_REQUIRED", "quick play needs a verified player (the host's player token)"
)
BAD_PAGE: Final = _match("BAD_PAGE", "a leaderboard or history read with a bad page size or token")
BAD_TICKET_NAME: Final = _match("BAD_TICKET_NAME", 'a ticket name that is not "tickets/{ticket}"')
TOO_MANY_TICKET_STREAMS: Final = _match(
    "TOO_MANY_TICKET_STREAMS",
    "the player holds the most ticket streams a replica allows at once",
    Code.RESOURCE_EXHAUSTED,
)
GAME_NOT_FINISHED: Final = _match(
    "GAME_NOT_FINISHED",
    "a game's whole record is given once it has finished",
    Code.FAILED_PRECONDITION,
)
BAD_MATCH_CLAUSE: Final = _match(
    "BAD_MATCH_CLAUSE",
    "a ticket's clauses: too many, or one with no occur, a bad key, an empty or too long "
    "any_of, or a range without bounds, not finite or upside down",
)
BAD_RATING_BAND: Final = _match(
    "BAD_RATING_BAND", "a ticket's rating band that is negative or not a finite number"
)
BAD_PARTY_NAME: Final = _match("BAD_PARTY_NAME", 'a party name that is not "parties/{party}"')
PARTY_NOT_FOUND: Final = _match(
    "PARTY_NOT_FOUND",
    "no such party, or one the caller is not in (not told apart), or one disbanded or forgotten",
    Code.NOT_FOUND,
)
PARTY_LEADER_ONLY: Final = _match(
    "PARTY_LEADER_ONLY",
    "only the party's leader invites players and queues the party",
    Code.PERMISSION_DENIED,
)
NOT_INVITED: Final = _match(
    "NOT_INVITED",
    "no invitation of the caller's by that id in that party (another player's is not told apart)",
    Code.PERMISSION_DENIED,
)
INVITATION_EXPIRED: Final = _match(
    "INVITATION_EXPIRED", "an invitation to a party accepted too late", Code.FAILED_PRECONDITION
)
INVITATION_USED: Final = _match(
    "INVITATION_USED", "an invitation to a party accepted before", Code.FAILED_PRECONDITION
)
BAD_INVITEE: Final = _match(
    "BAD_INVITEE", "an invitation for no player, the leader, or a member of the party already"
)
TOO_MANY_INVITATIONS: Final = _match(
    "TOO_MANY_INVITATIONS",
    "the party holds the most open invitations the server allows",
    Code.RESOURCE_EXHAUSTED,
)
PARTY_FULL: Final = _match(
    "PARTY_FULL", "the party holds the most players the server allows", Code.FAILED_PRECONDITION
)
PARTY_TOO_LARGE: Final = _match(
    "PARTY_TOO_LARGE", "a party with more players than the ticket's largest seat count"
)
PARTY_QUEUED: Final = _match(
    "PARTY_QUEUED",
    "the party's ticket is live: players join and it queues again once that ticket ends",
    Code.FAILED_PRECONDITION,
)
IN_ANOTHER_PARTY: Final = _match(
    "IN_ANOTHER_PARTY",
    "the player is in another party (one party at a time): leave it before creating or joining",
    Code.FAILED_PRECONDITION,
)
PARTY_CHANGED: Final = _match(
    "PARTY_CHANGED",
    "the party's players changed while it queued: its ticket was cancelled, queue again",
    Code.FAILED_PRECONDITION,
)

# --- the unexpected ---
INTERNAL: Final = _service(
    "INTERNAL", "an error the server did not expect (logged once): a bug", Code.INTERNAL
)


# --- raised by the SDKs, never by the server ---
SPECTATOR_TOKEN: Final = _sdk(
    "SPECTATOR_TOKEN", "a seat's call made with a spectator's token", Code.PERMISSION_DENIED
)
EMPTY_WATCH_MESSAGE: Final = _sdk("EMPTY_WATCH_MESSAGE", "a watch message with no payload")


def _group(*names: str) -> frozenset[str]:
    return frozenset(r.name for r in REGISTRY.values() if r.group in names)


ILLEGAL: Final[frozenset[str]] = _group("illegal")
MALFORMED: Final[frozenset[str]] = _group("malformed")
SETUP: Final[frozenset[str]] = _group("setup")
RECORD: Final[frozenset[str]] = _group("record")
ALL: Final[frozenset[str]] = frozenset(REGISTRY)
RESUMABLE_WATCH: Final[frozenset[str]] = frozenset({WATCHER_TOO_SLOW, WATCH_INTERRUPTED})
"""Reasons that end a watch stream which a resume (``after_version``) continues."""


def code_of(reason: str, *, as_input: bool = False) -> Code:
    """The status code an error of ``reason`` goes out with: the registered
    one, or its :attr:`Reason.as_input` code when it was raised as bad input
    (``as_input``) and has one. INTERNAL for a reason not registered: an
    error that gives one is a bug."""
    registered = REGISTRY.get(reason)
    if registered is None:
        return Code.INTERNAL
    if as_input and registered.as_input is not None:
        return registered.as_input
    return registered.code
