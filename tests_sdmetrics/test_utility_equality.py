"""``kpr.utility`` equals SDMetrics' own Quality Report: every column score, every
pair score and the property and overall scores, within 1e-9, on the demo data and
on generated tables with missing values, dates and rare categories.

SDMetrics is run as a user runs it (``QualityReport.generate``), once with its
default thresholds (the property scores, the pairs that count, the real Cramer's
V) and once with the thresholds at 0, which makes it score every pair. Tables stay
under its 50,000-row subsampling of contingency pairs, which would make its
figures random.
"""

from __future__ import annotations

import math
import warnings
from importlib.resources import files
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import kpr

DEMO = files("kpr") / "data"
TOL = 1e-9
SDTYPES = {"numeric": "numerical", "date": "datetime", "categorical": "categorical"}


def quality_report(
    real: pd.DataFrame, synthetic: pd.DataFrame, kinds: dict[str, str], thresholds: bool = True
) -> Any:
    from sdmetrics.reports.single_table import QualityReport

    metadata = {"columns": {c: {"sdtype": SDTYPES[k]} for c, k in kinds.items()}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = QualityReport()
        if not thresholds:
            report.real_correlation_threshold = 0
            report.real_association_threshold = 0
        report.generate(real, synthetic, metadata, verbose=False)
    return report


def same(a: float | None, b: float | None) -> bool:
    """Equal within TOL, or both undefined."""
    a = math.nan if a is None else float(a)
    b = math.nan if b is None else float(b)
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= TOL


def check_equal(real: pd.DataFrame, synthetic: pd.DataFrame, kinds: dict[str, str]) -> Any:
    """Every figure kpr shares with SDMetrics, compared; returns kpr's result."""
    mine = kpr.utility(real, synthetic, kinds=kinds)
    report = quality_report(real, synthetic, kinds)
    every_pair = quality_report(real, synthetic, kinds, thresholds=False)

    shapes = report.get_details("Column Shapes")
    assert list(shapes["Column"]) == list(mine.columns["column"])
    assert list(shapes["Metric"]) == list(mine.columns["metric"])
    for theirs, ours in zip(shapes["Score"], mine.columns["score"], strict=True):
        assert same(theirs, ours), (theirs, ours)

    trends = report.get_details("Column Pair Trends")
    scored = every_pair.get_details("Column Pair Trends")
    pairs = mine.pairs
    assert list(zip(trends["Column 1"], trends["Column 2"], strict=True)) == list(
        zip(pairs["column_1"], pairs["column_2"], strict=True)
    )
    assert list(trends["Metric"]) == list(pairs["metric"])
    for i, row in enumerate(pairs.iter_rows(named=True)):
        assert same(scored["Score"].iloc[i], row["score"]), (row, scored.iloc[i])
        if not math.isnan(trends["Score"].iloc[i]):  # defined where it passed the threshold
            assert same(trends["Score"].iloc[i], row["score"])
        assert bool(trends["Meets Threshold?"].fillna(False).iloc[i]) == (
            row["meets_threshold"] and not math.isnan(row["score"])
        ), row
        if row["metric"] == "ContingencySimilarity":
            assert same(trends["Real Association"].iloc[i], row["real_cramers_v"]), row
        else:
            assert same(scored["Real Correlation"].iloc[i], row["real_correlation"]), row
            if not math.isnan(scored["Score"].iloc[i]):
                assert same(scored["Synthetic Correlation"].iloc[i], row["synthetic_correlation"])

    props = report.get_properties().set_index("Property")["Score"]
    assert same(props["Column Shapes"], mine.column_shapes)
    assert same(props["Column Pair Trends"], mine.column_pair_trends)
    assert same(report.get_score(), mine.overall)
    return mine


def test_equal_on_the_demo_data() -> None:
    real = pd.read_parquet(str(DEMO / "adult.parquet"))
    synthetic = pd.read_parquet(str(DEMO / "adult_avatars.parquet"))
    kinds = {
        c: "numeric" if pd.api.types.is_numeric_dtype(t) else "categorical"
        for c, t in real.dtypes.items()
    }
    mine = check_equal(real, synthetic, kinds)
    assert len(mine.pairs) == 105
    assert mine.pairs["meets_threshold"].sum() > 0  # the property has pairs to average


LEVELS = ["a", "b", "c", "rare", None]
EPOCH = np.datetime64("2020-01-01T00:00:00", "s")


@st.composite
def tables(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two tables of one schema: floats with NaN, integers, datetimes with NaT (to the
    second), categories with missing values and one rare or synthetic-only level."""

    def one(n: int, levels: list[str | None]) -> pd.DataFrame:
        floats = st.one_of(
            st.none(), st.floats(-50, 50, allow_nan=False).map(lambda x: round(x, 3))
        )
        x = draw(st.lists(floats, min_size=n, max_size=n))
        k = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
        seconds = draw(
            st.lists(st.one_of(st.none(), st.integers(0, 10**8)), min_size=n, max_size=n)
        )
        cat = draw(st.lists(st.sampled_from(levels), min_size=n, max_size=n))
        cat2 = draw(st.lists(st.sampled_from(["u", "v", None]), min_size=n, max_size=n))
        return pd.DataFrame(
            {
                "x": pd.array([np.nan if v is None else v for v in x], dtype="float64"),
                "k": np.asarray(k, dtype="int64"),
                "when": pd.to_datetime(
                    [pd.NaT if s is None else EPOCH + np.timedelta64(s, "s") for s in seconds]
                ).astype("datetime64[ns]"),
                "cat": pd.Series(cat, dtype="object"),
                "cat2": pd.Series(cat2, dtype="object"),
            }
        )

    n_real = draw(st.integers(3, 40))
    n_syn = draw(st.integers(3, 40))
    real = one(n_real, [*LEVELS[:3], None])
    synthetic = one(n_syn, LEVELS)  # "rare" appears only in the synthetic table
    return real, synthetic


KINDS = {
    "x": "numeric",
    "k": "numeric",
    "when": "date",
    "cat": "categorical",
    "cat2": "categorical",
}


@settings(max_examples=40)
@given(tables())
def test_equal_on_generated_tables(pair: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    real, synthetic = pair
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SDMetrics' warnings on constant columns
        check_equal(real, synthetic, KINDS)


def test_equal_with_correlated_columns_and_strong_associations() -> None:
    """A table where pairs pass the thresholds, so the property averages many pairs."""
    rng = np.random.default_rng(0)

    def make(n: int, noise: float) -> pd.DataFrame:
        x = rng.normal(0, 1, n)
        group = np.where(x > 0, "hi", "lo")
        y = 2 * x + rng.normal(0, noise, n)
        y[rng.random(n) < 0.05] = np.nan
        when = EPOCH + (x * 86400 * 30).astype("int64").astype("timedelta64[s]")
        return pd.DataFrame(
            {"x": x, "y": y, "when": pd.Series(when).astype("datetime64[ns]"), "group": group}
        )

    mine = check_equal(make(3000, 0.5), make(2500, 1.5), {
        "x": "numeric", "y": "numeric", "when": "date", "group": "categorical",
    })  # fmt: skip
    assert mine.pairs["meets_threshold"].all()


def test_polars_and_pandas_inputs_give_the_same_scores() -> None:
    real = pd.read_parquet(str(DEMO / "adult.parquet")).head(5000)
    synthetic = pd.read_parquet(str(DEMO / "adult_avatars.parquet")).head(4000)
    a = kpr.utility(real, synthetic).to_dict()
    b = kpr.utility(pl.from_pandas(real), pl.from_pandas(synthetic)).to_dict()
    assert a == b
