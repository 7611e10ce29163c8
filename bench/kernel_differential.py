"""The differential proof of issue 31, in full: the frozen Python engine
(``tests/engine_reference``) against the Rust kernel (``ramino._core.GameKernel``)
or the live engine, ``--games`` games per parameter set (every preset at every
seat count, and the option sets where the rules branch: see
``tests/engine/differential.py``), every command, probe, legal move list,
hint, event and state compared. Prints, per parameter set, the games, commands,
probes, comparisons, mismatches (0 expected) and the time, then the first
mismatch of each set with how to replay it; exits 1 on any mismatch.

``--write-vectors DIR`` also writes the golden corpus: the first
``--vector-games`` games of every set (inputs and expected outputs, see
``replay_vector``) to ``DIR/games.jsonl.gz``. ``--hidden N`` checks the
hidden-information property on N deals per set (and mid-game on the reference).

Run from the checkout:
``.venv/bin/python bench/kernel_differential.py [--games 2000] [--first 0] [--against kernel|live]
[--jobs N] [--only SUBSTRING] [--write-vectors tests/vectors/games]``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.engine.differential import (  # noqa: E402
    KernelSide,
    LiveSide,
    Mismatch,
    ParameterSet,
    Stats,
    hidden_information,
    hidden_information_midgame,
    kernel_available,
    parameter_sets,
    play_and_compare,
    policy_of,
    seed_of,
)


def _run_chunk(
    args: tuple[ParameterSet, int, int, str, int, int, bool],
) -> tuple[Stats, list[str], list[dict[str, Any]]]:
    ps, start, stop, against, probes, vectors, hidden = args
    side = KernelSide if against == "kernel" else LiveSide
    stats = Stats()
    mismatches: list[str] = []
    kept: list[dict[str, Any]] = []
    for i in range(start, stop):
        record = i < vectors
        try:
            result = play_and_compare(
                ps.variant,
                ps.overrides,
                ps.players,
                seed_of(ps, i),
                policy_of(i),
                probes,
                against=side,
                record=record,
            )
        except Mismatch as e:
            mismatches.append(str(e))
            stats.games += 1
            continue
        stats.add(result.stats)
        if result.vector is not None:
            kept.append(result.vector)
        if hidden:
            seed = seed_of(ps, i)
            stats.comparisons += hidden_information(
                side, ps.variant, ps.overrides, ps.players, seed, permutations=1
            )
            if i % 10 == 0:
                stats.comparisons += hidden_information_midgame(
                    ps.variant, ps.overrides, ps.players, seed
                )
    return stats, mismatches, kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per parameter set")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="the index of the first game (to extend an earlier run)",
    )
    parser.add_argument("--against", choices=("kernel", "live"), default="kernel")
    parser.add_argument("--probes", type=int, default=3, help="probe commands per step")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default="", help="parameter sets whose label contains this")
    parser.add_argument("--set", default="", help="the one parameter set of this exact label")
    parser.add_argument(
        "--hidden", type=int, default=50, help="deals per set for the hidden-information property"
    )
    parser.add_argument("--write-vectors", type=Path, default=None, metavar="DIR")
    parser.add_argument("--vector-games", type=int, default=5, help="games per set in the corpus")
    args = parser.parse_args()
    if args.against == "kernel" and not kernel_available():
        print("ramino._core.GameKernel is not built: nothing to compare against", file=sys.stderr)
        return 2
    vectors = args.vector_games if args.write_vectors else 0
    sets = [ps for ps in parameter_sets() if args.only in ps.label]
    if args.set:
        sets = [ps for ps in sets if ps.label == args.set]
    total = Stats()
    failures: list[tuple[str, str]] = []
    corpus: list[dict[str, Any]] = []
    print(
        f"reference against {args.against}: {args.games} games per set from game {args.first}, "
        f"{len(sets)} sets"
    )
    print(
        f"{'set':66} {'games':>6} {'commands':>9} {'probes':>9} {'compared':>10} "
        f"{'mismatch':>8} {'time':>7}"
    )
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for ps in sets:
            started = time.perf_counter()
            chunk = max(1, min(25, args.games // (4 * args.jobs) or 1))
            tasks = [
                (
                    ps,
                    a,
                    min(a + chunk, args.first + args.games),
                    args.against,
                    args.probes,
                    vectors,
                    a < args.hidden,
                )
                for a in range(args.first, args.first + args.games, chunk)
            ]
            stats = Stats()
            mismatches: list[str] = []
            for s, m, kept in pool.map(_run_chunk, tasks):
                stats.add(s)
                mismatches.extend(m)
                corpus.extend(kept)
            total.add(stats)
            elapsed = time.perf_counter() - started
            print(
                f"{ps.label:66} {stats.games:6} {stats.commands:9} {stats.probes:9} "
                f"{stats.comparisons:10} {len(mismatches):8} {elapsed:6.1f}s",
                flush=True,
            )
            if mismatches:
                failures.append((ps.label, mismatches[0]))
    print(
        f"{'all':66} {total.games:6} {total.commands:9} {total.probes:9} "
        f"{total.comparisons:10} {len(failures):8}"
    )
    for label, message in failures:
        print(f"\n--- first mismatch of {label}:\n{message}")
    if args.write_vectors is not None:
        args.write_vectors.mkdir(parents=True, exist_ok=True)
        path = args.write_vectors / "games.jsonl.gz"
        lines = "".join(json.dumps(v, separators=(",", ":")) + "\n" for v in corpus)
        # mtime 0: the same corpus gives the same bytes.
        path.write_bytes(gzip.compress(lines.encode(), compresslevel=9, mtime=0))
        print(f"\nwrote {len(corpus)} games to {path} ({path.stat().st_size:,} bytes)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
