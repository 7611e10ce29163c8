"""Real servers for the SDK's tests, and a simple policy that plays a seat
from the server's legal moves.

:class:`ThreadServer` runs an in-process server on its own event loop in a
thread (so that both the blocking and the asyncio client can talk to it),
on port 0, and can restart on the same port over the same store.
:class:`ProcessServer` runs ``ramino serve`` as a subprocess, for restarts
that lose the whole process.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from ramino.api.auth import PlayerVerifier, TokenIssuer
from ramino.api.game_servicer import GameServicer
from ramino.api.server import RunningServer, create_server
from ramino.api.tls import ServerTls
from ramino.app import GameApp
from ramino.store import Store, open_store
from ramino_client import (
    Discard,
    DrawFromStock,
    LegalMoves,
    Move,
    MoveRejected,
    RetryPolicy,
    Seat,
    StaleVersion,
    TakeDiscard,
    TurnOverDiscardPile,
)

from tests.support.redis_server import free_port

SECRET = b"client-tests-secret-of-at-least-32-bytes"
# While a server process restarts (a second or more on a busy machine), try
# often and long enough.
PATIENT = RetryPolicy(attempts=80, initial_backoff=0.05, max_backoff=0.25)


class ThreadServer:
    """A GameService server on 127.0.0.1, run by a loop in its own thread."""

    def __init__(
        self,
        store: str = "memory",
        bot_delay: float = 0.0,
        seed: int | None = None,
        players: PlayerVerifier | None = None,
        tls: ServerTls | None = None,
        streams_per_connection: int = 100,
    ) -> None:
        """``players``: the verifier of player tokens, for a server that knows
        players; ``tls``: serve TLS (mutual TLS with a client CA) from these
        files; ``streams_per_connection``: the server's
        ``--max-streams-per-connection``."""
        self._players = players
        self._streams_per_connection = streams_per_connection
        self._tls = tls
        self._store_url = store
        self._bot_delay = bot_delay
        self._seed = seed
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._store: Store | None = None
        self._running: RunningServer | None = None
        self._app: GameApp | None = None
        self.port = 0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _run(self, coro: Any) -> Any:
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout=30)

    def start(self) -> None:
        async def start() -> None:
            if self._store is None:
                self._store = open_store(self._store_url)
            if self._seed is None:
                app = GameApp(self._store, bot_delay=self._bot_delay)
            else:
                seed = self._seed
                app = GameApp(self._store, bot_delay=self._bot_delay, seed_source=lambda: seed)
            await app.start()
            self._app = app
            self._running = await create_server(
                f"127.0.0.1:{self.port}",
                GameServicer(
                    app,
                    TokenIssuer(SECRET),
                    self._players,
                    max_streams_per_connection=self._streams_per_connection,
                ),
                tls=self._tls,
            )
            self.port = self._running.port

        self._run(start())

    def stop(self) -> None:
        """Stops serving, keeping the store (the memory store outlives its app)."""
        running, self._running = self._running, None
        app, self._app = self._app, None
        if running is not None:
            self._run(running.stop(0))
        if app is not None:
            self._run(app.close())

    def restart(self, down_for: float = 0.0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()

    def close(self) -> None:
        self.stop()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


@pytest.fixture
def server() -> Iterator[ThreadServer]:
    s = ThreadServer()
    s.start()
    yield s
    s.close()


class ProcessServer:
    """``ramino serve`` as a subprocess on a fixed port, to kill and start again."""

    def __init__(
        self, store: str, log: Path, log_level: str = "warning", extra: Sequence[str] = ()
    ) -> None:
        self.port = free_port()
        self._store = store
        self._log = log
        self._log_level = log_level
        self._extra = tuple(extra)
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        env = dict(os.environ, RAMINO_TOKEN_SECRET=SECRET.decode())
        with self._log.open("ab") as log:
            self._process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "ramino",
                    "serve",
                    "--store",
                    self._store,
                    "--port",
                    str(self.port),
                    "--log-level",
                    self._log_level,
                    "--grace",
                    "1",
                    *self._extra,
                ],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def kill(self) -> None:
        """Kills the server without a chance to drain (SIGKILL)."""
        process, self._process = self._process, None
        if process is not None:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def choose(legal: LegalMoves) -> Move | None:
    """A simple policy: draw from the stock, meld whatever the server proposes,
    lay off, then discard what the hint suggests."""
    draws = legal.draws
    if draws:
        for kind in (DrawFromStock, TurnOverDiscardPile, TakeDiscard):
            for move in draws:
                if isinstance(move, kind):
                    return move
    if legal.melds:
        return legal.melds[0]
    if legal.lay_offs:
        return legal.lay_offs[0]
    if legal.discards:
        hint = legal.hint.suggested_discard if legal.hint else None
        ids = {d.card_id for d in legal.discards}
        if hint is not None and hint.id in ids:
            return Discard(hint.id)
        return legal.discards[0]
    return legal.moves[0] if legal.moves else None


def play_turn(seat: Seat) -> bool:
    """Plays this seat's moves until its turn ends; False when it was not its turn."""
    played = False
    while True:
        legal = seat.legal_moves()
        move = choose(legal)
        if move is None:
            return played
        try:
            result = seat.play(move, expected_version=legal.version)
        except StaleVersion:
            continue  # a bot or timer moved meanwhile: look again
        except MoveRejected as e:
            if e.reason in ("NOT_YOUR_TURN", "MATCH_OVER"):
                return played
            raise
        played = True
        if isinstance(move, Discard) or not result.view.my_turn:
            return True


def play_until_finished(seats: list[Seat], deadline: float = 30.0) -> None:
    """Plays every seat with :func:`play_turn` until the game is finished."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        moved = False
        for seat in seats:
            moved = play_turn(seat) or moved
        if seats[0].view().finished:
            return
        if not moved:
            time.sleep(0.005)
    raise AssertionError("the game did not finish in time")


def consecutive(versions: list[int]) -> bool:
    return versions == list(range(versions[0], versions[0] + len(versions)))
