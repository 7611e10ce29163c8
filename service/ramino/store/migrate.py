"""Copies every game of one Redis store to another: from a single Redis to a
Redis Cluster (whose keys carry the bucket's hash tag), or back.

    python -m ramino.store.migrate redis://OLD:6379/0 redis+cluster://NEW:7000,NEW:7001

Each game's keys go whole (``DUMP`` and ``RESTORE``: the log stream, the
summary, the request records, the snapshot), then its entries in the lobby,
duty and finished indexes, so that no index ever names a game whose keys are
not there yet. Run it with the servers stopped: a move made while it runs
may be missed. It can be run again (a copied key is replaced), and it checks
each copied game's version against the source.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from ramino.store.redis import INDEXES, PARTS, RedisStore

__all__ = ["migrate", "run", "main"]


async def migrate(source: RedisStore, target: RedisStore) -> list[str]:
    """Copies every game of ``source`` to ``target``; returns their ids."""
    src, dst = source.client, target.client
    ids: list[str] = []
    for bucket in source.layout.all_buckets:
        found = await src.zrange(source.layout.index("games", bucket), 0, -1)
        ids += [raw.decode() for raw in found]
    for game_id in ids:
        for part in PARTS:
            dump = await src.dump(source.layout.key(game_id, part))
            if dump is not None:
                await dst.restore(target.layout.key(game_id, part), 0, dump, replace=True)
        for name in INDEXES:
            score = await src.zscore(source.layout.game_index(name, game_id), game_id)
            if score is not None:
                await dst.zadd(target.layout.game_index(name, game_id), {game_id: score})
        if await target.version(game_id) != await source.version(game_id):
            raise RuntimeError(f"game {game_id} did not copy whole")
    return ids


async def run(source_url: str, target_url: str, prefix: str) -> int:
    source = RedisStore(source_url, prefix=prefix)
    target = RedisStore(target_url, prefix=prefix)
    try:
        ids = await migrate(source, target)
    finally:
        await source.close()
        await target.close()
    print(f"copied {len(ids)} games from {source_url} to {target_url}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ramino.store.migrate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("source", help="redis://HOST:PORT/DB or redis+cluster://HOST:PORT,...")
    p.add_argument("target", help="redis+cluster://HOST:PORT,... or redis://HOST:PORT/DB")
    p.add_argument("--prefix", default="ramino:", help="the key prefix of both stores")
    args = p.parse_args(argv)
    return asyncio.run(run(args.source, args.target, args.prefix))


if __name__ == "__main__":
    sys.exit(main())
