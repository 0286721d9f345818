"""The known-variable sweep with shared work, on in-memory (polars) inputs.

A sweep evaluates many subsets of the same candidate columns. Evaluated one by
one, every subset re-reads, re-groups and re-keys the tables. Here each
candidate is encoded once:

- every column of each table becomes dense integer codes of its raw values
  (null is code 0; equal values, -0.0 and 0.0 included, share a code, as in a
  group-by). Categorical codes are shared by both tables, so they are the link
  codes too; numeric codes index a dictionary of the column's distinct values.
- per subset, U is found on one packed integer key built from those codes
  (prefix keys are shared by the subsets that extend them, and counted with
  ``np.bincount`` when the key range is small); the statistics over U come from
  how many members of U hold each distinct value (one ``np.bincount``), summed
  exactly as every engine sums them (``kpr.metric.exact``, integer limbs) and
  turned into bins by ``kpr.metric.binning``; a numeric column's
  classes are computed once per distinct value, then gathered; the link is a
  count over one packed integer key per row.

The packing is injective (mixed radix, re-numbered densely before it could
overflow), so every count is exact and each subset gives what ``kpr.evaluate``
gives. Independent subsets run on a small thread pool: numpy and polars release
the GIL for the large operations.
"""

from __future__ import annotations

import math
import mmap
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

import numpy as np
import polars as pl

from kpr.engine.jobs import Job, shared_blocks
from kpr.engine.statistics import clamp64
from kpr.engine.tuning import DEFAULT_TUNING, KeyCount, Tuning
from kpr.metric import binning, classes
from kpr.metric.attack import Kind
from kpr.metric.binning import Deviations, Moments, NumericBins
from kpr.metric.classes import DIGIT_OFFSET, push_digit, value_codes
from kpr.metric.counts import Counts
from kpr.metric.exact import Window, float_sums

Ints = np.ndarray  # int64 codes or keys
#: packed keys of the raw codes of a prefix of known variables: key, radix, renumbered
KeyCache = dict[tuple[str, ...], tuple[Ints, int, bool]]


@dataclass(frozen=True)
class SubsetCounts:
    """What one attack found: the counts of the metric and the numeric bins."""

    known: tuple[str, ...]
    counts: Counts
    bins: dict[str, NumericBins]


@dataclass(frozen=True)
class AttackDigits:
    """One attack's profiles as digits shared by both tables: ``u_digits[i]`` holds
    each member of U's digit of ``known[i]``, ``lookups[i][code]`` the digit of an
    avatar whose value code of ``known[i]`` is ``code``; digits of ``known[i]`` lie
    in ``[0, radices[i])``. Two rows share a binned profile iff all digits agree."""

    known: tuple[str, ...]
    u_digits: list[Ints]
    lookups: list[Ints]
    radices: list[int]
    bins: dict[str, NumericBins]


@dataclass(frozen=True)
class _Column:
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


def _comparable(series: pl.Series) -> pl.Series:
    """Categorical values compared as text (both tables agree on text)."""
    if isinstance(series.dtype, pl.Categorical | pl.Enum):
        return series.cast(pl.String)
    return series


def _encode_column(o: pl.Series, a: pl.Series, kind: Kind, tuning: Tuning) -> _Column:
    if kind.binned:  # numeric, or a date as float days
        o_codes, o_radix, o_values, o_ints = _values(o, tuning)
        a_codes, _, a_values, _ = _values(a, tuning)
        return _Column(kind, o_codes, a_codes, o_radix, o_values, a_values, o_ints)
    o, a = _comparable(o), _comparable(a)
    codes, _, radix = _dense(pl.concat([o, a if a.dtype == o.dtype else a.cast(o.dtype)]), tuning)
    return _Column(kind, codes[: len(o)], codes[len(o) :], radix)


def value_classes(values: np.ndarray, bins: NumericBins) -> np.ndarray:
    """Each value's code (float codes): ``kpr.metric.classes.value_codes``."""
    return value_codes(values, bins)


def digit_shift(bins: NumericBins, tuning: Tuning = DEFAULT_TUNING) -> tuple[float, int] | None:
    """How a numeric column's classes become small digits
    (``kpr.metric.classes.digit_shift``); None when they span more classes than
    ``np.bincount`` counts (see :func:`class_digits`)."""
    return classes.digit_shift(bins, tuning.bincount_keys)


