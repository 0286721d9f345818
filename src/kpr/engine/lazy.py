"""The metric as narwhals lazy queries: one translation of the spec that runs on
every backend narwhals supports (polars, DuckDB, PySpark, Dask, ...).

Steps (the spec's numbering):
1. U: group the original by its raw known values, keep groups of one row.
2. Two aggregation passes over U collect the moments of each numeric column;
   ``kpr.metric.binning`` turns them into ``lo``/``width`` (never done here).
3. Codes: ``floor((x - lo) / width)`` and the special classes, as expressions.
4-5. B1 and S in one group-by over U's and the avatars' codes stacked: a
   profile is linked when exactly one avatar row has it; every U row that has
   it is in S. Stacking instead of joining keeps missing == missing on every
   backend (SQL joins never match NULL with NULL).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import narwhals as nw

from kpr.metric.binning import (
    MISSING,
    NEG_INF,
    OUTSIDE,
    POS_INF,
    Moments,
    NumericBins,
    numeric_bins,
    shift_for,
)
from kpr.metric.plan import Attack, Kind

Frame = nw.LazyFrame[Any]
Progress = Callable[[str], None]

_N = "__kpr_n__"
_AV = "__kpr_is_avatar__"
_AROW = "__kpr_avatar_row__"
_NAV = "__kpr_n_avatars__"


def _code_name(name: str) -> str:
    return f"__kpr_code__{name}"


@dataclass
class EngineRun:
    """What the engine computed; row frames stay lazy until asked for."""

    n: int
    n_avatars: int
    unique_originals: int
    linked: int
    bins: dict[str, NumericBins]
    coded_u: Frame  # U with its codes (and row positions when available)
    coded_avatars: Frame
    row: str | None


def _noop(_: str) -> None:
    return None


def _collect_row(frame: Frame) -> dict[str, Any]:
    """Collect a one-row aggregate into a plain dict."""
    data = frame.collect().to_dict(as_series=False)
    return {k: v[0] for k, v in data.items()}


def unique_rows(original: Frame, known: Sequence[str], row: str | None) -> Frame:
    """U: the original rows whose tuple of raw known values occurs exactly once."""
    aggs = [nw.len().alias(_N)]
    if row is not None:
        aggs.append(nw.col(row).min())
    return (
        original.group_by(*known, drop_null_keys=False).agg(*aggs).filter(nw.col(_N) == 1).drop(_N)
    )


def collect_moments(u: Frame, numeric: Sequence[str]) -> dict[str, Moments]:
    """Two passes over U: count/sum/min/max, then shifted sums (see ``binning``)."""
    if not numeric:
        return {}

    def finite(name: str) -> nw.Expr:
        x = nw.col(name).cast(nw.Float64)
        return nw.when(x.is_finite()).then(x)

    first = _collect_row(
        u.select(
            *(
                e
                for i, n in enumerate(numeric)
                for e in (
                    finite(n).count().alias(f"c{i}"),
                    finite(n).sum().alias(f"s{i}"),
                    finite(n).min().alias(f"lo{i}"),
                    finite(n).max().alias(f"hi{i}"),
                )
            )
        )
    )
    shifts = {
        n: shift_for(int(first[f"c{i}"] or 0), float(first[f"s{i}"] or 0.0), first[f"lo{i}"])
        for i, n in enumerate(numeric)
    }
    second = _collect_row(
        u.select(
            *(
                e
                for i, n in enumerate(numeric)
                for e in (
                    (finite(n) - shifts[n]).sum().alias(f"d{i}"),
                    ((finite(n) - shifts[n]) ** 2).sum().alias(f"dd{i}"),
                )
            )
        )
    )
    out = {}
    for i, n in enumerate(numeric):
        count = int(first[f"c{i}"] or 0)
        lo, hi = first[f"lo{i}"], first[f"hi{i}"]
        out[n] = Moments(
            count=count,
            minimum=None if count == 0 else float(lo),
            maximum=None if count == 0 else float(hi),
            shift=shifts[n],
            sum_d=float(second[f"d{i}"] or 0.0),
            sum_d2=float(second[f"dd{i}"] or 0.0),
        )
    return out


def code_expr(name: str, bins: NumericBins) -> nw.Expr:
    """The class of each value of a numeric column, as the spec defines it."""
    x = nw.col(name).cast(nw.Float64)
    if bins.code_min is None or bins.code_max is None:
        finite_code: nw.Expr = nw.lit(float(OUTSIDE), nw.Float64)
    else:
        q = ((x - bins.lo) / bins.width).floor()
        inside = (q >= bins.code_min) & (q <= bins.code_max)
        finite_code = nw.when(inside).then(q).otherwise(nw.lit(float(OUTSIDE), nw.Float64))
    expr = (
        nw.when(x.is_null())
        .then(nw.lit(float(MISSING), nw.Float64))
        .otherwise(
            nw.when(x == math.inf)
            .then(nw.lit(float(POS_INF), nw.Float64))
            .otherwise(
                nw.when(x == -math.inf)
                .then(nw.lit(float(NEG_INF), nw.Float64))
                .otherwise(finite_code)
            )
        )
    )
    return expr.cast(nw.Int64) if bins.int_codes else expr


def code_frame(
    frame: Frame,
    kinds: Mapping[str, Kind],
    bins: Mapping[str, NumericBins],
    row: str | None,
) -> Frame:
    """A table's binned profiles: one code column per known variable."""
    cols = [
        (code_expr(n, bins[n]) if k is Kind.NUMERIC else nw.col(n)).alias(_code_name(n))
        for n, k in kinds.items()
    ]
    if row is not None:
        cols.insert(0, nw.col(row))
    return frame.select(cols)


