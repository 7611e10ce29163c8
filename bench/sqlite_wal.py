"""The sqlite store's write-ahead log under sustained writes, side by side:
passive checkpoints only (the store before issue 20: the log grows without
bound under a busy writer) and the store's catching-up checkpointer (a log
held within its bound, ``WAL_LIMIT``). Printed in MiB: the log's file at
the end and at its largest (sampled after every batch), beside the bound;
and the event loop's lag meanwhile (a task that sleeps 1 ms and notes how
late it wakes), since a checkpoint must not stall the loop.

    .venv/bin/python bench/sqlite_wal.py --moves 20000 --creates 20000,40000

Each move is an append of two entries with its request record (a move's
answer, 1.5 kB), 64 games at once (a batch each round, as the server's group
commit makes); each create a new game with its CreateGame record."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ramino.store.sqlite import WAL_LIMIT, SqliteStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.sqlite_burst import burst, prepare  # noqa: E402  (the test's load, written once)

MIB = 1024 * 1024


class Lag:
    """How late a 1 ms sleep wakes, sampled while the writes run."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(0.001)
            self.samples.append(loop.time() - start - 0.001)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        assert self._task is not None
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass


async def run(kind: str, count: int, limit: int, root: Path) -> dict[str, float]:
    store = SqliteStore(root / f"{kind}-{count}-{limit}.db", wal_limit=limit)
    assert store.checkpointer is not None
    lag = Lag()
    await prepare(store, kind)
    started = time.perf_counter()
    lag.start()
    sizes: list[int] = []
    await burst(store, kind, count, sizes)
    biggest = max(sizes, default=0)
    seconds = time.perf_counter() - started
    await lag.stop()
    final = store.checkpointer.wal_size()
    await store.close()
    lags = sorted(lag.samples) or [0.0]
    return {
        "final": final / MIB,
        "max": biggest / MIB,
        "rate": count / seconds,
        "lag_p99": lags[int(0.99 * (len(lags) - 1))] * 1e3,
        "lag_max": lags[-1] * 1e3,
        "lag_p50": statistics.median(lags) * 1e3,
    }


async def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--moves", default="20000", help="appends, comma-separated runs (0: none)")
    p.add_argument(
        "--creates", default="20000,40000", help="creates, comma-separated runs (0: none)"
    )
    p.add_argument(
        "--passive",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run each with passive checkpoints only",
    )
    args = p.parse_args(argv)
    unbounded = 1 << 62  # the catch-up never starts: passive checkpoints only
    header = (
        f"{'':28} {'WAL end MiB':>11} {'WAL max MiB':>11} {'bound MiB':>9} {'writes/s':>9} "
        f"{'lag p50 ms':>10} {'lag p99 ms':>10} {'lag max ms':>10}"
    )
    print(header)
    runs = [
        (kind, int(n))
        for kind, given in (("moves", args.moves), ("creates", args.creates))
        for n in given.split(",")
        if int(n)
    ]
    with tempfile.TemporaryDirectory(prefix="ramino-wal-") as tmp:
        for kind, count in runs:
            modes = [("passive only", unbounded)] if args.passive else []
            for label, limit in (*modes, ("catching up", WAL_LIMIT)):
                r = await run(kind, count, limit, Path(tmp))
                bound = "-" if limit == unbounded else f"{limit / MIB:.1f}"
                print(
                    f"{count} {kind}, {label:13} {r['final']:11.1f} {r['max']:11.1f} "
                    f"{bound:>9} {r['rate']:9.0f} {r['lag_p50']:10.2f} {r['lag_p99']:10.2f} "
                    f"{r['lag_max']:10.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    asyncio.run(main())
