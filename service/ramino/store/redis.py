"""The Redis store: many replicas share games, on one Redis (``redis://``) or
on a Redis Cluster (``redis+cluster://HOST:PORT[,HOST:PORT...]``); over TLS
with ``rediss://`` and ``rediss+cluster://`` (see :class:`RedisTls`).

Per game, under a prefix (``ramino:`` by default):

- ``log``   a Stream of the game's entries; entry ``v`` has the stream id
  ``v-0``, so reading "after version v" is reading after id ``v-0``;
- ``meta``  a hash: ``version`` and the lobby ``summary`` (JSON);
- ``req``   a hash: request id -> its record (scope, method, fingerprint and
  first answer);
- ``reqs``  a list of the request ids of ``req``, oldest first: an append
  past the bound kept per game pops and drops the oldest;
- ``snap``  a hash: ``version`` and ``data`` of the latest snapshot;
- ``lease`` the duty lease: the owning replica's id, with an expiry.

And three indexes: ``games`` (game ids by creation time: the lobby),
``duties`` (by when a duty is next due) and ``finished`` (by when they
finished).

On one Redis a game's keys are ``ramino:g:{ID}:log`` and so on, and there is
one of each index (``ramino:games``...): the layout of every earlier version.

On a Cluster, games are spread over ``buckets`` index shards (64 by
default): a game's bucket is the CRC-32 of its id modulo ``buckets``, and its
keys and its bucket's three indexes carry the bucket's hash tag
(``{ramino:b17}:g:ID:log``, ``{ramino:b17}:games``), so they share one slot.
Whatever Cluster node serves that slot runs the game's scripts whole. The
lobby, due duties and expiry read every bucket's index (pipelined: one round
trip per node) and merge them in (score, game id) order, which is the order
one index gives, so pages stay stable.

An append is one Lua script, so it is atomic on the server: it checks the
request id, then the version, then adds the entries, the summary, the request's
answer and the indexes together. A client that loses its connection after the
script ran and retries with the same request id gets the first answer.

With ``wait=N`` (a URL option) an append or a create is acknowledged only
once ``N`` replicas of its node have it: ``WAIT`` on the connection that ran
the script. A node that loses its primary promotes a replica that has every
acknowledged write; without it, a failover can lose the writes of the last
moment before the primary died (see the README's durability section). A
retry's answer from the first attempt's record (the append's duplicate
branch, :meth:`RedisStore.request`) waits the same way: the script writes the
record again, unchanged, and WAIT on its connection then covers the first
write, so a retry of a write that timed out is NotReplicated again until the
replicas have it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import parse_qs, unquote, urlencode, urlsplit, urlunsplit

import structlog
from redis.asyncio import Redis, RedisCluster
from redis.asyncio import connection as redis_connection
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.connection import SSLConnection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import (
    AskError,
    ClusterDownError,
    ClusterError,
    MovedError,
    NoScriptError,
    ReadOnlyError,
    RedisClusterException,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

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
    VersionConflict,
    decode_page_token,
    encode_page_token,
)

# Keeps a request's record and drops the oldest past the bound; the keys and
# arguments it names are set by the script that includes it.
KEEP_REQUEST = """
if request_id ~= '' then
  redis.call('HSET', req, request_id, record)
  local extra = redis.call('RPUSH', order, request_id) - tonumber(kept)
  for _ = 1, extra do
    redis.call('HDEL', req, redis.call('LPOP', order))
  end
end
"""

APPEND_TEXT = (
    """
local meta, log, req, order = KEYS[1], KEYS[2], KEYS[3], KEYS[6]
local expected, request_id, record, summary = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local duty_at, finished_at, game_id, kept = ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local version = redis.call('HGET', meta, 'version')
if not version then return {-2} end
if request_id ~= '' then
  local first = redis.call('HGET', req, request_id)
  if first then
    -- Written again (unchanged), so that a WAIT after this script covers the
    -- first write too: a retry is acknowledged only once replicas have it.
    redis.call('HSET', req, request_id, first)
    return {-3, first}
  end
