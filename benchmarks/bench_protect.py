"""Benchmarks of ``kpr.protect``.

``--case large``: 1M rows per side, 10 columns of which 5 are known (age,
income, sex, region, education), from about 96 % to 99 %; prints protect's time
against one ``kpr.evaluate`` of the same tables in the same process (protect
runs two evaluations per attack itself: before, and the verification after).
Two of the known variables are numeric (age, an integer; income, a lognormal
rounded to the unit, nearly continuous). ``--rule robust`` holds the window rule
too (its verification included; the collateral subsets are off by default above
100k rows). Each run is a fresh subprocess, so its peak resident memory
(``ru_maxrss``: numpy and polars allocate outside ``tracemalloc``) is its own;
``--profile N`` prints the N costliest functions of one run (cProfile, cumulative).
Each run also reports protect's CPU time over every thread (``time.process_time``):
on a machine shared with other jobs it changes less than the wall time.
Fidelity and distances are off here (``utility=False, distances=False``): they
measure the release, not the optimiser.

``--case adult``: kpr's avatars of the first 24,000 rows of the bundled Adult
data (``kpr avatarize --k 20 --seed 0``), known = the six demo variables, for
targets 97 % and 99 %: protect's default (swap, shift) against the baselines
*raise k* (what ``kpr tune`` does: the whole table regenerated at k = 40, 80, 160),
*delete* and *suppress* (protect restricted to that move), and protect's
*regenerate* alone (the linking avatars redrawn at k = 40, with the pairing), each with the cells
changed, the mean Hellinger distance and the correlation difference to the
originals (``kpr.utility``) and the mean change of the pairwise associations
from the unprotected avatars.

    python benchmarks/bench_protect.py --case large [--rows 1000000] [--repeats 3]
        [--rule robust] [--profile 25]
    python benchmarks/bench_protect.py --case adult
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import time
from importlib.resources import files
from typing import Any

import numpy as np
import polars as pl

import kpr
from kpr.avatar import avatarize, generate

KNOWN = ["age", "income", "sex", "region", "education"]
REGIONS, EDUCATIONS = 10, 5
DEMO_KNOWN = ["age", "sex", "race", "marital_status", "education", "native_country"]


def large_tables(
    rows: int, seed: int = 0, close: float = 0.06
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Originals, and avatars of which a share ``close`` are near copies (the rest
    drawn independently from the same margins): a rate near 96 %."""
    rng = np.random.default_rng(seed)

    def draw(n: int) -> dict[str, Any]:
        return {
            "age": rng.integers(18, 91, n),
            "income": np.round(rng.lognormal(10.0, 0.6, n), 0),
            "sex": rng.choice(np.array(["F", "M"]), n),
            "region": rng.choice(np.array([f"R{i:02d}" for i in range(REGIONS)]), n),
            "education": rng.choice(np.array([f"E{i:02d}" for i in range(EDUCATIONS)]), n),
            "hours": rng.integers(10, 60, n),
            "score": np.round(rng.normal(50, 10, n), 2),
            "children": rng.integers(0, 5, n),
            "job": rng.choice(np.array([f"J{i:02d}" for i in range(30)]), n),
            "city": rng.choice(np.array([f"C{i:03d}" for i in range(200)]), n),
        }

    original = pl.DataFrame(draw(rows))
    fresh = pl.DataFrame(draw(rows))
    near = rng.random(rows) < close
    noisy = original.with_columns(
        (pl.col("age") + pl.Series(rng.integers(-1, 2, rows))).alias("age"),
        (pl.col("income") * pl.Series(rng.normal(1.0, 0.01, rows))).round(0).alias("income"),
    )
    avatars = pl.concat([noisy.filter(pl.Series(near)), fresh.filter(pl.Series(~near))])
    return original, avatars.sample(fraction=1.0, shuffle=True, seed=seed)


def large_run(rows: int, target: float, rule: str, profile: int) -> dict[str, Any]:
    """One protect and one evaluate of the large tables, in this process: times,
    the result and the process's peak resident memory."""
    original, avatars = large_tables(rows)
    profiler = cProfile.Profile() if profile else None
    start, cpu = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.enable()
    _, result = kpr.protect(
        original, avatars, KNOWN, target=target, distances=False, utility=False, rule=rule
    )
    if profiler is not None:
        profiler.disable()
    took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
    start = time.perf_counter()
    kpr.evaluate(original, avatars, KNOWN)
    evaluate = time.perf_counter() - start
    if profiler is not None:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(profile)
    w = result.worst_after
    window = [
        c
        for c in result.collateral
        if c.rule == "window" and c.known == tuple(KNOWN) and c.tolerance == 0.05
    ]
    return {
        "protect": took,
        "protect_cpu": took_cpu,
        "evaluate": evaluate,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "before": w.before.rate,
        "after": w.after.rate,
        "window": [window[0].before.rate, window[0].after.rate] if window else None,
        "cells": result.cells_total,
        "moves": str(result.moves_used),
        "met": result.met,
    }


