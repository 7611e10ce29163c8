"""The server installed as ``pip install .`` installs it: from this checkout
into a fresh virtualenv, through the build backend of pyproject.toml (maturin's,
after generating ramino.v1), then served from there and played against, its
package data (the bot levels' ratings) served too."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

from ramino_client import AsyncClient

from tests.deploy.manifests import ROOT
from tests.deploy.players import consecutive, play_game
from tests.deploy.test_image import _serving
from tests.support.redis_server import free_port


async def test_pip_install_of_the_checkout_gives_a_working_ramino_serve(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("RAMINO_", "PYTHON"))}
    clean.pop("VIRTUAL_ENV", None)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(ROOT)],
        cwd=tmp_path,
        env=clean,
        check=True,
    )
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import ramino.v1.game_pb2 as m; print(m.__file__)"],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(venv)), where  # installed, not this checkout's service/

    port = free_port()
    argv = [str(venv / "bin" / "ramino"), "serve", "--host", "127.0.0.1", "--port", str(port)]
    env = {**clean, "RAMINO_TOKEN_SECRET": "pip-install-test-secret-of-at-least-32-bytes"}
    with (tmp_path / "server.log").open("wb") as log:
        process = subprocess.Popen(
            [*argv, "--store", "memory"], cwd=tmp_path, env=env, stdout=log, stderr=log
        )
    try:
        await asyncio.wait_for(_serving(f"127.0.0.1:{port}", process), 60)
        async with AsyncClient(f"127.0.0.1:{port}") as client:
            run = await asyncio.wait_for(play_game(client), 120)
            # The package's data (the bot levels' ratings) was installed too.
            levels = await client.rules.list_bot_levels()
        assert run.finished and run.moves > 0 and consecutive(run.seen)
        assert [b.level.value for b in levels] == ["easy", "medium", "hard", "expert"]
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(process.wait, 30)
    assert code == 0
