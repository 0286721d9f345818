"""Profiles packed into one exact integer each: ``key * radix + digit`` per known
variable (``kpr.metric.classes.push_digit``, the one packer), renumbered densely
before the product of the radices could overflow; both tables' keys a block of
rows at a time, shared with a thread of the pool."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from functools import partial

import numpy as np

from kpr.engine.inmemory.digits import LinkDigits
from kpr.engine.inmemory.runs import Ints
from kpr.engine.jobs import Job, shared_blocks
from kpr.engine.tuning import DEFAULT_TUNING
from kpr.metric.classes import push_digit


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


class PackedKeys:
    """Both tables' profiles, each packed into one integer (mixed radix, the
    product of the radices below its limit; both as ``dtype``), a block
    of rows at a time (each block's arrays stay in the processor cache), and which
    avatar rows have a profile (no digit of -1: the key of such a row is not used).

    A thread of ``pool`` packs the blocks of the avatars, then of U, as soon as it
    is free; the calling thread packs the blocks of one table when it asks for its
    keys (both take the next block from one ``jobs.shared_blocks``, and the calling thread never
    waits for a thread that has not started). So the calling thread can work on
    the avatars' keys while the pool's thread is still packing U's."""

    def __init__(
        self,
        columns: Sequence[LinkDigits],
        dtype: type[np.integer],
        pool: Executor | None,
        block: int = DEFAULT_TUNING.pack_block,
    ) -> None:
        n, m = len(columns[0].original), len(columns[0].avatars)
        self.columns, self.block = columns, block
        self.o_key, self.a_key = np.empty(n, dtype=dtype), np.empty(m, dtype=dtype)
        self.valid = np.ones(m, dtype=bool)
        self.a_blocks = partial(self._pack, True, shared_blocks(m, block))
        self.o_blocks = partial(self._pack, False, shared_blocks(n, block))
        self.jobs = Job(self.a_blocks, pool), Job(self.o_blocks, pool)

    def avatars(self) -> tuple[Ints, np.ndarray]:
        """The avatars' keys and which rows have a profile, every block packed."""
        self.a_blocks()
        self.jobs[0].result()  # a block still being packed by the pool's thread
        return self.a_key, self.valid

    def original(self) -> Ints:
        """U's keys (every row of the original), every block packed."""
        self.o_blocks()
        self.jobs[1].result()
        return self.o_key

    def _pack(self, avatars: bool, starts: Iterator[int]) -> None:
        keys, valid = (self.a_key, self.valid) if avatars else (self.o_key, None)
        for start in starts:  # each start handed to one thread (jobs.shared_blocks)
            stop = min(start + self.block, len(keys))
            key = keys[start:stop]
            key[:] = 0
            for column in self.columns:
                digit = column.block(column.avatars if avatars else column.original, start, stop)
                if valid is not None:
                    valid[start:stop] &= digit >= 0
                push_digit(key, digit, column.radix, out=key)


def renumbered_keys(
    digits: Sequence[LinkDigits], key_limit: int
) -> tuple[Ints, Ints, int, np.ndarray]:
    """Both tables' packed keys when the product of the radices passes ``key_limit``
    (``kpr.engine.inmemory.keys.extend_keys`` renumbers them densely on the way)."""
    keys: list[Ints] | None = None
    radix = 1
    n, m = len(digits[0].original), len(digits[0].avatars)
    valid = np.ones(m, dtype=bool)
    for column in digits:
        do, da = column.block(column.original, 0, n), column.block(column.avatars, 0, m)
        valid &= da >= 0
        keys, radix, _ = extend_keys(keys, radix, [do, np.maximum(da, 0)], column.radix, key_limit)
    assert keys is not None
    return keys[0], keys[1], radix, valid
