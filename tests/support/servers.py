"""`ramino serve` as a real process on a free loopback port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.support.redis_server import free_port, stop_process

TOKEN_SECRET = "replica-test-secret-shared-by-every-replica"


class ServerProcess:
    def __init__(
        self,
        store: str,
        log: Path,
        bot_delay: float = 0.0,
        port: int | None = None,
        allow_bot_games: bool = False,
        workers: int = 1,
        metrics_port: int | None = None,
        log_level: str = "warning",
        token_secret: str | None = TOKEN_SECRET,
        extra_args: Sequence[str] = (),
        credentials: grpc.ChannelCredentials | None = None,
    ) -> None:
        """``token_secret`` None: none is given (a lone server makes up its
        own; ``--workers N`` makes one up for all its workers);
        ``extra_args``: more flags of ``ramino serve``; ``credentials``: how
        to reach a server started with TLS (its readiness is checked so)."""
        self.store = store
        self.allow_bot_games = allow_bot_games
        self.log = log
        self.bot_delay = bot_delay
        self.port = port or free_port()
        self.workers = workers
        self.metrics_port = metrics_port
        self.log_level = log_level
        self.token_secret = token_secret
        self.extra_args = tuple(extra_args)
        self.credentials = credentials
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def channel(self) -> grpc.Channel:
        """A new channel to the server, over TLS when it was started so
        (to the name ``localhost``, which the tests' certificates carry)."""
        if self.credentials is None:
            return grpc.insecure_channel(self.address)
        return grpc.secure_channel(f"localhost:{self.port}", self.credentials)

    def start(self) -> None:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("RAMINO_TOKEN_SECRET", "RAMINO_TOKEN_SECRET_FILE", "RAMINO_METRICS_PORT")
        }
        env["RAMINO_LOG_LEVEL"] = self.log_level
        if self.token_secret is not None:
            env["RAMINO_TOKEN_SECRET"] = self.token_secret
        command = [
            sys.executable,
            "-m",
            "ramino",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--store",
            self.store,
            "--bot-delay",
            str(self.bot_delay),
            "--grace",
            "1",
        ]
        if self.allow_bot_games:
            command.append("--allow-bot-games")
        if self.workers != 1:
            command += ["--workers", str(self.workers)]
        if self.metrics_port is not None:
            command += ["--metrics-port", str(self.metrics_port)]
        command += self.extra_args
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, env=env, stdout=out, stderr=out)
        self.wait_serving()

    def wait_serving(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                with self.channel() as channel:
                    stub = health_pb2_grpc.HealthStub(channel)
                    r = stub.Check(health_pb2.HealthCheckRequest(), timeout=0.5)
                    if r.status == health_pb2.HealthCheckResponse.SERVING:
                        return
            except grpc.RpcError:
                time.sleep(0.1)
        raise RuntimeError(f"server on {self.address} did not come up")

    def kill(self) -> None:
        """kill -9: no drain, no goodbye."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        stop_process(self.process)
        self.show_errors()

    def show_errors(self) -> None:
        """Prints the end of the server's log when it holds a traceback: pytest
        shows it beside a failed test (a passing test's output is dropped), so
        that an INTERNAL seen by a test comes with its cause, in CI too."""
        if not self.log.exists():
            return
        text = self.log.read_text(errors="replace")
        at = text.find("Traceback")
        if at >= 0:
            print(f"--- {self.log.name} ({self.address}), from its first traceback ---")
            print(text[at : at + 6000])
