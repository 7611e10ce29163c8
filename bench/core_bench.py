"""Benchmarks of the meld search (issue 2): figures side by side, nothing asserted.

Run from the repository root:

    .venv/bin/python bench/core_bench.py            # 100,000 hands per set
    .venv/bin/python bench/core_bench.py --quick    # 5,000 hands per set
    .venv/bin/python bench/core_bench.py --quick --sections 1 \
        --baseline nov=/tmp/old/_core.abi3.so          # section 1 beside another build

Sections:
  1. min_deadwood on 10-card one-deck hands against OpenSpiel's gin rummy utils,
     and the split of one call (the binding's overhead beside the search);
  2. best_opening latency (mean, p50, p99, max) on random and dense hands;
  3. speed-up over the brute-force reference of tests/reference.py;
  4. analyze_many throughput on one thread and on two threads.

Every figure is printed beside its target; the script never fails on a time.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib.machinery
import importlib.util
import json
import math
import os
import platform
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ramino

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "reference.py"
RANKS = "A23456789TJQK"
SUITS = "SHDC"

P99_TARGET_US = 100.0
MAX_TARGET_US = 2000.0
SPEEDUP_TARGET = 1000.0

Hand = list[ramino.Card]


# ---------------------------------------------------------------- helpers


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending sequence (q in 0..1)."""
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


def mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def show(hand: Sequence[ramino.Card]) -> str:
    return " ".join(str(c) for c in hand)


def rule(title: str) -> None:
    print()
    print(title)
    print("-" * len(title))


def time_calls(fn: Callable[[Any], object], items: Sequence[Any]) -> list[int]:
    """Nanoseconds of each call fn(item), timed one by one, garbage collector off."""
    out = [0] * len(items)
    clock = time.perf_counter_ns
    gc.collect()
    gc.disable()
    try:
        for i, item in enumerate(items):
            t0 = clock()
            fn(item)
            out[i] = clock() - t0
    finally:
        gc.enable()
    return out


def cards(texts: Sequence[str]) -> Hand:
    return ramino.parse_cards(list(texts))


# ---------------------------------------------------------------- hand sets


def random_hands(rng: random.Random, variant: ramino.Variant, size: int, n: int) -> list[Hand]:
    """n hands of `size` cards dealt at random from the variant's full deck."""
    deck = ramino.deck_cards(variant)
    return [rng.sample(deck, size) for _ in range(n)]


def rank_windows(width: int) -> list[list[int]]:
    """Every window of `width` consecutive ranks, ace low and (Q-K-A side) ace high."""
    windows = [list(range(start, start + width)) for start in range(1, 15 - width)]
    windows.append([r if r <= 13 else r - 13 for r in range(14 - width + 1, 15)])
    return windows


def dense_hands(
    rng: random.Random,
    size: int,
    n: int,
    width: int,
    suits: int,
    jokers: tuple[int, int],
) -> list[Hand]:
    """Hands crowded with overlapping melds.

    Each hand picks `width` consecutive ranks and `suits` suits, takes both decks'
    copies of those cards (2 * width * suits naturals), and deals `size` cards:
    between jokers[0] and jokers[1] jokers, the rest from those naturals. Few ranks
    times many copies gives many sets, runs and duplicate cards that share cards,
    and the jokers multiply the ways to complete each of them.
    """
    windows = rank_windows(width)
    out = []
    for _ in range(n):
        ranks = rng.choice(windows)
        chosen = rng.sample(SUITS, suits)
        pool = [RANKS[r - 1] + s for r in ranks for s in chosen for _copy in range(2)]
        k = rng.randint(*jokers)
        out.append(cards(["JK"] * k + rng.sample(pool, size - k)))
    return out


@dataclass
class HandSet:
    name: str
    variant: ramino.Variant
    hands: list[Hand]
    recipe: str


