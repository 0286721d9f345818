"""Runs of equal values in sorted integer arrays: where they start, how long they
are, which values occur once. The shared vocabulary of the in-memory engine's
counts (sorts and ``np.bincount``, never a hash table of Python objects)."""

from __future__ import annotations

import numpy as np
import polars as pl

from kpr.engine.tuning import Sorter

Ints = np.ndarray  # int64 codes or keys


def sort(values: np.ndarray, sorter: Sorter) -> np.ndarray:
    """``values`` sorted, NaN last, as ``np.sort`` sorts them, by ``sorter``
    (``Tuning.sorter``): numpy's SIMD sort, or polars' sort on the calling thread or
    on its own. For polars, 8-byte floats are sorted as integers (twice as quick as
    its float sort): their own bits when none has its sign bit set (no copy), else
    :func:`_ordered_bits`. May be read-only (polars' memory)."""
    if sorter is Sorter.NUMPY:
        return np.sort(values)
    threaded = sorter is Sorter.POLARS_THREADED
    if values.dtype != np.float64:
        return pl.Series(values).sort(multithreaded=threaded).to_numpy()
    bits = values.view(np.int64)
    if bits.min(initial=0) >= 0:  # no sign bit: the bits order as the floats, NaN last
        return pl.Series(bits).sort(multithreaded=threaded).to_numpy().view(np.float64)
    keys = _ordered_bits(values, nan_last=True)
    ordered = pl.Series(keys).sort(multithreaded=threaded).to_numpy()
    return _ordered_bits(ordered, out=keys).view(np.float64)


#: The 63 bits of a float64 below its sign.
_LOW63 = np.int64(0x7FFF_FFFF_FFFF_FFFF)


def _ordered_bits(
    values: np.ndarray, nan_last: bool = False, out: np.ndarray | None = None, block: int = 1 << 16
) -> np.ndarray:
    """Float64 values as int64 in the same order (-inf < ... < -0.0 < 0.0 < ... < inf):
    the bits of a negative value below its sign flipped, those of another as they are;
    its own inverse (from such integers back to the floats' bits). ``nan_last``: every
    NaN, whatever its sign, becomes the largest int64 (a NaN again when turned back).
    A block of values at a time (no column-long temporary)."""
    bits = values.view(np.int64)
    out = np.empty(len(bits), dtype=np.int64) if out is None else out
    for start in range(0, len(bits), block):
        part, flip = bits[start : start + block], out[start : start + block]
        np.right_shift(part, 63, out=flip)
        flip &= _LOW63
        flip ^= part
        if nan_last:
            flip[np.isnan(values[start : start + block])] = _LOW63
    return out


def run_changes(ordered: np.ndarray) -> np.ndarray:
    """Which entries of a sorted array start a run of equal values."""
    change = np.empty(len(ordered), dtype=bool)
    change[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=change[1:])
    return change


def run_starts(ordered: np.ndarray) -> Ints:
    """Where each run of equal values of a sorted array starts."""
    return np.flatnonzero(run_changes(ordered))


def held_more_than_once(ordered: np.ndarray) -> np.ndarray:
    """The values a sorted array holds more than once, each once, in order."""
    held = ordered[1:][ordered[1:] == ordered[:-1]]
    return held[run_starts(held)]


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


def sorted_once(keys: Ints, ordered: bool, sorter: Sorter) -> Ints:
    """The keys that occur exactly once, sorted (one :func:`sort` by ``sorter``,
    unless ``ordered``: sorted already, then :func:`singles`)."""
    keys = keys if ordered else sort(keys, sorter)
    return keys[singles(keys)]


def held_once(key: Ints) -> np.ndarray:
    """Which entries of ``key`` occur exactly once (in the key's own order)."""
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return counts[inverse] == 1
