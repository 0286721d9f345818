"""Time kpr against hand-written implementations of the same metric.

    python benchmarks/run.py --rows 10_000_000 [--repeats 5]
    python benchmarks/run.py --engine spark --rows 10_000_000
    python benchmarks/run.py --parquet --rows 100_000_000
    python benchmarks/run.py --large --rows 10_000_000  # make_large.py's tables

Default mode (in-memory polars frames, 3 numeric + 2 categorical known
variables, see ``make_data.py``): each implementation runs in its own child
process (so its peak RSS is its own) on the same data, read from Parquet files
generated once into ``benchmarks/data/``:

- ``kpr``: ``kpr.evaluate`` on polars DataFrames;
- ``native polars``: a hand-written polars query of the metric;
- ``native duckdb``: a hand-written DuckDB SQL query of the metric (same frames);
- ``naive pandas``: a straightforward groupby/merge version;
- ``floor``: polars' bare ``group_by(keys).len()`` over the originals, the least
  any implementation must do;
- ``kpr 10k``: the in-process time of one ``kpr.evaluate`` call on 10,000 rows
  per side (users call it in loops).

Every implementation must find the same |U| and |S|. Medians of ``--repeats``
runs, peak RSS of each child, and the ratio to the fastest native query.

``--engine spark``: kpr on Spark DataFrames vs a hand-written Spark SQL query,
both reading the Parquet files in one local session.

``--parquet``: the ``kpr evaluate`` CLI as a subprocess on two Parquet files
(default 100M rows per side): wall time and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_data import CATEGORICAL, KNOWN, NUMERIC, write_parquet  # noqa: E402

TOLERANCE = 0.05
Counts = tuple[int, int]  # |U|, |S|


# ----------------------------------------------------------------- the bins, by hand


def hand_bins(stats: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """The spec's rule, written again (not kpr's code): lo and width per variable,
    from the count, mean, sample std, min and max over U's finite values."""
    out = {}
    for v in NUMERIC:
        count, mean, std = stats[f"{v}_n"], stats[f"{v}_mean"], stats[f"{v}_std"]
        lo_v, hi_v = stats[f"{v}_min"], stats[f"{v}_max"]
        if not count:
            out[v] = (0.0, 1.0)
            continue
        std = 0.0 if count < 2 or std is None else float(std)
        width = TOLERANCE * abs(mean)
        if not (math.isfinite(width) and width > 0):
            width = TOLERANCE * (hi_v - lo_v)
            if not (math.isfinite(width) and width > 0):
                width = 1.0
        out[v] = (lo_v - std / 10.0, width)
    return out


# ----------------------------------------------------------------- implementations


def run_kpr(o: Any, a: Any) -> Counts:
    import kpr

    r = kpr.evaluate(o, a, KNOWN)
    return r.unique_originals, r.linked


def run_native_polars(o: Any, a: Any) -> Counts:
    import polars as pl

    u = (
        o.lazy()
        .group_by(KNOWN)
        .agg(pl.len().alias("c"))
        .filter(pl.col("c") == 1)
        .drop("c")
        .collect(engine="streaming")
    )
    stats: dict[str, Any] = {}
    exprs = []
    for v in NUMERIC:
        x = pl.col(v).cast(pl.Float64)
        f = x.filter(x.is_finite())
        exprs += [
            f.count().alias(f"{v}_n"),
            f.mean().alias(f"{v}_mean"),
            f.std().alias(f"{v}_std"),
            f.min().alias(f"{v}_min"),
            f.max().alias(f"{v}_max"),
        ]
    stats = u.select(exprs).row(0, named=True)
    bins = hand_bins(stats)
    # polars divides by a scalar as a multiplication by its reciprocal (not the
    # spec's division): divide by a column instead.
    diffs = {v: pl.col(v).cast(pl.Float64) - bins[v][0] for v in NUMERIC}
    codes = [(d / (d * 0.0 + bins[v][1])).floor().alias(v) for v, d in diffs.items()] + [
        pl.col(c) for c in CATEGORICAL
    ]
    b1 = (
        a.lazy()
        .select(codes)
        .group_by(KNOWN)
        .agg(pl.len().alias("c"))
        .filter(pl.col("c") == 1)
        .drop("c")
    )
    linked = (
        u.lazy()
        .select(codes)
        .join(b1, on=KNOWN, how="semi", nulls_equal=True)
        .select(pl.len())
        .collect(engine="streaming")
        .item()
    )
    return u.height, int(linked)