def opening_sets(rng: random.Random, n: int) -> list[HandSet]:
    r51 = ramino.Variant("ramino51")
    rami = ramino.Variant("rami51")
    return [
        HandSet(
            "random ramino51",
            r51,
            random_hands(rng, r51, 15, n),
            "15 cards from 2 decks + 4 jokers (0-4 jokers a hand)",
        ),
        HandSet(
            "random rami51",
            rami,
            random_hands(rng, rami, 14, n),
            "14 cards from 2 decks + 4 jokers (0-4 jokers a hand)",
        ),
        HandSet(
            "dense ramino51",
            r51,
            dense_hands(rng, 15, n, width=3, suits=4, jokers=(2, 4)),
            "15 cards: 3 consecutive ranks x 4 suits x 2 decks, 2-4 jokers",
        ),
        HandSet(
            "dense rami51",
            rami,
            dense_hands(rng, 14, n, width=3, suits=4, jokers=(2, 4)),
            "14 cards: 3 consecutive ranks x 4 suits x 2 decks, 2-4 jokers",
        ),
        HandSet(
            "runs ramino51",
            r51,
            dense_hands(rng, 15, n, width=5, suits=2, jokers=(4, 4)),
            "15 cards: 5 consecutive ranks x 2 suits x 2 decks, all 4 jokers",
        ),
        HandSet(
            "runs rami51",
            rami,
            dense_hands(rng, 14, n, width=5, suits=2, jokers=(4, 4)),
            "14 cards: 5 consecutive ranks x 2 suits x 2 decks, all 4 jokers",
        ),
    ]


# ---------------------------------------------------------------- 1. gin


def interleaved_means(
    sides: Sequence[tuple[Callable[[Any], object], Sequence[Any]]],
    rounds: int = 3,
    chunk: int = 1000,
) -> list[float]:
    """Mean microseconds per call of each side (fn, items), the sides timed in
    turn on the same chunk of items, every chunk ``rounds`` times; each side's
    chunk counts with its fastest round. A slow spell of a shared machine then
    hits all sides alike, and a side is never timed only in a bad one."""
    n = len(sides[0][1])
    totals = [0.0] * len(sides)
    for start in range(0, n, chunk):
        best = [math.inf] * len(sides)
        for r in range(rounds):
            order = range(len(sides)) if r % 2 == 0 else reversed(range(len(sides)))
            for k in order:
                fn, items = sides[k]
                took = sum(time_calls(fn, items[start : start + chunk]))
                best[k] = min(best[k], took)
        for k in range(len(sides)):
            totals[k] += best[k]
    return [t / n / 1e3 for t in totals]


def load_core(label: str, path: Path) -> Any:
    """Another build of ``ramino._core`` (an older commit's, say), loaded beside
    ours under a module name of its own; its functions take its own Cards and
    Variants."""
    name = f"ramino_baseline_{label}._core"
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def criterion_us(group: str, bench: str, hands: int = 256) -> tuple[float, Path] | None:
    """The median time per hand (us) of a criterion bench of ramino-core, from
    the estimates its last run left under the cargo target directory, or None."""
    roots = [Path(os.environ["CARGO_TARGET_DIR"])] if "CARGO_TARGET_DIR" in os.environ else []
    roots.append(ROOT / "target")
    for root in roots:
        path = root / "criterion" / group / bench / "new" / "estimates.json"
        if path.exists():
            median_ns = json.loads(path.read_text())["median"]["point_estimate"]
            return median_ns / hands / 1e3, path
    return None


