"""G's groups of more than one (the original rows whose known values another row
holds too) and their sizes, from one hash of each row, without building G: U is
every other row."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import polars as pl

from kpr.engine import queries
from kpr.engine.inmemory.columns import SortedColumn, rows_holding
from kpr.engine.inmemory.runs import Ints, held_more_than_once, sort
from kpr.engine.tuning import DEFAULT_TUNING, Tuning


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
        return _hashed_groups(frame, keys, tuning)
    rows = best.shared_rows(tuning.table_bits)
    if len(rows) == 0:
        return rows, np.zeros(0, dtype=np.int64)
    ids = text_ids()
    taken = frame.select(v for v in keys if v not in ids)[rows]  # one take of the rest
    taken = taken.with_columns(pl.Series(v, ids[v][rows]) for v in keys if v in ids)
    at, sizes = _hashed_groups(taken, keys, tuning)
    return rows[at], sizes


def hashed_from_the_start(samples: Sequence[tuple[int, int]]) -> bool:
    """Whether G is best found by hashing every row: the rule of :func:`shared_groups`
    (``2 * singles < height``) read on each number column's evenly spaced sample
    (its distinct values, its size): no sample holds mostly distinct values, so no
    column can leave most rows out."""
    return all(2 * distinct < size for distinct, size in samples)


def _hashed_groups(frame: pl.DataFrame, keys: Sequence[str], tuning: Tuning) -> tuple[Ints, Ints]:
    """:func:`shared_groups` of every row, from its hash."""
    hashes = _row_hashes(frame, keys).to_numpy()
    shared = held_more_than_once(sort(hashes, tuning.sorter))
    if len(shared) == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64)
    rows = rows_holding(hashes, shared, low_bits, tuning.table_bits)
    grouped = frame[rows].select(pl.len().over(list(keys)).cast(pl.Int64))
    sizes = grouped.to_series().to_numpy()
    more = sizes > 1  # rows that share only a hash are groups of one
    return rows[more], sizes[more]


def with_sizes(frame: pl.DataFrame, rows: Ints, sizes: Ints) -> pl.DataFrame:
    """``frame`` with each row's group size (1, but ``sizes`` at ``rows``): made
    only when a command lists rows (``kpr evaluate`` never does)."""
    column = np.ones(frame.height, dtype=np.int64)
    column[rows] = sizes
    return frame.with_columns(pl.Series(queries._N, column))


def _row_hashes(frame: pl.DataFrame, keys: Sequence[str]) -> pl.Series:
    """One 64-bit hash of each row's known values (equal values, equal hashes)."""
    return frame.select(keys).hash_rows()


def low_bits(hashes: np.ndarray, bits: int) -> Ints:
    """A hash's slot: its low bits."""
    return (hashes & np.uint64((1 << bits) - 1)).astype(np.intp)
