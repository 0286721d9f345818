"""The counting path of polars tables too large to hold in memory (``TablePath.HASHED``):
the original is read by streaming queries a few times, never whole, and G is never
built.

- G's groups of more than one (:func:`shared_rows`): one hash of each row's known
  values (8 bytes a row), sorted; the rows holding a hash another row holds too
  (true duplicates and the rare collisions) are read again and grouped exactly.
  Their positions are all the path keeps of G: U is every other row.
- Per known variable, its column alone (:func:`column_counts`): its missing and
  distinct values and its rows holding a value no other row holds (counted as the
  in-memory engine counts a column of few values, ``columns.few_value_counts``; the
  others sorted), and, binned, its statistics over U (the
  column with U's rows kept, by the lazy path's own expressions, so the moments are
  the same to the bit).
- The link: each profile of the original and of the avatars packed into one integer,
  a batch of rows at a time (``kpr.engine.packed``), and counted by the in-memory
  engine's ``linked_count`` (a bincount, a bitmap or sorts), the rows outside U left
  out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.engine import queries
from kpr.engine.inmemory.columns import (
    TEXT_TYPES,
    few_value_counts,
    number_dtype,
    rows_holding,
)
from kpr.engine.inmemory.groups import low_bits
from kpr.engine.inmemory.link import linked_count
from kpr.engine.inmemory.runs import Ints, held_more_than_once, run_starts, singles, sort
from kpr.engine.inmemory.sums import weighted_moments
from kpr.engine.packed import exact_link, packed_keys
from kpr.engine.queries import Scan, ScanInput
from kpr.engine.statistics import moments_from, stat_exprs
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.metric.attack import Kind
from kpr.metric.binning import Moments, NumericBins

#: The row positions' column.
_AT = "__kpr_at__"


def _polars(frame: queries.Frame) -> pl.LazyFrame:
    native = frame.to_native()
    assert isinstance(native, pl.LazyFrame)
    return native


def collect_row(frame: queries.Frame) -> dict[str, Any]:
    """A one-row aggregate, collected by polars' streaming engine."""
    out = _polars(frame).collect(engine="streaming")
    return {k: v[0] for k, v in out.to_dict(as_series=False).items()}


class StreamedCounting(queries.CountingState):
    """``queries.Counting`` on polars tables read by streaming queries: each known
    column read alone for its counts, G's groups of more than one found from the
    values of one column held once or from row hashes (their rows' positions), the
    statistics over U, the link on packed profiles counted with numpy."""

    def __init__(self, tuning: Tuning = DEFAULT_TUNING) -> None:
        self.tuning = tuning
        self._original: pl.LazyFrame | None = None
        self._outside: Ints = np.zeros(0, dtype=np.int64)
        self._rows = 0
        #: by column, the distinct texts of each text column of the original
        self._texts: dict[str, pl.Series] = {}

    def scan(self, tables: ScanInput) -> Scan:
        original, kinds = _polars(tables.original), tables.kinds
        counts: dict[str, ColumnCounts] = {}
        for v in kinds:
            counts[v] = column_counts(original, v, v in tables.integers, self.tuning)
            keep_one_column(counts)
        n, out = outside_rows(original, list(kinds), counts, self.tuning)
        outside = np.sort(out[_AT].to_numpy().astype(np.int64))
        self._original, self._outside, self._rows = original, outside, n
        self._u = nw.from_native(without_rows(original, outside))
        self._avatars = tables.avatars
        self._texts = {v: c.texts for v, c in counts.items() if c.texts is not None}
        keep = None
        if len(outside) and any(k.binned for k in kinds.values()):
            mask = np.ones(n, dtype=bool)
            mask[outside] = False
            keep = pl.Series(mask)
        moments = {}
        for v, kind in kinds.items():
            if not kind.binned:
                continue
            exact, c = v in tables.exact, counts[v]
            if c.grouped is not None:  # few values: their rows less those outside U
                moments[v] = grouped_moments(*c.grouped, out[v], exact)
            else:
                moments[v] = u_moments(c.read(original), keep, exact)
            c.column = None  # read no more
        profile = {v: c.profile for v, c in counts.items()}
        unique = {v: c.unique for v, c in counts.items()}
        return Scan(n, n - len(outside), moments, profile, unique)

    def link(self, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]) -> tuple[int, int]:
        assert self._original is not None, "scan first"
        known = list(kinds)
        avatars = _polars(self._kept_avatars()).select(known)
        m = avatars.select(pl.len()).collect().item()
        shape = (self._rows, m)
        packed = packed_keys(
            self._original.select(known), avatars, bins, self._texts, shape, self.tuning
        )
        if packed is None:
            keys = [queries.code_name(v) for v in kinds]
            coded_u, coded_a = (
                _polars(queries.code_frame(f, kinds, bins, None)).select(keys)
                for f in (self.unique(), self._kept_avatars())
            )
            return exact_link(coded_u, coded_a, keys)
        # never a bincount of so many possible keys (8 bytes each)
        tuning = replace(self.tuning, bincount_per_row=0)
        o_key = packed.original
        with ThreadPoolExecutor(self.tuning.workers) as pool:  # half the lookups each
            linked = linked_count(
                lambda: o_key, len(o_key), packed.avatars, packed.radix + 1, pool,
                self._outside, tuning=tuning, ordered=True,
            )  # fmt: skip
        return m, linked

    def release(self) -> None:
        """Nothing is held but U's rows' positions, which U needs."""


