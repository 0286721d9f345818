"""How the engine chooses its counting path: the thresholds, in one frozen
:class:`Tuning` passed in (``DEFAULT_TUNING`` unless a caller gives another),
and the functions that turn them into a named path.

Every path gives the same counts (``tests/engine/test_conformance.py`` runs the
reference cases on each); the thresholds only choose the quickest for a size.
A test forces a path by passing ``Tuning.forcing(path)``, never by patching a
module's constants.
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cache
from typing import Any


class TablePath(Enum):
    """How polars input (and pandas, pyarrow) is counted."""

    #: both tables read into memory once, counted with numpy (``kpr.engine.inmemory``)
    MEMORY = "memory"
    #: lazy queries, G by a group-by, the link by joins (the queries DuckDB runs)
    GROUPED = "grouped"
    #: streaming queries, a known column at a time, G's groups of more than one from
    #: a column's values held once or row hashes, the link on packed profiles
    #: (``kpr.engine.streamed``)
    HASHED = "hashed"


class Sorter(Enum):
    """Who sorts the in-memory engine's arrays (``kpr.engine.inmemory.runs.sort``);
    every one gives ``np.sort``'s order."""

    #: numpy's sort on the calling thread: where it beat polars' (:func:`numpy_sorts_quicker`)
    NUMPY = "numpy"
    #: polars' sort on the calling thread
    POLARS = "polars"
    #: polars' sort on polars' own threads (cores to spare beside the engine's threads)
    POLARS_THREADED = "polars-threaded"


class KeyCount(Enum):
    """How packed integer keys (profiles) are counted (``kpr.engine.inmemory.link``)."""

    #: ``np.bincount`` over every possible key: few possible keys
    BINCOUNT = "bincount"
    #: a bitmap of every possible key: up to a few bytes per row
    BITMAP = "bitmap"
    #: sorts: many possible keys
    SORT = "sort"


#: Held by the thread measuring the sorts: the others wait for its answer.
_MEASURING = threading.Lock()


def numpy_sorts_quicker() -> bool:
    """Whether numpy's sort beats polars' (on one core) here (:func:`measure_sorts`),
    measured once per process, by the first thread that asks."""
    with _MEASURING:
        return _measured_once()


@cache
def _measured_once() -> bool:
    return measure_sorts()


