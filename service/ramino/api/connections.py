"""Bounds on a server's connections, so that no client holds the file
descriptors every other client needs.

gRPC accepts connections in its core, out of the application's sight: an
interceptor sees calls, and a connection that never sends one (a silent
TCP connection, a handshake left unfinished) holds a descriptor all the
same. What bounds them here:

- the soft ``RLIMIT_NOFILE`` is raised to the hard limit at start
  (:func:`raise_file_limit`), so the server has every descriptor the
  system gives it;
- gRPC's own ``grpc.max_allowed_incoming_connections`` bounds the
  connections in total: past it, gRPC closes a new connection as soon as it
  is accepted, before any handshake (see :func:`connection_options`);
- gRPC's handshake timeout closes a connection that has not finished its
  HTTP/2 (or TLS) handshake within ``HANDSHAKE_SECONDS``;
- gRPC's idle timeout (``grpc.max_connection_idle_ms``) closes, with a
  GOAWAY, a connection that has had no call open for ``IDLE_SECONDS``: one
  that sent its preface and SETTINGS and nothing since no longer stays for
  ever. A stream open counts as a call however quiet it is (a WatchGame
  waiting for the next move, a PlayGame session, a quick-play ticket's
  wait), so no such connection is idle;
- gRPC's keepalive (:class:`Keepalive`) pings a connection that has been
  silent for a while and closes it when the ping goes unanswered (a dead
  peer's quiet streams end), and takes a client's own pings as often as
  every ``min_client_interval`` seconds: no SDK's keepalive is punished;
- a :class:`ConnectionGuard` bounds the connections of one client address
  and of one network (an IPv4 /24, an IPv6 /64 by default: one client often
  holds a whole such prefix): a thread reads the server's own sockets
  (``/proc/self/fd`` and ``/proc/self/net/tcp{,6}``) every ``interval``
  seconds and shuts down the newest connections past a limit, whatever they
  did or did not send; gRPC then closes them as it would a connection the
  client dropped. Linux only (elsewhere the guard does nothing and says so).

And one bound on calls rather than connections: gRPC's core holds the calls
that arrive faster than the server takes them in a queue of its own, and by
default refuses, from 1,000 waiting (at random, then all from 3,000), a
call no handler will ever see, with a bare CANCELLED: no ErrorInfo, no log
line, no metric (a burst of stream opens, measured). The queue is let grow
to ``PENDING_CALLS`` (:func:`call_options`), so that each call of a burst
reaches its handler, which serves it or refuses it with its reason (the
streams of a connection, of a seat, of a game's spectators: each limit of
``ramino/slots.py``), logged and counted.
"""

from __future__ import annotations

import contextlib
import heapq
import ipaddress
import os
import resource
import socket
import sys
import threading
from collections import defaultdict
from dataclasses import dataclass

import structlog

log = structlog.get_logger("ramino.server")

PENDING_CALLS = 100_000
"""The calls gRPC's core holds for the server before a handler takes them,
past which (only) it refuses a call bare: far above what the loop falls
behind by in a burst (thousands), and bounded by the connections' limits
(a waiting call is a few kB)."""
HANDSHAKE_SECONDS = 10.0
"""A connection that has not finished its handshake by then is closed
(gRPC's default is 120 s)."""
IDLE_SECONDS = 60.0
"""A connection with no call open for that long is closed (gRPC's default:
never). A client reconnects on its next call; one that plays keeps a stream
open and is never idle."""
RESERVED_FILES = 256
"""Descriptors kept for the server's own files, store connections and
logs when the total connection limit is derived from the file limit."""

_HELD = {"01", "03", "08"}
"""The states in ``/proc/net/tcp`` of a connection the client holds open:
established, handshaking (SYN_RECV), or closed by the client but not yet
by gRPC (CLOSE_WAIT); not one on its way out (FIN_WAIT, ...) nor a listener."""


def raise_file_limit() -> int:
    """Raises the soft limit on open files to the hard one (logged) and
    returns the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        log.info("raised the open file limit", soft_was=soft, soft=hard, hard=hard)
        return hard
    log.info("open file limit", soft=soft, hard=hard)
    return soft


def default_max_connections(file_limit: int) -> int:
    """The total connection limit for a process that may open
    ``file_limit`` files: all of them but :data:`RESERVED_FILES`."""
    return max(64, file_limit - RESERVED_FILES)


def default_max_connections_per_prefix(max_connections: int, per_address: int | None) -> int:
    """The connection limit of one network for a server of ``max_connections``
    in total: a quarter of them, so that no fewer than four networks fill the
    server, but never below the limit of one address (``per_address``), which
    a network holds at least."""
    return max(max_connections // 4, per_address or 0)


@dataclass(frozen=True)
class Keepalive:
    """The server's side of HTTP/2 pings (in seconds)."""

    time: float = 60.0
    """A connection silent that long is pinged (gRPC's default: 2 hours)."""
    timeout: float = 20.0
    """A ping unanswered that long closes the connection and ends its
    streams: a peer gone without a word (a phone out of range, a crashed
    host) holds nothing past ``time + timeout``."""
    min_client_interval: float = 10.0
    """A client may ping this often, with or without a call open (gRPC's
    default: every 5 minutes with a call, every 2 hours without; more often
    is a strike, and the third closes the connection with ENHANCE_YOUR_CALM).
    10 s is the least keepalive time grpc-go and grpc-java let their clients
    set; the SDKs ping every 30 s (Python, TypeScript) or not at all (Go,
    Kotlin, unless configured)."""


