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

The package, one concern a module: :mod:`.keys` (the key layout),
:mod:`.scripts` (the Lua scripts), :mod:`.url` (the store URL and TLS),
:mod:`.retry` (the clients: reconnecting, connections guarded against a
failover's tear-down, and StoreUnavailable once out of reach) and
:mod:`.store` (:class:`RedisStore`).
"""

from __future__ import annotations

from ramino.store.redis.keys import DEFAULT_BUCKETS, INDEXES, PARTS, Layout
from ramino.store.redis.retry import RECONNECT_BUDGET, UNREACHABLE
from ramino.store.redis.store import NotReplicated, RedisStore
from ramino.store.redis.url import TLS_OPTIONS, RedisTls, StoreUrl

__all__ = [
    "DEFAULT_BUCKETS",
    "INDEXES",
    "PARTS",
    "RECONNECT_BUDGET",
    "TLS_OPTIONS",
    "UNREACHABLE",
    "Layout",
    "NotReplicated",
    "RedisStore",
    "RedisTls",
    "StoreUrl",
]
