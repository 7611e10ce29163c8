"""The server's stream budget: how many streams it holds open at once, of
which one client address, and one network, hold at most a share.

A stream open costs the server memory however quiet it is: gRPC's call
state and its HTTP/2 stream (most of it, out of Python's sight) and the
handler's task and queue. An idle WatchGame held 37-40 KiB of the
server's resident memory (``bench/stream_budget.py``: 31-33 KiB; the
application's own part, by ``tracemalloc``, about 4.4 KiB of it). The per-connection limit
(``--max-streams-per-connection``) and the connection limits multiply: 256
connections of 100 streams from one address held 24,509 streams and 1 GB.
So every stream (WatchGame, PlayGame, quick play's ticket streams, the
health service's Watch) takes a slot here before its handler runs:

- at most ``total`` in the server (by default from the memory it may use:
  :func:`default_max_streams`), past which a stream is refused
  RESOURCE_EXHAUSTED ``SERVER_STREAMS_FULL``;
- at most ``per_address`` from one client address and ``per_prefix`` from
  one network (an IPv4 /24, an IPv6 /64, as the connection limits count
  them: :func:`~ramino.api.connections.network_of`), past which it is
  RESOURCE_EXHAUSTED ``TOO_MANY_CLIENT_STREAMS``: no one client fills the
  budget and keeps every other out.

A refusal is answered with its ErrorInfo, the call's log line and its count
in ``ramino_rpcs_total`` like any answer (it is raised inside the
interceptor's error mapping), counted by scope in
``ramino_streams_refused_total``, and logged as a warning at most once a
minute per scope.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import os
import time
from collections.abc import Iterator

import structlog
from prometheus_client import Counter, Gauge

from ramino import reasons
from ramino.api.connections import check_prefix_lengths, network_of, unmapped
from ramino.api.errors import ApiError
from ramino.slots import CountedSlots

__all__ = [
    "STREAM_BYTES",
    "StreamBudget",
    "default_max_streams",
    "default_stream_shares",
    "memory_limit",
    "peer_address",
]

log = structlog.get_logger("ramino.server")

STREAM_BYTES = 48 * 1024
"""Server memory counted for one open stream: the 37-40 KiB an idle
WatchGame was measured to hold, with room for a session's and for the
Python allocator's slack (``bench/stream_budget.py``)."""
MEMORY_SHARE = 0.5
"""The part of the server's memory its streams may take by default; the
rest is for games, caches, feeds and bursts."""
ADDRESS_SHARE = 8
"""One client address holds at most an eighth of the budget by default."""
PREFIX_SHARE = 4
"""One network holds at most a quarter of it (as with connections: no fewer
than four networks fill the server)."""
LEAST_STREAMS = 256
"""The smallest default budget, however little memory is found."""
WARN_EVERY = 60.0
"""Seconds between two warnings of one scope's refusals."""

STREAMS_OPEN = Gauge("ramino_streams_open", "Streams open in the server (its stream budget's use)")
STREAMS_REFUSED = Counter(
    "ramino_streams_refused",
    "Streams refused by the server's stream budget, by scope: server, address, network",
    ["scope"],
)

_UNLIMITED = 1 << 60
"""A cgroup's ``memory.limit_in_bytes`` past this is no limit (v1 writes
the largest page-aligned number)."""


