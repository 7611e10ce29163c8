"""The boardgame.io rummy of bench/boardgameio (the baseline of
bench/vs_boardgameio.py, issue 17) plays by its rules: a real boardgame.io
server (server.js) and real clients over websockets (load.js), nothing timed.

Needs Node 20 and ``npm ci`` in bench/boardgameio (``make test-python``
runs it through ``bench-boardgameio-deps``).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.redis_server import free_port

BGIO = Path(__file__).resolve().parents[2] / "bench" / "boardgameio"


def node() -> str:
    exe = shutil.which("node")
    assert exe is not None, "node is not on PATH (Node 20 runs bench/boardgameio)"
    assert (
        BGIO / "node_modules" / "boardgame.io"
    ).is_dir(), "bench/boardgameio/node_modules is missing: make bench-boardgameio-deps"
    return exe


def wait_listening(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert process.poll() is None, "server.js exited before listening"
        try:
            with socket.create_connection(("127.0.0.1", port), 0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"server.js not listening on {port}")


@pytest.fixture
def bgio_server(tmp_path: Path) -> Iterator[tuple[int, int, Path]]:
    """server.js with a fixed seed (every match dealt alike); yields its
    (game port, lobby port, log file)."""
    port, api = free_port(), free_port()
    log = tmp_path / "server.log"
    argv = [node(), "server.js", "--port", str(port), "--api-port", str(api), "--seed", "7"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv, cwd=BGIO, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        wait_listening(process, api)
        wait_listening(process, port)
        yield port, api, log
    finally:
        process.terminate()
        process.wait(10)


def test_the_boardgameio_rummy_plays_legally(bgio_server: tuple[int, int, Path]) -> None:
    port, api, log = bgio_server
    done = subprocess.run(
        [
            node(),
            "load.js",
            "--server",
            f"127.0.0.1:{port}",
            "--api",
            f"127.0.0.1:{api}",
            "--games",
            "2",
            "--seconds",
            "2",
            "--warmup",
            "0.5",
            "--stall-seconds",
            "5",
        ],  # fmt: skip
        cwd=BGIO,
        capture_output=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-500:]
    stats = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert stats["moves"] > 0
    # Every turn opens with a draw and closes with a discard.
    assert {"drawStock", "discard"} <= set(stats["by_move"])
    # No move was refused (a refused move is never answered: the game stalls),
    # no seat was left without a move, and no client call failed.
    assert stats["stalls"] == 0
    assert stats["no_move"] == 0
    assert stats["errors"] == {}
    # boardgame.io writes "ERROR: invalid move ..." (or a disallowed move, a
    # stale state, an inactive player) for each move it refuses.
    lines = [ln for ln in log.read_text().splitlines() if ln.strip()]
    assert [ln for ln in lines if not ln.startswith('{"serving"')] == []


def test_the_boardgameio_rummy_hides_the_other_hand_and_the_stock() -> None:
    script = """
    const { Rummy, meldKind } = require('./game');
    const G = Rummy.setup({ random: { Shuffle: (a) => a } });
    console.log(JSON.stringify({
      G,
      view0: Rummy.playerView({ G, playerID: '0' }),
      spectator: Rummy.playerView({ G, playerID: null }),
      melds: [[0, 1, 2], [11, 12, 0], [0, 13, 26], [0, 13, 26, 39], [0, 1, 3], [0, 13]]
        .map(meldKind),
    }));
    """
    done = subprocess.run(
        [node(), "-e", script], cwd=BGIO, capture_output=True, timeout=30, check=True
    )
    out = json.loads(done.stdout)
    G = out["G"]
    assert [len(h) for h in G["hands"]] == [10, 10]
    assert len(G["discard"]) == 1 and len(G["stock"]) == 52 - 21
    view = out["view0"]
    assert view["hands"] == [G["hands"][0], 10]  # the other hand as a count
    assert view["stock"] == 31  # the stock as a count
    assert out["spectator"]["hands"] == [10, 10]
    # Ace low only: A-2-3 is a run, Q-K-A is not; sets of 3 or 4 of a rank.
    assert out["melds"] == ["run", None, "set", "set", None, None]
