"""|S| from packed profile keys: the members of U whose key the avatars hold exactly
once, counted by one ``np.bincount``, a bitmap of every possible key, or a merge
of sorted keys (``Tuning.key_count`` chooses, a named ``KeyCount``)."""

from __future__ import annotations

import mmap
from collections.abc import Callable
from concurrent.futures import Executor
from functools import partial

import numpy as np

from kpr.engine.inmemory.runs import Ints, run_lengths, run_starts, sort, sorted_once
from kpr.engine.jobs import Job
from kpr.engine.tuning import DEFAULT_TUNING, KeyCount, Tuning


def blank_bitmap(size: int) -> np.ndarray:
    """A bitmap of ``size`` bits, all 0, its memory already touched: made ahead by
    another thread, which then takes the kernel's page faults (their cost:
    docs/benchmarks.md)."""
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
    byte = ordered >> 3  # in the keys' own type: 4 bytes when they fit
    bitmap = np.zeros((size + 7) // 8, dtype=np.uint8) if blank is None else blank
    if len(ordered):
        starts = run_starts(byte)
        bits = np.left_shift(np.uint8(1), (ordered & 7).astype(np.uint8))
        bitmap[byte[starts]] = np.bitwise_or.reduceat(bits, starts)

    def lookup(some: Ints) -> np.ndarray:
        found = bitmap[some >> 3]
        found >>= (some & 7).astype(np.uint8)
        found &= 1
        return found

    return lookup


def once_lookup(
    a_key: Ints,
    radix: int,
    rows: int,
    blank: np.ndarray | None,
    tuning: Tuning,
    ordered: bool = False,
) -> Callable[[Ints], np.ndarray] | None:
    """Which keys (in ``[0, radix)``) the avatars' keys hold exactly once, as a
    lookup of some keys (1 or 0 each); ``rows``, U's members and the avatars'
    rows, choose the way: few possible profiles, one ``bincount``; otherwise, up to
    a few bytes per row, a bitmap of every possible profile (``blank``: its memory
    made ahead, :func:`blank_bitmap`) with the bits of the sorted avatar profiles
    present once (B1) set (``ordered``: ``a_key`` is sorted already). None beyond:
    :func:`linked_count` merges sorted keys."""
    way = tuning.key_count(radix, rows)
    if way is KeyCount.BINCOUNT:
        once = np.bincount(a_key, minlength=radix) == 1
        return lambda keys: once[keys]
    if way is KeyCount.SORT:
        return None
    return _bitmap(sorted_once(a_key, ordered, tuning.sorter), radix, blank)


def linked_count(
    u_keys: Callable[[], Ints],
    u_rows: int,
    a_key: Ints,
    radix: int,
    pool: Executor | None = None,
    outside: Ints | None = None,
    blank: np.ndarray | None = None,
    tuning: Tuning = DEFAULT_TUNING,
    ordered: bool = False,
) -> int:
    """|S|: members of U whose profile occurs exactly once among the avatars (keys
    in ``[0, radix)``). ``u_keys`` makes U's keys (``u_rows`` of them); it is called
    once the avatars' keys held once are found, so another thread can still be
    packing them meanwhile. ``outside``: rows of U's keys that are not in U, left
    out (no copy of the others); ``blank``: the bitmap's memory made ahead
    (:func:`blank_bitmap`, when :func:`uses_bitmap`); ``ordered``: ``a_key`` is
    sorted already.

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
    lookup = once_lookup(a_key, radix, members + len(a_key), blank, tuning, ordered)
    if lookup is not None:  # U's keys looked up, not sorted
        return found(lookup, u_keys(), left_out, pool)
    u_key = u_keys()
    u_key = np.delete(u_key, left_out) if len(left_out) else u_key
    u_sorted = Job(partial(sort, u_key, tuning.sorter), pool)
    once = sorted_once(a_key, ordered, tuning.sorter)
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
