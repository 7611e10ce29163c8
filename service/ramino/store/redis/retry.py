"""Reconnecting: what counts as Redis out of reach or its Cluster changing
hands, and the store's clients, which wait it out (for ``RECONNECT_BUDGET``)
and then raise the store's own :class:`~ramino.store.StoreUnavailable`.

Every client the store makes is one of :class:`StoreRedis`,
:class:`StoreCluster` and :class:`NodeRedis`, and every connection they
open is :func:`guarded`: a connection torn down by another task while a
command is on it (a Cluster failover closes every connection of a node,
those in use too) is a connection error from the socket up, on every path
(a command, a pipeline, a script, a health check, a read or a write), so
redis-py's own retries and the Cluster's reload of its slot map see it as
the lost connection it is."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.connection import AbstractConnection, Connection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
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

from ramino.store.base import ShardUnavailable, StoreUnavailable

T = TypeVar("T")
C = TypeVar("C", bound=AbstractConnection)

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
"""Redis's errors for a store out of reach: once the retries are spent, the
store's clients raise them as :class:`~ramino.store.StoreUnavailable`
(UNAVAILABLE, which clients retry), the redis-py error as its cause."""
RECONNECT_BUDGET = 30.0
"""Seconds a store call keeps reconnecting (a Redis restart, a failover)."""
UNSERVED_BUDGET = 0.5
"""Seconds a Cluster call keeps trying a slot whose node is out of reach
when the slot map names no replica of it: no failover is coming, only that
node's return, so the call is answered :class:`~ramino.store.ShardUnavailable`
rather than held for ``RECONNECT_BUDGET`` (a connection that merely dropped
is reconnected within it)."""
UNSERVED_RETRY_AFTER = 1.0
"""The retry hint of :class:`~ramino.store.ShardUnavailable`, in seconds."""
CONNECT_TIMEOUT = 2.0
"""Seconds a Cluster client waits for a node's connection (and its TLS
handshake): a host that is gone answers no connect at all, and without a
bound each attempt waited for the system's (minutes)."""
UNSERVED = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError, ClusterDownError)
"""What a slot with no live node answers: its node refuses or times out,
or the cluster declares itself down (a slot uncovered)."""


def torn_down(error: BaseException) -> bool:
    """Whether ``error``, raised by a connection's own send or read, is
    redis-py using the reader, writer or parser of a connection that a
    disconnect has just dropped (set to None) under it: redis-py 8.1 raises
    ``AttributeError: 'NoneType' object has no attribute 'writelines'``
    (or ``'readline'``, ``'readexactly'``...) when a failover's disconnect
    comes between two awaits of a command."""
    if isinstance(error, AttributeError):
        return error.obj is None
    return isinstance(error, TypeError) and "NoneType" in str(error)


class _ClosedIsLost(AbstractConnection):
    """A connection whose sends and reads raise a connection torn down under
    them as :class:`redis.exceptions.ConnectionError` (see :func:`guarded`)."""

    async def _lost(self, failed: BaseException, doing: str) -> RedisConnectionError:
        # redis-py has disconnected already (it does on any error of a send
        # or a read); again, in case this one came from elsewhere.
        await self.disconnect(nowait=True)
        return RedisConnectionError(f"the connection closed under a {doing}: {failed}")

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        try:
            await super().send_packed_command(command, check_health)
        except (AttributeError, TypeError) as failed:
            if not torn_down(failed):
                raise
            raise await self._lost(failed, "write") from failed

    async def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().read_response(*args, **kwargs)
        except (AttributeError, TypeError) as failed:
            if not torn_down(failed):
                raise
            raise await self._lost(failed, "read") from failed

    async def can_read(self) -> bool:
        try:
            return await super().can_read()
        except (AttributeError, TypeError) as failed:
            if not torn_down(failed):
                raise
            raise await self._lost(failed, "check") from failed


_GUARDED: dict[type[AbstractConnection], type[AbstractConnection]] = {}


def guarded(connection_class: type[C]) -> type[C]:
    """``connection_class`` whose sends and reads raise a connection torn
    down under them (:func:`torn_down`) as the connection error it is."""
    if issubclass(connection_class, _ClosedIsLost):
        return cast("type[C]", connection_class)
    made = _GUARDED.get(connection_class)
    if made is None:
        name = f"Guarded{connection_class.__name__}"
        bases = (_ClosedIsLost, connection_class)
        made = _GUARDED[connection_class] = type(name, bases, {"__module__": __name__})
    return cast("type[C]", made)


