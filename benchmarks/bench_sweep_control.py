"""Time ``kpr.avatar.sweep`` without a control and with the size-fair control
comparison (``control_subsets`` attacks per avatar table), in the same process, runs
interleaved so load affects each alike; medians and the ratio to the run without.

    python benchmarks/bench_sweep_control.py                  # Adult, 24,000 / rest, k=10,20
    python benchmarks/bench_sweep_control.py --subsets 5,20 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import polars as pl

from kpr.avatar import sweep

ADULT = Path(__file__).resolve().parents[1] / "src" / "kpr" / "data" / "adult.parquet"
KNOWN = ["age", "sex", "race", "marital_status", "education", "native_country"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adult", type=Path, default=ADULT)
    parser.add_argument("--train", type=int, default=24_000, help="rows of the original")
    parser.add_argument("--ks", default="10,20")
    parser.add_argument("--subsets", default="20", help="control_subsets values to time")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    df = pl.read_parquet(args.adult)
    original, control = df[: args.train], df[args.train :]
    ks = [int(k) for k in args.ks.split(",")]
    cases: dict[str, int | None] = {"no control": None}
    cases |= {f"control, {s} subsets": int(s) for s in args.subsets.split(",")}
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repeats):
        for name, subsets in cases.items():
            start = time.perf_counter()
            if subsets is None:
                sweep(original, KNOWN, ks=ks)
            else:
                sweep(original, KNOWN, ks=ks, control=control, control_subsets=subsets)
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["no control"])
    print(f"Adult: original {original.height:,} rows, control {control.height:,}, ks {ks}")
    for name, runs in times.items():
        median = statistics.median(runs)
        print(f"{name:>22}: median {median:6.2f} s over {len(runs)} runs, x{median / base:.2f}")


if __name__ == "__main__":
    main()
