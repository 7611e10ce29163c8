"""Records: stable versioned JSON, replay to the identical state, refusal of
corrupted records; commands and events as data."""

from __future__ import annotations

import json

import pytest
from engine_helpers import play_out
from ramino.engine import (
    COMMAND_TYPES,
    FORMAT_VERSION,
    AcceptLayout,
    Discard,
    DrawFromStock,
    Game,
    Knock,
    LayMelds,
    LayOff,
    MalformedCommand,
    PassUpcard,
    Record,
    RecordError,
    RoundEnded,
    RoundStarted,
    command_from_data,
    event_from_data,
    reasons,
    to_data,
)


def _finished(variant: str = "ramino51", players: int = 3, seed: int = 1) -> Game:
    g = Game.new(
        variant,
        [f"p{i}" for i in range(players)],
        seed=seed,
        overrides={"max_rounds": 2} if variant != "rummy" else None,
    )
    play_out(g, ["greedy", "random", "greedy", "random"][:players], seed=seed)
    return g


@pytest.mark.parametrize("variant", ["ramino51", "rami51", "rummy"])
def test_record_json_round_trip_replays_to_the_identical_state(variant: str) -> None:
    g = _finished(variant)
    text = g.record.to_json()
    record = Record.from_json(text)
    assert record.to_json() == text
    replayed = Game.from_record(record)
    assert replayed.state == g.state
    assert replayed.version == g.version == len(g.record.events)
    assert replayed.view(0) == g.view(0)


def test_replay_of_every_prefix_at_a_command_boundary() -> None:
    g = Game.new("rummy", ["a", "b"], seed=5)
    bounds = [g.version]
    from ramino.bots import make_bot

    bots = [make_bot("greedy", 1), make_bot("random", 2)]
    for _ in range(60):
        if g.finished:
            break
        seat = g.state.turn
        g.apply(seat, bots[seat].choose(g, seat))
        bounds.append(g.version)
    for b in bounds:
        prefix = Record.from_data(
            {**g.record.to_data(), "events": g.record.to_data()["events"][:b]}
        )
        partial = Game.from_record(prefix)
        assert partial.version == b


def test_record_format_is_stable_and_versioned() -> None:
    g = Game.new("rummy", ["a", "b"], seed=2**255 + 3, overrides={"ace_high": True})
    data = json.loads(g.record.to_json())
    assert data["format"] == "ramino.record"
    assert data["format_version"] == FORMAT_VERSION == 1
    assert data["seed"] == str(2**255 + 3)
    assert data["overrides"] == {"ace_high": True}
    assert data["events"][0]["type"] == "RoundStarted"
    assert list(data) == sorted(data)
    again = Game.new("rummy", ["a", "b"], seed=2**255 + 3, overrides={"ace_high": True})
    assert again.record.to_json() == g.record.to_json()


def test_record_of_another_version_is_refused() -> None:
    data = Game.new("rummy", ["a", "b"], seed=1).record.to_data()
    data["format_version"] = 2
    with pytest.raises(RecordError) as e:
        Record.from_data(data)
    assert e.value.reason == reasons.RECORD_VERSION
    with pytest.raises(RecordError) as e:
        Record.from_json("{not json")
    assert e.value.reason == reasons.RECORD_FORMAT
    with pytest.raises(RecordError):
        Record.from_data({"format": "something else"})


def test_corrupted_record_is_refused() -> None:
    g = Game.new("rummy", ["a", "b"], seed=3)
    g.apply(0, DrawFromStock())
    data = g.record.to_data()
    # The drawn card is not the top of the stock.
    data["events"][1]["card"] = (data["events"][1]["card"] + 1) % 52
    with pytest.raises(RecordError) as e:
        Game.from_record(Record.from_data(data))
    assert e.value.reason == reasons.RECORD_INCONSISTENT
    assert isinstance(e.value, ValueError)
    bad_type = g.record.to_data()
    bad_type["events"][1]["card"] = "seven"
    with pytest.raises(RecordError) as e:
        Record.from_data(bad_type)
    assert e.value.reason == reasons.RECORD_FORMAT
    unknown = g.record.to_data()
    unknown["events"].append({"type": "Teleported", "seat": 0})
    with pytest.raises(RecordError):
        Record.from_data(unknown)


def test_record_cut_halfway_through_a_step_is_refused() -> None:
    g = _finished("rummy", 2, seed=4)
    events = g.record.to_data()["events"]
    cut = next(i for i, e in enumerate(events) if e["type"] == "RoundEnded") + 1
    data = {**g.record.to_data(), "events": events[:cut]}
    with pytest.raises(RecordError) as e:
        Game.from_record(Record.from_data(data))
    assert e.value.reason == reasons.RECORD_INCONSISTENT


