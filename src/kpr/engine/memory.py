"""The metric on polars tables held in memory, counted with numpy.

On this kind of machine numpy sorts millions of 8-byte values (SIMD) several
times faster than it argsorts them, and several times faster than polars hashes
them into a table: every wide step here is a sort, a ``bincount`` or a lookup
in a small array, and G (the original grouped by its known values) is never
built:

- per known variable, one pass before U is known (:func:`read_column`): a
  number column's present values sorted once (or, integers of a small range,
  counted by one ``bincount``), each run of equal values one distinct value
  with its rows in the original; a text column one small integer id per value
  (:class:`TextIds`), checked against the texts a block of rows at a time.
- the rows of G's groups of more than one, with their sizes
  (:func:`shared_groups`): a row holding a number no other row holds is a
  group of one, and the others are found from one hash of their known values:
  a hash held by one row is a group of one (whatever the collisions); only the
  few rows sharing a hash are grouped exactly. U is every other row.
- per known variable, its scan (:func:`column_scan`): the rows outside U taken
  off their values' rows give the moments (exact sums over the distinct values,
  ``kpr.engine.encoded.weighted_moments``), the missing and distinct counts and
  the rows holding a value no other row holds.
- the link (:meth:`MemoryTables.link`): each profile of U and of the avatars
  becomes one exact integer (a mixed-radix number of per-column digits, packed
  a block of rows at a time), counted by ``kpr.engine.encoded.linked_count``
  (a bincount, a bitmap of the possible profiles, or sorts). The avatars' text
  ids are made while the original is still being read; their number columns
  are read a block at a time as they are packed (no column-long copies).

A column of another type (a float compared as a category, a decimal, ...) is
scanned by a polars group-by, and its link falls back to the lazy queries.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property, partial
from typing import cast

import numpy as np
import polars as pl

from kpr.engine import queries
from kpr.engine.encoded import (
    Ints,
    blank_bitmap,
    class_digits,
    digit_shift,
    extend_keys,
    linked_count,
    run_changes,
    run_lengths,
    run_starts,
    shifted_digits,
    uses_bitmap,
    weighted_moments,
)
from kpr.engine.jobs import Job, shared_blocks
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.metric.attack import Kind
from kpr.metric.binning import Moments, NumericBins
from kpr.metric.classes import push_digit

_TEXT = (pl.String, pl.Categorical, pl.Enum)


def _numbers(dtype: pl.DataType) -> bool:
    """Whether numpy sorts this column as it is (integers and floats)."""
    return dtype.is_integer() or dtype in (pl.Float32, pl.Float64)


def shared_groups(
    frame: pl.DataFrame,
    keys: Sequence[str],
    sorted_columns: Sequence[SortedColumn] = (),
    text_ids: Callable[[], Mapping[str, Ints]] = dict,
    tuning: Tuning = DEFAULT_TUNING,
) -> tuple[Ints, Ints]:
    """The rows whose known values another row holds too (the rows of G's groups
    of more than one, in order) and their groups' sizes; every other row is a
    group of one (U). Found from one hash of each row; only rows sharing a hash
    are grouped.

    A row holding a value of a known variable that no other row holds is a
    group of one: when one of ``sorted_columns`` (the known number columns) has
    such values on most rows, only the other rows are hashed, their text columns
    as their exact ids (``text_ids``: :attr:`TextIds.ids` by column; a take of
    texts costs far more)."""
    best = max(sorted_columns, key=lambda c: c.singles, default=None)
    if best is None or 2 * best.singles < frame.height:
        return _hashed_groups(frame, keys, tuning.table_bits)
    rows = best.shared_rows(tuning.table_bits)
    if len(rows) == 0:
        return rows, np.zeros(0, dtype=np.int64)
    ids = text_ids()
    taken = frame.select(v for v in keys if v not in ids)[rows]  # one take of the rest
    taken = taken.with_columns(pl.Series(v, ids[v][rows]) for v in keys if v in ids)
    at, sizes = _hashed_groups(taken, keys, tuning.table_bits)
    return rows[at], sizes


def _hashed_groups(frame: pl.DataFrame, keys: Sequence[str], bits: int) -> tuple[Ints, Ints]:
    """:func:`shared_groups` of every row, from its hash."""
    hashes = _row_hashes(frame, keys).to_numpy()
    ordered = np.sort(hashes)
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64)
    shared = ordered[1:][same]
    shared = shared[run_starts(shared)]
    rows = _rows_holding(hashes, shared, _low_bits, bits)
    grouped = frame[rows].select(pl.len().over(list(keys)).cast(pl.Int64))
    sizes = grouped.to_series().to_numpy()
    more = sizes > 1  # rows that share only a hash are groups of one
    return rows[more], sizes[more]


def _with_sizes(frame: pl.DataFrame, rows: Ints, sizes: Ints) -> pl.DataFrame:
    """``frame`` with each row's group size (1, but ``sizes`` at ``rows``): made
    only when a command lists rows (``kpr evaluate`` never does)."""
    column = np.ones(frame.height, dtype=np.int64)
    column[rows] = sizes
    return frame.with_columns(pl.Series(queries._N, column))


def _slots(values: np.ndarray, table_bits: int) -> Ints:
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


def _row_hashes(frame: pl.DataFrame, keys: Sequence[str]) -> pl.Series:
    """One 64-bit hash of each row's known values (equal values, equal hashes)."""
    return frame.select(keys).hash_rows()


