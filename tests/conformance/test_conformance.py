"""Every scenario of the conformance suite, replayed through the Python SDK
against a live server in test mode (README.md)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from tests.conformance.runner import HERE, scenarios

SCENARIOS = scenarios()
VARIANTS = ("ramino51", "rami51", "rummy", "gin")


@pytest.mark.parametrize("name", [s.name for s in SCENARIOS])
def test_scenario_replays_through_the_python_sdk(
    name: str, python_run: dict[str, str | None]
) -> None:
    assert python_run[name] is None, python_run[name]


def test_every_variant_has_a_scenario_on_a_known_deal() -> None:
    """Each preset is played on a fixed deal, with facts about its cards."""
    played = set()
    for s in SCENARIOS:
        steps = s.data["steps"]
        variants = {st["args"]["variant"] for st in steps if st["op"] == "create"}
        checks_cards = any(
            ".hand" in f["path"] or ".discardPile" in f["path"]
            for st in steps
            for f in st.get("expect", {}).get("facts", [])
        )
        if checks_cards:
            played |= variants
    assert played >= set(VARIANTS)


def test_the_suite_covers_what_the_format_promises() -> None:
    """Expected errors by reason, a resumed watch, a retried request id."""
    text = "\n".join(json.dumps(s.data) for s in SCENARIOS)
    for needle in (
        '"reason": "VERSION_MISMATCH"',
        '"reason": "TOKEN_INVALID"',
        '"reason": "WRONG_GAME"',
        '"reason": "NOT_YOUR_TURN"',
        '"resume": ',
        '"requestId": ',
    ):
        assert needle in text, needle


@pytest.mark.parametrize("name", [s.name for s in SCENARIOS])
def test_scenario_follows_the_schema(name: str) -> None:
    """``scenario.schema.json`` (README.md in JSON Schema) holds for each file."""
    schema = json.loads((HERE / "scenario.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    data = next(s.data for s in SCENARIOS if s.name == name)
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(data)]
    assert errors == []
