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
- a :class:`ConnectionGuard` bounds the connections of one client address:
  a thread reads the server's own sockets (``/proc/self/fd`` and
  ``/proc/self/net/tcp{,6}``) every ``interval`` seconds and shuts down an
  address's newest connections past the limit, whatever they did or did
  not send; gRPC then closes them as it would a connection the client
  dropped. Linux only (elsewhere the guard does nothing and says so).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import resource
import socket
import sys
import threading
from collections import defaultdict

import structlog

log = structlog.get_logger("ramino.server")

HANDSHAKE_SECONDS = 10.0
"""A connection that has not finished its handshake by then is closed
(gRPC's default is 120 s)."""
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


def connection_options(max_connections: int | None) -> list[tuple[str, int]]:
    """gRPC server options for the handshake timeout and, when given, the
    total connection limit."""
    options = [("grpc.server_handshake_timeout_ms", round(HANDSHAKE_SECONDS * 1000))]
    if max_connections is not None:
        options.append(("grpc.max_allowed_incoming_connections", max_connections))
    return options


def _address(hex_address: str) -> str:
    """A ``/proc/net/tcp{,6}`` address (hex, 32-bit words in host order)
    as text; an IPv4 address mapped into IPv6 as IPv4."""
    raw = bytes.fromhex(hex_address)
    packed = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    ip = ipaddress.ip_address(packed)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ip)


class ConnectionGuard:
    """At most ``per_address`` connections to ``port`` from one client
    address: the newest past it are shut down by :meth:`sweep`, which a
    thread runs every ``interval`` seconds once :meth:`start` is called."""

    def __init__(self, port: int, per_address: int, interval: float = 0.5) -> None:
        self.port = port
        self.per_address = per_address
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
            log.warning("no per-address connection limit on this system (it needs /proc)")
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
        """Shuts down each address's connections past the limit, the
        newest first (the last seen by a sweep); returns how many."""
        if len(os.listdir("/proc/self/fd")) <= self.per_address:
            self._seen.clear()
            return 0  # fewer descriptors than one address may hold
        self._sweeps += 1
        connections = self.connections()
        seen = {}
        for sockets in connections.values():
            for inode in sockets:
                seen[inode] = self._seen.get(inode, self._sweeps)
        self._seen = seen
        closed = 0
        for address, sockets in connections.items():
            if len(sockets) <= self.per_address:
                continue
            by_age = sorted(sockets, key=lambda inode: (seen[inode], inode))
            excess = by_age[self.per_address :]
            for inode in excess:
                if self._shut(sockets[inode], inode):
                    closed += 1
            log.warning(
                "too many connections from one address: the newest shut down",
                client=address,
                connections=len(sockets),
                limit=self.per_address,
                closed=len(excess),
            )
        self.closed += closed
        return closed

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
