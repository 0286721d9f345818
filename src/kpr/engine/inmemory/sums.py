"""The exact sums over U of one numeric column, from its distinct values and how
many members of U hold each: the same limbs every engine sums
(``kpr.metric.exact``; ``kpr.engine.statistics`` on the lazy engines), in int64 or
in float64 where every partial sum stays a whole number below 2**53, so the
moments are identical on every engine and in every row order."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from kpr.engine.inmemory.runs import Ints
from kpr.engine.jobs import shared_blocks
from kpr.engine.statistics import clamp64
from kpr.metric import binning
from kpr.metric.binning import Deviations, Moments
from kpr.metric.exact import Window, float_sums


def _weighted(
    limbs: list[np.ndarray],
    counts: Ints,
    signed: Ints | None,
    pairs: list[tuple[int, int]],
    top: int | None = None,
) -> tuple[list[int], list[int]]:
    """Sums over U of each limb and each product of two limbs, each distinct value
    weighted by its number of rows in U (int64, within the limb budget);
    ``signed``: the weights of the linear sums when the limbs are of magnitudes.

    Float limbs (whole numbers below ``top``) are summed by float dot products
    when no sum can reach 2**53: every term and every partial sum is then a whole
    number that float64 holds exactly, in any order of addition (quicker than
    int64, which numpy sums without SIMD); otherwise as int64."""
    signed = counts if signed is None else signed
    dot: Callable[[np.ndarray, np.ndarray], int] = _int_dot
    if top is not None:
        if int(counts.sum()) * top * top < _EXACT_FLOATS:
            counts, signed, dot = counts.astype(np.float64), signed.astype(np.float64), _float_dot
        else:
            limbs = [limb.astype(np.int64) for limb in limbs]
    linear = [dot(signed, limb) for limb in limbs]
    weighted = [counts * limb for limb in limbs]  # a product per limb, not per pair
    products = [dot(limbs[a], weighted[b]) for a, b in pairs]
    return linear, products


def _int_dot(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.dot(a, b))


def _float_dot(a: np.ndarray, b: np.ndarray) -> int:
    """The dot product of float64 whole numbers whose sums stay below 2**53 (exact),
    by slices of ``_DOT_SLICE`` values: OpenBLAS shares a longer one with threads of
    its own, which then spin on the processor the engine's threads need."""
    return sum(
        int(np.dot(a[i : i + _DOT_SLICE], b[i : i + _DOT_SLICE]))
        for i in range(0, len(a), _DOT_SLICE)
    )


#: Whole numbers up to here are exact in float64.
_EXACT_FLOATS = 2**53


#: OpenBLAS computes a dot product of up to 10,000 values on the calling thread.
_DOT_SLICE = 8192


def _integer_limbs(values: Ints, plan: Deviations) -> list[Ints]:
    """``value - shift`` split into ``plan.limbs`` limbs of ``plan.bits`` bits, lowest
    first (the top one signed)."""
    rest = values - np.int64(plan.shift)
    mask = np.int64((1 << plan.bits) - 1)
    limbs = [(rest >> (plan.bits * j)) & mask for j in range(plan.limbs - 1)]
    return [*limbs, rest >> (plan.bits * (plan.limbs - 1))]


def _window_limbs(values: np.ndarray, window: Window, bits: int) -> list[np.ndarray]:
    """The limbs of a window's magnitudes, lowest first, as ``kpr.engine.statistics``
    computes them: whole numbers below ``2**bits``, held as float64 (exact). The same
    rule as ``kpr.engine.statistics._limb_columns``, on purpose in numpy: that one is
    an expression each lazy engine runs in its query, this one runs on arrays."""
    size = np.abs(values)
    inside = np.isfinite(values)
    if window.low is not None:
        inside &= size >= 2.0**window.low
    if window.high is not None:
        inside &= size < 2.0**window.high
    r = np.where(inside, size, 0.0)
    for factor in window.scale(bits):
        r *= factor
    limbs = []
    for _ in range(window.limbs):
        limb = np.floor(r)
        limbs.append(limb)
        r -= limb  # the fraction, exact
        r *= float(2**bits)
    return limbs[::-1]


@dataclass(frozen=True)
class SumBlocks:
    """How the exact sums are cut: ``size`` distinct values a block (bounded memory,
    and arrays that stay in the processor cache: docs/benchmarks.md), shared with a
    pool's thread for a column of at least ``shared`` blocks."""

    size: int = 1 << 15
    shared: int = 8


SUM_BLOCKS = SumBlocks()

