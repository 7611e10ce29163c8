"""The matching grammar: numeric properties, must / should / must-not
clauses on the other ticket's properties, and the rating band a player
narrows; each bad clause refused with an error naming it, nothing written."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from ramino import reasons
from ramino.app.quick.clauses import allows, checked_clauses
from ramino.app.quick.policy import form
from ramino.app.quick.queues import MatchmakerConfig
from ramino.app.quick.tickets import Ticket
from ramino.errors import BadRequest
from ramino.store import open_store
from ramino.v1 import match_pb2

from tests.service.conftest import reason_of
from tests.service.test_match_api import Quick, player, serving, submit, until_final

CONFIG = MatchmakerConfig(settle=0.0, bots_after=None, prefer_for=10.0, window_base=60.0)


def ticket(
    i: int,
    props: dict[str, str] | None = None,
    numbers: dict[str, float] | None = None,
    clauses: list[dict[str, Any]] | None = None,
    rating: float = 0.0,
    band: float = 0.0,
) -> Ticket:
    return Ticket(
        f"q.{i:024d}",
        f"p{i}",
        f"P{i}",
        "q",
        2,
        2,
        props or {},
        rating,
        float(i),
        numbers=numbers or {},
        clauses=checked_clauses(clauses or []),
        rating_band=band,
    )


def met(a: Ticket, b: Ticket, now: float = 5.0, config: MatchmakerConfig = CONFIG) -> bool:
    return bool(form([a, b], now, config))


EU_OR_US = {"occur": "must", "key": "region", "any_of": ["eu", "us"]}
PREFER_EU = {"occur": "should", "key": "region", "any_of": ["eu"]}


def test_a_must_clause_needs_the_property_and_a_value_it_names() -> None:
    a = ticket(1, clauses=[EU_OR_US])
    assert met(a, ticket(2, {"region": "us"}))
    assert not met(a, ticket(2, {"region": "asia"}))
    assert not met(a, ticket(2))  # no region at all


def test_a_should_clause_holds_for_a_while_then_gives_way() -> None:
    """Prefer EU, accept US: a US mate only once the preference time is over."""
    a = ticket(0, clauses=[EU_OR_US, PREFER_EU])
    us, eu = ticket(1, {"region": "us"}), ticket(2, {"region": "eu"})
    assert not met(a, us, now=9.0) and met(a, eu, now=9.0)
    assert met(a, us, now=10.0)
    assert form([a, us, eu], 9.0, CONFIG) == [([a, eu], 0)]


def test_a_must_not_clause_refuses_a_value_in_its_range_only() -> None:
    a = ticket(1, clauses=[{"occur": "must_not", "key": "latency", "min": 100}])
    assert not met(a, ticket(2, numbers={"latency": 150.0}))
    assert met(a, ticket(2, numbers={"latency": 99.5}))
    assert met(a, ticket(2))  # no latency: nothing to refuse


def test_a_range_includes_its_bounds_and_tests_numbers_only() -> None:
    a = ticket(1, clauses=[{"occur": "must", "key": "tier", "min": 2, "max": 4}])
    assert met(a, ticket(2, numbers={"tier": 2.0})) and met(a, ticket(2, numbers={"tier": 4.0}))
    assert not met(a, ticket(2, numbers={"tier": 4.5}))
    assert not met(a, ticket(2, {"tier": "3"}))  # a string property is not a number


def test_both_tickets_clauses_must_allow_the_meeting() -> None:
    picky = ticket(2, {"region": "eu"}, clauses=[EU_OR_US])
    assert not met(ticket(1, {"region": "asia"}), picky)
    assert allows(ticket(1), picky, 0.0, 10.0)  # the first asks nothing


def test_a_rating_band_narrows_the_window_and_never_widens_it() -> None:
    far = ticket(2, rating=3.0)
    assert not met(ticket(1, band=2.0), far)
    assert not met(far, ticket(1, band=2.0))  # the band binds whoever the anchor is
    assert met(ticket(1, band=5.0), far)
    narrow = MatchmakerConfig(settle=0.0, bots_after=None, window_base=3.0, window_step=0.0)
    assert not met(ticket(1, band=100.0), ticket(2, rating=10.0), config=narrow)


@pytest.mark.parametrize(
    ("clauses", "says"),
    [
        ([{"occur": "maybe", "key": "region", "any_of": ["eu"]}], "clause 0: its occur"),
        ([EU_OR_US, {"occur": "must", "key": "", "any_of": ["eu"]}], "clause 1: its key"),
        ([{"occur": "must", "key": "region", "any_of": []}], "clause 0: any_of is 1 to 8"),
        ([{"occur": "must", "key": "region", "any_of": ["x" * 33]}], "any_of is 1 to 8"),
        ([{"occur": "must", "key": "tier", "min": None, "max": None}], "a min, a max or both"),
        ([{"occur": "must", "key": "tier", "min": 5, "max": 1}], "min 5 is above its max 1"),
        ([{"occur": "must", "key": "tier", "min": float("nan")}], "finite"),
        ([{"occur": "must", "key": "tier"}], "tests any_of"),
        ([EU_OR_US] * 9, "at most 8 clauses"),
    ],
)
def test_a_bad_clause_is_refused_naming_it(clauses: list[dict[str, Any]], says: str) -> None:
    with pytest.raises(BadRequest, match=says) as err:
        checked_clauses(clauses)
    assert err.value.reason == reasons.BAD_MATCH_CLAUSE


# --- over gRPC ------------------------------------------------------------------


@pytest.fixture
async def quick() -> AsyncIterator[Quick]:
    async for q in serving(open_store("memory")):
        yield q


def clause(occur: int, key: str, **test: Any) -> match_pb2.MatchClause:
    c = match_pb2.MatchClause(occur=occur, key=key)
    if "any_of" in test:
        c.any_of.values.extend(test["any_of"])
    else:
        c.range.CopyFrom(match_pb2.NumberRange(**test))
    return c


MUST = match_pb2.MatchClause.OCCUR_MUST


async def test_clauses_decide_who_meets_over_grpc(quick: Quick) -> None:
    ann = submit(
        quick,
        "ann",
        clauses=[clause(MUST, "region", any_of=["eu"]), clause(MUST, "ping", max=80.0)],
    )
    await ann.read()  # type: ignore[attr-defined]
    bob = submit(quick, "bob", properties={"region": "us"}, numeric_properties={"ping": 20.0})
    await bob.read()  # type: ignore[attr-defined]
    cid = submit(quick, "cid", properties={"region": "eu"}, numeric_properties={"ping": 30.0})
    a, c = await asyncio.gather(until_final(ann), until_final(cid))
    assert a[-1].state == c[-1].state == match_pb2.TICKET_STATE_MATCHED
    assert a[-1].game == c[-1].game
    listed = await quick.match.ListTickets(match_pb2.ListTicketsRequest(), metadata=player("bob"))
    [bob_first] = listed.tickets
    assert bob_first.state == match_pb2.TICKET_STATE_SEARCHING
    bob.cancel()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("fields", "reason", "says"),
    [
        (
            {"clauses": [clause(0, "region", any_of=["eu"])]},
            reasons.BAD_MATCH_CLAUSE,
            "clause 0: its occur",
        ),
        (
            {"clauses": [match_pb2.MatchClause(occur=MUST, key="region")]},
            reasons.BAD_MATCH_CLAUSE,
            "clause 0: it tests any_of",
        ),
        (
            {"clauses": [clause(MUST, "tier", min=3.0, max=1.0)]},
            reasons.BAD_MATCH_CLAUSE,
            "above its max",
        ),
        (
            {"numeric_properties": {"ping": float("inf")}},
            reasons.BAD_TICKET_PROPERTIES,
            "numeric property 'ping'",
        ),
        (
            {"properties": {"tier": "a"}, "numeric_properties": {"tier": 1.0}},
            reasons.BAD_TICKET_PROPERTIES,
            "is a string property too",
        ),
        (
            {"numeric_properties": {f"k{i}": 1.0 for i in range(9)}},
            reasons.BAD_TICKET_PROPERTIES,
            "at most 8 numeric",
        ),
        ({"rating_band": -1.0}, reasons.BAD_RATING_BAND, "rating band"),
    ],
)
async def test_a_bad_grammar_is_refused_with_what_is_wrong_and_writes_nothing(
    quick: Quick, fields: dict[str, Any], reason: str, says: str
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await until_final(submit(quick, "ann", **fields))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(err.value) == reason and says in (err.value.details() or "")
    assert await quick.matchmaker.tickets.queues() == []