def bench_gin(
    variant: ramino.Variant, hands: list[Hand], baselines: Sequence[tuple[str, Path]]
) -> None:
    rule("1. min_deadwood, 10-card one-deck hands (variant rummy: ace 1, J Q K 10)")
    n = len(hands)
    print(f"hands: {n}, one hand per Python call, hand passed as a list of ramino.Card;")
    print("  sides timed in turn on each 1,000 hands, 3 rounds, a chunk's fastest round counted")
    empty: Hand = []
    sides: list[tuple[Callable[[Any], object], Sequence[Any]]] = [
        (lambda h: ramino.min_deadwood(h, variant), hands),
        (lambda h: ramino.penalty(h, variant), hands),
        (lambda h: ramino.penalty(empty, variant), hands),
        (lambda h: None, hands),
    ]
    for label, path in baselines:
        core = load_core(label, path)
        theirs = core.Variant("rummy")
        their_hands = [core.parse_cards([str(c) for c in h]) for h in hands]

        def search(h: Any, core: Any = core, v: Any = theirs) -> object:
            return core.min_deadwood(h, v)

        sides.append((search, their_hands))
    utils: Any = None
    os_hands: list[list[int]] = []
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError as exc:
        missing = f"cannot import pyspiel ({exc})"
    else:
        missing = ""
        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
        # OpenSpiel numbers cards suit-major in the order spades, clubs,
        # diamonds, hearts, ace..king; map by text ("TH" -> "Th") and check
        # the round trip.
        to_os = {}
        for card in ramino.deck_cards(variant):
            text = str(card)
            code = utils.card_int(text[0] + text[1].lower())
            if utils.card_string(code).upper() != text:
                print(
                    f"  card encoding mismatch on {text}: OpenSpiel says {utils.card_string(code)}"
                )
                return
            to_os[text] = code
        os_hands = [[to_os[str(c)] for c in h] for h in hands]
        # Called as ours is: through a function of the hand that looks the
        # method up and calls it (passing the bound method itself would spare
        # OpenSpiel the Python frame that ours pays).
        sides.append((lambda h: utils.min_deadwood(h), os_hands))
    means = interleaved_means(sides)
    ours_mean, floor_mean, empty_mean, loop_mean = means[:4]
    base_means = means[4 : 4 + len(baselines)]
    theirs_mean = None if missing else means[-1]

    def versus(mean: float) -> str:
        return "" if theirs_mean is None else f"  {mean / theirs_mean:5.2f}x OpenSpiel's time"

    print(f"  ramino.min_deadwood          {ours_mean:8.2f} us/hand{versus(ours_mean)}")
    for (label, path), mean in zip(baselines, base_means, strict=True):
        print(f"  {label + ' min_deadwood':28s} {mean:8.2f} us/hand{versus(mean)}  ({path})")
    print(f"  (ramino.penalty, same hands: {floor_mean:8.2f} us/hand, binding overhead floor)")
    if theirs_mean is None:
        print(f"  OpenSpiel not measured: {missing}.")
        print("  Install it with: .venv/bin/pip install open-spiel (see bench/README.md)")
    else:
        print(
            f"  OpenSpiel min_deadwood       {theirs_mean:8.2f} us/hand  (pyspiel, returns an int)"
        )
        ratio = theirs_mean / ours_mean
        print(f"  ratio OpenSpiel / ramino     {ratio:8.2f}x  (> 1: ramino is faster)")
        ours_values = [ramino.min_deadwood(h, variant).value for h in hands]
        theirs_values = [utils.min_deadwood(h) for h in os_hands]
        agree = sum(a == b for a, b in zip(ours_values, theirs_values, strict=True))
        print(f"  agreement                    {agree} / {n} hands")
        shown = 0
        for hand, a, b in zip(hands, ours_values, theirs_values, strict=True):
            if a != b and shown < 5:
                print(f"    disagree: {show(hand)}: ramino {a}, OpenSpiel {b}")
                shown += 1
    split_gin(ours_mean, floor_mean, empty_mean, loop_mean)


def split_gin(ours: float, floor: float, empty: float, loop: float) -> None:
    """Where a min_deadwood call's time goes, from the sides timed together:
    the bench's own loop (a lambda returning None), the call with its variant
    argument and an int result (penalty of an empty hand), the 10 cards read
    (penalty of the hand), and the rest: the search and its result object,
    split by the kernel's own time from criterion when a run left it."""

    def row(what: str, us: float | None, how: str) -> None:
        figure = "     -" if us is None else f"{us:6.3f}"
        print(f"    {what:40s} {figure}  {how}")

    print("  split of one ramino.min_deadwood call (us; the sides above, timed together):")
    row("the bench's loop and lambda", loop, "lambda h: None")
    row("call, variant argument, int result", empty - loop, "penalty([]) less the loop")
    row("reading the 10 cards", floor - empty, "penalty(hand) less penalty([])")
    row("GIL release and re-acquire", 0.0, "not paid: GIL_HELD_MAX, 11 cards")
    row("search and the Deadwood result", ours - floor, "min_deadwood less penalty")
    kernel = criterion_us("min_deadwood", "gin_rummy_10")
    if kernel is None:
        row("  the kernel's search alone", None, "no criterion run found: cargo bench")
        print("      -p ramino-core --bench search -- min_deadwood/gin (its estimates are read)")
        return
    us, path = kernel
    age = datetime.datetime.now() - datetime.datetime.fromtimestamp(path.stat().st_mtime)
    row(
        "  the kernel's search alone",
        us,
        f"criterion median, {age.total_seconds() / 60:.0f} min ago",
    )
    if us < ours - floor:
        row("  the result object, the search in situ", ours - floor - us, "the rest")
    else:
        # Criterion's samples take wall time, preemptions and all, where the
        # sides above count each chunk's fastest round.
        print("      (criterion's figure is above the whole: a busy machine slowed its run)")


