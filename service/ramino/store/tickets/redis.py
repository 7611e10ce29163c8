"""Tickets on Redis or a Redis Cluster. Every key of a queue shares one hash
slot (``{PREFIXtq:QUEUE}``), so one Lua script claims a match's tickets
whole, on one Redis as on a cluster:

- ``...:tickets``: a hash, ticket id -> the ticket's JSON;
- ``...:waiting``: a sorted set of the waiting tickets' ids by submission
  time (oldest first; equal times by id);
- ``...:matches``: a hash, match id -> the match's JSON, while forming;
- ``...:ended``: a sorted set of ended tickets by when they ended, pruned
  after ``ENDED_KEPT`` seconds;
- ``...:streams``: a hash, ticket id -> when a stream last followed it
  (read by the scripts that claim and end tickets, in the same slot, so a
  claim or an end given a time checks it atomically);
- ``...:in_play``: a sorted set of the rated games in play, by when the
  matchmaker last looked at them;
- ``...:tables``: a sorted set of the lobby tables offered to the queue's
  tickets (joinOrCreate), by when they were offered.

A player's bound spans queues, so it lives in the player's own slot
(``{PREFIXtp:PLAYER}``: a hash, ticket id -> its queue): a submission first
reserves a place there (a script refusing past the bound), then adds the
ticket to its queue; a ticket that ends gives its place back. A place whose
ticket is not active (the replica died between the two steps, or before
giving it back) is dropped the next time the bound is reached. Beside the
places, in the same slot, ``...:requests`` (a hash, the player's request id
-> its ticket id and fingerprint) and ``...:request_times`` (a sorted set,
by submission time, pruned after ``REQUESTS_KEPT``): the reservation looks
up and notes the request in the same script, so a request id makes one
ticket.
``PREFIXtq:queues`` (a set) names the queues to look into.

A party's ticket takes a place in the bound of each of its players: the
leader's as any ticket, then each member's in the member's slot, one
script each; a member past the bound refuses it, and the places taken
before are given back (a replica that dies in between leaves places whose
ticket never came, dropped as above).

A party is one hash in a slot of its own (``{PREFIXparty:PARTY}``: its
version and its JSON), written by a script that checks the version (a
compare-and-set), and forgotten by Redis at its ``expires_at``. The party a
player is in is held in the player's slot (``{PREFIXtp:PLAYER}:party``: a
hash, the party id and since when), set by a script only when the player
is held for no other party (or for one the caller found stale), kept
``HOLD_KEPT`` seconds.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from redis.exceptions import NoScriptError, ResponseError

from ramino.store.base import StoreUnavailable
from ramino.store.redis.retry import RETRYABLE, TOPOLOGY, cancelled
from ramino.store.tickets.base import (
    ACTIVE,
    ENDED_KEPT,
    MATCHING,
    WAITING,
    Match,
    PartyRecord,
    TicketExists,
    TicketRecord,
    TicketRequestReused,
    TooManyTickets,
    matched,
    queue_of,
)

__all__ = ["RedisTickets"]

REQUESTS_KEPT = 3600.0
"""Seconds a player's request id is remembered (longer than a ticket lives,
plus ``ENDED_KEPT``: a retry finds its ticket while it is kept)."""
RESERVE_GRACE = 30.0
"""Seconds a player's place stays reserved before its ticket must exist."""


HOLD_KEPT = 30 * 86400.0
"""Seconds a player's hold for a party is kept after it was taken (a hold
outliving its party is found stale, and replaced, by the next one)."""
CHANGES_KEPT = 1000
"""Entries a queue's changes stream keeps (trimmed about there)."""


class _Lua:
    def __init__(self, text: str) -> None:
        text = text.replace("CHANGES_KEPT", str(CHANGES_KEPT))
        self.text, self.sha = text, hashlib.sha1(text.encode()).hexdigest()

    async def __call__(self, client: Any, keys: list[str], args: list[Any]) -> Any:
        try:
            return await client.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await client.eval(self.text, len(keys), *keys, *args)


