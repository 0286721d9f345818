"""Can an attacker holding only the release spot the rows ``kpr protect`` changed?

A fixed classifier (scikit-learn's HistGradientBoostingClassifier, random_state 0,
5-fold stratified cross-validation shuffled with random_state 0) is trained on
features computed from the release alone (:func:`leak_features`); the label is
"protect changed this row" (from ``result.changes``). The placebo computes the
same features on the unprotected avatars and scores the SAME labels: what the
classifier finds there is what the rows protect chose already looked like. The
leak is AUC(protected) - AUC(placebo), over several protect seeds.

    python benchmarks/bench_protect_leak.py --case demo --seeds 5
    python benchmarks/bench_protect_leak.py --case large --rows 100_000 --seeds 5
    python benchmarks/bench_protect_leak.py --case cost

``--ablate`` also scores each seed with one feature family left out at a time
(:data:`FAMILIES`: profile counts, exact-value multiplicity, categorical-pair
plausibility) and prints the difference without it: the family whose removal
lowers the difference most is the one that carries the leak.

``--case cost`` (issue 34, item 8) protects the demo with each move, raises k,
and prints the window-rule rate reached, SDMetrics' quality score and the AUC of a
model trained on the release (income > 50K) tested on the demo's holdout.
``--moves`` and ``--rule`` are passed to ``kpr.protect`` (``--rule`` only when
given, for a protect that accepts it). Needs the ``bench`` extra (scikit-learn,
sdmetrics). Prints markdown tables.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import kpr

DEMO_KNOWN = ["age", "sex", "race", "marital_status", "education", "native_country"]
LARGE_KNOWN = ["age", "height", "income", "region", "sex"]
QUANTILES = 20
MAX_PAIR_COLUMNS = 10
FAMILIES = {
    "profile counts": ("profile_",),
    "exact-value multiplicity": ("mult_", "two_three_"),
    "categorical-pair plausibility": ("pairs_",),
}


def leak_features(release: pl.DataFrame, known: list[str]) -> pl.DataFrame:
    """Features of each row computed from ``release`` alone (one row per row).

    - ``profile_exact``: rows sharing its exact values on the known variables;
    - ``profile_coarse``: the same with each numeric known variable cut at the
      release's own 20-quantiles (the attacker lacks kpr's grid, which is the
      originals');
    - per numeric known column: rows holding its exact value, and whether that is
      2 or 3 rows (a shift that copies another row's value makes such pairs);
    - over pairs of text columns (the first 10): how many of the row's pairs no
      other row holds, how many fewer than 5 other rows hold, and the fewest.
    """
    numeric = [c for c in known if release.schema[c].is_numeric()]
    text = [c for c in release.columns if release.schema[c] == pl.String][:MAX_PAIR_COLUMNS]
    coarse = [
        (pl.col(c).rank("min") * QUANTILES // (pl.len() + 1)).alias(f"_q_{c}") if c in numeric
        else pl.col(c).alias(f"_q_{c}")
        for c in known
    ]  # fmt: skip
    exprs: list[pl.Expr] = [
        pl.len().over(known).alias("profile_exact"),
    ]
    for c in numeric:
        exprs.append(pl.len().over(c).alias(f"mult_{c}"))
        exprs.append(pl.len().over(c).is_between(2, 3).cast(pl.Int8).alias(f"two_three_{c}"))
    pairs = [pl.len().over([a, b]) - 1 for a, b in itertools.combinations(text, 2)]
    if pairs:
        exprs += [
            pl.sum_horizontal([(p == 0).cast(pl.Int32) for p in pairs]).alias("pairs_absent"),
            pl.sum_horizontal([(p < 5).cast(pl.Int32) for p in pairs]).alias("pairs_rare"),
            pl.min_horizontal(pairs).alias("pairs_min"),
        ]
    staged = release.with_columns(coarse)
    q = [f"_q_{c}" for c in known]
    return staged.select(*exprs, pl.len().over(q).alias("profile_coarse"))


def changed_rows(changes: pl.DataFrame | None, rows: int) -> np.ndarray:
    """1 for each avatar row the change log names, else 0."""
    label = np.zeros(rows, dtype=np.int8)
    if changes is not None and changes.height:
        label[changes["avatar_row"].unique().to_numpy()] = 1
    return label


def cv_auc(features: pl.DataFrame, label: np.ndarray) -> float:
    """AUC of the fixed classifier's out-of-fold scores."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    x = features.fill_null(-1).to_numpy().astype(np.float64)
    model = HistGradientBoostingClassifier(random_state=0)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    score = cross_val_predict(model, x, label, cv=folds, method="predict_proba")[:, 1]
    return float(roc_auc_score(label, score))


def without_family(features: pl.DataFrame, family: str) -> pl.DataFrame:
    """``features`` less the columns of one of :data:`FAMILIES`."""
    return features.select(c for c in features.columns if not c.startswith(FAMILIES[family]))


def protect_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {"moves": args.moves, "distances": False, "utility": False}
    if args.rule is not None:
        options["rule"] = args.rule
    return options


def demo_tables() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The demo's originals (first 24,000 Adult rows), avatars (k 20, seed 0), holdout."""
    from kpr.avatar import generate

    data = pl.read_parquet(str(files("kpr") / "data" / "adult.parquet"))
    original = data.head(24_000)
    made = generate(original, k=20, seed=0)
    assert isinstance(made.avatars, pl.DataFrame)
    return original, made.avatars, data.slice(24_000)


def large_tables(rows: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``make_large.py``'s table (seed 0): continuous income, 100 regions."""
    sys.path.insert(0, str(Path(__file__).parent))
    from make_large import large_chunk

    original, avatars = large_chunk(rows, 0)
    return pl.from_arrow(original), pl.from_arrow(avatars)  # type: ignore[return-value]


def leak(args: argparse.Namespace) -> None:
    if args.case == "demo":
        original, avatars, _ = demo_tables()
        known, name = DEMO_KNOWN, "the demo (24,000 Adult rows, kpr avatars k 20 seed 0)"
    else:
        original, avatars = large_tables(args.rows)
        known, name = LARGE_KNOWN, f"make_large.py, {args.rows:,} rows"
    placebo_x = leak_features(avatars, known)
    rows = []
    ablated: dict[str, list[float]] = {}
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        table, result = kpr.protect(
            original, avatars, known, target=args.target, seed=seed, **protect_options(args)
        )
        if table.height != avatars.height:
            raise SystemExit("the leak is measured for moves that keep every row (no delete)")
        label = changed_rows(result.changes, avatars.height)
        protected_x = leak_features(table, known)
        protected = cv_auc(protected_x, label)
        placebo = cv_auc(placebo_x, label)
        after = result.worst_after.after.rate
        rows.append((seed, int(label.sum()), after, protected, placebo))
        print(f"seed {seed}: {label.sum()} rows changed, KPR after {after:.2f} %, "
              f"AUC protected {protected:.3f}, placebo {placebo:.3f}", flush=True)  # fmt: skip
        for family in FAMILIES if args.ablate else ():
            less = cv_auc(without_family(protected_x, family), label)
            less_placebo = cv_auc(without_family(placebo_x, family), label)
            ablated.setdefault(family, []).append(less - less_placebo)
            print(f"  without {family}: AUC protected {less:.3f}, placebo {less_placebo:.3f}, "
                  f"difference {less - less_placebo:+.3f}", flush=True)  # fmt: skip
    diffs = [r[3] - r[4] for r in rows]
    print(f"\n{name}, known {', '.join(known)}, target {args.target:g}, moves {args.moves}"
          + (f", rule {args.rule}" if args.rule else ""))  # fmt: skip
    print("| table | seeds | rows changed (mean) | AUC protected | AUC placebo | "
          "difference: mean | min | max |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {name} | {rows[0][0]} to {rows[-1][0]} | {statistics.mean(r[1] for r in rows):,.0f} | "
        f"{statistics.mean(r[3] for r in rows):.3f} | {statistics.mean(r[4] for r in rows):.3f} | "
        f"{statistics.mean(diffs):+.3f} | {min(diffs):+.3f} | {max(diffs):+.3f} |"
    )
    if ablated:
        print("\n| features | difference: mean | min | max |\n|---|---:|---:|---:|")
        print(f"| all | {statistics.mean(diffs):+.3f} | {min(diffs):+.3f} | {max(diffs):+.3f} |")
        for family, values in ablated.items():
            print(f"| without {family} | {statistics.mean(values):+.3f} | "
                  f"{min(values):+.3f} | {max(values):+.3f} |")  # fmt: skip


def window_rate(original: pl.DataFrame, table: pl.DataFrame, known: list[str]) -> float:
    """The window rule's rate (``kpr analyze --method window``)."""
    from kpr.analysis.analyze import analyze

    result = analyze(original, table, known, method="window", tolerances=None)
    return float(result.attack.rate)


def quality(original: pl.DataFrame, table: pl.DataFrame) -> float:
    """SDMetrics' QualityReport score (column shapes and pair trends)."""
    from sdmetrics.reports.single_table import QualityReport

    meta = {
        "columns": {
            c: {"sdtype": "numerical" if original.schema[c].is_numeric() else "categorical"}
            for c in original.columns
        }
    }
    report = QualityReport()
    report.generate(original.to_pandas(), table.to_pandas(), meta, verbose=False)
    return float(report.get_score())


def downstream_auc(train: pl.DataFrame, test: pl.DataFrame) -> float:
    """Train on ``train`` (income > 50K), AUC on ``test`` (originals never used)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score

    feats = [c for c in train.columns if c != "income"]

    # one fixed code per category, the same in train and test and whatever the row
    # order or earlier calls (a global string cache made the AUC depend on both)
    levels = {
        c: sorted(set(train[c].drop_nulls()) | set(test[c].drop_nulls()))
        for c in feats
        if train.schema[c] == pl.String
    }

    def xy(t: pl.DataFrame) -> tuple[Any, np.ndarray]:
        x = t.select(
            pl.col(c).cast(pl.Enum(levels[c])).to_physical() if c in levels else pl.col(c)
            for c in feats
        ).to_pandas()
        return x, t["income"].str.contains(">").fill_null(False).to_numpy()

    xtr, ytr = xy(train)
    xte, yte = xy(test)
    cats = [i for i, c in enumerate(feats) if train.schema[c] == pl.String]
    model = HistGradientBoostingClassifier(random_state=0, categorical_features=cats)
    model.fit(xtr, ytr)
    return float(roc_auc_score(yte, model.predict_proba(xte)[:, 1]))


def cost(args: argparse.Namespace) -> None:
    from kpr.avatar import avatarize, generate

    original, avatars, holdout = demo_tables()
    made = generate(original, k=20, seed=0)
    pairing = pl.DataFrame({"original_row": np.arange(original.height), "avatar_row": made.pairing})
    known = DEMO_KNOWN
    print("| release | class-rule KPR | window-rule KPR | cells changed | SDMetrics quality | "
          "downstream AUC (income > 50K, holdout) |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|")

    def row(label: str, table: pl.DataFrame, cells: str) -> None:
        rate = kpr.evaluate(original, table, known).rate
        print(f"| {label} | {rate:.2f} % | {window_rate(original, table, known):.2f} % | {cells} | "
              f"{quality(original, table):.4f} | {downstream_auc(table, holdout):.4f} |",
              flush=True)  # fmt: skip

    row("avatars as made (k 20)", avatars, "0")
    extra = {"rule": args.rule} if args.rule else {}
    for moves in ("swap,shift", "swap", "suppress", "delete", "regenerate"):
        table, r = kpr.protect(
            original, avatars, known, target=args.target, moves=moves, seed=0,
            pairing=pairing if moves == "regenerate" else None,
            distances=False, utility=False, **extra,
        )  # fmt: skip
        label = f"protect {moves}" + ("" if r.met else " (target not met)")
        row(label, table, f"{r.cells_total:,}")
    for k in args.raise_k:
        table = avatarize(original, k=k, seed=0)
        assert isinstance(table, pl.DataFrame)
        row(f"raise k to {k}", table, "every cell")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["demo", "large", "cost"], default="demo")
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=100_000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0, help="protect seeds from this one")
    parser.add_argument("--target", type=float, default=99.0)
    parser.add_argument("--moves", default="swap,shift")
    parser.add_argument("--rule", default=None)
    parser.add_argument("--raise-k", type=int, nargs="*", default=[40, 80, 160])
    parser.add_argument(
        "--ablate", action="store_true", help="leave out one feature family at a time"
    )
    args = parser.parse_args()
    if args.case == "cost":
        cost(args)
    else:
        leak(args)


if __name__ == "__main__":
    main()
