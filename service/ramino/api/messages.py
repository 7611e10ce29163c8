"""The one encoder of each message a game answers with: views, legal moves
and hints, a move's result, lobby summaries, moves.

Encoders take only what the engine's viewer filter let through
(:class:`~ramino.app.games.outcomes.SeenGame`, :class:`~ramino.engine.Seen`
events), so nothing here decides what a viewer may see. A
:class:`Messages` keeps the pieces it builds for reuse (cards, melds, a
view's repeated fields, legal moves), each cache its own and bounded: the
pieces of a game in play come back on the next move.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import ramino
from ramino.api import convert
from ramino.api.events import event_message, score_parts
from ramino.app.games.outcomes import Hint, KeptAnswer, LegalMoves, MoveOutcome, SeenGame
from ramino.app.log import GameCreated
from ramino.app.values import GameSummary
from ramino.engine import (
    AcceptLayout,
    Command,
    Discard,
    DrawFromStock,
    Knock,
    LayMelds,
    LayOff,
    PassUpcard,
    Resign,
    RoundEnded,
    ScorePart,
    SwapJoker,
    TakeDiscard,
    TurnOverDiscardPile,
)
from ramino.v1 import game_pb2, types_pb2

__all__ = [
    "STATUSES",
    "STATUS_NAMES",
    "GameVariant",
    "Messages",
    "game_message",
    "move_message",
    "knock_move",
]

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
MAX_VARIANTS = 256
"""Distinct sets of parameters kept built (the least recently used go)."""
MAX_PIECES = 50_000
"""Pieces kept built in each cache of a :class:`Messages`: past it the cache
starts again (the pieces of a game in play fill it again at once)."""
R = TypeVar("R")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Pieces(dict[K, V]):
    """Built pieces by key, at most ``limit`` (then it starts again)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def put(self, key: K, value: V) -> V:
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value


@dataclass(frozen=True)
class GameVariant:
    """A game's variant and its Variant messages, built once per set of
    parameters (``key``): ``named`` its name only (a move's answer), ``full``
    with its parameters (snapshots)."""

    key: str
    variant: ramino.Variant
    named: types_pb2.Variant
    full: types_pb2.Variant


