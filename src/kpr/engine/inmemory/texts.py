"""Dense integer ids of a text column's values, exact, without a sort of the texts:
windows of their hashes checked against one representative text per id, or an
enum of the texts when they are many."""

from __future__ import annotations

from functools import cached_property

import numpy as np
import polars as pl

from kpr.engine.inmemory.arrays import chunkwise
from kpr.engine.inmemory.runs import Ints
from kpr.engine.tuning import DEFAULT_TUNING, Tuning


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
        column = as_text(column)
        self.tuning = tuning
        self.shift = -1
        self.lookup = np.zeros(0, dtype=np.int16)  # window value -> id, -1 for none
        self.enum = pl.Enum([])  # with ``shift`` -1: the texts, numbered from 1
        self.representatives = column.clear()  # the text of each id, from 1
        self.ids, self.radix = self._fit(column)

    def _fit(self, column: pl.Series) -> tuple[Ints, int]:
        hashes = text_hashes(column)
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

    @cached_property
    def rows(self) -> Ints:
        """How many rows hold each id (0: missing), counted once (the in-memory
        engine asks in the thread that made the ids, which is free earlier than the
        one that scans). Small ids are counted a block at a time: ``bincount`` casts
        its input to 8-byte integers, which would be a column-long copy of the
        2-byte ids."""
        if self.ids.dtype.itemsize == 8:
            return np.bincount(self.ids, minlength=self.radix)
        rows = np.zeros(self.radix, dtype=np.int64)
        block = self.tuning.check_block
        for start in range(0, len(self.ids), block):
            rows += np.bincount(self.ids[start : start + block], minlength=self.radix)
        return rows

    def counted(self) -> TextIds:
        """These ids with their :attr:`rows` counted now, in the calling thread."""
        _ = self.rows
        return self

    def texts(self) -> pl.Series:
        """The text of each id, from 0 (missing: None), as :meth:`rows` counts them."""
        held = self.representatives if self.shift >= 0 else pl.Series(self.enum.categories)
        return pl.concat([pl.Series([None], dtype=pl.String), held.cast(pl.String)])

    @property
    def hashed(self) -> bool:
        """Whether the ids come from windows of the texts' hashes (else an enum)."""
        return self.shift >= 0

    def encode(self, other: pl.Series, hashes: np.ndarray | None = None) -> Ints:
        """``other``'s values as ids of this column's (0 missing, -1 not held);
        ``hashes``: their :func:`text_hash`, when a query made them already."""
        other = as_text(other)
        if self.shift < 0:
            ids = _enum_ids(other, self.enum)
        else:
            hashes = text_hashes(other) if hashes is None else hashes
            ids = self._looked_up(hashes)
            ids[_strangers(other, self.representatives, ids, self.tuning.check_block)] = -1
        if other.null_count():
            ids[other.is_null().to_numpy()] = 0
        return ids

    def held(self, hashes: np.ndarray, absent: np.ndarray) -> Ints:
        """The ids of values known to be among this column's texts (``hashes``: their
        :func:`text_hash`; ``absent``: which are missing), with no text compared:
        every text of the column has a window of its own (:attr:`hashed` only)."""
        assert self.hashed, "an enum numbers these texts"
        ids = self._looked_up(hashes)
        if absent.any():
            ids[absent] = 0
        return ids

    def _looked_up(self, hashes: np.ndarray) -> Ints:
        """The id of each hash's window (-1: a window no text of this column has)."""
        return self.lookup[_window(hashes, self.shift, self.tuning.table_bits)]


def text_hash(name: str) -> pl.Expr:
    """The hash of a text column's values that :class:`TextIds` takes its windows
    from, as a query computes it (``Series.hash`` of the values as text)."""
    return pl.col(name).cast(pl.String).hash()


def text_hashes(column: pl.Series) -> np.ndarray:
    """:func:`text_hash` of a text column's values as numpy, a chunk at a time
    (``arrays.chunkwise``)."""
    return chunkwise(column, pl.Series.hash)


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


def as_text(series: pl.Series) -> pl.Series:
    """Categorical values compared as text (both tables agree on text); other
    columns as they are."""
    if isinstance(series.dtype, pl.Categorical | pl.Enum):
        return series.cast(pl.String)
    return series
