"""RulesService, health and reflection over a real server on a loopback port."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from importlib import resources

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
from ramino.api import convert
from ramino.api.server import RunningServer, create_server
from ramino.bots import LEVEL_BUDGETS, LEVELS
from ramino.v1 import rules_pb2, rules_pb2_grpc, types_pb2


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    running = await create_server("127.0.0.1:0")
    yield running
    await running.stop(0)


@pytest.fixture
async def channel(server: RunningServer) -> AsyncIterator[grpc.aio.Channel]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as ch:
        yield ch


def error_reason(err: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(err)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == "ramino.v1"
    return info.reason


async def test_validate_meld_over_grpc(channel: grpc.aio.Channel) -> None:
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    ok = await stub.ValidateMeld(
        rules_pb2.ValidateMeldRequest(variant="ramino51", cards=["QH", "KH", "AH"])
    )
    assert (
        ok.valid and ok.meld.value == 30 and [c.code for c in ok.meld.cards] == ["QH", "KH", "AH"]
    )
    bad = await stub.ValidateMeld(
        rules_pb2.ValidateMeldRequest(variant="rummy", cards=["QH", "KH", "AH"])
    )
    assert not bad.valid and bad.reason == "ACE_HIGH_NOT_ALLOWED"
    overrides = types_pb2.VariantParameters(ace_high=True)
    high = await stub.ValidateMeld(
        rules_pb2.ValidateMeldRequest(
            variant="rummy", overrides=overrides, cards=["QH", "KH", "AH"]
        )
    )
    assert high.valid


async def test_analyze_hand_over_grpc(channel: grpc.aio.Channel) -> None:
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    r = await stub.AnalyzeHand(
        rules_pb2.AnalyzeHandRequest(
            variant="ramino51",
            hand="6S 7S 8S TD TC TH 2C 9S".split(),
            table=[rules_pb2.MeldCodes(cards=["5H", "6H", "JK"])],
        )
    )
    assert r.best_opening.value == 60 and r.min_deadwood.value == 2
    assert r.penalty == 2 + 6 + 7 + 8 + 9 + 30
    assert not r.lay_offs and not r.joker_swaps


async def test_list_variants_gives_every_preset_with_parameters(channel: grpc.aio.Channel) -> None:
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    r = await stub.ListVariants(rules_pb2.ListVariantsRequest())
    assert [v.name for v in r.variants] == ["ramino51", "rami51", "rummy", "gin"]
    assert r.variants[0].parameters.open_threshold == 51


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (rules_pb2.ValidateMeldRequest(variant="ramino51", cards=["ZZ"]), "BAD_CARD"),
        (rules_pb2.ValidateMeldRequest(variant="poker", cards=["AS"]), "UNKNOWN_VARIANT"),
        (rules_pb2.AnalyzeHandRequest(variant="rummy", hand=[]), "EMPTY_HAND"),
        (rules_pb2.AnalyzeHandRequest(variant="rummy", hand=["AS", "AS"]), "TOO_MANY_COPIES"),
    ],
)
async def test_malformed_input_is_invalid_argument(
    channel: grpc.aio.Channel, request_: object, reason: str
) -> None:
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    call = (
        stub.ValidateMeld
        if isinstance(request_, rules_pb2.ValidateMeldRequest)
        else stub.AnalyzeHand
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call(request_)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_reason(err.value) == reason


async def test_oversized_messages_are_refused(channel: grpc.aio.Channel) -> None:
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.ValidateMeld(
            rules_pb2.ValidateMeldRequest(variant="rummy", cards=["AS" * 600_000])
        )
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_health_answers_serving(channel: grpc.aio.Channel) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    for service in ("", "ramino.v1.RulesService", "ramino.v1.GameService"):
        r = await stub.Check(health_pb2.HealthCheckRequest(service=service))
        assert r.status == health_pb2.HealthCheckResponse.SERVING


async def test_health_watch_streams_each_status_through_the_interceptor(
    server: RunningServer, channel: grpc.aio.Channel
) -> None:
    # The stock servicer's Watch sends with context.write, not by yielding.
    watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())
    assert (await watch.read()).status == health_pb2.HealthCheckResponse.SERVING
    await server.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    assert (await watch.read()).status == health_pb2.HealthCheckResponse.NOT_SERVING
    watch.cancel()


async def test_reflection_lists_both_services(channel: grpc.aio.Channel) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)

    async def requests() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        yield reflection_pb2.ServerReflectionRequest(list_services="")

    async for response in stub.ServerReflectionInfo(requests()):
        names = {s.name for s in response.list_services_response.service}
        assert {"ramino.v1.GameService", "ramino.v1.RulesService", "grpc.health.v1.Health"} <= names
        break
    else:
        pytest.fail("no reflection answer")


async def test_list_variants_gives_max_turns_per_round_and_the_gin_parameters(
    channel: grpc.aio.Channel,
) -> None:
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    r = await stub.ListVariants(rules_pb2.ListVariantsRequest())
    by_name = {v.name: v for v in r.variants}
    for v in r.variants:
        assert v.parameters.max_turns_per_round == 300
    gin = by_name["gin"].parameters
    assert gin.knocking is True and gin.knock_card == 10
    assert gin.undercut_bonus == 25 and gin.HasField("big_gin") and gin.big_gin is False


async def test_list_bot_levels_gives_every_level_weakest_first_with_its_measured_rating(
    channel: grpc.aio.Channel,
) -> None:
    """The levels a person picks from, in the order of ``LEVELS``, each with
    its sentence, its time a decision (the server's budget, 0 for a level
    that does not search) and its rating on the arena's scale, as
    ``ratings.json`` (written by ``bench/bots_arena.py --ratings-out``) has
    them, and the command that measured them."""
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    r = await stub.ListBotLevels(rules_pb2.ListBotLevelsRequest())
    measured = json.loads(
        resources.files("ramino.bots").joinpath("ratings.json").read_text("utf-8")
    )
    assert [b.name for b in r.levels] == list(LEVELS)
    assert [b.level for b in r.levels] == [convert.BOT_LEVELS[n] for n in LEVELS]
    for b in r.levels:
        m = measured["levels"][b.name]
        assert (b.rating_mu, b.rating_sigma, b.rating) == (m["mu"], m["sigma"], m["ordinal"])
        assert b.description
        budget = LEVEL_BUDGETS.get(b.name)
        assert b.time_ms == (budget.time_ms if budget else 0.0)
    assert r.ratings_source.startswith("bench/bots_arena.py ")
    assert f"({measured['hands']} hands)" in r.ratings_source
