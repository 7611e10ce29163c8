"""``ramino gateway`` (Envoy) as a real process, and a small gRPC-web client
that speaks to it the way a browser's fetch does (HTTP/1.1, binary frames)."""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf.message import Message

from tests.support.redis_server import free_port, stop_process


class GatewayProcess:
    def __init__(self, upstream: str, log: Path, *args: str, page: Path | None = None) -> None:
        self.upstream = upstream
        self.log = log
        self.args = args
        self.page = page
        self.port = free_port()
        self.admin_port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [
            sys.executable,
            "-m",
            "ramino",
            "gateway",
            "--port",
            str(self.port),
            "--upstream",
            self.upstream,
            "--admin-port",
            str(self.admin_port),
            *self.args,
        ]
        if self.page is not None:
            command += ["--page", str(self.page)]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, stdout=out, stderr=out)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gateway exited: {self.log.read_text()[-3000:]}")
            try:
                if self.admin("/ready").strip() == "LIVE":
                    return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.1)
        raise RuntimeError("the gateway did not become ready")

    def admin(self, path: str) -> str:
        url = f"http://127.0.0.1:{self.admin_port}{path}"
        with urllib.request.urlopen(url, timeout=5) as r:
            return str(r.read().decode())

    def config_dump(self) -> dict[str, Any]:
        return dict(json.loads(self.admin("/config_dump")))

    def stop(self) -> None:
        stop_process(self.process)


def frame(message: Message) -> bytes:
    data = message.SerializeToString()
    return struct.pack(">BI", 0, len(data)) + data


@dataclass
class Ended:
    """How a gRPC-web call ended: its trailers, or cut before them."""

    status: int | None
    trailers: dict[str, str] = field(default_factory=dict)
    cut: str = ""


class GrpcWebCall:
    """One call through the gateway; for a server stream, a thread reads the
    frames into ``messages`` (bytes of each message, then an :class:`Ended`)."""

    def __init__(
        self,
        port: int,
        method: str,
        request: Message,
        token: str | None = None,
        origin: str | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        """``tls``: over HTTPS, to the name ``localhost``, trusting this context's CAs."""
        self.connection: http.client.HTTPConnection
        if tls is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=None)
        else:
            self.connection = http.client.HTTPSConnection("localhost", port, context=tls)
        headers = {
            "content-type": "application/grpc-web+proto",
            "x-grpc-web": "1",
            "accept": "application/grpc-web+proto",
        }
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        if origin is not None:
            headers["origin"] = origin
        self.connection.request("POST", f"/ramino.v1.GameService/{method}", frame(request), headers)
        self.response = self.connection.getresponse()
        self.headers = {k.lower(): v for k, v in self.response.getheaders()}
        self.messages: queue.Queue[bytes | Ended] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        if "grpc-status" in self.headers:  # trailers-only
            self.messages.put(Ended(int(self.headers["grpc-status"]), self.headers))
            return
        try:
            while True:
                head = self.response.read(5)
                if len(head) < 5:
                    self.messages.put(Ended(None, cut=f"closed after {len(head)} header bytes"))
                    return
                flag, length = struct.unpack(">BI", head)
                body = self.response.read(length)
                if len(body) < length:
                    self.messages.put(Ended(None, cut="closed inside a message"))
                    return
                if flag & 0x80:
                    trailers = {}
                    for line in body.decode().split("\r\n"):
                        if ":" in line:
                            k, v = line.split(":", 1)
                            trailers[k.strip().lower()] = v.strip()
                    self.messages.put(Ended(int(trailers.get("grpc-status", "-1")), trailers))
                    return
                self.messages.put(body)
        except (OSError, http.client.HTTPException) as e:
            self.messages.put(Ended(None, cut=f"{type(e).__name__}: {e}"))

    def next(self, timeout: float = 30) -> bytes | Ended:
        return self.messages.get(timeout=timeout)

    def close(self) -> None:
        # Shut the socket first: the reader thread holds the response's
        # buffer, which close() would otherwise wait for.
        if self.connection.sock is not None:
            with contextlib.suppress(OSError):
                self.connection.sock.shutdown(socket.SHUT_RDWR)
        self._reader.join(10)
        self.connection.close()
