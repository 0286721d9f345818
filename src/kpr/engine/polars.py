"""The polars backend (and pandas and pyarrow inputs, which are read into polars).

The path is chosen by ``Tuning.table_path`` (``kpr.engine.tuning``):

- When both tables' known cells fit in the memory budget (``Tuning.memory_bytes``:
  half the memory available by default), both tables are read once into memory and
  counted with numpy (``kpr.engine.inmemory``): each row's group size from one hash
  of its known values, one sort (numbers) or one id per value (texts) per known
  variable for the statistics, the column profile and the identifying-variable
  counts, and the link on one packed integer per profile.
- Above it (a 100M-row Parquet file is not loaded), every query runs on polars'
  streaming engine, and the wide steps are sorts (a hash table of millions of
  distinct values costs several times a sort of 8-byte values): G is rebuilt by
  each query from the rows' hashes, sorted once (8 bytes a row); the
  identifying-variable counts take one column at a time, sorted; the packed
  profiles of the avatars and of U are sorted and looked up in blocks
  (``sorted_link``). (Up to ``hashed_rows`` rows, which only tests reach there,
  plain group-bys and joins: the lazy queries DuckDB runs.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.engine import queries
from kpr.engine.inmemory import MemoryTables
from kpr.engine.inmemory.runs import singles
from kpr.engine.queries import Frame, Hooks, Scan
from kpr.engine.tuning import DEFAULT_TUNING, TablePath, Tuning
from kpr.metric.attack import Kind
from kpr.metric.binning import NumericBins
from kpr.metric.classes import DIGIT_OFFSET, code_radix, push_digit

_H = "__kpr_hash__"
_TEXT_TYPES = (pl.String, pl.Categorical, pl.Enum)


def _polars(frame: Frame) -> pl.LazyFrame:
    native = frame.to_native()
    assert isinstance(native, pl.LazyFrame)
    return native


class PolarsHooks(Hooks):
    """Lazy queries on polars' streaming engine: G from row hashes, rebuilt by each
    query, and packed profiles (``hashed``: ``TablePath.HASHED``) or by group-bys
    and joins (``TablePath.GROUPED``)."""

    def __init__(self, hashed: bool = False) -> None:
        self.hashed = hashed

    def groups(self, original: Frame, known: Sequence[str], row: str | None) -> Frame:
        if self.hashed:
            return nw.from_native(hashed_groups(_polars(original), known, row))
        return queries.original_groups(original, known, row)

    def unique_values(self, original: Frame, known: Sequence[str]) -> dict[str, int] | None:
        lf = _polars(original)
        return {v: column_singles(lf, v) for v in known}

    def collect(self, frame: Frame) -> dict[str, Any]:
        out = _polars(frame).collect(engine="streaming")
        return {k: v[0] for k, v in out.to_dict(as_series=False).items()}

    def link(
        self, u: Frame, avatars: Frame, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]
    ) -> tuple[int, int]:
        coded = [queries.code_frame(f, kinds, bins, None) for f in (u, avatars)]
        keys = [queries.code_name(v) for v in kinds]
        coded_u, coded_a = (_polars(f).select(keys) for f in coded)
        if self.hashed:
            code_bins = {queries.code_name(v): b for v, b in bins.items()}
            counts = packed_link(coded_u, coded_a, keys, code_bins)
            if counts is not None:
                return counts
        return exact_link(coded_u, coded_a, keys)


class MemoryCounting(queries.CountingState):
    """``queries.Counting`` on polars tables read into memory, counted with numpy
    (``kpr.engine.inmemory``): one scan per known variable instead of the two
    aggregation passes, G never built (U's rows made only if a command lists
    them), the link on packed profiles; a column with no digits there is linked
    by the lazy queries' join (``exact_link``)."""

    def __init__(self, tuning: Tuning = DEFAULT_TUNING) -> None:
        self.tuning = tuning
        self._tables: MemoryTables | None = None

    def scan(self, tables: queries.ScanInput) -> Scan:
        memory = MemoryTables(
            _polars(tables.original), _polars(tables.avatars), tables.kinds, self.tuning
        )
        self._tables = memory
        # every original row with its group's size: U is the rows of size 1
        self._keep(nw.from_native(memory.groups), tables.avatars)
        n, size_u, scans = memory.scan(tables.kinds, tables.exact, tables.integers)
        moments = {v: s.moments for v, s in scans.items() if s.moments is not None}
        profile = {v: s.profile for v, s in scans.items()}
        texts = {v: s.texts for v, s in scans.items() if s.texts is not None}
        return Scan(n, size_u, moments, profile, {v: s.unique for v, s in scans.items()}, texts)

    def link(self, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]) -> tuple[int, int]:
        assert self._tables is not None, "scan first"
        counts = self._tables.link(bins)
        if counts is not None:
            return counts
        return PolarsHooks().link(self.unique(), self._kept_avatars(), kinds, bins)

    def release(self) -> None:
        if self._tables is not None:
            self._tables.close()
            self._tables = None


