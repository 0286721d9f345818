"""The polars backend (and pandas and pyarrow inputs, which are read into polars).

The path is chosen by ``Tuning.table_path`` (``kpr.engine.tuning``):

- When both tables' known cells fit in the memory budget (``Tuning.memory_bytes``:
  half the memory available by default), both tables are read once into memory and
  counted with numpy (``kpr.engine.inmemory``): each row's group size from one hash
  of its known values, one sort (numbers) or one id per value (texts) per known
  variable for the statistics, the column profile and the identifying-variable
  counts, and the link on one packed integer per profile.
- Above it (a 100M-row Parquet file is not loaded), the tables are read by polars'
  streaming queries (``kpr.engine.streamed.StreamedCounting``): the positions of G's
  groups of more than one from the rows' hashes, sorted once (8 bytes a row), one
  known column at a time for its counts and statistics over U, and the link on
  packed profiles counted with numpy. (Up to ``hashed_rows`` rows, which only tests
  reach there, plain group-bys and joins: the lazy queries DuckDB runs.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import narwhals as nw
import polars as pl

from kpr.engine import queries
from kpr.engine.inmemory import MemoryTables
from kpr.engine.packed import exact_link
from kpr.engine.queries import Frame, Hooks, Scan
from kpr.engine.streamed import StreamedCounting, collect_row, column_singles
from kpr.engine.tuning import DEFAULT_TUNING, TablePath, Tuning
from kpr.metric.attack import Kind
from kpr.metric.binning import NumericBins


def _polars(frame: Frame) -> pl.LazyFrame:
    native = frame.to_native()
    assert isinstance(native, pl.LazyFrame)
    return native


class PolarsHooks(Hooks):
    """Lazy queries on polars' streaming engine: G by a group-by, the link by joins
    (``TablePath.GROUPED``)."""

    def unique_values(self, original: Frame, known: Sequence[str]) -> dict[str, int] | None:
        lf = _polars(original)
        return {v: column_singles(lf, v) for v in known}

    def collect(self, frame: Frame) -> dict[str, Any]:
        return collect_row(frame)

    def link(
        self, u: Frame, avatars: Frame, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]
    ) -> tuple[int, int]:
        coded = [queries.code_frame(f, kinds, bins, None) for f in (u, avatars)]
        keys = [queries.code_name(v) for v in kinds]
        coded_u, coded_a = (_polars(f).select(keys) for f in coded)
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
    if path is TablePath.HASHED:
        return StreamedCounting(tuning)
    return queries.LazyCounting(PolarsHooks())
