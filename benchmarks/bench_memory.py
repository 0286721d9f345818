"""Peak memory of ``kpr evaluate`` on CSV and Parquet inputs, as a multiple of the
input size (issue: CSV memory must stay within 4x the files it reads).

Each measurement runs in a fresh process, which reports its own peak resident
set (``VmHWM``, Linux); the peak of a process that only imports kpr and polars is
measured the same way and subtracted, so the figure is what reading and
evaluating cost. With ``--baseline-src`` the same cases also run on another
checkout's sources (e.g. the main branch) in the same run, for a before/after.

Cases:
* ``int``: ``--rows`` rows (default 20 million) x 1 integer column, original
  and avatars (two files), known = that column;
* ``wide``: ``--rows / 10`` rows x 10 columns (integers, floats, text), known =
  2 of them (the other 8 must not be held in memory).

Example::

    python benchmarks/bench_memory.py --rows 20000000 --baseline-src ../main/src
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

SRC = str(Path(__file__).resolve().parents[1] / "src")

#: The child reports VmHWM (its peak resident set): unlike ``ru_maxrss``, it starts
#: afresh at exec, so the memory of this (parent) process does not count.
CHILD = """
import json, sys
import polars, kpr
known = json.loads(sys.argv[3])
if known:
    kpr.evaluate(sys.argv[1], sys.argv[2], known)
status = open("/proc/self/status").read().split("VmHWM:")[1].split()
print(int(status[0]) * 1024)
"""


def make_files(folder: Path, rows: int) -> dict[str, tuple[Path, Path, list[str]]]:
    rng = np.random.default_rng(0)
    cases: dict[str, tuple[Path, Path, list[str]]] = {}
    for side in ("o", "a"):
        pl.DataFrame({"x": rng.integers(0, 1_000_000, rows)}).write_csv(folder / f"int_{side}.csv")
        wide = rows // 10
        pl.DataFrame(
            {
                "age": rng.integers(18, 90, wide),
                "sex": rng.choice(["F", "M"], wide),
                **{f"f{i}": rng.normal(0, 1e4, wide) for i in range(4)},
                **{f"i{i}": rng.integers(0, 10**9, wide) for i in range(2)},
                **{
                    f"t{i}": rng.choice(["alpha", "beta", "gamma", "delta"], wide) for i in range(2)
                },
            }
        ).write_csv(folder / f"wide_{side}.csv")
    cases["int"] = (folder / "int_o.csv", folder / "int_a.csv", ["x"])
    cases["wide"] = (folder / "wide_o.csv", folder / "wide_a.csv", ["age", "sex"])
    for name in ("int", "wide"):
        o, a, known = cases[name]
        pl.read_csv(o).write_parquet(o.with_suffix(".parquet"))
        pl.read_csv(a).write_parquet(a.with_suffix(".parquet"))
        cases[f"{name} parquet"] = (o.with_suffix(".parquet"), a.with_suffix(".parquet"), known)
    return cases


def peak(src: str, original: Path, avatars: Path, known: list[str]) -> int:
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(original), str(avatars), json.dumps(known)],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return int(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--baseline-src", help="another checkout's src/, measured alike")
    parser.add_argument("--cases", nargs="*", help="only these cases (default: all)")
    args = parser.parse_args()
    sources = {"this": SRC, **({"baseline": args.baseline_src} if args.baseline_src else {})}
    with tempfile.TemporaryDirectory() as tmp:
        cases = make_files(Path(tmp), args.rows)
        idle = {k: peak(s, *cases["int"][:2], []) for k, s in sources.items()}
        print(f"rows={args.rows:,}; idle peak (imports only): "
              + ", ".join(f"{k} {v / 2**20:.0f} MiB" for k, v in idle.items()))  # fmt: skip
        print(f"{'case':<14}{'input MiB':>10}" + "".join(f"{k + ' MiB':>16}{'x input':>9}"
                                                        for k in sources))  # fmt: skip
        for name, (o, a, known) in cases.items():
            if args.cases and name not in args.cases:
                continue
            size = o.stat().st_size + a.stat().st_size
            line = f"{name:<14}{size / 2**20:>10.0f}"
            for key, src in sources.items():
                runs = [peak(src, o, a, known) - idle[key] for _ in range(args.repeats)]
                cost = statistics.median(runs)
                line += f"{cost / 2**20:>16.0f}{cost / size:>9.2f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