def shifted_digits(values: np.ndarray, bins: NumericBins, shift: float) -> Ints:
    """The digits of some float64 values of a numeric column (``shift``: from
    :func:`digit_shift`)."""
    return value_codes(values, bins, shift, DIGIT_OFFSET).astype(np.int64)


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


def _renumber(key: Ints) -> tuple[Ints, int]:
    uniq, inverse = np.unique(key, return_inverse=True)
    return inverse.astype(np.int64), len(uniq)


def extend_keys(
    keys: list[Ints] | None, radix: int, digits: list[Ints], digit_radix: int, key_limit: int
) -> tuple[list[Ints], int, bool]:
    """``key * digit_radix + digit`` for several arrays packed alike (new arrays;
    no keys yet: the digits), renumbered densely (jointly) first when the
    product could pass ``key_limit`` (then True)."""
    if keys is None:
        return [np.asarray(d, dtype=np.int64) for d in digits], digit_radix, False
    renumbered = radix * digit_radix >= key_limit
    if renumbered:
        joint, radix = _renumber(np.concatenate(keys))
        bounds = np.cumsum([len(k) for k in keys])[:-1]
        keys = np.split(joint, bounds)
    packed = [push_digit(key, digit, digit_radix) for key, digit in zip(keys, digits, strict=True)]
    return packed, radix * digit_radix, renumbered


def run_changes(ordered: np.ndarray) -> np.ndarray:
    """Which entries of a sorted array start a run of equal values."""
    change = np.empty(len(ordered), dtype=bool)
    change[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=change[1:])
    return change


def run_starts(ordered: np.ndarray) -> Ints:
    """Where each run of equal values of a sorted array starts."""
    return np.flatnonzero(run_changes(ordered))


def run_lengths(starts: Ints, size: int) -> Ints:
    """The length of each run from its start (``size``: the array's length), with
    no copy of the starts."""
    lengths = np.empty(len(starts), dtype=np.int64)
    np.subtract(starts[1:], starts[:-1], out=lengths[:-1])
    lengths[-1:] = size - starts[-1:]
    return lengths


def singles(ordered: Ints) -> np.ndarray:
    """Which entries of a sorted array hold a value that occurs once."""
    single = np.ones(len(ordered), dtype=bool)
    same = ordered[1:] == ordered[:-1]
    single[1:] &= ~same
    single[:-1] &= ~same
    return single


def sorted_once(keys: Ints) -> Ints:
    """The keys that occur exactly once, sorted (one sort, then :func:`singles`)."""
    ordered = np.sort(keys)
    return ordered[singles(ordered)]


def _once(key: Ints) -> np.ndarray:
    """Which entries of ``key`` occur exactly once (in the key's own order)."""
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return counts[inverse] == 1


