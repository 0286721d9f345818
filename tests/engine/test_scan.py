"""One scan of G per variable (polars, G in memory) gives what the two aggregation
passes give on every backend: n, |U|, every statistic bit for bit, the missing and
distinct counts, and the identifying-variable counts of ``is_unique``."""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

import narwhals as nw
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from kpr.engine import queries
from kpr.engine.polars import polars_counting
from kpr.engine.tuning import Tuning
from kpr.metric.attack import Kind, make_attack

SPECIAL = st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 5e-324, 1e308, -1e308])
FLOATS = st.one_of(st.none(), SPECIAL, st.floats(-1e6, 1e6), st.sampled_from([0.1, 0.2, 170.3]))
INTS = st.one_of(st.none(), st.integers(-(2**62), 2**62), st.integers(-3, 3))


@st.composite
def tables(draw: Any) -> pl.DataFrame:
    rows = draw(st.integers(1, 30))
    column = lambda values: st.lists(values, min_size=rows, max_size=rows)  # noqa: E731
    return pl.DataFrame(
        {
            "f": pl.Series(draw(column(FLOATS)), dtype=pl.Float64),
            "i": pl.Series(draw(column(INTS)), dtype=pl.Int64),
            "u": pl.Series(draw(column(st.one_of(st.none(), st.integers(0, 2**64 - 1)))),
                           dtype=pl.UInt64),
            "c": pl.Series(draw(column(st.one_of(st.none(), st.sampled_from("ab")))),
                           dtype=pl.String),
        }
    )  # fmt: skip


KINDS = {"f": Kind.NUMERIC, "i": Kind.NUMERIC, "u": Kind.NUMERIC, "c": Kind.CATEGORICAL}


def _run(frame: pl.DataFrame, tuning: Tuning | None) -> queries.EngineRun:
    """One run on the path ``tuning`` chooses (None: the lazy queries as they are)."""
    lazy = nw.from_native(frame.lazy())
    attack = make_attack(list(KINDS), 0.05)
    counting = queries.LazyCounting() if tuning is None else polars_counting(lazy, tuning)
    return queries.run(lazy, lazy, attack, KINDS, row=None, counting=counting)


def _same(a: float | None, b: float | None) -> bool:
    """Equal bit for bit (the sign of zero included); NaN equals NaN."""
    if a is None or b is None:
        return a is b
    return (math.isnan(a) and math.isnan(b)) or (
        a == b and math.copysign(1, a) == math.copysign(1, b)
    )


#: (bits of the text ids' hash windows, rows packed at a time, largest packed radix):
#: text windows that collide (1 or 2 bits: polars' categorical ids instead), blocks
#: of a row or three, keys renumbered as they are packed
MEMORY = st.sampled_from([(20, 1 << 16, 2**62), (1, 1, 2**62), (2, 3, 1), (20, 2, 1)])


@settings(max_examples=120, deadline=None)
@given(tables(), MEMORY)
def test_the_scan_gives_what_the_two_passes_give(
    frame: pl.DataFrame, memory_settings: tuple[int, int, int]
) -> None:
    """The tables counted in memory (a sort of each number column, text ids, packed
    profiles) and the queries of the tables not kept in memory (G from row
    hashes or grouped) give what the two passes give."""
    bits, block, key_limit = memory_settings
    tuning = Tuning(
        # G not kept (1 in 4): the two passes, values and keys counted by sorts
        memory_bytes=0 if frame.height % 4 == 1 else None,
        hashed_rows=0 if frame.height % 2 else 10**9,  # both ways to build G
        # streamed: number columns sorted (U from a column's values held once) or grouped
        few_values=0 if frame.height % 3 else Tuning.few_values,
        table_bits=bits,
        pack_block=block,
        key_limit=key_limit,
    )
    scanned = _run(frame, tuning)
    passes = _run(frame, None)
    assert scanned.unique_rows is not None and passes.unique_rows is None
    assert scanned.counts == passes.counts
    assert scanned.profile == passes.profile
    for name, b in passes.bins.items():
        s = scanned.bins[name]
        for what in ("mean", "std", "lo", "width"):
            assert _same(getattr(s, what), getattr(b, what)), (name, what)
        assert s.minimum == b.minimum and s.maximum == b.maximum, name
        assert (s.code_min, s.code_max) == (b.code_min, b.code_max), name
    unique = frame.select(pl.all().is_unique().cast(pl.Int64).sum()).row(0, named=True)
    assert scanned.unique_rows == unique