def call_options() -> list[tuple[str, int]]:
    """gRPC server options that let every call of a burst reach a handler
    (:data:`PENDING_CALLS`), rather than be refused bare by gRPC's core."""
    return [
        ("grpc.server.max_pending_requests", PENDING_CALLS),
        ("grpc.server.max_pending_requests_hard_limit", PENDING_CALLS),
    ]


def connection_options(
    max_connections: int | None,
    idle: float | None = None,
    keepalive: Keepalive | None = None,
) -> list[tuple[str, int]]:
    """gRPC server options for the handshake timeout and, when given, the
    total connection limit, the idle timeout (seconds) and the keepalive
    policy."""
    options = [("grpc.server_handshake_timeout_ms", round(HANDSHAKE_SECONDS * 1000))]
    if max_connections is not None:
        options.append(("grpc.max_allowed_incoming_connections", max_connections))
    if idle is not None:
        options.append(("grpc.max_connection_idle_ms", round(idle * 1000)))
    if keepalive is not None:
        options += [
            ("grpc.keepalive_time_ms", round(keepalive.time * 1000)),
            ("grpc.keepalive_timeout_ms", round(keepalive.timeout * 1000)),
            # What gRPC waits for any ping's answer (its default: a minute;
            # the keepalive timeout alone did not shorten it, measured).
            ("grpc.http2.ping_timeout_ms", round(keepalive.timeout * 1000)),
            # A connection without calls is closed by the idle timeout; its
            # pings until then are no abuse (and the server's own keep it
            # known alive).
            ("grpc.keepalive_permit_without_calls", 1),
            (
                "grpc.http2.min_ping_interval_without_data_ms",
                round(keepalive.min_client_interval * 1000),
            ),
        ]
    return options


