"""The import graph of ``ramino.app``, read from the source: each module of the
application and the modules of the application it imports (at the top or
inside a function, under ``TYPE_CHECKING`` too), grouped by part: the games'
half (``ramino.app.games``), quick play's half (``ramino.app.quick``), and
the shared parts (the other modules: a game's log and ``HostedGame``, names,
the protocols quick play sees the games through, the values handed to the
transport, and ``GameApp``, which wires both halves).

``.venv/bin/python -m tests.service.app_graph`` prints it, then every arrow
between the halves (none: ``tests/service/test_layers.py`` holds it so).
"""

from __future__ import annotations

import ast
from pathlib import Path

import ramino

PACKAGE = Path(ramino.__file__).parent
APP = PACKAGE / "app"
HALVES = ("ramino.app.games", "ramino.app.quick")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, top_level_only: bool = False, text: str | None = None) -> set[str]:
    """The modules ``path`` (or ``text`` as if it were at ``path``) imports,
    relative imports resolved: every import or, with ``top_level_only``,
    those run when the module is imported (not inside a function, nor under
    ``if TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text() if text is None else text, str(path))
    here = module_name(path).split(".")
    if path.name != "__init__.py":
        here.pop()
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
            found.add(base)
            # ``from ramino.store import tickets`` imports a module too.
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def app_graph() -> dict[str, set[str]]:
    """Each module of ``ramino.app`` and the modules of ``ramino.app`` it
    imports (its own packages left out: their ``__init__`` only names)."""
    modules = {module_name(p): p for p in sorted(APP.rglob("*.py"))}
    return {
        name: {m for m in imports(path) if m in modules and not name.startswith(m)}
        for name, path in modules.items()
    }


def part_of(module: str) -> str:
    """``games``, ``quick`` or ``shared``."""
    for half in HALVES:
        if module == half or module.startswith(half + "."):
            return half.rsplit(".", 1)[1]
    return "shared"


def crossings(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The arrows from one half to the other."""
    return sorted(
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if {part_of(a), part_of(b)} == {"games", "quick"}
    )


def shared_reaching_a_half(graph: dict[str, set[str]], wiring: str) -> list[tuple[str, str]]:
    """The arrows from a shared part into a half, but from ``wiring`` (the
    module that builds both halves)."""
    return sorted(
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if a != wiring and part_of(a) == "shared" and part_of(b) != "shared"
    )


def main() -> None:
    graph = app_graph()
    short = {name: name.removeprefix("ramino.app.") for name in graph}
    for group in ("shared", "games", "quick"):
        print(f"{group}:")
        for name in sorted(n for n in graph if part_of(n) == group):
            targets = ", ".join(short[t] for t in sorted(graph[name])) or "-"
            print(f"  {short[name]} -> {targets}")
    arrows = crossings(graph)
    print("games <-> quick:", ", ".join(f"{a} -> {b}" for a, b in arrows) or "no arrow")


if __name__ == "__main__":
    main()