# ---------------------------------------------------------------- 2. best_opening


def retime_worst(
    hs: HandSet, times: list[int], count: int = 20, repeat: int = 21
) -> tuple[float, Hand]:
    """Re-time the `count` slowest hands `repeat` times each, round-robin (a burst
    of scheduler noise then hits one round of every hand rather than every round
    of one hand); the hand whose median is highest, with that median in us. This
    separates a hand's own cost from a hiccup during its single timed call."""
    order = sorted(range(len(times)), key=times.__getitem__, reverse=True)[:count]
    hands = [hs.hands[i] for i in order]
    times = time_calls(lambda h: ramino.best_opening(h, hs.variant), hands * repeat)
    medians = [statistics.median(times[k :: len(hands)]) / 1e3 for k in range(len(hands))]
    worst = max(range(len(hands)), key=medians.__getitem__)
    return medians[worst], hands[worst]


def bench_openings(sets: list[HandSet]) -> dict[str, list[int]]:
    rule("2. best_opening latency per hand (one Python call per hand, us)")
    for hs in sets:
        print(f"  {hs.name:16s} {hs.recipe}")
    print()
    head = (
        f"  {'set':16s} {'hands':>7s} {'mean':>7s} {'p50':>7s} {'p99':>7s} {'max':>8s}"
        f"  {'p99<=100us':>10s} {'max<=2ms':>8s}  {'worst hand re-timed':>19s}"
    )
    print(head)
    all_times = {}
    worst_hands = []
    for hs in sets:
        variant = hs.variant

        def best(h: Any, v: ramino.Variant = variant) -> object:
            return ramino.best_opening(h, v)

        time_calls(best, hs.hands[:200])  # warm-up
        times = time_calls(best, hs.hands)
        all_times[hs.name] = times
        us = sorted(t / 1e3 for t in times)
        p99, top = percentile(us, 0.99), us[-1]
        worst_us, worst_hand = retime_worst(hs, times)
        worst_hands.append((hs.name, worst_us, worst_hand))
        print(
            f"  {hs.name:16s} {len(us):7d} {statistics.fmean(us):7.1f} {percentile(us, 0.5):7.1f}"
            f" {p99:7.1f} {top:8.1f}  {mark(p99 <= P99_TARGET_US):>10s}"
            f" {mark(top <= MAX_TARGET_US):>8s}  {worst_us:15.1f} us"
        )
    print()
    print("  max is the slowest single timed call (includes scheduler noise); 'worst hand")
    print("  re-timed' is the highest median of 21 calls among the 20 slowest hands:")
    for name, worst_us, hand in worst_hands:
        print(f"    {name:16s} {worst_us:7.1f} us  {show(hand)}")
    return all_times


# ---------------------------------------------------------------- 3. reference


def load_reference() -> Callable[..., Any] | str:
    """The brute-force reference function, or why it is not available."""
    if not REFERENCE.exists():
        return f"{REFERENCE.relative_to(ROOT)} does not exist yet"
    try:
        spec = importlib.util.spec_from_file_location("ramino_bench_reference", REFERENCE)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    except Exception as exc:  # a broken reference is reported, not fatal
        return f"importing {REFERENCE.relative_to(ROOT)} failed: {exc!r}"
    fn: object = getattr(module, "ref_best_opening", None)
    if not callable(fn):
        return f"{REFERENCE.relative_to(ROOT)} has no function ref_best_opening"
    return fn


def opening_value(result: Any) -> int | None:
    """The opening value from a result of ours or of the reference, whatever its shape."""
    if result is None:
        return None
    if isinstance(result, int | float):
        return int(result)
    if isinstance(result, dict):
        return opening_value(result.get("value"))
    if isinstance(result, tuple | list) and result:
        return opening_value(result[0])
    value = getattr(result, "value", None)
    return None if value is None else int(value)


