"""The Redis store: many replicas share games.

Keys, under a prefix (``ramino:`` by default):

- ``g:{id}:log``  a Stream of the game's entries; entry ``v`` has the stream
  id ``v-0``, so reading "after version v" is reading after id ``v-0``;
- ``g:{id}:meta`` a hash: ``version`` and the lobby ``summary`` (JSON);
- ``g:{id}:req``  a hash: request id -> its record (scope, method,
  fingerprint and first answer);
- ``g:{id}:reqs`` a list of the request ids of ``req``, oldest first: an
  append past the bound kept per game pops and drops the oldest;
- ``g:{id}:snap`` a hash: ``version`` and ``data`` of the latest snapshot;
- ``g:{id}:lease`` the duty lease: the owning replica's id, with an expiry;
- ``games``       a sorted set of game ids by creation time (the lobby);
- ``duties``      a sorted set of game ids by when a duty is next due;
- ``finished``    a sorted set of game ids by when they finished.

An append is one Lua script, so it is atomic on the server: it checks the
request id, then the version, then adds the entries, the summary, the request's
answer and the indexes together. A client that loses its connection after the
script ran and retries with the same request id gets the first answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
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

APPEND = (
    """
local meta, log, req, order = KEYS[1], KEYS[2], KEYS[3], KEYS[6]
local expected, request_id, record, summary = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local duty_at, finished_at, game_id, kept = ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local version = redis.call('HGET', meta, 'version')
if not version then return {-2} end
if request_id ~= '' then
  local first = redis.call('HGET', req, request_id)
  if first then return {-3, first} end
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

CREATE = (
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

LEASE = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

RETRYABLE = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError)


def _retry() -> Retry:
    # About half a minute of reconnecting: long enough for a Redis restart.
    return Retry(ExponentialBackoff(cap=1.0, base=0.05), retries=40)


