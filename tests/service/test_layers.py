"""Calls go down: nothing below the transport (``ramino.api``) imports gRPC
or the transport, so the application returns outcomes and raises domain
errors that ``ramino.api.errors`` alone maps to gRPC statuses."""

from __future__ import annotations

import ast
from pathlib import Path

import ramino

PACKAGE = Path(ramino.__file__).parent
BELOW_API = ["app", "engine", "store", "bots", "errors.py", "limits.py", "pool.py"]


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_no_module_below_the_transport_imports_grpc_or_the_api() -> None:
    files = []
    for part in BELOW_API:
        where = PACKAGE / part
        files.extend(sorted(where.rglob("*.py")) if where.is_dir() else [where])
    assert len(files) > 20
    for path in files:
        for name in imports_of(path):
            assert not name.startswith(("grpc", "ramino.api", "google.rpc")), (path, name)


def test_duties_know_the_application_only_through_their_protocol() -> None:
    assert not any(n.startswith("ramino.app.games") for n in imports_of(PACKAGE / "app/duties.py"))
