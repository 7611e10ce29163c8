"""The store's Lua scripts: each runs whole on the node that serves its
keys, so an append (request id, version, entries, summary, indexes) is
atomic."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import NoScriptError

from ramino.store.base import StoreUnavailable
from ramino.store.redis.retry import UNREACHABLE

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

# The digest of the entry at the game's version, kept in its meta as
# "<version>:<sha1 of the entry>" by every append and create; where the field
# names another version (a game written before it was kept), the digest is
# taken from the log's last entry. The keys and arguments it names are set by
# the script that includes it.
TAIL_AT = """
local function tail_at(meta, log, version)
  local kept = redis.call('HGET', meta, 'tail')
  if kept then
    local at = string.find(kept, ':', 1, true)
    if at and string.sub(kept, 1, at - 1) == tostring(version) then
      return string.sub(kept, at + 1)
    end
  end
  local last = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)[1]
  if not last then return '' end
  return redis.sha1hex(last[2][2])
end
"""

# One move's write: the entries at the version the writer decided on (and,
# with a tail digest, only over the entry it last saw there), the summary,
# the request's record and the indexes; then the new entries are published
# on the game's feed channel (sharded pub/sub) to the replicas that follow it.
APPEND_TEXT = (
    TAIL_AT
    + """
local meta, log, req, order = KEYS[1], KEYS[2], KEYS[3], KEYS[6]
local expected, request_id, record, summary = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local duty_at, finished_at, game_id, kept = ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local seen_tail, new_tail = ARGV[9], ARGV[10]
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
-- Another entry at the expected version: a write the writer saw was lost
-- (a failover) and another took its place.
if seen_tail ~= '' and tail_at(meta, log, version) ~= seen_tail then return {-4, version} end
local first = version + 1
for i = 11, #ARGV do
  version = version + 1
  redis.call('XADD', log, version .. '-0', 'd', ARGV[i])
end
redis.call('HSET', meta, 'version', version, 'summary', summary, 'tail', version .. ':' .. new_tail)
"""
    + KEEP_REQUEST
    + """
if duty_at ~= '' then
  redis.call('ZADD', KEYS[4], duty_at, game_id)
else
  redis.call('ZREM', KEYS[4], game_id)
end
if finished_at ~= '' then redis.call('ZADD', KEYS[5], finished_at, game_id) end
redis.call('SPUBLISH', KEYS[7], first .. ' ' .. version .. '\\n' .. table.concat(ARGV, '\\n', 11))
return {version}
"""
)

CREATE_TEXT = (
    """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', 1, 'summary', ARGV[1], 'tail', '1:' .. ARGV[9])
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


@dataclass(frozen=True, slots=True)
class Script:
    text: str
    sha: str

    @classmethod
    def of(cls, text: str) -> Script:
        return cls(text, hashlib.sha1(text.encode()).hexdigest())


APPEND = Script.of(APPEND_TEXT)
CREATE = Script.of(CREATE_TEXT)
LEASE = Script.of(LEASE_TEXT)
RELEASE = Script.of(RELEASE_TEXT)
REQUEST = Script.of(REQUEST_TEXT)


async def evalsha(client: Any, script: Script, keys: list[str], args: list[Any]) -> Any:
    """The script's answer by its digest, sending it whole where the node
    does not know it yet (a fresh node, a promoted replica)."""
    try:
        return await client.evalsha(script.sha, len(keys), *keys, *args)
    except NoScriptError:
        return await client.eval(script.text, len(keys), *keys, *args)


@dataclass(eq=False)
class Batches:
    """The scripts that the games' moves run in one turn of the event loop,
    sent together in one pipeline (one round trip, one connection taken from
    the pool), each answered as :func:`evalsha` would: the appends of many
    games cost one command's overhead, as the sqlite store commits many
    games' appends at once. For one Redis (a Cluster's pipeline splits by
    node, and a ``WAIT`` must follow its own connection's script)."""

    client: Any
    _queued: list[tuple[Script, list[str], list[Any], asyncio.Future[Any]]] = field(
        default_factory=list
    )
    _sending: set[asyncio.Task[None]] = field(default_factory=set)

    async def run(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()
        if not self._queued:
            loop.call_soon(self._send)
        self._queued.append((script, keys, args, answer))
        return await answer

    def _send(self) -> None:
        batch, self._queued = self._queued, []
        task = asyncio.get_running_loop().create_task(self._sent(batch))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _sent(
        self, batch: list[tuple[Script, list[str], list[Any], asyncio.Future[Any]]]
    ) -> None:
        try:
            if len(batch) == 1:
                script, keys, args, _ = batch[0]
                answers: list[Any] = [await evalsha(self.client, script, keys, args)]
            else:
                pipe = self.client.pipeline(transaction=False)
                for script, keys, args, _ in batch:
                    pipe.evalsha(script.sha, len(keys), *keys, *args)
                try:
                    answers = list(await pipe.execute(raise_on_error=False))
                except UNREACHABLE as failed:
                    raise StoreUnavailable() from failed
        except BaseException as failed:
            for *_, answer in batch:
                if not answer.done():
                    answer.set_exception(failed)
            if not isinstance(failed, Exception):
                raise
            return
        for (script, keys, args, answer), found in zip(batch, answers, strict=True):
            if answer.done():
                continue
            if isinstance(found, NoScriptError):
                # A node that does not know the script yet: sent whole, alone.
                try:
                    found = await self.client.eval(script.text, len(keys), *keys, *args)
                except Exception as failed:
                    found = failed
            if isinstance(found, Exception):
                answer.set_exception(found)
            else:
                answer.set_result(found)