#: One block's limbs, counts, signed counts and bound of its float limbs (the
#: arguments of :func:`_weighted`).
_Block = tuple[list[np.ndarray], Ints, Ints | None, int | None]


def _blockwise(
    block: Callable[[slice], _Block],
    size: int,
    pairs: list[tuple[int, int]],
    pool: Executor | None = None,
    blocks: SumBlocks = SUM_BLOCKS,
) -> tuple[list[int], list[int]]:
    """:func:`_weighted` over blocks of ``size`` values (``block(part)``: their
    limbs, counts, signed counts and float limbs' bound), summed exactly: a few
    arrays of one block in memory, whatever the column. With ``pool``, a thread
    of it takes blocks too, once it is free: both take the next block from one
    iterator (``jobs.shared_blocks``), and the calling thread never waits for a
    thread that has not started (exact integers: the same sums in any order)."""

    def summed(starts: Iterator[int]) -> tuple[list[int], list[int]]:
        linear: list[int] = []
        products: list[int] = []
        for start in starts:
            limbs, counts, signed, top = block(slice(start, start + blocks.size))
            lin, prod = _weighted(limbs, counts, signed, pairs, top)
            linear, products = _added(linear, lin), _added(products, prod)
        return linear, products

    starts = shared_blocks(size, blocks.size)
    if pool is None or size < blocks.shared * blocks.size:
        return summed(starts)
    helper = pool.submit(summed, starts)
    linear, products = summed(starts)
    if helper.cancel():  # never started: every block is summed here
        return linear, products
    other_linear, other_products = helper.result()
    return _added(linear, other_linear), _added(products, other_products)


def _added(total: list[int], more: list[int]) -> list[int]:
    """Sums of blocks added term by term (an empty list: no block summed)."""
    if not total or not more:
        return total or more
    return [a + b for a, b in zip(total, more, strict=True)]


def weighted_moments(
    values: np.ndarray,
    ints: Ints | None,
    counts: Ints,
    pool: Executor | None = None,
    blocks: SumBlocks = SUM_BLOCKS,
) -> Moments:
    """The aggregates over U of one numeric column from its distinct values
    (float64, NaN for missing; ``ints``: the same values as exact int64 for the
    integer columns every engine sums exactly) and how many members of U hold
    each: the same exact sums every engine collects, over the distinct values
    only (``kpr.metric.exact``; the limbs depend on the values' range, not on n).
    ``pool``: a thread that shares the sums (:func:`_blockwise`); never the pool
    of the calling thread, which would wait for itself; ``blocks``: how the sums are
    cut (any cut, the same sums)."""
    counts = counts.astype(np.int64, copy=False)
    keep = np.isfinite(values)  # the values summed: finite and held in U
    keep &= counts > 0
    count = int(counts.sum(where=keep))
    if count == 0:
        return Moments(0, None, None, 0, 0, 0)
    lo = float(values.min(where=keep, initial=math.inf))
    hi = float(values.max(where=keep, initial=-math.inf))
    every = bool(keep.all())

    def kept(array: np.ndarray, part: slice, other: float) -> np.ndarray:
        """A block of ``array``, ``other`` for the values not summed (no copy of
        the whole column: a block at a time)."""
        return array[part] if every else np.where(keep[part], array[part], other)

    if ints is not None:
        plan = binning.deviations(count, (clamp64(lo), clamp64(hi)))
        linear, products = _blockwise(
            lambda part: (
                _integer_limbs(kept(ints, part, plan.shift), plan), kept(counts, part, 0), None,
                None,
            ),
            len(values), plan.pairs(), pool, blocks,
        )  # fmt: skip
        sum_d, sum_d2 = plan.combine(linear, products)
        return Moments(count, lo, hi, plan.shift, sum_d, sum_d2)
    positive = float(values.min(where=keep & (values > 0), initial=math.inf))
    negative = float(values.max(where=keep & (values < 0), initial=-math.inf))
    tiny = min(positive, -negative)
    sums = float_sums(count, None if math.isinf(tiny) else tiny, max(abs(lo), abs(hi)))
    parts = []
    for window in sums.windows:

        def block(part: slice, window: Window = window) -> _Block:
            some, held = kept(values, part, 0.0), kept(counts, part, 0)
            limbs = _window_limbs(some, window, sums.bits)
            return limbs, held, np.where(some < 0, -held, held), 1 << sums.bits

        parts.append(_blockwise(block, len(values), sums.pairs(window), pool, blocks))
    sum_d, sum_d2 = sums.combine([p[0] for p in parts], [p[1] for p in parts])
    return Moments(count, lo, hi, 0, sum_d, sum_d2, sums.grid)
