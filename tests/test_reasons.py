"""The one registry of reasons (``ramino.reasons``): every reason the
service raises is registered with the status code it is raised with, and
the SDKs' tables generated from it are current (``make reasons``)."""

from __future__ import annotations

import ast
from pathlib import Path

import grpc
import pytest
import ramino
from ramino import reasons
from ramino.api.errors import ApiError, status_for
from ramino.engine.errors import IllegalMove, InvalidSetup, MalformedCommand, RecordError
from ramino.errors import OutOfRange
from ramino.reasons import REGISTRY, Code
from ramino.store import GameExists, GameNotFound, StoreUnavailable, VersionConflict
from ramino.store.redis import NotReplicated

from backend import ramino_reasons

SERVICE = Path(__file__).resolve().parent.parent / "service" / "ramino"

# The status code of each error class (or helper) that takes a reason, as
# ramino.api.errors maps it; ApiError names its own.
RAISED_AS = {
    "IllegalMove": Code.FAILED_PRECONDITION,
    "_illegal": Code.FAILED_PRECONDITION,
    "_may_touch_table": Code.FAILED_PRECONDITION,
    "_malformed": Code.INVALID_ARGUMENT,
    "_fail": Code.INVALID_ARGUMENT,
    "GameStateError": Code.FAILED_PRECONDITION,
    "BadRequest": Code.INVALID_ARGUMENT,
    "OutOfRange": Code.OUT_OF_RANGE,
    "MalformedCommand": Code.INVALID_ARGUMENT,
    "InvalidSetup": Code.INVALID_ARGUMENT,
    "RecordError": Code.INVALID_ARGUMENT,
    "invalid": Code.INVALID_ARGUMENT,
    "check_cards": Code.INVALID_ARGUMENT,
    "NotPermitted": Code.PERMISSION_DENIED,
    "_beside_player": Code.PERMISSION_DENIED,
    "Busy": Code.RESOURCE_EXHAUSTED,
    "Interrupted": Code.UNAVAILABLE,
    "make_status": None,
}


def test_every_constant_is_its_own_name_and_registered_once() -> None:
    names = [n for n in dir(reasons) if n.isupper() and isinstance(getattr(reasons, n), str)]
    assert sorted(names) == sorted(REGISTRY)
    for name in names:
        assert getattr(reasons, name) == name == REGISTRY[name].name
        assert REGISTRY[name].meaning and not REGISTRY[name].meaning.endswith(".")
    assert reasons.ALL == frozenset(REGISTRY)
    with pytest.raises(ValueError, match="twice"):
        reasons._reason("NOT_YOUR_TURN", Code.INTERNAL, "again", "illegal")


def _raise_sites() -> list[tuple[str, str, Code | None, str]]:
    """(file:line, reason, code the call raises it with, callee) of every call
    in the service that passes a reason constant."""
    sites = []
    for path in sorted(SERVICE.rglob("*.py")):
        if "v1" in path.parts or path.name == "reasons.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            given = [
                a.attr
                for a in node.args
                if isinstance(a, ast.Attribute)
                and isinstance(a.value, ast.Name)
                and a.value.id in ("R", "r", "reasons")
            ]
            if not given:
                continue
            func = node.func
            callee = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "?")
            if callee in ("ApiError", "make_status"):
                first = node.args[0]
                assert isinstance(first, ast.Attribute), f"{path}:{node.lineno}"
                code: Code | None = Code(first.attr)
            else:
                code = RAISED_AS.get(callee, None)
                if callee not in RAISED_AS:
                    code = Code.OK  # a reason handed on, not raised: checked where raised
            where = f"{path.relative_to(SERVICE)}:{node.lineno}"
            sites += [(where, reason, code, callee) for reason in given]
    return sites


def test_every_reason_is_raised_with_its_registered_code() -> None:
    sites = _raise_sites()
    assert len(sites) > 100
    wrong = [
        (where, reason, code, REGISTRY[reason].code)
        for where, reason, code, _ in sites
        if code is not None
        and code != Code.OK
        and code not in (REGISTRY[reason].code, REGISTRY[reason].also)
    ]
    assert wrong == []


@pytest.mark.parametrize(
    ("cls", "group"),
    [
        (IllegalMove, "illegal"),
        (MalformedCommand, "malformed"),
        (InvalidSetup, "setup"),
        (RecordError, "record"),
    ],
)
def test_the_engines_reasons_go_out_with_their_registered_code(cls: type, group: str) -> None:
    for r in REGISTRY.values():
        if r.group == group:
            status = status_for(cls("why", r.name))
            assert status is not None and status.code.name == r.code.value, r.name


def test_the_stores_errors_sit_under_the_root_with_their_reasons() -> None:
    errors = [
        VersionConflict("g", 1, 2),
        GameNotFound("g"),
        GameExists("g"),
        NotReplicated(1, 0),
        StoreUnavailable(),
        ApiError(grpc.StatusCode.UNAUTHENTICATED, reasons.TOKEN_INVALID, "bad token"),
        OutOfRange("past the game", reasons.AFTER_VERSION_OUT_OF_RANGE),
    ]
    for error in errors:
        assert isinstance(error, ramino.RaminoError)
        status = status_for(error)
        assert status is not None and status.code.name == REGISTRY[error.reason].code.value


def test_the_sdks_reason_tables_are_current() -> None:
    assert ramino_reasons.stale() == [], "run `make reasons`"


def test_a_stale_table_is_found(tmp_path: Path) -> None:
    for path, render in ramino_reasons.TABLES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(render())
    assert ramino_reasons.stale(tmp_path) == []
    go = tmp_path / "clients/go/reasons_gen.go"
    go.write_text(go.read_text().replace('"NOT_YOUR_TURN"', '"NOT_MY_TURN"'))
    assert ramino_reasons.stale(tmp_path) == ["clients/go/reasons_gen.go"]