def memory_limit() -> int:
    """The bytes of memory this process may use: its cgroup's limit (v2's
    ``memory.max``, v1's ``memory.limit_in_bytes``) when it has one, else
    the machine's physical memory."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        with contextlib.suppress(OSError, ValueError):
            with open(path) as f:
                text = f.read().strip()
            if text != "max" and 0 < int(text) < _UNLIMITED:
                return int(text)
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 1 << 30


def default_max_streams(memory: int, processes: int = 1) -> int:
    """The stream budget of one of ``processes`` server processes sharing
    ``memory`` bytes: ``MEMORY_SHARE`` of their share, ``STREAM_BYTES`` a
    stream, at least ``LEAST_STREAMS``."""
    return max(LEAST_STREAMS, int(memory * MEMORY_SHARE / max(1, processes) / STREAM_BYTES))


def default_stream_shares(
    total: int, per_address: int | None, per_prefix: int | None
) -> tuple[int | None, int | None]:
    """The per-address and per-network limits of a budget of ``total``
    streams: each given one as it is (0: no limit), else an eighth and a
    quarter of ``total`` (a network's never below an address's)."""
    if per_address is None:
        per_address = max(1, total // ADDRESS_SHARE)
    if per_prefix is None:
        per_prefix = max(total // PREFIX_SHARE, per_address)
    return per_address or None, per_prefix or None


def peer_address(peer: str) -> str | None:
    """The client address of a gRPC peer (``ipv4:1.2.3.4:5678``,
    ``ipv6:[::1]:5678``), an IPv4 address mapped into IPv6 as IPv4; None
    for a peer with no IP address (a Unix socket)."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        host = rest.rsplit(":", 1)[0]
    elif kind == "ipv6":
        host = rest.rsplit(":", 1)[0].strip("[]")
    else:
        return None
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    return str(unmapped(ip))


class StreamBudget:
    """At most ``total`` streams open in the server, ``per_address`` of
    them from one client address and ``per_prefix`` from one network (its
    first ``ipv4_prefix`` or ``ipv6_prefix`` bits); ``None``: no such limit."""

    def __init__(
        self,
        total: int | None,
        per_address: int | None = None,
        per_prefix: int | None = None,
        ipv4_prefix: int = 24,
        ipv6_prefix: int = 64,
    ) -> None:
        check_prefix_lengths(ipv4_prefix, ipv6_prefix)
        self.total = total
        self.per_address = per_address
        self.per_prefix = per_prefix
        self.prefixes = (ipv4_prefix, ipv6_prefix)
        self.open = 0
        """Streams open now."""
        self._clients: CountedSlots[str] = CountedSlots()
        """Open streams by address and by network (``ADDRESS/LENGTH``)."""
        self._warned: dict[str, float] = {}

    def origin(self, peer: str) -> tuple[str, str] | None:
        """A peer's address and network (None for one with no IP address)."""
        address = peer_address(peer)
        if address is None:
            return None
        return address, network_of(address, *self.prefixes)

    @contextlib.contextmanager
    def held(self, peer: str) -> Iterator[None]:
        """One of the budget's streams, for ``peer``, for the time of the
        ``with`` block; RESOURCE_EXHAUSTED when none is left to it."""
        origin = self.origin(peer)
        taken: list[str] = []
        if self.total is not None and self.open >= self.total:
            raise self._refused(
                "server",
                reasons.SERVER_STREAMS_FULL,
                f"this server holds {self.open} streams, the most its memory allows: "
                "retry later",
            )
        try:
            if origin is not None:
                for key, limit, scope in (
                    (origin[0], self.per_address, "address"),
                    (origin[1], self.per_prefix, "network"),
                ):
                    if limit is None:
                        continue
                    self._clients.take(key, limit, functools.partial(self._too_many, scope))
                    taken.append(key)
            self.open += 1
            STREAMS_OPEN.inc()
        except BaseException:
            for key in taken:
                self._clients.give_back(key)
            raise
        try:
            yield
        finally:
            self.open -= 1
            STREAMS_OPEN.dec()
            for key in taken:
                self._clients.give_back(key)

    def _too_many(self, scope: str, held: int) -> ApiError:
        return self._refused(
            scope,
            reasons.TOO_MANY_CLIENT_STREAMS,
            f"this client's {scope} holds {held} streams, its share of this server's: "
            "close one first",
        )

    def _refused(self, scope: str, reason: str, message: str) -> ApiError:
        STREAMS_REFUSED.labels(scope).inc()
        now = time.monotonic()
        if now - self._warned.get(scope, -WARN_EVERY) >= WARN_EVERY:
            self._warned[scope] = now
            log.warning(
                "streams refused: the stream budget is spent",
                scope=scope,
                open=self.open,
                limit={"server": self.total, "address": self.per_address}.get(
                    scope, self.per_prefix
                ),
            )
        return ApiError(reason, message)
