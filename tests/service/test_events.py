"""Typed events and variants: every event type of a game has its own message
in ``GameEvent``'s oneof, mapped by one exhaustive mapper, and reaches a
watcher as that message; no ``google.protobuf.Struct`` is left in
``ramino.v1``."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any, get_args

import grpc
import pytest
import ramino
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from ramino.api import convert
from ramino.api.events import ONEOF_FIELDS, SCORE_PART_KIND_VALUES, event_message
from ramino.app.log import (
    GameCreated,
    GameEnded,
    LogEvent,
    SeatJoined,
    SeatReclaimed,
    SeatSpec,
    SeatTimedOut,
    engine_entries,
    entry,
    log_event,
)
from ramino.engine import (
    SCORE_PART_KINDS,
    Discarded,
    DiscardPileTurnedOver,
    DrewFromStock,
    Game,
    JokerSwapped,
    Knocked,
    LaidOff,
    LayoutAccepted,
    MatchEnded,
    MeldDescription,
    MeldJoker,
    MeldsLaid,
    PassedUpcard,
    Resigned,
    RoundEnded,
    RoundStarted,
    ScorePart,
    StockReshuffled,
    TookDiscard,
    see_event,
)
from ramino.v1 import game_pb2, rules_pb2, rules_pb2_grpc, types_pb2

from .conftest import Harness, auth, seated_game

SAMPLES: list[LogEvent] = [
    GameCreated("rummy", {"ace_high": True}, (SeatSpec("a", None),), "ab", 30, 1.5, False),
    SeatJoined(1, "b"),
    SeatTimedOut(0),
    SeatReclaimed(0),
    RoundStarted(2, 1, 0, ((1, 2, 3), (4, 5, 6)), (3, 3), 7, 40, (8, 9, 10)),
    DrewFromStock(0, 11),
    TookDiscard(1, 7),
    DiscardPileTurnedOver(0, 1),
    StockReshuffled(1, 12, 30, (13, 14)),
    MeldsLaid(0, ((1, 2, 3),), True),
    LaidOff(1, 4, 0, "start"),
    JokerSwapped(0, 15, 0, 3),
    Discarded(0, 16),
    Resigned(1),
    PassedUpcard(0),
    Knocked(1, 17, ((4, 5, 6),), 8),
    LayoutAccepted(0),
    RoundEnded(2, "knock", 1, False, (0, 8), ((), (18,))),
    MatchEnded((10, 20), (1,)),
    GameEnded("cancelled"),
]
"""One event of every type of the log."""


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_every_event_type_has_a_sample_and_its_own_field_of_the_oneof() -> None:
    types = set(get_args(LogEvent))
    assert {type(e) for e in SAMPLES} == types
    assert sorted(ONEOF_FIELDS) == sorted(snake(t.__name__) for t in types)
    for sample in SAMPLES:
        for viewer in (None, 0, 1):
            msg = event_message(9, see_event(sample, viewer))
            assert msg.version == 9
            assert msg.WhichOneof("event") == snake(type(sample).__name__)
            seat = getattr(sample, "seat", None)
            assert (msg.seat if msg.HasField("seat") else None) == seat


def test_a_round_ended_carries_each_seats_score_parts() -> None:
    ended = RoundEnded(
        1,
        "went_out",
        0,
        False,
        (-40, 100),
        ((), (1, 2)),
        ((ScorePart("went_out", -40),), (ScorePart("never_opened", 100, base=83),)),
    )
    K = game_pb2.ScorePartKind
    for viewer in (None, 0, 1):
        msg = event_message(5, see_event(ended, viewer)).round_ended
        assert [
            [(p.kind, p.points, p.base, p.factor, p.HasField("seat")) for p in seat.parts]
            for seat in msg.parts
        ] == [
            [(K.SCORE_PART_KIND_WENT_OUT, -40, 0, 0, False)],
            [(K.SCORE_PART_KIND_NEVER_OPENED, 100, 83, 0, False)],
        ]
    undercut = RoundEnded(
        2,
        "undercut",
        1,
        False,
        (0, 27),
        ((0, 14), (13,)),
        (
            (),
            (
                ScorePart("opponent_deadwood", 3, seat=0),
                ScorePart("own_deadwood", -1),
                ScorePart("undercut_bonus", 25),
            ),
        ),
    )
    msg = event_message(6, see_event(undercut, None)).round_ended
    assert not msg.parts[0].parts
    first = msg.parts[1].parts[0]
    assert (first.kind, first.points, first.HasField("seat"), first.seat) == (
        K.SCORE_PART_KIND_OPPONENT_DEADWOOD,
        3,
        True,
        0,
    )
    assert sum(p.points for p in msg.parts[1].parts) == msg.scores[1] == 27


def test_a_log_entry_keeps_the_score_parts_and_one_logged_before_loads_without() -> None:
    ended = RoundEnded(
        1,
        "went_out",
        0,
        False,
        (-40, 100),
        ((), (1, 2)),
        ((ScorePart("went_out", -40),), (ScorePart("never_opened", 100, base=83),)),
    )
    (line,) = engine_entries([ended], 2.0)
    data = json.loads(line)
    assert data["event"]["parts"][1] == [
        {"kind": "never_opened", "points": 100, "base": 83, "factor": 0, "seat": None}
    ]
    assert log_event(data) == ended
    del data["event"]["parts"]
    old = log_event(data)
    assert old == replace(ended, parts=())
    assert not event_message(3, see_event(old, None)).round_ended.parts


def _described_by_the_kernel(game: Game, cards: tuple[int, ...]) -> MeldDescription:
    """What ``ramino.validate_meld`` answers of the meld of ``cards`` (ids)."""
    m = ramino.validate_meld([game.rules.names[c] for c in cards], game.rules.variant)
    jokers = tuple(MeldJoker(j.index, tuple(j.stands_for)) for j in m.jokers)
    return MeldDescription(m.kind, m.value, jokers, m.closed, m.pure)


def test_a_laid_or_changed_meld_is_described_as_the_kernel_validated_it_and_encoded() -> None:
    from ramino.bots.greedy import GreedyBot

    kinds = {"set", "run"}
    seen: set[str] = set()
    jokers = 0
    for variant, seed in (("ramino51", 3), ("ramino51", 4), ("rummy", 5), ("gin", 6)):
        game = Game.new(variant, ["a", "b"], seed=seed)
        bot = GreedyBot(seed)
        table: list[tuple[int, ...]] = []
        while not game.finished and game.version < 400:
            seat = game.turn
            assert seat is not None
            for event in game.apply(seat, bot.choose(game, seat)):
                if isinstance(event, RoundStarted):
                    table = []
                if isinstance(event, MeldsLaid | Knocked):
                    assert len(event.described) == len(event.melds)
                    for cards, d in zip(event.melds, event.described, strict=True):
                        assert d == _described_by_the_kernel(game, cards)
                        assert d.kind in kinds
                        jokers += len(d.jokers)
                    table += event.melds
                elif isinstance(event, LaidOff):
                    old = table[event.meld]
                    table[event.meld] = (
                        (event.card, *old) if event.end == "start" else (*old, event.card)
                    )
                    assert event.described == _described_by_the_kernel(game, table[event.meld])
                elif isinstance(event, JokerSwapped):
                    table[event.meld] = tuple(
                        event.card if c == event.joker else c for c in table[event.meld]
                    )
                    assert event.described == _described_by_the_kernel(game, table[event.meld])
                else:
                    continue
                seen.add(type(event).__name__)
                msg = event_message(game.version, see_event(event, None))
                body = getattr(msg, msg.WhichOneof("event"))
                described = (
                    list(body.described)
                    if isinstance(event, MeldsLaid | Knocked)
                    else [body.described]
                )
                expected = (
                    event.described
                    if isinstance(event, MeldsLaid | Knocked)
                    else (event.described,)
                )
                assert [
                    (
                        types_pb2.MeldKind.Name(p.kind),
                        p.value,
                        [(j.index, tuple(j.stands_for)) for j in p.jokers],
                        p.closed,
                        p.pure,
                    )
                    for p in described
                ] == [
                    (
                        f"MELD_KIND_{d.kind.upper()}",
                        d.value,
                        [(j.index, j.stands_for) for j in d.jokers],
                        d.closed,
                        d.pure,
                    )
                    for d in expected
                    if d is not None
                ]
    assert {"MeldsLaid", "LaidOff", "Knocked"} <= seen
    assert jokers > 0, "no meld with a joker was laid: pick other seeds"


def test_a_log_entry_keeps_the_meld_descriptions_and_one_logged_before_loads_without() -> None:
    run = MeldDescription("run", 24, (MeldJoker(1, ("8H",)),), False, False)
    laid = MeldsLaid(0, ((0, 52, 2),), True, (run,))
    (line,) = engine_entries([laid], 2.0)
    data = json.loads(line)
    assert data["event"]["described"] == [
        {
            "kind": "run",
            "value": 24,
            "jokers": [{"index": 1, "stands_for": ["8H"]}],
            "closed": False,
            "pure": False,
        }
    ]
    assert log_event(data) == laid
    msg = event_message(3, see_event(laid, None)).melds_laid
    (described,) = msg.described
    assert (described.kind, described.value, described.closed, described.pure) == (
        types_pb2.MELD_KIND_RUN,
        24,
        False,
        False,
    )
    assert [(j.index, list(j.stands_for)) for j in described.jokers] == [(1, ["8H"])]
    del data["event"]["described"]
    old = log_event(data)
    assert old == replace(laid, described=())
    assert not event_message(3, see_event(old, None)).melds_laid.described
    off = LaidOff(1, 4, 0, "start", MeldDescription("set", 15, (), False, False))
    (line,) = engine_entries([off], 2.0)
    data = json.loads(line)
    assert log_event(data) == off
    del data["event"]["described"]
    old_off = log_event(data)
    assert old_off == replace(off, described=None)
    assert not event_message(4, see_event(old_off, None)).laid_off.HasField("described")
    swapped = JokerSwapped(0, 15, 0, 52, run)
    assert event_message(5, see_event(swapped, None)).joker_swapped.described.value == 24
    knocked = Knocked(1, 17, ((4, 5, 6),), 8, (run,))
    assert event_message(6, see_event(knocked, None)).knocked.described[0].jokers[0].index == 1


def test_a_match_ended_carries_each_seats_total_in_parts() -> None:
    ended = MatchEnded(
        (240, 65),
        (0,),
        (
            (
                ScorePart("rounds", 90),
                ScorePart("box_bonus", 50, base=25, factor=2),
                ScorePart("game_bonus", 100),
            ),
            (ScorePart("rounds", 40), ScorePart("box_bonus", 25, base=25, factor=1)),
        ),
    )
    msg = event_message(7, see_event(ended, None)).match_ended
    box = msg.parts[0].parts[1]
    assert (box.kind, box.points, box.base, box.factor) == (
        game_pb2.ScorePartKind.SCORE_PART_KIND_BOX_BONUS,
        50,
        25,
        2,
    )
    assert [sum(p.points for p in seat.parts) for seat in msg.parts] == list(msg.totals)


def test_every_kind_of_score_part_has_its_enum_value() -> None:
    values = set(game_pb2.ScorePartKind.values()) - {0}
    assert sorted(SCORE_PART_KIND_VALUES.values()) == sorted(values)
    assert set(SCORE_PART_KIND_VALUES) == set(SCORE_PART_KINDS)


def test_a_played_rounds_message_explains_every_score() -> None:
    from ramino.bots import make_bot

    g = Game.new("ramino51", ["a", "b"], seed=8)
    bots = [make_bot("greedy", 1), make_bot("greedy", 2)]
    while not g.finished:
        seat = g.state.turn
        g.apply(seat, bots[seat].choose(g, seat))
    ended = [e for e in g.record.events if isinstance(e, RoundEnded)]
    assert ended
    for e in ended:
        msg = event_message(1, see_event(e, None)).round_ended
        assert len(msg.parts) == len(msg.scores)
        assert [sum(p.points for p in seat.parts) for seat in msg.parts] == list(msg.scores)
        assert all(p.kind for seat in msg.parts for p in seat.parts)


def test_an_event_type_left_unmapped_fails() -> None:
    @dataclass(frozen=True)
    class Unmapped:
        seat: int

    with pytest.raises(AssertionError):
        event_message(1, see_event(Unmapped(0), None))  # type: ignore[arg-type]


def test_what_a_viewer_may_not_see_is_absent_from_its_copy() -> None:
    dealt = RoundStarted(1, 1, 0, ((1, 2, 3), (4, 5, 6)), (3, 3), 7, 40, (8, 9, 10))
    assert list(event_message(2, see_event(dealt, 0)).round_started.hand) == [1, 2, 3]
    assert list(event_message(2, see_event(dealt, 1)).round_started.hand) == [4, 5, 6]
    assert not event_message(2, see_event(dealt, None)).round_started.hand
    for viewer in (0, 1, None):
        # The stock's order is in no message at all.
        assert (
            "stock"
            not in event_message(
                2, see_event(dealt, viewer)
            ).round_started.DESCRIPTOR.fields_by_name
        )
    drew = DrewFromStock(0, 11)
    assert event_message(3, see_event(drew, 0)).drew_from_stock.card_id == 11
    for viewer in (1, None):
        other = event_message(3, see_event(drew, viewer))
        assert other.HasField("drew_from_stock")
        assert not other.drew_from_stock.HasField("card_id")


# --- over a real server ----------------------------------------------------------------


async def _files(channel: grpc.aio.Channel, symbol: str) -> dict[str, Any]:
    """The file descriptors reflection gives for ``symbol`` and what they import."""
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    files: dict[str, descriptor_pb2.FileDescriptorProto] = {}
    wanted = [reflection_pb2.ServerReflectionRequest(file_containing_symbol=symbol)]

    async def requests() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        while wanted:
            yield wanted.pop()
            await asyncio.sleep(0)

    async for response in stub.ServerReflectionInfo(requests()):
        for raw in response.file_descriptor_response.file_descriptor_proto:
            f = descriptor_pb2.FileDescriptorProto.FromString(raw)
            files[f.name] = f
        break
    return files


async def test_reflection_shows_typed_events_and_no_struct(harness: Harness) -> None:
    port = harness.server.port
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        files = await _files(channel, "ramino.v1.GameService")
    ours = {n: f for n, f in files.items() if f.package == "ramino.v1"}
    assert "ramino/v1/game.proto" in ours and "ramino/v1/types.proto" in ours
    for name, f in ours.items():
        assert "google/protobuf/struct.proto" not in f.dependency, name
    messages = {m.name: m for m in ours["ramino/v1/game.proto"].message_type}
    for f in ours.values():
        for m in f.message_type:
            for field in m.field:
                assert not field.type_name.startswith(".google.protobuf.Struct"), (m.name, field)
                assert field.type_name not in (
                    ".google.protobuf.Value",
                    ".google.protobuf.ListValue",
                )
    event = messages["GameEvent"]
    # "event", and "_seat" and "_turn" of the optional seat and turn.
    assert [o.name for o in event.oneof_decl] == ["event", "_seat", "_turn"]
    in_oneof = [f for f in event.field if f.HasField("oneof_index") and f.oneof_index == 0]
    assert len(in_oneof) == len(get_args(LogEvent))
    for field in in_oneof:
        assert field.type == descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
        typed = field.type_name.removeprefix(".ramino.v1.")
        assert typed in messages and snake(typed) == field.name
    assert {f.name for f in event.field} == {"version", "seat", "turn", *ONEOF_FIELDS}


async def test_every_event_type_reaches_a_watcher_as_its_typed_message(harness: Harness) -> None:
    """A real game's log, with an entry of every other type appended to it in
    the store: the seat's and the spectator's watch streams get each as its
    own typed message, the drawn card only in the drawer's stream."""
    h = harness
    name, tokens = await seated_game(h, "rummy", 2)
    game_id = name.removeprefix("games/")
    streams = {
        viewer: h.stub.WatchGame(
            game_pb2.WatchGameRequest(name=name, after_version=0),
            metadata=auth(tokens[viewer]) if viewer is not None else None,
        )
        for viewer in (0, None)
    }
    got: dict[int | None, list[game_pb2.GameEvent]] = {0: [], None: []}
    game = await h.app.load(game_id)
    for viewer, stream in streams.items():
        while len(got[viewer]) < game.version:
            got[viewer].append((await stream.read()).event)
    # The rest of the log's types, appended behind the app's back (the
    # watch path only reads them); MatchEnded last: nothing follows it.
    rest = [e for e in SAMPLES if not isinstance(e, GameCreated | GameEnded)]
    lines = []
    for e in rest:
        match e:
            case SeatJoined():
                lines.append(entry("joined", 2.0, seat=e.seat, player_name=e.player_name))
            case SeatTimedOut():
                lines.append(entry("timed_out", 2.0, seat=e.seat))
            case SeatReclaimed():
                lines.append(entry("reclaimed", 2.0, seat=e.seat))
            case _:
                lines.extend(engine_entries([e], 2.0))  # type: ignore[list-item]
    await h.app.store.append(game_id, game.version, lines, h.app.summary(game))
    for viewer, stream in streams.items():
        while got[viewer][-1].WhichOneof("event") != "match_ended":
            got[viewer].append((await stream.read()).event)
    for viewer, events in got.items():
        kinds = [e.WhichOneof("event") for e in events]
        assert kinds[-1] == "match_ended"
        assert set(kinds) >= set(ONEOF_FIELDS) - {"game_ended"}, viewer
        assert all(e.version == i + 1 for i, e in enumerate(events))
    drawn = [e for e in got[0] if e.WhichOneof("event") == "drew_from_stock" and e.seat == 0]
    assert drawn and all(e.drew_from_stock.HasField("card_id") for e in drawn)
    seen = [e for e in got[None] if e.WhichOneof("event") == "drew_from_stock"]
    assert seen and not any(e.drew_from_stock.HasField("card_id") for e in seen)
    # GameEnded, the one type left: a cancelled game's watcher gets it.
    created = await h.stub.CreateGame(
        game_pb2.CreateGameRequest(variant="gin", seats=[game_pb2.SeatConfig(player_name="a")] * 2)
    )
    stream = h.stub.WatchGame(game_pb2.WatchGameRequest(name=created.game.name))
    assert (await stream.read()).HasField("snapshot")
    await h.stub.CancelGame(
        game_pb2.CancelGameRequest(name=created.game.name), metadata=auth(created.creator_token)
    )
    last = await stream.read()
    assert last.event.game_ended.reason == "cancelled"


