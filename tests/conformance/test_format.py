"""The format's small languages as README.md defines them, pinned on
examples: paths, JSON equality, normalization, canonical JSON."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conformance.runner import Mismatch, canonical, evaluate, normalize, same

RESPONSE: dict[str, Any] = {
    "result": {
        "events": [
            {"version": "5", "seat": 0, "discarded": {"cardId": 51}},
            {"version": "6", "roundEnded": {"scores": [3, 0]}},
        ],
        "view": {"hand": [{"code": "4H", "id": 68}, {"code": "AS", "id": 0}], "turn": 1},
        "legalMoves": [],
    }
}
WATCHED = {
    "messages": [
        {"version": "4", "snapshot": {"hand": []}},
        {"version": "5", "event": {"version": "5", "seat": 1, "drewFromStock": {}}},
    ]
}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("result.view.turn", 1),
        ("result.view.hand.#", 2),
        ("result.view.hand.-1.code", "AS"),
        ("result.view.hand.0.id", 68),
        ("result.view.hand.2", None),
        ("result.view.hand.*.code", ["4H", "AS"]),
        ("result.view.knocker", None),
        ("result.view.knocker.anything.0", None),
        ("result.legalMoves", []),
        ("result.events.*.@kind", ["discarded", "roundEnded"]),
        ("result.events.*.seat", [0, None]),
        ("result.events.1.roundEnded.scores", [3, 0]),
        ("result.events.*.discarded.cardId", [51, None]),
    ],
)
def test_a_path_gives_its_value(path: str, value: Any) -> None:
    assert same(evaluate(RESPONSE, path), value)


def test_the_kind_of_a_watch_message_is_snapshot_or_its_event() -> None:
    assert evaluate(WATCHED, "messages.*.@kind") == ["snapshot", "drewFromStock"]
    assert evaluate(WATCHED, "messages.1.event.drewFromStock") == {}


@pytest.mark.parametrize(
    "path",
    ["result.events.turn", "result.view.#", "result.view.turn.0", "result.@kind", "result.*"],
)
def test_a_path_of_the_wrong_shape_fails(path: str) -> None:
    with pytest.raises(Mismatch):
        evaluate(RESPONSE, path)


def test_json_equality_tells_types_apart() -> None:
    assert same({"a": [1, "2"]}, {"a": [1, "2"]})
    assert not same(1, "1")
    assert not same(1, True) and not same(0, False)
    assert not same({"a": 1}, {"a": 1, "b": None})
    assert not same([1, 2], [2, 1])


def test_normalization_hides_tokens_times_and_game_ids() -> None:
    raw = {
        "seatToken": "eyJ...",
        "game": {"name": "games/ab12", "createTime": "2026-11-30T14:00:00Z", "other": "games/zz"},
        "view": {"turnDeadline": "2026-11-30T14:01:00Z", "name": "games/ab12"},
    }
    assert normalize(raw, {"games/ab12": "g"}) == {
        "seatToken": "<token>",
        "game": {"name": "games/g", "createTime": "<time>", "other": "games/zz"},
        "view": {"turnDeadline": "<time>", "name": "games/g"},
    }


def test_canonical_json_sorts_keys_and_has_no_whitespace() -> None:
    value = {"b": [1, {"z": True, "a": None}], "a": 'x\ny\u0001"é'}
    assert canonical(value) == '{"a":"x\\ny\\u0001\\"é","b":[1,{"a":null,"z":true}]}'


def test_normalization_hides_the_text_of_a_refused_answer_only() -> None:
    answer = {
        "requestId": "d1",
        "error": {"code": 10, "message": "game 9f2c is at version 7, not 5", "details": []},
    }
    other = {"error": {"message": "kept"}, "message": "kept"}
    assert normalize({"answer": answer, "other": other}, {}) == {
        "answer": {"requestId": "d1", "error": {"code": 10, "message": "<message>", "details": []}},
        "other": {"error": {"message": "kept"}, "message": "kept"},
    }


def test_the_kind_of_a_session_message_is_its_payload() -> None:
    messages = {
        "messages": [
            {"version": "5", "answer": {"requestId": "d1", "result": {}}, "options": {}},
            {"version": "6", "event": {"version": "6", "seat": 1, "turn": 0, "discarded": {}}},
        ]
    }
    messages["messages"].append({"version": "6", "options": {"version": "6", "moves": []}})
    assert evaluate(messages, "messages.*.@kind") == ["answer", "discarded", "options"]
