"""What a Redis Cluster failover loses: figures only, nothing asserted.

Starts a Redis Cluster on loopback (three primaries, a replica each,
``cluster-node-timeout`` 1500 ms) and two ``ramino serve`` processes on it,
plays games of two client-side players through them, and kills (SIGKILL) the
primary that holds the most games while moves are flowing. Its replica is
promoted; the killed node comes back as a replica. Then it compares, game by
game, every event a client was told happened (acknowledged) with the log the
cluster kept, and prints how many acknowledged events are gone, and how many
games did not finish (a server whose copy of a game is ahead of a log that
lost entries refuses its moves until it drops that copy).

Modes (``--mode``, default both): ``async`` (appends acknowledged when the
primary has them, as with a single Redis) and ``wait``
(``?wait=1&wait_timeout_ms=30000``: when a replica has them too; while the
killed node is away, its shard's appends wait for it to come back). Each
node runs ``appendfsync`` as ``--appendfsync`` says (default ``always``).

Run from the repository root (it uses the test support's launchers):

    .venv/bin/python bench/cluster_failover.py --trials 3

``--store-calls N`` instead calls every method of the store, and of the
tickets and ratings beside it, concurrently through N kills in a row of
their shard's primary (each killed node comes back as a replica, killed in
turn: tests/replicas/test_redis_cluster_failover_calls.py's cycles), and
prints per cycle the seconds from the kill to the promotion and to every
method answering again, and the failures meanwhile; then the totals, and
any failure that is not one of the store's answers (an AttributeError that
would be INTERNAL, say):

    .venv/bin/python bench/cluster_failover.py --store-calls 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ramino.store.redis import RedisStore  # noqa: E402

from tests.replicas.test_redis_cluster_failover_calls import (  # noqa: E402
    Cycle,
    drive_through_kills,
)
from tests.replicas.test_redis_cluster_replicas import game_slot, open_servers  # noqa: E402
from tests.replicas.test_redis_replicas import (  # noqa: E402
    Acks,
    close_cluster,
    create,
    play_people,
)
from tests.support.redis_cluster import RedisClusterServers  # noqa: E402


async def lost_events(url: str, acks: dict[str, Acks]) -> tuple[int, int]:
    """(acknowledged events, those the store no longer has as acknowledged)."""
    store = RedisStore(url)
    told = gone = 0
    try:
        for name, a in acks.items():
            kept = {}
            for e in await store.read(name.split("/")[1]):
                data = json.loads(e.data)
                if data["kind"] == "engine":
                    kept[e.version] = data["event"]["type"]
            for version, kind in a.events.items():
                told += 1
                gone += kept.get(version) != kind
    finally:
        await store.close()
    return told, gone


def server_errors(tmp: Path) -> set[str]:
    """The errors the servers logged: each event with its exception's last line."""
    found = set()
    for path in tmp.glob("replica*.log"):
        for line in path.read_text().splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if record.get("level") == "error":
                    last = (record.get("exception") or "").strip().splitlines()[-1:]
                    found.add(f"{record.get('event')}: {''.join(last)[:200]}")
    return found


async def trial(tmp: Path, mode: str, appendfsync: str, games: int) -> tuple[int, int, int, int]:
    """(acknowledged events, lost ones, games, games that did not finish)."""
    servers = RedisClusterServers(tmp / "cluster", node_timeout_ms=1500, appendfsync=appendfsync)
    servers.start()
    try:
        url = servers.url + ("?wait=1&wait_timeout_ms=30000" if mode == "wait" else "")
        cluster = await open_servers(url, tmp, 2, bot_delay=0.0)
        try:
            made = [await create(cluster, "rummy", 2, 0, rounds=3) for _ in range(games)]
            acks = {name: Acks() for name, _ in made}
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 90
            players = [
                asyncio.create_task(play_people(cluster, n, t, acks[n], deadline)) for n, t in made
            ]
            by_primary: dict[int, int] = {}
            for name, _ in made:
                port = servers.primary_of_slot(game_slot(name)).port
                by_primary[port] = by_primary.get(port, 0) + 1
            busiest = max(by_primary, key=lambda port: by_primary[port])
            victim = next(n for n in servers.nodes if n.port == busiest)
            while sum(len(a.events) for a in acks.values()) < 20 * games:
                await asyncio.sleep(0.02)
            victim.kill()
            await asyncio.to_thread(servers.wait_promoted, victim)
            await asyncio.to_thread(victim.start)
            results = await asyncio.gather(*players, return_exceptions=True)
            failures = [r for r in results if isinstance(r, BaseException)]
            for why in sorted({f"{type(r).__name__}: {r.args[:1]}"[:160] for r in failures}):
                print(f"    a game stopped: {why}", flush=True)
            for why in sorted(server_errors(tmp)):
                print(f"    a server logged: {why}", flush=True)
            unfinished = len(failures)
            told, gone = await lost_events(servers.url, acks)
            return told, gone, games, unfinished
        finally:
            await close_cluster(cluster)
    finally:
        servers.stop()