def without_rows(frame: pl.LazyFrame, rows: Ints) -> pl.LazyFrame:
    """``frame`` without the rows at positions ``rows``."""
    if len(rows) == 0:
        return frame
    return frame.with_row_index(_AT).filter(~_at_in(rows)).drop(_AT)


def _at_in(rows: Ints) -> pl.Expr:
    """Whether a row's position (``_AT``) is one of ``rows``."""
    return pl.col(_AT).is_in(pl.Series(rows, dtype=pl.get_index_type()).implode())


def outside_rows(
    lf: pl.LazyFrame, keys: Sequence[str], counts: Mapping[str, ColumnCounts], tuning: Tuning
) -> tuple[int, pl.DataFrame]:
    """The number of rows, and the rows whose known values another row holds too (G's
    groups of more than one: their positions ``_AT`` and known values); every other
    row is a group of one (U). Candidates first: when a number column holds a value
    no other row holds on most rows, the other rows of that column (as the in-memory
    engine does); else the rows holding a hash another row holds too. Only they are
    read again, and grouped by their values (a shared hash of distinct tuples, a
    collision, makes no group)."""
    n = lf.select(pl.len()).collect().item()
    best = max(
        (c for c in counts.values() if c.shared is not None), key=lambda c: c.singles, default=None
    )
    if best is not None and best.shared is not None and 2 * best.singles >= n:
        candidates = value_candidates(best.read(lf), best.shared)
    else:
        candidates = hash_candidates(lf, keys, tuning)
    taken = lf.with_row_index(_AT).filter(_at_in(candidates)).collect(engine="streaming")
    sizes = taken.select(pl.len().over(list(keys))).to_series().to_numpy()
    return n, taken.filter(pl.Series(sizes > 1))


def hash_candidates(lf: pl.LazyFrame, keys: Sequence[str], tuning: Tuning) -> Ints:
    """The positions of the rows holding a hash of their known values that another
    row holds too: each row's hash, sorted (``runs.sort`` by ``tuning.sorter``)."""
    hashes = lf.select(pl.struct(list(keys)).hash()).collect(engine="streaming").to_series()
    hashed = hashes.rechunk().to_numpy()  # one chunk: polars' memory, no copy
    shared = held_more_than_once(sort(hashed, tuning.sorter))
    if len(shared) == 0:
        return np.zeros(0, dtype=np.int64)
    return holding(hashed, shared, low_bits, tuning)


def value_candidates(column: pl.Series, shared: np.ndarray) -> Ints:
    """The positions of the rows of a number column holding one of ``shared``
    (distinct; -0.0 and 0.0 alike, as polars' ``is_in`` takes them), missing or NaN."""
    marked = column.is_in(pl.Series(shared).cast(column.dtype).implode()).fill_null(True)
    if column.dtype.is_float():
        marked |= column.is_nan()
    return np.flatnonzero(marked.to_numpy())


def holding(
    values: np.ndarray,
    shared: np.ndarray,
    slot: Callable[[np.ndarray, int], Ints],
    tuning: Tuning,
) -> Ints:
    """The positions of the ``values`` that are one of ``shared`` (sorted, distinct),
    a block at a time (``columns.rows_holding``, with a table of about 16 slots for
    each shared value, so few other values fall into one)."""
    if len(shared) == 0:
        return np.zeros(0, dtype=np.int64)
    bits = min(max(tuning.table_bits, len(shared).bit_length() + 4), 30)
    block = tuning.pack_block * 64
    found = [
        rows_holding(values[start : start + block], shared, slot, bits) + start
        for start in range(0, len(values), block)
    ]
    return np.concatenate(found).astype(np.int64) if found else np.zeros(0, dtype=np.int64)


class ColumnCounts:
    """One known column over the original: its profile (``missing``, and ``distinct``
    for integer columns), its rows holding a value no other row holds (``unique``;
    ``singles``: those holding a present value), and what later steps need: a text
    column's distinct present texts (which number its link digits); a number
    column of few values, its present values (float64, and int64) and their rows
    (``grouped``); of more values, those held by more than one row (``shared``)."""

    def __init__(self, name: str, profile: dict[str, int], unique: int) -> None:
        self.name, self.profile, self.unique, self.singles = name, profile, unique, unique
        self.texts: pl.Series | None = None
        self.grouped: tuple[np.ndarray, Ints | None, Ints] | None = None
        self.shared: np.ndarray | None = None
        #: the column as read (a sorted number column's), kept for the later steps
        #: that read it again (:func:`keep_one_column`)
        self.column: pl.Series | None = None

    def read(self, lf: pl.LazyFrame) -> pl.Series:
        """The column, as kept or read again."""
        return self.column if self.column is not None else _read(lf, self.name)


