"""Time ``kpr.avatar.distance_metrics`` on synthetic data: 15 mixed columns, an original
and a synthetic table of the same size (default 100,000 x 100,000) and a holdout.

    python benchmarks/bench_distance.py                  # 100,000 rows, 3 repeats
    python benchmarks/bench_distance.py --rows 20000 --repeats 5

Prints each run's seconds and their median.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import polars as pl

from kpr.avatar import distance_metrics


def mixed(rows: int, seed: int) -> pl.DataFrame:
    """15 columns: 8 numeric (some missing), 7 categorical with 2..300 categories,
    correlated through a latent factor."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=rows)
    cols: dict[str, object] = {}
    for j in range(8):
        x = np.round(10 * j + (j + 1) * (latent + rng.normal(size=rows)), j % 3)
        if j % 3 == 0:
            x[rng.random(rows) < 0.05] = np.nan
        cols[f"num{j}"] = x
    for j, levels in enumerate((2, 3, 5, 12, 40, 100, 300)):
        codes = np.clip(
            np.floor((latent + rng.normal(size=rows)) * levels / 6 + levels / 2), 0, levels - 1
        ).astype(np.int64)
        cols[f"cat{j}"] = np.array([f"c{i}" for i in range(levels)])[codes]
    return pl.DataFrame(cols, nan_to_null=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    original, synthetic, holdout = (mixed(args.rows, s) for s in (0, 1, 2))
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        out = distance_metrics(original, synthetic, holdout)
        times.append(time.perf_counter() - start)
        print(f"  {times[-1]:.2f} s", flush=True)
    print(out.text())
    print(
        f"distance_metrics, {args.rows:,} x {args.rows:,} rows (+ holdout {args.rows:,}), "
        f"15 columns: median {statistics.median(times):.2f} s over {args.repeats} runs"
    )


if __name__ == "__main__":
    main()