async def run(args: argparse.Namespace) -> None:
    modes = ["async", "wait"] if args.mode == "both" else [args.mode]
    print(
        f"cluster failover: {args.games} games of rummy, two servers, a primary SIGKILLed "
        f"mid-play, appendfsync {args.appendfsync}, {args.trials} trial(s) per mode"
    )
    for mode in modes:
        totals = [0, 0, 0, 0]
        for i in range(args.trials):
            with tempfile.TemporaryDirectory(prefix="ramino-failover-") as tmp:
                told, gone, games, unfinished = await trial(
                    Path(tmp), mode, args.appendfsync, args.games
                )
            print(
                f"  [{mode} #{i + 1}] acknowledged events {told}, lost {gone}; "
                f"games {games}, not finished {unfinished}",
                flush=True,
            )
            for j, x in enumerate((told, gone, games, unfinished)):
                totals[j] += x
        print(
            f"{mode:>5}: lost {totals[1]} of {totals[0]} acknowledged events; "
            f"{totals[3]} of {totals[2]} games did not finish"
        )


async def store_calls(cycles: int) -> int:
    """Every store method through ``cycles`` kills; 1 if any call failed
    with anything but the store's answers."""
    print(f"store calls through {cycles} kills of their shard's primary, in a row")
    with tempfile.TemporaryDirectory(prefix="ramino-failover-") as tmp:
        servers = RedisClusterServers(Path(tmp) / "cluster", node_timeout_ms=1500)
        servers.start()
        seen: list[Cycle] = []

        def report(n: int, c: Cycle) -> None:
            seen.append(c)
            failures = ", ".join(f"{k} {v}" for k, v in sorted(c.failures.items())) or "none"
            print(
                f"  [kill {n + 1:2}] promoted after {c.promoted:4.1f} s, every method "
                f"answering after {c.answering:4.1f} s; failures: {failures}",
                flush=True,
            )

        try:
            calls = await drive_through_kills(servers, cycles, report)
        except AssertionError as stopped:
            print(f"  stopped: {stopped}")
            return 1
        finally:
            servers.stop()
    print(
        f"{len(seen)} kills: {calls.ok.total()} calls answered, {calls.failed.total()} failed "
        f"({', '.join(f'{k} {v}' for k, v in sorted(calls.failed.items())) or 'none'}), "
        f"{len(calls.wrong)} with another error; promotion {min(c.promoted for c in seen):.1f}-"
        f"{max(c.promoted for c in seen):.1f} s, all answering again "
        f"{min(c.answering for c in seen):.1f}-{max(c.answering for c in seen):.1f} s"
    )
    return 1 if calls.wrong else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=["async", "wait", "both"], default="both")
    p.add_argument("--appendfsync", choices=["always", "everysec", "no"], default="always")
    p.add_argument("--games", type=int, default=12)
    p.add_argument("--trials", type=int, default=2)
    p.add_argument(
        "--store-calls",
        type=int,
        default=0,
        metavar="KILLS",
        help="every store call through this many kills instead (issue 36)",
    )
    args = p.parse_args(argv)
    if args.store_calls:
        return asyncio.run(store_calls(args.store_calls))
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