_DUCKDB_SQL = """
WITH g AS (
    SELECT age, height, income, region, sex, count(*) AS c FROM o GROUP BY ALL
), u AS (
    SELECT age, height, income, region, sex FROM g WHERE c = 1
), s AS (
    SELECT {stats} FROM u
), b AS (
    SELECT {bins} FROM s
), ucodes AS (
    SELECT {codes} FROM u, b
), b1 AS (
    SELECT {keys} FROM (SELECT {codes} FROM a, b) GROUP BY ALL HAVING count(*) = 1
)
SELECT (SELECT count(*) FROM u) AS u,
       (SELECT count(*) FROM ucodes JOIN b1 ON {on}) AS s
"""


def _duckdb_query() -> str:
    stats, bins, codes = [], [], []
    for v in NUMERIC:
        f = f"CASE WHEN isfinite(CAST({v} AS DOUBLE)) THEN CAST({v} AS DOUBLE) END"
        stats += [
            f"count({f}) AS {v}_n",
            f"avg({f}) AS {v}_mean",
            f"coalesce(stddev_samp({f}), 0) AS {v}_std",
            f"min({f}) AS {v}_min",
            f"max({f}) AS {v}_max",
        ]
        w1 = f"{TOLERANCE} * abs({v}_mean)"
        w2 = f"{TOLERANCE} * ({v}_max - {v}_min)"
        bins += [
            f"CASE WHEN {v}_n = 0 THEN 0.0 ELSE {v}_min - {v}_std / 10 END AS {v}_lo",
            f"CASE WHEN {v}_n > 0 AND isfinite({w1}) AND {w1} > 0 THEN {w1} "
            f"WHEN {v}_n > 0 AND isfinite({w2}) AND {w2} > 0 THEN {w2} ELSE 1.0 END AS {v}_w",
        ]
        codes.append(f"floor((CAST({v} AS DOUBLE) - {v}_lo) / {v}_w) AS {v}")
    codes += list(CATEGORICAL)
    on = " AND ".join(f"ucodes.{k} IS NOT DISTINCT FROM b1.{k}" for k in KNOWN)
    return _DUCKDB_SQL.format(
        stats=", ".join(stats),
        bins=", ".join(bins),
        codes=", ".join(codes),
        keys=", ".join(KNOWN),
        on=on,
    )


def run_native_duckdb(o: Any, a: Any) -> Counts:
    import duckdb

    con = duckdb.connect()
    con.register("o", o)
    con.register("a", a)
    row = con.sql(_duckdb_query()).fetchall()[0]
    assert row is not None
    return int(row[0]), int(row[1])


def run_naive_pandas(o: Any, a: Any) -> Counts:
    import numpy as np

    counts = o.groupby(KNOWN, dropna=False, sort=False).size().rename("c").reset_index()
    u = counts[counts["c"] == 1].drop(columns="c")
    stats: dict[str, Any] = {}
    for v in NUMERIC:
        x = u[v].astype("float64")
        x = x[np.isfinite(x)]
        stats |= {
            f"{v}_n": len(x),
            f"{v}_mean": x.mean(),
            f"{v}_std": x.std(ddof=1),
            f"{v}_min": x.min(),
            f"{v}_max": x.max(),
        }
    bins = hand_bins(stats)

    def coded(frame: Any) -> Any:
        out = frame[list(CATEGORICAL)].copy()
        for v in NUMERIC:
            out[v] = np.floor((frame[v].astype("float64") - bins[v][0]) / bins[v][1])
        return out[KNOWN]

    ca = coded(a)
    b1 = ca.groupby(KNOWN, dropna=False, sort=False).size().rename("c").reset_index()
    b1 = b1[b1["c"] == 1].drop(columns="c")
    linked = coded(u).merge(b1, on=KNOWN, how="inner")  # pandas merges NaN keys together
    return len(u), len(linked)


