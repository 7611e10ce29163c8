"""The store's retry policy for a slot no replica can serve (issue 46,
defect 6), without a cluster: a call whose node is out of reach gives up
after ``UNSERVED_BUDGET`` when nothing can take the node's place, and waits
the whole ``RECONNECT_BUDGET`` when a replica may; the answer says when to
try again. ``tests/replicas/test_redis_cluster_unserved.py`` holds it on a
real Redis Cluster."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from ramino import reasons
from ramino.api.errors import status_for
from ramino.store import ShardUnavailable, StoreUnavailable
from ramino.store.redis import retry as redis_retry
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError


async def refused() -> None:
    raise RedisConnectionError("Connection refused")


async def test_a_slot_without_replica_is_given_up_within_its_budget() -> None:
    async def alone() -> bool:
        return True

    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(ShardUnavailable) as failed:
        await redis_retry.patiently(refused, unserved=alone)
    took = loop.time() - start
    # Given up, not waited for: well short of the reconnecting budget (the
    # bound leaves a loaded machine its slack; it times no machine).
    assert took < redis_retry.RECONNECT_BUDGET / 2, took
    assert failed.value.reason == reasons.SHARD_UNAVAILABLE
    assert failed.value.retry_after == redis_retry.UNSERVED_RETRY_AFTER
    assert isinstance(failed.value, StoreUnavailable)  # a watch feed waits on it as before


async def test_a_slot_with_a_replica_is_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redis_retry, "RECONNECT_BUDGET", 1.5)

    async def with_replica() -> bool:
        return False

    loop = asyncio.get_running_loop()
    start = loop.time()
    with pytest.raises(StoreUnavailable) as failed:
        await redis_retry.patiently(refused, unserved=with_replica)
    assert not isinstance(failed.value, ShardUnavailable)
    assert loop.time() - start >= 1.5


async def test_a_dropped_connection_is_retried_within_the_budget() -> None:
    tries = 0

    async def drops_once() -> str:
        nonlocal tries
        tries += 1
        if tries == 1:
            raise RedisConnectionError("Connection reset by peer")
        return "served"

    async def alone() -> bool:
        return True

    assert await redis_retry.patiently(drops_once, unserved=alone) == "served"


async def test_an_error_that_is_no_reach_is_not_given_up_early() -> None:
    async def busy() -> None:
        raise ResponseError("WRONGTYPE")

    async def alone() -> bool:
        return True

    with pytest.raises(ResponseError):
        await redis_retry.patiently(busy, unserved=alone)


def test_the_status_says_when_to_retry() -> None:
    status = status_for(ShardUnavailable(1.0))
    assert status is not None and status.code == grpc.StatusCode.UNAVAILABLE
    details = dict(status.trailing_metadata)["grpc-status-details-bin"]
    found = status_pb2.Status.FromString(details)
    info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
    assert found.details[0].Unpack(info) and info.reason == reasons.SHARD_UNAVAILABLE
    assert info.metadata["retry_after_ms"] == "1000"
    assert found.details[1].Unpack(retry) and retry.retry_delay.ToMilliseconds() == 1000
    # Other errors keep their one detail.
    plain = status_for(StoreUnavailable())
    assert plain is not None
    assert (
        len(
            status_pb2.Status.FromString(
                dict(plain.trailing_metadata)["grpc-status-details-bin"]
            ).details
        )
        == 1
    )