def test_record_header_is_checked() -> None:
    data = Game.new("rummy", ["a", "b"], seed=3).record.to_data()
    data["players"] = ["only one"]
    with pytest.raises(RecordError):
        Game.from_record(Record.from_data(data))
    data = Game.new("rummy", ["a", "b"], seed=3).record.to_data()
    data["overrides"] = {"no_such_parameter": 1}
    with pytest.raises(RecordError):
        Game.from_record(Record.from_data(data))


def test_a_game_continues_after_a_reload() -> None:
    g = Game.new("rummy", ["a", "b"], seed=6, overrides={"max_rounds": 3, "target_score": 0})
    twin = Game.new("rummy", ["a", "b"], seed=6, overrides={"max_rounds": 3, "target_score": 0})
    from ramino.bots import make_bot

    bots = [make_bot("greedy", 1), make_bot("greedy", 2)]
    twins = [make_bot("greedy", 1), make_bot("greedy", 2)]
    steps = 0
    while not g.finished:
        if steps % 17 == 0:
            g = Game.from_record(Record.from_json(g.record.to_json()))
        seat = g.state.turn
        g.apply(seat, bots[seat].choose(g, seat))
        twin.apply(seat, twins[seat].choose(twin, seat))
        steps += 1
    assert twin.finished and twin.record.to_json() == g.record.to_json()


def test_commands_as_data() -> None:
    for cmd in (
        DrawFromStock(),
        Discard(4),
        LayMelds(((1, 2, 3), (7, 8, 9))),
        LayOff(3, 1, "start"),
        PassUpcard(),
        Knock(5, ((1, 2, 3),)),
        Knock(None, ()),
        AcceptLayout(),
    ):
        assert command_from_data(json.loads(json.dumps(to_data(cmd)))) == cmd
    assert set(COMMAND_TYPES) == {
        "DrawFromStock",
        "TakeDiscard",
        "TurnOverDiscardPile",
        "LayMelds",
        "LayOff",
        "SwapJoker",
        "Discard",
        "Resign",
        "PassUpcard",
        "Knock",
        "AcceptLayout",
    }
    assert command_from_data({"type": "LayOff", "card": 3, "meld": 1}) == LayOff(3, 1, "end")
    with pytest.raises(MalformedCommand) as e:
        command_from_data({"type": "Fly"})
    assert e.value.reason == reasons.UNKNOWN_COMMAND
    with pytest.raises(MalformedCommand) as e:
        command_from_data({"type": "Discard", "card": True})
    assert e.value.reason == reasons.BAD_FIELD
    with pytest.raises(MalformedCommand):
        command_from_data({"type": "LayOff", "card": 3, "meld": 1, "end": "middle"})
    with pytest.raises(MalformedCommand):
        command_from_data({"type": "Discard", "card": 3, "extra": 1})


def test_events_as_data() -> None:
    g = _finished("ramino51", 2, seed=8)
    for e in g.record.events:
        assert event_from_data(json.loads(json.dumps(to_data(e)))) == e
    kinds = {type(e).__name__ for e in g.record.events}
    assert {"RoundStarted", "RoundEnded", "MatchEnded", "Discarded"} <= kinds
    started = g.record.events[0]
    assert isinstance(started, RoundStarted) and started.stock is not None
    assert any(isinstance(e, RoundEnded) for e in g.record.events)


def test_a_rounds_score_parts_are_kept_in_the_record_and_sum_to_its_scores() -> None:
    g = _finished("ramino51", 2, seed=8)
    ended = [e for e in g.record.events if isinstance(e, RoundEnded)]
    assert ended
    for e in ended:
        assert len(e.parts) == len(e.scores)
        assert [sum(p.points for p in seat) for seat in e.parts] == list(e.scores)
        data = json.loads(json.dumps(to_data(e)))
        assert all(isinstance(p, dict) and "kind" in p for seat in data["parts"] for p in seat)
        assert event_from_data(data) == e


def test_a_round_logged_before_score_parts_loads_with_none_and_folds() -> None:
    g = _finished("ramino51", 2, seed=8)
    old = []
    for e in g.record.events:
        data = to_data(e)
        if data["type"] in ("RoundEnded", "MatchEnded"):
            del data["parts"]
        old.append(json.loads(json.dumps(data)))
    events = [event_from_data(d) for d in old]
    assert all(e.parts == () for e in events if isinstance(e, RoundEnded))
    replayed = Game.from_record(Record.from_data({**g.record.to_data(), "events": old}))
    assert [s.total for s in replayed.state.seats] == [s.total for s in g.state.seats]
    assert replayed.finished


def test_score_parts_that_are_not_parts_are_refused() -> None:
    g = _finished("ramino51", 2, seed=8)
    ended = next(e for e in g.record.events if isinstance(e, RoundEnded))
    data = json.loads(json.dumps(to_data(ended)))
    data["parts"][0][0]["kind"] = "bribe"
    with pytest.raises(RecordError, match="parts"):
        event_from_data(data)
    data = json.loads(json.dumps(to_data(ended)))
    data["parts"][0][0]["colour"] = 1
    with pytest.raises(RecordError, match="unknown fields"):
        event_from_data(data)
