"""Who should sort on this processor: the in-memory engine's one sort
(``kpr.engine.inmemory.runs.sort``) by each ``Sorter``, on the arrays it sorts
(float64 with NaN for missing, 8-byte keys and hashes, 4-byte keys), in one process.

``Tuning.sorter`` takes numpy's sort (on one core) where it beat polars' in a
measurement of a few milliseconds (``kpr.engine.tuning.numpy_sorts_quicker``), else
polars' sort. This prints,
per array, the median of ``--repeats`` sorts by each sorter, and numpy's time over
each polars way's: below 1 where numpy is the quicker. The baseline is polars'
one-core sort, run in the same process, in turn with the others.

    python benchmarks/bench_sorts.py
    python benchmarks/bench_sorts.py --rows 50_000_000 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from kpr.engine.inmemory.runs import sort
from kpr.engine.tuning import Sorter, Tuning, numpy_sorts_quicker


def arrays(rows: int) -> dict[str, np.ndarray]:
    """The shapes the engine sorts: a continuous float column with 3 % missing (NaN),
    one with a few negative values, 8-byte hashes, 4-byte packed keys."""
    rng = np.random.default_rng(0)
    incomes = rng.lognormal(10, 1, rows)
    incomes[rng.random(rows) < 0.03] = np.nan
    signed = rng.normal(0, 1, rows)
    return {
        "float64, 3 % NaN": incomes,
        "float64, signed": signed,
        "uint64 hashes": rng.integers(0, 2**63, rows, dtype=np.uint64),
        "int64 keys": rng.integers(0, 2**40, rows, dtype=np.int64),
        "uint32 keys": rng.integers(0, 2**31, rows, dtype=np.uint32),
    }


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=4_000_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    import polars as pl

    print(f"numpy {np.__version__}, polars {pl.__version__}; numpy's sort measured the "
          f"quicker here: {numpy_sorts_quicker()}; the engine sorts by: "
          f"{Tuning().sorter.value}")  # fmt: skip
    print(f"{args.rows:,} values; median of {args.repeats} sorts each, in turn\n")
    print("| array | numpy | polars, one core | polars, threads | numpy / one core | "
          "numpy / threads |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|")
    for name, values in arrays(args.rows).items():
        times: dict[Sorter, list[float]] = {s: [] for s in Sorter}
        expected = np.sort(values)
        for _ in range(args.repeats):
            for sorter in Sorter:
                times[sorter].append(timed(partial(sort, values, sorter)))
        for sorter in Sorter:  # every sorter gives numpy's order
            np.testing.assert_array_equal(sort(values, sorter), expected)
        m = {s: statistics.median(t) for s, t in times.items()}
        print(f"| {name} | {m[Sorter.NUMPY]:.3f} s | {m[Sorter.POLARS]:.3f} s | "
              f"{m[Sorter.POLARS_THREADED]:.3f} s | {m[Sorter.NUMPY] / m[Sorter.POLARS]:.2f}x | "
              f"{m[Sorter.NUMPY] / m[Sorter.POLARS_THREADED]:.2f}x |")  # fmt: skip


if __name__ == "__main__":
    main()