def time_reference(
    ref: Callable[..., Any],
    hs: HandSet,
    hands: list[list[ramino.Card]],
    memoise: bool,
    budget_s: float,
) -> tuple[list[int], int, list[str]]:
    """The reference's time on each hand (until the budget runs out), how many
    of its answers agree with ours, and the failures and disagreements."""
    params = hs.variant.to_dict()
    ref_ns: list[int] = []
    agree = 0
    problems: list[str] = []
    deadline = time.perf_counter() + budget_s
    gc.collect()
    for hand in hands:
        texts = [str(c) for c in hand]
        try:
            t0 = time.perf_counter_ns()
            result = ref(texts, params, memoise=memoise)
            ref_ns.append(time.perf_counter_ns() - t0)
        except Exception as exc:  # report the reference's failure, keep going
            problems.append(f"{' '.join(texts)}: {exc!r}")
            break
        ours = opening_value(ramino.best_opening(hand, hs.variant))
        theirs = opening_value(result)
        if ours == theirs:
            agree += 1
        elif len(problems) < 3:
            problems.append(f"{' '.join(texts)}: ramino {ours}, reference {theirs}")
        if time.perf_counter() > deadline:
            break
    return ref_ns, agree, problems


def bench_reference(
    sets: list[HandSet], times: dict[str, list[int]], n: int, budget_s: float
) -> None:
    rule("3. speed-up of best_opening over the brute-force reference (tests/reference.py)")
    ref = load_reference()
    if isinstance(ref, str):
        print(f"  not measured: {ref}.")
        return
    print(
        f"  up to {n} hands a set (the first of section 2), at most {budget_s:.0f} s a set and "
        "reference mode;\n  'brute force': ref_best_opening(..., memoise=False), every collection "
        "of disjoint melds\n  enumerated; 'memoised': the same search keeping the answer per "
        "remaining hand (what the tests run)"
    )
    print(
        f"  {'set':16s} {'mode':12s} {'hands':>6s} {'reference':>12s} {'ramino':>9s}"
        f" {'speed-up':>10s}  {'>=1000x':>7s} {'agree':>9s}"
    )
    for hs in sets:
        for mode, memoise in (("brute force", False), ("memoised", True)):
            ref_ns, agree, problems = time_reference(ref, hs, hs.hands[:n], memoise, budget_s)
            if not ref_ns:
                print(f"  {hs.name:16s} {mode:12s} reference failed: {problems[:1]}")
                continue
            done = len(ref_ns)
            ref_us = statistics.fmean(ref_ns) / 1e3
            ours_us = statistics.fmean(times[hs.name][:done]) / 1e3
            speedup = ref_us / ours_us
            print(
                f"  {hs.name:16s} {mode:12s} {done:6d} {ref_us:9.0f} us {ours_us:6.1f} us"
                f" {speedup:9.0f}x  {mark(speedup >= SPEEDUP_TARGET):>7s} {agree:4d}/{done:<4d}"
            )
            for line in problems:
                print(f"    {line}")


# ---------------------------------------------------------------- 4. analyze_many


