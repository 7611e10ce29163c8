"""The Python runner as a session fixture: one ``ramino serve --test-seed``
on a free port, every scenario replayed through the Python SDK, the
transcripts written to ``transcripts/python/`` (README.md)."""

from __future__ import annotations

import asyncio
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from ramino_client import AsyncClient

from tests.conformance.runner import SUITE, TRANSCRIPTS, replay_all, scenarios
from tests.support.servers import ServerProcess


@pytest.fixture(scope="session")
def python_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | None]:
    """The failure of each scenario (None when it passed) in the Python run."""
    out = TRANSCRIPTS / "python"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    log = tmp_path_factory.mktemp("conformance") / "server.log"
    server = ServerProcess(
        "memory",
        log,
        extra_args=["--test-seed", str(SUITE["testSeed"]), "--abandon-after", "0"],
    )
    server.start()
    try:
        # On a loop of its own thread: asyncio.run here would replace (and
        # drop unclosed) the main thread's loop that pytest-asyncio keeps.
        with ThreadPoolExecutor(1) as pool:
            run = replay_all(server.address, scenarios(), out, AsyncClient)
            failures = pool.submit(asyncio.run, run).result()
    finally:
        server.stop()
    return failures
