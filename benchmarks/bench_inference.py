"""``kpr inference``: its control comparison under a placebo, and its speed.

Placebo (``--splits``, not a timing): avatars are made once from the whole Adult table
(kpr's generator, k 20, seed 0), so any split into an "original" and a "control" is a
placebo where the true difference is 0. For each seeded split, ``kpr.inference`` with
the control gives, per measure (IAL, DiSCO, expected CAP), the size-fair difference and
its interval. Printed: how many intervals hold 0, the mean difference, and the mean
half-width against 1.96 x the standard deviation of the differences over the splits.

Speed (``--rows N``, whole processes): N original and N avatar rows and a control of
N / 10 rows, resampled from Adult (seeded; ages jittered by up to 2 years so profiles
vary), written as Parquet to ``--out``; ``kpr evaluate --control`` and ``kpr inference
--control`` (one secret) timed, ``--repeat`` times each, alternating.

    python benchmarks/bench_inference.py --splits 40
    python benchmarks/bench_inference.py --splits 0 --rows 1_000_000 --out /tmp/bench
    python benchmarks/bench_inference.py --anonymeter demo   # where anonymeter is installed
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

import kpr
from kpr.avatar import avatarize

ADULT = Path(__file__).resolve().parents[1] / "src" / "kpr" / "data" / "adult.parquet"
KNOWN = ["age", "sex", "race", "marital_status", "education", "native_country"]
SECRET = "income"


def placebo(table: pl.DataFrame, splits: int, train: int, subsets: int) -> None:
    avatars = avatarize(table, k=20, seed=0)
    found: dict[str, list[tuple[float, float, float]]] = {}
    for split in range(splits):
        order = np.random.default_rng(split).permutation(table.height)
        original = table[np.sort(order[:train])]
        control = table[np.sort(order[train:])]
        result = kpr.inference(
            original, avatars, KNOWN, secret=SECRET, control=control,
            control_subsets=subsets, sdmetrics=False,
        )[SECRET]  # fmt: skip
        for m in result.control:
            low, high = m.interval
            found.setdefault(m.name, []).append((m.difference, low, high))
    print(
        f"Adult placebo: {table.height:,} rows, avatars k = 20 (seed 0) of the whole table; "
        f"{splits} splits {train:,} / {table.height - train:,}; {subsets} subsets; known "
        f"{', '.join(KNOWN)}; secret {SECRET}"
    )
    for name, rows in found.items():
        diffs = [d for d, _, _ in rows]
        held = sum(low <= 0.0 <= high for _, low, high in rows)
        half = statistics.fmean((high - low) / 2 for _, low, high in rows)
        spread = statistics.stdev(diffs) if len(diffs) > 1 else float("nan")
        print(
            f"  {name}: {held}/{len(rows)} intervals hold 0; mean difference "
            f"{statistics.fmean(diffs):+.3f} points; mean half-width {half:.3f} = "
            f"{half / (1.96 * spread):.2f} x 1.96 x the spread ({spread:.3f})"
        )


def _resampled(table: pl.DataFrame, rows: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    picked = table[rng.integers(0, table.height, rows)]
    return picked.with_columns(pl.col("age") + pl.Series(rng.integers(-2, 3, rows)))


def _timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def speed(table: pl.DataFrame, rows: int, out: Path, repeat: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, n, seed in (("original", rows, 1), ("avatars", rows, 2), ("control", rows // 10, 3)):
        paths[name] = out / f"inference_{name}_{n}.parquet"
        if not paths[name].exists():
            _resampled(table, n, seed).write_parquet(paths[name])
    kpr_bin = str(Path(sys.executable).with_name("kpr"))
    common = [str(paths["original"]), str(paths["avatars"]), "-k", ",".join(KNOWN),
              "--control", str(paths["control"]), "-q", "--format", "json"]  # fmt: skip
    commands = {
        "evaluate": [kpr_bin, "evaluate", *common],
        "inference": [kpr_bin, "inference", *common, "--secret", SECRET],
    }
    times: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            times[name].append(_timed(argv))
    ev, inf = statistics.median(times["evaluate"]), statistics.median(times["inference"])
    print(
        f"{rows:,} rows per side, control {rows // 10:,}, {len(KNOWN)} known + 1 secret, "
        f"{repeat} runs each (median): kpr evaluate {ev:.1f} s, kpr inference {inf:.1f} s "
        f"({inf / ev:.2f}x); all: evaluate {times['evaluate']}, inference {times['inference']}"
    )


def anonymeter(folder: Path, n_attacks: int) -> None:
    """Anonymeter's InferenceEvaluator on the demo files of ``kpr demo --write folder``
    (original, avatars, holdout as the control; the four known variables of the
    docs' example, secret income), timed; run where anonymeter is installed."""
    import pandas as pd
    from anonymeter.evaluators import InferenceEvaluator

    aux = ["age", "sex", "race", "marital_status"]
    cols = [*aux, SECRET]
    o, a, c = (pd.read_csv(folder / f)[cols] for f in ("original.csv", "avatars.csv",
                                                        "holdout.csv"))  # fmt: skip
    start = time.perf_counter()
    ev = InferenceEvaluator(
        ori=o, syn=a, control=c, aux_cols=aux, secret=SECRET, n_attacks=n_attacks
    )
    ev.evaluate(n_jobs=1)
    r = ev.results()
    risk = r.risk()
    print(
        f"Anonymeter InferenceEvaluator, {n_attacks} attacks: {time.perf_counter() - start:.1f} s;"
        f" attack rate {r.attack_rate[0]:.4f} ± {r.attack_rate[1]:.4f}, baseline "
        f"{r.baseline_rate[0]:.4f}, control {r.control_rate[0]:.4f}; risk {risk.value:.4f} "
        f"[{risk.ci[0]:.4f}, {risk.ci[1]:.4f}]"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=40)
    parser.add_argument("--train", type=int, default=24_000)
    parser.add_argument("--subsets", type=int, default=20)
    parser.add_argument("--rows", type=int, default=0, help="rows per side for the timing")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/data"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--anonymeter", type=Path, help="a folder of kpr demo --write")
    parser.add_argument("--attacks", type=int, default=500, help="Anonymeter's n_attacks")
    args = parser.parse_args()
    if args.anonymeter:
        anonymeter(args.anonymeter, args.attacks)
        return
    table = pl.read_parquet(ADULT)
    if args.splits:
        placebo(table, args.splits, args.train, args.subsets)
    if args.rows:
        speed(table, args.rows, args.out, args.repeat)


if __name__ == "__main__":
    main()