def _stacked(coded_u: Frame, coded_a: Frame, keys: list[str], row: str | None) -> Frame:
    u = coded_u.with_columns(nw.lit(0, nw.Int64).alias(_AV))
    a = coded_a.with_columns(nw.lit(1, nw.Int64).alias(_AV))
    if row is not None:
        u = u.with_columns(nw.lit(None, nw.Int64).alias(_AROW)).with_columns(
            nw.col(row).cast(nw.Int64)
        )
        a = a.with_columns(nw.col(row).cast(nw.Int64).alias(_AROW)).with_columns(
            nw.lit(None, nw.Int64).alias(row)
        )
        order = [row, _AROW, *keys, _AV]
        u, a = u.select(order), a.select(order)
    return nw.concat([u, a], how="vertical")


def count_linked(coded_u: Frame, coded_a: Frame, keys: list[str]) -> int:
    """|S|: U members whose profile is held by exactly one avatar."""
    stacked = _stacked(coded_u, coded_a, keys, None)
    result = _collect_row(
        stacked.group_by(*keys, drop_null_keys=False)
        .agg(nw.col(_AV).sum().alias(_NAV), nw.len().alias(_N))
        .filter(nw.col(_NAV) == 1)
        .select((nw.col(_N) - nw.col(_NAV)).sum().alias("linked"))
    )
    return int(result["linked"] or 0)


def class_counts(run: EngineRun, original: Frame, kinds: Mapping[str, Kind], name: str) -> Frame:
    """Per class (numeric) or value (categorical) of one known variable: how many
    originals, avatars, members of U and linked individuals it holds."""
    code = _code_name(name)
    keys = [_code_name(n) for n in kinds]
    coded_o = code_frame(original, kinds, run.bins, None)
    parts = {"originals": coded_o, "avatars": run.coded_avatars, "unique_originals": run.coded_u}
    columns = [*parts, "linked"]
    frames = []
    for label, frame in parts.items():
        frames.append(
            frame.group_by(code, drop_null_keys=False)
            .agg(nw.len().cast(nw.Int64).alias(label))
            .select(
                code,
                *(nw.col(label) if c == label else nw.lit(0, nw.Int64).alias(c) for c in columns),
            )
        )
    linked = (
        _stacked(run.coded_u, run.coded_avatars, keys, None)
        .group_by(*keys, drop_null_keys=False)
        .agg(nw.col(_AV).sum().alias(_NAV), nw.len().alias(_N))
        .filter(nw.col(_NAV) == 1)
        .group_by(code, drop_null_keys=False)
        .agg((nw.col(_N) - nw.col(_NAV)).sum().cast(nw.Int64).alias("linked"))
    )
    frames.append(
        linked.select(
            code,
            *(nw.col(c) if c == "linked" else nw.lit(0, nw.Int64).alias(c) for c in columns),
        )
    )
    return (
        nw.concat(frames, how="vertical")
        .group_by(code, drop_null_keys=False)
        .agg(*(nw.col(c).sum() for c in columns))
        .rename({code: name})
        .sort(name, nulls_last=True)
    )


def linked_pairs(run: EngineRun, kinds: Mapping[str, Kind]) -> Frame:
    """One row per linked individual: original row, avatar row, binned profile."""
    if run.row is None:
        raise ValueError("row positions are not available for this engine")
    keys = [_code_name(n) for n in kinds]
    stacked = _stacked(run.coded_u, run.coded_avatars, keys, run.row)
    renamed = {_code_name(n): n for n in kinds}
    return (
        stacked.with_columns(
            nw.col(_AV).sum().over(*keys).alias(_NAV),
            nw.col(_AROW).max().over(*keys),
        )
        .filter((nw.col(_AV) == 0) & (nw.col(_NAV) == 1))
        .select(
            nw.col(run.row).alias("original_row"),
            nw.col(_AROW).alias("avatar_row"),
            *(nw.col(k).alias(renamed[k]) for k in keys),
        )
        .sort("original_row")
    )


def run(
    original: Frame,
    avatars: Frame,
    attack: Attack,
    kinds: Mapping[str, Kind],
    *,
    row: str | None,
    persist: Callable[[Frame], Frame] = lambda f: f,
    progress: Progress = _noop,
) -> EngineRun:
    """Compute every count of the metric; see the module docstring for the steps."""
    known = list(attack.known)
    progress("counting rows")
    n = int(_collect_row(original.select(nw.len().alias("n")))["n"])
    m = int(_collect_row(avatars.select(nw.len().alias("m")))["m"])
    progress("finding the original records present once (U)")
    u = persist(unique_rows(original, known, row))
    size_u = int(_collect_row(u.select(nw.len().alias("u")))["u"])
    progress("collecting the statistics over U")
    numeric = [v for v in known if kinds[v] is Kind.NUMERIC]
    moments = collect_moments(u, numeric)
    bins = {v: numeric_bins(moments[v], attack.tolerance) for v in numeric}
    progress("linking U to the avatar profiles present once")
    coded_u = code_frame(u, kinds, bins, row)
    coded_a = code_frame(avatars, kinds, bins, row)
    keys = [_code_name(v) for v in known]
    linked = count_linked(coded_u, coded_a, keys) if size_u and m else 0
    return EngineRun(n, m, size_u, linked, bins, coded_u, coded_a, row)