def measure_sorts(size: int = 1 << 14, rounds: int = 3) -> bool:
    """Whether numpy's sort beat polars' (on one core) on ``size`` float64 and int64
    values, the quickest of ``rounds`` each: 4-5.5 ms here, and 9 ms more where it makes
    the process's first polars Series from numpy (polars then imports ``numpy.ma``, which
    the engine's first such Series would pay otherwise).
    Not read off the processor's features: numpy's SIMD sort beat polars' on an AVX2
    EPYC (4M floats in 0.54x its time, 8-byte keys 0.78x) and lost on an AVX-512 one
    (Zen 4, where the compress-store it does on every vector is microcoded: 4M floats
    in 2.3x, int64 3.8x polars' time); numpy's scalar sort lost by 2-3x
    (docs/benchmarks.md). Polars sorts float64 as their int64 bits (``runs.sort``)."""
    import numpy as np
    import polars as pl

    mixed = np.arange(size, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    mixed ^= mixed >> np.uint64(31)  # splitmix64's mix: values in no order
    mixed *= np.uint64(0xBF58476D1CE4E5B9)
    mixed ^= mixed >> np.uint64(29)
    ints = (mixed >> np.uint64(2)).view(np.int64)
    floats = (mixed >> np.uint64(11)).astype(np.float64) * 2.0**-53

    def numpy() -> None:
        np.sort(floats), np.sort(ints)

    def polars() -> None:
        for keys in (floats.view(np.int64), ints):
            pl.Series(keys).sort(multithreaded=False).to_numpy()

    best = {numpy: math.inf, polars: math.inf}
    for _ in range(rounds):  # in turn: a slower moment of the machine hits both
        for way in best:
            start = time.perf_counter()
            way()
            best[way] = min(best[way], time.perf_counter() - start)
    return best[numpy] < best[polars]


@dataclass(frozen=True)
class Tuning:
    """The thresholds that choose the counting path, and the sizes of its blocks
    and tables (none changes a count)."""

    #: bytes the in-memory path takes per known cell of the two tables (its peak
    #: resident memory over rows x known variables x 2, measured 25 B at 4M rows per
    #: side with 5 known variables; docs/benchmarks.md), with a margin
    memory_per_cell: int = 32
    #: the memory the in-memory path may take; None: half the memory available when
    #: the path is chosen (:func:`available_memory`)
    memory_bytes: int | None = None
    #: above this many original rows (and not in memory), G is built from row hashes
    hashed_rows: int = 25_000
    #: the command line reads an original Parquet file of at most this many cells
    #: (rows x columns read) while it imports its modules (``kpr.inputs.ahead``): about
    #: what the imports hide on two cores (4M rows x 5 columns in about 0.1 s); a larger
    #: table would gain no more, and an error found after the imports would wait for
    #: its read
    ahead_cells: int = 40_000_000
    #: bytes of glibc's heap the command line makes ready while it imports
    #: (``kpr.cli.heap``) per byte of its Parquet inputs, up to :attr:`warm_cap`: what the
    #: engine's arrays then reuse instead of fresh pages (4M rows a side, 5 known
    #: variables: about 280 MiB of numpy arrays from 37-90 MB of Parquet; docs/benchmarks.md)
    warm_per_file_byte: int = 8
    #: ... and at most this many bytes
    warm_cap: int = 320 << 20
    #: ... and none for input files of more bytes than this: their columns' arrays
    #: pass glibc's 32 MiB heap limit (about 4M 8-byte values) or the table is streamed,
    #: and the memory made ready would only add to the peak (100M rows a side: +283 MiB)
    warm_files_limit: int = 256 << 20
    #: a packed key is re-numbered densely before its radix would pass this
    key_limit: int = 2**62
    #: keys counted by ``np.bincount`` up to this many possible keys ...
    bincount_keys: int = 1 << 20
    #: ... or up to this many possible keys per row counted
    bincount_per_row: int = 2
    #: keys looked up in a bitmap up to this many possible keys ...
    bitmap_keys: int = 1 << 27
    #: ... or up to this many per row counted (4 bytes a row)
    bitmap_per_row: int = 32
    # The in-memory engine's sizes (``kpr.engine.inmemory``):
    #: bits of a hash that index its small tables (a million entries: a few MiB)
    table_bits: int = 20
    #: a text column with more distinct values is numbered by an enum of its texts
    #: (its hash windows would collide too often)
    few_texts: int = 2_000
    #: an integer column spanning up to this many values (or one per row) is counted
    #: by one ``np.bincount``, not sorted
    count_span: int = 1 << 16
    #: an integer column spanning less than this is numbered by a table, not searched
    table_span: int = 1 << 22
    #: rows of a text column compared with their representatives' texts at a time
    check_block: int = 1 << 16
    #: rows whose texts are numbered first (most texts are in the first rows)
    seed_rows: int = 1 << 16
    #: rows whose profiles are packed at a time (arrays that stay in the cache)
    pack_block: int = 1 << 16
    #: rows of both tables read at a time by the streamed path's link (``kpr.engine.packed``)
    batch_rows: int = 1 << 22
    # How a number column's values are counted (in memory and streamed):
    #: values of a number column sampled (evenly spaced) to tell how many it holds ...
    value_sample: int = 1 << 16
    #: ... a column whose sample holds at most this many is counted by a group-by of
    #: its values, not sorted
    few_values: int = 1 << 12
    #: profiles are packed into 4-byte keys (sorted quicker than 8-byte ones) below this radix
    keys32: int = 2**32
    #: threads of one evaluation beside the calling one, which works too: one per
    #: other core, up to 4 (on 2 cores a second one only contends with polars' own
    #: threads: docs/benchmarks.md)
    workers: int = field(default_factory=lambda: max(1, min(4, (os.cpu_count() or 2) - 1)))
    #: the engine's sorts are numpy's (on one core), unless polars may sort on cores
    #: to spare; None: where numpy's sort is the quicker here (:func:`numpy_sorts_quicker`,
    #: measured the first time a sorter is asked for)
    numpy_sorts: bool | None = None

    @property
    def sorter(self) -> Sorter:
        """Who sorts: polars on threads of its own only with cores to spare beyond the
        engine's threads (on two cores a threaded sort doubled its CPU time for the
        same wall time); else numpy's sort where it is the quicker, else polars on the
        calling thread (docs/benchmarks.md)."""
        if (os.cpu_count() or 1) > self.workers + 1:
            return Sorter.POLARS_THREADED
        numpy = numpy_sorts_quicker() if self.numpy_sorts is None else self.numpy_sorts
        return Sorter.NUMPY if numpy else Sorter.POLARS

    @classmethod
    def forcing(cls, *paths: TablePath | KeyCount) -> Tuning:
        """Thresholds that take ``paths`` on any table (for tests: every path on small
        data); the others stay at their defaults."""
        tuning = cls()
        for path in paths:
            tuning = replace(tuning, **_FORCING[path])
        return tuning

    def memory_budget(self) -> int:
        """:attr:`memory_bytes`, or half the memory available now."""
        return available_memory() // 2 if self.memory_bytes is None else self.memory_bytes

    def table_path(self, rows: int, known: int = 1) -> TablePath:
        """The path of polars input with ``rows`` original rows and ``known``
        variables: in memory when the two tables' cells fit in the memory budget,
        else streaming queries."""
        if 2 * rows * max(known, 1) * self.memory_per_cell <= self.memory_budget():
            return TablePath.MEMORY
        return TablePath.HASHED if rows > self.hashed_rows else TablePath.GROUPED

    def reads_ahead(self, rows: int, known: int, columns: int) -> bool:
        """Whether an original of ``rows`` rows is read while the command imports
        (``kpr.inputs.ahead``): only when the in-memory path would read it whole anyway
        (``known`` variables), and ``columns`` of it are few cells (:attr:`ahead_cells`)."""
        memory = self.table_path(rows, known) is TablePath.MEMORY
        return memory and rows * columns <= self.ahead_cells

    def warm_bytes(self, file_bytes: int) -> int:
        """How much of the heap the command line makes ready for Parquet inputs of
        ``file_bytes`` bytes (:attr:`warm_per_file_byte`, :attr:`warm_cap`, none above
        :attr:`warm_files_limit`), and at most a quarter of the in-memory path's
        :meth:`memory_budget`."""
        if not 0 < file_bytes <= self.warm_files_limit:
            return 0
        wanted = min(self.warm_cap, self.warm_per_file_byte * file_bytes)
        return min(wanted, self.memory_budget() // 4)

    def few_keys(self, radix: int, rows: int) -> bool:
        """Whether ``rows`` keys below ``radix`` are few enough to count by ``np.bincount``."""
        return radix <= max(self.bincount_keys, self.bincount_per_row * rows)

    def key_count(self, radix: int, rows: int) -> KeyCount:
        """How ``rows`` keys below ``radix`` are counted."""
        if self.few_keys(radix, rows):
            return KeyCount.BINCOUNT
        if radix <= max(self.bitmap_keys, self.bitmap_per_row * rows):
            return KeyCount.BITMAP
        return KeyCount.SORT


#: The thresholds that force each path. An empty original stays in memory (nothing
#: to count); few possible keys are counted by ``np.bincount`` by default, and more
#: than a few per row are never (its array would take that much memory).
_FORCING: dict[TablePath | KeyCount, dict[str, Any]] = {
    TablePath.MEMORY: {"memory_bytes": 2**63},
    TablePath.GROUPED: {"memory_bytes": 0, "hashed_rows": 2**63},
    TablePath.HASHED: {"memory_bytes": 0, "hashed_rows": 0},
    KeyCount.BINCOUNT: {},
    KeyCount.BITMAP: {"bincount_keys": 0, "bincount_per_row": 0},
    KeyCount.SORT: {
        "bincount_keys": 0,
        "bincount_per_row": 0,
        "bitmap_keys": 0,
        "bitmap_per_row": 0,
    },
}


def available_memory() -> int:
    """Bytes of memory the system can give without swapping: Linux's MemAvailable
    (free memory and the caches it can drop), else the free pages; 4 GiB when the
    system says neither."""
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 4 << 30


#: The thresholds every caller gets unless it passes others.
DEFAULT_TUNING = Tuning()
