"""The Python runner as a session fixture: one ``ramino serve --test-seed``
on a free port, every scenario replayed through the Python SDK, the
transcripts written to ``transcripts/python/`` (README.md)."""

from __future__ import annotations

import asyncio
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from ramino_client import AsyncClient

from tests.conformance.runner import (
    PLAYER_TOKEN_SECRET,
    SUITE,
    TRANSCRIPTS,
    replay_all,
    scenarios,
)
from tests.support.servers import ServerProcess


@pytest.fixture(scope="session")
def python_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | None]:
    """The failure of each scenario (None when it passed) in the Python run."""
    out = TRANSCRIPTS / "python"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    logs = tmp_path_factory.mktemp("conformance")
    test_mode = ["--test-seed", str(SUITE["testSeed"]), "--abandon-after", "0"]
    server = ServerProcess("memory", logs / "server.log", extra_args=test_mode)
    # The server of players (README.md, "Starting the servers").
    players = ServerProcess(
        "memory",
        logs / "players.log",
        extra_args=[
            *test_mode,
            "--player-token-secret-file",
            str(PLAYER_TOKEN_SECRET),
            "--quick-bots-after",
            "0",
            "--quick-settle",
            "0",
        ],
    )
    server.start()
    try:
        players.start()
        try:
            # On a loop of its own thread: asyncio.run here would replace (and
            # drop unclosed) the main thread's loop that pytest-asyncio keeps.
            with ThreadPoolExecutor(1) as pool:
                run = replay_all(server.address, scenarios(), out, AsyncClient, players.address)
                failures = pool.submit(asyncio.run, run).result()
        finally:
            players.stop()
    finally:
        server.stop()
    return failures
