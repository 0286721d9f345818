"""Each known variable's link digits: the small integers, shared by both tables,
that two rows agree on iff they share the variable's class (a numeric column's
classes shifted to digits, ``kpr.metric.classes``; a text's ids; an integer's
position among the original's values)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from kpr.engine.inmemory.arrays import chunkwise, filled
from kpr.engine.inmemory.columns import ColumnScan, SortedColumn, number_dtype
from kpr.engine.inmemory.runs import Ints
from kpr.engine.inmemory.texts import TextIds
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.metric import classes
from kpr.metric.binning import NumericBins
from kpr.metric.classes import DIGIT_OFFSET, value_codes


def value_classes(values: np.ndarray, bins: NumericBins) -> np.ndarray:
    """Each value's code (float codes): ``kpr.metric.classes.value_codes``."""
    return value_codes(values, bins)


def digit_shift(bins: NumericBins, tuning: Tuning = DEFAULT_TUNING) -> tuple[float, int] | None:
    """How a numeric column's classes become small digits
    (``kpr.metric.classes.digit_shift``); None when they span more classes than
    ``np.bincount`` counts (see :func:`class_digits`)."""
    return classes.digit_shift(bins, tuning.bincount_keys)


def shifted_digits(
    values: np.ndarray,
    bins: NumericBins,
    shift: float,
    work: np.ndarray | None = None,
    out: np.ndarray | None = None,
) -> Ints:
    """The digits of some float64 values of a numeric column (``shift``: from
    :func:`digit_shift`); ``work`` (float64) and ``out`` (an integer type that holds
    the radix), of the values' length: where a block loop has them written."""
    codes = value_codes(values, bins, shift, DIGIT_OFFSET, out=work)
    if out is None:
        return codes.astype(np.int64)
    np.copyto(out, codes, casting="unsafe")
    return out


def class_digits(
    o_values: np.ndarray, a_values: np.ndarray, bins: NumericBins, tuning: Tuning
) -> tuple[Ints, Ints, int]:
    """The classes of two arrays of a numeric column's values (the original's and
    the avatars') as small integers shared by both, and their radix: shifted
    (:func:`digit_shift`), or numbered densely when they span too much."""
    plan = digit_shift(bins, tuning)
    if plan is not None:
        shift, radix = plan
        return shifted_digits(o_values, bins, shift), shifted_digits(a_values, bins, shift), radix
    co, ca = value_codes(o_values, bins), value_codes(a_values, bins)
    uniq, inverse = np.unique(np.concatenate([co, ca]), return_inverse=True)
    return inverse[: len(co)], inverse[len(co) :], len(uniq)


@dataclass(frozen=True)
class LinkDigits:
    """One known variable's link digits in both tables, each in ``[0, radix)``
    (-1 for an avatar value no original row holds): whole arrays, or (a numeric
    column) its values (floats, NaN for missing; the original's integers, with the
    rows ``absent``; the avatars' column as read) and the ``shift`` that turns a
    block of them into digits (``kpr.engine.inmemory.digits.shifted_digits``), packed a
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
            do, da, radix = class_digits(float_values(o, read), float_values(a, None), bins, tuning)
            return LinkDigits(radix, do, da)
        shift, radix = plan
        # turned into digits a block at a time: the original's values and the
        # avatars' column (a number column, or the float days of a date)
        a_values = a if number_dtype(a.dtype) else float_values(a, None)
        if isinstance(read, SortedColumn):
            return LinkDigits(radix, read.values, a_values, bins, shift, read.absent)
        return LinkDigits(radix, float_values(o, read), a_values, bins, shift)
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


def float_values(column: pl.Series, read: SortedColumn | TextIds | None) -> np.ndarray:
    """A numeric column's values as float64, NaN for missing (the original's from
    its ``columns.SortedColumn``)."""
    if not isinstance(read, SortedColumn):  # NaN filled in by polars' SIMD kernel
        return chunkwise(column, lambda chunk: chunk.cast(pl.Float64).fill_null(np.nan))
    values = read.values.astype(np.float64, copy=False)
    if read.absent is None or read.values.dtype.kind == "f":  # NaN for missing already
        return values
    return np.where(read.absent, np.nan, values)


def _value_digits(column: pl.Series, distinct: np.ndarray, table_span: int) -> Ints:
    """An integer column's values as their positions in the original's sorted
    distinct values, from 1 (0 missing, -1 a value the original does not hold)."""
    if len(distinct) == 0:
        return np.where(column.is_null().to_numpy(), 0, -1)
    values = filled(column, distinct[0])
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