# KEYS: the player's places, requests and their times. ARGV: ticket id, its
# queue and submission time, the bound, its request id ('' for none), its
# fingerprint, the time before which requests are forgotten. A request id
# the player used before answers "TICKET_ID FINGERPRINT" of its ticket,
# reserving nothing; else 1 (reserved, the request noted) or 0 (the bound).
RESERVE = _Lua("""
if ARGV[5] ~= '' then
  local was = redis.call('HGET', KEYS[2], ARGV[5])
  if was then return was end
end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3])
end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[2], ARGV[5], ARGV[1] .. ' ' .. ARGV[6])
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
  local old = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[7], 'LIMIT', 0, 100)
  for _, id in ipairs(old) do
    redis.call('HDEL', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  end
end
return 1
""")

# KEYS: tickets, waiting, ended, streams. ARGV: ticket id, its JSON, its
# time, prune before. A ticket already there under that id whose player and
# submission time are this one's is this submission's own, run again by the
# client's retry after its answer was lost (a failover): done, nothing
# changed (the first run wrote everything at once; the ticket may have been
# matched or ended since); so is one of the same player's request id (2: a
# retry of that request raced the first run to the write). Any other is a
# ticket id in use.
SUBMIT = _Lua("""
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  local was = cjson.decode(redis.call('HGET', KEYS[1], ARGV[1]))
  local now = cjson.decode(ARGV[2])
  if was.player_id ~= now.player_id then return 0 end
  if was.created_at == now.created_at then return 1 end
  if now.request_id ~= '' and was.request_id == now.request_id then return 2 end
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
local old = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[4], 'LIMIT', 0, 100)
for _, id in ipairs(old) do
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[4], id)
  redis.call('ZREM', KEYS[3], id)
end
return 1
""")

# KEYS: tickets, waiting, matches, streams. ARGV: match id, its JSON, the
# time every ticket must have been followed since ('' for none), then
# triples of ticket id, its JSON once claimed and its submission time (its
# last-followed time when no stream noted one).
CLAIM = _Lua("""
for i = 4, #ARGV, 3 do
  if not redis.call('ZSCORE', KEYS[2], ARGV[i]) then return 0 end
  if ARGV[3] ~= '' then
    local at = tonumber(redis.call('HGET', KEYS[4], ARGV[i]) or '0')
    if math.max(at, tonumber(ARGV[i + 2])) < tonumber(ARGV[3]) then return 0 end
  end
end
for i = 4, #ARGV, 3 do
  redis.call('ZREM', KEYS[2], ARGV[i])
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return 1
""")

# KEYS: tickets, matches, ended, rated games in play, changes. ARGV: match
# id, the time, 0, the game id if rated ('' if not), then pairs of ticket id
# and its JSON once matched. The matched ids go on the queue's changes.
COMPLETE = _Lua("""
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then return 0 end
local ids = {}
for i = 5, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[i])
  ids[#ids + 1] = ARGV[i]
end
if ARGV[4] ~= '' then redis.call('ZADD', KEYS[4], ARGV[2], ARGV[4]) end
redis.call('XADD', KEYS[5], 'MAXLEN', '~', CHANGES_KEPT, '*', 'ids', table.concat(ids, ' '))
return 1
""")

# KEYS: tickets, waiting, matches, changes. ARGV: match id, then triples of
# ticket id, its JSON once waiting again and its submission time. The
# released ids go on the queue's changes.
RELEASE = _Lua("""
if redis.call('HDEL', KEYS[3], ARGV[1]) == 0 then return 0 end
local ids = {}
for i = 2, #ARGV, 3 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[2], ARGV[i + 2], ARGV[i])
  ids[#ids + 1] = ARGV[i]
end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', CHANGES_KEPT, '*', 'ids', table.concat(ids, ' '))
return 1
""")

