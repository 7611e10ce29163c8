"""`ramino serve` as a real process on a free loopback port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
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
    ) -> None:
        self.store = store
        self.allow_bot_games = allow_bot_games
        self.log = log
        self.bot_delay = bot_delay
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        env = dict(os.environ, RAMINO_TOKEN_SECRET=TOKEN_SECRET, RAMINO_LOG_LEVEL="warning")
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
                with grpc.insecure_channel(self.address) as channel:
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