def polars_counting(
    original: Frame, tuning: Tuning = DEFAULT_TUNING, known: int = 1
) -> queries.Counting:
    """The counting path ``tuning`` chooses for the original's number of rows and the
    ``known`` variables counted (``Tuning.table_path``)."""
    path = tuning.table_path(_polars(original).select(pl.len()).collect().item(), known)
    if path is TablePath.MEMORY:
        return MemoryCounting(tuning)
    return queries.LazyCounting(PolarsHooks(hashed=path is TablePath.HASHED))


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
) -> tuple[int, int] | None:
    """m and |S| with each profile packed into one exact 64-bit integer.

    polars' streaming group-by on several keys (or with per-group aggregates)
    takes far more memory than on one integer key (docs/benchmarks.md).
    None (use ``exact_link``) when the profiles cannot be packed.
    """
    packed = packed_keys(u, a, keys, bins)
    if packed is None:
        return None
    u_keys, a_keys, _ = packed
    return sorted_link(u_keys, a_keys)


def sorted_link(u_keys: pl.LazyFrame, a_keys: pl.LazyFrame) -> tuple[int, int]:
    """m and |S| from packed keys too many to count in memory: the avatars' keys
    sorted (8 bytes a row), only those present once kept; U's keys sorted, then
    looked up in them (a hash table of as many distinct keys would take far more)."""
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
) -> tuple[pl.LazyFrame, pl.LazyFrame, int] | None:
    """U's and the avatars' profiles, each packed into one exact int64 (column
    ``_H``; -1 for a U profile no avatar can hold), and the radix of the keys.

    Each code becomes a digit of a mixed-radix number
    (``kpr.metric.classes.push_digit``): numeric codes (special codes included)
    shifted to start at 0 (``+ DIGIT_OFFSET``), text values as their categorical
    ids, booleans and integers as small offsets; missing is digit 0. The
    packing is injective, so the counts are exact. None when a column cannot be
    packed or the digits need more than 63 bits.
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
    ranges = _avatar_ranges(a, text, ints)
    digits: list[tuple[pl.Expr, int]] = []  # (digit, radix), digit in [0, radix) or -1
    for k in keys:
        if k in bins:
            digits.append((pl.col(k) + DIGIT_OFFSET, code_radix(bins[k])))
        elif k in flags:
            digits.append((pl.col(k).cast(pl.Int64) + 1, 3))
        elif k in text:
            hi = ranges[f"{k}__hi"]
            digits.append((pl.col(k) + 1, 1 if hi is None else int(hi) + 2))
        elif (digit := _integer_digit(k, ranges[f"{k}__lo"], ranges[f"{k}__hi"])) is not None:
            digits.append(digit)
        else:
            return None
    total = math.prod(r for _, r in digits)
    if total >= 2**63:
        return None
    packed = _packed(digits).alias(_H)
    return u.select(packed), a.select(packed), total


def _avatar_ranges(a: pl.LazyFrame, text: list[str], ints: list[str]) -> dict[str, Any]:
    """The avatars' largest text id and integer range, by column (``{k}__lo``,
    ``{k}__hi``), in one streaming query."""
    if not (text or ints):
        return {}
    return (
        a.select(
            *(pl.col(k).max().alias(f"{k}__hi") for k in text),
            *(pl.col(k).min().alias(f"{k}__lo") for k in ints),
            *(pl.col(k).max().alias(f"{k}__hi") for k in ints),
        )
        .collect(engine="streaming")
        .row(0, named=True)
    )


def _integer_digit(k: str, lo: Any, hi: Any) -> tuple[pl.Expr, int] | None:
    """An integer column's digit (from 1; 0 missing) and radix, from the avatars'
    range ``lo``..``hi``; None when the range is too wide to pack."""
    if lo is None:  # no avatar value: only missing can match (a column, not a
        # literal, which polars would turn into one row)
        return pl.when(pl.col(k).is_null()).then(0).otherwise(-1), 1
    radix = int(hi) - int(lo) + 2
    if radix >= 2**62:
        return None
    # a U value outside the avatars' range is no digit (-1): subtracting first
    # could wrap around int64 onto a valid digit
    outside = ~pl.col(k).is_between(int(lo), int(hi))
    return pl.when(outside).then(-1).otherwise(pl.col(k) - int(lo) + 1), radix


def _packed(digits: list[tuple[pl.Expr, int]]) -> pl.Expr:
    """The digits packed into one key (``push_digit``); -1 when a digit is outside
    its radix (a profile no avatar can hold)."""
    key: pl.Expr = pl.lit(0, pl.Int64)
    valid: pl.Expr = pl.lit(True)
    for digit, radix in digits:
        d = digit.fill_null(0)
        key = push_digit(key, d, radix)
        valid = valid & (d >= 0) & (d < radix)
    return pl.when(valid).then(key).otherwise(-1)
