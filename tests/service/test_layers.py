"""The layers, read from the source. Calls go down: nothing below the
transport (``ramino.api``) imports gRPC or the transport, so the application
returns outcomes and raises domain errors that ``ramino.api.errors`` alone
maps to gRPC statuses; and the transport imports no store (it calls the
application and gets values back). The stores beside the games (ratings,
tickets) are laid out as the game store is, one module per backend, with no
import circle among the store's modules."""

from __future__ import annotations

import ast
from pathlib import Path

import ramino

from tests.service.app_graph import (
    app_graph,
    crossings,
    imports,
    module_name,
    part_of,
    shared_reaching_a_half,
)

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
    found = imports_of(PACKAGE / "app/games/duties.py")
    assert not any(n.startswith("ramino.app.application") for n in found)


def test_games_and_quick_play_meet_only_through_the_shared_parts() -> None:
    """``ramino.app`` is two halves, the games' (``app/games/``) and quick
    play's (``app/quick/``), and the shared parts beside them (a game's log
    and ``HostedGame``, names, the protocols quick play sees the games
    through, the values handed to the transport); no module of one half
    imports the other's, and no shared part imports a half but
    ``GameApp``'s module, which wires both (the graph:
    ``python -m tests.service.app_graph``)."""
    graph = app_graph()
    assert {part_of(m) for m in graph} == {"shared", "games", "quick"}
    assert "ramino.app.games.moves" in graph and "ramino.app.quick.matchmaker" in graph
    assert crossings(graph) == []
    assert shared_reaching_a_half(graph, "ramino.app.application") == []
    # the check is not blind: an arrow across is seen, and the wiring's are there
    assert crossings({"ramino.app.quick.play": {"ramino.app.games.cache"}}) != []
    assert {part_of(m) for m in graph["ramino.app.application"]} >= {"games", "quick"}


def test_the_transport_imports_no_store() -> None:
    api = sorted((PACKAGE / "api").glob("*.py"))
    assert len(api) > 10  # every module of the transport is read
    reaching = {
        module_name(path): sorted(
            m for m in imports(path) if m == "ramino.store" or m.startswith("ramino.store.")
        )
        for path in api
    }
    assert {name: found for name, found in reaching.items() if found} == {}


def test_the_check_sees_a_store_import_written_any_way() -> None:
    """The reader is not blind: an import of the store is found however it
    is written, at the top of a module or inside a function."""
    path = PACKAGE / "api" / "match_servicer.py"
    for text in (
        "from ramino.store import open_store\n",
        "import ramino.store.tickets\n",
        "from ramino import store\n",
        "def f():\n    from ramino.store.ratings.redis import RedisRatings\n",
    ):
        assert any(m.startswith("ramino.store") for m in imports(path, text=text)), text


def test_the_stores_import_nothing_of_the_application() -> None:
    """The stores keep records (``TicketRecord``, ``PartyRecord``,
    ``RatingRecord``); the application's ``Ticket``, ``Party`` and ``Rating``
    are made from them on its side, never named below it."""
    store = sorted((PACKAGE / "store").rglob("*.py"))
    assert len(store) > 15
    reaching = {
        module_name(path): sorted(
            m for m in imports(path) if m == "ramino.app" or m.startswith("ramino.app.")
        )
        for path in store
    }
    assert {name: found for name, found in reaching.items() if found} == {}
    assert imports(PACKAGE / "store/tickets/base.py", text="from ramino import app\n") >= {
        "ramino.app"
    }


def test_ratings_and_tickets_are_laid_out_as_the_game_store() -> None:
    for store in ("ratings", "tickets"):
        folder = PACKAGE / "store" / store
        assert folder.is_dir(), f"ramino.store.{store} is a package"
        assert {p.name for p in folder.glob("*.py")} == {
            "__init__.py",
            "base.py",
            "memory.py",
            "sqlite.py",
            "redis.py",
        }
    assert not (PACKAGE / "store" / "ratings_redis.py").exists()
    assert not (PACKAGE / "store" / "tickets_redis.py").exists()


def test_the_store_modules_import_one_another_in_no_circle() -> None:
    """The graph of the store's modules, by the imports run when each is
    imported, has no cycle (a backend imports its package's ``base``, never
    the package, whose ``__init__`` imports the backends)."""
    modules = {module_name(p): p for p in (PACKAGE / "store").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = {m for m in imports(path, top_level_only=True) if m in modules and m != name}
    assert graph["ramino.store.tickets.redis"] >= {"ramino.store.tickets.base"}

    done: set[str] = set()

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            raise AssertionError(" -> ".join([*path[path.index(node) :], node]))
        if node in done:
            return
        for nxt in sorted(graph[node]):
            visit(nxt, [*path, node])
        done.add(node)

    for node in sorted(graph):
        visit(node, [])


def test_a_backend_imports_its_package_base_never_its_package() -> None:
    """The circle the flat modules had (``tickets`` and ``tickets_redis``
    importing each other) cannot come back: a backend takes its values and
    protocol from ``base``, and only the package's ``__init__`` names the
    backends."""
    for store in ("ratings", "tickets"):
        package = f"ramino.store.{store}"
        for backend in ("memory", "sqlite", "redis"):
            found = imports(PACKAGE / "store" / store / f"{backend}.py")
            assert f"{package}.base" in found, backend
            assert package not in found, (store, backend)
        assert not {m for m in imports(PACKAGE / "store" / store / "base.py")} & {
            f"{package}.{b}" for b in ("memory", "sqlite", "redis")
        }
