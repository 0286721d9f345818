"""In-process time of one small ``kpr.evaluate`` call (10,000 rows, 4 known
columns, polars frames): the fixed overhead a user pays per call (issue: it grew
from 32.7 to 38.0 ms with the input hardening).

Each source tree is timed in its own fresh process (two trees cannot share one
process: both are the package ``kpr``): warm-up calls, then the median of
``--calls`` calls. With ``--baseline-src`` the two trees alternate ``--rounds``
times and the ratio this/baseline is printed per round and as a median, so a
drift of the machine's speed hits both alike. ``--cpu`` times the process's CPU
(every thread) per call instead of the wall clock: steadier on a loaded machine.

Example::

    python benchmarks/bench_small_call.py --baseline-src ../main/src
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")

CHILD = """
import statistics, sys, time
import numpy as np, polars as pl, kpr
rows, calls = int(sys.argv[1]), int(sys.argv[2])
clock = time.process_time if sys.argv[3] == "cpu" else time.perf_counter
rng = np.random.default_rng(0)
def frame():
    return pl.DataFrame({
        "age": rng.integers(18, 90, rows), "sex": rng.choice(["F", "M"], rows),
        "region": rng.choice(list("abcdefghij"), rows), "score": rng.normal(0, 1, rows),
    })
original, avatars = frame(), frame()
known = ["age", "sex", "region", "score"]
for _ in range(20):
    kpr.evaluate(original, avatars, known)
times = []
for _ in range(calls):
    start = clock()
    kpr.evaluate(original, avatars, known)
    times.append(clock() - start)
print(statistics.median(times))
"""


def median_call(src: str, rows: int, calls: int, clock: str = "wall") -> float:
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(rows), str(calls), clock],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline-src", help="another checkout's src/, timed alike")
    parser.add_argument(
        "--cpu", action="store_true", help="CPU time of the process per call (all threads)"
    )
    args = parser.parse_args()
    clock = "cpu" if args.cpu else "wall"
    print(f"rows={args.rows:,}; median of {args.calls} calls per process, ms ({clock})")
    ratios = []
    for round_ in range(args.rounds):
        this = median_call(SRC, args.rows, args.calls, clock)
        line = f"round {round_ + 1}: this {this * 1e3:.2f}"
        if args.baseline_src:
            base = median_call(args.baseline_src, args.rows, args.calls, clock)
            ratios.append(this / base)
            line += f", baseline {base * 1e3:.2f}, ratio {ratios[-1]:.3f}"
        print(line, flush=True)
    if ratios:
        print(f"median ratio this/baseline: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