def run_floor(o: Any, a: Any) -> Counts:
    n = o.lazy().group_by(KNOWN).len().collect(engine="streaming").height
    return n, -1


IMPLEMENTATIONS: dict[str, tuple[str, Callable[[Any, Any], Counts]]] = {
    "kpr": ("polars", run_kpr),
    "native polars": ("polars", run_native_polars),
    "native duckdb": ("arrow", run_native_duckdb),
    "naive pandas": ("pandas", run_naive_pandas),
    "floor (group_by.len)": ("polars", run_floor),
}


# ----------------------------------------------------------------- measuring


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_frames(paths: tuple[Path, Path], kind: str) -> tuple[Any, Any]:
    import polars as pl

    o, a = pl.read_parquet(paths[0]), pl.read_parquet(paths[1])
    if kind == "arrow":
        return o.to_arrow(), a.to_arrow()
    if kind == "pandas":
        return o.to_pandas(), a.to_pandas()
    return o, a


def child(name: str, paths: tuple[Path, Path], repeats: int) -> dict[str, Any]:
    kind, func = IMPLEMENTATIONS[name]
    o, a = load_frames(paths, kind)
    loaded = peak_rss_mib()
    times, counts = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        counts = func(o, a)
        times.append(time.perf_counter() - start)
    return {"times": times, "counts": counts, "rss": peak_rss_mib(), "loaded_rss": loaded}


def small_child(rows: int, repeats: int) -> dict[str, Any]:
    """In-process per-call time of kpr.evaluate on small polars frames."""
    import polars as pl
    from make_data import make_tables

    import kpr

    o, a = make_tables(rows, seed=7)
    po, pa_ = pl.from_arrow(o), pl.from_arrow(a)
    kpr.evaluate(po, pa_, KNOWN)  # warm up (imports, first plans)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        kpr.evaluate(po, pa_, KNOWN)
        times.append(time.perf_counter() - start)
    return {"times": times, "counts": None, "rss": peak_rss_mib(), "loaded_rss": 0.0}


