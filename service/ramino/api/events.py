"""The one mapper from a game's events to ``ramino.v1.GameEvent`` messages.

Each event type of the log (the engine's and the service's own) has one
message of the ``GameEvent.event`` oneof. The mapper takes only an event
that the engine's viewer filter made for one viewer (a ``Seen`` event, see
:mod:`ramino.engine.seen`) and maps what is there: what the viewer may not
see was taken out by the filter (a seat's dealt hand but in that seat's
copy, a card drawn from the stock but in the drawer's, the stock's order in
everyone's), so it is absent by construction. The ``match`` is exhaustive over
:data:`ramino.app.log.LogEvent`: an event type left unmapped fails mypy
(``assert_never``) and ``tests/service/test_events.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from ramino.api import convert
from ramino.app.log import (
    GameCreated,
    GameEnded,
    LogEvent,
    SeatJoined,
    SeatReclaimed,
    SeatTimedOut,
)
from ramino.engine import (
    SCORE_PART_KINDS,
    Discarded,
    DiscardPileTurnedOver,
    DrewFromStock,
    JokerSwapped,
    Knocked,
    LaidOff,
    LayoutAccepted,
    MatchEnded,
    MeldDescription,
    MeldsLaid,
    PassedUpcard,
    Resigned,
    RoundEnded,
    RoundStarted,
    ScorePart,
    Seen,
    StockReshuffled,
    TookDiscard,
)
from ramino.v1 import game_pb2, types_pb2

__all__ = ["event_message", "score_parts", "watch_event", "watch_events", "ONEOF_FIELDS"]

ONEOF_FIELDS = tuple(f.name for f in game_pb2.GameEvent.DESCRIPTOR.oneofs_by_name["event"].fields)
"""The fields of ``GameEvent.event``: one per event type."""


def _melds(melds: tuple[tuple[int, ...], ...]) -> list[game_pb2.MeldCardIds]:
    return [game_pb2.MeldCardIds(card_ids=m) for m in melds]


MELD_KINDS: dict[str, types_pb2.MeldKind] = {
    "set": types_pb2.MELD_KIND_SET,
    "run": types_pb2.MELD_KIND_RUN,
}


def described(d: MeldDescription, into: types_pb2.MeldDescription) -> None:
    """Fills ``into`` with what the kernel decided of a meld (``described``
    fields of MeldsLaid, LaidOff, JokerSwapped and Knocked)."""
    into.kind = MELD_KINDS[d.kind]
    into.value = d.value
    for j in d.jokers:
        into.jokers.add(index=j.index, stands_for=j.stands_for)
    into.closed = d.closed
    into.pure = d.pure


SCORE_PART_KIND_VALUES: dict[str, int] = {
    kind: game_pb2.ScorePartKind.Value(f"SCORE_PART_KIND_{kind.upper()}")
    for kind in SCORE_PART_KINDS
}
"""Each kind of a score's part (the kernel's name) as its ``ScorePartKind``."""


def score_parts(parts: tuple[tuple[ScorePart, ...], ...]) -> list[game_pb2.ScoreParts]:
    """Each seat's parts of a score (``RoundEnded.parts``, ``MatchEnded.parts``)
    as the messages of ``parts`` fields."""
    out = []
    for seat in parts:
        msg = game_pb2.ScoreParts()
        for p in seat:
            part = msg.parts.add(
                kind=SCORE_PART_KIND_VALUES[p.kind], points=p.points, base=p.base, factor=p.factor
            )
            if p.seat is not None:
                part.seat = p.seat
        out.append(msg)
    return out


def event_message(
    version: int,
    seen: Seen[LogEvent],
    into: game_pb2.GameEvent | None = None,
    turn: int | None = None,
) -> game_pb2.GameEvent:
    """``seen``, an event as its viewer may see it, at ``version``, with
    whose ``turn`` it is after it (``into``: an empty GameEvent to fill, say
    one added to a move's answer)."""
    event, viewer = seen.value, seen.viewer
    if into is None:
        msg = game_pb2.GameEvent(version=version)
    else:
        msg = into
        msg.version = version
    if turn is not None:
        msg.turn = turn
    match event:
        case GameCreated():
            created = msg.game_created
            created.variant = event.variant
            created.overrides.CopyFrom(convert.parameters_message(event.overrides))
            created.seats.extend(
                game_pb2.SeatConfig(
                    player_name=s.name,
                    bot=convert.BOT_LEVELS.get(s.bot or "", game_pb2.BOT_LEVEL_UNSPECIFIED),
                )
                for s in event.seats
            )
            created.seed_hash = event.seed_hash
            created.turn_timer_seconds = event.turn_timer_seconds
            created.create_time.CopyFrom(convert.timestamp(event.created_at))
            created.spectators_disabled = event.spectators_disabled
            created.fixed_deal = event.fixed_deal
        case SeatJoined():
            msg.seat = event.seat
            msg.seat_joined.player_name = event.player_name
        case SeatTimedOut():
            msg.seat = event.seat
            msg.seat_timed_out.SetInParent()
        case SeatReclaimed():
            msg.seat = event.seat
            msg.seat_reclaimed.SetInParent()
        case GameEnded():
            msg.game_ended.reason = event.reason
        case RoundStarted():
            started = msg.round_started
            started.round = event.round
            started.dealer = event.dealer
            started.first_player = event.first_player
            if viewer is not None and 0 <= viewer < len(event.hands):
                started.hand.extend(event.hands[viewer] or ())  # the others' are hidden
            started.hand_sizes.extend(event.hand_sizes)
            if event.upcard is not None:
                started.upcard = event.upcard
            started.stock_size = event.stock_size
        case DrewFromStock():
            msg.seat = event.seat
            drew = msg.drew_from_stock
            drew.SetInParent()
            if event.card is not None:
                drew.card_id = event.card
        case TookDiscard():
            msg.seat = event.seat
            msg.took_discard.card_id = event.card
        case DiscardPileTurnedOver():
            msg.seat = event.seat
            msg.discard_pile_turned_over.rebuild = event.rebuild
        case StockReshuffled():
            reshuffled = msg.stock_reshuffled
            reshuffled.rebuild = event.rebuild
            reshuffled.kept_card_id = event.kept
            reshuffled.stock_size = event.stock_size
        case MeldsLaid():
            msg.seat = event.seat
            msg.melds_laid.melds.extend(_melds(event.melds))
            msg.melds_laid.opening = event.opening
            for d in event.described:
                described(d, msg.melds_laid.described.add())
        case LaidOff():
            msg.seat = event.seat
            laid = msg.laid_off
            laid.card_id = event.card
            laid.meld_index = event.meld
            laid.end = convert.end_value(event.end)
            if event.described is not None:
                described(event.described, laid.described)
        case JokerSwapped():
            msg.seat = event.seat
            swapped = msg.joker_swapped
            swapped.card_id = event.card
            swapped.meld_index = event.meld
            swapped.joker_id = event.joker
            if event.described is not None:
                described(event.described, swapped.described)
        case Discarded():
            msg.seat = event.seat
            msg.discarded.card_id = event.card
        case Resigned():
            msg.seat = event.seat
            msg.resigned.SetInParent()
        case PassedUpcard():
            msg.seat = event.seat
            msg.passed_upcard.SetInParent()
        case Knocked():
            msg.seat = event.seat
            knocked = msg.knocked
            if event.discard is not None:
                knocked.discard_card_id = event.discard
            knocked.melds.extend(_melds(event.melds))
            knocked.deadwood = event.deadwood
            for d in event.described:
                described(d, knocked.described.add())
        case LayoutAccepted():
            msg.seat = event.seat
            msg.layout_accepted.SetInParent()
        case RoundEnded():
            ended = msg.round_ended
            ended.round = event.round
            ended.ending = event.ending
            if event.winner is not None:
                ended.winner = event.winner
            ended.closed_hand = event.closed_hand
            ended.scores.extend(event.scores)
            ended.hands.extend(game_pb2.CardIds(card_ids=h) for h in event.hands)
            ended.parts.extend(score_parts(event.parts))
        case MatchEnded():
            msg.match_ended.totals.extend(event.totals)
            msg.match_ended.winners.extend(event.winners)
            msg.match_ended.parts.extend(score_parts(event.parts))
        case _:
            assert_never(event)
    return msg


def watch_event(version: int, event: Seen[LogEvent], turn: int | None) -> bytes:
    """The WatchGameResponse of one event, serialized: what WatchGame
    sends, made once per viewer class (see :mod:`ramino.app.games.fanout`) and
    sent as is to every watcher of the class; a PlayGameResponse's fields
    have the same numbers, so a session sends the same bytes."""
    response = game_pb2.WatchGameResponse(version=version)
    event_message(version, event, into=response.event, turn=turn)
    return response.SerializeToString()


def watch_events(entries: Sequence[tuple[int, Seen[LogEvent], int | None]]) -> bytes:
    """The WatchGameResponse of several events (``entries``), serialized:
    what a spectator's stream that takes batches is sent, made once for all
    of them."""
    response = game_pb2.WatchGameResponse(version=entries[-1][0])
    batch = response.events.events
    for version, event, turn in entries:
        event_message(version, event, into=batch.add(), turn=turn)
    return response.SerializeToString()
