"""Can an attacker who has only the release tell which rows ``kpr protect`` changed?

For each table and each protect seed, a fixed classifier is trained to spot the
changed rows (the labels come from protect's change log) from features an attacker
computes on the release alone:

- per numeric known variable: how many rows hold the row's exact value (log), and
  whether that is 2 or 3 rows (the "held by 2-3 rows" rule, which needs no labels);
- how many rows hold the row's exact known values, and its class profile (each numeric
  value binned at 5 % of the release's own mean, the attacker's guess of kpr's grid);
- categorical pair plausibility: over every pair of text columns of the release, the
  fewest rows holding the row's pair (log) and the number of its pairs held by at most
  3 rows.

The placebo scores the *same* rows, with the same labels, on the unprotected release:
what the classifier finds there is the rows protect chose (linked, rare), not marks
its moves left. The leak is AUC(protected) - AUC(placebo); each AUC comes from 5-fold
stratified cross-validation (scikit-learn's HistGradientBoostingClassifier,
``random_state=0``; folds shuffled with seed 0), the mean and range over protect's seeds.

Tables: the demo (``kpr demo --write``'s original and avatars, its six known
variables) and ``make_large.py``'s table (5 known, income continuous) at
``--rows`` (100,000 by default). Needs scikit-learn (``pip install 'kpr[bench]'``).

    python benchmarks/bench_protect_leak.py [--seeds 5] [--rows 100000] [--rule robust]

``--rule`` and ``--moves`` are passed to ``kpr.protect`` when given. Prints one
Markdown table, ready for docs/protect.md.
"""

from __future__ import annotations

import argparse
import inspect
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_data import KNOWN  # noqa: E402
from make_large import large_chunk  # noqa: E402
from run import header  # noqa: E402

import kpr  # noqa: E402

DEMO_KNOWN = ["age", "sex", "race", "marital_status", "education", "native_country"]
#: The attacker's guess of a class width: this share of the release's mean.
WIDTH_SHARE = 0.05


def _multiplicity(frame: pl.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """For each row, how many rows hold its values of ``columns`` (missing equal)."""
    return frame.select(pl.len().over(list(columns)).alias("n"))["n"].to_numpy()


def features(release: pl.DataFrame, known: Sequence[str]) -> np.ndarray:
    """The release-only features of every row (see the module's docstring)."""
    numeric = [c for c in known if release.schema[c].is_numeric()]
    texts = [c for c in release.columns if release.schema[c] == pl.String]
    out = []
    for c in numeric:
        held = _multiplicity(release, [c])
        out += [np.log(held), ((held == 2) | (held == 3)).astype(float)]
    out.append(np.log(_multiplicity(release, known)))
    binned = release.select(
        [
            (pl.col(c) / (WIDTH_SHARE * abs(release[c].mean() or 1.0))).floor().alias(c)
            if c in numeric
            else pl.col(c)
            for c in known
        ]
    )
    out.append(np.log(_multiplicity(binned, known)))
    if len(texts) >= 2:
        pairs = np.column_stack([_multiplicity(release, p) for p in combinations(texts, 2)])
        out += [np.log(pairs.min(axis=1)), (pairs <= 3).sum(axis=1).astype(float)]
    return np.column_stack(out)


def auc(x: np.ndarray, y: np.ndarray) -> float:
    """5-fold cross-validated AUC of the fixed classifier."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    model = HistGradientBoostingClassifier(random_state=0)
    scores = cross_val_predict(model, x, y, cv=folds, method="predict_proba")[:, 1]
    return float(roc_auc_score(y, scores))


def leak_of_one_run(
    original: pl.DataFrame, avatars: pl.DataFrame, known: list[str], seed: int, options: dict
) -> tuple[float, float, int, float]:
    """(AUC protected, AUC placebo, rows changed, seconds) for one protect seed."""
    start = time.perf_counter()
    protected, result = kpr.protect(original, avatars, known, target=99, seed=seed, **options)
    seconds = time.perf_counter() - start
    log = result.changes
    assert log is not None
    deleted = log.filter(pl.col("move") == "delete")["avatar_row"].to_numpy()
    changed = log.filter(pl.col("move") != "delete")["avatar_row"].to_numpy()
    kept = np.setdiff1d(np.arange(avatars.height), deleted)
    labels = np.isin(kept, changed)
    protected_pl = protected if isinstance(protected, pl.DataFrame) else pl.from_pandas(protected)
    placebo = avatars[kept]
    assert protected_pl.height == len(kept)
    return (
        auc(features(protected_pl, known), labels),
        auc(features(placebo, known), labels),
        int(labels.sum()),
        seconds,
    )


def demo_tables() -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    with tempfile.TemporaryDirectory() as folder:
        from kpr.cli.demo_files import write_demo

        write_demo(Path(folder) / "demo")
        o = pl.read_csv(Path(folder) / "demo" / "original.csv", infer_schema_length=None)
        a = pl.read_csv(Path(folder) / "demo" / "avatars.csv", infer_schema_length=None)
    return o, a, DEMO_KNOWN


def large_tables(rows: int) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    o, a = large_chunk(rows, 0)
    return pl.from_arrow(o), pl.from_arrow(a), list(KNOWN)  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=100_000)
    parser.add_argument("--rule", help="passed to kpr.protect (when it takes rule=)")
    parser.add_argument("--moves", help="passed to kpr.protect, comma-separated")
    parser.add_argument("--tables", default="demo,large")
    args = parser.parse_args()
    options: dict = {}
    if args.moves:
        options["moves"] = args.moves.split(",")
    if args.rule:
        if "rule" not in inspect.signature(kpr.protect).parameters:
            parser.error("this kpr.protect takes no rule=")
        options["rule"] = args.rule
    print(header())
    print(f"protect options: {options or 'the defaults'}; seeds 0-{args.seeds - 1}\n")
    rows = []
    makers = {"demo": demo_tables, "large": lambda: large_tables(args.rows)}
    for name in args.tables.split(","):
        original, avatars, known = makers[name]()
        runs = [
            leak_of_one_run(original, avatars, known, seed, options) for seed in range(args.seeds)
        ]
        diffs = [p - q for p, q, _, _ in runs]
        rows.append(
            f"| {name} ({original.height:,} rows) | {statistics.mean(r[0] for r in runs):.3f} "
            f"| {statistics.mean(r[1] for r in runs):.3f} | {statistics.mean(diffs):+.3f} "
            f"({min(diffs):+.3f} to {max(diffs):+.3f}) "
            f"| {statistics.median(r[2] for r in runs):,.0f} "
            f"| {statistics.median(r[3] for r in runs):.1f} |"
        )
        print(f"  {name}: " + ", ".join(f"{p:.3f}/{q:.3f}" for p, q, _, _ in runs), flush=True)
    print("\n| table | AUC protected | AUC placebo | leak (range) | rows changed | protect (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
