"""The polars backend (and pandas and pyarrow inputs, which are read into polars).

Every query runs on polars' streaming engine. Hash tables of millions of
distinct values (a continuous column, a profile per row) cost several times a
sort of 8-byte values, so the wide steps are sorts:

- Up to ``PERSIST_ROWS`` original rows, the original is read once into memory and
  G (the original grouped by its raw known values) built from one hash of each
  row: rows whose hash is unique are groups of one (a unique hash means a unique
  tuple, whatever the collisions); only rows sharing a hash are grouped exactly.
  The statistics, the column profile and the identifying-variable counts then
  come from one pass over G per known variable (``Scan``): a group-by of its
  values, or a sort of them for a numeric column with many distinct values; the
  exact sums go through ``kpr.engine.encoded.weighted_moments``. Steps 4-5 pack
  each profile into one exact 64-bit integer (``packed_keys``) and count the keys
  by a sort (``kpr.engine.encoded.linked_count``).
- Above it (a 100M-row Parquet file is never loaded), G is rebuilt by each query
  from the rows' hashes, sorted once (8 bytes a row); the identifying-variable
  counts take one column at a time, sorted; the packed profiles of the avatars
  and of U are sorted and looked up in blocks (``sorted_link``).
- Up to ``HASHED_ROWS`` rows, plain group-bys and joins are faster.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.engine import queries
from kpr.engine.encoded import linked_count, singles, weighted_moments
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
        self.in_memory = n <= PERSIST_ROWS
        if self.hashed and self.in_memory:
            return nw.from_native(memory_groups(lf.collect(), known, row).lazy())
        if self.hashed:
            return nw.from_native(hashed_groups(lf, known, row))
        g = queries.original_groups(original, known, row)
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

    def unique_values(self, original: Frame, known: Sequence[str]) -> dict[str, int] | None:
        if self.in_memory:  # counted by the scan
            return None
        lf = _polars(original)
        return {v: column_singles(lf, v) for v in known}

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
            counts = packed_link(u, a, keys, code_bins, self.in_memory)
            if counts is not None:
                return counts
        return exact_link(u, a, keys)


_O, _U = "__kpr_o__", "__kpr_u__"


def distinct_scan(
    groups: pl.LazyFrame, kinds: Mapping[str, Kind], exact: Sequence[str], integers: Sequence[str]
) -> Scan:
    """:class:`kpr.engine.queries.Scan` of G in memory: per known variable, its
    distinct values with their rows in the original and in U (one group-by each,
    all run at once); every figure is then a sum over those values. A numeric
    column with more than ``SORTED_SCAN`` distinct values (polars' estimate) is
    scanned by a sort of its values instead (:func:`_sorted_scan`)."""
    g = groups.collect()
    binned = [v for v in kinds if kinds[v].binned]
    estimate = g.select(pl.col(binned).approx_n_unique()).row(0, named=True) if binned else {}
    wide = {v for v in binned if estimate[v] > SORTED_SCAN}
    n = pl.col(queries._N)
    grouped = [v for v in kinds if v not in wide]
    per_value = [
        g.lazy()
        .group_by(v)
        .agg(n.sum().cast(pl.Int64).alias(_O), (n == 1).sum().cast(pl.Int64).alias(_U))
        for v in grouped
    ]
    frames = dict(zip(grouped, pl.collect_all(per_value), strict=True))
    counts = g[queries._N].to_numpy()
    moments: dict[str, Moments] = {}
    profile: dict[str, dict[str, int]] = {}
    unique_rows: dict[str, int] = {}
    for v in kinds:
        if v in wide:
            moments[v], profile[v], unique_rows[v] = _sorted_scan(
                g[v], counts, v in exact, v in integers
            )
            continue
        frame = frames[v]
        rows, in_u = frame[_O].to_numpy(), frame[_U].to_numpy()
        null = frame[v].is_null().to_numpy()
        unique_rows[v] = int(np.count_nonzero(rows == 1))
        profile[v] = {"missing": int(rows[null].sum())}
        if v in integers:
            profile[v]["distinct"] = int(np.count_nonzero(~null))
        if kinds[v].binned:
            values = frame[v].cast(pl.Float64).to_numpy()
            ints = frame[v].cast(pl.Int64).fill_null(0).to_numpy() if v in exact else None
            moments[v] = weighted_moments(values, ints, np.where(null, 0, in_u))
    total, size_u = int(counts.sum()), int(np.count_nonzero(counts == 1))
    return Scan(total, size_u, moments, profile, unique_rows)


#: A numeric column of G with more distinct values than this (polars' estimate) is
#: scanned by a sort of its values: a hash table of millions of distinct floats
#: costs several times a sort.
SORTED_SCAN = 100_000


def _sorted_scan(
    column: pl.Series, counts: np.ndarray, exact: bool, integer: bool
) -> tuple[Moments, dict[str, int], int]:
    """One numeric column of G (``counts``: each G row's rows in the original):
    its moments over U, its profile and its rows holding a value no other row
    holds, by one sort of its values (missing and NaN each one value, as in a
    group-by; -0.0 equals 0.0). The moments are summed over G's rows of U
    directly: the same exact sums as over its distinct values."""
    null = column.is_null().to_numpy()
    keys = column.fill_null(0).to_numpy()
    nan = np.isnan(keys) & ~null if keys.dtype.kind == "f" else np.zeros(len(keys), dtype=bool)
    present = ~(null | nan)
    ordered = np.sort(keys[present])
    unique = int(np.count_nonzero(singles(ordered)))
    shared = keys[present & (counts > 1)]  # a G row of several original rows
    if len(shared):
        left = np.searchsorted(ordered, shared, "left")
        unique -= int(np.count_nonzero(np.searchsorted(ordered, shared, "right") - left == 1))
    unique += sum(int(counts[m].sum()) == 1 for m in (null, nan))
    profile = {"missing": int(counts[null].sum())}
    if integer:
        runs = np.count_nonzero(ordered[1:] != ordered[:-1]) + 1 if len(ordered) else 0
        profile["distinct"] = int(runs) + int(nan.any())
    values = column.cast(pl.Float64).to_numpy()
    ints = column.cast(pl.Int64).fill_null(0).to_numpy() if exact else None
    moments = weighted_moments(values, ints, np.where(null, 0, counts == 1).astype(np.int64))
    return moments, profile, unique


def column_singles(lf: pl.LazyFrame, name: str) -> int:
    """The rows whose value of one column no other row holds (missing and NaN each
    one value, as in ``is_unique``), one column read at a time: a numeric column's
    values sorted (8 bytes a row), other columns by a streaming group-by."""
    if not lf.collect_schema()[name].is_numeric():
        counts = lf.group_by(name).agg(pl.len().alias("c")).filter(pl.col("c") == 1)
        return int(counts.select(pl.len()).collect(engine="streaming").item())
    column = lf.select(name).collect(engine="streaming").to_series()
    nulls = column.null_count()
    values = column.drop_nulls()
    del column
    ordered = values.sort().to_numpy()  # NaN last
    del values
    nan = int(np.count_nonzero(np.isnan(ordered))) if ordered.dtype.kind == "f" else 0
    present = ordered[: len(ordered) - nan]
    return int(np.count_nonzero(singles(present))) + (nulls == 1) + (nan == 1)


def _shared_hashes(hashes: np.ndarray) -> np.ndarray:
    """The hashes that occur more than once, each once (by a sort: cheaper than a
    hash table of millions of distinct hashes)."""
    ordered = np.sort(hashes)
    return np.unique(ordered[1:][ordered[1:] == ordered[:-1]])


def memory_groups(df: pl.DataFrame, known: Sequence[str], row: str | None) -> pl.DataFrame:
    """``hashed_groups`` of a table in memory: each row hashed once, the rows whose
    hash is unique kept as groups of one, the others grouped exactly."""
    keys = list(known)
    hashes = df.select(pl.struct(keys).hash()).to_series().to_numpy()
    mask = pl.Series(np.isin(hashes, _shared_hashes(hashes)))  # by sorts, as above
    order = [*keys, *([row] if row else []), queries._N]
    aggs = [pl.len().cast(pl.Int64).alias(queries._N)]
    if row is not None:
        aggs.append(pl.col(row).min())
    once = df.filter(~mask).with_columns(pl.lit(1, pl.Int64).alias(queries._N)).select(order)
    many = df.filter(mask).group_by(keys).agg(aggs).select(order)
    return pl.concat([once, many], how="vertical")


def hashed_groups(lf: pl.LazyFrame, known: Sequence[str], row: str | None) -> pl.LazyFrame:
    """G without a hash table of every distinct tuple: rows whose hash is unique
    are groups of one; only rows sharing a hash (true duplicates and the rare
    collisions) are grouped exactly. Same content as ``original_groups``."""
    keys = list(known)
    h = pl.struct(keys).hash().alias(_H)
    shared = _shared_hashes(lf.select(h).collect(engine="streaming").to_series().to_numpy())
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
    u: pl.LazyFrame,
    a: pl.LazyFrame,
    keys: list[str],
    bins: Mapping[str, NumericBins],
    in_memory: bool = False,
) -> tuple[int, int] | None:
    """m and |S| with each profile packed into one exact 64-bit integer.

    polars' streaming group-by on several keys (or with per-group aggregates)
    takes several GiB at 100M rows; on one integer key it takes a fraction.
    ``in_memory``: both tables' keys are collected once and counted by a sort
    (``kpr.engine.encoded.linked_count``), cheaper than hashing millions of
    distinct keys. None (use ``exact_link``) when the profiles cannot be packed.
    """
    packed = packed_keys(u, a, keys, bins, in_memory)
    if packed is None:
        return None
    u_keys, a_keys, radix = packed
    if in_memory:
        u_key, a_key = (k.collect().to_series().to_numpy() for k in (u_keys, a_keys))
        return len(a_key), linked_count(u_key[u_key >= 0], a_key, radix)
    return sorted_link(u_keys, a_keys)


def sorted_link(u_keys: pl.LazyFrame, a_keys: pl.LazyFrame) -> tuple[int, int]:
    """m and |S| from packed keys too many to count in memory: the avatars' keys
    sorted (8 bytes a row), only those present once kept; U's keys sorted, then
    looked up in them (a hash table of 100M distinct keys takes several GiB)."""
    ordered = a_keys.collect(engine="streaming").to_series().sort().to_numpy()
    m = len(ordered)
    once = ordered[singles(ordered)]
    del ordered
    u_key = u_keys.filter(pl.col(_H) >= 0).collect(engine="streaming").to_series().sort()
    linked = 0
    for start in range(0, len(u_key), _LOOKUP_BLOCK):
        block = u_key.slice(start, _LOOKUP_BLOCK).to_numpy()
        at = np.minimum(np.searchsorted(once, block), len(once) - 1)
        linked += int(np.count_nonzero(once[at] == block)) if len(once) else 0
    return m, linked


#: U's sorted keys are looked up this many at a time (bounded temporary arrays).
_LOOKUP_BLOCK = 1 << 22


def packed_keys(
    u: pl.LazyFrame,
    a: pl.LazyFrame,
    keys: list[str],
    bins: Mapping[str, NumericBins],
    in_memory: bool = False,
) -> tuple[pl.LazyFrame, pl.LazyFrame, int] | None:
    """U's and the avatars' profiles, each packed into one exact int64 (column
    ``_H``; -1 for a U profile no avatar can hold), and the radix of the keys.

    Each code becomes a digit of a mixed-radix number: numeric codes (special
    codes included) shifted to start at 0, text values as their categorical
    ids, booleans and integers as small offsets; missing is digit 0. The
    packing is injective, so the counts are exact. None when a column cannot be
    packed or the digits need more than 63 bits. ``in_memory``: each table's
    codes (text ids included) are computed once and kept.
    """
    schema = a.collect_schema()
    text = [k for k in keys if k not in bins and isinstance(schema[k], _TEXT_TYPES)]
    ints = [k for k in keys if k not in bins and schema[k].is_integer()]
    flags = [k for k in keys if k not in bins and schema[k] == pl.Boolean]
    if any(not b.int_codes for b in bins.values()) or len(text) + len(ints) + len(flags) + len(
        bins
    ) != len(keys):
        return None
    if text:  # each text value as its categorical id, computed once per table
        ids = [
            pl.col(k).cast(pl.String).cast(pl.Categorical).to_physical().cast(pl.Int64)
            for k in text
        ]
        u, a = u.with_columns(ids), a.with_columns(ids)
    if in_memory:
        u, a = u.collect().lazy(), a.collect().lazy()
    ranges = (
        a.select(
            *(pl.col(k).max().alias(f"{k}__hi") for k in text),
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
            digits.append((pl.col(k) + 1, radix))
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
    total = math.prod(r for _, r in digits)
    if total >= 2**63:
        return None
    key: pl.Expr = pl.lit(0, pl.Int64)
    valid: pl.Expr = pl.lit(True)
    for digit, radix in digits:
        d = digit.fill_null(0)
        key = key * radix + d
        valid = valid & (d >= 0) & (d < radix)
    packed = pl.when(valid).then(key).otherwise(-1).alias(_H)
    return u.select(packed), a.select(packed), total