async def test_game_created_carries_the_typed_overrides_and_views_the_parameters(
    harness: Harness,
) -> None:
    h = harness
    overrides = types_pb2.VariantParameters(
        ace_high=True, joker_penalty=30, scoring=types_pb2.SCORING_WINNER_COLLECTS
    )
    created = await h.stub.CreateGame(
        game_pb2.CreateGameRequest(
            variant="rummy", overrides=overrides, seats=[game_pb2.SeatConfig(player_name="a")] * 2
        )
    )
    name = created.game.name
    stream = h.stub.WatchGame(game_pb2.WatchGameRequest(name=name, after_version=0))
    first = (await stream.read()).event
    stream.cancel()
    assert first.game_created.overrides == overrides
    assert first.game_created.variant == "rummy"
    view = (await h.stub.GetGame(game_pb2.GetGameRequest(name=name))).view
    want = ramino.Variant("rummy", ace_high=True, joker_penalty=30, scoring="winner_collects")
    assert view.variant.parameters == convert.parameters_message(want.to_dict())
    assert view.variant.deck_size == want.deck_size
    assert view.variant.parameters.joker_penalty == 30


async def test_list_variants_describes_every_parameter_of_every_preset_typed(
    harness: Harness,
) -> None:
    port = harness.server.port
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        listed = await rules_pb2_grpc.RulesServiceStub(channel).ListVariants(
            rules_pb2.ListVariantsRequest()
        )
    assert [v.name for v in listed.variants] == list(ramino.PRESETS)
    for v in listed.variants:
        values = ramino.Variant(v.name).to_dict()
        fields = v.parameters.DESCRIPTOR.fields
        for field in fields:
            if field.name == "hand_sizes":
                assert list(v.parameters.hand_sizes) == values["hand_sizes"]
                continue
            assert v.parameters.HasField(field.name), (v.name, field.name)
            got = getattr(v.parameters, field.name)
            choices = convert.CHOICES.get(field.name)
            assert (choices[got] if choices else got) == values[field.name], field.name
        assert len(fields) == len(values) - 2  # all but name and deck_size
        assert v.deck_size == values["deck_size"]
