"""The control comparison's coverage, measured by a placebo (not a timing).

Avatars are made once from the whole Adult table (kpr's generator, k and seed given),
so any split of Adult into an "original" and a "control" is a placebo: both parts
trained the avatars and the true difference is 0. For each of ``--splits`` random
splits (seeded 0, 1, ...), ``kpr.evaluate(original, avatars, control=control)`` gives
the size-fair difference and its interval. Printed: the mean difference and its
standard error, the spread of the differences over the splits, how many intervals hold
0 (coverage), the mean half-width against 1.96 x that spread (how conservative the
interval is), and the mean difference when the control rows equal to an original row
are removed from the control (the advice kpr no longer gives): the bias it causes.

    python benchmarks/bench_control_placebo.py                 # 40 splits, 24,000 / rest
    python benchmarks/bench_control_placebo.py --splits 60 --subsets 10
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import polars as pl

import kpr
from kpr.avatar import avatarize

ADULT = Path(__file__).resolve().parents[1] / "src" / "kpr" / "data" / "adult.parquet"
KNOWN = ["age", "sex", "race", "marital_status", "education", "native_country"]


def _summary(name: str, values: list[float]) -> str:
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / len(values) ** 0.5
    return f"{name}: mean {mean:+.3f} points (standard error {se:.3f}, t = {mean / se:+.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adult", type=Path, default=ADULT)
    parser.add_argument("--train", type=int, default=24_000, help="rows of the original")
    parser.add_argument("--splits", type=int, default=40)
    parser.add_argument("--subsets", type=int, default=20, help="control_subsets")
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="the avatars' seed")
    args = parser.parse_args()
    start = time.perf_counter()
    table = pl.read_parquet(args.adult)
    avatars = avatarize(table, k=args.k, seed=args.seed)
    kept: list[float] = []
    dropped: list[float] = []
    half: list[float] = []
    covered = 0
    shared = []
    for split in range(args.splits):
        order = np.random.default_rng(split).permutation(table.height)
        original = table[np.sort(order[: args.train])]
        control = table[np.sort(order[args.train :])]
        c = kpr.evaluate(
            original, avatars, known=KNOWN, control=control, control_subsets=args.subsets
        ).control
        low, high = c.difference_interval
        kept.append(c.difference)
        half.append((high - low) / 2.0)
        covered += low <= 0.0 <= high
        shared.append(c.shared_share)
        fresh = control.join(original.unique(), on=table.columns, how="anti", nulls_equal=True)
        d = kpr.evaluate(
            original, avatars, known=KNOWN, control=fresh, control_subsets=args.subsets
        ).control
        dropped.append(d.difference)
    spread = statistics.stdev(kept)
    print(
        f"Adult placebo: {table.height:,} rows, avatars k = {args.k} (seed {args.seed}) of "
        f"the whole table; {args.splits} splits {args.train:,} / {table.height - args.train:,}"
        f"; {args.subsets} subsets; known {', '.join(KNOWN)}"
    )
    print(_summary("control minus original, shared rows kept   ", kept))
    print(_summary("control minus original, shared rows removed", dropped))
    print(f"control rows equal to an original row: mean {100 * statistics.fmean(shared):.2f} %")
    print(f"spread of the differences over the splits: {spread:.3f} points")
    print(f"intervals holding 0: {covered} / {args.splits}")
    mean_half = statistics.fmean(half)
    print(
        f"mean half-width {mean_half:.3f} points against 1.96 x spread {1.96 * spread:.3f}: "
        f"x{mean_half / (1.96 * spread):.2f}"
    )
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
