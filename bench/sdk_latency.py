"""The SDKs' unary latency side by side against one server: Go's
(clients/go, grpc-go) and TypeScript's on Node (clients/typescript/dist, its
Node transport), each timing GetLegalMoves on one seat and the moves of
whole two-seat rummy games (each seat playing from its move's answer), one
call at a time, in alternating rounds so that the machine's load falls on
both alike (issue 21: Node within 1.5x of Go).

    .venv/bin/python bench/sdk_latency.py [--rounds 3] [--calls 1000] [--moves 1000] [--raw]

``--raw`` adds two columns, the breakdown: the SDK on Connect-node's own
gRPC transport (what the SDK's Node calls went through before), and
GetLegalMoves as a bare gRPC call on node:http2 (no SDK, no Connect, the
answer not decoded), Node's own floor.
Needs ``make build`` (the server), Go, and the TypeScript SDK built
(``cd clients/typescript && npm ci && npm run build``). Prints figures, never
fails on a time.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "bench" / "sdk_latency"
PYTHON = ROOT / ".venv" / "bin" / "python"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_serving(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("the server exited while starting")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit("the server did not come up")


def run(argv: list[str], cwd: Path) -> dict[str, list[int]]:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {done.stderr[-2000:]}")
    samples: dict[str, list[int]] = json.loads(done.stdout)
    return samples


def quantile(samples: list[int], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(q * len(s)))] / 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rounds", type=int, default=3, help="rounds, each SDK in turn (default 3)")
    p.add_argument("--calls", type=int, default=1000, help="GetLegalMoves timed a round")
    p.add_argument("--moves", type=int, default=1000, help="moves timed a round (default 1000)")
    p.add_argument("--warmup", type=int, default=200, help="untimed calls first, each run")
    p.add_argument(
        "--raw", action="store_true", help="also Connect-node's transport and bare node:http2 calls"
    )
    a = p.parse_args()

    if not (ROOT / "clients/typescript/dist/node.js").exists():
        raise SystemExit("build the TypeScript SDK first: make test-typescript, or npm run build")
    with tempfile.TemporaryDirectory(prefix="ramino-sdk-latency-") as tmp:
        binary = Path(tmp) / "sdk_latency"
        subprocess.run(["go", "build", "-o", str(binary), "."], cwd=HERE, check=True)
        port = free_port()
        env = {**os.environ, "RAMINO_TOKEN_SECRET": "sdk-latency-bench-secret-of-32-bytes-at-least"}
        log = open(Path(tmp) / "server.log", "wb")
        server = subprocess.Popen(
            [str(PYTHON), "-m", "ramino", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--store", "memory", "--log-level", "warning"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            wait_serving(port, server)
            target = f"127.0.0.1:{port}"
            counts = ["--calls", str(a.calls), "--moves", str(a.moves), "--warmup", str(a.warmup)]
            sides: dict[str, dict[str, list[int]]] = {
                s: {} for s in ("go", "node", "connect", "raw")
            }
            for _ in range(a.rounds):
                runs = [
                    ("go", [str(binary), "-server", target, *counts]),
                    ("node", ["node", "node.mjs", "--server", target, *counts]),
                ]
                if a.raw:
                    raw = ["--calls", str(a.calls), "--moves", "0", "--warmup", str(a.warmup)]
                    connect = ["node", "node.mjs", "--connect", "--server", target, *counts]
                    runs.append(("connect", connect))
                    runs.append(("raw", ["node", "node.mjs", "--raw", "--server", target, *raw]))
                for side, argv in runs:
                    for kind, samples in run(argv, HERE).items():
                        sides[side].setdefault(kind, []).extend(samples)
        finally:
            server.terminate()
            server.wait(30)
            log.close()

    load = os.getloadavg()[0]
    print(f"one server (memory store), {a.rounds} rounds alternating, load average {load:.1f}")
    extra = f"{'Connect':>10}{'/Go':>7}{'raw h2':>10}" if a.raw else ""
    print(f"{'call':<15}{'':>4}{'Go':>10}{'Node':>10}{'Node/Go':>10}" + extra)
    for kind, label in (("legal", "GetLegalMoves"), ("move", "a move")):
        for q, name in ((0.5, "p50"), (0.99, "p99")):
            go, node = quantile(sides["go"][kind], q), quantile(sides["node"][kind], q)
            line = f"{label:<15}{name:>4}{go:>8.3f}ms{node:>8.3f}ms{node / go:>9.2f}x"
            if a.raw:
                c = quantile(sides["connect"][kind], q)
                line += f"{c:>8.3f}ms{c / go:>6.2f}x"
                if sides["raw"].get(kind):
                    line += f"{quantile(sides['raw'][kind], q):>8.3f}ms"
            print(line)
    legal, moves = len(sides["go"]["legal"]), len(sides["go"]["move"])
    print(f"(samples a side: {legal} GetLegalMoves, {moves} moves; target Node/Go <= 1.5)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