end
version = tonumber(version)
if version ~= tonumber(expected) then return {-1, version} end
for i = 9, #ARGV do
  version = version + 1
  redis.call('XADD', log, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', meta, 'version', version, 'summary', summary)
"""
    + KEEP_REQUEST
    + """
if duty_at ~= '' then
  redis.call('ZADD', KEYS[4], duty_at, game_id)
else
  redis.call('ZREM', KEYS[4], game_id)
end
if finished_at ~= '' then redis.call('ZADD', KEYS[5], finished_at, game_id) end
return {version}
"""
)

CREATE_TEXT = (
    """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', 1, 'summary', ARGV[1])
redis.call('XADD', KEYS[2], '1-0', 'd', ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
if ARGV[5] ~= '' then redis.call('ZADD', KEYS[4], ARGV[5], ARGV[4]) end
local req, order = KEYS[5], KEYS[6]
local request_id, record, kept = ARGV[6], ARGV[7], ARGV[8]
"""
    + KEEP_REQUEST
    + """
return 1
"""
)

LEASE_TEXT = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# A request's record, for a retry; written again (unchanged) so that a WAIT
# after it covers the write that made it (see APPEND_TEXT's duplicate branch).
REQUEST_TEXT = """
local first = redis.call('HGET', KEYS[1], ARGV[1])
if not first then return {0} end
redis.call('HSET', KEYS[1], ARGV[1], first)
return {1, first}
"""

RELEASE_TEXT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

log = structlog.get_logger("ramino.store")
T = TypeVar("T")

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
spent: the service answers them UNAVAILABLE, which clients retry."""
PARTS = ("meta", "log", "req", "reqs", "snap")
"""A game's lasting keys (the lease and the expiry claim come and go)."""
INDEXES = ("games", "duties", "finished")
DEFAULT_BUCKETS = 64
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


async def _translated(call: Callable[[], Awaitable[T]]) -> T:
    """``call``'s answer; redis-py's write on a torn-down connection is
    raised as the connection error it is (retried, else UNAVAILABLE)."""
    try:
        return await call()
    except AttributeError as failed:
        if not _torn_down(failed):
            raise
        raise RedisConnectionError(f"the connection closed under a write: {failed}") from failed


async def _patiently(call: Callable[[], Awaitable[T]]) -> T:
    """``call``'s answer, called again with a growing pause while Redis is
    out of reach or its Cluster is changing hands, for ``RECONNECT_BUDGET``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RECONNECT_BUDGET
    delay = 0.05
    while True:
        try:
            return await _translated(call)
        except (*RETRYABLE, *TOPOLOGY):
            if loop.time() >= deadline:
                raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)


class _PatientCluster(RedisCluster):
    """A cluster client that waits out a failover. redis-py's own retries
    follow each other at once (reloading the slot map in between), so they
    are spent long before a replica is promoted; here each command is tried
    again with a pause, for ``RECONNECT_BUDGET``."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        run = super().execute_command
        return await _patiently(lambda: run(*args, **kwargs))


class _TranslatingRedis(Redis):
    """One Redis's client (redis-py retries its own connection errors): its
    commands raise a write on a torn-down connection as a connection error."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        run: Callable[..., Awaitable[Any]] = super().execute_command
        return await _translated(lambda: run(*args, **options))


class NotReplicated(StoreError):
    """A write reached its primary but not the replicas asked for in time: it
    is not acknowledged (a retry with its request id gets the first answer
    once the replicas have it, and NotReplicated again until then)."""

    def __init__(self, wanted: int, acked: int) -> None:
        super().__init__(f"a write reached {acked} replicas of the {wanted} required")
        self.wanted, self.acked = wanted, acked


def _retry() -> Retry:
    # About half a minute of reconnecting: long enough for a Redis restart.
    return Retry(ExponentialBackoff(cap=1.0, base=0.05), retries=40)


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a game's keys and the indexes live."""

    prefix: str
    buckets: int = 0
    """0: one Redis, the original layout; else how many index shards."""

    def bucket(self, game_id: str) -> int:
        return zlib.crc32(game_id.encode()) % self.buckets if self.buckets else 0

    def key(self, game_id: str, part: str) -> str:
        if not self.buckets:
            return f"{self.prefix}g:{{{game_id}}}:{part}"
        return f"{{{self.prefix}b{self.bucket(game_id)}}}:g:{game_id}:{part}"

    def index(self, name: str, bucket: int = 0) -> str:
        if not self.buckets:
            return f"{self.prefix}{name}"
        return f"{{{self.prefix}b{bucket}}}:{name}"

    def game_index(self, name: str, game_id: str) -> str:
        return self.index(name, self.bucket(game_id))

    @property
    def all_buckets(self) -> range:
        return range(max(self.buckets, 1))


@dataclass(frozen=True, slots=True)
class _Script:
    text: str
    sha: str

    @classmethod
    def of(cls, text: str) -> _Script:
        return cls(text, hashlib.sha1(text.encode()).hexdigest())


APPEND = _Script.of(APPEND_TEXT)
CREATE = _Script.of(CREATE_TEXT)
LEASE = _Script.of(LEASE_TEXT)
RELEASE = _Script.of(RELEASE_TEXT)
REQUEST = _Script.of(REQUEST_TEXT)


TLS_OPTIONS = ("tls_ca_file", "tls_cert_file", "tls_key_file", "tls_server_name")
"""The URL options of a store over TLS."""


class _NamedTlsConnection(SSLConnection):
    """A TLS connection that checks the server's certificate against a
    fixed name (and sends it as SNI) instead of the address it dials: a
    cluster's nodes announce addresses, the certificate names the service."""

    server_name = ""

    def _connection_arguments(self) -> Any:
        return {**super()._connection_arguments(), "server_hostname": self.server_name}


@dataclass(frozen=True, slots=True)
class RedisTls:
    """TLS toward Redis, from the URL's options: ``tls_ca_file`` (the CAs
    that sign the server's certificate; the system's by default),
    ``tls_cert_file`` and ``tls_key_file`` (a client certificate, for a
    Redis that asks for one), ``tls_server_name`` (the name the server's
    certificate must carry; the host dialled by default). The server's
    certificate is always verified."""

    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    server_name: str | None = None

    @classmethod
    def from_query(cls, query: dict[str, list[str]], scheme: str) -> RedisTls | None:
        """The TLS options popped from ``query``; None for a plaintext scheme."""
        given = {name: query.pop(name)[-1] for name in TLS_OPTIONS if name in query}
        if not scheme.startswith("rediss"):
            if given:
                name = sorted(given)[0]
                raise ValueError(
                    f"store option {name} needs TLS: use rediss:// or rediss+cluster://"
                )
            return None
        for name, value in given.items():
            if not value:
                raise ValueError(f"store option {name} is empty")
        tls = cls(
            given.get("tls_ca_file"),
            given.get("tls_cert_file"),
            given.get("tls_key_file"),
            given.get("tls_server_name"),
        )
        if (tls.cert_file is None) != (tls.key_file is None):
            raise ValueError("store options tls_cert_file and tls_key_file go together")
        for name, path in (
            ("tls_ca_file", tls.ca_file),
            ("tls_cert_file", tls.cert_file),
            ("tls_key_file", tls.key_file),
        ):
            if path is not None and not os.access(path, os.R_OK):
                raise ValueError(f"store option {name}: cannot read {path[:200]!r}")
        return tls

    def ssl_options(self) -> dict[str, Any]:
        """redis-py's ``ssl_*`` options of a TLS connection."""
        return {
            "ssl_ca_certs": self.ca_file,
            "ssl_certfile": self.cert_file,
            "ssl_keyfile": self.key_file,
            "ssl_cert_reqs": "required",
            "ssl_check_hostname": True,
        }

    def connection_class(self) -> type[SSLConnection]:
        if self.server_name is None:
            return SSLConnection
        return type("NamedTlsConnection", (_NamedTlsConnection,), {"server_name": self.server_name})

    def redis_options(self) -> dict[str, Any]:
        """The options of a ``Redis`` client (one server) over this TLS."""
        return {"connection_class": self.connection_class(), **self.ssl_options()}

    def cluster(self, cluster: RedisCluster) -> RedisCluster:
        """``cluster`` (made with ``ssl=True`` and :meth:`ssl_options`) with
        its connections named: RedisCluster has no option for the class of
        its connections, and makes its nodes' from ``connection_kwargs``."""
        if self.server_name is not None:
            named = self.connection_class()
            cluster.connection_kwargs["connection_class"] = named
            for node in cluster.nodes_manager.startup_nodes.values():
                node.connection_class = named
        return cluster


@dataclass(frozen=True, slots=True)
class StoreUrl:
    """A parsed store URL: the nodes (cluster) or the URL for redis-py
    (one Redis), and this store's own options."""

    cluster: bool
    redis_url: str = ""
    nodes: tuple[tuple[str, int], ...] = ()
    wait: int = 0
    wait_timeout: float = 10.0
    buckets: int = DEFAULT_BUCKETS
    username: str | None = None
    password: str | None = None
    tls: RedisTls | None = None

    @classmethod
    def parse(cls, url: str) -> StoreUrl:
        parts = urlsplit(url)
        query = parse_qs(parts.query, keep_blank_values=True)
        tls = RedisTls.from_query(query, parts.scheme)
        own: dict[str, int] = {}
        for name in ("wait", "wait_timeout_ms", "buckets"):
            if name in query:
                value = query.pop(name)[-1]
                if not value.isdigit():
                    raise ValueError(
                        f"store option {name} must be a whole number, not {value[:20]!r}"
                    )
                own[name] = int(value)
        wait = own.get("wait", 0)
        wait_timeout = own.get("wait_timeout_ms", 10000) / 1000
        buckets = own.get("buckets", DEFAULT_BUCKETS)
        if parts.scheme in ("redis+cluster", "rediss+cluster"):
            if query:
                raise ValueError(f"unknown cluster store option {sorted(query)[0][:20]!r}")
            if buckets < 1:
                raise ValueError("store option buckets must be at least 1")
            hosts = parts.netloc.rpartition("@")[2]
            nodes = []
            for hostport in filter(None, hosts.split(",")):
                host, sep, port = hostport.rpartition(":")
                if not sep or not host or not port.isdigit():
                    raise ValueError(f"a cluster node is HOST:PORT, not {hostport[:40]!r}")
                nodes.append((host, int(port)))
            if not nodes:
                raise ValueError(f"{parts.scheme}:// needs at least one HOST:PORT")
            return cls(
                True,
                nodes=tuple(nodes),
                wait=wait,
                wait_timeout=wait_timeout,
                buckets=buckets,
                username=unquote(parts.username) if parts.username else None,
                password=unquote(parts.password) if parts.password else None,
                tls=tls,
            )
        rest = urlencode([(k, v) for k, vs in query.items() for v in vs])
        # TLS is set up by this store (RedisTls), so redis-py gets redis://
        plain = urlunsplit(parts._replace(scheme="redis", query=rest))
        return cls(False, redis_url=plain, wait=wait, wait_timeout=wait_timeout, buckets=0, tls=tls)


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
            "retry": _retry(),
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
            options["username"] = parsed.username
            options["password"] = parsed.password
            if parsed.tls is not None:
                options.update(ssl=True, **parsed.tls.ssl_options())
            nodes = [ClusterNode(host, port) for host, port in parsed.nodes]
            self._redis = _PatientCluster(startup_nodes=nodes, max_connections=256, **options)
            # Blocking stream reads hold a connection each: a pool of their
            # own, with a socket timeout past their 5 s block.
            self._blocking = _PatientCluster(
                startup_nodes=[ClusterNode(host, port) for host, port in parsed.nodes],
                max_connections=4096,
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
            self._redis = _TranslatingRedis.from_url(
                parsed.redis_url, max_connections=256, **options
            )
            self._blocking = _TranslatingRedis.from_url(
                parsed.redis_url, max_connections=4096, **options
            )
            self._layout = Layout(prefix)
        self._prefix = prefix
        self._requests_kept = requests_kept
        self._wait = parsed.wait
        self._wait_timeout = parsed.wait_timeout
        self._nodes: dict[str, Any] = {}
        self._credentials = (parsed.username, parsed.password)
        self._tls = parsed.tls

    @property
    def layout(self) -> Layout:
        return self._layout

    @property
    def client(self) -> Any:
        """The redis-py client (a ``RedisCluster`` on a cluster)."""
        return self._redis

    def _key(self, game_id: str, part: str) -> str:
        return self._layout.key(game_id, part)

    async def ping(self) -> bool:
        return bool(await self._redis.ping())

    async def _run(self, script: _Script, keys: list[str], args: list[Any]) -> Any:
        """The script's answer, run where its keys live; with ``wait`` set,
        a write is answered only once that many replicas have it."""
        if not self._wait:
            return await _evalsha(self._redis, script, keys, args)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + RECONNECT_BUDGET
        delay = 0.05

        async def attempt() -> Any:
            node = await self._node_client(keys[0])
            # WAIT counts the writes of its own connection: one for both.
            async with node.client() as conn:
                result = await _evalsha(conn, script, keys, args)
                if _answers_a_write(result):
                    await self._replicated(conn)
                return result

        while True:
            try:
                return await _translated(attempt)
            except (*RETRYABLE, *TOPOLOGY):
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
                await self._refresh()

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
            client = self._nodes[node.name] = _TranslatingRedis(
                host=node.host,
                port=node.port,
                username=self._credentials[0],
                password=self._credentials[1],
                max_connections=256,
                socket_keepalive=True,
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
                *entries,
            ],
        )
        code = int(result[0])
        if code == -2:
            raise GameNotFound(game_id)
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

    async def read(self, game_id: str, after_version: int = 0) -> list[Entry]:
        rows = await self._redis.xrange(self._key(game_id, "log"), min=f"({after_version}-0")
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
        """Every entry after ``after_version``, whichever replica appended it;
        across a lost connection (or a failover: the cluster client asks the
        node that now serves the game) it reconnects and goes on from the
        last entry it gave, so nothing is missed or given twice."""
        last = after_version
        for e in await self.read(game_id, last):
            yield e
            last = e.version
        key = self._key(game_id, "log")
        delay = 0.05
        while True:
            try:
                found = await self._blocking.xread({key: f"{last}-0"}, block=5000, count=256)
                delay = 0.05
            except (*RETRYABLE, *TOPOLOGY, ResponseError) as failed:
                # A primary that turns replica unblocks its readers (UNBLOCKED).
                if isinstance(failed, ResponseError) and not isinstance(failed, TOPOLOGY):
                    if not str(failed).startswith("UNBLOCKED"):
                        raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            for _stream, rows in found or ():
                for stream_id, fields in rows:
                    e = _entry(stream_id, fields)
                    if e.version > last:
                        yield e
                        last = e.version

    async def _pipelined(self, queue: Callable[[Any], object]) -> list[Any]:
        """The answers of the commands ``queue`` puts in a pipeline (one
        round trip per node), the whole pipeline tried again while the
        store is out of reach."""

        async def once() -> list[Any]:
            pipe = self._redis.pipeline(transaction=False)
            queue(pipe)
            return list(await pipe.execute())

        return await _patiently(once)

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
                if open_only and s.open_seats <= 0:
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
            await _evalsha(
                self._redis, LEASE, [self._key(game_id, "lease")], [owner, int(ttl * 1000)]
            )
        )

    async def release_lease(self, game_id: str, owner: str) -> None:
        await _evalsha(self._redis, RELEASE, [self._key(game_id, "lease")], [owner])

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
        await self._redis.aclose()
        await self._blocking.aclose()
        for client in self._nodes.values():
            await client.aclose()


async def _evalsha(client: Any, script: _Script, keys: list[str], args: list[Any]) -> Any:
    """The script's answer by its digest, sending it whole where the node
    does not know it yet (a fresh node, a promoted replica)."""
    try:
        return await client.evalsha(script.sha, len(keys), *keys, *args)
    except NoScriptError:
        return await client.eval(script.text, len(keys), *keys, *args)


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