def bench_batch(hs: HandSet, repeat: int = 3) -> None:
    rule("4. analyze_many throughput (batch entry point, releases the GIL)")
    hands = hs.hands
    variant = hs.variant
    n = len(hands)
    half = n // 2
    ramino.analyze_many(hands[:200], variant)  # warm-up

    def one_thread() -> tuple[float, float]:
        c0, t0 = time.process_time(), time.perf_counter()
        ramino.analyze_many(hands, variant)
        return time.perf_counter() - t0, time.process_time() - c0

    def two_threads() -> tuple[float, float]:
        barrier = threading.Barrier(3)

        def work(part: list[Hand]) -> None:
            barrier.wait()
            ramino.analyze_many(part, variant)

        threads = [
            threading.Thread(target=work, args=(hands[:half],)),
            threading.Thread(target=work, args=(hands[half:],)),
        ]
        for t in threads:
            t.start()
        barrier.wait()
        c0, t0 = time.process_time(), time.perf_counter()
        for t in threads:
            t.join()
        return time.perf_counter() - t0, time.process_time() - c0

    gc.collect()
    one, one_cpu = min(one_thread() for _ in range(repeat))
    two, two_cpu = min(two_threads() for _ in range(repeat))
    print(f"  set: {hs.name}, {n} hands (best opening and min deadwood of each), best of {repeat}")
    print(f"  {'':34s} {'hands/s':>10s} {'us/hand':>8s} {'CPU/wall':>8s}")
    print(
        f"  {f'1 thread,  one call of {n} hands':34s} {n / one:10,.0f} {one / n * 1e6:8.2f}"
        f" {one_cpu / one:8.2f}"
    )
    print(
        f"  {f'2 threads, two calls of {half} hands':34s} {n / two:10,.0f} {two / n * 1e6:8.2f}"
        f" {two_cpu / two:8.2f}"
    )
    print(f"  2-thread speed-up {one / two:.2f}x (~1x if the GIL were held; 2 idle cores needed)")

    # The part that holds the GIL: reading the hands and building the results.
    # Three-card hands cost the same conversion and next to no search.
    small = [h[:3] for h in hands]

    def convert() -> float:
        t0 = time.perf_counter()
        ramino.analyze_many(small, variant)
        return time.perf_counter() - t0

    held = min(convert() for _ in range(repeat)) / n
    total = one / n
    bound = total / (held + (total - held) / 2)
    print(
        f"  conversion with the GIL held ~{held * 1e6:.2f} us/hand (3-card hands): speed-up"
        f" bound on 2 cores {bound:.2f}x"
    )

    # Progress of Python code in the main thread while another thread is inside
    # analyze_many: ~0 if the call held the GIL throughout, high if it is
    # released; unlike the speed-up this shows even when another process takes
    # the second core.
    def spin(done: list[bool], seconds: float) -> float:
        count = 0
        clock = time.perf_counter
        t0 = clock()
        end = t0 + seconds
        while not done[0] and clock() < end:
            count += 1
        return count / (clock() - t0)

    done = [False]

    def worker() -> None:
        ramino.analyze_many(hands, variant)
        done[0] = True

    thread = threading.Thread(target=worker)
    thread.start()
    busy = spin(done, 3600.0)
    thread.join()
    alone = spin([False], min(one, 2.0))
    print(
        f"  Python progress of the main thread during a concurrent analyze_many:"
        f" {busy / alone:.0%} of its rate alone"
    )
    print("  (0% would mean the GIL is held for the whole call)")


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=None, help="hands per set (100000)")
    parser.add_argument("--quick", action="store_true", help="5000 hands per set")
    parser.add_argument("--seed", type=int, default=2, help="seed of the hand generator")
    parser.add_argument("--ref-hands", type=int, default=300, help="hands a set, reference")
    parser.add_argument(
        "--ref-seconds", type=float, default=30.0, help="time budget of the reference per set"
    )
    parser.add_argument(
        "--sections", default="1234", help="the sections to run, e.g. 1 or 14 (3 runs 2 too)"
    )
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="LABEL=PATH",
        help="another build of ramino._core (a .so) timed in section 1 beside ours; repeatable",
    )
    args = parser.parse_args(argv)
    baselines = []
    for item in args.baseline:
        label, sep, path = item.partition("=")
        if not sep or not Path(path).is_file():
            parser.error(f"--baseline wants LABEL=PATH of a built extension, not {item!r}")
        baselines.append((label, Path(path)))
    n = args.hands if args.hands is not None else (5000 if args.quick else 100_000)

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print("Ramino core benchmarks (bench/core_bench.py): figures only, nothing asserted")
    print(f"  date     {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"  python   {sys.version.split()[0]} on {platform.platform()}")
    print(f"  cpus     {os.cpu_count()}, load average {load}")
    print(f"  hands    {n} per set, seed {args.seed}")

    rng = random.Random(args.seed)
    gin = ramino.Variant("rummy")
    gin_hands = random_hands(rng, gin, 10, n)  # dealt whatever runs: the same sets follow
    if "1" in args.sections:
        bench_gin(gin, gin_hands, baselines)
    sets = opening_sets(rng, n)
    if "2" in args.sections or "3" in args.sections:
        times = bench_openings(sets)
        if "3" in args.sections:
            bench_reference(sets, times, args.ref_hands, args.ref_seconds)
    if "4" in args.sections:
        bench_batch(sets[0])


if __name__ == "__main__":
    main()
