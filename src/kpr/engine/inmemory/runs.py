"""Runs of equal values in sorted integer arrays: where they start, how long they
are, which values occur once. The shared vocabulary of the in-memory engine's
counts (sorts and ``np.bincount``, never a hash table of Python objects)."""

from __future__ import annotations

import numpy as np
import polars as pl

Ints = np.ndarray  # int64 codes or keys


def sort(values: np.ndarray) -> np.ndarray:
    """``values`` sorted, NaN last, as ``np.sort`` sorts them, by polars' sort: on
    every core, and quicker on one (4M floats or 64-bit hashes: 2-3 times, measured
    under load). May be read-only (polars' memory)."""
    return pl.Series(values).sort().to_numpy()


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


def sorted_once(keys: Ints, ordered: bool = False) -> Ints:
    """The keys that occur exactly once, sorted (one sort unless ``ordered``: sorted
    already, then :func:`singles`)."""
    keys = keys if ordered else sort(keys)
    return keys[singles(keys)]


def held_once(key: Ints) -> np.ndarray:
    """Which entries of ``key`` occur exactly once (in the key's own order)."""
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    return counts[inverse] == 1
