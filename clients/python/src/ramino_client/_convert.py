"""Protobuf messages to the SDK's values and back; the only module that
reads generated message classes field by field."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from google.protobuf import timestamp_pb2

from ramino_client import events as ev
from ramino_client import models as m
from ramino_client import moves as mv
from ramino_client.v1 import game_pb2, rules_pb2, types_pb2

_SUITS = {
    types_pb2.SUIT_SPADES: m.Suit.SPADES,
    types_pb2.SUIT_HEARTS: m.Suit.HEARTS,
    types_pb2.SUIT_DIAMONDS: m.Suit.DIAMONDS,
    types_pb2.SUIT_CLUBS: m.Suit.CLUBS,
}
_BOTS = {
    game_pb2.BOT_LEVEL_RANDOM: m.BotLevel.RANDOM,
    game_pb2.BOT_LEVEL_GREEDY: m.BotLevel.GREEDY,
    game_pb2.BOT_LEVEL_EASY: m.BotLevel.EASY,
    game_pb2.BOT_LEVEL_MEDIUM: m.BotLevel.MEDIUM,
    game_pb2.BOT_LEVEL_HARD: m.BotLevel.HARD,
    game_pb2.BOT_LEVEL_EXPERT: m.BotLevel.EXPERT,
}
BOT_VALUES = {v: k for k, v in _BOTS.items()}


def bot_level(value: game_pb2.BotLevel) -> m.BotLevel | None:
    """The bot level of a ``BotLevel`` value; ``None`` for a person."""
    return _BOTS.get(value)


_STATUSES = {
    game_pb2.GAME_STATUS_WAITING: m.GameStatus.WAITING,
    game_pb2.GAME_STATUS_PLAYING: m.GameStatus.PLAYING,
    game_pb2.GAME_STATUS_FINISHED: m.GameStatus.FINISHED,
}
STATUS_VALUES = {v: k for k, v in _STATUSES.items()}
_PHASES = {
    game_pb2.TURN_PHASE_DRAW: m.TurnPhase.DRAW,
    game_pb2.TURN_PHASE_PLAY: m.TurnPhase.PLAY,
    game_pb2.TURN_PHASE_NONE: m.TurnPhase.NONE,
    game_pb2.TURN_PHASE_LAYOFF: m.TurnPhase.LAYOFF,
}
_KINDS = {types_pb2.MELD_KIND_SET: m.MeldKind.SET, types_pb2.MELD_KIND_RUN: m.MeldKind.RUN}


# The values of the parameters that are a choice, by enum number.
_CHOICES: dict[str, dict[int, str]] = {
    "scoring": {
        types_pb2.SCORING_PENALTY: "penalty",
        types_pb2.SCORING_WINNER_COLLECTS: "winner_collects",
    },
    "stock_exhausted": {
        types_pb2.STOCK_EXHAUSTED_RESHUFFLE: "reshuffle",
        types_pb2.STOCK_EXHAUSTED_TURN_OVER: "turn_over",
    },
}
_CHOICE_NUMBERS = {name: {v: k for k, v in c.items()} for name, c in _CHOICES.items()}
_PARAMETERS = types_pb2.VariantParameters.DESCRIPTOR.fields_by_name


def parameters_message(values: Mapping[str, Any] | None) -> types_pb2.VariantParameters:
    """Parameter overrides by name as the typed message; a name that is no
    parameter, or a choice that is none of its values, is a ValueError."""
    msg = types_pb2.VariantParameters()
    for name, value in (values or {}).items():
        if name not in _PARAMETERS:
            raise ValueError(f"unknown variant parameter {name!r}")
        numbers = _CHOICE_NUMBERS.get(name)
        if numbers is not None:
            if value not in numbers:
                raise ValueError(f"{name} is one of {', '.join(numbers)}, not {value!r}")
            setattr(msg, name, numbers[value])
        elif name == "hand_sizes":
            msg.hand_sizes.extend(value)
        else:
            setattr(msg, name, value)
    return msg


def parameters(p: types_pb2.VariantParameters) -> dict[str, Any]:
    """The parameters set in ``p`` by name, a choice by its name."""
    out: dict[str, Any] = {}
    for fd, value in p.ListFields():
        choices = _CHOICES.get(fd.name)
        if choices is not None:
            out[fd.name] = choices.get(value, str(value))
        elif fd.name == "hand_sizes":
            out[fd.name] = list(value)
        else:
            out[fd.name] = value
    return out


def _time(ts: timestamp_pb2.Timestamp) -> dt.datetime:
    return ts.ToDatetime(tzinfo=dt.UTC)


def end(value: types_pb2.End) -> m.End:
    return m.End.FIRST if value == types_pb2.END_FIRST else m.End.LAST


def end_value(value: m.End) -> types_pb2.End:
    return types_pb2.END_FIRST if value is m.End.FIRST else types_pb2.END_LAST


def card(c: types_pb2.Card) -> m.Card:
    return m.Card(
        code=c.code,
        rank=c.rank,
        suit=_SUITS.get(c.suit),
        joker=c.joker,
        id=c.id if c.HasField("id") else None,
    )


def meld(x: types_pb2.Meld) -> m.Meld:
    return m.Meld(
        kind=_KINDS.get(x.kind, m.MeldKind.UNSPECIFIED),
        value=x.value,
        cards=tuple(card(c) for c in x.cards),
        jokers=tuple(m.JokerRole(j.index, tuple(j.stands_for)) for j in x.jokers),
        closed=x.closed,
        pure=x.pure,
    )


def described(x: types_pb2.MeldDescription) -> m.MeldDescription:
    return m.MeldDescription(
        kind=_KINDS.get(x.kind, m.MeldKind.UNSPECIFIED),
        value=x.value,
        jokers=tuple(m.JokerRole(j.index, tuple(j.stands_for)) for j in x.jokers),
        closed=x.closed,
        pure=x.pure,
    )


def variant(v: types_pb2.Variant) -> m.VariantInfo:
    return m.VariantInfo(v.name, parameters(v.parameters))


def bot_levels(response: rules_pb2.ListBotLevelsResponse) -> tuple[m.BotLevelInfo, ...]:
    """The levels a server lists (one it names and this SDK does not know is
    left out: a newer server's level)."""
    return tuple(
        m.BotLevelInfo(
            _BOTS[b.level], b.description, b.time_ms, b.rating, b.rating_mu, b.rating_sigma
        )
        for b in response.levels
        if b.level in _BOTS
    )


def view(v: game_pb2.GameView) -> m.GameView:
    return m.GameView(
        name=v.name,
        version=v.version,
        status=_STATUSES.get(v.status, m.GameStatus.UNSPECIFIED),
        variant=variant(v.variant),
        seat=v.seat if v.HasField("seat") else None,
        hand=tuple(card(c) for c in v.hand),
        seats=tuple(
            m.SeatInfo(
                seat=s.seat,
                player_name=s.player_name,
                bot=_BOTS.get(s.bot),
                taken=s.taken,
                hand_size=s.hand_size,
                opened=s.opened,
                total=s.total,
                resigned=s.resigned,
                timed_out=s.timed_out,
            )
            for s in v.seats
        ),
        table=tuple(m.TableMeld(t.index, t.owner, meld(t.meld)) for t in v.table),
        discard_pile=tuple(card(c) for c in v.discard_pile),
        stock_size=v.stock_size,
        turn=v.turn if v.HasField("turn") else None,
        knocker=v.knocker if v.HasField("knocker") else None,
        phase=_PHASES.get(v.phase, m.TurnPhase.UNSPECIFIED),
        round=v.round,
        dealer=v.dealer,
        seed_hash=v.seed_hash,
        seed=v.seed,
        winners=tuple(v.winners),
        turn_timer_seconds=v.turn_timer_seconds,
        turn_deadline=_time(v.turn_deadline) if v.HasField("turn_deadline") else None,
        rounds=tuple(
            m.RoundScores(
                round=r.round,
                scores=tuple(r.scores),
                winner=r.winner if r.HasField("winner") else None,
                ending=r.ending,
                parts=score_parts(r.parts),
            )
            for r in v.rounds
        ),
        spectators_disabled=v.spectators_disabled,
        end_reason=v.end_reason,
        fixed_deal=v.fixed_deal,
    )


def game(
    g: game_pb2.Game, creator_token: str | None = None, invite_code: str | None = None
) -> m.GameSummary:
    return m.GameSummary(
        name=g.name,
        variant=g.variant,
        status=_STATUSES.get(g.status, m.GameStatus.UNSPECIFIED),
        seats=tuple(m.LobbySeat(s.seat, s.player_name, _BOTS.get(s.bot), s.taken) for s in g.seats),
        open_seats=g.open_seats,
        version=g.version,
        seed_hash=g.seed_hash,
        turn_timer_seconds=g.turn_timer_seconds,
        create_time=_time(g.create_time) if g.HasField("create_time") else None,
        spectators_disabled=g.spectators_disabled,
        creator_token=creator_token or None,
        fixed_deal=g.fixed_deal,
        private=g.visibility == game_pb2.VISIBILITY_PRIVATE,
        rated=g.rated,
        quick_play=g.quick_play,
        invite_code=invite_code or None,
    )


_PART_PREFIX = len("SCORE_PART_KIND_")


def score_parts(
    seats: Iterable[game_pb2.ScoreParts],
) -> tuple[tuple[m.ScorePart, ...], ...]:
    """Each seat's ``ScoreParts`` as :class:`~ramino_client.models.ScorePart` values."""
    return tuple(
        tuple(
            m.ScorePart(
                kind=game_pb2.ScorePartKind.Name(p.kind)[_PART_PREFIX:].lower(),
                points=p.points,
                base=p.base,
                factor=p.factor,
                seat=p.seat if p.HasField("seat") else None,
            )
            for p in seat.parts
        )
        for seat in seats
    )


def _ids(ids: Iterable[int]) -> tuple[int, ...]:
    return tuple(ids)


def _melds(melds: Iterable[game_pb2.MeldCardIds]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(x.card_ids) for x in melds)


def event(e: game_pb2.GameEvent) -> ev.Event:
    """The typed event of ``e``; an event type newer than this SDK is an
    :class:`~ramino_client.events.UnknownEvent`."""
    v = e.version
    s = e.seat if e.HasField("seat") else None
    kind = e.WhichOneof("event")
    match kind:
        case "game_created":
            c = e.game_created
            return ev.GameCreated(
                version=v,
                seat=s,
                variant=c.variant,
                overrides=parameters(c.overrides),
                players=tuple(x.player_name for x in c.seats),
                bots=tuple(_BOTS[x.bot].value if x.bot in _BOTS else None for x in c.seats),
                seed_hash=c.seed_hash,
                turn_timer_seconds=c.turn_timer_seconds,
                fixed_deal=c.fixed_deal,
            )
        case "seat_joined":
            return ev.SeatJoined(version=v, seat=s, player_name=e.seat_joined.player_name)
        case "seat_timed_out":
            return ev.SeatTimedOut(version=v, seat=s)
        case "seat_reclaimed":
            return ev.SeatReclaimed(version=v, seat=s)
        case "game_ended":
            return ev.GameEnded(version=v, seat=s, reason=e.game_ended.reason)
        case "round_started":
            r = e.round_started
            return ev.RoundStarted(
                version=v,
                seat=s,
                round=r.round,
                dealer=r.dealer,
                first_player=r.first_player,
                hand=_ids(r.hand) if r.hand else None,
                hand_sizes=_ids(r.hand_sizes),
                upcard=r.upcard if r.HasField("upcard") else None,
                stock_size=r.stock_size,
            )
        case "drew_from_stock":
            d = e.drew_from_stock
            return ev.DrewFromStock(
                version=v, seat=s, card=d.card_id if d.HasField("card_id") else None
            )
        case "took_discard":
            return ev.TookDiscard(version=v, seat=s, card=e.took_discard.card_id)
        case "discard_pile_turned_over":
            return ev.DiscardPileTurnedOver(
                version=v, seat=s, rebuild=e.discard_pile_turned_over.rebuild
            )
        case "stock_reshuffled":
            x = e.stock_reshuffled
            return ev.StockReshuffled(
                version=v, seat=s, rebuild=x.rebuild, kept=x.kept_card_id, stock_size=x.stock_size
            )
        case "melds_laid":
            return ev.MeldsLaid(
                version=v,
                seat=s,
                melds=_melds(e.melds_laid.melds),
                opening=e.melds_laid.opening,
                described=tuple(described(d) for d in e.melds_laid.described),
            )
        case "laid_off":
            o = e.laid_off
            return ev.LaidOff(
                version=v,
                seat=s,
                card=o.card_id,
                meld=o.meld_index,
                end=end(o.end),
                described=described(o.described) if o.HasField("described") else None,
            )
        case "joker_swapped":
            j = e.joker_swapped
            return ev.JokerSwapped(
                version=v,
                seat=s,
                card=j.card_id,
                meld=j.meld_index,
                joker=j.joker_id,
                described=described(j.described) if j.HasField("described") else None,
            )
        case "discarded":
            return ev.Discarded(version=v, seat=s, card=e.discarded.card_id)
        case "resigned":
            return ev.Resigned(version=v, seat=s)
        case "passed_upcard":
            return ev.PassedUpcard(version=v, seat=s)
        case "knocked":
            k = e.knocked
            return ev.Knocked(
                version=v,
                seat=s,
                discard=k.discard_card_id if k.HasField("discard_card_id") else None,
                melds=_melds(k.melds),
                deadwood=k.deadwood,
                described=tuple(described(d) for d in k.described),
            )
        case "layout_accepted":
            return ev.LayoutAccepted(version=v, seat=s)
        case "round_ended":
            r2 = e.round_ended
            return ev.RoundEnded(
                version=v,
                seat=s,
                round=r2.round,
                ending=r2.ending,
                winner=r2.winner if r2.HasField("winner") else None,
                closed_hand=r2.closed_hand,
                scores=_ids(r2.scores),
                hands=tuple(tuple(h.card_ids) for h in r2.hands),
                parts=score_parts(r2.parts),
            )
        case "match_ended":
            x2 = e.match_ended
            return ev.MatchEnded(
                version=v,
                seat=s,
                totals=_ids(x2.totals),
                winners=_ids(x2.winners),
                parts=score_parts(x2.parts),
            )
    return ev.UnknownEvent(version=v, seat=s, name=kind or "")


def watch_item(r: game_pb2.WatchGameResponse) -> ev.WatchItem:
    if r.HasField("snapshot"):
        return ev.Snapshot(r.version, view(r.snapshot))
    return event(r.event)


def move_result(r: game_pb2.MoveResult) -> mv.MoveResult:
    legal = None
    if r.legal_moves:
        legal = _legal_moves(r.view.version, r.legal_moves, r.hint if r.HasField("hint") else None)
    return mv.MoveResult(tuple(event(e) for e in r.events), view(r.view), legal)


def opening(o: types_pb2.Opening) -> m.Opening:
    return m.Opening(o.value, tuple(meld(x) for x in o.melds))


def deadwood(d: types_pb2.Deadwood) -> m.Deadwood:
    return m.Deadwood(d.value, tuple(meld(x) for x in d.melds), tuple(card(c) for c in d.deadwood))


def move(x: game_pb2.Move) -> mv.Move | None:
    match x.WhichOneof("move"):
        case "draw_from_stock":
            return mv.DrawFromStock()
        case "take_discard":
            return mv.TakeDiscard()
        case "turn_over_discard_pile":
            return mv.TurnOverDiscardPile()
        case "lay_melds":
            return mv.LayMelds(
                tuple(tuple(ids.card_ids) for ids in x.lay_melds.melds), x.lay_melds.value
            )
        case "lay_off":
            return mv.LayOff(x.lay_off.card_id, x.lay_off.meld_index, end(x.lay_off.end))
        case "swap_joker":
            s = x.swap_joker
            return mv.SwapJoker(s.card_id, s.meld_index, s.joker_id)
        case "discard":
            return mv.Discard(x.discard.card_id)
        case "resign":
            return mv.Resign()
        case "pass_upcard":
            return mv.PassUpcard()
        case "knock":
            return knock(x.knock)
        case "accept_layout":
            return mv.AcceptLayout()
    return None  # a move kind newer than this SDK


def knock(k: game_pb2.KnockMove) -> mv.Knock:
    return mv.Knock(
        k.discard_card_id if k.HasField("discard_card_id") else None,
        tuple(tuple(ids.card_ids) for ids in k.melds),
        k.deadwood,
    )


def options(o: game_pb2.SeatOptions) -> mv.LegalMoves:
    """What a seat may do now, as a session or a seat's watch pushes it."""
    return _legal_moves(o.version, o.moves, o.hint if o.HasField("hint") else None)


def legal_moves(r: game_pb2.GetLegalMovesResponse) -> mv.LegalMoves:
    return _legal_moves(r.version, r.moves, r.hint if r.HasField("hint") else None)


def _legal_moves(
    version: int, moves: Iterable[game_pb2.Move], h: game_pb2.Hint | None
) -> mv.LegalMoves:
    hint = None
    if h is not None:
        hint = m.Hint(
            best_opening=opening(h.best_opening) if h.HasField("best_opening") else None,
            min_deadwood=deadwood(h.min_deadwood) if h.HasField("min_deadwood") else None,
            suggested_discard=card(h.suggested_discard)
            if h.HasField("suggested_discard")
            else None,
            best_knock=knock(h.best_knock) if h.HasField("best_knock") else None,
        )
    known = tuple(x for x in (move(y) for y in moves) if x is not None)
    return mv.LegalMoves(version, known, hint)


def meld_check(r: rules_pb2.ValidateMeldResponse) -> m.MeldCheck:
    return m.MeldCheck(
        valid=r.valid,
        meld=meld(r.meld) if r.HasField("meld") else None,
        reason=r.reason,
        message=r.message,
    )


def analysis(r: rules_pb2.AnalyzeHandResponse) -> m.HandAnalysis:
    return m.HandAnalysis(
        best_opening=opening(r.best_opening) if r.HasField("best_opening") else None,
        min_deadwood=deadwood(r.min_deadwood),
        lay_offs=tuple(m.LayOffTarget(card(t.card), t.meld_index, end(t.end)) for t in r.lay_offs),
        joker_swaps=tuple(
            m.JokerSwapTarget(card(t.card), t.meld_index, t.joker_index) for t in r.joker_swaps
        ),
        penalty=r.penalty,
    )


def cards_text(cards: str | Sequence[str]) -> list[str]:
    """Cards in notation from ``"AS 2S 3S"`` or a sequence of codes."""
    if isinstance(cards, str):
        return cards.replace(",", " ").split()
    return [str(c) for c in cards]
