"""What the scan and the link need of one column of the original, read before U is
known (a number column sorted once, :class:`SortedColumn`; a text column's ids,
``texts.TextIds``), and its scan over U (:class:`ColumnScan`: moments, missing and
distinct counts, the rows holding a value no other row holds)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

import narwhals as nw
import numpy as np
import polars as pl

from kpr.engine.inmemory.arrays import filled
from kpr.engine.inmemory.decimals import decimal_counts
from kpr.engine.inmemory.runs import Ints, run_changes, run_lengths, sort
from kpr.engine.inmemory.sums import weighted_moments
from kpr.engine.inmemory.texts import TextIds
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.inputs.markers import value_rows
from kpr.metric.binning import Moments

TEXT_TYPES = (pl.String, pl.Categorical, pl.Enum)


def number_dtype(dtype: pl.DataType) -> bool:
    """Whether numpy sorts this column as it is (integers and floats)."""
    return dtype.is_integer() or dtype in (pl.Float32, pl.Float64)


@dataclass(frozen=True)
class SortedColumn:
    """A number column of the original, sorted once: its values (missing as NaN in
    floats, as their smallest value in integers), which are absent (missing or NaN;
    None: none is), how many are missing and NaN, and its distinct present values
    (sorted) with their rows (read-only: a view when each value is held once)."""

    values: np.ndarray
    absent: np.ndarray | None
    missing: int
    nan: int
    distinct: np.ndarray
    rows: Ints

    @classmethod
    def of(
        cls, column: pl.Series, tuning: Tuning = DEFAULT_TUNING, distinct: int | None = None
    ) -> SortedColumn:
        """Missing and NaN are each one value; -0.0 equals 0.0 (as in a group-by).
        Floats come with NaN for missing (one copy, which the link reuses as its
        float values); integers with their smallest value (a float would lose
        digits), and counted by one ``bincount`` when they span a small range.
        ``distinct``: the distinct values of its :func:`value_sample`, when counted."""
        missing, nan = column.null_count(), 0
        if column.dtype in (pl.Float32, pl.Float64):
            values = filled(column, np.nan)  # NaN for missing, one copy (``arrays``)
            is_nan = np.isnan(values)
            absent_rows = int(np.count_nonzero(is_nan))
            nan = absent_rows - missing
            absent = is_nan if absent_rows else None
            if (grouped := grouped_values(column, tuning, values, absent, distinct)) is not None:
                return cls(values, absent, missing, nan, *grouped)
            ordered = sort(values, tuning.sorter)  # NaN sorts last
            ordered = ordered[: len(values) - absent_rows]
        elif missing and missing == len(column):  # nothing to count
            values, absent = column.fill_null(0).to_numpy(), np.ones(len(column), dtype=bool)
            ordered = values[:0]
        else:
            low, high = column.min(), column.max()
            values = filled(column, cast(int, low))
            absent = column.is_null().to_numpy() if missing else None
            if len(column):
                low, high = int(cast(int, low)), int(cast(int, high))
                counted = integer_counts(column, values, low, high, missing, tuning, distinct)
                if counted is not None:
                    return cls(values, absent, missing, nan, *counted)
            ordered = sort(values if absent is None else values[~absent], tuning.sorter)
        change = run_changes(ordered)
        if change.all():  # each value held once (a continuous column): no gather
            return cls(values, absent, missing, nan, ordered, one_each(len(ordered)))
        starts = np.flatnonzero(change)
        return cls(values, absent, missing, nan, ordered[starts], run_lengths(starts, len(ordered)))

    @cached_property
    def singles(self) -> int:
        """The rows holding a present value no other row holds."""
        if len(self.rows) and self.rows.strides == (0,):  # :func:`one_each`: every value once
            return len(self.rows) if self.rows[0] == 1 else 0
        return int(np.count_nonzero(self.rows == 1))

    def unique(self) -> int:
        """The rows holding a value no other row holds."""
        return self.singles + (self.missing == 1) + (self.nan == 1)

    def shared_rows(self, table_bits: int) -> Ints:
        """The rows holding a value another row holds too (:func:`rows_holding`,
        by :func:`slots`), or none (missing, NaN), in order."""
        rows = rows_holding(self.values, self.distinct[self.rows > 1], slots, table_bits)
        if self.absent is None:
            return rows
        marked = self.absent.copy()
        marked[rows] = True
        return np.flatnonzero(marked)

    def moments(self, outside: Ints, exact: bool, pool: Executor | None = None) -> Moments:
        """The moments over U (``outside``: the rows not in U, taken off their
        values' rows), exact sums over the distinct values (shared with ``pool``)."""
        out = outside if self.absent is None else outside[~self.absent[outside]]
        in_u = self.rows
        if len(out):
            at = np.searchsorted(self.distinct, self.values[out])
            in_u = self.rows.copy()
            if len(at) * 16 < len(in_u):  # a few rows: no count of every value
                np.subtract.at(in_u, at, 1)
            else:
                in_u -= np.bincount(at, minlength=len(in_u))
        floats = self.distinct.astype(np.float64, copy=False)
        ints = self.distinct.astype(np.int64, copy=False) if exact else None
        return weighted_moments(floats, ints, in_u, pool)


def value_sample(column: pl.Series, tuning: Tuning) -> pl.Series:
    """An evenly spaced sample of ``column`` (``tuning.value_sample`` values), whose
    distinct values tell how many the column holds."""
    return column.gather_every(max(1, len(column) // tuning.value_sample))


def few_values(column: pl.Series, tuning: Tuning, distinct: int | None = None) -> bool:
    """Whether :func:`value_sample` of ``column`` holds at most ``tuning.few_values``
    distinct values (``distinct``: that count, when counted already): a column better
    grouped (a hash, on every core) than sorted whole."""
    if distinct is None:
        distinct = value_sample(column, tuning).n_unique()
    return distinct <= tuning.few_values


def grouped_values(
    column: pl.Series,
    tuning: Tuning,
    values: np.ndarray | None = None,
    absent: np.ndarray | None = None,
    distinct: int | None = None,
) -> tuple[np.ndarray, Ints] | None:
    """The distinct present values of a number column (sorted; -0.0 one with 0.0, as
    polars groups them) and their rows when it holds :func:`few_values` (ages,
    rounded amounts): floats given as ``values`` (NaN where ``absent``) counted as
    whole numbers of tenths, hundredths... when they all are
    (``decimals.decimal_counts``), else one group-by; None for more values (sorted
    instead). ``distinct``: the distinct values of its sample, when counted already."""
    if not few_values(column, tuning, distinct):
        return None
    if values is not None and values.dtype == np.float64:  # float32s: the group-by
        span, block = max(tuning.count_span, len(values)), tuning.check_block
        if (counted := decimal_counts(values, absent, span, block)) is not None:
            return counted
    groups = column.rename("v").to_frame().group_by("v").agg(pl.len()).drop_nulls("v")
    if column.dtype.is_float():
        groups = groups.filter(pl.col("v").is_not_nan())
    groups = groups.sort("v")
    return groups["v"].to_numpy(), groups["len"].to_numpy().astype(np.int64)


def few_value_counts(values: pl.Series, tuning: Tuning) -> tuple[np.ndarray, Ints, int] | None:
    """The distinct present values of a number column holding no missing value
    (sorted, NaN apart), their rows and the rows holding NaN, counted without a sort
    (what the streamed path reads a column for): integers of a small range by one
    ``bincount``, few values by :func:`grouped_values`; None for a column to sort."""
    if values.dtype.is_integer():
        if len(values) == 0:
            return None
        low, high = int(cast(int, values.min())), int(cast(int, values.max()))
        counted = integer_counts(values, values.to_numpy(), low, high, 0, tuning)
        return None if counted is None else (*counted, 0)
    array = values.to_numpy()
    is_nan = np.isnan(array)
    nan = int(np.count_nonzero(is_nan))
    grouped = grouped_values(values, tuning, array, is_nan if nan else None)
    return None if grouped is None else (*grouped, nan)


def integer_counts(
    column: pl.Series,
    values: np.ndarray,
    low: int,
    high: int,
    filled: int,
    tuning: Tuning,
    distinct: int | None = None,
) -> tuple[np.ndarray, Ints] | None:
    """The distinct present values of an integer column (``values``: its numpy values,
    ``filled`` missing rows holding ``low``) and their rows, without a sort: one
    ``bincount`` when they span a small range, else :func:`grouped_values`; None for a
    column to sort."""
    counted = _counted(values, low, high, filled, tuning.count_span)
    return counted if counted is not None else grouped_values(column, tuning, distinct=distinct)


def one_each(size: int) -> Ints:
    """One row for each of ``size`` values: a read-only view of a single 1 (no
    column-long array to write)."""
    return np.broadcast_to(np.int64(1), (size,))


def _counted(
    values: np.ndarray, low: int, high: int, filled: int, span: int
) -> tuple[np.ndarray, Ints] | None:
    """The distinct values and their rows of integers from ``low`` to ``high``
    (``filled`` missing rows hold ``low``) by one ``np.bincount`` when the range is
    small (ages, counts, codes), with no sort and no copy of a column of values
    from 0; None otherwise."""
    if high - low > max(span, len(values)):
        return None
    if low >= 0 and high <= 2 * max(span, len(values)):
        counts = np.bincount(values.astype(np.intp, copy=False), minlength=high + 1)[low:]
    else:
        counts = np.bincount((values - low).astype(np.intp, copy=False), minlength=high - low + 1)
    counts[0] -= filled
    held = np.flatnonzero(counts)
    distinct = held.astype(values.dtype)
    distinct += values.dtype.type(low)  # in the column's type: uint64 reaches 2**64 - 1
    return distinct, counts[held]


def slots(values: np.ndarray, table_bits: int) -> Ints:
    """Each number's slot in a table of ``2**table_bits`` entries: the top bits
    of its 64-bit pattern times a large odd constant (Fibonacci hashing), equal
    numbers alike (-0.0 as 0.0)."""
    if values.dtype.kind == "f":
        bits = (values.astype(np.float64, copy=False) + 0.0).view(np.uint64)  # -0.0 -> 0.0
    else:
        bits = values.astype(np.int64, copy=False).view(np.uint64)
    bits = bits * np.uint64(0x9E3779B97F4A7C15)
    bits >>= np.uint64(64 - table_bits)
    return bits.view(np.int64)


def rows_holding(
    values: np.ndarray, shared: np.ndarray, slots: Callable[[np.ndarray, int], Ints], bits: int
) -> Ints:
    """The rows whose value is one of ``shared`` (sorted, unique): a table of
    their ``slots`` finds the few candidates, a binary search confirms them (a
    search of every row would cost a random lookup each)."""
    if len(shared) == 0:
        return np.zeros(0, dtype=np.intp)
    table = np.zeros(1 << bits, dtype=bool)
    table[slots(shared, bits)] = True
    candidates = np.flatnonzero(table[slots(values, bits)])
    found = values[candidates]
    at = np.minimum(np.searchsorted(shared, found), len(shared) - 1)
    return candidates[shared[at] == found]


@dataclass(frozen=True)
class ColumnScan:
    """One known variable over the original: its moments over U (numbers), its
    profile (``missing``, and ``distinct`` for integer columns), its rows
    holding a value no other row holds, (integer columns) its sorted distinct
    values, which number its link digits, and (text columns) its distinct texts
    with their rows, where ``kpr.inputs.markers`` looks for missing-value markers."""

    moments: Moments | None
    profile: dict[str, int]
    unique: int
    distinct: np.ndarray | None = None
    texts: nw.DataFrame[Any] | None = None


def column_scan(
    column: pl.Series,
    read: SortedColumn | TextIds | None,
    outside: Ints,
    binned: bool,
    exact: bool,
    integer: bool,
    pool: Executor | None = None,
) -> ColumnScan:
    """One known variable's :class:`ColumnScan` from what :func:`read_column`
    made of it (``outside``: the rows not in U; ``exact``: an integer column
    summed exactly; ``integer``: its distinct values counted; ``pool``: a thread
    that shares its sums)."""
    if isinstance(read, TextIds):
        rows = read.rows
        texts = value_rows(read.texts(), rows)
        return ColumnScan(
            None, {"missing": int(rows[0])}, int(np.count_nonzero(rows == 1)), None, texts
        )
    if read is None:
        return _grouped_scan(column, outside, binned, exact, integer)
    profile = {"missing": read.missing}
    if integer:
        profile["distinct"] = len(read.distinct) + (read.nan > 0)
    moments = read.moments(outside, exact, pool) if binned else None
    distinct = read.distinct if integer and not binned else None
    return ColumnScan(moments, profile, read.unique(), distinct)


def read_column(column: pl.Series, tuning: Tuning) -> SortedColumn | TextIds | None:
    """What the scan and the link need of one column, before U is known: a number
    column sorted, a text column's ids with their rows; None for other types."""
    if number_dtype(column.dtype):
        return SortedColumn.of(column, tuning)
    if isinstance(column.dtype, TEXT_TYPES):
        return TextIds(column, tuning).counted()  # in the pool: the scan needs the rows
    return None


def _grouped_scan(
    column: pl.Series, outside: Ints, binned: bool, exact: bool, integer: bool
) -> ColumnScan:
    """:func:`column_scan` of a column numpy does not sort as it is: one polars
    group-by of its values."""
    in_u = np.ones(len(column), dtype=np.int64)
    in_u[outside] = 0
    frame = pl.DataFrame({"v": column, "u": in_u})
    per_value = frame.group_by("v").agg(pl.len().cast(pl.Int64).alias("o"), pl.col("u").sum())
    rows, held = per_value["o"].to_numpy(), per_value["u"].to_numpy()
    null = per_value["v"].is_null().to_numpy()
    profile = {"missing": int(rows[null].sum())}
    if integer:
        profile["distinct"] = int(np.count_nonzero(~null))
    moments = None
    if binned:
        values = per_value["v"].cast(pl.Float64).to_numpy()
        ints = per_value["v"].cast(pl.Int64).fill_null(0).to_numpy() if exact else None
        moments = weighted_moments(values, ints, np.where(null, 0, held))
    return ColumnScan(moments, profile, int(np.count_nonzero(rows == 1)))