def cancelled() -> bool:
    """Whether the running task is being cancelled: redis-py can turn the
    cancellation of a pending read into a connection error, which a retry
    loop must not take for a store out of reach (it would outlive its
    task's cancellation, for ever in a subscription)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def patiently(
    call: Callable[[], Awaitable[T]],
    between: Callable[[], Awaitable[None]] | None = None,
    unserved: Callable[[], Awaitable[bool]] | None = None,
) -> T:
    """``call``'s answer, called again with a growing pause (and ``between``
    in it) while Redis is out of reach or its Cluster is changing hands;
    :class:`~ramino.store.StoreUnavailable` once ``RECONNECT_BUDGET`` is
    spent. ``unserved``: whether the call's slot has no replica to take
    its node's place (see :meth:`StoreCluster.alone`); once
    ``UNSERVED_BUDGET`` is spent on such a slot out of reach, the call is
    :class:`~ramino.store.ShardUnavailable`, with a retry hint."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    deadline = start + RECONNECT_BUDGET
    delay = 0.05
    while True:
        try:
            return await call()
        except (*RETRYABLE, *TOPOLOGY) as failed:
            if cancelled():
                raise asyncio.CancelledError from failed
            if loop.time() >= deadline:
                raise StoreUnavailable() from failed
            if (
                unserved is not None
                and isinstance(failed, UNSERVED)
                and loop.time() - start + delay >= UNSERVED_BUDGET
                and await unserved()
            ):
                raise ShardUnavailable(UNSERVED_RETRY_AFTER) from failed
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)
            if between is not None:
                await between()


class StoreCluster(RedisCluster):
    """The store's cluster client: it waits out a failover, then answers
    :class:`~ramino.store.StoreUnavailable`. redis-py's own retries follow
    each other at once (reloading the slot map in between), so they are
    spent long before a replica is promoted; here each command is tried
    again with a pause, for ``RECONNECT_BUDGET``. Its connections are
    :func:`guarded`, those of the nodes it learns later too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # RedisCluster makes its nodes' connections of the class in its
        # ``connection_kwargs`` (RedisTls.cluster changes it: to a guarded one).
        kwargs = self.nodes_manager.connection_kwargs
        kwargs["connection_class"] = guarded(kwargs.get("connection_class", Connection))
        for node in (
            *self.nodes_manager.startup_nodes.values(),
            *self.nodes_manager.nodes_cache.values(),
        ):
            node.connection_class = guarded(node.connection_class)

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        run = super().execute_command
        unserved = None
        if "target_nodes" not in kwargs:

            async def unserved() -> bool:
                return self.alone(await self._slot_of(args))

        return await patiently(
            lambda: run(*args, **kwargs), between=self._reload, unserved=unserved
        )

    async def _slot_of(self, args: tuple[Any, ...]) -> int | None:
        """The slot of a keyed command (None when it has none, or it cannot
        be told without a node)."""
        try:
            return int(await self._determine_slot(*args))
        except Exception:
            return None

    def alone(self, slot: int | None) -> bool:
        """Whether the slot map names the primary of ``slot`` and no replica
        of it (Redis leaves a failed replica out of CLUSTER SLOTS): when that
        primary is out of reach, nothing but its return serves the slot."""
        if slot is None:
            return False
        nodes = self.nodes_manager.slots_cache.get(slot)
        return nodes is not None and len(nodes) == 1

    async def _reload(self) -> None:
        """Reloads the slot map, and points the client's key lookup at a live
        node. redis-py asks one node (the default node of its last reload)
        where the keys of some commands are (``COMMAND GETKEYS``: XREAD's);
        when that node dies, the lookup fails before any node is chosen, and
        redis-py then never reloads (it does for a node that fails a
        command): every watch feed of the replica waited for ever after a
        failover of that node."""
        with contextlib.suppress(*RETRYABLE, *TOPOLOGY):
            await self.nodes_manager.initialize()
            await self.commands_parser.initialize(self.nodes_manager.default_node)


class NodeRedis(Redis):
    """A client of one node of a cluster (its own retries short: the store
    tries again, with the cluster's slot map reloaded); its connections are
    :func:`guarded`, and it raises redis-py's errors as they are."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pool = self.connection_pool
        pool.connection_class = guarded(pool.connection_class)


class StoreRedis(NodeRedis):
    """The store's client of one Redis: redis-py retries its connection
    errors (:func:`client_retry`, about half a minute), and then it answers
    :class:`~ramino.store.StoreUnavailable`."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        run: Callable[..., Awaitable[Any]] = super().execute_command
        try:
            return await run(*args, **options)
        except UNREACHABLE as failed:
            raise StoreUnavailable() from failed


def client_retry() -> Retry:
    # About half a minute of reconnecting: long enough for a Redis restart.
    return Retry(ExponentialBackoff(cap=1.0, base=0.05), retries=40)


def cluster_retry() -> Retry:
    """The Cluster client's own attempts at a command, one after the other
    with the slot map reloaded between them (redis-py pauses not): a few,
    as redis-py's default; :func:`patiently` waits out a failover, with
    pauses. Forty of them took 2 to 5 s against a node that was down."""
    return Retry(NoBackoff(), retries=3)
