"""The one registry of reasons (``ramino.reasons``): every reason the
service raises is registered, the status code it goes out with is the
registry's and no one else's, and the SDKs' tables generated from it are
current (``make reasons``)."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import grpc
import pytest
import ramino
from google.rpc import error_details_pb2, status_pb2
from ramino import reasons
from ramino.api.errors import ApiError, make_status, status_for
from ramino.app.games.fanout import WatcherTooSlow, WatchInterrupted
from ramino.engine.errors import IllegalMove, InvalidSetup, MalformedCommand, RecordError
from ramino.errors import InvalidHand, InvalidMeld, OutOfRange, RaminoError
from ramino.reasons import REGISTRY, Code
from ramino.store import GameExists, GameNotFound, StoreUnavailable, VersionConflict
from ramino.store.base import ShardUnavailable, StoreError
from ramino.store.redis import NotReplicated

from backend import ramino_reasons

SERVICE = Path(__file__).resolve().parent.parent / "service" / "ramino"


def test_every_constant_is_its_own_name_and_registered_once() -> None:
    names = [n for n in dir(reasons) if n.isupper() and isinstance(getattr(reasons, n), str)]
    assert sorted(names) == sorted(REGISTRY)
    for name in names:
        assert getattr(reasons, name) == name == REGISTRY[name].name
        assert REGISTRY[name].meaning and not REGISTRY[name].meaning.endswith(".")
    assert reasons.ALL == frozenset(REGISTRY)
    with pytest.raises(ValueError, match="twice"):
        reasons._reason("NOT_YOUR_TURN", Code.INTERNAL, "again", "illegal")


def _reason_calls() -> list[tuple[str, ast.Call, list[str]]]:
    """(file:line, the call, the reasons it passes) of every call in the
    service that passes a reason constant."""
    calls = []
    for path in sorted(SERVICE.rglob("*.py")):
        if "v1" in path.parts or path.name == "reasons.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            given = [
                a.attr
                for a in [*node.args, *(k.value for k in node.keywords)]
                if isinstance(a, ast.Attribute)
                and isinstance(a.value, ast.Name)
                and a.value.id in ("R", "r", "reasons")
                and a.attr.isupper()
            ]
            if given:
                calls.append((f"{path.relative_to(SERVICE)}:{node.lineno}", node, given))
    return calls


def test_no_error_names_its_own_status_code() -> None:
    calls = _reason_calls()
    assert len(calls) > 100
    naming = [
        where
        for where, call, _ in calls
        for a in ast.walk(call)
        if isinstance(a, ast.Attribute)
        and isinstance(a.value, ast.Attribute)
        and a.value.attr == "StatusCode"
    ]
    assert naming == []


def test_every_reason_raised_goes_out_with_a_status() -> None:
    """A reason the service hands on is one it sends as a status: not one
    only answered in a field (a meld's), nor the SDKs' own; INTERNAL only
    from the last interceptor."""
    wrong = [
        (where, reason)
        for where, _, given in _reason_calls()
        for reason in given
        if REGISTRY[reason].code == Code.OK
        or REGISTRY[reason].group == "sdk"
        or (REGISTRY[reason].code == Code.INTERNAL and not where.startswith("api/interceptors"))
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
        ApiError(reasons.TOKEN_INVALID, "bad token"),
        OutOfRange("past the game", reasons.AFTER_VERSION_OUT_OF_RANGE),
    ]
    for error in errors:
        assert isinstance(error, ramino.RaminoError)
        status = status_for(error)
        assert status is not None and status.code.name == REGISTRY[error.reason].code.value


def _details(status: grpc.Status) -> tuple[error_details_pb2.ErrorInfo, list[str]]:
    """The ErrorInfo of ``status`` and the type names of all its details."""
    (raw,) = [v for k, v in status.trailing_metadata if k == "grpc-status-details-bin"]
    details = status_pb2.Status.FromString(raw).details
    info = error_details_pb2.ErrorInfo()
    assert details[0].Unpack(info)
    return info, [d.TypeName() for d in details]


@pytest.mark.parametrize(
    ("error", "code", "metadata"),
    [
        (VersionConflict("g", 3, 5), "ABORTED", {"expected": "3", "actual": "5"}),
        (WatcherTooSlow("behind", 7), "RESOURCE_EXHAUSTED", {"after_version": "7"}),
        (WatchInterrupted("failed", 9), "UNAVAILABLE", {"after_version": "9"}),
        (ShardUnavailable(1.5), "UNAVAILABLE", {"retry_after_ms": "1500"}),
        (ApiError(reasons.NOT_CREATOR, "not yours"), "PERMISSION_DENIED", {}),
    ],
)
def test_a_status_carries_the_registrys_code_and_its_errors_data(
    error: RaminoError, code: str, metadata: dict[str, str]
) -> None:
    status = status_for(error)
    assert status is not None
    assert status.code.name == code == REGISTRY[error.reason].code.value
    info, kinds = _details(status)
    assert (info.reason, info.domain, dict(info.metadata)) == (error.reason, "ramino.v1", metadata)
    retry = "google.rpc.RetryInfo"
    assert (retry in kinds) == ("retry_after_ms" in metadata)


def test_a_reason_raised_as_bad_input_takes_its_input_code() -> None:
    """The kernel's search refuses a card to include that is not in the
    hand as bad input; the rules refuse a move of it as illegal."""
    assert REGISTRY[reasons.CARD_NOT_IN_HAND].as_input == Code.INVALID_ARGUMENT
    with pytest.raises(InvalidHand) as refused:
        ramino.best_opening("AS 2S 3S 9D", "rummy", include="4S")
    as_input = status_for(refused.value)
    as_move = status_for(IllegalMove("not in your hand", reasons.CARD_NOT_IN_HAND))
    assert as_input is not None and as_input.code == grpc.StatusCode.INVALID_ARGUMENT
    assert as_move is not None and as_move.code == grpc.StatusCode.FAILED_PRECONDITION
    assert reasons.code_of(reasons.NOT_YOUR_TURN, as_input=True) == Code.FAILED_PRECONDITION


@pytest.mark.parametrize(
    "error",
    [
        StoreError("a store error without a status of its own"),
        RaminoError("a reason no one registered", "NOT_A_REASON"),
        InvalidMeld("a meld's reason is answered in a field", reasons.GAP),
        ValueError("anything else"),
    ],
)
def test_a_bug_has_no_status_of_its_own(error: BaseException) -> None:
    assert status_for(error) is None


def test_internal_comes_from_the_registry_too() -> None:
    status = make_status(reasons.INTERNAL, "internal error")
    assert status.code == grpc.StatusCode.INTERNAL
    with pytest.raises(ValueError, match="field"):
        make_status(reasons.GAP, "a meld's reason")


def test_an_api_error_takes_its_code_from_its_reason_and_pickles() -> None:
    error = ApiError(reasons.REQUEST_TOO_LARGE, "too large")
    assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.reason, str(again), again.code) == (
        ApiError,
        reasons.REQUEST_TOO_LARGE,
        "too large",
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    )


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
