"""The polars backend (and pandas and pyarrow inputs, which are read into polars).

Every query runs on polars' streaming engine. When G (the original grouped by its
raw known values) is in memory, the statistics, the column profile and the
identifying-variable counts come from one group-by of G per known variable (each
distinct value with its rows in the original and in U; ``Scan``), the exact sums
taken over the distinct values only (``kpr.engine.encoded.weighted_moments``).
Above ``HASHED_ROWS`` original rows, G is built without a hash table of every
distinct tuple: each row's known values are hashed, the hashes sorted (8 bytes a
row), and only rows whose hash occurs more than once go through an exact
group-by. A row whose hash is unique has a unique tuple, so this is exact
whatever the collisions. G is kept in memory up to ``PERSIST_ROWS`` rows, else
recomputed by each query (a 100M-row Parquet file is never loaded). Steps 4-5
group the avatars' profiles packed into one exact 64-bit integer each
(``packed_link``), then semi-join U on the profiles present once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.engine import queries
from kpr.engine.encoded import weighted_moments
from kpr.engine.queries import Frame, Hooks, Scan
from kpr.metric.attack import Kind
from kpr.metric.binning import Moments, NumericBins

#: Above this many original rows, polars builds G from row hashes (never a hash
#: table of every distinct tuple) and packs profiles into one integer for steps
#: 4-5 (measured faster from about 25,000 rows on; the only way at 100M rows).
HASHED_ROWS = 25_000
#: Up to this many original rows, polars keeps G in memory for the three queries.
PERSIST_ROWS = 20_000_000

_H = "__kpr_hash__"
_TEXT_TYPES = (pl.String, pl.Categorical, pl.Enum)


def _polars(frame: Frame) -> pl.LazyFrame:
    native = frame.to_native()
    assert isinstance(native, pl.LazyFrame)
    return native


class PolarsHooks(Hooks):
    """Small inputs: G grouped and kept in memory, the link by a semi-join.
    Large inputs: hashed G (kept up to ``PERSIST_ROWS``), packed profiles."""

    def __init__(self, hashed_rows: int | None = None) -> None:
        self.hashed_rows = HASHED_ROWS if hashed_rows is None else hashed_rows
        self.hashed = False
        self.in_memory = False

    def groups(self, original: Frame, known: Sequence[str], row: str | None) -> Frame:
        lf = _polars(original)
        n = lf.select(pl.len()).collect().item()
        self.hashed = n > self.hashed_rows
        if self.hashed:
            g = nw.from_native(hashed_groups(lf, known, row))
        else:
            g = queries.original_groups(original, known, row)
        self.in_memory = n <= PERSIST_ROWS
        if self.in_memory:  # small enough to keep: G is read by three queries
            return nw.from_native(_polars(g).collect(engine="streaming").lazy())
        return g

    def scan(
        self,
        groups: Frame,
        kinds: Mapping[str, Kind],
        exact: Sequence[str],
        integers: Sequence[str],
    ) -> Scan | None:
        if not self.in_memory:  # G is recomputed by each query: the two lean passes
            return None
        return distinct_scan(_polars(groups), kinds, exact, integers)

    def collect(self, frame: Frame) -> dict[str, Any]:
        out = _polars(frame).collect(engine="streaming")
        return {k: v[0] for k, v in out.to_dict(as_series=False).items()}

    def link(
        self,
        coded_u: Frame,
        coded_a: Frame,
        keys: list[str],
        bins: Mapping[str, NumericBins],
    ) -> tuple[int, int]:
        u, a = _polars(coded_u).select(keys), _polars(coded_a).select(keys)
        if self.hashed:
            code_bins = {queries._code_name(v): b for v, b in bins.items()}
            counts = packed_link(u, a, keys, code_bins)
            if counts is not None:
                return counts
        return exact_link(u, a, keys)


_O, _U = "__kpr_o__", "__kpr_u__"


def distinct_scan(
    groups: pl.LazyFrame, kinds: Mapping[str, Kind], exact: Sequence[str], integers: Sequence[str]
) -> Scan:
    """:class:`kpr.engine.queries.Scan` of G in memory: per known variable, its
    distinct values with their rows in the original and in U (one group-by each,
    all run at once); every figure is then a sum over those values."""
    n = pl.col(queries._N)
    per_value = [
        groups.group_by(v).agg(
            n.sum().cast(pl.Int64).alias(_O), (n == 1).sum().cast(pl.Int64).alias(_U)
        )
        for v in kinds
    ]
    moments: dict[str, Moments] = {}
    profile: dict[str, dict[str, int]] = {}
    unique_rows: dict[str, int] = {}
    total = size_u = 0
    for v, frame in zip(kinds, pl.collect_all(per_value), strict=True):
        rows, in_u = frame[_O].to_numpy(), frame[_U].to_numpy()
        null = frame[v].is_null().to_numpy()
        total, size_u = int(rows.sum()), int(in_u.sum())
        unique_rows[v] = int(np.count_nonzero(rows == 1))
        profile[v] = {"missing": int(rows[null].sum())}
        if v in integers:
            profile[v]["distinct"] = int(np.count_nonzero(~null))
        if kinds[v].binned:
            values = frame[v].cast(pl.Float64).to_numpy()
            ints = frame[v].cast(pl.Int64).fill_null(0).to_numpy() if v in exact else None
            moments[v] = weighted_moments(values, ints, np.where(null, 0, in_u))
    return Scan(total, size_u, moments, profile, unique_rows)


def hashed_groups(lf: pl.LazyFrame, known: Sequence[str], row: str | None) -> pl.LazyFrame:
    """G without a hash table of every distinct tuple: rows whose hash is unique
    are groups of one; only rows sharing a hash (true duplicates and the rare
    collisions) are grouped exactly. Same content as ``original_groups``."""
    keys = list(known)
    h = pl.struct(keys).hash().alias(_H)
    hashes = lf.select(h).collect(engine="streaming").to_series().sort()
    values = hashes.to_numpy()
    shared = np.unique(values[1:][values[1:] == values[:-1]])
    del hashes, values
    dupes = pl.LazyFrame({_H: pl.Series(_H, shared, dtype=pl.UInt64)})
    hashed = lf.with_columns(h)
    order = [*keys, *([row] if row else []), queries._N]
    once = (
        hashed.join(dupes, on=_H, how="anti")
        .with_columns(pl.lit(1, pl.Int64).alias(queries._N))
        .select(order)
    )
    aggs = [pl.len().cast(pl.Int64).alias(queries._N)]
    if row is not None:
        aggs.append(pl.col(row).min())
    many = (
        hashed.join(dupes, on=_H, how="semi")
        .group_by(keys)
        .agg(aggs)
        .select(order)
        .collect(engine="streaming")
    )
    return pl.concat([once, many.lazy()], how="vertical")


def exact_link(u: pl.LazyFrame, a: pl.LazyFrame, keys: list[str]) -> tuple[int, int]:
    """m and |S|: polars joins can match null with null, so a semi-join of U's
    codes on the avatar profiles present once replaces the stacked group-by."""
    once = a.group_by(keys).agg(pl.len().alias("c")).filter(pl.col("c") == 1).drop("c")
    linked = u.join(once, on=keys, how="semi", nulls_equal=True).select(pl.len().alias("s"))
    s, m = pl.collect_all([linked, a.select(pl.len().alias("m"))], engine="streaming")
    return int(m.item()), int(s.item())


def packed_link(
    u: pl.LazyFrame, a: pl.LazyFrame, keys: list[str], bins: Mapping[str, NumericBins]
) -> tuple[int, int] | None:
    """m and |S| with each profile packed into one exact 64-bit integer.

    polars' streaming group-by on several keys (or with per-group aggregates)
    takes several GiB at 100M rows; on one integer key it takes a fraction.
    Each code becomes a digit of a mixed-radix number: numeric codes (special
    codes included) shifted to start at 0, text values as their categorical
    ids, booleans and integers as small offsets; missing is digit 0. The
    packing is injective, so the counts are exact. None (use ``exact_link``)
    when a column cannot be packed or the digits need more than 63 bits.
    """
    schema = a.collect_schema()
    text = [k for k in keys if k not in bins and isinstance(schema[k], _TEXT_TYPES)]
    ints = [k for k in keys if k not in bins and schema[k].is_integer()]
    flags = [k for k in keys if k not in bins and schema[k] == pl.Boolean]
    if any(not b.int_codes for b in bins.values()) or len(text) + len(ints) + len(flags) + len(
        bins
    ) != len(keys):
        return None
    ids = {
        k: pl.col(k).cast(pl.String).cast(pl.Categorical).to_physical().cast(pl.Int64) for k in text
    }
    ranges = (
        a.select(
            *(ids[k].max().alias(f"{k}__hi") for k in text),
            *(pl.col(k).min().alias(f"{k}__lo") for k in ints),
            *(pl.col(k).max().alias(f"{k}__hi") for k in ints),
        )
        .collect(engine="streaming")
        .row(0, named=True)
        if text or ints
        else {}
    )
    digits: list[tuple[pl.Expr, int]] = []  # (digit, radix), digit in [0, radix) or -1
    for k in keys:
        if k in bins:
            top = bins[k].code_max
            radix = 4 + (0 if top is None else int(top) + 1)
            digits.append((pl.col(k) + 4, radix))
        elif k in flags:
            digits.append((pl.col(k).cast(pl.Int64) + 1, 3))
        elif k in text:
            hi = ranges[f"{k}__hi"]
            radix = 1 if hi is None else int(hi) + 2
            digits.append((ids[k] + 1, radix))
        else:
            lo, hi = ranges[f"{k}__lo"], ranges[f"{k}__hi"]
            if lo is None:  # no avatar value: only missing can match (a column, not a
                # literal, which polars would turn into one row)
                digits.append((pl.when(pl.col(k).is_null()).then(0).otherwise(-1), 1))
                continue
            radix = int(hi) - int(lo) + 2
            if radix >= 2**62:
                return None
            # a U value outside the avatars' range is no digit (-1): subtracting first
            # could wrap around int64 onto a valid digit
            outside = ~pl.col(k).is_between(int(lo), int(hi))
            digits.append((pl.when(outside).then(-1).otherwise(pl.col(k) - int(lo) + 1), radix))
    if math.prod(r for _, r in digits) >= 2**63:
        return None
    key: pl.Expr = pl.lit(0, pl.Int64)
    valid: pl.Expr = pl.lit(True)
    for digit, radix in digits:
        d = digit.fill_null(0)
        key = key * radix + d
        valid = valid & (d >= 0) & (d < radix)
    packed = pl.when(valid).then(key).otherwise(-1).alias(_H)
    counts = a.select(packed).group_by(_H).agg(pl.len().alias("c"))
    once = counts.filter(pl.col("c") == 1).select(_H)
    linked = u.select(packed).join(once, on=_H, how="semi").select(pl.len().alias("s"))
    m = a.select(pl.len().alias("m"))
    s, total = pl.collect_all([linked, m], engine="streaming")
    return int(total.item()), int(s.item())