def in_child(args: list[str]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise SystemExit(f"child {args} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def header() -> str:
    """The machine, the versions and who sorts: the in-memory engine's sorts are
    numpy's where they were measured the quicker here (``Tuning.sorter``), so the
    same tree's figures differ from one processor to another."""
    import numpy as np
    import polars as pl

    from kpr.engine.tuning import Tuning

    return (
        f"{time.strftime('%Y-%m-%d %H:%M')} | {platform.machine()} {os.cpu_count()} cores "
        f"({cpu_model()}), "
        f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB | "
        f"python {platform.python_version()}, polars {pl.__version__}, numpy {np.__version__}, "
        f"sorts by {Tuning().sorter.value} | load average {os.getloadavg()[0]:.1f}"
    )


def cpu_model() -> str:
    """The processor's name as Linux gives it, else as Python's platform does."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown processor"


def frames_mode(args: argparse.Namespace) -> None:
    paths = tables(args)
    print(header())
    print(f"{args.rows:,} rows per side, known: {', '.join(KNOWN)}; median of {args.repeats} runs")
    results = {}
    for name in IMPLEMENTATIONS:
        if name in args.skip:
            continue
        results[name] = in_child(["frames", name, str(paths[0]), str(paths[1]), str(args.repeats)])
        med = statistics.median(results[name]["times"])
        print(f"  ran {name:<22} {med:8.2f} s", flush=True)
    small = in_child(["small", str(args.small_rows), str(max(args.repeats, 20))])
    counts = {name: r["counts"] for name, r in results.items() if r["counts"][1] != -1}
    u = {c[0] for c in counts.values()}  # the floor counts groups, not |U|
    s = {c[1] for c in counts.values()}
    natives = [statistics.median(results[n]["times"]) for n in results if n.startswith("native")]
    base = min(natives) if natives else float("nan")
    print()
    print("| implementation | median (s) | vs fastest native | peak RSS (MiB) | |U| | |S| |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        med = statistics.median(r["times"])
        floor = r["counts"][1] == -1
        s_text = "-" if floor else f"{r['counts'][1]:,}"
        u_text = f"({r['counts'][0]:,} groups)" if floor else f"{r['counts'][0]:,}"
        print(f"| {name} | {med:.2f} | {med / base:.2f}x | {r['rss']:,.0f} | {u_text} | {s_text} |")
    small_med = statistics.median(small["times"])
    print(
        f"| kpr, {args.small_rows:,} rows per side (in-process, per call) | "
        f"{small_med * 1000:.1f} ms | | | | |"
    )
    if "kpr" in results and "naive pandas" in results:
        speedup = statistics.median(results["naive pandas"]["times"]) / statistics.median(
            results["kpr"]["times"]
        )
        print(f"\nkpr is {speedup:.1f}x faster than naive pandas")
    if len(u) != 1 or len(s) != 1:
        raise SystemExit(f"MISMATCH: |U| {sorted(u)}, |S| {sorted(s)}")
    print("all implementations agree on |U| and |S|")


# ----------------------------------------------------------------- Spark


_SPARK_SQL = """
WITH g AS (
    SELECT age, height, income, region, sex, count(*) AS c
    FROM o GROUP BY age, height, income, region, sex
), u AS (
    SELECT age, height, income, region, sex FROM g WHERE c = 1
), s AS (
    SELECT {stats} FROM u
), b AS (
    SELECT {bins} FROM s
), ucodes AS (
    SELECT {codes} FROM u CROSS JOIN b
), acodes AS (
    SELECT {codes} FROM a CROSS JOIN b
), b1 AS (
    SELECT {keys} FROM acodes GROUP BY {keys} HAVING count(*) = 1
)
SELECT (SELECT count(*) FROM u) AS u,
       (SELECT count(*) FROM ucodes JOIN b1 ON {on}) AS s
"""


def _spark_query() -> str:
    stats, bins, codes = [], [], []
    for v in NUMERIC:
        x = f"CAST({v} AS DOUBLE)"
        f = f"CASE WHEN {x} NOT IN (double('inf'), double('-inf')) THEN {x} END"
        stats += [
            f"count({f}) AS {v}_n",
            f"avg({f}) AS {v}_mean",
            f"coalesce(stddev_samp({f}), 0D) AS {v}_std",
            f"min({f}) AS {v}_min",
            f"max({f}) AS {v}_max",
        ]
        w1 = f"{TOLERANCE}D * abs({v}_mean)"
        w2 = f"{TOLERANCE}D * ({v}_max - {v}_min)"
        bins += [
            f"CASE WHEN {v}_n = 0 THEN 0D ELSE {v}_min - {v}_std / 10 END AS {v}_lo",
            f"CASE WHEN {v}_n > 0 AND {w1} > 0 THEN {w1} "
            f"WHEN {v}_n > 0 AND {w2} > 0 THEN {w2} ELSE 1D END AS {v}_w",
        ]
        codes.append(f"floor(({x} - {v}_lo) / {v}_w) AS {v}")
    codes += list(CATEGORICAL)
    return _SPARK_SQL.format(
        stats=", ".join(stats),
        bins=", ".join(bins),
        codes=", ".join(codes),
        keys=", ".join(KNOWN),
        on=" AND ".join(f"ucodes.{k} <=> b1.{k}" for k in KNOWN),
    )


def spark_mode(args: argparse.Namespace) -> None:
    import kpr
    from kpr.engine.spark import spark_session

    paths = tables(args)
    session = spark_session(
        args.spark_master,
        {"spark.driver.memory": args.spark_memory, "spark.sql.shuffle.partitions": "8"},
    )
    print(header())
    print(f"Spark {session.version} {args.spark_master}, {args.rows:,} rows per side from Parquet")
    o = session.read.parquet(str(paths[0]))
    a = session.read.parquet(str(paths[1]))
    o.createOrReplaceTempView("o")
    a.createOrReplaceTempView("a")
    query = _spark_query()

    def by_kpr() -> Counts:
        r = kpr.evaluate(o, a, KNOWN)
        return r.unique_originals, r.linked

    def by_sql() -> Counts:
        row = session.sql(query).collect()[0]
        return int(row["u"]), int(row["s"])

    out = {}
    for name, func in (("kpr on Spark", by_kpr), ("Spark SQL by hand", by_sql)):
        func()  # warm up (JIT, file listing)
        times, counts = [], None
        for _ in range(args.repeats):
            start = time.perf_counter()
            counts = func()
            times.append(time.perf_counter() - start)
        out[name] = (statistics.median(times), counts)
        print(f"  ran {name:<20} {out[name][0]:8.2f} s", flush=True)
    base = out["Spark SQL by hand"][0]
    print("\n| implementation | median (s) | vs hand-written | |U| | |S| |")
    print("|---|---:|---:|---:|---:|")
    for name, (med, counts) in out.items():
        assert counts is not None
        print(f"| {name} | {med:.2f} | {med / base:.2f}x | {counts[0]:,} | {counts[1]:,} |")
    if len({c for _, c in out.values()}) != 1:
        raise SystemExit("MISMATCH between kpr on Spark and the hand-written query")
    print("both agree on |U| and |S|")
    session.stop()


# ----------------------------------------------------------------- Parquet, CLI


def tables(args: argparse.Namespace) -> tuple[Path, Path]:
    """The benchmark's Parquet files (``--large``: ``make_large.py``'s)."""
    if args.large:
        from make_large import write_large

        return write_large(args.rows, args.data)
    return write_parquet(args.rows, args.data)


def parquet_mode(args: argparse.Namespace) -> None:
    paths = tables(args)
    print(header())
    cmd = [
        sys.executable, "-m", "kpr", "evaluate", str(paths[0]), str(paths[1]),
        "--known", ",".join(KNOWN), "--format", "json", "--quiet",
    ]  # fmt: skip
    print(f"{args.rows:,} rows per side from Parquet: {' '.join(cmd[2:])}")
    times, rss = [], []
    result: dict[str, Any] = {}
    for _ in range(args.repeats):
        start = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - start)
        if out.returncode not in (0, 1):
            raise SystemExit(out.stderr)
        result = json.loads(out.stdout)
        # ru_maxrss of the children: the largest, i.e. the kpr process
        rss.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    print("\n| run | median (s) | peak RSS (MiB) | |U| | |S| | KPR |")
    print("|---|---:|---:|---:|---:|---:|")
    print(
        f"| kpr evaluate (CLI) | {statistics.median(times):.1f} | {max(rss):,.0f} | "
        f"{result['unique_originals']:,} | {result['linked']:,} | {result['kpr']:.4f} % |"
    )


def compile_trees(*trees: Path | None) -> None:
    """Each tree's bytecode written first, as an installed wheel has it: a run must
    not pay for compiling the sources (the floor's polars is compiled), even where
    ``PYTHONDONTWRITEBYTECODE`` is set."""
    for tree in trees:
        if tree is not None:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], check=False,
                           stdout=subprocess.DEVNULL)  # fmt: skip


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        what = sys.argv[2]
        if what == "frames":
            _, _, _, name, o_path, a_path, repeats = sys.argv
            out = child(name, (Path(o_path), Path(a_path)), int(repeats))
        else:
            out = small_child(int(sys.argv[3]), int(sys.argv[4]))
        print(json.dumps(out))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    number = lambda s: int(s.replace("_", ""))  # noqa: E731
    parser.add_argument("--rows", type=number, default=None)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--small-rows", type=number, default=10_000)
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--engine", choices=["polars", "spark"], default="polars")
    parser.add_argument("--spark-master", default="local[*]")
    parser.add_argument("--spark-memory", default="8g")
    parser.add_argument("--parquet", action="store_true", help="the CLI on Parquet files")
    parser.add_argument(
        "--large", action="store_true", help="make_large.py's tables (continuous income)"
    )
    parser.add_argument(
        "--skip", action="append", default=[], help="an implementation to leave out"
    )
    args = parser.parse_args()
    compile_trees(Path(__file__).resolve().parent.parent / "src")
    if args.parquet:
        args.rows = args.rows or 100_000_000
        args.repeats = min(args.repeats, 3)
        parquet_mode(args)
    elif args.engine == "spark":
        args.rows = args.rows or 10_000_000
        spark_mode(args)
    else:
        args.rows = args.rows or 10_000_000
        frames_mode(args)


if __name__ == "__main__":
    main()