def keep_one_column(counts: Mapping[str, ColumnCounts]) -> None:
    """Of the columns kept, only the one holding the most values no other row holds:
    U's candidates are found from it (:func:`outside_rows`), so it is read once,
    and a table's memory never holds more than one column."""
    kept = [c for c in counts.values() if c.column is not None]
    for c in kept:
        if c is not max(kept, key=lambda c: c.singles):
            c.column = None


def _read(lf: pl.LazyFrame, name: str) -> pl.Series:
    return lf.select(name).collect(engine="streaming").to_series()


def column_counts(lf: pl.LazyFrame, name: str, integer: bool, tuning: Tuning) -> ColumnCounts:
    """The :class:`ColumnCounts` of one column (missing and NaN each one value, as in
    ``is_unique``; -0.0 equal to 0.0): a number column read whole, its values counted
    as in memory when they span a small range or a sample of them holds few values
    (``columns.few_value_counts``), else sorted; any other column by a streaming
    group-by."""
    dtype = lf.collect_schema()[name]
    if not number_dtype(dtype):
        counts = lf.group_by(name).agg(pl.len().alias("c")).collect(engine="streaming")
        missing = int(counts.filter(pl.col(name).is_null())["c"].sum())
        profile = {"missing": missing}
        if integer:
            profile["distinct"] = counts.height - (missing > 0)
        out = ColumnCounts(name, profile, int((counts["c"] == 1).sum()))
        if isinstance(dtype, TEXT_TYPES):
            out.texts = counts[name].drop_nulls().cast(pl.String)
        return out
    column = _read(lf, name)
    nulls = column.null_count()
    values = column.drop_nulls()
    if (counted := few_value_counts(values, tuning)) is not None:  # as in memory
        distinct_values, rows, nan = counted
        out = ColumnCounts(name, {"missing": nulls}, int(np.count_nonzero(rows == 1)))
        out.unique += nan == 1  # NaN is one value, as missing is
        summed = values.dtype.is_integer() and values.dtype != pl.UInt64  # `exact_integers`
        ints = distinct_values.astype(np.int64) if summed else None
        out.grouped = (distinct_values.astype(np.float64), ints, rows.astype(np.int64))
        distinct = len(rows) + (nan > 0)
    else:
        out, distinct = _sorted_counts(name, values, nulls, tuning)
        out.column = column
    out.unique += nulls == 1
    if integer:
        out.profile["distinct"] = distinct
    return out


def _sorted_counts(
    name: str, values: pl.Series, nulls: int, tuning: Tuning
) -> tuple[ColumnCounts, int]:
    """:func:`column_counts` of a number column's present values, sorted (``runs.sort``
    by ``tuning.sorter``; NaN last): its counts, and its distinct values."""
    # one chunk, so numpy sees polars' memory (read-only) and only the sort copies it
    ordered = sort(values.rechunk().to_numpy(), tuning.sorter)
    nan = int(np.count_nonzero(np.isnan(ordered))) if ordered.dtype.kind == "f" else 0
    present = ordered[: len(ordered) - nan]
    same = present[1:] == present[:-1]
    held = present[1:][same]  # each value held more than once, once per extra row
    out = ColumnCounts(name, {"missing": nulls}, int(np.count_nonzero(singles(present))))
    out.shared = held[run_starts(held)]
    out.unique += nan == 1
    return out, len(present) - int(np.count_nonzero(same)) + (nan > 0)


def column_singles(lf: pl.LazyFrame, name: str, tuning: Tuning = DEFAULT_TUNING) -> int:
    """The rows whose value of one column no other row holds (:func:`column_counts`)."""
    return column_counts(lf, name, False, tuning).unique


def grouped_moments(
    values: np.ndarray, ints: Ints | None, rows: Ints, outside: pl.Series, exact: bool
) -> Moments:
    """The exact moments over U of a column of few values (``values``, distinct,
    present, with their ``rows``), the rows ``outside`` U taken off (their values),
    by the in-memory engine's sums over distinct values (``sums.weighted_moments``)."""
    out = outside.drop_nulls().cast(pl.Float64).to_numpy()
    out = out[np.isfinite(out)]  # never summed
    order = np.argsort(values)  # NaN last
    values, in_u = values[order], rows[order]
    if len(out):
        in_u = in_u - np.bincount(np.searchsorted(values, out), minlength=len(values))
    return weighted_moments(values, ints[order] if exact and ints is not None else None, in_u)


def u_moments(column: pl.Series, keep: pl.Series | None, exact: bool) -> Moments:
    """The exact moments over U of one numeric column (``keep``: which rows are in
    U; None: every row), by the lazy path's expressions (``kpr.engine.statistics``)
    on polars' streaming engine."""
    x = "x"
    u = column.filter(keep) if keep is not None else column
    frame = nw.from_native(u.to_frame(x).lazy())
    first = collect_row(frame.select(*stat_exprs(0, nw.col(x).cast(nw.Float64))))
    return moments_from(first, frame, [x], [x] if exact else [], collect_row)[x]