def _rows_holding(
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


def _low_bits(hashes: np.ndarray, bits: int) -> Ints:
    """A hash's slot: its low bits."""
    return (hashes & np.uint64((1 << bits) - 1)).astype(np.intp)


class TextIds:
    """Dense ids of a text column's values (0 for missing, then 1, 2, ...), and
    the same ids for another table's values (-1 for a value the first table
    does not hold).

    A few distinct texts: a window of bits of each value's hash indexes a small
    table of one representative row per window value; every row's text is
    compared with its representative's (a block of rows at a time), so the ids
    are exact. A window where two texts collide is replaced by the next one;
    after three, and for many distinct texts, an enum of the texts numbers
    them."""

    def __init__(self, column: pl.Series, tuning: Tuning = DEFAULT_TUNING) -> None:
        column = _as_text(column)
        self.tuning = tuning
        self.shift = -1
        self.lookup = np.zeros(0, dtype=np.int16)  # window value -> id, -1 for none
        self.enum = pl.Enum([])  # with ``shift`` -1: the texts, numbered from 1
        self.representatives = column.clear()  # the text of each id, from 1
        self.ids, self.radix = self._fit(column)

    def _fit(self, column: pl.Series) -> tuple[Ints, int]:
        hashes = column.hash().to_numpy()
        null = column.is_null().to_numpy() if column.null_count() else None
        if column.null_count() == len(column):  # only missing values: no text is held
            return np.zeros(len(column), dtype=np.int64), 1
        for shift in _WINDOWS:
            numbered = _numbered(_window(hashes, shift, self.tuning.table_bits), null, self.tuning)
            if numbered is None:  # too many texts for a small table
                break
            lookup, ids, rows = numbered
            if null is not None:
                ids[null] = 0
            representatives = column.gather(rows)
            if len(_strangers(column, representatives, ids, self.tuning.check_block)) == 0:
                self.shift, self.lookup, self.representatives = shift, lookup, representatives
                return ids, len(rows) + 1
        # an enum of the column's distinct texts: its ids, from 1
        self.enum = pl.Enum(column.drop_nulls().unique())
        ids = _enum_ids(column, self.enum)
        if null is not None:
            ids[null] = 0
        return ids, len(self.enum.categories) + 1

    def rows(self) -> Ints:
        """How many rows hold each id (0: missing). Small ids are counted a block
        at a time: ``bincount`` casts its input to 8-byte integers, which would
        be a column-long copy of the 2-byte ids."""
        if self.ids.dtype.itemsize == 8:
            return np.bincount(self.ids, minlength=self.radix)
        rows = np.zeros(self.radix, dtype=np.int64)
        block = self.tuning.check_block
        for start in range(0, len(self.ids), block):
            rows += np.bincount(self.ids[start : start + block], minlength=self.radix)
        return rows

    def encode(self, other: pl.Series) -> Ints:
        """``other``'s values as ids of this column's (0 missing, -1 not held)."""
        other = _as_text(other)
        if self.shift < 0:
            ids = _enum_ids(other, self.enum)
        else:
            ids = self.lookup[_window(other.hash().to_numpy(), self.shift, self.tuning.table_bits)]
            ids[_strangers(other, self.representatives, ids, self.tuning.check_block)] = -1
        if other.null_count():
            ids[other.is_null().to_numpy()] = 0
        return ids


#: The windows of a 64-bit hash tried in turn by :class:`TextIds`.
_WINDOWS = (0, 22, 44)


def _numbered(
    window: Ints, null: np.ndarray | None, tuning: Tuning
) -> tuple[Ints, Ints, Ints] | None:
    """Ids from 1 of the window values of the present rows: the table from window
    value to id (-1: none), each row's id, and a row holding each id's value; None
    for more than ``tuning.few_texts`` values. The first rows' values are numbered
    first, then those of the rows still without an id (few: most values are in the
    first rows), with no scatter of every row into the table."""
    lookup = np.full(1 << tuning.table_bits, -1, dtype=np.int16)  # 2 bytes a row for ids
    rows = np.zeros(0, dtype=np.intp)
    unknown = np.arange(min(len(window), tuning.seed_rows))
    ids = None
    while True:
        if null is not None:
            unknown = unknown[~null[unknown]]
        if ids is not None and len(unknown) == 0:
            return lookup, ids, rows
        if len(unknown):
            held, first = np.unique(window[unknown], return_index=True)
            if len(rows) + len(held) > tuning.few_texts:
                return None
            lookup[held] = np.arange(len(rows) + 1, len(rows) + len(held) + 1)
            rows = np.concatenate([rows, unknown[first]])
        ids = lookup[window]
        unknown = np.flatnonzero(ids < 0)


def _window(hashes: np.ndarray, shift: int, bits: int) -> Ints:
    """Bits ``shift`` to ``shift + bits`` of each hash (as int64 indices)."""
    mask = np.uint64((1 << bits) - 1)
    window = hashes >> np.uint64(shift) if shift else hashes.copy()
    window &= mask
    return window.view(np.int64)


def _strangers(column: pl.Series, representatives: pl.Series, ids: Ints, block: int) -> Ints:
    """The present rows of id 1 or more whose text is not their id's, compared a
    block of rows at a time (small arrays, no table-long copy of the texts)."""
    if len(representatives) == 0:
        return np.zeros(0, dtype=np.intp)
    found = []
    for start in range(0, len(column), block):
        stop = min(start + block, len(column))
        index = np.maximum(ids[start:stop], 1).astype(np.uint32)
        index -= 1  # a row's representative: none for missing (id 0), compared and left out
        theirs = representatives[index]  # a native take (gather() runs a query)
        differ = column.slice(start, stop - start) != theirs  # missing: null, not counted
        if differ.any():
            rows = differ.fill_null(False).to_numpy() & (ids[start:stop] > 0)
            found.append(np.flatnonzero(rows) + start)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


def _enum_ids(column: pl.Series, enum: pl.Enum) -> Ints:
    """Each text's position in ``enum`` from 1; -1 for missing and for a text the
    enum does not hold."""
    physical = column.cast(enum, strict=False).to_physical().cast(pl.Int64)
    return physical.fill_null(-2).to_numpy() + 1


def _as_text(column: pl.Series) -> pl.Series:
    """Categorical values compared as text (both tables agree on text)."""
    return column if column.dtype == pl.String else column.cast(pl.String)


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
    def of(cls, column: pl.Series, tuning: Tuning = DEFAULT_TUNING) -> SortedColumn:
        """Missing and NaN are each one value; -0.0 equals 0.0 (as in a group-by).
        Floats come with NaN for missing (one copy, which the link reuses as its
        float values); integers with their smallest value (a float would lose
        digits), and counted by one ``bincount`` when they span a small range."""
        missing, nan = column.null_count(), 0
        if column.dtype in (pl.Float32, pl.Float64):
            # NaN for missing, filled by polars (a quicker copy than to_numpy's own)
            values = column.fill_null(np.nan).to_numpy() if missing else column.to_numpy()
            is_nan = np.isnan(values)
            absent_rows = int(np.count_nonzero(is_nan))
            nan = absent_rows - missing
            absent = is_nan if absent_rows else None
            ordered = np.sort(values)[: len(values) - absent_rows]  # NaN sorts last
        elif missing and missing == len(column):  # nothing to count
            values, absent = column.fill_null(0).to_numpy(), np.ones(len(column), dtype=bool)
            ordered = values[:0]
        else:
            low, high = column.min(), column.max()
            values = column.fill_null(low).to_numpy() if missing else column.to_numpy()
            absent = column.is_null().to_numpy() if missing else None
            if len(column):
                counted = _counted(
                    values, int(cast(int, low)), int(cast(int, high)), missing, tuning.count_span
                )
                if counted is not None:
                    return cls(values, absent, missing, nan, *counted)
            if absent is None:
                ordered = np.sort(values)
            else:  # a copy: sorted in place
                ordered = values[~absent]
                ordered.sort()
        change = run_changes(ordered)
        if change.all():  # each value held once (a continuous column): no gather
            return cls(values, absent, missing, nan, ordered, _once(len(ordered)))
        starts = np.flatnonzero(change)
        return cls(values, absent, missing, nan, ordered[starts], run_lengths(starts, len(ordered)))

    @cached_property
    def singles(self) -> int:
        """The rows holding a present value no other row holds."""
        if len(self.rows) and self.rows.strides == (0,):  # :func:`_once`: every value once
            return len(self.rows) if self.rows[0] == 1 else 0
        return int(np.count_nonzero(self.rows == 1))

    def unique(self) -> int:
        """The rows holding a value no other row holds."""
        return self.singles + (self.missing == 1) + (self.nan == 1)

    def shared_rows(self, table_bits: int) -> Ints:
        """The rows holding a value another row holds too (:func:`_rows_holding`,
        by :func:`_slots`), or none (missing, NaN), in order."""
        rows = _rows_holding(self.values, self.distinct[self.rows > 1], _slots, table_bits)
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


def _once(size: int) -> Ints:
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


@dataclass(frozen=True)
class ColumnScan:
    """One known variable over the original: its moments over U (numbers), its
    profile (``missing``, and ``distinct`` for integer columns), its rows
    holding a value no other row holds, and (integer columns) its sorted
    distinct values, which number its link digits."""

    moments: Moments | None
    profile: dict[str, int]
    unique: int
    distinct: np.ndarray | None = None


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
        rows = read.rows()
        return ColumnScan(None, {"missing": int(rows[0])}, int(np.count_nonzero(rows == 1)))
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
    column sorted, a text column's ids; None for other types."""
    if _numbers(column.dtype):
        return SortedColumn.of(column, tuning)
    if isinstance(column.dtype, _TEXT):
        return TextIds(column, tuning)
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


@dataclass(frozen=True)
class LinkDigits:
    """One known variable's link digits in both tables, each in ``[0, radix)``
    (-1 for an avatar value no original row holds): whole arrays, or (a numeric
    column) its values (floats, NaN for missing; the original's integers, with the
    rows ``absent``; the avatars' column as read) and the ``shift`` that turns a
    block of them into digits (``kpr.engine.encoded.shifted_digits``), packed a
    block at a time."""

    radix: int
    original: np.ndarray
    avatars: np.ndarray | pl.Series
    bins: NumericBins | None = None
    shift: float | None = None
    absent: np.ndarray | None = None

    def block(self, values: np.ndarray | pl.Series, start: int, stop: int) -> Ints:
        """The digits of rows ``start`` to ``stop`` of one table's ``values``."""
        if isinstance(values, pl.Series):  # the avatars' float64 column, NaN for missing
            part = values.slice(start, stop - start).to_numpy()
            absent = None
        else:
            part, absent = values[start:stop], self.absent
        if self.shift is None:
            return part
        assert self.bins is not None
        if part.dtype != np.float64:  # integers (or float32s): a block at a time
            part = part.astype(np.float64)
            if absent is not None:
                part[absent[start:stop]] = np.nan
        return shifted_digits(part, self.bins, self.shift)


def column_digits(
    o: pl.Series,
    a: pl.Series,
    bins: NumericBins | None,
    read: SortedColumn | TextIds | None,
    scan: ColumnScan,
    a_read: np.ndarray | None,
    tuning: Tuning,
) -> LinkDigits | None:
    """One known variable's :class:`LinkDigits` (``a_read``: what
    :func:`read_avatars` made of the avatars' column); None: this column has no
    digits here (a float compared as a category, ...)."""
    if isinstance(read, TextIds):
        assert a_read is not None
        return LinkDigits(read.radix, read.ids, a_read)
    if bins is not None:  # numeric or date: its classes
        if not bins.int_codes:
            return None
        plan = digit_shift(bins, tuning)
        if plan is None:
            do, da, radix = class_digits(_floats(o, read), _floats(a, None), bins, tuning)
            return LinkDigits(radix, do, da)
        shift, radix = plan
        # turned into digits a block at a time: the original's values and the
        # avatars' column (a number column, or the float days of a date)
        a_values = a if _numbers(a.dtype) else _floats(a, None)
        if isinstance(read, SortedColumn):
            return LinkDigits(radix, read.values, a_values, bins, shift, read.absent)
        return LinkDigits(radix, _floats(o, read), a_values, bins, shift)
    if o.dtype != a.dtype:  # compared by the lazy link, as the engines compare them
        return None
    if o.dtype == pl.Boolean:
        do, da = (s.cast(pl.Int64).fill_null(-1).to_numpy() + 1 for s in (o, a))
        return LinkDigits(3, do, da)
    if scan.distinct is None:
        return None
    return LinkDigits(
        len(scan.distinct) + 1,
        _value_digits(o, scan.distinct, tuning.table_span),
        _value_digits(a, scan.distinct, tuning.table_span),
    )


def read_avatars(column: pl.Series, read: SortedColumn | TextIds | None) -> np.ndarray | None:
    """What the link needs of the avatars' column before the bins are known: the
    ids of its texts in the original's numbering; None for other types (a number
    column is turned into digits a block at a time, as it is)."""
    return read.encode(column) if isinstance(read, TextIds) else None


def _floats(column: pl.Series, read: SortedColumn | TextIds | None) -> np.ndarray:
    """A numeric column's values as float64, NaN for missing (the original's from
    its :class:`SortedColumn`)."""
    if not isinstance(read, SortedColumn):  # NaN filled in by polars' SIMD kernel
        return column.cast(pl.Float64).fill_null(np.nan).to_numpy()
    values = read.values.astype(np.float64, copy=False)
    if read.absent is None or read.values.dtype.kind == "f":  # NaN for missing already
        return values
    return np.where(read.absent, np.nan, values)


class PackedKeys:
    """Both tables' profiles, each packed into one integer (mixed radix, the
    product of the radices below its limit; the avatars' as ``a_dtype``), a block
    of rows at a time (each block's arrays stay in the processor cache), and which
    avatar rows have a profile (no digit of -1: the key of such a row is not used).

    A thread of ``pool`` packs the blocks of the avatars, then of U, as soon as it
    is free; the calling thread packs the blocks of one table when it asks for its
    keys (both take the next block from one ``jobs.shared_blocks``, and the calling thread never
    waits for a thread that has not started). So the calling thread can work on
    the avatars' keys while the pool's thread is still packing U's."""

    def __init__(
        self,
        columns: Sequence[LinkDigits],
        a_dtype: type[np.integer],
        pool: Executor | None,
        block: int = DEFAULT_TUNING.pack_block,
    ) -> None:
        n, m = len(columns[0].original), len(columns[0].avatars)
        self.columns, self.block = columns, block
        self.o_key, self.a_key = np.empty(n, dtype=np.int64), np.empty(m, dtype=a_dtype)
        self.valid = np.ones(m, dtype=bool)
        self.a_blocks = partial(self._pack, True, shared_blocks(m, block))
        self.o_blocks = partial(self._pack, False, shared_blocks(n, block))
        self.jobs = Job(self.a_blocks, pool), Job(self.o_blocks, pool)

    def avatars(self) -> tuple[Ints, np.ndarray]:
        """The avatars' keys and which rows have a profile, every block packed."""
        self.a_blocks()
        self.jobs[0].result()  # a block still being packed by the pool's thread
        return self.a_key, self.valid

    def original(self) -> Ints:
        """U's keys (every row of the original), every block packed."""
        self.o_blocks()
        self.jobs[1].result()
        return self.o_key

    def _pack(self, avatars: bool, starts: Iterator[int]) -> None:
        keys, valid = (self.a_key, self.valid) if avatars else (self.o_key, None)
        for start in starts:  # each start handed to one thread (jobs.shared_blocks)
            stop = min(start + self.block, len(keys))
            key = keys[start:stop]
            key[:] = 0
            for column in self.columns:
                digit = column.block(column.avatars if avatars else column.original, start, stop)
                if valid is not None:
                    valid[start:stop] &= digit >= 0
                push_digit(key, digit, column.radix, out=key)


def _value_digits(column: pl.Series, distinct: np.ndarray, table_span: int) -> Ints:
    """An integer column's values as their positions in the original's sorted
    distinct values, from 1 (0 missing, -1 a value the original does not hold)."""
    if len(distinct) == 0:
        return np.where(column.is_null().to_numpy(), 0, -1)
    values = column.fill_null(distinct[0]).to_numpy()
    low, high = int(distinct[0]), int(distinct[-1])
    if high - low < table_span:  # a table of the range: no search
        table = np.full(high - low + 1, -1, dtype=np.int64)
        table[(distinct - low).astype(np.int64)] = np.arange(1, len(distinct) + 1)
        inside = (values >= low) & (values <= high)
        digits = np.full(len(values), -1, dtype=np.int64)
        digits[inside] = table[(values[inside] - low).astype(np.int64)]
    else:
        at = np.minimum(np.searchsorted(distinct, values), len(distinct) - 1)
        digits = np.where(distinct[at] == values, at + 1, -1)
    if column.null_count():
        digits[column.is_null().to_numpy()] = 0
    return digits


def _renumbered_keys(
    digits: Sequence[LinkDigits], key_limit: int
) -> tuple[Ints, Ints, int, np.ndarray]:
    """Both tables' packed keys when the product of the radices passes ``key_limit``
    (``kpr.engine.encoded.extend_keys`` renumbers them densely on the way)."""
    keys: list[Ints] | None = None
    radix = 1
    n, m = len(digits[0].original), len(digits[0].avatars)
    valid = np.ones(m, dtype=bool)
    for column in digits:
        do, da = column.block(column.original, 0, n), column.block(column.avatars, 0, m)
        valid &= da >= 0
        keys, radix, _ = extend_keys(keys, radix, [do, np.maximum(da, 0)], column.radix, key_limit)
    assert keys is not None
    return keys[0], keys[1], radix, valid


def _avatars_query(avatars: pl.LazyFrame, kinds: Mapping[str, Kind]) -> pl.LazyFrame:
    """The avatars' known columns, each binned number column read as float64 with
    NaN for missing (as :func:`_floats` makes it, in the read's own threads): the
    link turns a block of it into digits with no copy."""
    schema = avatars.collect_schema()
    return avatars.select(
        pl.col(v).cast(pl.Float64).fill_null(np.nan)
        if kind.binned and _numbers(schema[v])
        else pl.col(v)
        for v, kind in kinds.items()
    )


class MemoryTables:
    """Both tables in memory and the steps of one evaluation on them, run on a
    small thread pool: the avatars are read and the original's text columns
    numbered (:func:`read_column`) while its number columns are sorted and G's
    sizes found; the columns are then scanned, and their link digits made, side
    by side."""

    def __init__(
        self,
        original: pl.LazyFrame,
        avatars: pl.LazyFrame,
        kinds: Mapping[str, Kind],
        tuning: Tuning,
    ) -> None:
        known = list(kinds)
        self.tuning = tuning
        self.pool = ThreadPoolExecutor(tuning.workers)
        self.avatars = Job(_avatars_query(avatars, kinds).collect, self.pool)
        self.frame = original.collect()
        numbers = [v for v in known if _numbers(self.frame[v].dtype)]
        texts = [v for v in known if v not in numbers]
        self.read: dict[str, Job[SortedColumn | TextIds | None]] = {
            v: Job(partial(read_column, self.frame[v], tuning), self.pool) for v in texts
        }
        self.read_avatars = {  # in the pool as soon as the avatars (and texts) are read
            v: Job(partial(self._read_avatars, v), self.pool) for v in texts
        }
        sorted_columns = []
        for v in numbers:  # sorted here while the pool reads the avatars and numbers the texts
            sorted_columns.append(SortedColumn.of(self.frame[v], tuning))
            self.read[v] = Job.done(sorted_columns[-1])
        text_ids = partial(self._text_ids, texts)
        self.outside, sizes = shared_groups(self.frame, known, sorted_columns, text_ids, tuning)
        self.groups = pl.defer(  # G's sizes as a column, only if a command asks for U's rows
            partial(_with_sizes, self.frame, self.outside, sizes),
            schema={**self.frame.schema, queries._N: pl.Int64},
        )
        self.scans: dict[str, ColumnScan] = {}

    def _text_ids(self, texts: Sequence[str]) -> dict[str, Ints]:
        return {v: read.ids for v in texts if isinstance(read := self.read[v].result(), TextIds)}

    def _read_avatars(self, v: str) -> np.ndarray | None:
        return read_avatars(self.avatars.result()[v], self.read[v].result())

    def scan(
        self, kinds: Mapping[str, Kind], exact: Sequence[str], integers: Sequence[str]
    ) -> tuple[int, int, dict[str, ColumnScan]]:
        """n, |U| and each known variable's :class:`ColumnScan`."""
        # here, one column after the other: the pool, still making the avatars' side,
        # takes blocks of their exact sums whenever it is free
        frame, read, outside = self.frame, self.read, self.outside
        self.scans = {
            v: column_scan(frame[v], read[v].result(), outside, kind.binned, v in exact,
                           v in integers, self.pool)
            for v, kind in kinds.items()
        }  # fmt: skip
        return self.frame.height, self.frame.height - len(self.outside), self.scans

    def link(self, bins: Mapping[str, NumericBins]) -> tuple[int, int] | None:
        """m and |S| from each profile of U and of the avatars packed into one
        integer; None: a column has no digits here. The original's rows are
        packed whole, and those outside U dropped at the end (U is most of them
        on large tables)."""
        avatars = self.avatars.result()

        def made(v: str, scan: ColumnScan) -> LinkDigits | None:
            a_read = self.read_avatars[v].result() if v in self.read_avatars else None
            return column_digits(
                self.frame[v], avatars[v], bins.get(v), self.read[v].result(), scan, a_read,
                self.tuning,
            )  # fmt: skip

        jobs = [Job(partial(made, v, scan), self.pool) for v, scan in self.scans.items()]
        columns = [job.result() for job in jobs]
        if any(c is None for c in columns):
            return None
        digits = [c for c in columns if c is not None]
        radix = math.prod(c.radix for c in digits)
        m, members = avatars.height, self.frame.height - len(self.outside)
        tuning = self.tuning
        if radix >= tuning.key_limit:  # renumbered as it is packed, a column at a time
            o_key, a_key, radix, valid = _renumbered_keys(digits, tuning.key_limit)
            a_key = a_key if valid.all() else a_key[valid]
            return m, linked_count(
                lambda: o_key, len(o_key), a_key, radix, self.pool, self.outside, tuning=tuning
            )
        # the pool's thread first makes the bitmap's memory, then packs with this one;
        # the avatars' keys are sorted (4 bytes when they fit), U's are looked up
        blank = None
        if uses_bitmap(radix, members + m, tuning):
            blank = Job(partial(blank_bitmap, radix), self.pool)
        a_dtype = np.uint32 if radix <= tuning.keys32 else np.int64
        packing = PackedKeys(digits, a_dtype, self.pool, tuning.pack_block)
        a_key, valid = packing.avatars()
        a_key = a_key if valid.all() else a_key[valid]
        bitmap = None if blank is None else blank.result()
        # U's keys are asked for (and packed here too) once the avatars' are counted
        u_rows = self.frame.height
        return m, linked_count(
            packing.original, u_rows, a_key, radix, self.pool, self.outside, bitmap, tuning
        )

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
