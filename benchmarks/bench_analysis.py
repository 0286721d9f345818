"""Benchmark of ``kpr.analysis``: the known-variable sweep and the window attack.

Generates an original table of ``--rows`` individuals with 10 candidate known
variables of realistic cardinalities (5 numeric, 5 categorical) and an avatar
table made by perturbing it, then times:

* the sweep of every subset of up to ``--max-known`` candidates (175 attacks
  for 10 candidates and 3), in process; ``--reference`` also times one
  ``evaluate_loaded`` per subset and checks that every subset's counts agree;
* the window attack with 3 numeric + 2 categorical known variables;
* with ``--cli``: the whole ``kpr analyze`` command against one whole
  ``kpr evaluate`` with all candidates known, each a fresh process on the same
  Parquet files, run in turn; prints both medians and the median ratio.

Prints the median of ``--repeats`` runs. Examples::

    python benchmarks/bench_analysis.py --rows 1000000 --repeats 3 --cli
    python benchmarks/bench_analysis.py --rows 10000000 --repeats 1 --no-window
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

CANDIDATES = [
    "age", "sex", "region", "income", "height",
    "weight", "education", "marital_status", "children", "occupation",
]  # fmt: skip
WINDOW_KNOWN = ["age", "height", "weight", "sex", "region"]


def make_tables(rows: int, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """An original table and avatars that resemble it (noise on numerics, 30 % of
    some categorical values redrawn, rows shuffled)."""
    rng = np.random.default_rng(seed)
    levels = {
        "sex": ["F", "M"],
        "region": [f"region_{i:02d}" for i in range(20)],
        "education": [f"edu_{i}" for i in range(16)],
        "marital_status": [f"ms_{i}" for i in range(7)],
        "occupation": [f"occ_{i:02d}" for i in range(15)],
    }

    def codes(n: int) -> dict[str, np.ndarray]:
        return {name: rng.integers(0, len(lv), n) for name, lv in levels.items()}

    original: dict[str, np.ndarray] = {
        "age": rng.integers(18, 91, rows),
        "income": np.round(rng.lognormal(10.3, 0.6, rows), 0),
        "height": np.round(rng.normal(170.0, 10.0, rows), 1),
        "weight": np.round(rng.normal(72.0, 13.0, rows), 1),
        "children": rng.poisson(1.3, rows),
        **codes(rows),
    }
    avatars = dict(original)
    noise = np.round(rng.normal(0.0, 2.0, rows)).astype(np.int64)
    avatars["age"] = np.clip(original["age"] + noise, 18, 90)
    avatars["income"] = np.round(original["income"] * rng.lognormal(0.0, 0.05, rows), 0)
    avatars["height"] = np.round(original["height"] + rng.normal(0.0, 2.0, rows), 1)
    avatars["weight"] = np.round(original["weight"] + rng.normal(0.0, 2.0, rows), 1)
    redraw = codes(rows)
    for name in ("region", "education", "occupation", "marital_status"):
        avatars[name] = np.where(rng.random(rows) < 0.3, redraw[name], original[name])
    perm = rng.permutation(rows)
    avatars = {k: v[perm] for k, v in avatars.items()}

    def frame(data: dict[str, np.ndarray]) -> pl.DataFrame:
        cols = {
            name: pl.Series(levels[name]).gather(values) if name in levels else values
            for name, values in data.items()
        }
        return pl.DataFrame(cols).select(CANDIDATES)

    return frame(original), frame(avatars)


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Median wall time of ``repeats`` runs (the CPU time, all threads, is printed
    too: on a shared machine it tells contention from work)."""
    times, cpu, out = [], [], None
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(f"  (cpu {statistics.median(cpu):.2f} s, load average {os.getloadavg()[0]:.1f})")
    return statistics.median(times), out


def cli_ratio(original: pl.DataFrame, avatars: pl.DataFrame, repeats: int, max_known: int) -> None:
    """Whole ``kpr analyze`` vs whole ``kpr evaluate`` (all candidates known),
    fresh processes in turn on the same Parquet files; the ratio pair by pair."""
    with tempfile.TemporaryDirectory(prefix="kpr-bench-") as tmp:
        o, a = Path(tmp, "original.parquet"), Path(tmp, "avatars.parquet")
        original.write_parquet(o)
        avatars.write_parquet(a)
        kpr = [sys.executable, "-m", "kpr"]
        names = ",".join(CANDIDATES)
        commands = {
            "analyze": [*kpr, "analyze", str(o), str(a), "-c", names,
                        "--max-known", str(max_known), "-q"],
            "evaluate": [*kpr, "evaluate", str(o), str(a), "-k", names, "-q"],
        }  # fmt: skip
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(repeats):
            for name, command in commands.items():
                start = time.perf_counter()
                subprocess.run(command, check=True, capture_output=True)
                times[name].append(time.perf_counter() - start)
    ratios = [x / y for x, y in zip(times["analyze"], times["evaluate"], strict=True)]
    print(
        f"kpr analyze (whole command): {statistics.median(times['analyze']):.2f} s; "
        f"kpr evaluate, all {len(CANDIDATES)} known: {statistics.median(times['evaluate']):.2f} s; "
        f"sweep ratio {statistics.median(ratios):.1f}x (median of {repeats} pairs, "
        f"load average {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-known", type=int, default=3)
    parser.add_argument(
        "--reference",
        action="store_true",
        help="also time the sweep through kpr.measure.evaluate_loaded (slow)",
    )
    parser.add_argument("--cli", action="store_true", help="also time the whole commands")
    parser.add_argument("--no-window", action="store_true", help="skip the window attack")
    args = parser.parse_args()

    from kpr.analysis import sweep, window_attack

    start = time.perf_counter()
    original, avatars = make_tables(args.rows)
    print(f"generated {args.rows:,} rows per side in {time.perf_counter() - start:.1f} s")

    seconds, result = timed(
        lambda: sweep(original, avatars, CANDIDATES, max_known=args.max_known), args.repeats
    )
    print(
        f"sweep: {len(result.entries)} attacks on {args.rows:,} rows per side in "
        f"{seconds:.2f} s (median of {args.repeats})"
    )
    for entry in result.entries[:5]:
        print(f"  {entry.rate:8.4f} %  {', '.join(entry.known)}")

    if args.reference:
        import itertools

        from kpr.measure import evaluate_loaded, load
        from kpr.metric.attack import make_attack

        def reference() -> int:
            every = make_attack(CANDIDATES)
            prepared = load(original, avatars, every, materialize=True).pair
            count = 0
            for size in range(1, args.max_known + 1):
                for subset in itertools.combinations(CANDIDATES, size):
                    r = evaluate_loaded(prepared, every.on(subset))
                    entry = result.rate_of(subset)
                    got = (entry.unique_originals, entry.linked)
                    assert got == (r.unique_originals, r.linked), subset
                    count += 1
            return count

        seconds, count = timed(reference, 1)
        print(
            f"reference (evaluate_loaded per subset): {count} attacks in {seconds:.2f} s; "
            "every subset's |U| and |S| equal the sweep's"
        )

    if args.cli:
        cli_ratio(original, avatars, args.repeats, args.max_known)
    if args.no_window:
        return

    seconds, window = timed(lambda: window_attack(original, avatars, WINDOW_KNOWN), args.repeats)
    print(
        f"window attack ({', '.join(WINDOW_KNOWN)}): {seconds:.2f} s (median of "
        f"{args.repeats}); rate {window.rate:.4f} %"
    )


if __name__ == "__main__":
    main()
