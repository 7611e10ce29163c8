"""The golden games of issue 31 (``tests/vectors/games``): games that the
Python engine the kernel replaced played, inputs and expected outputs, replay
with every output they keep on the live engine (``ramino.engine``) and on the
raw binding (``ramino._core.GameKernel``); between them they hold every
parameter set, every policy and every way a round ends. The live engine and
the binding also play fresh games side by side with the same answers (which
tests the engine's conversions against the binding); a seat's view, legal
moves and hint ignore the cards it cannot see; and the harness reports a
difference with how to replay it.

The differential proof that made the vectors, the frozen Python engine
beside the kernel on thousands of games per parameter set, ran at commit
43b0902 (``bench/kernel_differential.py`` there).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import ramino
from ramino.engine import Hint
from ramino.engine.state import Seat, State, TableMeld

from tests.engine import differential as d
from tests.engine.differential import (
    KernelSide,
    LiveSide,
    Mismatch,
    ParameterSet,
    hidden_information,
    hidden_information_midgame,
    parameter_sets,
    play_and_compare,
    policy_of,
    replay_vector,
    seed_of,
)

SETS = parameter_sets()
VECTORS = Path(__file__).resolve().parents[1] / "vectors" / "games" / "games.jsonl.gz"

CI_MAX_STEPS = 600
"""Commands after which a fresh game played on the live engine beside the
binding is closed by resignations."""


@cache
def _vectors() -> list[dict[str, Any]]:
    with gzip.open(VECTORS, "rt") as f:
        return [json.loads(line) for line in f]


def _copy(vector: dict[str, Any]) -> dict[str, Any]:
    copied: dict[str, Any] = json.loads(json.dumps(vector))
    return copied


def _id(ps: ParameterSet) -> str:
    return ps.label


# --- the vectors ----------------------------------------------------------------


def test_the_golden_vectors_cover_every_parameter_set_policy_and_ending() -> None:
    vectors = _vectors()
    labels = {ParameterSet(v["variant"], v["overrides"], len(v["players"])).label for v in vectors}
    assert labels == {ps.label for ps in SETS}
    assert {v["policy"] for v in vectors} == set(d.POLICIES)
    endings = {
        e["ending"]
        for v in vectors
        for s in v["steps"]
        for e in s["events"]
        if e["type"] == "RoundEnded"
    }
    assert {"went_out", "stock_exhausted", "resignations", "turn_limit", "knock", "gin"} <= endings


def test_the_golden_vectors_replay_on_the_live_engine() -> None:
    for vector in _vectors():
        stats = replay_vector(LiveSide(), vector)
        assert stats.commands == len(vector["steps"])


def test_the_golden_vectors_replay_on_the_kernel() -> None:
    for vector in _vectors():
        stats = replay_vector(KernelSide(), vector)
        assert stats.commands == len(vector["steps"])


def test_the_state_compared_is_every_field_of_the_engines_state() -> None:
    assert d.STATE_FIELDS == tuple(f.name for f in dataclasses.fields(State))
    assert d.SEAT_FIELDS == tuple(f.name for f in dataclasses.fields(Seat))
    meld_fields = tuple(f.name for f in dataclasses.fields(TableMeld) if f.name != "view")
    assert d.MELD_FIELDS == meld_fields
    assert d.HINT_FIELDS == tuple(f.name for f in dataclasses.fields(Hint))
    side = LiveSide()
    side.new("ramino51", {}, ["a", "b"], 1)
    state = side.state()
    assert tuple(state) == d.STATE_FIELDS
    assert tuple(state["seats"][0]) == d.SEAT_FIELDS


# --- the live engine beside the binding ----------------------------------------


@pytest.mark.parametrize("index", range(len(SETS)), ids=[_id(ps) for ps in SETS])
def test_the_live_engine_plays_as_the_kernel_does(index: int) -> None:
    ps = SETS[index]
    for game in range(len(d.GAME_POLICIES)):  # every policy at every parameter set
        result = play_and_compare(
            ps.variant,
            ps.overrides,
            ps.players,
            seed_of(ps, game),
            policy_of(game),
            against=KernelSide,
            max_steps=CI_MAX_STEPS,
        )
        assert result.stats.commands > 0 and result.winners


# --- hidden information ----------------------------------------------------------


@pytest.mark.parametrize("variant", ["ramino51", "rami51", "rummy", "gin"])
def test_a_seat_sees_nothing_of_the_hidden_cards(variant: str) -> None:
    v = ramino.Variant(variant)
    for seed in range(6):
        players = v.min_players + seed % (v.max_players - v.min_players + 1)
        assert hidden_information(LiveSide, variant, {}, players, seed) == 2 * players
        assert hidden_information(KernelSide, variant, {}, players, seed) == 2 * players
    assert hidden_information_midgame(variant, {}, v.min_players + 1 if variant != "gin" else 2, 3)
    assert hidden_information_midgame(variant, {}, v.min_players, 4)


# --- the harness itself ---------------------------------------------------------


class _KernelWithAWrongReason(KernelSide):
    """The binding with one refusal's reason changed."""

    def decide(self, seat: Any, command: Any) -> Any:
        answer = super().decide(seat, command)
        if answer[:2] == ["IllegalMove", ramino.reasons.NOT_YOUR_TURN]:
            return ["IllegalMove", ramino.reasons.MUST_DRAW_FIRST, None]
        return answer


