"""Time ``kpr.avatar.avatarize`` with the weighted draw (default) against the weighted
mode, in the same process (runs interleaved: mode, draw, mode, draw...), and report
peak memory.

    python benchmarks/bench_avatarize.py                      # Adult table, k=20, 3 repeats
    python benchmarks/bench_avatarize.py --rows 1000000 --repeats 1   # synthetic, 10 columns
    python benchmarks/bench_avatarize.py --adult-sweep        # privacy/utility for k = 2..40

Peak RSS is the whole process's (``resource.getrusage``), data loading included.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

from kpr.avatar import avatarize, generate, hidden_rate, median_local_cloaking, utility
from kpr.avatar.generator import Decoding, Synthesis

ADULT = Path(__file__).resolve().parents[1] / "src" / "kpr" / "data" / "adult.parquet"


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def synthetic(rows: int, seed: int = 0) -> pl.DataFrame:
    """10 mixed columns (5 numeric, 5 categorical with 2..200 categories), correlated
    through a latent factor, with some missing values."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=rows)
    age = np.clip(np.rint(45 + 12 * latent + 8 * rng.normal(size=rows)), 18, 99).astype(np.int64)
    income = np.rint(np.exp(10 + 0.4 * latent + 0.5 * rng.normal(size=rows)) / 100) * 100
    bmi = np.round(25 + 2 * latent + 3 * rng.normal(size=rows), 1)
    bmi[rng.random(rows) < 0.05] = np.nan
    score = rng.random(rows).round(4)
    visits = rng.poisson(np.exp(1 + 0.3 * latent)).astype(np.int64)

    def category(n_levels: int, prefix: str) -> np.ndarray:
        codes = np.clip(
            np.floor((latent + rng.normal(size=rows)) * n_levels / 6 + n_levels / 2),
            0,
            n_levels - 1,
        ).astype(np.int64)
        return np.array([f"{prefix}{i}" for i in range(n_levels)])[codes]

    region = category(12, "r").astype(object)
    region[rng.random(rows) < 0.03] = None
    return pl.DataFrame(
        {
            "age": age,
            "income": income.astype(np.int64),
            "bmi": bmi,
            "score": score,
            "visits": visits,
            "sex": category(2, "s"),
            "grade": category(5, "g"),
            "region": pl.Series(region, dtype=pl.String),
            "job": category(50, "j"),
            "site": category(200, "site"),
        },
        nan_to_null=True,
    )


def time_runs(
    df: pl.DataFrame, k: int, ncp: int, repeats: int, seed: int, synthesis: Synthesis
) -> dict[Decoding, list[float]]:
    """Seconds per run of each decoding, the two interleaved so load affects both alike."""
    times: dict[Decoding, list[float]] = {"mode": [], "draw": []}
    for r in range(repeats):
        for decoding in times:
            start = time.perf_counter()
            out = avatarize(
                df, k=k, ncp=ncp, seed=seed + r, synthesis=synthesis,
                categorical_decoding=decoding,
            )  # fmt: skip
            times[decoding].append(time.perf_counter() - start)
            assert out.shape == df.shape
            del out
    return times


def sweep(df: pl.DataFrame, ks: list[int], ncp: int, seed: int, synthesis: Synthesis) -> None:
    """Privacy (hidden rate, median local cloaking) and utility (mean Hellinger) per k."""
    print(
        f"{'k':>4} {'hidden rate %':>14} {'median LC':>10} {'mean Hellinger':>15} "
        f"{'corr diff':>10} {'generate s':>11} {'metrics s':>10}"
    )
    for k in ks:
        start = time.perf_counter()
        gen = generate(df, k=k, ncp=ncp, seed=seed, synthesis=synthesis)
        t_gen = time.perf_counter() - start
        start = time.perf_counter()
        hr = hidden_rate(gen)
        lc = median_local_cloaking(gen)
        u = utility(df, gen.avatars)
        t_met = time.perf_counter() - start
        print(
            f"{k:>4} {hr:>14.2f} {lc:>10.1f} {u.mean_hellinger:>15.4f} "
            f"{u.correlation_difference:>10.4f} {t_gen:>11.2f} {t_met:>10.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows",
        type=int,
        default=None,
        help="use a synthetic table of this many rows instead of Adult",
    )
    parser.add_argument("--adult", type=Path, default=ADULT, help="path of the Adult parquet")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("-k", "--k", type=int, default=20)
    parser.add_argument("--ncp", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--adult-sweep",
        action="store_true",
        help="hidden rate, median local cloaking, mean Hellinger for several k",
    )
    parser.add_argument(
        "--synthesis",
        choices=["full", "reduced"],
        default="full",
        help="mix neighbours over every FAMD axis (default) or only the ncp kept ones",
    )
    parser.add_argument("--ks", type=str, default="2,5,10,20,40", help="k values of the sweep")
    args = parser.parse_args()

    if args.adult_sweep:
        df = pl.read_parquet(args.adult)
        print(
            f"Adult {df.shape[0]} x {df.shape[1]}, ncp={args.ncp}, seed={args.seed}, "
            f"synthesis={args.synthesis}"
        )
        sweep(df, [int(k) for k in args.ks.split(",")], args.ncp, args.seed, args.synthesis)
        print(f"peak RSS {peak_rss_mib():.0f} MiB")
        return

    if args.rows is None:
        df = pl.read_parquet(args.adult)
        label = f"Adult {df.shape[0]} x {df.shape[1]}"
    else:
        df = synthetic(args.rows, args.seed)
        label = f"synthetic {df.shape[0]} x {df.shape[1]}"
    rss_before = peak_rss_mib()
    times = time_runs(df, args.k, args.ncp, args.repeats, args.seed, args.synthesis)
    medians = {d: statistics.median(t) for d, t in times.items()}
    for decoding, runs in times.items():
        print(
            f"{label}, k={args.k}, ncp={args.ncp}, synthesis={args.synthesis}, "
            f"decoding={decoding}: median {medians[decoding]:.2f} s "
            f"over {len(runs)} run(s) {[round(t, 2) for t in runs]}"
        )
    print(
        f"draw / mode: {medians['draw'] / medians['mode']:.3f}; "
        f"peak RSS {peak_rss_mib():.0f} MiB (after loading data: {rss_before:.0f} MiB)"
    )


if __name__ == "__main__":
    main()
