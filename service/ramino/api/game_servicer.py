"""GameService: decodes requests, authenticates the seat, calls the
application layer, and encodes what the caller may see. No rule is decided
here."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

import ramino
from ramino import logs, reasons
from ramino.api import convert
from ramino.api.auth import (
    CALLER_KEY,
    PLAYER_TOKEN_KEY,
    PlayerVerifier,
    SeatClaim,
    TokenIssuer,
    bearer,
    caller_scope,
    metadata_value,
)
from ramino.api.errors import ApiError
from ramino.api.events import event_message, watch_event, watch_events
from ramino.api.interceptors import Context
from ramino.app import GameApp, HostedGame, SeatSpec, WatchItem
from ramino.app.fanout import Encode, EncodeBatch
from ramino.app.log import Header
from ramino.app.outcomes import Hint, LegalMoves, MoveOutcome
from ramino.engine import (
    AcceptLayout,
    Command,
    Discard,
    DrawFromStock,
    Event,
    Knock,
    LayMelds,
    LayOff,
    PassUpcard,
    Resign,
    RoundEnded,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
    View,
)
from ramino.engine.access import check_seat, check_spectator
from ramino.errors import excerpt
from ramino.store import GameSummary, RequestRecord
from ramino.store.base import fingerprint
from ramino.v1 import game_pb2, game_pb2_grpc, types_pb2

BOTS = convert.BOTS
BOT_LEVELS = convert.BOT_LEVELS
STATUSES = {
    "waiting": game_pb2.GAME_STATUS_WAITING,
    "playing": game_pb2.GAME_STATUS_PLAYING,
    "finished": game_pb2.GAME_STATUS_FINISHED,
}
STATUS_NAMES = {v: k for k, v in STATUSES.items()}
PHASES = {
    "draw": game_pb2.TURN_PHASE_DRAW,
    "play": game_pb2.TURN_PHASE_PLAY,
    "layoff": game_pb2.TURN_PHASE_LAYOFF,
}
R = TypeVar("R")
MAX_CARD_ID = 1 << 10
MAX_REQUEST_ID = 128


def request_hash(request_id: str) -> str:
    """What the logs show of a request id: a short hash, never the id."""
    return hashlib.sha256(request_id.encode()).hexdigest()[:12]


def check_request_id(request_id: str) -> None:
    if len(request_id) > MAX_REQUEST_ID:
        raise convert.invalid(
            reasons.BAD_REQUEST_ID, f"a request id is at most {MAX_REQUEST_ID} characters"
        )


def request_record(request: Any, method: str, scope: str) -> RequestRecord | None:
    """The record of ``request``'s request id (None without one): scoped to
    the caller, the method, and the request's fingerprint (its deterministic
    serialization, request id cleared)."""
    if not request.request_id:
        return None
    request_id = request.request_id
    request.request_id = ""  # (cleared for the fingerprint, and set again: no copy made)
    try:
        printed = fingerprint(request.SerializeToString(deterministic=True))
    finally:
        request.request_id = request_id
    return RequestRecord(request_id, scope, method, printed)


def game_id_of(name: str) -> str:
    prefix, _, game_id = name.partition("/")
    if prefix != "games" or not game_id or not game_id.isalnum() or len(game_id) > 64:
        raise convert.invalid(
            reasons.BAD_GAME_NAME, f'a game name is "games/{{game}}", not {excerpt(name)}'
        )
    return game_id


_timestamp = convert.timestamp


def game_message(summary: GameSummary) -> game_pb2.Game:
    extra = summary.extra
    return game_pb2.Game(
        name=f"games/{summary.game_id}",
        variant=summary.variant,
        status=STATUSES[summary.status],
        seats=[
            game_pb2.SeatSummary(
                seat=i,
                player_name=s["name"],
                bot=BOT_LEVELS.get(s["bot"], game_pb2.BOT_LEVEL_UNSPECIFIED),
                taken=s["taken"],
            )
            for i, s in enumerate(extra.get("seats", []))
        ],
        open_seats=summary.open_seats,
        version=summary.version,
        seed_hash=extra.get("seed_hash", ""),
        turn_timer_seconds=extra.get("turn_timer_seconds", 0),
        create_time=_timestamp(summary.created_at),
        spectators_disabled=bool(extra.get("spectators_disabled", False)),
        fixed_deal=bool(extra.get("fixed_deal", False)),
    )


@dataclass(frozen=True)
class GameVariant:
    """A game's variant and its Variant messages, built once per set of
    parameters (``key``): ``named`` its name only (a move's answer), ``full``
    with its parameters (snapshots)."""

    key: str
    variant: ramino.Variant
    named: types_pb2.Variant
    full: types_pb2.Variant


MAX_VARIANTS = 256
"""Distinct sets of parameters kept built (the least recently used go)."""
_VARIANTS: OrderedDict[str, GameVariant] = OrderedDict()
MAX_PIECES = 50_000
"""Messages kept built for reuse (cards, table melds, hint melds): the
pieces of a game in play come back on the next move, so a cleared cache
fills again at once."""
_CARDS: dict[tuple[str, int | None], types_pb2.Card] = {}
_TABLE: dict[tuple[str, int, int, tuple[int, ...]], game_pb2.TableMeld] = {}
_MELDS: dict[tuple[str, tuple[str, ...]], types_pb2.Meld] = {}


def _bounded(cache: dict[Any, Any]) -> dict[Any, Any]:
    if len(cache) >= MAX_PIECES:
        cache.clear()
    return cache


_BY_HEADER: dict[int, tuple[Header, GameVariant]] = {}
"""Each game header's GameVariant, by the header's identity (a header is
never changed): its key is not formatted again on every answer."""


def game_variant(game: HostedGame) -> GameVariant:
    h = game.header
    known = _BY_HEADER.get(id(h))
    if known is not None and known[0] is h:
        return known[1]
    found = _game_variant(h)
    _bounded(_BY_HEADER)[id(h)] = (h, found)
    return found


def _game_variant(h: Header) -> GameVariant:
    key = f"{h.variant}:{sorted(h.overrides.items())}"
    found = _VARIANTS.get(key)
    if found is not None:
        _VARIANTS.move_to_end(key)
        return found
    variant = ramino.Variant(h.variant, **h.overrides)
    found = _VARIANTS[key] = GameVariant(
        key,
        variant,
        convert.variant_message(variant, with_parameters=False),
        convert.variant_message(variant),
    )
    while len(_VARIANTS) > MAX_VARIANTS:
        _VARIANTS.popitem(last=False)
    return found


def card_message(code: str, card_id: int | None) -> types_pb2.Card:
    """The Card message of ``code`` (with ``card_id``), built once."""
    key = (code, card_id)
    found = _CARDS.get(key)
    if found is None:
        found = _bounded(_CARDS)[key] = convert.card(code, card_id)
    return found


def _table_meld(
    info: GameVariant, index: int, owner: int, codes: tuple[str, ...], ids: tuple[int, ...]
) -> game_pb2.TableMeld:
    key = (info.key, index, owner, ids)
    found = _TABLE.get(key)
    if found is None:
        meld = convert.meld(ramino.validate_meld(list(codes), info.variant), ids)
        found = _bounded(_TABLE)[key] = game_pb2.TableMeld(index=index, owner=owner, meld=meld)
    return found


# The pieces of a GameView's repeated fields, each as its field's encoding
# (tag, length, message): a view's hand, table and discard pile are their
# pieces joined and parsed in one call, several times cheaper than
# extending the repeated fields message by message (each one a copy).
_HAND_FIELDS: dict[tuple[str, int], bytes] = {}
_PILE_FIELDS: dict[tuple[str, int], bytes] = {}
_TABLE_FIELDS: dict[tuple[str, int, int, tuple[int, ...]], bytes] = {}
_ROUND_FIELDS: dict[tuple[int, str, int | None, tuple[int, ...]], bytes] = {}


def _card_field(cache: dict[tuple[str, int], bytes], field: str, code: str, card_id: int) -> bytes:
    """A GameView's ``field`` (``hand`` or ``discard_pile``) holding one card, encoded."""
    piece = game_pb2.GameView()
    getattr(piece, field).append(card_message(code, card_id))
    found: bytes = piece.SerializeToString()
    _bounded(cache)[code, card_id] = found
    return found


def _round_field(r: RoundEnded) -> bytes:
    """A GameView's ``rounds`` holding one round's scores, encoded."""
    scores = game_pb2.RoundScores(round=r.round, scores=list(r.scores), ending=r.ending)
    if r.winner is not None:
        scores.winner = r.winner
    found: bytes = game_pb2.GameView(rounds=[scores]).SerializeToString()
    _bounded(_ROUND_FIELDS)[r.round, r.ending, r.winner, r.scores] = found
    return found


def _table_field(
    info: GameVariant, index: int, owner: int, ids: tuple[int, ...], deck: Sequence[str]
) -> bytes:
    """A GameView's ``table`` holding one meld (cards by id in ``deck``), encoded."""
    key = (info.key, index, owner, ids)
    found = _TABLE_FIELDS.get(key)
    if found is None:
        piece = game_pb2.GameView()
        piece.table.append(_table_meld(info, index, owner, tuple(deck[c] for c in ids), ids))
        found = _bounded(_TABLE_FIELDS)[key] = piece.SerializeToString()
    return found


def hint_meld(info: GameVariant, codes: tuple[str, ...]) -> types_pb2.Meld:
    """A meld of a hint (its cards without ids), built once per variant."""
    key = (info.key, codes)
    found = _MELDS.get(key)
    if found is None:
        found = _bounded(_MELDS)[key] = convert.meld(
            ramino.validate_meld(list(codes), info.variant)
        )
    return found


def view_message(
    game: HostedGame,
    viewer: int | None,
    with_deck: bool = False,
    view: View | None = None,
    into: game_pb2.GameView | None = None,
) -> game_pb2.GameView:
    """The GameView of ``game`` for ``viewer`` (None: a spectator); with
    ``with_deck`` (a snapshot) also the deck and the variant's parameters;
    ``view`` is the engine's view for ``viewer`` when the caller has it;
    ``into``: an empty GameView to fill (a move's answer builds its view in
    place rather than copying one in)."""
    h = game.header
    info = game_variant(game)
    msg = game_pb2.GameView() if into is None else into
    msg.name = f"games/{h.game_id}"
    msg.version = game.version
    msg.status = STATUSES[game.status]
    msg.variant.CopyFrom(info.full if with_deck else info.named)
    msg.seed_hash = h.seed_hash
    msg.turn_timer_seconds = h.turn_timer_seconds
    msg.phase = game_pb2.TURN_PHASE_NONE
    msg.spectators_disabled = h.spectators_disabled
    msg.end_reason = game.ended or ""
    msg.fixed_deal = h.fixed_deal
    if viewer is not None:
        msg.seat = viewer
    engine = game.engine
    # Each SeatView added in place (no message built apart and copied in).
    players, timed_out = game.players, game.timed_out
    seats = [
        msg.seats.add(
            seat=i,
            player_name=players[i] or "",
            bot=BOT_LEVELS.get(s.bot or "", game_pb2.BOT_LEVEL_UNSPECIFIED),
            taken=players[i] is not None,
            timed_out=i in timed_out,
        )
        for i, s in enumerate(h.seats)
    ]
    if engine is None:
        return msg
    if view is None:
        view = engine.view(viewer)
    deck = view.deck
    if with_deck:
        msg.deck.extend(deck)
    for sv, s in zip(seats, view.seats, strict=True):
        sv.hand_size, sv.opened, sv.total, sv.resigned = s.hand_size, s.opened, s.total, s.resigned
    msg.stock_size = view.stock_size
    msg.round = view.round
    msg.dealer = view.dealer
    if view.turn is not None and game.ended is None:
        msg.turn = view.turn
        msg.phase = PHASES.get(view.phase, game_pb2.TURN_PHASE_NONE)
        if h.turn_timer_seconds and h.seats[view.turn].bot is None:
            msg.turn_deadline.CopyFrom(_timestamp(game.last_at + h.turn_timer_seconds))
    rounds = _ROUND_FIELDS
    parts = [
        rounds.get((r.round, r.ending, r.winner, r.scores)) or _round_field(r) for r in view.results
    ]
    if view.knocker is not None:
        msg.knocker = view.knocker
    if engine.finished:
        msg.seed = str(h.seed)
        msg.winners.extend(view.winners)
    hand, pile = _HAND_FIELDS, _PILE_FIELDS
    parts.extend(
        hand.get((deck[c], c)) or _card_field(hand, "hand", deck[c], c) for c in view.hand or ()
    )
    parts.extend(_table_field(info, m.index, m.owner, m.cards, deck) for m in view.melds)
    parts.extend(
        pile.get((deck[c], c)) or _card_field(pile, "discard_pile", deck[c], c)
        for c in view.discard_pile
    )
    if parts:
        msg.MergeFromString(b"".join(parts))
    return msg


def engine_events(
    events: Sequence[Event], viewer: int | None, last_version: int
) -> list[game_pb2.GameEvent]:
    """The engine's ``events`` as ``viewer`` sees them, GameEvents whose
    versions end at ``last_version``."""
    first = last_version - len(events) + 1
    return [event_message(first + i, e, viewer) for i, e in enumerate(events)]


def legal_messages(
    info: GameVariant, legal: LegalMoves
) -> tuple[list[game_pb2.Move], game_pb2.Hint | None]:
    """The moves and the hint of ``legal`` as messages."""
    moves = [legal_move(cmd, value) for cmd, value in legal.moves]
    hint = None if legal.hint is None else hint_message(info, legal.hint)
    return moves, hint


def legal_move(cmd: Command, value: int) -> game_pb2.Move:
    """A legal move as its Move, with its value (a LayMelds' meld value, a
    Knock's deadwood)."""
    move = move_message(cmd)
    if isinstance(cmd, LayMelds):
        move.lay_melds.value = value
    elif isinstance(cmd, Knock):
        move.knock.deadwood = value
    return move


_LEGAL_FIELDS: dict[tuple[Command, int], bytes] = {}
"""A MoveResult's ``legal_moves`` holding one move, encoded, by command and value."""


def legal_moves_field(legal: LegalMoves) -> bytes:
    """The ``legal_moves`` of a MoveResult, encoded (joined from each move's
    encoding, kept: the same moves come back move after move)."""
    cache = _LEGAL_FIELDS
    parts = []
    for key in legal.moves:
        found = cache.get(key)
        if found is None:
            piece = game_pb2.MoveResult(legal_moves=[legal_move(*key)])
            found = _bounded(cache)[key] = piece.SerializeToString()
        parts.append(found)
    return b"".join(parts)


_HINT_MELD_FIELDS: dict[tuple[type[Any], str, tuple[str, ...]], bytes] = {}
_DEADWOOD_CARD_FIELDS: dict[str, bytes] = {}


def _hint_meld_field(kind: type[Any], info: GameVariant, codes: tuple[str, ...]) -> bytes:
    """The ``melds`` of an Opening or a Deadwood (``kind``) holding one meld, encoded."""
    key = (kind, info.key, codes)
    found = _HINT_MELD_FIELDS.get(key)
    if found is None:
        piece = kind(melds=[hint_meld(info, codes)])
        found = _bounded(_HINT_MELD_FIELDS)[key] = piece.SerializeToString()
    return found


def _deadwood_card_field(code: str) -> bytes:
    """A Deadwood's ``deadwood`` holding one card, encoded."""
    found: bytes = types_pb2.Deadwood(deadwood=[card_message(code, None)]).SerializeToString()
    _bounded(_DEADWOOD_CARD_FIELDS)[code] = found
    return found


def hint_message(info: GameVariant, hint: Hint, into: game_pb2.Hint | None = None) -> game_pb2.Hint:
    """The Hint message: the best opening while the seat has not opened,
    the minimum deadwood, the discard to make, and gin's best knock
    (``into``: an empty Hint to fill)."""
    msg = game_pb2.Hint() if into is None else into
    if hint.opening is not None:
        msg.best_opening.value = hint.opening.value
        msg.best_opening.MergeFromString(
            b"".join(
                _hint_meld_field(types_pb2.Opening, info, tuple(m)) for m in hint.opening.melds
            )
        )
    deadwood = hint.deadwood
    msg.min_deadwood.value = deadwood.value
    cards = _DEADWOOD_CARD_FIELDS
    msg.min_deadwood.MergeFromString(
        b"".join(
            [
                *(_hint_meld_field(types_pb2.Deadwood, info, tuple(m)) for m in deadwood.melds),
                *(cards.get(c) or _deadwood_card_field(c) for c in deadwood.deadwood),
            ]
        )
    )
    msg.suggested_discard.CopyFrom(card_message(*hint.discard))
    if hint.knock is not None:
        knock, value = hint.knock
        msg.best_knock.CopyFrom(knock_move(knock))
        msg.best_knock.deadwood = value
    return msg


class MoveResultCodec:
    """A move's answer is its RPC's response, whose ``result`` is the
    MoveResult (an :class:`AnswerCodec`): the events as the mover sees them,
    its view, and while the turn is still its own its legal moves and the
    hint. The response is built in place (no copy of the result into it),
    and what is kept for a retry is the MoveResult's bytes."""

    def __init__(self, response: type[Any]) -> None:
        self._response = response

    def answer(self, outcome: MoveOutcome) -> Any:
        game, seat = outcome.game, outcome.seat
        response = self._response()
        result = response.result
        events = result.events
        first = game.version - len(outcome.events) + 1
        for i, e in enumerate(outcome.events):
            event_message(first + i, e, seat, into=events.add())
        view_message(game, seat, view=outcome.view, into=result.view)
        legal = outcome.legal
        if legal is not None:
            result.MergeFromString(legal_moves_field(legal))
            if legal.hint is not None:
                hint_message(game_variant(game), legal.hint, into=result.hint)
        return response

    def dump(self, answer: Any) -> bytes:
        return bytes(answer.result.SerializeToString())

    def load(self, data: bytes) -> Any:
        response = self._response()
        response.result.MergeFromString(data)
        return response


MOVE_RESPONSES = (
    game_pb2.DrawFromStockResponse,
    game_pb2.TakeDiscardResponse,
    game_pb2.TurnOverDiscardPileResponse,
    game_pb2.LayMeldsResponse,
    game_pb2.LayOffResponse,
    game_pb2.SwapJokerResponse,
    game_pb2.DiscardResponse,
    game_pb2.ResignResponse,
    game_pb2.PassUpcardResponse,
    game_pb2.KnockResponse,
    game_pb2.AcceptLayoutResponse,
)
MOVE_RESULTS: dict[type[Any], MoveResultCodec] = {r: MoveResultCodec(r) for r in MOVE_RESPONSES}
"""Each move RPC's codec, by its response type."""


def _card_id(value: int) -> int:
    if not 0 <= value < MAX_CARD_ID:
        raise convert.invalid(reasons.BAD_CARD_ID, f"no card has id {value}")
    return value


def _index(value: int, what: str) -> int:
    if not 0 <= value < MAX_CARD_ID:
        raise convert.invalid(reasons.BAD_MELD_INDEX, f"no {what} {value}")
    return value


def move_message(cmd: Command) -> game_pb2.Move:
    """A command as the Move a client sends back (a LayMelds' value and a
    Knock's deadwood are set by who knows the hand)."""
    match cmd:
        case DrawFromStock():
            return game_pb2.Move(draw_from_stock=game_pb2.DrawFromStockMove())
        case TakeDiscard():
            return game_pb2.Move(take_discard=game_pb2.TakeDiscardMove())
        case TurnOverDiscardPile():
            return game_pb2.Move(turn_over_discard_pile=game_pb2.TurnOverDiscardPileMove())
        case LayMelds(melds=melds):
            return game_pb2.Move(
                lay_melds=game_pb2.LayMeldsMove(
                    melds=[game_pb2.MeldCardIds(card_ids=list(m)) for m in melds]
                )
            )
        case LayOff(card=card, meld=meld, end=end):
            return game_pb2.Move(
                lay_off=game_pb2.LayOffMove(
                    card_id=card, meld_index=meld, end=convert.end_value(end)
                )
            )
        case SwapJoker(card=card, meld=meld, joker=joker):
            return game_pb2.Move(
                swap_joker=game_pb2.SwapJokerMove(card_id=card, meld_index=meld, joker_id=joker)
            )
        case Discard(card=card):
            return game_pb2.Move(discard=game_pb2.DiscardMove(card_id=card))
        case Resign():
            return game_pb2.Move(resign=game_pb2.ResignMove())
        case PassUpcard():
            return game_pb2.Move(pass_upcard=game_pb2.PassUpcardMove())
        case Knock():
            return game_pb2.Move(knock=knock_move(cmd))
        case AcceptLayout():
            return game_pb2.Move(accept_layout=game_pb2.AcceptLayoutMove())
    raise AssertionError(f"unknown command {cmd!r}")


def knock_move(cmd: Knock) -> game_pb2.KnockMove:
    """A knock as a move (its ``deadwood`` is set by who knows the hand)."""
    move = game_pb2.KnockMove(melds=[game_pb2.MeldCardIds(card_ids=list(m)) for m in cmd.melds])
    if cmd.discard is not None:
        move.discard_card_id = cmd.discard
    return move


class GameServicer(game_pb2_grpc.GameServiceServicer):
    def __init__(
        self,
        app: GameApp,
        tokens: TokenIssuer,
        players: PlayerVerifier | None = None,
        max_streams_per_connection: int = 100,
    ) -> None:
        """``players``: the verifier of the host's player tokens; with it,
        lobby calls need a player token and seat tokens are bound to it. The
        searches of large hands run in the app's work pool."""
        tokens.refuse_shared_secret(players)
        self.app = app
        self.tokens = tokens
        self.players = players
        self.max_streams_per_connection = max_streams_per_connection
        self._streams: dict[str, int] = {}
        """Open watch streams by connection (the peer's address and port)."""
        self.encode_event: Encode = watch_event
        """What a watch stream sends of an event, made once per viewer class."""
        self.encode_events: EncodeBatch = watch_events
        """What a spectator's stream that takes batches sends of its events."""

    def drain(self) -> None:
        """The server stops: end the watch streams now, not at the grace's end."""
        self.app.begin_shutdown()

    async def close(self) -> None:
        await self.app.close()

    # --- auth -------------------------------------------------------------------

    def _player(self, context: Context) -> str:
        """The verified player of the call (servers that know players)."""
        assert self.players is not None
        token = metadata_value(context.invocation_metadata(), PLAYER_TOKEN_KEY)
        if not token:
            raise ApiError(
                grpc.StatusCode.UNAUTHENTICATED,
                reasons.PLAYER_TOKEN_MISSING,
                f"this server knows players: send your player token in the "
                f"{PLAYER_TOKEN_KEY} metadata",
            )
        return self.players.verify(token.removeprefix("Bearer ").strip())

    def _claim(self, context: Context) -> SeatClaim | None:
        token = bearer(context.invocation_metadata())
        if token is None:
            return None
        claim = self.tokens.verify(token)
        self._beside_player(
            context,
            claim.player,
            "seat",
            reasons.SEAT_NOT_BOUND,
            "this seat token is bound to no player: join again",
        )
        return claim

    def _beside_player(
        self, context: Context, player: str | None, kind: str, unbound: str, why: str
    ) -> None:
        """On servers that know players, a token of ``kind`` (seat, creator)
        acts only beside its player's own token: else PERMISSION_DENIED,
        ``unbound`` (with ``why``) for a token bound to no player."""
        if self.players is None:
            return
        if player is None:
            raise ApiError(grpc.StatusCode.PERMISSION_DENIED, unbound, why)
        if self._player(context) != player:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                reasons.WRONG_PLAYER,
                f"this {kind} token belongs to another player",
            )

    def _claimed(self, context: Context, game_id: str) -> SeatClaim:
        """The seat the caller's token acts for in ``game_id``."""
        claim = self._claim(context)
        if claim is None:
            raise ApiError(
                grpc.StatusCode.UNAUTHENTICATED,
                reasons.TOKEN_MISSING,
                "moves need a seat token in the authorization metadata",
            )
        if claim.game_id != game_id:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                reasons.WRONG_GAME,
                "this seat token is for another game",
            )
        logs.bind_context(seat=claim.seat)
        return claim

    def _seat(self, context: Context, game_id: str) -> int:
        return self._claimed(context, game_id).seat

    def _viewer(self, context: Context, game_id: str) -> int | None:
        """The caller's seat, or None for a spectator (no token)."""
        claim = self._claim(context)
        if claim is None:
            return None
        if claim.game_id != game_id:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                reasons.WRONG_GAME,
                "this seat token is for another game",
            )
        return claim.seat

    @staticmethod
    def _in_game(game: HostedGame, seat: int | None) -> None:
        """Refuses a seat claim (signed, so ours) the game has no seat for."""
        if seat is not None:
            check_seat(seat, len(game.players))

    def _caller(self, context: Context, request_id: str) -> tuple[str, str | None]:
        """The request-id scope of a lobby call, and its verified player.

        With players known, the scope is the player. Else an anonymous
        caller's key (the ``ramino-caller-key`` metadata) is the scope; a
        request id without one is refused, since anyone could replay it."""
        if self.players is not None:
            player = self._player(context)
            return f"player:{player}", player
        key = metadata_value(context.invocation_metadata(), CALLER_KEY)
        if key is not None:
            return caller_scope(key), None
        if request_id:
            raise ApiError(
                grpc.StatusCode.INVALID_ARGUMENT,
                reasons.CALLER_KEY_REQUIRED,
                f"a request id on CreateGame or JoinGame needs the caller's own key in "
                f"the {CALLER_KEY} metadata (a random secret the client keeps), so that "
                "only the caller gets the first answer again",
            )
        return "", None

    @staticmethod
    def _bind(game_id: str, request_id: str = "") -> None:
        logs.bind_context(
            game=game_id, request_hash=request_hash(request_id) if request_id else None
        )

    # --- lobby ------------------------------------------------------------------

    async def CreateGame(  # noqa: N802
        self, request: game_pb2.CreateGameRequest, context: Context
    ) -> game_pb2.CreateGameResponse:
        check_request_id(request.request_id)
        if request.request_id:
            logs.bind_context(request_hash=request_hash(request.request_id))
        scope, player = self._caller(context, request.request_id)
        seats = [SeatSpec(s.player_name.strip(), BOTS.get(s.bot)) for s in request.seats]
        game = await self.app.create(
            convert.preset(request.variant),
            convert.overrides(request.overrides),
            seats,
            request.turn_timer_seconds,
            request_record(request, "CreateGame", scope),
            spectators_disabled=request.spectators_disabled,
        )
        self._bind(game.game_id)
        return game_pb2.CreateGameResponse(
            game=game_message(self.app.summary(game)),
            creator_token=self.tokens.issue_creator(game.game_id, player=player),
        )

    async def CancelGame(  # noqa: N802
        self, request: game_pb2.CancelGameRequest, context: Context
    ) -> game_pb2.CancelGameResponse:
        game_id = game_id_of(request.name)
        self._bind(game_id)
        token = bearer(context.invocation_metadata())
        if token is None:
            raise ApiError(
                grpc.StatusCode.UNAUTHENTICATED,
                reasons.TOKEN_MISSING,
                "cancelling needs the creator token in the authorization metadata",
            )
        claim = self.tokens.verify_creator(token)
        if claim.game_id != game_id:
            raise ApiError(
                grpc.StatusCode.PERMISSION_DENIED,
                reasons.WRONG_GAME,
                "this creator token is for another game",
            )
        self._beside_player(
            context,
            claim.player,
            "creator",
            reasons.CREATOR_NOT_BOUND,
            "this creator token is bound to no player (made before creator tokens were "
            "bound): it cannot cancel on a server that knows players",
        )
        game = await self.app.cancel(game_id)
        return game_pb2.CancelGameResponse(view=view_message(game, None, with_deck=True))

    async def JoinGame(  # noqa: N802
        self, request: game_pb2.JoinGameRequest, context: Context
    ) -> game_pb2.JoinGameResponse:
        check_request_id(request.request_id)
        game_id = game_id_of(request.name)
        self._bind(game_id, request.request_id)
        scope, player = self._caller(context, request.request_id)
        seat = request.seat if request.HasField("seat") else None
        game, taken = await self.app.join(
            game_id,
            seat,
            request.player_name,
            request_record(request, "JoinGame", scope),
            player,
        )
        logs.bind_context(seat=taken)
        return game_pb2.JoinGameResponse(
            seat=taken,
            seat_token=self.tokens.issue(game_id, taken, player=player),
            view=view_message(game, taken, with_deck=True),
        )

    async def GetGame(  # noqa: N802
        self, request: game_pb2.GetGameRequest, context: Context
    ) -> game_pb2.GetGameResponse:
        game_id = game_id_of(request.name)
        self._bind(game_id)
        viewer = self._viewer(context, game_id)
        game = await self.app.load(game_id)
        self._in_game(game, viewer)
        check_spectator(viewer, game.header.spectators_disabled)
        return game_pb2.GetGameResponse(view=view_message(game, viewer, with_deck=True))

    async def ListGames(  # noqa: N802
        self, request: game_pb2.ListGamesRequest, context: Context
    ) -> game_pb2.ListGamesResponse:
        if request.page_size < 0:
            raise convert.invalid(reasons.BAD_PAGE_SIZE, "page_size cannot be negative")
        page = await self.app.list_games(
            request.page_size,
            request.page_token,
            request.variant,
            STATUS_NAMES.get(request.status, ""),
            request.open_seats_only,
        )
        return game_pb2.ListGamesResponse(
            games=[game_message(g) for g in page.games], next_page_token=page.next_page_token
        )

    # --- moves ------------------------------------------------------------------

    async def _move(self, request: Any, context: Context, command: Command, response: type[R]) -> R:
        """Plays ``command`` and answers ``response`` with its MoveResult
        (kept by the app, for a retry of the request id, through
        :data:`MOVE_RESULTS`)."""
        check_request_id(request.request_id)
        game_id = game_id_of(request.name)
        self._bind(game_id, request.request_id)
        claim = self._claimed(context, game_id)
        seat = claim.seat
        scope = f"seat:{game_id}:{seat}"
        if claim.player is not None and self.players is not None:
            scope += f":player:{claim.player}"
        record = request_record(request, type(command).__name__, scope)
        expected = request.expected_version if request.HasField("expected_version") else None
        codec = MOVE_RESULTS[response]
        return await self.app.move(game_id, seat, command, expected, record, codec)

    async def DrawFromStock(  # noqa: N802
        self, request: game_pb2.DrawFromStockRequest, context: Context
    ) -> game_pb2.DrawFromStockResponse:
        return await self._move(request, context, DrawFromStock(), game_pb2.DrawFromStockResponse)

    async def TakeDiscard(  # noqa: N802
        self, request: game_pb2.TakeDiscardRequest, context: Context
    ) -> game_pb2.TakeDiscardResponse:
        return await self._move(request, context, TakeDiscard(), game_pb2.TakeDiscardResponse)

    async def TurnOverDiscardPile(  # noqa: N802
        self, request: game_pb2.TurnOverDiscardPileRequest, context: Context
    ) -> game_pb2.TurnOverDiscardPileResponse:
        return await self._move(
            request, context, TurnOverDiscardPile(), game_pb2.TurnOverDiscardPileResponse
        )

    async def LayMelds(  # noqa: N802
        self, request: game_pb2.LayMeldsRequest, context: Context
    ) -> game_pb2.LayMeldsResponse:
        if not request.melds or any(not m.card_ids for m in request.melds):
            raise convert.invalid(
                reasons.EMPTY_MELD, "lay at least one meld, each with its card ids"
            )
        if sum(len(m.card_ids) for m in request.melds) > ramino.MAX_HAND:
            raise convert.invalid(
                reasons.TOO_MANY_CARDS,
                f"a hand never holds more than {ramino.MAX_HAND} cards to lay",
            )
        melds = tuple(tuple(_card_id(c) for c in m.card_ids) for m in request.melds)
        return await self._move(request, context, LayMelds(melds), game_pb2.LayMeldsResponse)

    async def LayOff(  # noqa: N802
        self, request: game_pb2.LayOffRequest, context: Context
    ) -> game_pb2.LayOffResponse:
        cmd = LayOff(
            _card_id(request.card_id),
            _index(request.meld_index, "table meld"),
            "start" if request.end == types_pb2.END_FIRST else "end",
        )
        return await self._move(request, context, cmd, game_pb2.LayOffResponse)

    async def SwapJoker(  # noqa: N802
        self, request: game_pb2.SwapJokerRequest, context: Context
    ) -> game_pb2.SwapJokerResponse:
        cmd = SwapJoker(
            _card_id(request.card_id),
            _index(request.meld_index, "table meld"),
            _card_id(request.joker_id),
        )
        return await self._move(request, context, cmd, game_pb2.SwapJokerResponse)

    async def Discard(  # noqa: N802
        self, request: game_pb2.DiscardRequest, context: Context
    ) -> game_pb2.DiscardResponse:
        cmd = Discard(_card_id(request.card_id))
        return await self._move(request, context, cmd, game_pb2.DiscardResponse)

    async def Resign(  # noqa: N802
        self, request: game_pb2.ResignRequest, context: Context
    ) -> game_pb2.ResignResponse:
        return await self._move(request, context, Resign(), game_pb2.ResignResponse)

    async def PassUpcard(  # noqa: N802
        self, request: game_pb2.PassUpcardRequest, context: Context
    ) -> game_pb2.PassUpcardResponse:
        return await self._move(request, context, PassUpcard(), game_pb2.PassUpcardResponse)

    async def Knock(  # noqa: N802
        self, request: game_pb2.KnockRequest, context: Context
    ) -> game_pb2.KnockResponse:
        if any(not m.card_ids for m in request.melds):
            raise convert.invalid(reasons.EMPTY_MELD, "each meld of a knock has its card ids")
        if sum(len(m.card_ids) for m in request.melds) > ramino.MAX_HAND:
            raise convert.invalid(
                reasons.TOO_MANY_CARDS,
                f"a hand never holds more than {ramino.MAX_HAND} cards to lay",
            )
        melds = tuple(tuple(_card_id(c) for c in m.card_ids) for m in request.melds)
        dropped = _card_id(request.discard_card_id) if request.HasField("discard_card_id") else None
        return await self._move(request, context, Knock(dropped, melds), game_pb2.KnockResponse)

    async def AcceptLayout(  # noqa: N802
        self, request: game_pb2.AcceptLayoutRequest, context: Context
    ) -> game_pb2.AcceptLayoutResponse:
        return await self._move(request, context, AcceptLayout(), game_pb2.AcceptLayoutResponse)

    # --- reading ----------------------------------------------------------------

    async def WatchGame(  # noqa: N802
        self, request: game_pb2.WatchGameRequest, context: Context
    ) -> AsyncIterator[game_pb2.WatchGameResponse | bytes]:
        """The watch's messages; an event's comes serialized, made once per
        viewer class (the interceptor sends bytes as they are)."""
        game_id = game_id_of(request.name)
        self._bind(game_id)
        viewer = self._viewer(context, game_id)
        if viewer is not None:
            self._in_game(await self.app.load(game_id), viewer)
        after = request.after_version if request.HasField("after_version") else None
        peer = context.peer()
        open_streams = self._streams.get(peer, 0)
        if open_streams >= self.max_streams_per_connection:
            raise ApiError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                reasons.TOO_MANY_STREAMS,
                f"this connection has {open_streams} open watch streams, "
                "the most this server allows",
            )
        self._streams[peer] = open_streams + 1
        try:
            item: WatchItem
            batch = self.encode_events if request.batch_events else None
            watch = self.app.watch(
                game_id, viewer, after, request.snapshot, self.encode_event, batch
            )
            async for item in watch:
                if item.game is not None:
                    yield game_pb2.WatchGameResponse(
                        version=item.version,
                        snapshot=view_message(item.game, viewer, with_deck=True),
                    )
                else:
                    yield item.payload
        finally:
            left = self._streams.get(peer, 1) - 1
            if left > 0:
                self._streams[peer] = left
            else:
                self._streams.pop(peer, None)

    async def GetLegalMoves(  # noqa: N802
        self, request: game_pb2.GetLegalMovesRequest, context: Context
    ) -> game_pb2.GetLegalMovesResponse:
        game_id = game_id_of(request.name)
        self._bind(game_id)
        seat = self._seat(context, game_id)
        level = None
        if request.hint_level != game_pb2.BOT_LEVEL_UNSPECIFIED:
            level = BOTS.get(request.hint_level)
            if level is None:
                raise ApiError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    reasons.BAD_HINT_LEVEL,
                    f"hint_level {request.hint_level} is not a bot level",
                )
        legal = await self.app.legal(game_id, seat)
        response = game_pb2.GetLegalMovesResponse(version=legal.version)
        if legal.moves or legal.hint is not None:
            game = await self.app.load(game_id)
            moves, hint = legal_messages(game_variant(game), legal)
            response.moves.extend(moves)
            if hint is not None:
                response.hint.CopyFrom(hint)
        if level is not None and legal.moves:
            suggested = await self.app.suggest(game_id, seat, level)
            if suggested is not None:
                response.hint.suggested_move.CopyFrom(move_message(suggested))
        return response