class _KernelWithAnotherHint(KernelSide):
    """The binding advising another discard once a seat has drawn."""

    def hint(self, seat: int, with_legal: bool) -> Any:
        h = super().hint(seat, with_legal)
        state = self.kernel.state()
        if h is not None and state.phase == "play" and state.turn == seat:
            h = {**h, "discard": -1}
        return h


class _KernelWithAnotherSeat(KernelSide):
    """The binding giving every event after the deal to the next seat."""

    def apply(self, seat: Any, command: Any) -> Any:
        answer = super().apply(seat, command)
        if answer[0] == "ok" and answer[1] and "seat" in answer[1][0]:
            first = answer[1][0]
            answer[1][0] = {**first, "seat": (first["seat"] + 1) % len(self.kernel.state().seats)}
        return answer


def test_the_harness_reports_a_different_refusal_with_its_replay() -> None:
    with pytest.raises(Mismatch) as caught:
        play_and_compare("rummy", {}, 3, 11, "random", against=_KernelWithAWrongReason)
    text = str(caught.value)
    assert "a probe" in text or "decision" in text
    assert "play_and_compare('rummy', {}, 3, seed=11, policy='random'" in text
    assert "NOT_YOUR_TURN" in text and "MUST_DRAW_FIRST" in text


def test_the_harness_reports_a_different_hint() -> None:
    with pytest.raises(Mismatch, match="the hint of seat"):
        play_and_compare("gin", {}, 2, 5, "greedy", against=_KernelWithAnotherHint)


def test_the_harness_reports_different_events() -> None:
    with pytest.raises(Mismatch, match="the command's events and turns"):
        play_and_compare("ramino51", {}, 3, 2, "greedy", against=_KernelWithAnotherSeat)


def _smallest(variant: str) -> dict[str, Any]:
    return min((v for v in _vectors() if v["variant"] == variant), key=lambda v: len(v["steps"]))


def test_a_vector_replay_fails_on_a_changed_output() -> None:
    vector = _smallest("ramino51")
    players = len(vector["players"])
    tampered = _copy(vector)
    step = next(
        s for s in tampered["steps"][len(tampered["steps"]) // 2 :] if "seat" in s["events"][0]
    )
    step["events"][0]["seat"] = (step["events"][0]["seat"] + 1) % players
    with pytest.raises(Mismatch, match="the command's events and turns"):
        replay_vector(LiveSide(), tampered)
    tampered = _copy(vector)
    tampered["steps"][3]["moves"] = "0" * 10
    with pytest.raises(Mismatch, match="legal moves and hints"):
        replay_vector(LiveSide(), tampered)
    tampered = _copy(vector)
    tampered["steps"][-1]["state"] = "0" * 10
    with pytest.raises(Mismatch, match="the state's digest"):
        replay_vector(KernelSide(), tampered)
    tampered = _copy(vector)
    tampered["winners"] = [players]
    with pytest.raises(Mismatch, match="the winners"):
        replay_vector(KernelSide(), tampered)


def test_a_vector_replay_reports_a_different_refusal_with_the_vector() -> None:
    vector = next(
        v
        for v in _vectors()
        for s in v["steps"]
        for _, _, answer in s["probes"]
        if answer[:2] == ["IllegalMove", ramino.reasons.NOT_YOUR_TURN]
    )
    with pytest.raises(Mismatch, match="a probe") as caught:
        replay_vector(_KernelWithAWrongReason(), vector)
    text = str(caught.value)
    assert f"vector {vector['variant']} " in text and f"seed={vector['seed']}" in text
    assert "NOT_YOUR_TURN" in text and "MUST_DRAW_FIRST" in text


def test_a_vector_of_another_format_is_refused() -> None:
    vector = {**_smallest("gin"), "format": "ramino.differential/0"}
    with pytest.raises(ValueError, match="not a vector of ramino.differential/1"):
        replay_vector(LiveSide(), vector)
