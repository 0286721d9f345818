"""The metric on polars tables held in memory, counted with numpy.

On this kind of machine numpy sorts millions of 8-byte values (SIMD) several
times faster than it argsorts them, and several times faster than polars hashes
them into a table: every wide step here is a sort, a ``bincount`` or a lookup
in a small array, and G (the original grouped by its known values) is never
built:

- per known variable, one pass before U is known (``columns.read_column``): a
  number column's present values sorted once (or, integers of a small range
  and floats of few values on a grid of tenths, hundredths..., counted by one
  ``bincount``), each run of equal values one distinct value
  with its rows in the original; a text column one small integer id per value
  (``texts.TextIds``), checked against the texts a block of rows at a time.
- the rows of G's groups of more than one, with their sizes
  (``groups.shared_groups``): a row holding a number no other row holds is a
  group of one, and the others are found from one hash of their known values:
  a hash held by one row is a group of one (whatever the collisions); only the
  few rows sharing a hash are grouped exactly. U is every other row.
- per known variable, its scan (``columns.column_scan``): the rows outside U taken
  off their values' rows give the moments (exact sums over the distinct values,
  ``sums.weighted_moments``), the missing and distinct counts and
  the rows holding a value no other row holds.
- the link (:meth:`MemoryTables.link`, ``digits``, ``keys``): each profile of U
  and of the avatars becomes one exact integer (a mixed-radix number of per-column digits, packed
  a block of rows at a time), counted by ``link.linked_count``
  (a bincount, a bitmap of the possible profiles, or sorts). The avatars' text
  ids are made while the original is still being read; their number columns
  are read a block at a time as they are packed (no column-long copies).

A column of another type (a float compared as a category, a decimal, ...) is
scanned by a polars group-by, and its link falls back to the lazy queries.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np
import polars as pl

from kpr.engine import queries
from kpr.engine.inmemory.columns import (
    ColumnScan,
    SortedColumn,
    column_scan,
    number_dtype,
    read_column,
    value_sample,
)
from kpr.engine.inmemory.digits import LinkDigits, column_digits, read_avatars
from kpr.engine.inmemory.groups import hashed_from_the_start, shared_groups, with_sizes
from kpr.engine.inmemory.keys import PackedKeys, renumbered_keys
from kpr.engine.inmemory.link import blank_bitmap, linked_count, uses_bitmap
from kpr.engine.inmemory.runs import Ints
from kpr.engine.inmemory.texts import TextIds
from kpr.engine.jobs import Job, results
from kpr.engine.tuning import Tuning
from kpr.metric.attack import Kind
from kpr.metric.binning import NumericBins


def _avatars_query(avatars: pl.LazyFrame, kinds: Mapping[str, Kind]) -> pl.LazyFrame:
    """The avatars' known columns, each binned number column read as float64 with
    NaN for missing (as ``digits.float_values`` makes it, in the read's own threads): the
    link turns a block of it into digits with no copy."""
    schema = avatars.collect_schema()
    return avatars.select(
        pl.col(v).cast(pl.Float64).fill_null(np.nan)
        if kind.binned and number_dtype(schema[v])
        else pl.col(v)
        for v, kind in kinds.items()
    )


class MemoryTables:
    """Both tables in memory and the steps of one evaluation on them, run on a
    small thread pool: the avatars are read and the original's text columns
    numbered (:func:`read_column`) while its number columns are sorted and G's
    sizes found (from the rows a number column singles out; when no column's
    sample is mostly distinct values, from row hashes, by the pool first); the
    columns are then scanned, and their link digits made, side by side."""

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
        numbers = [v for v in known if number_dtype(self.frame[v].dtype)]
        texts = [v for v in known if v not in numbers]
        samples = {v: value_sample(self.frame[v], tuning) for v in numbers}
        distinct = {v: sample.n_unique() for v, sample in samples.items()}
        hashed = None  # no column can single out most rows: G hashed, first in the pool
        if hashed_from_the_start([(distinct[v], len(samples[v])) for v in numbers]):
            hashed = Job(partial(shared_groups, self.frame, known, tuning=tuning), self.pool)
        self.read: dict[str, Job[SortedColumn | TextIds | None]] = {
            v: Job(partial(read_column, self.frame[v], tuning), self.pool) for v in texts
        }
        sorting = [  # the pool takes the first once it has read the avatars and the texts
            Job(partial(SortedColumn.of, self.frame[v], tuning, distinct[v]), self.pool)
            for v in numbers
        ]
        self.read_avatars = {  # in the pool once the avatars (and texts) are read
            v: Job(partial(self._read_avatars, v), self.pool) for v in texts
        }
        text_ids = partial(self._text_ids, texts)
        sorted_columns = results(sorting)  # sorted here from the last meanwhile
        self.read.update({v: Job.done(c) for v, c in zip(numbers, sorted_columns, strict=True)})
        if hashed is not None:
            text_ids()  # made here unless the pool's thread, hashing G, started them
            self.outside, sizes = hashed.result()
        else:
            self.outside, sizes = shared_groups(self.frame, known, sorted_columns, text_ids, tuning)
        self.groups = pl.defer(  # G's sizes as a column, only if a command asks for U's rows
            partial(with_sizes, self.frame, self.outside, sizes),
            schema={**self.frame.schema, queries._N: pl.Int64},
        )
        self.scans: dict[str, ColumnScan] = {}

    def _text_ids(self, texts: Sequence[str]) -> dict[str, Ints]:
        """The text columns' ids, those the pool has not started numbered here."""
        read = results([self.read[v] for v in texts])
        return {v: r.ids for v, r in zip(texts, read, strict=True) if isinstance(r, TextIds)}

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
        # the columns' digit jobs the pool has not started are made here, from the last;
        # each makes its avatars' text ids (``made`` asks for its ``read_avatars`` job)
        columns = results(jobs)
        if any(c is None for c in columns):
            return None
        digits = [c for c in columns if c is not None]
        radix = math.prod(c.radix for c in digits)
        m, members = avatars.height, self.frame.height - len(self.outside)
        tuning = self.tuning
        if radix >= tuning.key_limit:  # renumbered as it is packed, a column at a time
            o_key, a_key, radix, valid = renumbered_keys(digits, tuning.key_limit)
            a_key = a_key if valid.all() else a_key[valid]
            return m, linked_count(
                lambda: o_key, len(o_key), a_key, radix, self.pool, self.outside, tuning=tuning
            )
        # the pool's thread first makes the bitmap's memory, then packs with this one;
        # the avatars' keys are sorted (4 bytes when they fit), U's are looked up
        blank = None
        if uses_bitmap(radix, members + m, tuning):
            blank = Job(partial(blank_bitmap, radix), self.pool)
        dtype = np.uint32 if radix <= tuning.keys32 else np.int64
        packing = PackedKeys(digits, dtype, self.pool, tuning.pack_block)
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
