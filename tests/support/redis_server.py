"""A real redis-server on a free loopback port with its own data directory."""

from __future__ import annotations

import contextlib
import random
import shutil
import signal
import socket
import ssl
import subprocess
import time
from pathlib import Path

from tests.support.tls import Issued, TestCA

INSTALL_HINT = (
    "redis-server is not installed: run `make test` (it installs the Debian package "
    "redis-server) or `apt-get install redis-server`"
)


_PORTS = random.Random()
"""Its own generator: ports drawn are no part of what a test decides."""


def _ephemeral_low() -> int:
    """The first port of the kernel's ephemeral range (outgoing connections
    take their local ports there)."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port(count: int = 1) -> int:
    """A loopback port free now, for a server started next, and with it the
    ``count - 1`` ports after it (a server of N workers serves metrics on
    ports p to p + N - 1). Taken below the ephemeral range: a port the
    kernel hands out for port 0 comes from the range outgoing connections
    use, so a client's socket could take it before the server binds it (a
    rehearsal pod failed to bind so)."""
    low = _ephemeral_low()
    for _ in range(200):
        port = _PORTS.randrange(10000, low - count + 1)
        with contextlib.ExitStack() as bound:
            try:
                for p in range(port, port + count):
                    bound.enter_context(socket.socket()).bind(("127.0.0.1", p))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no {count} free loopback ports in a row between 10000 and {low}")


def stop_process(process: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM, then SIGKILL if the process is still there 10 s later."""
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def redis_flags(port: int, data_dir: Path, appendfsync: str) -> list[str]:
    """The flags every test redis-server runs with: loopback only, its data
    in ``data_dir``, no snapshots, an append-only file fsynced as asked, a
    replica's sync started as soon as it asks."""
    return [
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        str(data_dir),
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        appendfsync,
        "--daemonize",
        "no",
        "--protected-mode",
        "yes",
        # A replica's first sync starts at once, not 5 s later (the default
        # waits for more replicas to share one transfer).
        "--repl-diskless-sync-delay",
        "0",
    ]


class RedisServer:
    def __init__(
        self, data_dir: Path, appendfsync: str = "always", replica_of: int | None = None
    ) -> None:
        """``replica_of``: the port of a primary on loopback this server
        replicates (``start`` returns once its first sync is done)."""
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError(INSTALL_HINT)
        self.binary = binary
        self.data_dir = data_dir
        self.port = free_port()
        self.appendfsync = appendfsync
        self.replica_of = replica_of
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        replica = (
            [] if self.replica_of is None else ["--replicaof", "127.0.0.1", str(self.replica_of)]
        )
        self.process = subprocess.Popen(
            [self.binary, *self.flags(), *replica],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if self.replica_of is None:
                    if self._ask(b"PING").startswith(b"+PONG"):
                        return
                elif b"master_link_status:up" in self._ask(b"INFO replication"):
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start (or sync) on port {self.port}")

    def _ask(self, command: bytes) -> bytes:
        """One inline command's reply (its first 4 kB)."""
        with self.connect() as s:
            s.settimeout(0.5)
            s.sendall(command + b"\r\n")
            return s.recv(4096)

    def pause(self) -> None:
        """SIGSTOP: the process is there (its connections stay open) but does
        nothing, so it acknowledges nothing, until :meth:`resume`."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def flags(self) -> list[str]:
        return redis_flags(self.port, self.data_dir, self.appendfsync)

    def connect(self) -> socket.socket:
        """A connection to the server, to ask whether it is up."""
        return socket.create_connection(("127.0.0.1", self.port), timeout=0.2)

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)  # a paused server cannot stop
        stop_process(self.process)
        self.process = None

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
        self.process = None


class TlsRedisServer(RedisServer):
    """A redis-server that speaks TLS only (``--port 0 --tls-port``), with a
    certificate for ``hosts`` signed by the tests' CA; ``auth_clients``:
    ``yes`` (a client certificate of that CA required), ``optional`` or ``no``."""

    def __init__(
        self,
        data_dir: Path,
        ca: TestCA,
        hosts: tuple[str, ...] = ("localhost", "127.0.0.1"),
        auth_clients: str = "no",
    ) -> None:
        super().__init__(data_dir)
        self.ca = ca
        self.auth_clients = auth_clients
        self.certificate = ca.issue(f"redis-{self.port}", hosts=hosts, folder=data_dir)
        self.client_certificate = ca.issue(
            f"redis-client-{self.port}", client=True, folder=data_dir
        )

    def tls_options(self, client_certificate: bool = False) -> str:
        """The store URL's TLS options trusting the CA (with the client certificate)."""
        options = f"tls_ca_file={self.ca.ca_file}"
        if client_certificate:
            cert = self.client_certificate
            options += f"&tls_cert_file={cert.cert_file}&tls_key_file={cert.key_file}"
        return options

    @property
    def url(self) -> str:
        return f"rediss://127.0.0.1:{self.port}/0?{self.tls_options(self.auth_clients == 'yes')}"

    def flags(self) -> list[str]:
        return [
            *redis_flags(0, self.data_dir, self.appendfsync),
            *redis_tls_flags(self.port, self.certificate, self.ca, self.auth_clients),
        ]

    def connect(self) -> socket.socket:
        context = ssl.create_default_context(cafile=str(self.ca.ca_file))
        context.check_hostname = False  # its certificate may name another host
        cert = self.client_certificate
        context.load_cert_chain(cert.cert_file, cert.key_file)
        raw = socket.create_connection(("127.0.0.1", self.port), timeout=0.5)
        try:
            return context.wrap_socket(raw, server_hostname="127.0.0.1")
        except OSError:
            raw.close()
            raise


def redis_tls_flags(port: int, certificate: Issued, ca: TestCA, auth_clients: str) -> list[str]:
    """redis-server's flags for TLS on ``port`` with ``certificate``."""
    return [
        "--tls-port",
        str(port),
        "--tls-cert-file",
        str(certificate.cert_file),
        "--tls-key-file",
        str(certificate.key_file),
        "--tls-ca-cert-file",
        str(ca.ca_file),
        "--tls-auth-clients",
        auth_clients,
    ]
