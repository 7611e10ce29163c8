"""The differential proof of issue 31 at CI size (``bench/kernel_differential.py``
runs it in full): the frozen Python engine (``tests/engine_reference``) and the
Rust kernel (``ramino._core.GameKernel``) play the same games command by
command, with the same answers; so do the reference and the live engine
(``ramino.engine``), which tests the harness itself; a seat's view, legal moves
and hint ignore the cards it cannot see; and the golden vectors of
``tests/vectors/games`` replay on the live engine with every output they keep.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import ramino

from tests.engine import differential as d
from tests.engine.differential import (
    KernelSide,
    LiveSide,
    Mismatch,
    ParameterSet,
    ReferenceSide,
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

KERNEL_GAMES = 10
"""Games per parameter set against the kernel here (the bench plays 2,000)."""
LIVE_GAMES = 2
CI_MAX_STEPS = 600
"""Commands after which a CI game is closed by resignations (the bench plays
every match to its end, up to 1,500 commands)."""


def _games(index: int, count: int) -> list[int]:
    """Game numbers of the ``index``-th parameter set: spread so that every
    policy plays every variant across the sets."""
    return [(index + 3 * k) % 8 + 8 * (k // 8) for k in range(count)]


def _id(ps: ParameterSet) -> str:
    return ps.label


@pytest.mark.parametrize("index", range(len(SETS)), ids=[_id(ps) for ps in SETS])
def test_the_kernel_plays_as_the_reference_does(index: int) -> None:
    ps = SETS[index]
    for game in _games(index, KERNEL_GAMES):
        play_and_compare(
            ps.variant,
            ps.overrides,
            ps.players,
            seed_of(ps, game),
            policy_of(game),
            against=KernelSide,
            max_steps=CI_MAX_STEPS,
        )


@pytest.mark.parametrize("variant", ["ramino51", "rami51", "rummy", "gin"])
def test_the_kernel_keeps_hidden_cards_hidden(variant: str) -> None:
    v = ramino.Variant(variant)
    for seed in range(6):
        players = v.min_players + seed % (v.max_players - v.min_players + 1)
        hidden_information(KernelSide, variant, {}, players, seed)


@pytest.mark.parametrize("index", range(len(SETS)), ids=[_id(ps) for ps in SETS])
def test_the_live_engine_plays_as_the_reference_does(index: int) -> None:
    ps = SETS[index]
    for game in _games(index, LIVE_GAMES):
        play_and_compare(
            ps.variant,
            ps.overrides,
            ps.players,
            seed_of(ps, game),
            policy_of(game),
            against=LiveSide,
            max_steps=CI_MAX_STEPS,
        )


@pytest.mark.parametrize("variant", ["ramino51", "rami51", "rummy", "gin"])
def test_a_seat_sees_nothing_of_the_hidden_cards(variant: str) -> None:
    v = ramino.Variant(variant)
    for seed in range(6):
        players = v.min_players + seed % (v.max_players - v.min_players + 1)
        assert hidden_information(ReferenceSide, variant, {}, players, seed) == 2 * players
        assert hidden_information(LiveSide, variant, {}, players, seed) == 2 * players
    import ramino.engine as live

    assert hidden_information_midgame(variant, {}, v.min_players + 1 if variant != "gin" else 2, 3)
    assert hidden_information_midgame(variant, {}, v.min_players, 4, engine=live)


def _vectors() -> list[dict[str, Any]]:
    with gzip.open(VECTORS, "rt") as f:
        return [json.loads(line) for line in f]


def test_the_golden_vectors_cover_every_parameter_set() -> None:
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
        replay_vector(LiveSide(), vector)


# --- the harness itself ---------------------------------------------------------


class _LiveWithAWrongReason(LiveSide):
    """The live engine with one refusal's reason changed."""

    def decide(self, seat: Any, command: Any) -> Any:
        answer = super().decide(seat, command)
        if answer[:2] == ["IllegalMove", ramino.reasons.NOT_YOUR_TURN]:
            return ["IllegalMove", ramino.reasons.MUST_DRAW_FIRST, None]
        return answer


class _LiveWithAnotherHint(LiveSide):
    """The live engine advising another discard once a seat has drawn."""

    def hint(self, seat: int, with_legal: bool) -> Any:
        h = super().hint(seat, with_legal)
        if h is not None and self.game.state.phase == "play" and self.game.turn == seat:
            h = {**h, "discard": -1}
        return h


def test_the_harness_reports_a_different_refusal_with_its_replay() -> None:
    with pytest.raises(Mismatch) as caught:
        play_and_compare("rummy", {}, 3, 11, "random", against=_LiveWithAWrongReason)
    text = str(caught.value)
    assert "a probe" in text or "decision" in text
    assert "play_and_compare('rummy', {}, 3, seed=11, policy='random'" in text
    assert "NOT_YOUR_TURN" in text and "MUST_DRAW_FIRST" in text


def test_the_harness_reports_a_different_hint() -> None:
    with pytest.raises(Mismatch, match="the hint of seat"):
        play_and_compare("gin", {}, 2, 5, "greedy", against=_LiveWithAnotherHint)


def test_a_vector_replay_fails_on_a_changed_output() -> None:
    vector = play_and_compare("ramino51", {}, 3, 2, "greedy", record=True).vector
    assert vector is not None
    replay_vector(LiveSide(), vector)
    tampered = json.loads(json.dumps(vector))
    step = tampered["steps"][len(tampered["steps"]) // 2]
    step["events"][0]["seat"] = (step["events"][0].get("seat", 0) + 1) % 3
    with pytest.raises(Mismatch, match="events"):
        replay_vector(LiveSide(), tampered)
    tampered = json.loads(json.dumps(vector))
    tampered["steps"][3]["moves"] = "0" * 10
    with pytest.raises(Mismatch, match="legal moves and hints"):
        replay_vector(LiveSide(), tampered)


def test_the_state_compared_is_every_field_of_the_reference_state() -> None:
    side = ReferenceSide()
    side.new("gin", {}, ["a", "b"], 1)
    state = side.state()
    from tests.engine_reference.state import State

    assert list(state) == [f.name for f in dataclasses.fields(State)]
    assert set(state["seats"][0]) == {
        "name",
        "hand",
        "opened",
        "first_laid_turn",
        "turns",
        "resigned",
        "total",
    }


def test_the_reference_lists_gin_melds_in_rank_then_suit_order() -> None:
    from tests.engine_reference.moves import hand_melds

    names = ["KC", "5H", "5S", "QC", "5D", "JC", "2S", "3S", "AS", "5C"]
    melds = hand_melds(names, ramino.Variant("gin"))
    assert melds[:5] == [
        ["5S", "5H", "5D"],
        ["5S", "5H", "5C"],
        ["5S", "5D", "5C"],
        ["5H", "5D", "5C"],
        ["5S", "5H", "5D", "5C"],
    ]
    assert melds[5:] == [["AS", "2S", "3S"], ["JC", "QC", "KC"]]
