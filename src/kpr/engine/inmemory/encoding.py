"""Candidate columns encoded once for the sweep: each column of both tables as
dense integer codes of its raw values (null is code 0; equal values, -0.0 and 0.0
included, share a code, as in a group-by). Categorical codes are shared by both
tables, so they are the link codes too; numeric codes index the column's distinct
values, whose classes depend on the attack."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from kpr.engine.inmemory.runs import Ints
from kpr.engine.inmemory.texts import as_text
from kpr.engine.tuning import Tuning
from kpr.metric.attack import Kind


@dataclass(frozen=True)
class EncodedColumn:
    """One candidate, encoded once.

    ``o``/``a``: each row's code in the original/avatars. ``radix``: codes of
    the original are in ``[0, radix)``. Numeric columns also keep the distinct
    values behind the codes (``o_values[code]``, NaN for missing), since their
    link codes (classes) depend on the subset; categorical codes are shared by
    both tables and are their own link codes.
    """

    kind: Kind
    o: Ints
    a: Ints
    radix: int
    o_values: np.ndarray | None = None
    a_values: np.ndarray | None = None
    o_ints: Ints | None = None  #: ``o_values`` as exact int64 (integer columns)


def _unique(values: np.ndarray, tuning: Tuning) -> tuple[np.ndarray, Ints]:
    """``np.unique(values, return_inverse=True)``; integers of a small range
    (categorical codes, ages, counts) by a count instead of a sort."""
    if values.dtype.kind in "iu" and len(values):
        low, high = int(values.min()), int(values.max())
        if tuning.few_keys(high - low, len(values)):
            offsets = (values - low).astype(np.int64)
            seen = np.bincount(offsets, minlength=high - low + 1) > 0
            rank = np.cumsum(seen) - 1
            distinct = (np.flatnonzero(seen) + low).astype(values.dtype)
            return distinct, rank[offsets]
    return np.unique(values, return_inverse=True)


def _dense(series: pl.Series, tuning: Tuning) -> tuple[Ints, np.ndarray, int]:
    """Dense codes of a column's values (null = 0, values 1, 2, ... in sorted
    order), the sorted distinct values, and how many codes there are."""
    present = series.is_not_null().to_numpy()
    values = series.drop_nulls()
    if isinstance(values.dtype, pl.String | pl.Categorical | pl.Enum):
        values = values.cast(pl.Categorical).to_physical()  # a hash, no sort of text
    distinct, inverse = _unique(values.to_numpy(), tuning)
    codes = np.zeros(len(series), dtype=np.int64)
    codes[present] = inverse + 1
    return codes, distinct, len(distinct) + 1


def _values(series: pl.Series, tuning: Tuning) -> tuple[Ints, int, np.ndarray, Ints | None]:
    """A numeric column's codes, their number, the float value behind each code
    (NaN for missing), and for integer columns summed exactly by every engine
    (``kpr.engine.statistics.exact_integers``) the exact int64 values: equal values
    share a code, -0.0 and 0.0 included."""
    codes, distinct, radix = _dense(series, tuning)
    raw = pl.Series(distinct).cast(series.dtype)
    values = np.full(radix, np.nan)
    values[1:] = raw.cast(pl.Float64).to_numpy()
    ints = None
    if series.dtype.is_integer() and series.dtype != pl.UInt64:
        ints = np.zeros(radix, dtype=np.int64)
        ints[1:] = raw.cast(pl.Int64).to_numpy()
    return codes, radix, values, ints


def encode_column(o: pl.Series, a: pl.Series, kind: Kind, tuning: Tuning) -> EncodedColumn:
    if kind.binned:  # numeric, or a date as float days
        o_codes, o_radix, o_values, o_ints = _values(o, tuning)
        a_codes, _, a_values, _ = _values(a, tuning)
        return EncodedColumn(kind, o_codes, a_codes, o_radix, o_values, a_values, o_ints)
    o, a = as_text(o), as_text(a)
    codes, _, radix = _dense(pl.concat([o, a if a.dtype == o.dtype else a.cast(o.dtype)]), tuning)
    return EncodedColumn(kind, codes[: len(o)], codes[len(o) :], radix)