def unmapped(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """``ip``, or the IPv4 address it maps into IPv6: one client counts as
    one address however its connection reached the server."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def network_of(address: str, ipv4_prefix: int = 24, ipv6_prefix: int = 64) -> str:
    """The network of a client ``address`` (text), as ``ADDRESS/LENGTH``:
    its first ``ipv4_prefix`` or ``ipv6_prefix`` bits (an IPv4 address
    mapped into IPv6 counts as IPv4)."""
    ip = unmapped(ipaddress.ip_address(address))
    length = ipv4_prefix if ip.version == 4 else ipv6_prefix
    return str(ipaddress.ip_network(f"{ip}/{length}", strict=False))


def check_prefix_lengths(ipv4_prefix: int, ipv6_prefix: int) -> None:
    """Raises ValueError naming a prefix length out of its range."""
    if not 0 <= ipv4_prefix <= 32:
        raise ValueError(f"an IPv4 prefix length is 0 to 32, not {ipv4_prefix}")
    if not 0 <= ipv6_prefix <= 128:
        raise ValueError(f"an IPv6 prefix length is 0 to 128, not {ipv6_prefix}")


def _address(hex_address: str) -> str:
    """A ``/proc/net/tcp{,6}`` address (hex, 32-bit words in host order)
    as text; an IPv4 address mapped into IPv6 as IPv4."""
    raw = bytes.fromhex(hex_address)
    packed = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(unmapped(ipaddress.ip_address(packed)))


class ConnectionGuard:
    """At most ``per_address`` connections to ``port`` from one client
    address and at most ``per_prefix`` from one network (its first
    ``ipv4_prefix`` or ``ipv6_prefix`` bits; ``None``: no such limit): those
    past them are shut down by :meth:`sweep`, which a thread runs every
    ``interval`` seconds once :meth:`start` is called."""

    def __init__(
        self,
        port: int,
        per_address: int | None,
        interval: float = 0.5,
        per_prefix: int | None = None,
        ipv4_prefix: int = 24,
        ipv6_prefix: int = 64,
    ) -> None:
        check_prefix_lengths(ipv4_prefix, ipv6_prefix)
        self.port = port
        self.per_address = per_address
        self.per_prefix = per_prefix
        self.ipv4_prefix = ipv4_prefix
        self.ipv6_prefix = ipv6_prefix
        self.interval = interval
        self.closed = 0
        """Connections shut down so far."""
        self._sweeps = 0
        self._seen: dict[int, int] = {}
        """The sweep that first saw each connection (by socket inode): the
        newest are the last seen."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def works(self) -> bool:
        return sys.platform.startswith("linux") and os.path.isdir("/proc/self/fd")

    def start(self) -> None:
        if not self.works:
            log.warning(
                "no per-address or per-network connection limit on this system (it needs /proc)"
            )
            return
        self._thread = threading.Thread(target=self._run, name="connection guard", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.sweep()
            except Exception:
                log.exception("connection guard sweep failed")

    def connections(self) -> dict[str, dict[int, int]]:
        """This process's connections to the port by client address: each
        socket's inode and descriptor."""
        sockets: dict[int, int] = {}
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                link = os.readlink(f"/proc/self/fd/{fd}")
                if link.startswith("socket:["):
                    sockets[int(link[8:-1])] = int(fd)
        by_address: dict[str, dict[int, int]] = defaultdict(dict)
        for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
            with contextlib.suppress(OSError), open(table) as lines:
                next(lines, None)
                for line in lines:
                    fields = line.split()
                    local, remote, state, inode = fields[1], fields[2], fields[3], int(fields[9])
                    if state not in _HELD or inode not in sockets:
                        continue
                    if int(local.rsplit(":", 1)[1], 16) != self.port:
                        continue
                    by_address[_address(remote.rsplit(":", 1)[0])][inode] = sockets[inode]
        return by_address

    def sweep(self) -> int:
        """Shuts down each address's connections past its limit, the newest
        first (the last seen by a sweep), then each network's past its own,
        the newest of its busiest address first (a neighbour with a few
        connections keeps them while one address holds more); returns how
        many."""
        limits = [n for n in (self.per_address, self.per_prefix) if n is not None]
        if not limits or len(os.listdir("/proc/self/fd")) <= min(limits):
            self._seen.clear()
            return 0  # fewer descriptors than any limit lets through
        self._sweeps += 1
        connections = self.connections()
        seen = {}
        for sockets in connections.values():
            for inode in sockets:
                seen[inode] = self._seen.get(inode, self._sweeps)
        self._seen = seen
        closed = 0
        kept: dict[str, list[int]] = {}
        """Each address's connections left open, the oldest first."""
        for address, sockets in connections.items():
            by_age = sorted(sockets, key=lambda inode: (seen[inode], inode))
            if self.per_address is not None and len(by_age) > self.per_address:
                excess = by_age[self.per_address :]
                closed += sum(self._shut(sockets[inode], inode) for inode in excess)
                by_age = by_age[: self.per_address]
                log.warning(
                    "too many connections from one address: the newest shut down",
                    client=address,
                    connections=len(sockets),
                    limit=self.per_address,
                    closed=len(excess),
                )
            kept[address] = by_age
        if self.per_prefix is not None:
            networks: dict[str, list[str]] = defaultdict(list)
            for address in kept:
                networks[network_of(address, self.ipv4_prefix, self.ipv6_prefix)].append(address)
            for network, addresses in networks.items():
                held = sum(len(kept[address]) for address in addresses)
                if held <= self.per_prefix:
                    continue
                chosen = self._busiest_newest(kept, addresses, held - self.per_prefix, seen)
                closed += sum(
                    self._shut(connections[address][inode], inode) for address, inode in chosen
                )
                log.warning(
                    "too many connections from one network: the newest of its busiest "
                    "addresses shut down",
                    network=network,
                    addresses=len(addresses),
                    connections=held,
                    limit=self.per_prefix,
                    closed=len(chosen),
                )
        self.closed += closed
        return closed

    @staticmethod
    def _busiest_newest(
        kept: dict[str, list[int]], addresses: list[str], count: int, seen: dict[int, int]
    ) -> list[tuple[str, int]]:
        """``count`` connections of ``addresses`` (each one's open ones in
        ``kept``, the oldest first), one at a time the newest of the address
        that holds the most (of two that hold as many, the one whose newest
        is newer)."""
        heap = [(-len(kept[a]), -seen[kept[a][-1]], -kept[a][-1], a) for a in addresses if kept[a]]
        heapq.heapify(heap)
        chosen = []
        for _ in range(count):
            _, _, _, address = heapq.heappop(heap)
            chosen.append((address, kept[address].pop()))
            if kept[address]:
                newest = kept[address][-1]
                heapq.heappush(heap, (-len(kept[address]), -seen[newest], -newest, address))
        return chosen

    @staticmethod
    def _shut(fd: int, inode: int) -> bool:
        """Shuts down the socket ``fd`` if it still is socket ``inode``
        (the descriptor may have been closed and reused since it was read)."""
        try:
            copy = os.dup(fd)
        except OSError:
            return False
        try:
            if os.fstat(copy).st_ino != inode:
                return False
            with socket.socket(fileno=copy) as sock:
                copy = -1
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            return True
        finally:
            if copy >= 0:
                os.close(copy)