# KEYS: tickets, waiting, ended, streams, changes. ARGV: ticket id, its JSON
# once ended, the time, the time it must not have been followed since (''
# for none), its submission time (its last-followed time when no stream
# noted one). The ended id goes on the queue's changes.
END = _Lua("""
if ARGV[4] ~= '' then
  local at = tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or '0')
  if math.max(at, tonumber(ARGV[5])) >= tonumber(ARGV[4]) then return 0 end
end
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
redis.call('XADD', KEYS[5], 'MAXLEN', '~', CHANGES_KEPT, '*', 'ids', ARGV[1])
return 1
""")

# KEYS: the party. ARGV: its new version, its JSON, milliseconds until it is
# forgotten. Written only over the version before (none for version 1).
PUT_PARTY = _Lua("""
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) - 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
""")


# KEYS: the player's hold. ARGV: the party, now, the party a stale hold is
# for ('' for none), milliseconds it is kept. Held for the party when the
# player is held for none, for it, or for the stale one; answers the party
# held for and since when.
HOLD_PARTY = _Lua("""
local held = redis.call('HGET', KEYS[1], 'p')
if not held or held == ARGV[1] or (ARGV[3] ~= '' and held == ARGV[3]) then
  redis.call('HSET', KEYS[1], 'p', ARGV[1], 'at', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return {ARGV[1], ARGV[2]}
end
return {held, redis.call('HGET', KEYS[1], 'at')}
""")

