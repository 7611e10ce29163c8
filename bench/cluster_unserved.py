"""A shard with no replica (issue 46, defect 6): how long a read of one of
its games takes once its primary is killed. Figures only, nothing asserted.

Starts a Redis Cluster on loopback of three primaries and no replica
(``cluster-node-timeout`` 1500 ms), creates a game through the store
(``?wait=1``: its create is not acknowledged, no replica has it, but the
game is on the primary), kills (SIGKILL) the primary of its slot, and reads
the game as GetGame does (``version``, then its log) ``--reads`` times in a
row, restarting the node after ``--restart-after`` of them. Each read
prints its seconds and its answer (the store's error and its cause, or the
entries read).

Run from the repository root (it uses the test support's launchers):

    .venv/bin/python bench/cluster_unserved.py
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ramino.store import GameSummary, StoreError  # noqa: E402
from ramino.store.redis import RedisStore  # noqa: E402
from redis.crc import key_slot  # noqa: E402

from tests.support.redis_cluster import RedisClusterServers  # noqa: E402


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reads", type=int, default=8)
    parser.add_argument("--restart-after", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cluster = RedisClusterServers(Path(folder), primaries=3, replicas=0, password="bench")
        cluster.start()
        try:
            store = RedisStore(cluster.url + "?wait=1&wait_timeout_ms=200")
            game = "unserved-1"
            try:
                await store.create(GameSummary(game, "rummy", "waiting", time.time()), "{}")
            except StoreError as refused:
                print(f"create: {type(refused).__name__} (no replica to confirm it)")
            node = cluster.primary_of_slot(key_slot(store.layout.key(game, "log").encode()))
            node.kill()
            print(f"killed the primary of the game's slot ({node.address})")
            for i in range(args.reads):
                if i == args.restart_after:
                    node.start()
                    print(f"restarted {node.address}")
                start = time.monotonic()
                try:
                    await store.version(game)
                    answer = f"ok, {len(await store.read(game))} entries"
                except StoreError as failed:
                    answer = f"{type(failed).__name__} ({type(failed.__cause__).__name__})"
                print(f"read {i}: {time.monotonic() - start:5.2f} s  {answer}", flush=True)
            await store.close()
        finally:
            cluster.stop()


if __name__ == "__main__":
    asyncio.run(main())