class Messages:
    """The encoders of a game's answers, with the pieces they keep built."""

    def __init__(self, max_pieces: int = MAX_PIECES, max_variants: int = MAX_VARIANTS) -> None:
        self.max_variants = max_variants
        self.variants: OrderedDict[str, GameVariant] = OrderedDict()
        self._by_header: Pieces[int, tuple[GameCreated, GameVariant]] = Pieces(max_pieces)
        """Each public header's GameVariant, by the header's identity (a
        header is never changed): its key is not formatted on every answer."""
        self.cards: Pieces[tuple[str, int | None], types_pb2.Card] = Pieces(max_pieces)
        self._table: Pieces[tuple[str, int, int, tuple[int, ...]], game_pb2.TableMeld] = Pieces(
            max_pieces
        )
        self.melds: Pieces[tuple[str, tuple[str, ...]], types_pb2.Meld] = Pieces(max_pieces)
        # The pieces of a GameView's repeated fields, each as its field's
        # encoding (tag, length, message): a view's hand, table and discard
        # pile are their pieces joined and parsed in one call, several times
        # cheaper than extending the repeated fields message by message.
        self._hand: Pieces[tuple[str, int], bytes] = Pieces(max_pieces)
        self._pile: Pieces[tuple[str, int], bytes] = Pieces(max_pieces)
        self._table_fields: Pieces[tuple[str, int, int, tuple[int, ...]], bytes] = Pieces(
            max_pieces
        )
        self._rounds: Pieces[
            tuple[int, str, int | None, tuple[int, ...], tuple[tuple[ScorePart, ...], ...]], bytes
        ] = Pieces(max_pieces)
        self._moves: Pieces[tuple[type[Any], Command, int], bytes] = Pieces(max_pieces)
        """A message's repeated Move field holding one legal move, encoded,
        by the message type, command and value."""
        self._hint_melds: Pieces[tuple[type[Any], str, tuple[str, ...]], bytes] = Pieces(max_pieces)
        self._deadwood_cards: Pieces[str, bytes] = Pieces(max_pieces)

    # --- variants and pieces ------------------------------------------------------

    def game_variant(self, header: GameCreated) -> GameVariant:
        known = self._by_header.get(id(header))
        if known is not None and known[0] is header:
            return known[1]
        found = self._variant(header)
        self._by_header.put(id(header), (header, found))
        return found

    def _variant(self, h: GameCreated) -> GameVariant:
        key = f"{h.variant}:{sorted(h.overrides.items())}"
        found = self.variants.get(key)
        if found is not None:
            self.variants.move_to_end(key)
            return found
        variant = ramino.Variant(h.variant, **h.overrides)
        found = self.variants[key] = GameVariant(
            key,
            variant,
            convert.variant_message(variant, with_parameters=False),
            convert.variant_message(variant),
        )
        while len(self.variants) > self.max_variants:
            self.variants.popitem(last=False)
        return found

    def card(self, code: str, card_id: int | None) -> types_pb2.Card:
        """The Card message of ``code`` (with ``card_id``), built once."""
        found = self.cards.get((code, card_id))
        if found is None:
            found = self.cards.put((code, card_id), convert.card(code, card_id))
        return found

    def hint_meld(self, info: GameVariant, codes: tuple[str, ...]) -> types_pb2.Meld:
        """A meld of a hint (its cards without ids), built once per variant."""
        key = (info.key, codes)
        found = self.melds.get(key)
        if found is None:
            meld = convert.meld(ramino.validate_meld(list(codes), info.variant))
            found = self.melds.put(key, meld)
        return found

    def _card_field(
        self, cache: Pieces[tuple[str, int], bytes], field: str, code: str, card_id: int
    ) -> bytes:
        """A GameView's ``field`` (``hand`` or ``discard_pile``) holding one card, encoded."""
        piece = game_pb2.GameView()
        getattr(piece, field).append(self.card(code, card_id))
        return cache.put((code, card_id), piece.SerializeToString())

    def _round_field(self, r: RoundEnded) -> bytes:
        """A GameView's ``rounds`` holding one round's scores, encoded."""
        scores = game_pb2.RoundScores(round=r.round, scores=list(r.scores), ending=r.ending)
        if r.winner is not None:
            scores.winner = r.winner
        scores.parts.extend(score_parts(r.parts))
        found: bytes = game_pb2.GameView(rounds=[scores]).SerializeToString()
        return self._rounds.put((r.round, r.ending, r.winner, r.scores, r.parts), found)

    def _table_field(
        self, info: GameVariant, index: int, owner: int, ids: tuple[int, ...], deck: Sequence[str]
    ) -> bytes:
        """A GameView's ``table`` holding one meld (cards by id in ``deck``), encoded."""
        key = (info.key, index, owner, ids)
        found = self._table_fields.get(key)
        if found is None:
            piece = game_pb2.GameView()
            piece.table.append(
                self._table_meld(info, index, owner, tuple(deck[c] for c in ids), ids)
            )
            found = self._table_fields.put(key, piece.SerializeToString())
        return found

    def _table_meld(
        self,
        info: GameVariant,
        index: int,
        owner: int,
        codes: tuple[str, ...],
        ids: tuple[int, ...],
    ) -> game_pb2.TableMeld:
        key = (info.key, index, owner, ids)
        found = self._table.get(key)
        if found is None:
            meld = convert.meld(ramino.validate_meld(list(codes), info.variant), ids)
            found = self._table.put(key, game_pb2.TableMeld(index=index, owner=owner, meld=meld))
        return found

    # --- views --------------------------------------------------------------------

    def view(
        self, game: SeenGame, with_deck: bool = False, into: game_pb2.GameView | None = None
    ) -> game_pb2.GameView:
        """The GameView of ``game`` as its viewer sees it; with ``with_deck``
        (a snapshot) also the deck and the variant's parameters; ``into``: an
        empty GameView to fill (a move's answer builds its view in place
        rather than copying one in)."""
        h = game.header
        info = self.game_variant(h)
        msg = game_pb2.GameView() if into is None else into
        msg.name = f"games/{game.game_id}"
        msg.version = game.version
        msg.status = STATUSES[game.status]
        msg.variant.CopyFrom(info.full if with_deck else info.named)
        msg.seed_hash = h.seed_hash
        msg.turn_timer_seconds = h.turn_timer_seconds
        msg.phase = game_pb2.TURN_PHASE_NONE
        msg.spectators_disabled = h.spectators_disabled
        msg.end_reason = game.ended or ""
        msg.fixed_deal = h.fixed_deal
        if game.viewer is not None:
            msg.seat = game.viewer
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
        if game.view is None:
            return msg
        view = game.view.value
        deck = view.deck
        if with_deck:
            msg.deck.extend(deck)
        for sv, s in zip(seats, view.seats, strict=True):
            sv.hand_size, sv.opened, sv.total, sv.resigned = (
                s.hand_size,
                s.opened,
                s.total,
                s.resigned,
            )
        msg.stock_size = view.stock_size
        msg.round = view.round
        msg.dealer = view.dealer
        if view.turn is not None and game.ended is None:
            msg.turn = view.turn
            msg.phase = PHASES.get(view.phase, game_pb2.TURN_PHASE_NONE)
            if h.turn_timer_seconds and h.seats[view.turn].bot is None:
                msg.turn_deadline.CopyFrom(convert.timestamp(game.last_at + h.turn_timer_seconds))
        rounds = self._rounds
        parts = [
            rounds.get((r.round, r.ending, r.winner, r.scores, r.parts)) or self._round_field(r)
            for r in view.results
        ]
        if view.knocker is not None:
            msg.knocker = view.knocker
        if game.seed is not None:
            msg.seed = str(game.seed)
            msg.winners.extend(view.winners)
        hand, pile = self._hand, self._pile
        parts.extend(
            hand.get((deck[c], c)) or self._card_field(hand, "hand", deck[c], c)
            for c in view.hand or ()
        )
        parts.extend(self._table_field(info, m.index, m.owner, m.cards, deck) for m in view.melds)
        parts.extend(
            pile.get((deck[c], c)) or self._card_field(pile, "discard_pile", deck[c], c)
            for c in view.discard_pile
        )
        if parts:
            msg.MergeFromString(b"".join(parts))
        return msg

    # --- legal moves and the hint ---------------------------------------------------

    def legal(
        self,
        header: GameCreated,
        legal: LegalMoves,
        msg: Any,
        hint: game_pb2.Hint,
        with_hint: bool = True,
    ) -> None:
        """Fills ``msg`` (a MoveResult or a GetLegalMovesResponse: its one
        repeated Move field) with the moves of ``legal``, and ``hint`` (its
        empty Hint) with the hint, when there is one and ``with_hint``."""
        kind = type(msg)
        parts = []
        for cmd, value in legal.moves:
            key = (kind, cmd, value)
            found = self._moves.get(key)
            if found is None:
                found = self._moves.put(key, self._move_field(kind, cmd, value))
            parts.append(found)
        msg.MergeFromString(b"".join(parts))
        if with_hint and legal.hint is not None:
            self.hint(self.game_variant(header), legal.hint, hint)

    @staticmethod
    def _move_field(kind: type[Any], cmd: Command, value: int) -> bytes:
        """``kind``'s repeated Move field holding one legal move, encoded."""
        piece = kind()
        (field,) = (f for f in kind.DESCRIPTOR.fields if f.message_type is game_pb2.Move.DESCRIPTOR)
        getattr(piece, field.name).append(legal_move(cmd, value))
        found: bytes = piece.SerializeToString()
        return found

    def _hint_meld_field(self, kind: type[Any], info: GameVariant, codes: tuple[str, ...]) -> bytes:
        """The ``melds`` of an Opening or a Deadwood (``kind``) holding one meld, encoded."""
        key = (kind, info.key, codes)
        found = self._hint_melds.get(key)
        if found is None:
            piece = kind(melds=[self.hint_meld(info, codes)])
            found = self._hint_melds.put(key, piece.SerializeToString())
        return found

    def _deadwood_card_field(self, code: str) -> bytes:
        """A Deadwood's ``deadwood`` holding one card, encoded."""
        piece = types_pb2.Deadwood(deadwood=[self.card(code, None)])
        return self._deadwood_cards.put(code, piece.SerializeToString())

    def hint(self, info: GameVariant, hint: Hint, msg: game_pb2.Hint) -> None:
        """Fills ``msg``, an empty Hint: the best opening while the seat has
        not opened, the minimum deadwood, the discard to make, and gin's best
        knock."""
        if hint.opening is not None:
            msg.best_opening.value = hint.opening.value
            msg.best_opening.MergeFromString(
                b"".join(
                    self._hint_meld_field(types_pb2.Opening, info, tuple(m))
                    for m in hint.opening.melds
                )
            )
        deadwood = hint.deadwood
        msg.min_deadwood.value = deadwood.value
        cards = self._deadwood_cards
        msg.min_deadwood.MergeFromString(
            b"".join(
                [
                    *(
                        self._hint_meld_field(types_pb2.Deadwood, info, tuple(m))
                        for m in deadwood.melds
                    ),
                    *(cards.get(c) or self._deadwood_card_field(c) for c in deadwood.deadwood),
                ]
            )
        )
        msg.suggested_discard.CopyFrom(self.card(*hint.discard))
        if hint.knock is not None:
            knock, value = hint.knock
            msg.best_knock.CopyFrom(knock_move(knock))
            msg.best_knock.deadwood = value

    # --- a move's answer -------------------------------------------------------------

    def move_response(self, outcome: MoveOutcome | KeptAnswer, response: type[R]) -> R:
        """A move RPC's ``response``, whose ``result`` is the MoveResult of
        ``outcome``: the events as the mover sees them, its view, and while
        the turn is still its own its legal moves and the hint. The response
        is built in place (no copy of the result into it); an answer kept by
        an older server is its MoveResult's bytes."""
        msg: Any = response()
        result = msg.result
        if isinstance(outcome, KeptAnswer):
            result.MergeFromString(outcome.data)
            return msg  # type: ignore[no-any-return]
        self.move_result(outcome, result)
        return msg  # type: ignore[no-any-return]

    def move_result(
        self, outcome: MoveOutcome, result: game_pb2.MoveResult, hint: bool = True
    ) -> None:
        """Fills ``result``, an empty MoveResult, from ``outcome``: the
        events (each with whose turn it is after it), and the seat's options
        (its legal moves while the turn is its own, with the hint when
        ``hint``); and when the outcome has the mover's view (a unary
        call's, a session's that asked for views), the view and the legal
        moves and hint again in their own fields."""
        header = outcome.header
        events = result.events
        turns = outcome.turns
        first = outcome.version - len(outcome.events) + 1
        for i, e in enumerate(outcome.events):
            event_message(
                first + i, e, into=events.add(), turn=turns[i] if i < len(turns) else None
            )
        if outcome.game is not None:
            self.view(outcome.game, into=result.view)
            if outcome.legal is not None:
                self.legal(header, outcome.legal, result, result.hint, hint)
        self.options(header, outcome.legal, outcome.version, outcome.turn, result.options, hint)

    def options(
        self,
        header: GameCreated,
        legal: LegalMoves | None,
        version: int,
        turn: int | None,
        msg: game_pb2.SeatOptions,
        hint: bool = True,
    ) -> game_pb2.SeatOptions:
        """Fills ``msg``, an empty SeatOptions: what a seat may do at
        ``version`` (``legal``: its moves and hint, the hint left out
        unless ``hint``, and the seat's view when it was taken with them;
        None, it has none)."""
        msg.version = version
        if turn is not None:
            msg.turn = turn
        if legal is not None:
            self.legal(header, legal, msg, msg.hint, hint)
            if legal.seen is not None:
                self.view(legal.seen, into=msg.view)
        return msg


def game_message(summary: GameSummary) -> game_pb2.Game:
    """A game of the lobby, from its summary."""
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
        create_time=convert.timestamp(summary.created_at),
        spectators_disabled=bool(extra.get("spectators_disabled", False)),
        fixed_deal=bool(extra.get("fixed_deal", False)),
        visibility=(
            game_pb2.VISIBILITY_PRIVATE if extra.get("private") else game_pb2.VISIBILITY_PUBLIC
        ),
        rated=bool(extra.get("rated", False)),
        quick_play=bool(extra.get("quick_play", False)),
    )


def legal_move(cmd: Command, value: int) -> game_pb2.Move:
    """A legal move as its Move, with its value (a LayMelds' meld value, a
    Knock's deadwood)."""
    move = move_message(cmd)
    if isinstance(cmd, LayMelds):
        move.lay_melds.value = value
    elif isinstance(cmd, Knock):
        move.knock.deadwood = value
    return move


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
