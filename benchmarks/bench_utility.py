"""Benchmark of ``kpr.utility`` against SDMetrics' Quality Report, in one run.

Generates an original table of ``--rows`` rows and 15 mixed columns (5 numbers,
1 date, 9 categories, some missing values, related to one another) and a
synthetic table that resembles it, then times:

* in process: ``kpr.utility`` on the polars frames against
  ``QualityReport.generate`` on the same tables as pandas frames (SDMetrics'
  own input), alternating, ``--repeats`` times each; checks that the two agree
  on the Column Shapes score (SDMetrics subsamples 50,000 rows for its
  contingency pairs on larger tables, so its pair score is an estimate there);
* with ``--cli``: whole processes from CSV: ``kpr utility ORIGINAL SYNTHETIC``
  against a Python process that reads both CSVs with pandas and runs the report.

Prints the medians (wall clock, and CPU time: the machine may be shared), the
ratios, and the load average before and after. Run it with the SDMetrics
environment's Python::

    PYTHONPATH=src /work/main/.venv-sdmetrics/bin/python benchmarks/bench_utility.py \\
        --rows 1000000 --repeats 3 --cli
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
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

CATEGORIES = {
    "sex": 2, "region": 20, "education": 16, "marital_status": 7, "occupation": 15,
    "race": 5, "workclass": 9, "relationship": 6, "country": 40,
}  # fmt: skip

SDTYPES = {"numeric": "numerical", "date": "datetime", "categorical": "categorical"}


def make_tables(rows: int, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """An original table and a synthetic one: noise on numbers and dates, 20 % of
    categories redrawn, rows shuffled."""
    rng = np.random.default_rng(seed)

    def table(noise: float) -> pl.DataFrame:
        age = rng.integers(18, 91, rows)
        cats = {name: rng.integers(0, k, rows) for name, k in CATEGORIES.items()}
        cats["education"] = np.minimum((age // 5 + rng.integers(0, 4, rows)) % 16, 15)
        income = 800.0 * age + 2000.0 * cats["education"] + rng.normal(0, 8000, rows)
        hours = np.round(rng.normal(40, 10, rows) + 2 * cats["sex"], 1)
        height = np.round(rng.normal(170, 10, rows) + 8 * cats["sex"], 1)
        weight = np.round(0.9 * height - 80 + rng.normal(0, 8, rows), 1)
        days = rng.integers(0, 3650, rows) + 14600
        if noise:
            income = income + rng.normal(0, noise * 5000, rows)
            weight = weight + np.round(rng.normal(0, noise * 3, rows), 1)
            for name, k in CATEGORIES.items():
                redraw = rng.random(rows) < 0.2 * noise
                cats[name] = np.where(redraw, rng.integers(0, k, rows), cats[name])
        data: dict[str, Any] = {
            "age": age,
            "income": income,
            "hours": hours,
            "height": height,
            "weight": weight,
            "joined": days,
        }
        frame = pl.DataFrame(data).with_columns(
            pl.col("joined").cast(pl.Date),
            pl.when(pl.Series(rng.random(rows) < 0.03)).then(None).otherwise(pl.col("income"))
            .alias("income"),
        )  # fmt: skip
        frame = frame.with_columns(
            (pl.lit(f"{name}_") + pl.Series(name, codes).cast(pl.String)).alias(name)
            for name, codes in cats.items()
        )
        return frame.with_columns(
            pl.when(pl.Series(rng.random(rows) < 0.02)).then(None).otherwise(pl.col("workclass"))
            .alias("workclass")
        )  # fmt: skip

    original = table(0.0)
    synthetic = table(1.0).sample(fraction=1.0, shuffle=True, seed=seed)
    return original, synthetic


def sdmetrics_metadata(kinds: dict[str, str]) -> dict[str, Any]:
    return {"columns": {c: {"sdtype": SDTYPES[k]} for c, k in kinds.items()}}


def run_sdmetrics(original: Any, synthetic: Any, metadata: dict[str, Any]) -> Any:
    from sdmetrics.reports.single_table import QualityReport

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = QualityReport()
        report.generate(original, synthetic, metadata, verbose=False)
    return report


SDMETRICS_SCRIPT = """
import json, sys, warnings
import pandas as pd
from sdmetrics.reports.single_table import QualityReport
meta = json.load(open(sys.argv[3]))
dates = [c for c, v in meta["columns"].items() if v["sdtype"] == "datetime"]
o = pd.read_csv(sys.argv[1], parse_dates=dates)
s = pd.read_csv(sys.argv[2], parse_dates=dates)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    r = QualityReport()
    r.generate(o, s, meta, verbose=False)
