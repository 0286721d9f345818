"""SDMetrics' CategoricalCAP, CategoricalZeroCAP and DisclosureProtection of one
secret, by group-by: the cells of the raw known values x the raw secret (or, for
DisclosureProtection, with each numeric column cut into SDMetrics' 10 bins) are
counted by the engine (``kpr.engine.profiles``) and the figures added up from them
(``kpr.metric.cap_family``). Each says when SDMetrics would refuse the input.
"""

from __future__ import annotations

import math
from typing import Any

import narwhals as nw

from kpr.engine.profiles import cells, profile_counts
from kpr.inputs.reconcile import Prepared
from kpr.metric.attack import Attack, Kind
from kpr.metric.cap_family import (
    categorical_cap,
    categorical_zero_cap,
    cut_edges,
    disclosure_protection,
)
from kpr.results.inference import SdmetricsFigure

CAP, ZERO_CAP, DISCLOSURE = "CategoricalCAP", "CategoricalZeroCAP", "DisclosureProtection"


def _row(frame: nw.LazyFrame[Any], exprs: list[nw.Expr]) -> dict[str, Any]:
    native = frame.select(exprs).collect(backend="polars").to_native()
    return {k: v[0] for k, v in native.to_dict(as_series=False).items()}


def _missing(pair: Prepared, columns: list[str]) -> list[str]:
    """The columns with a missing value in either table."""
    exprs = [nw.col(c).null_count().alias(c) for c in columns]
    o, a = _row(pair.original, exprs), _row(pair.avatars, exprs)
    return [c for c in columns if (o[c] or 0) + (a[c] or 0) > 0]


def _cap_refusal(pair: Prepared, columns: list[str]) -> str:
    """Why SDMetrics' CategoricalCAP refuses these columns ("" when it accepts them):
    categories, integers and booleans only, no missing value (it compares tuples of
    raw values, where NaN never equals NaN)."""
    # missing values first: an integer column with a missing value is a float column
    # in pandas and Dask, an integer one elsewhere; without any, every engine agrees
    missing = _missing(pair, columns)
    if missing:
        return f"{missing[0]!r} has missing values"
    schema = pair.original.collect_schema()
    for c in columns:
        if pair.kinds[c] is Kind.DATE or schema[c].is_float():
            return f"{c!r} holds {'dates' if pair.kinds[c] is Kind.DATE else 'decimals'}"
    return ""


def _edges(pair: Prepared, numeric: list[str]) -> tuple[dict[str, tuple[float, ...]], str]:
    """SDMetrics' cut of each numeric column over the original's values, or why it
    refuses one (an infinite value, no value at all)."""
    if not numeric:
        return {}, ""
    exprs: list[nw.Expr] = []
    for i, c in enumerate(numeric):
        x = nw.col(c).cast(nw.Float64)
        exprs += [x.min().alias(f"lo{i}"), x.max().alias(f"hi{i}")]
    row = _row(pair.original, exprs)
    edges = {}
    for i, c in enumerate(numeric):
        lo, hi = row[f"lo{i}"], row[f"hi{i}"]
        if lo is None or hi is None:
            return {}, f"{c!r} has no value in the original"
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return {}, f"{c!r} holds an infinite value"
        edges[c] = cut_edges(lo, hi)
    return edges, ""


def cap_family(pair: Prepared, attack: Attack, secret: str) -> tuple[SdmetricsFigure, ...]:
    """The three figures, each None with the reason where SDMetrics would refuse."""
    columns = [*attack.known, secret]
    raw = dict.fromkeys(columns, Kind.CATEGORICAL)
    refusal = _cap_refusal(pair, columns)
    if refusal:
        figures = [SdmetricsFigure(CAP, None, refusal), SdmetricsFigure(ZERO_CAP, None, refusal)]
    else:
        c = cells(profile_counts(pair.original, pair.avatars, attack, raw, secret))
        nan = "no real row's key is among the synthetic rows"
        figures = [
            SdmetricsFigure(CAP, categorical_cap(c), nan),
            SdmetricsFigure(ZERO_CAP, categorical_zero_cap(c)),
        ]
    if any(pair.kinds[c] is Kind.DATE for c in columns):
        date = next(c for c in columns if pair.kinds[c] is Kind.DATE)
        figures.append(
            SdmetricsFigure(DISCLOSURE, None, f"{date!r} holds dates, which kpr does not cut "
                            "as SDMetrics does (on nanoseconds)")
        )  # fmt: skip
        return tuple(figures)
    edges, refusal = _edges(pair, [c for c in columns if pair.kinds[c] is Kind.NUMERIC])
    if refusal:
        figures.append(SdmetricsFigure(DISCLOSURE, None, refusal))
        return tuple(figures)
    c = cells(profile_counts(pair.original, pair.avatars, attack, raw, secret, edges))
    dp = disclosure_protection(c)
    figures.append(
        SdmetricsFigure(
            DISCLOSURE, dp.score, "one category of the secret, or no key matched",
            dp.cap_protection, dp.baseline_protection,
        )
    )  # fmt: skip
    return tuple(figures)