def bench_large(rows: int, repeats: int, target: float, rule: str, profile: int) -> None:
    """``repeats`` runs, each in a fresh subprocess (its own peak memory)."""
    runs = []
    for _ in range(repeats):
        command = [sys.executable, __file__, "--one", "--rows", str(rows), "--target", str(target)]
        command += ["--rule", rule, "--profile", str(profile)]
        load = os.getloadavg()[0]
        done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
        runs.append(json.loads(done.stdout.splitlines()[-1]))
        # each run as it ends, with the 1-minute load before and after (a shared machine)
        print(f"run {len(runs)}: protect {runs[-1]['protect']:.1f} s (CPU, every thread: "
              f"{runs[-1]['protect_cpu']:.1f} s), peak RSS "
              f"{runs[-1]['peak_mib']:,.0f} MiB, load {load:.2f} -> {os.getloadavg()[0]:.2f}",
              file=sys.stderr, flush=True)  # fmt: skip
    r = runs[-1]
    window = (
        "" if r["window"] is None else " (window rule {:.2f} % -> {:.2f} %)".format(*r["window"])
    )
    print(
        f"{rows:,} rows per side, 10 columns, 5 known, rule {rule}: {r['before']:.2f} % -> "
        f"{r['after']:.2f} %{window} (target {target}), {r['cells']:,} cells changed "
        f"({r['moves']}), met={r['met']}"
    )
    times = [x["protect"] for x in runs]
    p = statistics.median(times)
    e = statistics.median(x["evaluate"] for x in runs)
    peak = statistics.median(x["peak_mib"] for x in runs)
    print(
        f"protect: median {p:.1f} s over {repeats} run(s) {[round(t, 1) for t in times]}; "
        f"one kpr.evaluate: median {e:.2f} s; ratio {p / e:.1f}x; "
        f"peak RSS median {peak:,.0f} MiB; protect's CPU time (every thread): median "
        f"{statistics.median(x['protect_cpu'] for x in runs):.1f} s"
    )
    print(f"load: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _adult() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The originals, kpr's avatars of them (as ``avatarize(k=20, seed=0)``) and the pairing."""
    data = pl.read_parquet(str(files("kpr") / "data" / "adult.parquet"))
    original = data.head(24_000)
    made = generate(original, k=20, seed=0)
    assert isinstance(made.avatars, pl.DataFrame)
    pairing = pl.DataFrame({"original_row": np.arange(original.height), "avatar_row": made.pairing})
    return original, made.avatars, pairing


def _fidelity(original: pl.DataFrame, avatars: pl.DataFrame, table: pl.DataFrame) -> list[str]:
    u = kpr.utility(original, table)
    base = kpr.utility(original, avatars)
    keys = ["column_1", "column_2"]
    pairs = base.pairs.select(*keys, b="synthetic_association").join(
        u.pairs.select(*keys, a="synthetic_association"), on=keys
    )
    change = (pairs["a"] - pairs["b"]).abs().fill_nan(None).mean()
    return [f"{u.mean_hellinger:.4f}", f"{u.correlation_difference:.2f} %", f"{change:.5f}"]


def protect_row(
    original: pl.DataFrame,
    avatars: pl.DataFrame,
    pairing: pl.DataFrame,
    target: float,
    label: str,
    moves: str,
) -> str:
    """One row of the Adult table: protect with ``moves`` to ``target``."""
    t0 = time.perf_counter()
    table, r = kpr.protect(
        original, avatars, DEMO_KNOWN, target=target, moves=moves,
        pairing=pairing if "regenerate" in moves else None, distances=False, utility=False,
    )  # fmt: skip
    took = time.perf_counter() - t0
    after = f"{r.worst_after.after.rate:.2f} %" + ("" if r.met else " (not met)")
    fid = _fidelity(original, avatars, table)
    return (
        f"| {target:g} % | {label} | {after} | {r.cells_total:,} | {r.rows_deleted:,} | "
        f"{' | '.join(fid)} | {took:.1f} s |"
    )


def bench_adult() -> None:
    original, avatars, pairing = _adult()
    start = kpr.evaluate(original, avatars, DEMO_KNOWN).rate
    print(f"Adult, 24,000 rows, kpr avatars (k = 20, seed 0): KPR {start:.2f} %")
    base = _fidelity(original, avatars, avatars)
    print("| target | method | KPR after | cells changed | rows deleted | mean Hellinger | "
          "correlation difference | mean association change | time |")  # fmt: skip
    print("|---|---|---|---:|---:|---|---|---|---:|")
    print(f"| — | avatars as made | {start:.2f} % | 0 | 0 | {' | '.join(base)} | |")
    for target in (97.0, 99.0):
        for label, moves in (
            ("protect (swap, shift)", "swap,shift"),
            ("suppress", "suppress"),
            ("delete", "delete"),
            ("regenerate (k = 40)", "regenerate"),
        ):
            print(protect_row(original, avatars, pairing, target, label, moves))
    # raise k: what kpr tune does, regenerate the whole table at a larger k
    for k in (40, 80, 160):
        t0 = time.perf_counter()
        regenerated = avatarize(original, k=k, seed=0)
        assert isinstance(regenerated, pl.DataFrame)
        rate = kpr.evaluate(original, regenerated, DEMO_KNOWN).rate
        took = time.perf_counter() - t0
        fid = _fidelity(original, avatars, regenerated)
        print(f"| 97 % / 99 % | raise k to {k} | {rate:.2f} % | every cell regenerated | 0 | "
              f"{' | '.join(fid)} | {took:.1f} s |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["large", "adult"], default="large")
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=1_000_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--target", type=float, default=99.0)
    parser.add_argument("--rule", choices=["class", "robust"], default="class")
    parser.add_argument("--profile", type=int, default=0, help="print N functions (cProfile)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(large_run(args.rows, args.target, args.rule, args.profile)))
    elif args.case == "large":
        bench_large(args.rows, args.repeats, args.target, args.rule, args.profile)
    else:
        bench_adult()


if __name__ == "__main__":
    main()