print(r.get_score())
"""


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def cpu_timed(fn: Any) -> tuple[float, float, Any]:
    """Wall seconds, CPU seconds of this process (every thread) and the result."""
    cpu = time.process_time()
    wall, out = timed(fn)
    return wall, time.process_time() - cpu, out


def children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def medians(label: str, kpr_times: list[float], sdm_times: list[float], unit: str = "s") -> None:
    k_med = statistics.median(kpr_times)
    line = f"  {label}: kpr median {k_med:.2f} {unit} {[round(t, 2) for t in sorted(kpr_times)]}"
    if sdm_times:
        s_med = statistics.median(sdm_times)
        line += (
            f"; SDMetrics median {s_med:.2f} {unit} {[round(t, 2) for t in sorted(sdm_times)]}; "
            f"ratio (SDMetrics / kpr) {s_med / k_med:.1f}x"
        )
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cli", action="store_true", help="also time whole processes from CSV")
    parser.add_argument("--no-sdmetrics", action="store_true", help="time kpr only")
    args = parser.parse_args()
    src = Path(__file__).resolve().parent.parent / "src"  # compiled as a wheel is (run.py)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], stdout=subprocess.DEVNULL)

    import kpr

    original, synthetic = make_tables(args.rows)
    print(f"{args.rows:,} rows x {original.width} columns")
    kpr.utility(original.head(1000), synthetic.head(1000))  # imports, warm-up
    kinds = dict(kpr.utility(original.head(1000), synthetic.head(1000)).columns.select(
        "column", "kind").iter_rows())  # fmt: skip
    metadata = sdmetrics_metadata(kinds)
    po, ps = original.to_pandas(), synthetic.to_pandas()
    for frame in (po, ps):
        frame["joined"] = frame["joined"].astype("datetime64[ns]")

    print(f"before: {load()}")
    kpr_times: list[float] = []
    sdm_times: list[float] = []
    kpr_cpu: list[float] = []
    sdm_cpu: list[float] = []
    for _ in range(args.repeats):
        t, c, mine = cpu_timed(lambda: kpr.utility(original, synthetic))
        kpr_times.append(t)
        kpr_cpu.append(c)
        if not args.no_sdmetrics:
            t, c, theirs = cpu_timed(lambda: run_sdmetrics(po, ps, metadata))
            sdm_times.append(t)
            sdm_cpu.append(c)
    print("in process (kpr.utility against QualityReport.generate):")
    medians("wall", kpr_times, sdm_times)
    medians("CPU", kpr_cpu, sdm_cpu, "CPU s")
    print(f"  kpr: overall {mine.overall:.6f} shapes {mine.column_shapes:.12f} "
          f"trends {mine.column_pair_trends:.6f}")  # fmt: skip
    if sdm_times:
        props = theirs.get_properties().set_index("Property")["Score"]
        shapes, trends = props["Column Shapes"], props["Column Pair Trends"]
        print(f"  SDMetrics: overall {theirs.get_score():.6f} shapes {shapes:.12f} "
              f"trends {trends:.6f}")  # fmt: skip
        diff = abs(props["Column Shapes"] - mine.column_shapes)
        print(f"  Column Shapes difference: {diff:.2e}")
    print(f"after in process: {load()}")

    if args.cli:
        cli_bench(original, synthetic, metadata, args.repeats, args.no_sdmetrics)


def _run(cmd: list[str], env: dict[str, str]) -> None:
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)


def cli_bench(
    original: pl.DataFrame,
    synthetic: pl.DataFrame,
    metadata: dict[str, Any],
    repeats: int,
    no_sdmetrics: bool,
) -> None:
    import json

    kpr_exe = shutil.which("kpr")
    with tempfile.TemporaryDirectory() as tmp:
        o, s, m = Path(tmp, "original.csv"), Path(tmp, "synthetic.csv"), Path(tmp, "meta.json")
        original.write_csv(o)
        synthetic.write_csv(s)
        m.write_text(json.dumps(metadata))
        script = Path(tmp, "sdm.py")
        script.write_text(SDMETRICS_SCRIPT)
        env = {**os.environ}
        kpr_cmd = [sys.executable, "-m", "kpr", "utility", str(o), str(s), "-q"]
        if kpr_exe is None:
            print("(kpr not on PATH: running it as python -m kpr)")
        sdm_cmd = [sys.executable, str(script), str(o), str(s), str(m)]
        kpr_times: list[float] = []
        sdm_times: list[float] = []
        kpr_cpu: list[float] = []
        sdm_cpu: list[float] = []
        for _ in range(repeats):
            c = children_cpu()
            kpr_times.append(timed(lambda: _run(kpr_cmd, env))[0])
            kpr_cpu.append(children_cpu() - c)
            if not no_sdmetrics:
                c = children_cpu()
                sdm_times.append(timed(lambda: _run(sdm_cmd, env))[0])
                sdm_cpu.append(children_cpu() - c)
        print("whole process from CSV (kpr utility against pandas read_csv + the report):")
        medians("wall", kpr_times, sdm_times)
        medians("CPU", kpr_cpu, sdm_cpu, "CPU s")
        print(f"after whole process: {load()}")


if __name__ == "__main__":
    main()