class RedisStore:
    shared = True

    def __init__(
        self, url: str, prefix: str = "ramino:", requests_kept: int = REQUESTS_KEPT
    ) -> None:
        options: dict[str, Any] = {
            "retry": _retry(),
            "retry_on_error": [RedisConnectionError, RedisTimeoutError],
            "health_check_interval": 5,
            "socket_keepalive": True,
        }
        # redis-py types its replies as unions of every shape a reply can
        # take; this store decodes them itself, so the clients are untyped.
        self._redis: Any = Redis.from_url(url, max_connections=256, **options)
        # Blocking stream reads hold a connection each: a pool of their own.
        self._blocking: Any = Redis.from_url(url, max_connections=4096, **options)
        self._prefix = prefix
        self._requests_kept = requests_kept
        self._append = self._redis.register_script(APPEND)
        self._create = self._redis.register_script(CREATE)
        self._lease = self._redis.register_script(LEASE)
        self._release = self._redis.register_script(RELEASE)

    def _key(self, game_id: str, part: str) -> str:
        return f"{self._prefix}g:{{{game_id}}}:{part}"

    @property
    def _games(self) -> str:
        return f"{self._prefix}games"

    @property
    def _duties(self) -> str:
        return f"{self._prefix}duties"

    @property
    def _finished(self) -> str:
        return f"{self._prefix}finished"

    async def ping(self) -> bool:
        return bool(await self._redis.ping())

    async def create(
        self, summary: GameSummary, first: str, request: RequestRecord | None = None
    ) -> None:
        summary.version = 1
        done = await self._create(
            keys=[
                self._key(summary.game_id, "meta"),
                self._key(summary.game_id, "log"),
                self._games,
                self._duties,
                self._key(summary.game_id, "req"),
                self._key(summary.game_id, "reqs"),
            ],
            args=[
                summary.to_json(),
                first,
                summary.created_at,
                summary.game_id,
                "" if summary.duty_at is None else summary.duty_at,
                "" if request is None else request.request_id,
                b"" if request is None else request.to_bytes(),
                self._requests_kept,
            ],
        )
        if not done:
            raise GameExists(summary.game_id)

    async def append(
        self,
        game_id: str,
        expected_version: int,
        entries: Sequence[str],
        summary: GameSummary,
        request: RequestRecord | None = None,
    ) -> int:
        summary.version = expected_version + len(entries)
        result = await self._append(
            keys=[
                self._key(game_id, "meta"),
                self._key(game_id, "log"),
                self._key(game_id, "req"),
                self._duties,
                self._finished,
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
            raise VersionConflict(game_id, expected_version, int(result[1]))
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
        first = await self._redis.hget(self._key(game_id, "req"), request_id)
        return None if first is None else RequestRecord.from_bytes(bytes(first))

    async def requests_kept(self, game_id: str) -> int:
        """How many request records the game keeps (for tests): the larger of
        the record hash and the order list, so that a leak in either shows."""
        records = int(await self._redis.hlen(self._key(game_id, "req")))
        return max(records, int(await self._redis.llen(self._key(game_id, "reqs"))))

    async def subscribe(self, game_id: str, after_version: int) -> AsyncIterator[Entry]:
        """Every entry after ``after_version``, whichever replica appended it;
        across a lost connection it reconnects and goes on from the last
        entry it gave, so nothing is missed or given twice."""
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
            except RETRYABLE:
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            for _stream, rows in found or ():
                for stream_id, fields in rows:
                    e = _entry(stream_id, fields)
                    if e.version > last:
                        yield e
                        last = e.version

    async def list_games(
        self,
        page_size: int,
        page_token: str = "",
        variant: str = "",
        status: str = "",
        open_only: bool = False,
    ) -> Page:
        cursor = decode_page_token(page_token)
        low: str | float = "-inf" if cursor is None else cursor[0]
        games: list[GameSummary] = []
        offset = 0
        batch = max(page_size * 2, 64)
        while len(games) <= page_size:
            ids = await self._redis.zrangebyscore(self._games, low, "+inf", start=offset, num=batch)
            if not ids:
                break
            offset += len(ids)
            async with self._redis.pipeline(transaction=False) as pipe:
                for raw in ids:
                    pipe.hget(self._key(raw.decode(), "meta"), "summary")
                summaries = await pipe.execute()
            for text in summaries:
                if text is None:
                    continue
                s = GameSummary.from_json(text)
                if cursor is not None and (s.created_at, s.game_id) <= cursor:
                    continue
                if (variant and s.variant != variant) or (status and s.status != status):
                    continue
                if open_only and s.open_seats <= 0:
                    continue
                games.append(s)
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
        ids = await self._redis.zrangebyscore(self._duties, "-inf", now, start=0, num=limit)
        return [i.decode() for i in ids]

    async def acquire_lease(self, game_id: str, owner: str, ttl: float) -> bool:
        return bool(
            await self._lease(keys=[self._key(game_id, "lease")], args=[owner, int(ttl * 1000)])
        )

    async def release_lease(self, game_id: str, owner: str) -> None:
        await self._release(keys=[self._key(game_id, "lease")], args=[owner])

    async def expire_finished(self, before: float, archive: Archive | None = None) -> list[str]:
        ids = [
            i.decode()
            for i in await self._redis.zrangebyscore(self._finished, "-inf", f"({before}")
        ]
        gone = []
        for game_id in ids:
            # One replica wins each game's expiry: the others skip it.
            if not await self._redis.set(self._key(game_id, "expiring"), "1", nx=True, ex=60):
                continue
            if archive is not None:
                with contextlib.suppress(GameNotFound):
                    await archive(game_id, await self.read(game_id))
            parts = ("meta", "log", "req", "reqs", "snap", "lease", "expiring")
            await self._redis.delete(*(self._key(game_id, p) for p in parts))
            for index in (self._games, self._duties, self._finished):
                await self._redis.zrem(index, game_id)
            gone.append(game_id)
        return gone

    async def close(self) -> None:
        await self._redis.aclose()
        await self._blocking.aclose()


def _entry(stream_id: bytes | str, fields: dict[Any, Any]) -> Entry:
    sid = stream_id.decode() if isinstance(stream_id, bytes) else stream_id
    data = fields.get(b"d", fields.get("d"))
    text = data.decode() if isinstance(data, bytes) else str(data)
    return Entry(int(sid.split("-", 1)[0]), text)
