"""The scan of an original too large to hold (``TablePath.HASHED``), one known column
at a time: U's rows from one hash of each row, then each column read alone and
counted with numpy by the in-memory engine's column scan
(``kpr.engine.inmemory.columns``: a number column sorted once, its exact sums over
its distinct values), so the numbers are the in-memory path's to the bit.

The lazy queries this replaces re-read the file and hashed every row for each of
their passes over G (first moments, second moments, each column's values held
once); here the file is read once for the hashes and once per known column, and
only one column is held at a time (about three times its size while sorted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from kpr.engine.inmemory.columns import (
    ColumnScan,
    column_scan,
    number_dtype,
    read_column,
    rows_holding,
    slots,
)
from kpr.engine.inmemory.runs import Ints
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.metric import classes
from kpr.metric.attack import Kind
from kpr.metric.binning import NumericBins
from kpr.metric.classes import DIGIT_OFFSET, value_codes

#: The column of :func:`marked`: whether a row is kept.
KEPT = "__kpr_kept__"


def _shared_hashes(hashes: np.ndarray) -> np.ndarray:
    """The hashes that occur more than once, each once (by a sort: cheaper than a
    hash table of millions of distinct hashes)."""
    ordered = np.sort(hashes)
    return np.unique(ordered[1:][ordered[1:] == ordered[:-1]])


def marked(lf: pl.LazyFrame, kept: np.ndarray) -> pl.LazyFrame:
    """``lf`` with the column :data:`KEPT` beside it (a bit a row, set by a horizontal
    concat in the rows' order): a filter on it costs a read, where a join on the
    rows' hashes hashed every row again."""
    return pl.concat([lf, pl.DataFrame({KEPT: kept}).lazy()], how="horizontal")


def outside_rows(
    lf: pl.LazyFrame, known: Sequence[str], tuning: Tuning = DEFAULT_TUNING
) -> tuple[Ints, int]:
    """The rows of G's groups of more than one (sorted positions; U is every other
    row) and the number of rows. Each row is hashed once; only the rows sharing a
    hash (true duplicates and the rare collisions) are grouped exactly, by their
    known values."""
    keys = list(known)
    hashes = lf.select(pl.struct(keys).hash()).collect(engine="streaming").to_series().to_numpy()
    rows = rows_holding(hashes, _shared_hashes(hashes), slots, tuning.table_bits)
    size = len(hashes)
    del hashes
    if len(rows) == 0:
        return rows, size
    shared = np.zeros(size, dtype=bool)
    shared[rows] = True
    grouped = marked(lf.select(keys), shared).filter(pl.col(KEPT))
    sizes = grouped.select(pl.len().over(keys)).collect(engine="streaming").to_series()
    return rows[sizes.to_numpy() > 1], size


def unique_rows(lf: pl.LazyFrame, outside: Ints, size: int) -> pl.LazyFrame:
    """U: the rows of ``lf`` not ``outside`` (its columns as they are), lazy."""
    kept = np.ones(size, dtype=bool)
    kept[outside] = False
    return marked(lf, kept).filter(pl.col(KEPT)).drop(KEPT)


def column_scans(
    lf: pl.LazyFrame,
    kinds: Mapping[str, Kind],
    outside: Ints,
    exact: Sequence[str],
    integers: Sequence[str],
    tuning: Tuning = DEFAULT_TUNING,
) -> tuple[dict[str, ColumnScan], dict[str, pl.Series]]:
    """Each known column's scan over U (``outside``: the rows not in U), one column
    read at a time, and the distinct values of the columns counted by polars (texts,
    flags), which number their link digits (:func:`text_digit`)."""
    schema = lf.collect_schema()
    out: dict[str, ColumnScan] = {}
    values: dict[str, pl.Series] = {}
    for v, kind in kinds.items():
        if not kind.binned and not number_dtype(schema[v]):  # texts, flags: no column held
            out[v], values[v] = _counted_scan(lf, v)
            continue
        column = lf.select(v).collect(engine="streaming").to_series()
        read = read_column(column, tuning) if number_dtype(column.dtype) else None
        out[v] = column_scan(column, read, outside, kind.binned, v in exact, v in integers)
        del column, read
    return out, values


def _counted_scan(lf: pl.LazyFrame, name: str) -> tuple[ColumnScan, pl.Series]:
    """A column that is not binned nor a number (texts, flags): its missing values
    and the rows holding a value no other row holds (missing is one value, as in
    ``is_unique``), from one streaming count of its values; and those values."""
    per_value = lf.group_by(name).agg(pl.len().alias("c")).collect(engine="streaming")
    counts = per_value["c"]
    missing = int(counts.filter(per_value[name].is_null()).sum())
    return ColumnScan(None, {"missing": missing}, int((counts == 1).sum())), per_value[name]


#: Fibonacci hashing's multiplier (odd: 2**64 over the golden ratio).
_FIBONACCI = 0x9E3779B97F4A7C15
#: Hash seeds tried for a text column's slot table before a categorical cast.
_SEEDS = 4


def _slot(name: str, bits: int, seed: int) -> pl.Expr:
    """A text's slot among ``2**bits``: the top bits of its hash times a large odd
    number (the same polars expression on the texts and on the tables)."""
    spread = pl.col(name).cast(pl.String).hash(seed) * pl.lit(_FIBONACCI, pl.UInt64)
    return (spread // pl.lit(1 << (64 - bits), pl.UInt64)).cast(pl.Int64)


def text_digit(name: str, texts: pl.Series, tuning: Tuning) -> tuple[pl.Expr, int] | None:
    """A text column's link digit (1 + the text's number, 0 for missing) and radix,
    by a table indexed by a few bits of each text's hash: half the CPU of a cast to
    Categorical. ``texts``: every text of both tables (each text must be one of
    them, or the digit is wrong). None when they are more than ``tuning.few_texts``
    or no table of up to ``2**tuning.table_bits`` entries separates them."""
    values = texts.cast(pl.String).drop_nulls().unique()
    if len(values) > tuning.few_texts:
        return None
    frame = pl.LazyFrame({name: values})
    for bits in range(max(len(values), 1).bit_length() + 1, tuning.table_bits + 1):
        for seed in range(_SEEDS):
            slots = frame.select(_slot(name, bits, seed)).collect(engine="streaming")
            at = slots.to_series().to_numpy()
            if len(np.unique(at)) < len(at):
                continue
            table = np.full(1 << bits, -1, dtype=np.int64)  # -1: no text, no digit
            table[at] = np.arange(1, len(at) + 1)
            digit = pl.lit(pl.Series(table)).gather(_slot(name, bits, seed))
            return pl.when(pl.col(name).is_null()).then(0).otherwise(digit), len(at) + 1
    return None


def numeric_digit(name: str, bins: NumericBins, tuning: Tuning) -> tuple[pl.Expr, int] | None:
    """A binned number column's link digit and radix: the class rule on numpy
    arrays (``kpr.metric.classes.value_codes``, the in-memory engine's digits), a
    batch of rows at a time; the rule as polars expressions (nested conditions
    evaluated over every row) took several times the CPU. None when U's classes
    span too many digits (``classes.digit_shift``) or are not whole numbers."""
    plan = classes.digit_shift(bins, tuning.bincount_keys)
    if plan is None or not bins.int_codes:
        return None
    shift, radix = plan

    def digits(batch: pl.Series) -> pl.Series:
        values = batch.cast(pl.Float64).to_numpy()  # missing as NaN
        return pl.Series(value_codes(values, bins, shift, DIGIT_OFFSET).astype(np.int64))

    expr = pl.col(name).map_batches(digits, return_dtype=pl.Int64, is_elementwise=True)
    return expr, radix
