"""Reconnecting: what counts as Redis out of reach or its Cluster changing
hands, and the clients that wait it out (for ``RECONNECT_BUDGET``)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from redis.asyncio import Redis, RedisCluster
from redis.asyncio import connection as redis_connection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import (
    AskError,
    ClusterDownError,
    ClusterError,
    MovedError,
    ReadOnlyError,
    RedisClusterException,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ramino.store.base import StoreUnavailable

T = TypeVar("T")
P = ParamSpec("P")

RETRYABLE = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError)
# What a Cluster answers while a slot changes hands or a failover runs.
TOPOLOGY = (
    MovedError,
    AskError,
    TryAgainError,
    ClusterDownError,
    ReadOnlyError,
    ClusterError,
    RedisClusterException,
)
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, *TOPOLOGY)
"""Redis's errors for a store out of reach, once the store's own retries are
spent: the store raises them as :class:`~ramino.store.StoreUnavailable`
(UNAVAILABLE, which clients retry)."""
RECONNECT_BUDGET = 30.0
"""Seconds a store call keeps reconnecting (a Redis restart, a failover)."""


_CONNECTION_MODULE = redis_connection.__file__


def _torn_down(error: AttributeError) -> bool:
    """Whether ``error`` is redis-py's write on a connection torn down under
    it (redis-py 8.1: ``'NoneType' object has no attribute 'writelines'``, a
    race with a disconnect during a failover): raised by redis-py's own
    connection module about its writer being None, and nothing else (an
    AttributeError of ours stays the bug it is)."""
    if error.name != "writelines" or error.obj is not None:
        return False
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename == _CONNECTION_MODULE


async def translated(call: Callable[[], Awaitable[T]]) -> T:
    """``call``'s answer; redis-py's write on a torn-down connection is
    raised as the connection error it is (retried, else UNAVAILABLE)."""
    try:
        return await call()
    except AttributeError as failed:
        if not _torn_down(failed):
            raise
        raise RedisConnectionError(f"the connection closed under a write: {failed}") from failed


def cancelled() -> bool:
    """Whether the running task is being cancelled: redis-py can turn the
    cancellation of a pending read into a connection error, which a retry
    loop must not take for a store out of reach (it would outlive its
    task's cancellation, for ever in a subscription)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def patiently(call: Callable[[], Awaitable[T]]) -> T:
    """``call``'s answer, called again with a growing pause while Redis is
    out of reach or its Cluster is changing hands, for ``RECONNECT_BUDGET``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RECONNECT_BUDGET
    delay = 0.05
    while True:
        try:
            return await translated(call)
        except (*RETRYABLE, *TOPOLOGY) as failed:
            if cancelled():
                raise asyncio.CancelledError from failed
            if loop.time() >= deadline:
                raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)


class PatientCluster(RedisCluster):
    """A cluster client that waits out a failover. redis-py's own retries
    follow each other at once (reloading the slot map in between), so they
    are spent long before a replica is promoted; here each command is tried
    again with a pause, for ``RECONNECT_BUDGET``."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        run = super().execute_command
        return await patiently(lambda: run(*args, **kwargs))


class TranslatingRedis(Redis):
    """One Redis's client (redis-py retries its own connection errors): its
    commands raise a write on a torn-down connection as a connection error."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        run: Callable[..., Awaitable[Any]] = super().execute_command
        return await translated(lambda: run(*args, **options))


def client_retry() -> Retry:
    # About half a minute of reconnecting: long enough for a Redis restart.
    return Retry(ExponentialBackoff(cap=1.0, base=0.05), retries=40)


def reachable(method: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, Coroutine[Any, Any, T]]:
    """``method`` with Redis out of reach (its retries spent) raised as
    :class:`~ramino.store.StoreUnavailable`, the store's own error."""

    @functools.wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(*args, **kwargs)
        except UNREACHABLE as failed:
            raise StoreUnavailable() from failed

    return call


def reachable_stream(
    method: Callable[P, AsyncIterator[T]],
) -> Callable[P, AsyncIterator[T]]:
    """:func:`reachable` for a method that yields."""

    @functools.wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> AsyncIterator[T]:
        try:
            async for item in method(*args, **kwargs):
                yield item
        except UNREACHABLE as failed:
            raise StoreUnavailable() from failed

    return call
