"""Issue 46 (last part): the features of the last round against a hostile
client, each defence pinned by a test: the matchmaker's pass over many
tickets that never meet leaves the replica's other calls served; the
matching grammar's bounds over gRPC (clause lists, any_of lists, keys too
long or not printable), each refused with its reason and nothing written;
the bot level listing given a request with fields it does not know; a
session's asks (snapshots, hints, views) flooded by a client that reads
nothing; a stranger naming another's party, and odd invitations."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from ramino import reasons
from ramino.api.interceptors import DEFAULT_MAX_MESSAGE_BYTES
from ramino.api.server import create_server
from ramino.app.quick import matchmaker
from ramino.app.quick.matchmaker import FORM_ON_LOOP
from ramino.app.quick.policy import form
from ramino.store import open_store
from ramino.v1 import game_pb2, game_pb2_grpc, match_pb2, rules_pb2, rules_pb2_grpc

from tests.service.conftest import reason_of
from tests.service.test_match_api import Quick, player, serving, submit, until_final
from tests.service.test_matchmaker import RUMMY, Clock, replica
from tests.service.test_parties import get_party, party_of, refused
from tests.service.test_sessions import serving as serving_games
from tests.service.test_sessions import session, two_people

# --- one caller's tickets slow no one else ----------------------------------------


@pytest.mark.parametrize("n", [FORM_ON_LOOP, FORM_ON_LOOP + 1, 600])
async def test_a_pass_over_many_tickets_that_never_meet_leaves_the_loop_free(
    n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tickets that meet no one (each with a region of its own, or a must
    clause nobody fills) make a pass quadratic in them: grouped on the
    event loop, 1,000 of them held it 2.3 s, every call of the replica
    waiting. Past ``FORM_ON_LOOP`` tickets the pass groups them on a thread,
    and the loop keeps turning while it runs: where the grouping ran is
    checked, not how long anything took."""
    loop_thread = threading.get_ident()
    ran_on: list[int] = []

    def recorded(*args: Any, **kwargs: Any) -> Any:
        ran_on.append(threading.get_ident())
        return form(*args, **kwargs)

    monkeypatch.setattr(matchmaker, "form", recorded)
    clock = Clock()
    r = replica(open_store("memory"), clock)
    for i in range(n):
        await r.matchmaker.submit(f"p{i:04d}", f"P{i}", RUMMY, 2, 4, {"region": f"r{i}"})
    clock.now += 1.0
    matches = await r.matchmaker._pass(RUMMY.key)
    await r.close()
    assert matches == []
    assert len(ran_on) == 1
    on_loop = ran_on[0] == loop_thread
    assert on_loop == (n <= FORM_ON_LOOP), f"{n} tickets grouped on the loop: {on_loop}"


# --- the grammar's bounds over gRPC -------------------------------------------------


@pytest.fixture
async def quick() -> AsyncIterator[Quick]:
    async with contextlib.asynccontextmanager(serving)(open_store("memory")) as q:
        yield q


MUST = match_pb2.MatchClause.OCCUR_MUST


def any_of(key: str, *values: str) -> match_pb2.MatchClause:
    c = match_pb2.MatchClause(occur=MUST, key=key)
    c.any_of.values.extend(values)
    return c


