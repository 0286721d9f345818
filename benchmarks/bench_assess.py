"""Whole-process ``kpr assess`` (issue 36, item 5): the demo (≤ 60 s asked) and a
scalable table (≤ 5 minutes asked at 1M rows per side), each beside ``kpr evaluate``
on the same files, timed in the same run, in turn.

    python benchmarks/bench_assess.py --demo
    python benchmarks/bench_assess.py --rows 100_000
    python benchmarks/bench_assess.py --rows 1_000_000

``--demo``: in a temporary folder, ``kpr demo --write``, then ``kpr protect`` once
(not timed: it makes the change log), then ``kpr assess`` with every input (holdout,
pairing, change log, policy; 6 candidates, ``-m 3``, secret income) as in
docs/assess.md, against ``kpr evaluate original protected -k <the 6 candidates>``.

``--rows N``: ``make_large.py``'s tables (N originals and N avatars; Parquet, in
``--data``), with a 6th candidate (``children``, 0 to 5) and a secret (``smoker``,
yes/no) added, seeded; a holdout of min(N, 100k) rows of another seed;
``kpr assess`` with the 6 candidates, ``-m 3``, the secret and the holdout (distances
on the default sample of 100k rows per side), against ``kpr evaluate`` with the 6
candidates known.

Each command runs as its own process, ``--repeats`` times, alternating; printed per
run: wall and CPU seconds and the peak RSS of the process (``os.wait4``), then the
medians and the ratio assess / evaluate (median of the per-round ratios). Never
commit the data or the packs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_large import large_chunk, write_large  # noqa: E402

DEMO_KNOWN = "age,sex,race,marital_status,education,native_country"
LARGE_KNOWN = "age,height,income,region,sex,children"
KPR = [sys.executable, "-m", "kpr"]


def run_once(cmd: list[str], cwd: Path) -> dict[str, float]:
    """One process: wall, cpu (user + sys) and peak RSS (MiB)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak": usage.ru_maxrss / 1024}


def _with_extra(table: pl.DataFrame, seed: int) -> pl.DataFrame:
    """The 6th candidate and the secret, drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    n = table.height
    return table.with_columns(
        pl.Series("children", rng.integers(0, 6, n)),
        pl.Series("smoker", rng.choice(["yes", "no"], n, p=[0.2, 0.8])),
    )


def large_inputs(rows: int, data: Path, work: Path) -> dict[str, Path]:
    o_path, a_path = write_large(rows, data)
    out = {"original": work / "original.parquet", "synthetic": work / "synthetic.parquet",
           "holdout": work / "holdout.parquet"}  # fmt: skip
    _with_extra(pl.read_parquet(o_path), 1).write_parquet(out["original"])
    _with_extra(pl.read_parquet(a_path), 2).write_parquet(out["synthetic"])
    held, _ = large_chunk(min(rows, 100_000), 10_007)  # another seed: other people
    _with_extra(pl.from_arrow(held), 3).write_parquet(out["holdout"])  # type: ignore[arg-type]
    return out


def large_commands(rows: int, data: Path, work: Path) -> dict[str, list[str]]:
    p = {k: str(v) for k, v in large_inputs(rows, data, work).items()}
    assess = [*KPR, "assess", p["original"], p["synthetic"], "-c", LARGE_KNOWN, "-m", "3",
              "-s", "smoker", "--holdout", p["holdout"], "-o", "pack"]  # fmt: skip
    evaluate = [*KPR, "evaluate", p["original"], p["synthetic"], "-k", LARGE_KNOWN, "-q"]
    return {"assess": assess, "evaluate": evaluate}


def demo_commands(work: Path) -> dict[str, list[str]]:
    subprocess.run([*KPR, "demo", "--write", "."], cwd=work, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    subprocess.run(
        [*KPR, "protect", "original.csv", "avatars.csv", "-k", DEMO_KNOWN, "--target", "99",
         "-o", "protected.csv", "--changes-out", "changes.csv", "--no-distances",
         "--no-utility"], cwd=work, check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    subprocess.run([*KPR, "assess", "--init", "policy.toml"], cwd=work, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    assess = [*KPR, "assess", "original.csv", "protected.csv", "-c", DEMO_KNOWN, "-m", "3",
              "-s", "income", "--holdout", "holdout.csv", "--pairing", "pairing.csv",
              "--protect-log", "changes.csv", "--policy", "policy.toml", "-o", "pack"]  # fmt: skip
    evaluate = [*KPR, "evaluate", "original.csv", "protected.csv", "-k", DEMO_KNOWN, "-q"]
    return {"assess": assess, "evaluate": evaluate}


def bench(commands: dict[str, list[str]], work: Path, repeats: int) -> None:
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in commands}
    for i in range(repeats):
        for name, cmd in commands.items():
            shutil.rmtree(work / "pack", ignore_errors=True)
            r = run_once(cmd, work)
            runs[name].append(r)
            print(f"  round {i + 1} {name}: wall {r['wall']:.2f} s, cpu {r['cpu']:.2f} s, "
                  f"peak RSS {r['peak']:,.0f} MiB", flush=True)  # fmt: skip
    for name, rs in runs.items():
        med = {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "peak")}
        print(f"{name}: median wall {med['wall']:.2f} s, cpu {med['cpu']:.2f} s, "
              f"peak RSS {med['peak']:,.0f} MiB")  # fmt: skip
    ratio = statistics.median(
        a["wall"] / e["wall"] for a, e in zip(runs["assess"], runs["evaluate"], strict=True)
    )
    print(f"assess / evaluate (wall, median of the rounds): {ratio:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--demo", action="store_true", help="the demo, whole process")
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, default=HERE / "data")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    with tempfile.TemporaryDirectory(prefix="kpr-bench-assess-") as tmp:
        work = Path(tmp)
        if args.demo:
            print("demo: kpr assess with every input, against kpr evaluate")
            commands = demo_commands(work)
        else:
            print(f"{args.rows:,} rows per side, 6 candidates, -m 3, one secret, "
                  f"holdout {min(args.rows, 100_000):,} rows")  # fmt: skip
            commands = large_commands(args.rows, args.data, work)
        bench(commands, work, args.repeats)
    load = os.getloadavg()
    print(f"load average after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