# KEYS: the player's hold. ARGV: the party. Dropped only if for that party.
RELEASE_PARTY = _Lua("""
if redis.call('HGET', KEYS[1], 'p') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
""")


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisTickets:
    """Tickets beside a Redis store's games, on its client and prefix."""

    def __init__(self, client: Any, prefix: str, blocking: Any = None) -> None:
        """``blocking``: the client for the blocking reads of
        :meth:`changes` (the game store's own, apart from its calls'; by
        default ``client``)."""
        self._redis = client
        self._blocking = blocking if blocking is not None else client
        self._prefix = prefix

    def _key(self, queue: str, part: str) -> str:
        return f"{{{self._prefix}tq:{queue}}}:{part}"

    def _places(self, player_id: str) -> str:
        return f"{{{self._prefix}tp:{player_id}}}"

    def _requests(self, player_id: str) -> list[str]:
        """The player's request ids -> their tickets, and their times (in
        the player's slot, beside its places)."""
        places = self._places(player_id)
        return [places, f"{places}:requests", f"{places}:request_times"]

    async def _reserve(
        self, ticket: TicketRecord, limit: int, request: bool, player_id: str = ""
    ) -> Any:
        """A place in the bound of the ticket's player (or of ``player_id``,
        a member of its party: no request noted)."""
        args = [
            ticket.ticket_id,
            ticket.queue,
            repr(ticket.created_at),
            limit,
            ticket.request_id if request and not player_id else "",
            ticket.fingerprint,
            repr(ticket.created_at - REQUESTS_KEPT),
        ]
        return await RESERVE(self._redis, self._requests(player_id or ticket.player_id), args)

    async def _reserve_members(self, ticket: TicketRecord, limit: int) -> None:
        """A place in each member's bound for a party's ticket; past one's
        bound, the places taken for it are given back and the ticket is
        refused (:class:`TooManyTickets` naming the member)."""
        taken: list[str] = []
        for member in ticket.players[1:]:
            if not int(await self._reserve(ticket, limit, False, member)):
                await self._drop_stale_places(member, ticket.created_at)
                if not int(await self._reserve(ticket, limit, False, member)):
                    for player in [ticket.player_id, *taken]:
                        await self._redis.hdel(self._places(player), ticket.ticket_id)
                    raise TooManyTickets(limit, member)
            taken.append(member)

    async def submit(self, ticket: TicketRecord, limit: int) -> TicketRecord:
        note = bool(ticket.request_id)  # the request is noted with the place
        reserved = await self._reserve(ticket, limit, note)
        if not isinstance(reserved, int):  # the request id's ticket, noted before
            ticket_id, _, printed = _text(reserved).partition(" ")
            if printed != ticket.fingerprint:
                raise TicketRequestReused()
            first = await self.ticket(ticket_id)
            if first is not None:
                return first
            # Its first submission died before writing it (or it is long
            # gone): written now, under the same id (the same request's).
            note = False
            reserved = await self._reserve(ticket, limit, note)
        if not int(reserved):
            await self._drop_stale_places(ticket.player_id, ticket.created_at)
            if not int(await self._reserve(ticket, limit, note)):
                raise TooManyTickets(limit)
        await self._reserve_members(ticket, limit)
        q = ticket.queue
        await self._redis.sadd(f"{self._prefix}tq:queues", q)
        added = int(
            await SUBMIT(
                self._redis,
                [
                    self._key(q, "tickets"),
                    self._key(q, "waiting"),
                    self._key(q, "ended"),
                    self._key(q, "streams"),
                ],
                [
                    ticket.ticket_id,
                    ticket.to_json(),
                    repr(ticket.created_at),
                    ticket.created_at - ENDED_KEPT,
                ],
            )
        )
        if added == 2:
            first = await self.ticket(ticket.ticket_id)
            assert first is not None
            return first
        if not added:
            raise TicketExists(ticket.ticket_id)
        return ticket

    async def live(self, player_id: str) -> list[TicketRecord]:
        held = await self._redis.hkeys(self._places(player_id))
        found = [await self.ticket(_text(tid)) for tid in held]
        return sorted(
            (t for t in found if t is not None and t.state in ACTIVE and t.player_id == player_id),
            key=lambda t: (t.created_at, t.ticket_id),
        )

    async def _drop_stale_places(self, player_id: str, now: float) -> None:
        places = self._places(player_id)
        held = await self._redis.hgetall(places)
        for tid, value in held.items():
            ticket_id = _text(tid)
            reserved_at = float(_text(value).split(" ", 1)[1])
            t = await self.ticket(ticket_id)
            if (t is None and reserved_at < now - RESERVE_GRACE) or (
                t is not None and t.state not in ACTIVE
            ):
                await self._redis.hdel(places, ticket_id)

    async def ticket(self, ticket_id: str) -> TicketRecord | None:
        queue = queue_of(ticket_id)
        if queue is None:
            return None
        found = await self._redis.hget(self._key(queue, "tickets"), ticket_id)
        return None if found is None else TicketRecord.from_json(found)

    async def waiting(self, queue: str) -> list[TicketRecord]:
        ids = await self._redis.zrange(self._key(queue, "waiting"), 0, -1)
        if not ids:
            return []
        found = await self._redis.hmget(self._key(queue, "tickets"), ids)
        tickets = [TicketRecord.from_json(f) for f in found if f is not None]
        return sorted(
            (t for t in tickets if t.state == WAITING), key=lambda t: (t.created_at, t.ticket_id)
        )

    async def waiting_count(self, queue: str) -> int:
        return int(await self._redis.zcard(self._key(queue, "waiting")))

    async def queues(self) -> list[str]:
        names = sorted(_text(n) for n in await self._redis.smembers(f"{self._prefix}tq:queues"))
        busy = []
        for q in names:
            if (
                await self._redis.zcard(self._key(q, "waiting"))
                or await self._redis.hlen(self._key(q, "matches"))
                or await self._redis.zcard(self._key(q, "in_play"))
            ):
                busy.append(q)
            else:
                # Dropped, then looked at again: a ticket submitted meanwhile
                # (added before its SADD) brings the queue back.
                await self._redis.srem(f"{self._prefix}tq:queues", q)
                if await self._redis.zcard(self._key(q, "waiting")):
                    await self._redis.sadd(f"{self._prefix}tq:queues", q)
                    busy.append(q)
        return busy

    async def claim(self, match: Match, followed_since: float | None = None) -> bool:
        q = match.queue
        since = "" if followed_since is None else repr(followed_since)
        args: list[Any] = [match.match_id, match.to_json(), since]
        for tid in match.ticket_ids:
            t = await self.ticket(tid)
            if t is None or t.state != WAITING or t.queue != q:
                return False
            claimed = replace(t, state=MATCHING, match_id=match.match_id)
            args += [tid, claimed.to_json(), repr(t.created_at)]
        keys = [
            self._key(q, "tickets"),
            self._key(q, "waiting"),
            self._key(q, "matches"),
            self._key(q, "streams"),
        ]
        return bool(int(await CLAIM(self._redis, keys, args)))

    async def forming(self, queue: str) -> list[Match]:
        found = await self._redis.hvals(self._key(queue, "matches"))
        return sorted((Match.from_json(f) for f in found), key=lambda m: (m.created_at, m.match_id))

    async def release(self, match: Match) -> bool:
        q = match.queue
        args: list[Any] = [match.match_id]
        for tid in match.ticket_ids:
            t = await self.ticket(tid)
            assert t is not None, tid
            back = replace(t, state=WAITING, match_id="")
            args += [tid, back.to_json(), repr(t.created_at)]
        keys = [
            self._key(q, "tickets"),
            self._key(q, "waiting"),
            self._key(q, "matches"),
            self._key(q, "changes"),
        ]
        return bool(int(await RELEASE(self._redis, keys, args)))

    async def complete(self, match: Match, game_id: str, now: float) -> bool:
        q = match.queue
        args: list[Any] = [match.match_id, repr(now), 0, game_id if match.rated else ""]
        tickets: list[TicketRecord] = []
        for tid in match.ticket_ids:
            t = await self.ticket(tid)
            assert t is not None, tid
            tickets.append(t)
            args += [tid, matched(t, match, game_id, now).to_json()]
        keys = [
            self._key(q, "tickets"),
            self._key(q, "matches"),
            self._key(q, "ended"),
            self._key(q, "in_play"),
            self._key(q, "changes"),
        ]
        done = bool(int(await COMPLETE(self._redis, keys, args)))
        for t in tickets:
            for player in t.players:
                await self._redis.hdel(self._places(player), t.ticket_id)
        return done

    async def in_play(self, queue: str, before: float, limit: int) -> list[str]:
        found = await self._redis.zrange(
            self._key(queue, "in_play"), "-inf", f"({before!r}", byscore=True, offset=0, num=limit
        )
        return [_text(g) for g in found]

    async def looked_at(self, queue: str, game_id: str, now: float | None) -> None:
        key = self._key(queue, "in_play")
        if now is None:
            await self._redis.zrem(key, game_id)
        else:
            await self._redis.zadd(key, {game_id: now}, xx=True)

    async def offer_table(self, queue: str, game_id: str, at: float) -> None:
        await self._redis.zadd(self._key(queue, "tables"), {game_id: at}, nx=True)

    async def tables(self, queue: str, limit: int) -> list[str]:
        found = await self._redis.zrange(self._key(queue, "tables"), 0, limit - 1)
        return [_text(g) for g in found]

    async def withdraw_table(self, queue: str, game_id: str) -> None:
        await self._redis.zrem(self._key(queue, "tables"), game_id)

    async def end(
        self, ticket_id: str, state: str, now: float, unfollowed_since: float | None = None
    ) -> TicketRecord | None:
        t = await self.ticket(ticket_id)
        if t is None or t.state != WAITING:
            return t
        ended = replace(t, state=state, ended_at=now)
        q = t.queue
        keys = [
            self._key(q, "tickets"),
            self._key(q, "waiting"),
            self._key(q, "ended"),
            self._key(q, "streams"),
            self._key(q, "changes"),
        ]
        since = "" if unfollowed_since is None else repr(unfollowed_since)
        args = [ticket_id, ended.to_json(), repr(now), since, repr(t.created_at)]
        if int(await END(self._redis, keys, args)):
            for player in t.players:
                await self._redis.hdel(self._places(player), ticket_id)
            return ended
        return await self.ticket(ticket_id)

    async def active(self, player_id: str) -> int:
        held = await self._redis.hkeys(self._places(player_id))
        count = 0
        for tid in held:
            t = await self.ticket(_text(tid))
            count += t is not None and t.state in ACTIVE
        return count

    async def touch(self, ticket_id: str, now: float) -> None:
        queue = queue_of(ticket_id)
        if queue is not None:
            await self._redis.hset(self._key(queue, "streams"), ticket_id, repr(now))

    async def touched(self, ticket_id: str) -> float:
        queue = queue_of(ticket_id)
        if queue is None:
            return 0.0
        found = await self._redis.hget(self._key(queue, "streams"), ticket_id)
        return 0.0 if found is None else float(_text(found))

    async def touched_many(self, ticket_ids: Sequence[str]) -> list[float]:
        by_queue: dict[str, list[str]] = {}
        for tid in ticket_ids:
            queue = queue_of(tid)
            if queue is not None:
                by_queue.setdefault(queue, []).append(tid)
        found: dict[str, float] = {}
        for queue, ids in by_queue.items():  # one read per queue (a pass has one)
            values = await self._redis.hmget(self._key(queue, "streams"), ids)
            pairs = zip(ids, values, strict=True)
            found.update((tid, float(_text(v))) for tid, v in pairs if v is not None)
        return [found.get(tid, 0.0) for tid in ticket_ids]

    async def changes(self, queue: str) -> AsyncIterator[list[str]]:
        key = self._key(queue, "changes")
        last = ""  # the newest entry when the reading starts, read first
        delay = 0.05
        while True:
            if cancelled():
                raise asyncio.CancelledError
            try:
                if not last:
                    # Its id, not "$": an entry added between two reads is read.
                    newest = await self._redis.xrevrange(key, count=1)
                    last = _text(newest[0][0]) if newest else "0-0"
                found = await self._blocking.xread({key: last}, block=5000, count=256)
                delay = 0.05
            except (*RETRYABLE, *TOPOLOGY, StoreUnavailable, ResponseError) as failed:
                # A lost connection or a failover: read on (what it missed,
                # the streams' slow look makes up).
                if cancelled():
                    raise asyncio.CancelledError from failed
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
                continue
            for _stream, rows in found or ():
                for entry_id, fields in rows:
                    last = _text(entry_id)
                    ids = fields.get(b"ids", fields.get("ids", b""))
                    yield _text(ids).split()

    def _party(self, party_id: str) -> str:
        return f"{{{self._prefix}party:{party_id}}}"

    async def party(self, party_id: str, now: float) -> PartyRecord | None:
        found = await self._redis.hget(self._party(party_id), "d")
        if found is None:
            return None
        party = PartyRecord.from_json(found)
        return party if party.expires_at > now else None

    async def put_party(self, party: PartyRecord, now: float) -> bool:
        kept = max(1, math.ceil((party.expires_at - now) * 1000))
        args = [party.version, party.to_json(), kept]
        return bool(int(await PUT_PARTY(self._redis, [self._party(party.party_id)], args)))

    async def hold_party(
        self, player_id: str, party_id: str, now: float, replacing: str = ""
    ) -> tuple[str, float]:
        key = f"{self._places(player_id)}:party"
        args = [party_id, repr(now), replacing, math.ceil(HOLD_KEPT * 1000)]
        held, at = await HOLD_PARTY(self._redis, [key], args)
        return _text(held), float(_text(at))

    async def release_party(self, player_id: str, party_id: str) -> None:
        await RELEASE_PARTY(self._redis, [f"{self._places(player_id)}:party"], [party_id])

    async def close(self) -> None:
        pass
