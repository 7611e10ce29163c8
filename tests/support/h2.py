"""An HTTP/2 client frame by frame over a plain socket bound to a source
address of its own (127.0.0.2, 127.0.1.5, ...: loopback answers all of
127.0.0.0/8), to hold connections as a hostile or a dead client does: one
that sends its preface and SETTINGS and nothing since, one that pings the
server, one that never answers the server's pings, beside calls of gRPC's
own (a unary call or a server stream, written by hand: literal HPACK
headers, no compression)."""

from __future__ import annotations

import contextlib
import socket
import struct
import time
from collections.abc import Callable

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, SETTINGS, PING, GOAWAY = 0, 1, 4, 6, 7
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4
ENHANCE_YOUR_CALM = 0xB
"""The GOAWAY error code of a peer that pinged too often."""


def literal(name: str, value: str) -> bytes:
    """An HPACK header field, literal without indexing and without Huffman
    coding (names and values under 127 bytes)."""
    raw_name, raw_value = name.encode(), value.encode()
    assert len(raw_name) < 127 and len(raw_value) < 127
    return b"\x00" + bytes([len(raw_name)]) + raw_name + bytes([len(raw_value)]) + raw_value


class RawConnection:
    """One HTTP/2 connection from ``source`` to ``127.0.0.1:port``. Reading
    frames acknowledges the server's SETTINGS, answers its PINGs (unless
    ``answer_pings`` is false), and keeps what came: each stream's DATA,
    the acknowledgements of this client's pings, the GOAWAY, the end."""

    def __init__(self, port: int, source: str = "127.0.0.1", answer_pings: bool = True) -> None:
        self.port = port
        self.answer_pings = answer_pings
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((source, 0))
        self.sock.connect(("127.0.0.1", port))
        self.closed = False
        """Whether the server has closed the connection (an end or a reset read)."""
        self.settings = 0
        """SETTINGS frames of the server's own (not acknowledgements) read."""
        self.goaway: tuple[int, bytes] | None = None
        """The last GOAWAY's error code and debug text."""
        self.server_pings = 0
        """PINGs of the server's read (answered or not)."""
        self.acks = 0
        """Acknowledgements of this client's PINGs read."""
        self.data: dict[int, bytes] = {}
        """The DATA read on each stream, one after the other."""
        self._buffer = b""

    def send(self, kind: int, flags: int, stream: int, payload: bytes = b"") -> None:
        header = struct.pack(">I", len(payload))[1:] + bytes([kind, flags])
        self.sock.sendall(header + struct.pack(">I", stream) + payload)

    def handshake(self) -> bool:
        """Sends the preface and empty SETTINGS, then reads until the
        server's SETTINGS (acknowledged); False if the server closes the
        connection first (one past its connection limit)."""
        try:
            self.sock.sendall(PREFACE)
            self.send(SETTINGS, 0, 0)
        except OSError:  # closed (or reset) as it was accepted
            self.closed = True
            return False
        return self.until(lambda: self.settings > 0)

    def ping(self) -> None:
        self.send(PING, 0, 0, b"raminoOK")

    def call(self, stream: int, path: str, message: bytes) -> None:
        """Opens gRPC call ``path`` on ``stream`` (odd, rising) with its one
        request ``message``, then half-closes it."""
        headers = b"".join(
            literal(name, value)
            for name, value in (
                (":method", "POST"),
                (":scheme", "http"),
                (":path", path),
                (":authority", f"127.0.0.1:{self.port}"),
                ("content-type", "application/grpc"),
                ("te", "trailers"),
            )
        )
        self.send(HEADERS, END_HEADERS, stream, headers)
        self.send(DATA, END_STREAM, stream, b"\x00" + struct.pack(">I", len(message)) + message)

    def messages(self, stream: int) -> list[bytes]:
        """The gRPC messages read on ``stream`` so far (whole ones)."""
        data, found = self.data.get(stream, b""), []
        while len(data) >= 5 and len(data) >= 5 + (size := struct.unpack(">I", data[1:5])[0]):
            found.append(data[5 : 5 + size])
            data = data[5 + size :]
        return found

    def until(self, condition: Callable[[], bool], timeout: float = 10.0) -> bool:
        """Reads frames until ``condition()`` holds (True) or the connection
        ends or ``timeout`` seconds pass (False, unless it then holds)."""
        deadline = time.monotonic() + timeout
        while not condition():
            if self.closed or not self._read_frame(deadline - time.monotonic()):
                return condition()
        return True

    def poll(self) -> bool:
        """Reads the frames already come; whether the connection is still open."""
        while not self.closed and self._read_frame(0.001):
            pass
        return not self.closed

    def wait_closed(self, timeout: float = 10.0) -> bool:
        """Whether the server closes the connection within ``timeout`` seconds."""
        return self.until(lambda: self.closed, timeout)

    def close(self) -> None:
        self.sock.close()

    def _read_frame(self, timeout: float) -> bool:
        """Reads and handles one frame; False at the end or past ``timeout``."""
        deadline = time.monotonic() + timeout
        while len(self._buffer) < 9 or len(self._buffer) < 9 + self._length():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                return False
            except OSError:  # reset by the server
                chunk = b""
            if not chunk:
                self.closed = True
                return False
            self._buffer += chunk
        size = self._length()
        kind, flags = self._buffer[3], self._buffer[4]
        stream = struct.unpack(">I", self._buffer[5:9])[0] & 0x7FFFFFFF
        payload = self._buffer[9 : 9 + size]
        self._buffer = self._buffer[9 + size :]
        self._handle(kind, flags, stream, payload)
        return True

    def _length(self) -> int:
        return int(struct.unpack(">I", b"\x00" + self._buffer[:3])[0])

    def _handle(self, kind: int, flags: int, stream: int, payload: bytes) -> None:
        if kind == SETTINGS and not flags & ACK:
            self.settings += 1
            self._reply(SETTINGS, ACK, b"")
        elif kind == PING and flags & ACK:
            self.acks += 1
        elif kind == PING:
            self.server_pings += 1
            if self.answer_pings:
                self._reply(PING, ACK, payload)
        elif kind == GOAWAY:
            self.goaway = (struct.unpack(">I", payload[4:8])[0], payload[8:])
        elif kind == DATA:
            self.data[stream] = self.data.get(stream, b"") + payload

    def _reply(self, kind: int, flags: int, payload: bytes) -> None:
        """Sends a frame of the connection's own (stream 0), unless the
        server has closed the connection meanwhile."""
        with contextlib.suppress(OSError):
            self.send(kind, flags, 0, payload)