@pytest.mark.parametrize(
    ("fields", "reason", "says"),
    [
        ({"clauses": [any_of("region", "eu")] * 9}, reasons.BAD_MATCH_CLAUSE, "at most 8 clauses"),
        (
            {"clauses": [any_of("region", *(f"v{i}" for i in range(9)))]},
            reasons.BAD_MATCH_CLAUSE,
            "any_of is 1 to 8 values",
        ),
        ({"clauses": [any_of("k" * 33, "eu")]}, reasons.BAD_MATCH_CLAUSE, "its key is 1 to 32"),
        ({"clauses": [any_of("reg\nion", "eu")]}, reasons.BAD_MATCH_CLAUSE, "printable"),
        ({"clauses": [any_of("region", "e\x00u")]}, reasons.BAD_MATCH_CLAUSE, "printable"),
        (
            {"properties": {f"k{i}": "v" for i in range(9)}},
            reasons.BAD_TICKET_PROPERTIES,
            "at most 8 properties",
        ),
        ({"properties": {"k": "v" * 33}}, reasons.BAD_TICKET_PROPERTIES, "at most 32"),
        (
            {"numeric_properties": {"k" * 33: 1.0}},
            reasons.BAD_TICKET_PROPERTIES,
            "1 to 32 printable",
        ),
    ],
    ids=[
        "nine-clauses",
        "nine-values",
        "long-key",
        "newline-key",
        "nul-value",
        "nine-properties",
        "long-value",
        "long-number-key",
    ],
)
async def test_an_oversize_grammar_is_refused_over_grpc_and_writes_nothing(
    quick: Quick, fields: dict[str, Any], reason: str, says: str
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await until_final(submit(quick, "ann", **fields))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(err.value) == reason and says in (err.value.details() or "")
    assert len(err.value.details() or "") <= 400
    assert await quick.matchmaker.tickets.queues() == []


# --- the bot level listing ----------------------------------------------------------


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (wire type 2) of ``payload``."""
    size, length = bytearray(), len(payload)
    while True:
        byte, length = length & 0x7F, length >> 7
        size.append(byte | (0x80 if length else 0))
        if not length:
            break
    return bytes([number << 3 | 2]) + bytes(size) + payload


async def test_a_level_listing_with_bogus_filters_answers_the_list_or_is_refused_cleanly() -> None:
    """ListBotLevels takes no filter: a request carrying fields it does not
    know (a level, a name, a minimum rating a client made up) is answered
    the whole list, byte for byte as an empty request (the listing is read,
    never built, per call); one past the size limit is REQUEST_TOO_LARGE and
    bytes that do not decode MALFORMED_REQUEST, each with its ErrorInfo."""
    running = await create_server("127.0.0.1:0")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            plain = await stub.ListBotLevels(rules_pb2.ListBotLevelsRequest())
            raw = channel.unary_unary("/ramino.v1.RulesService/ListBotLevels")
            bogus = b"\x08\x04" + _field(2, b"expert" * 100) + b"\x19" + b"\xff" * 8
            answers = await asyncio.gather(*(raw(bogus) for _ in range(50)))
            assert set(answers) == {plain.SerializeToString()}
            for request, code, reason in (
                (
                    _field(3, b"x" * (DEFAULT_MAX_MESSAGE_BYTES + 1)),
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    reasons.REQUEST_TOO_LARGE,
                ),
                (b"\xff\xff\xff\xff", grpc.StatusCode.INVALID_ARGUMENT, reasons.MALFORMED_REQUEST),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await raw(request)
                assert (err.value.code(), reason_of(err.value)) == (code, reason)
    finally:
        await running.stop(0)


# --- a session's asks flooded -------------------------------------------------------


async def test_a_flood_of_snapshot_asks_never_read_makes_no_more_than_flow_control_holds() -> None:
    """A seat's session sent 3,000 PlayGameAsks (a snapshot each, hints
    and answer views turned on and off) by a client that reads nothing: the
    server makes the answers only as fast as the client takes them (at most
    ``MAX_MOVES_QUEUED`` unsent, then HTTP/2 flow control: a client window
    of 64 KiB held about 100 snapshots), never 3,000; read, the session goes
    on answering them in order."""
    async with serving_games() as served:
        # No BDP probing: the client's window stays at HTTP/2's 64 KiB.
        options = [("grpc.http2.bdp_probe", 0)]
        async with grpc.aio.insecure_channel(served.address, options=options) as channel:
            stub = game_pb2_grpc.GameServiceStub(channel)
            name, tokens = await two_people(stub)
            made = 0
            seen = served.app.moves.seen

            async def counted(*args: Any, **kwargs: Any) -> Any:
                nonlocal made
                made += 1
                return await seen(*args, **kwargs)

            served.app.moves.seen = counted  # type: ignore[method-assign]
            call: Any = session(stub, tokens[0])
            start = game_pb2.PlayGameStart(name=name, hints=True, option_views=True)
            await call.write(game_pb2.PlayGameRequest(start=start))
            for i in range(3000):
                ask = game_pb2.PlayGameAsk(snapshot=True, hints=i % 2 == 0, answer_views=i % 3 == 0)
                await asyncio.wait_for(call.write(game_pb2.PlayGameRequest(ask=ask)), 10)
            # The server answers asks until the client's window is full:
            # some are made, then no more while nothing is read.
            for _ in range(3000):
                if made:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.5)
            assert 0 < made <= 300, made
            held = made
            snapshots = 0
            while snapshots < 2 * held:
                message = await asyncio.wait_for(call.read(), 10)
                assert message is not grpc.aio.EOF
                snapshots += message.WhichOneof("payload") == "snapshot"
            assert made > held  # read, it answers the asks that waited
            call.cancel()


# --- parties: another's party, odd invitees, endless invitation ids ----------------


async def test_a_stranger_changes_nothing_of_a_party_and_odd_invitations_are_refused(
    quick: Quick,
) -> None:
    """A stranger who names another's party (invites to it, leaves it, joins
    it with a made-up invitation 8,000 characters long) is answered as for
    no party or no invitation, and the party is as it was; the leader's
    invitation of a player id too long or not printable is BAD_INVITEE."""
    party = await party_of(quick, "ann", "bob")
    before = await get_party(quick, "ann", party.name)
    mallory = player("mallory")
    calls = [
        quick.match.InviteToParty(
            match_pb2.InviteToPartyRequest(party=party.name, player="cid"), metadata=mallory
        ),
        quick.match.LeaveParty(match_pb2.LeavePartyRequest(party=party.name), metadata=mallory),
    ]
    for call in calls:
        err = await refused(call)
        assert (err.code(), reason_of(err)) == (
            grpc.StatusCode.NOT_FOUND,
            reasons.PARTY_NOT_FOUND,
        )
    err = await refused(
        quick.match.JoinParty(
            match_pb2.JoinPartyRequest(
                party=party.name, invitation="0" * 8000, player_name="Mallory"
            ),
            metadata=mallory,
        )
    )
    assert reason_of(err) == reasons.NOT_INVITED and len(err.details() or "") <= 400
    for invitee in ("x" * 129, "bad\nid", "nul\x00"):
        err = await refused(
            quick.match.InviteToParty(
                match_pb2.InviteToPartyRequest(party=party.name, player=invitee),
                metadata=player("ann"),
            )
        )
        assert (err.code(), reason_of(err)) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            reasons.BAD_INVITEE,
        )
    assert await get_party(quick, "ann", party.name) == before
