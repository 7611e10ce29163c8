"""The engine decides no rule in Python: every rule is the kernel's
(``core_rs/ramino-core/src/game``), and ``ramino.engine`` hands its answers
out under the Python names."""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import ramino.engine

ENGINE = Path(ramino.engine.__file__).parent
SEARCHES = {"best_opening", "min_deadwood", "validate_meld", "extend_meld", "layoff_targets"}
SEARCHES |= {"joker_swaps", "analyze_many"}


def _modules() -> list[tuple[str, ast.Module]]:
    out = []
    for info in pkgutil.iter_modules([str(ENGINE)]):
        path = ENGINE / f"{info.name}.py"
        assert path.exists(), f"ramino.engine.{info.name} is a module, not a package"
        out.append((info.name, ast.parse(path.read_text())))
    return out


def test_no_engine_module_searches_a_hand_or_refuses_a_move_itself() -> None:
    for name, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in SEARCHES:
                raise AssertionError(f"ramino.engine.{name} calls the search {node.attr}")
            if isinstance(node, ast.Name) and node.id in SEARCHES:
                raise AssertionError(f"ramino.engine.{name} calls the search {node.id}")
            if isinstance(node, ast.Raise) and name != "errors":
                text = ast.unparse(node)
                assert (
                    "IllegalMove" not in text and "MalformedCommand" not in text
                ), f"ramino.engine.{name} refuses a command itself: {text}"


def test_the_engine_has_no_fold_of_its_own() -> None:
    for name, tree in _modules():
        defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        for rule in ("apply_event", "decide", "follow_up", "legal_moves", "round_scores"):
            assert rule not in defined or name == "game", f"ramino.engine.{name} defines {rule}"
