"""The rules engine's modules: one per phase of play, and the names that
the rest of the service imports from ``ramino.engine.rules`` as before."""

from __future__ import annotations

import importlib

import ramino.engine.rules as rules

PHASES = ("turn", "shape", "draw", "meld", "discard", "gin", "round", "scoring")


def test_rules_public_names_import_from_the_package_as_before() -> None:
    for name in ("Setup", "decide", "follow_up", "round_scores", "match_winners"):
        assert name in rules.__all__
    for name in rules.__all__:
        assert callable(getattr(rules, name))


def test_rules_one_module_per_phase_each_exporting_what_it_defines() -> None:
    for phase in PHASES:
        module = importlib.import_module(f"ramino.engine.rules.{phase}")
        assert module.__doc__
        for name in module.__all__:
            assert getattr(module, name).__module__ == module.__name__
