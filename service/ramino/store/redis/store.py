"""The Redis store (:class:`RedisStore`): the store protocol of
:mod:`ramino.store.base` over the layout of :mod:`.keys`, the scripts of
:mod:`.scripts`, on the clients of :mod:`.retry` (which reconnect, and raise
:class:`~ramino.store.StoreUnavailable` once they give up: every call of the
store, and of the tickets and ratings kept beside it on its client)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import structlog
from redis.asyncio import BlockingConnectionPool
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.crc import key_slot
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ramino import reasons
from ramino.errors import Interrupted
from ramino.store.base import (
    REQUESTS_KEPT,
    Archive,
    DuplicateRequest,
    Entry,
    GameExists,
    GameNotFound,
    GameSummary,
    Page,
    RequestRecord,
    StoreError,
    TailConflict,
    VersionConflict,
    decode_page_token,
    encode_page_token,
)
from ramino.store.redis.feeds import Feeds
from ramino.store.redis.keys import INDEXES, PARTS, Layout
from ramino.store.redis.retry import (
    CONNECT_TIMEOUT,
    RECONNECT_BUDGET,
    RETRYABLE,
    TOPOLOGY,
    NodeRedis,
    StoreCluster,
    StoreRedis,
    client_retry,
    cluster_retry,
    patiently,
)
from ramino.store.redis.scripts import (
    APPEND,
    CREATE,
    LEASE,
    RELEASE,
    REQUEST,
    Batches,
    Script,
    evalsha,
)
from ramino.store.redis.url import StoreUrl

log = structlog.get_logger("ramino.store")


class NotReplicated(StoreError, Interrupted):
    """A write reached its primary but not the replicas asked for in time: it
    is not acknowledged (a retry with its request id gets the first answer
    once the replicas have it, and NotReplicated again until then)."""

    def __init__(self, wanted: int, acked: int) -> None:
        super().__init__(
            f"a write reached {acked} replicas of the {wanted} required", reasons.NOT_REPLICATED
        )
        self.wanted, self.acked = wanted, acked


class RedisStore:
    shared = True

    def __init__(
        self,
        url: str,
        prefix: str = "ramino:",
        requests_kept: int = REQUESTS_KEPT,
        buckets: int | None = None,
    ) -> None:
        parsed = StoreUrl.parse(url)
        options: dict[str, Any] = {
            "retry": client_retry(),
            "retry_on_error": [RedisConnectionError, RedisTimeoutError],
            "health_check_interval": 5,
            "socket_keepalive": True,
        }
        self._cluster = parsed.cluster
        # redis-py types its replies as unions of every shape a reply can
        # take; this store decodes them itself, so the clients are untyped.
        self._redis: Any
        self._blocking: Any
        if parsed.cluster:
            if "{" in prefix or "}" in prefix:
                raise ValueError(f"a cluster store's prefix has no braces: {prefix[:40]!r}")
            del options["retry_on_error"]
            options["retry"] = cluster_retry()
            options["socket_connect_timeout"] = CONNECT_TIMEOUT
            options["username"] = parsed.username
            options["password"] = parsed.password
            if parsed.tls is not None:
                options.update(ssl=True, **parsed.tls.ssl_options())
            nodes = [ClusterNode(host, port) for host, port in parsed.nodes]
            self._redis = StoreCluster(startup_nodes=nodes, max_connections=256, **options)
            # Blocking stream reads hold a connection each: a pool of their
            # own, with a socket timeout past their 5 s block.
            self._blocking = StoreCluster(
                startup_nodes=[ClusterNode(host, port) for host, port in parsed.nodes],
                max_connections=64,
                socket_timeout=15,
                **options,
            )
            if parsed.tls is not None:
                parsed.tls.cluster(self._redis)
                parsed.tls.cluster(self._blocking)
            self._layout = Layout(prefix, parsed.buckets if buckets is None else buckets)
        else:
            if parsed.tls is not None:
                options.update(parsed.tls.redis_options())
            # Commands wait for one of a few connections (whatever the games
            # watched or played: see COMMAND_CONNECTIONS).
            self._redis = StoreRedis.from_pool(
                BlockingConnectionPool.from_url(
                    parsed.redis_url,
                    max_connections=COMMAND_CONNECTIONS,
                    timeout=RECONNECT_BUDGET,
                    **options,
                )
            )
            self._blocking = StoreRedis.from_url(parsed.redis_url, max_connections=64, **options)
            self._layout = Layout(prefix)
            # The watch feeds' pub/sub connection (RESP2: its messages are
            # plain replies), which reconnects only through the feeds, so
            # that they know to read what a lost connection missed.
            self._pubsub = StoreRedis.from_url(parsed.redis_url, **{**options, **_FEED_OPTIONS})
        self._prefix = prefix
        self._requests_kept = requests_kept
        self._wait = parsed.wait
        self._wait_timeout = parsed.wait_timeout
        self._nodes: dict[str, Any] = {}
        self._credentials = (parsed.username, parsed.password)
        self._tls = parsed.tls
        self._batches = None if self._cluster else Batches(self._redis)
        """One Redis: the scripts of a loop turn in one pipeline."""
        self._feed_clients: dict[str, Any] = {}
        self._feeds = Feeds(self._feed_connection, self._feed_node, self.read, self._refresh)

    @property
    def feeds(self) -> Feeds:
        """The replica's watch feeds (their connections, for the benchmarks)."""
        return self._feeds

    async def _feed_node(self, channel: str) -> str:
        if not self._cluster:
            return "redis"
        await self._redis.initialize()
        return str(self._redis.get_node_from_key(channel).name)

    async def _feed_connection(self, channel: str) -> tuple[str, Any]:
        """A new pub/sub connection to the node that serves ``channel``
        (made by its node's feed client, which does not pool it: the feeds
        close it)."""
        client: Any
        if not self._cluster:
            name, client = "redis", self._pubsub
        else:
            await self._redis.initialize()
            node = self._redis.get_node_from_key(channel)
            name = str(node.name)
            client = self._feed_clients.get(name)
            if client is None:
                client = self._feed_clients[name] = NodeRedis(
                    host=node.host,
                    port=node.port,
                    username=self._credentials[0],
                    password=self._credentials[1],
                    socket_connect_timeout=CONNECT_TIMEOUT,
                    **_FEED_OPTIONS,
                    **({} if self._tls is None else self._tls.ssl_options()),
                    ssl=self._tls is not None,
                )
                if self._tls is not None:
                    client.connection_pool.connection_class = self._tls.connection_class()
        conn: Any = client.connection_pool.make_connection()
        try:
            await conn.connect()
        except BaseException:
            await conn.disconnect()
            raise
        return name, conn

    @property
    def layout(self) -> Layout:
        return self._layout

    @property
    def blocking(self) -> Any:
        """The client of the store's blocking reads (watch feeds, the ticket
        store's changes), apart from its calls' client."""
        return self._blocking

    @property
    def client(self) -> Any:
        """The redis-py client (a ``RedisCluster`` on a cluster): a store
        out of reach is :class:`~ramino.store.StoreUnavailable` from it too,
        so the tickets and ratings kept beside the games on it answer as
        the store does."""
        return self._redis

    def _key(self, game_id: str, part: str) -> str:
        return self._layout.key(game_id, part)

    async def ping(self) -> bool:
        return bool(await self._redis.ping())

    async def _run(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """The script's answer, run where its keys live; with ``wait`` set,
        a write is answered only once that many replicas have it."""
        if not self._wait:
            if self._batches is not None:
                return await self._batches.run(script, keys, args)
            return await evalsha(self._redis, script, keys, args)

        async def attempt() -> Any:
            node = await self._node_client(keys[0])
            # WAIT counts the writes of its own connection: one for both.
            async with node.client() as conn:
                result = await evalsha(conn, script, keys, args)
                if _answers_a_write(result):
                    await self._replicated(conn)
                return result

        unserved = None
        if self._cluster:

            async def unserved() -> bool:
                return bool(self._redis.alone(key_slot(keys[0].encode())))

        return await patiently(attempt, between=self._refresh, unserved=unserved)

    async def _replicated(self, conn: Any) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._wait_timeout
        acked = 0
        while True:
            step = max(1, min(1000, int((deadline - loop.time()) * 1000)))
            acked = int(await conn.execute_command("WAIT", self._wait, step))
            if acked >= self._wait:
                return
            if loop.time() >= deadline:
                raise NotReplicated(self._wait, acked)

    async def _node_client(self, key: str) -> Any:
        """A plain client of the node that serves ``key`` (the store's own
        client on one Redis)."""
        if not self._cluster:
            return self._redis
        await self._redis.initialize()  # once: the slot map from the startup nodes
        node = self._redis.get_node_from_key(key)
        client = self._nodes.get(node.name)
        if client is None:
            client = self._nodes[node.name] = NodeRedis(
                host=node.host,
                port=node.port,
                username=self._credentials[0],
                password=self._credentials[1],
                max_connections=256,
                socket_keepalive=True,
                socket_connect_timeout=CONNECT_TIMEOUT,
                retry=Retry(ExponentialBackoff(cap=0.2, base=0.05), retries=2),
                **({} if self._tls is None else self._tls.ssl_options()),
                ssl=self._tls is not None,
            )
            if self._tls is not None:
                client.connection_pool.connection_class = self._tls.connection_class()
        return client

    async def _refresh(self) -> None:
        """Reloads the cluster's slot map after a redirection or a lost node."""
        if self._cluster:
            with contextlib.suppress(*RETRYABLE, *TOPOLOGY):
                await self._redis.nodes_manager.initialize()

    async def create(
        self, summary: GameSummary, first: str, request: RequestRecord | None = None
    ) -> None:
        summary.version = 1
        gid = summary.game_id
        done = await self._run(
            CREATE,
            keys=[
                self._key(gid, "meta"),
                self._key(gid, "log"),
                self._layout.game_index("games", gid),
                self._layout.game_index("duties", gid),
                self._key(gid, "req"),
                self._key(gid, "reqs"),
            ],
            args=[
                summary.to_json(),
                first,
                summary.created_at,
                gid,
                "" if summary.duty_at is None else summary.duty_at,
                "" if request is None else request.request_id,
                b"" if request is None else request.to_bytes(),
                self._requests_kept,
                tail_digest(first),
            ],
        )
        if not done:
            raise GameExists(gid)

    async def append(
        self,
        game_id: str,
        expected_version: int,
        entries: Sequence[str],
        summary: GameSummary,
        request: RequestRecord | None = None,
        tail: str | None = None,
    ) -> int:
        summary.version = expected_version + len(entries)
        result = await self._run(
            APPEND,
            keys=[
                self._key(game_id, "meta"),
                self._key(game_id, "log"),
                self._key(game_id, "req"),
                self._layout.game_index("duties", game_id),
                self._layout.game_index("finished", game_id),
                self._key(game_id, "reqs"),
                self._layout.channel(game_id),
            ],
            args=[
                expected_version,
                "" if request is None else request.request_id,
                b"" if request is None else request.to_bytes(),
                summary.to_json(),
                "" if summary.duty_at is None else summary.duty_at,
                "" if summary.finished_at is None else summary.finished_at,
                game_id,
                self._requests_kept,
                "" if tail is None else tail_digest(tail),
                tail_digest(entries[-1]),
                *entries,
            ],
        )
        code = int(result[0])
        if code == -2:
            raise GameNotFound(game_id)
        if code == -4:
            raise TailConflict(game_id, expected_version)
        if code == -3:
            raise DuplicateRequest(game_id, RequestRecord.from_bytes(bytes(result[1])))
        if code == -1:
            actual = int(result[1])
            if actual < expected_version:
                # A log never shrinks: the store lost acknowledged entries
                # (a failover to a replica that lacked them).
                log.warning(
                    "redis log behind a version it acknowledged",
                    game=game_id,
                    expected=expected_version,
                    actual=actual,
                )
            raise VersionConflict(game_id, expected_version, actual)
        return code

    async def read(
        self, game_id: str, after_version: int = 0, limit: int | None = None
    ) -> list[Entry]:
        rows = await self._redis.xrange(
            self._key(game_id, "log"), min=f"({after_version}-0", count=limit
        )
        # A game with entries after version 0 exists; only a first read checks.
        if (
            not rows
            and after_version == 0
            and not await self._redis.exists(self._key(game_id, "meta"))
        ):
            raise GameNotFound(game_id)
        return [_entry(stream_id, fields) for stream_id, fields in rows]

    async def version(self, game_id: str) -> int:
        v = await self._redis.hget(self._key(game_id, "meta"), "version")
        if v is None:
            raise GameNotFound(game_id)
        return int(v)

    async def request(self, game_id: str, request_id: str) -> RequestRecord | None:
        """The record of ``request_id``; with ``wait`` set, given only once
        the replicas asked for have the write that made it (a retry of a
        write not replicated is NotReplicated again, never acknowledged)."""
        key = self._key(game_id, "req")
        if not self._wait:
            first = await self._redis.hget(key, request_id)
            return None if first is None else RequestRecord.from_bytes(bytes(first))
        found = await self._run(REQUEST, [key], [request_id])
        return RequestRecord.from_bytes(bytes(found[1])) if int(found[0]) else None

    async def requests_kept(self, game_id: str) -> int:
        """How many request records the game keeps (for tests): the larger of
        the record hash and the order list, so that a leak in either shows."""
        records = int(await self._redis.hlen(self._key(game_id, "req")))
        return max(records, int(await self._redis.llen(self._key(game_id, "reqs"))))

    async def subscribe(self, game_id: str, after_version: int) -> AsyncIterator[Entry]:
        """Every entry after ``after_version``, whichever replica appended it,
        through the replica's feeds (:mod:`.feeds`: one pub/sub connection
        a node, the log read where a notice is missing), so nothing is
        missed or given twice across a lost connection or a failover."""
        async for e in self._feeds.follow(game_id, self._layout.channel(game_id), after_version):
            yield e

    async def _pipelined(self, queue: Callable[[Any], object]) -> list[Any]:
        """The answers of the commands ``queue`` puts in a pipeline (one
        round trip per node), the whole pipeline tried again while the
        store is out of reach."""

        async def once() -> list[Any]:
            pipe = self._redis.pipeline(transaction=False)
            queue(pipe)
            return list(await pipe.execute())

        return await patiently(once)

    async def _summaries(self, ids: list[str]) -> list[Any]:
        """The lobby summaries of ``ids`` (None for a game gone since)."""
        if not ids:
            return []
        return await self._pipelined(
            lambda pipe: [pipe.hget(self._key(game_id, "meta"), "summary") for game_id in ids]
        )

    async def _index_after(
        self, name: str, after: tuple[float, str] | None, high: float | str, batch: int
    ) -> list[tuple[list[tuple[float, str]], bool]]:
        """Per bucket: up to ``batch`` members of index ``name`` after
        ``after`` in (score, id) order with scores up to ``high``, and whether
        the bucket may hold more."""
        low: float | str = "-inf" if after is None else after[0]
        fetched = await self._pipelined(
            lambda pipe: [
                pipe.zrangebyscore(
                    self._layout.index(name, b), low, high, start=0, num=batch, withscores=True
                )
                for b in self._layout.all_buckets
            ]
        )
        out = []
        for b, rows in zip(self._layout.all_buckets, fetched, strict=True):
            offset = 0
            while True:
                items = [(float(score), member.decode()) for member, score in rows]
                full = len(items) == batch
                kept = [i for i in items if after is None or i > after]
                if kept or not full:
                    out.append((kept, full))
                    break
                # A full batch tied at the cursor's score: read on past it.
                offset += batch
                rows = await self._redis.zrangebyscore(
                    self._layout.index(name, b),
                    low,
                    high,
                    start=offset,
                    num=batch,
                    withscores=True,
                )
        return out

    async def list_games(
        self,
        page_size: int,
        page_token: str = "",
        variant: str = "",
        status: str = "",
        open_only: bool = False,
    ) -> Page:
        after = decode_page_token(page_token)
        games: list[GameSummary] = []
        buckets = len(self._layout.all_buckets)
        batch = max(16, 2 * (page_size + 1) // buckets + 1)
        while len(games) <= page_size:
            fetched = await self._index_after("games", after, "+inf", batch)
            # Every bucket is read up to the same point: the least of the
            # last members of the buckets that may hold more.
            ends = [items[-1] for items, full in fetched if full]
            frontier = min(ends) if ends else None
            ids = sorted(
                i for items, _ in fetched for i in items if frontier is None or i <= frontier
            )
            for text in await self._summaries([game_id for _, game_id in ids]):
                if text is None:
                    continue
                s = GameSummary.from_json(text)
                if (variant and s.variant != variant) or (status and s.status != status):
                    continue
                if (open_only and s.open_seats <= 0) or s.extra.get("private"):
                    continue
                games.append(s)
            if frontier is None:
                break
            after = frontier
        games.sort(key=lambda s: (s.created_at, s.game_id))
        page = games[:page_size]
        more = len(games) > page_size
        token = encode_page_token(page[-1].created_at, page[-1].game_id) if more else ""
        return Page(page, token)

    async def save_snapshot(self, game_id: str, version: int, data: str) -> None:
        await self._redis.hset(
            self._key(game_id, "snap"), mapping={"version": version, "data": data}
        )

    async def load_snapshot(self, game_id: str) -> tuple[int, str] | None:
        found = await self._redis.hmget(self._key(game_id, "snap"), ["version", "data"])
        if found[0] is None:
            return None
        return int(found[0]), found[1].decode()

    async def due_games(self, now: float, limit: int = 100) -> list[str]:
        fetched = await self._index_after("duties", None, now, limit)
        due = sorted(i for items, _ in fetched for i in items)[:limit]
        return [game_id for _, game_id in due]

    async def acquire_lease(self, game_id: str, owner: str, ttl: float) -> bool:
        return bool(
            await evalsha(
                self._redis, LEASE, [self._key(game_id, "lease")], [owner, int(ttl * 1000)]
            )
        )

    async def release_lease(self, game_id: str, owner: str) -> None:
        await evalsha(self._redis, RELEASE, [self._key(game_id, "lease")], [owner])

    async def expire_finished(self, before: float, archive: Archive | None = None) -> list[str]:
        found = await self._pipelined(
            lambda pipe: [
                pipe.zrangebyscore(self._layout.index("finished", b), "-inf", f"({before}")
                for b in self._layout.all_buckets
            ]
        )
        ids = sorted(i.decode() for rows in found for i in rows)
        gone = []
        for game_id in ids:
            # One replica wins each game's expiry: the others skip it.
            if not await self._redis.set(self._key(game_id, "expiring"), "1", nx=True, ex=60):
                continue
            if archive is not None:
                with contextlib.suppress(GameNotFound):
                    await archive(game_id, await self.read(game_id))
            parts = (*PARTS, "lease", "expiring")
            await self._redis.delete(*(self._key(game_id, p) for p in parts))
            for index in INDEXES:
                await self._redis.zrem(self._layout.game_index(index, game_id), game_id)
            gone.append(game_id)
        return gone

    async def close(self) -> None:
        await self._feeds.close()
        await self._redis.aclose()
        await self._blocking.aclose()
        if not self._cluster:
            await self._pubsub.aclose()
        for client in self._feed_clients.values():
            await client.aclose()
        for client in self._nodes.values():
            await client.aclose()


COMMAND_CONNECTIONS = 12
"""Connections of a replica's commands to one Redis (its scripts, reads,
pipelines): a command waits for a free one rather than opening another, so
a burst (thousands of watches opened at once, each reading its game) leaves
no more than this many open. Beside them: the feeds' one pub/sub connection
and the ticket store's blocking reads (one a quick-play queue)."""

_FEED_OPTIONS: dict[str, Any] = {
    "protocol": 2,
    "retry": Retry(NoBackoff(), 0),
    "health_check_interval": 0,
    "socket_keepalive": True,
}
"""The feeds' pub/sub connections: no retry of their own (a lost one is
the feeds' to mend, reading the log), no health check on reads that wait."""


def tail_digest(text: str) -> str:
    """The digest of a log entry that the append script compares (Redis's
    ``sha1hex`` of the entry where its meta keeps none)."""
    return hashlib.sha1(text.encode()).hexdigest()


def _answers_a_write(result: Any) -> bool:
    """Whether a script's answer stands for a write the replicas must have
    before it is given: one it made (create: 1; append: the new version; a
    request's record found: 1), or the first attempt's, answered to a retry
    (append: -3). WAIT then covers it: the script wrote the record again."""
    code = int(result[0] if isinstance(result, list) else result)
    return code > 0 or code == -3


def _entry(stream_id: bytes | str, fields: dict[Any, Any]) -> Entry:
    sid = stream_id.decode() if isinstance(stream_id, bytes) else stream_id
    data = fields.get(b"d", fields.get("d"))
    text = data.decode() if isinstance(data, bytes) else str(data)
    return Entry(int(sid.split("-", 1)[0]), text)