def blank_bitmap(size: int) -> np.ndarray:
    """A bitmap of ``size`` bits, all 0, its memory already touched: made ahead by
    another thread, which then takes the kernel's page faults (a few
    microseconds per 4 KiB page on some virtual machines)."""
    bitmap = np.zeros((size + 7) // 8, dtype=np.uint8)
    bitmap[:: mmap.PAGESIZE] = 0
    return bitmap


def uses_bitmap(radix: int, rows: int, tuning: Tuning = DEFAULT_TUNING) -> bool:
    """Whether :func:`linked_count` looks ``rows`` keys (U's and the avatars') below
    ``radix`` up in a bitmap."""
    return tuning.key_count(radix, rows) is KeyCount.BITMAP


def _bitmap(
    ordered: Ints, size: int, blank: np.ndarray | None = None
) -> Callable[[Ints], np.ndarray]:
    """A bitmap of ``size`` bits with the bits of ``ordered`` (sorted, distinct)
    set (in ``blank``, a :func:`blank_bitmap` of that size, if given); returned
    as the lookup of some keys' bits (1 or 0 each). The bits of one byte are put
    together by one ``bitwise_or.reduceat``."""
    keys = ordered.astype(np.int64, copy=False)
    byte = keys >> 3
    bitmap = np.zeros((size + 7) // 8, dtype=np.uint8) if blank is None else blank
    if len(keys):
        starts = run_starts(byte)
        bits = np.left_shift(np.uint8(1), (keys & 7).astype(np.uint8))
        bitmap[byte[starts]] = np.bitwise_or.reduceat(bits, starts)

    def lookup(some: Ints) -> np.ndarray:
        found = bitmap[some >> 3]
        found >>= (some & 7).astype(np.uint8)
        found &= 1
        return found

    return lookup


def once_lookup(
    a_key: Ints, radix: int, rows: int, blank: np.ndarray | None, tuning: Tuning
) -> Callable[[Ints], np.ndarray] | None:
    """Which keys (in ``[0, radix)``) the avatars' keys hold exactly once, as a
    lookup of some keys (1 or 0 each); ``rows``, U's members and the avatars'
    rows, choose the way: few possible profiles, one ``bincount``; otherwise, up to
    a few bytes per row, a bitmap of every possible profile (``blank``: its memory
    made ahead, :func:`blank_bitmap`) with the bits of the sorted avatar profiles
    present once (B1) set. None beyond: :func:`linked_count` merges sorted keys."""
    way = tuning.key_count(radix, rows)
    if way is KeyCount.BINCOUNT:
        once = np.bincount(a_key, minlength=radix) == 1
        return lambda keys: once[keys]
    if way is KeyCount.SORT:
        return None
    return _bitmap(sorted_once(a_key), radix, blank)


def linked_count(
    u_keys: Callable[[], Ints],
    u_rows: int,
    a_key: Ints,
    radix: int,
    pool: Executor | None = None,
    outside: Ints | None = None,
    blank: np.ndarray | None = None,
    tuning: Tuning = DEFAULT_TUNING,
) -> int:
    """|S|: members of U whose profile occurs exactly once among the avatars (keys
    in ``[0, radix)``). ``u_keys`` makes U's keys (``u_rows`` of them); it is called
    once the avatars' keys held once are found, so another thread can still be
    packing them meanwhile. ``outside``: rows of U's keys that are not in U, left
    out (no copy of the others); ``blank``: the bitmap's memory made ahead
    (:func:`blank_bitmap`, when :func:`uses_bitmap`).

    U's profiles are looked up in :func:`once_lookup` (half of them by a thread of
    ``pool`` when it is free). Beyond its bitmap, B1 (the sorted avatar profiles
    present once) and U's sorted profiles (sorted by ``pool``), each tagged in its
    lowest bit (B1 even, so first in its run), are merged (a stable sort of two
    sorted runs is one merge): a run of one profile that starts with B1 holds the
    members of U linked through it."""
    left_out = np.zeros(0, dtype=np.intp) if outside is None else outside
    members = u_rows - len(left_out)
    if members == 0 or len(a_key) == 0:
        return 0
    lookup = once_lookup(a_key, radix, members + len(a_key), blank, tuning)
    if lookup is not None:  # U's keys looked up, not sorted
        return found(lookup, u_keys(), left_out, pool)
    u_key = u_keys()
    u_key = np.delete(u_key, left_out) if len(left_out) else u_key
    u_sorted = Job(partial(np.sort, u_key), pool)
    once = sorted_once(a_key)
    u_ordered = u_sorted.result()
    merged = np.concatenate([once.astype(np.int64) * 2, u_ordered.astype(np.int64, copy=False)])
    tail = merged[len(once) :]
    tail *= 2
    tail += 1
    merged.sort(kind="stable")
    profile = merged >> 1
    starts = run_starts(profile)
    lengths = run_lengths(starts, len(merged))
    return int(np.sum((lengths - 1)[(merged[starts] & 1) == 0]))


def found(
    lookup: Callable[[Ints], np.ndarray], keys: Ints, left_out: Ints, pool: Executor | None
) -> int:
    """How many of ``keys`` (the rows ``left_out`` apart) ``lookup`` finds; with
    ``pool``, a thread of it looks up the first half when it is free."""

    def count(some: Ints) -> int:
        return int(np.count_nonzero(lookup(some)))

    half = len(keys) // 2 if pool is not None else 0
    first = Job(partial(count, keys[:half]), pool)
    total = count(keys[half:]) + first.result()
    return total - count(keys[left_out]) if len(left_out) else total


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


def _float_limbs(values: np.ndarray, window: Window, bits: int) -> list[np.ndarray]:
    """The limbs of a window's magnitudes, lowest first, as ``kpr.engine.queries``
    computes them: whole numbers below ``2**bits``, held as float64 (exact)."""
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


#: Limbs are computed for this many distinct values at a time: bounded memory, and
#: arrays that stay in the processor cache (measured fastest near 2**15).
_BLOCK = 1 << 15

#: One block's limbs, counts, signed counts and bound of its float limbs (the
#: arguments of :func:`_weighted`).
_Block = tuple[list[np.ndarray], Ints, Ints | None, int | None]


def _blockwise(
    block: Callable[[slice], _Block],
    size: int,
    pairs: list[tuple[int, int]],
    pool: Executor | None = None,
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
            limbs, counts, signed, top = block(slice(start, start + _BLOCK))
            lin, prod = _weighted(limbs, counts, signed, pairs, top)
            linear, products = _added(linear, lin), _added(products, prod)
        return linear, products

    starts = shared_blocks(size, _BLOCK)
    if pool is None or size < _SHARED_BLOCKS * _BLOCK:
        return summed(starts)
    helper = pool.submit(summed, starts)
    linear, products = summed(starts)
    if helper.cancel():  # never started: every block is summed here
        return linear, products
    other_linear, other_products = helper.result()
    return _added(linear, other_linear), _added(products, other_products)


#: A column of at least this many blocks of distinct values shares them with a pool.
_SHARED_BLOCKS = 8


def _added(total: list[int], more: list[int]) -> list[int]:
    """Sums of blocks added term by term (an empty list: no block summed)."""
    if not total or not more:
        return total or more
    return [a + b for a, b in zip(total, more, strict=True)]


def weighted_moments(
    values: np.ndarray, ints: Ints | None, counts: Ints, pool: Executor | None = None
) -> Moments:
    """The aggregates over U of one numeric column from its distinct values
    (float64, NaN for missing; ``ints``: the same values as exact int64 for the
    integer columns every engine sums exactly) and how many members of U hold
    each: the same exact sums every engine collects, over the distinct values
    only (``kpr.metric.exact``; the limbs depend on the values' range, not on n).
    ``pool``: a thread that shares the sums (:func:`_blockwise`); never the pool
    of the calling thread, which would wait for itself."""
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
            len(values), plan.pairs(), pool,
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
            limbs = _float_limbs(some, window, sums.bits)
            return limbs, held, np.where(some < 0, -held, held), 1 << sums.bits

        parts.append(_blockwise(block, len(values), sums.pairs(window), pool))
    sum_d, sum_d2 = sums.combine([p[0] for p in parts], [p[1] for p in parts])
    return Moments(count, lo, hi, 0, sum_d, sum_d2, sums.grid)


class EncodedTables:
    """Both tables' candidate columns, encoded once for any number of attacks."""

    def __init__(
        self,
        original: pl.DataFrame,
        avatars: pl.DataFrame,
        kinds: Mapping[str, Kind],
        tuning: Tuning = DEFAULT_TUNING,
    ) -> None:
        self.n, self.m = original.height, avatars.height
        self.tuning = tuning
        self.columns = {
            name: _encode_column(original[name], avatars[name], kind, tuning)
            for name, kind in kinds.items()
        }

    def _u_codes(self, known: Sequence[str], cache: KeyCache) -> list[Ints]:
        """Each known variable's codes over U (the original rows whose codes are
        unique), from the packed key of the raw codes; prefix keys are cached.

        The keys that occur once (found by a count or a sort) are U's keys, and
        each one decodes into its codes, so no per-row mask is needed (unless
        the key had to be renumbered)."""
        key: Ints | None = None
        radix, renumbered, start = 1, False, 0
        for i in range(len(known), 0, -1):
            if tuple(known[:i]) in cache:
                key, radix, renumbered = cache[tuple(known[:i])]
                start = i
                break
        for i in range(start, len(known)):
            col = self.columns[known[i]]
            [key], radix, again = extend_keys(
                None if key is None else [key], radix, [col.o], col.radix, self.tuning.key_limit
            )
            renumbered = renumbered or again
            cache[tuple(known[: i + 1])] = (key, radix, renumbered)
        assert key is not None
        few = self.tuning.few_keys(radix, len(key))
        if renumbered:
            once = np.bincount(key, minlength=radix)[key] == 1 if few else _once(key)
            rows = np.flatnonzero(once)
            return [self.columns[name].o[rows] for name in known]
        # the keys held once, in order (with few keys, without a sort)
        rest = np.flatnonzero(np.bincount(key, minlength=radix) == 1) if few else sorted_once(key)
        codes: list[Ints] = []
        for name in reversed(known):
            rest, code = np.divmod(rest, self.columns[name].radix)
            codes.append(code)
        return codes[::-1]

    def digits(
        self,
        known: Sequence[str],
        tolerance: float,
        cache: KeyCache | None = None,
        *,
        offset: float = 0.0,
    ) -> AttackDigits:
        """One attack's link digits: each member of U's digit per known variable,
        and the digit of each avatar value code (``kpr.protect`` changes avatar
        values and re-packs only the rows it touches); ``offset``: the grid moved."""
        u_codes = self._u_codes(known, {} if cache is None else cache)
        u_digits: list[Ints] = []
        lookups: list[Ints] = []
        radices: list[int] = []
        bins: dict[str, NumericBins] = {}
        for name, codes in zip(known, u_codes, strict=True):
            col = self.columns[name]
            if col.kind.binned:
                counts = np.bincount(codes, minlength=col.radix)
                date = col.kind is Kind.DATE
                assert col.o_values is not None
                moments = weighted_moments(col.o_values, col.o_ints, counts)
                bins[name] = binning.numeric_bins(moments, tolerance, date=date, offset=offset)
                assert col.a_values is not None
                do, da, digit_radix = class_digits(
                    col.o_values, col.a_values, bins[name], self.tuning
                )
                u_digits.append(do[codes])
                lookups.append(da)
            else:
                u_digits.append(codes)
                lookups.append(np.arange(col.radix, dtype=np.int64))
                digit_radix = col.radix
            radices.append(digit_radix)
        return AttackDigits(tuple(known), u_digits, lookups, radices, bins)

    def attack(
        self, known: Sequence[str], tolerance: float, cache: KeyCache | None = None
    ) -> SubsetCounts:
        """The counts and bins of one attack, equal to ``kpr.evaluate``'s."""
        d = self.digits(known, tolerance, cache)
        keys: list[Ints] | None = None
        radix = 1
        for name, u_digit, lookup, digit_radix in zip(
            known, d.u_digits, d.lookups, d.radices, strict=True
        ):
            a_digit = lookup[self.columns[name].a]
            keys, radix, _ = extend_keys(
                keys, radix, [u_digit, a_digit], digit_radix, self.tuning.key_limit
            )
        assert keys is not None
        u_key = keys[0]
        linked = linked_count(lambda: u_key, len(u_key), keys[1], radix, tuning=self.tuning)
        size_u = len(d.u_digits[0])
        return SubsetCounts(tuple(known), Counts(self.n, self.m, size_u, linked), d.bins)


def _chains(subsets: Sequence[tuple[str, ...]]) -> list[list[int]]:
    """Subsets grouped by their first variable, each group in lexicographic order
    ((a), (a, b), (a, b, c), (a, b, d), (a, c), ...) so that it reuses prefix keys."""
    position: dict[str, int] = {}
    for s in subsets:
        for name in s:
            position.setdefault(name, len(position))
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(subsets):
        groups.setdefault(s[0], []).append(i)
    return [
        sorted(chain, key=lambda i: [position[name] for name in subsets[i]])
        for chain in groups.values()
    ]


def sweep_counts(
    tables: EncodedTables,
    subsets: Sequence[tuple[str, ...]],
    tolerance: float,
    *,
    done: Callable[[tuple[str, ...]], None] | None = None,
    workers: int | None = None,
) -> list[SubsetCounts]:
    """Every subset's counts, in the order given; ``done`` is called as each finishes."""
    out: list[SubsetCounts | None] = [None] * len(subsets)
    lock = threading.Lock()

    def run(chain: list[int]) -> None:
        cache: KeyCache = {}
        for i in chain:
            subset = subsets[i]
            for k in [k for k in cache if k != subset[: len(k)]]:
                del cache[k]  # keep only the prefixes of the current subset
            out[i] = tables.attack(subset, tolerance, cache)
            if done is not None:
                with lock:
                    done(subset)

    chains = _chains(subsets)
    workers = workers if workers is not None else min(4, os.cpu_count() or 1)
    if workers <= 1 or len(chains) == 1:
        for chain in chains:
            run(chain)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(run, chains))
    return [o for o in out if o is not None]