def test_large_frames_keep_the_two_passes() -> None:
    """Above the in-memory threshold G is recomputed by each query: no scan; the
    identifying-variable counts come from one column at a time."""
    frame = pl.DataFrame({"f": [1.0, 2.0, 3.5], "i": [1, 2, 3], "u": [1, 2, 3], "c": list("abc")})
    frame = frame.with_columns(pl.col("u").cast(pl.UInt64))
    run = _run(frame, Tuning(memory_bytes=0, hashed_rows=0))
    assert run.unique_rows == {"f": 3, "i": 3, "u": 3, "c": 3}  # counted by sorts
    assert run.bins["f"].mean == _run(frame, None).bins["f"].mean == 6.5 / 3


class _Now(Executor):
    """Runs what it is given at once: the helper sums every block."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(fn(*args, **kwargs))
        return future


class _Never(Executor):
    """Never starts what it is given: the calling thread sums every block."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return Future()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(FLOATS.filter(lambda x: x is not None), st.integers(-5, 5).map(float)),
                min_size=1, max_size=40),
       st.integers(1, 4))  # fmt: skip
def test_moments_summed_by_blocks_are_the_same(values: list[float], block: int) -> None:
    """The limbs are summed a block of values at a time: any block size, same sums;
    the blocks shared with a thread of a pool (a real one, one that takes them all,
    one that never starts), same sums."""
    import numpy as np

    from kpr.engine.inmemory.sums import SUM_BLOCKS, SumBlocks, weighted_moments

    x = np.array(values, dtype=np.float64)
    counts = np.arange(1, len(x) + 1, dtype=np.int64)
    ints = np.where(np.isfinite(x), x, 0).astype(np.int64)

    def both(pool: Executor | None = None, blocks: SumBlocks = SUM_BLOCKS) -> list[Any]:
        return [
            weighted_moments(x, None, counts, pool, blocks),
            weighted_moments(x, ints, counts, pool, blocks),
        ]

    whole, small = both(), SumBlocks(size=block, shared=2)
    assert both(blocks=small) == whole
    with ThreadPoolExecutor(1) as pool:
        assert both(pool, small) == whole
    assert both(_Now(), small) == whole
    assert both(_Never(), small) == whole


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(FLOATS.filter(lambda x: x is not None),
                          st.one_of(st.integers(0, 3), st.integers(2**30, 2**40))),
                min_size=1, max_size=40))  # fmt: skip
def test_moments_are_the_exact_sums(rows: list[tuple[float, int]]) -> None:
    """The sums of a float column's values and squares, each weighted by its rows
    in U, are the exact ones (fractions), whether a block's limbs are summed as
    floats (small counts: every sum below 2**53) or as integers (counts near
    2**40 pass it); infinities and NaN are left out."""
    from fractions import Fraction

    import numpy as np

    from kpr.engine.inmemory.sums import weighted_moments

    x = np.array([v for v, _ in rows], dtype=np.float64)
    counts = np.array([c for _, c in rows], dtype=np.int64)
    moments = weighted_moments(x, None, counts)
    held = [(Fraction(v), c) for v, c in rows if math.isfinite(v) and c]
    assert moments.count == sum(c for _, c in held)
    grid = Fraction(2) ** moments.scale_exp
    assert moments.sum_d * grid == sum(v * c for v, c in held)
    assert moments.sum_d2 * grid * grid == sum(v * v * c for v, c in held)
