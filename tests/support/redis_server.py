"""A real redis-server on a free loopback port with its own data directory."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

INSTALL_HINT = (
    "redis-server is not installed: run `make test` (it installs the Debian package "
    "redis-server) or `apt-get install redis-server`"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    in ``data_dir``, no snapshots, an append-only file fsynced as asked."""
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
    ]


class RedisServer:
    def __init__(self, data_dir: Path, appendfsync: str = "always") -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError(INSTALL_HINT)
        self.binary = binary
        self.data_dir = data_dir
        self.port = free_port()
        self.appendfsync = appendfsync
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [self.binary, *redis_flags(self.port, self.data_dir, self.appendfsync)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        stop_process(self.process)
        self.process = None

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
        self.process = None
