"""Profiles packed into one exact integer, a batch of rows at a time, and the exact
link by joins when they cannot be packed: what the path of tables too large to hold
in memory links with (``kpr.engine.streamed``; ``exact_link`` also
``kpr.engine.polars``).

Each table is read once by one streaming query (``collect_batches``, in row order)
and its profiles are packed a block of rows at a time, with numpy, by the in-memory
engine's digits: a numeric column's classes shifted to small digits
(``kpr.engine.inmemory.digits.shifted_digits``), a text as its place among the
original's distinct texts (``TextIds``), a boolean or an integer as a small offset
(a polars expression in the query). Only the keys (4 or 8 bytes a row) and one batch
are held: the table never is. The two tables are packed side by side, by two
threads.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import polars as pl

from kpr.engine.inmemory.digits import shifted_digits
from kpr.engine.inmemory.runs import Ints, sort
from kpr.engine.inmemory.texts import TextIds, text_hash
from kpr.engine.tuning import Tuning
from kpr.metric.binning import NumericBins
from kpr.metric.classes import digit_shift, push_digit

_TEXT_TYPES = (pl.String, pl.Categorical, pl.Enum)


def exact_link(u: pl.LazyFrame, a: pl.LazyFrame, keys: list[str]) -> tuple[int, int]:
    """m and |S|: polars joins can match null with null, so a semi-join of U's
    codes on the avatar profiles present once replaces the stacked group-by."""
    once = a.group_by(keys).agg(pl.len().alias("c")).filter(pl.col("c") == 1).drop("c")
    linked = u.join(once, on=keys, how="semi", nulls_equal=True).select(pl.len().alias("s"))
    s, m = pl.collect_all([linked, a.select(pl.len().alias("m"))], engine="streaming")
    return int(m.item()), int(s.item())


class Scratch:
    """The arrays of one block of rows that a thread's block loop writes again and
    again: fresh memory for each block costs more in page faults than the work
    (measured: docs/benchmarks.md)."""

    def __init__(self, rows: int) -> None:
        self.key = np.empty(rows, dtype=np.int64)
        self.codes = np.empty(rows, dtype=np.float64)
        self.digits = {t: np.empty(rows, dtype=t) for t in (np.int32, np.int64)}


#: One column's block as read (one series a read expression) -> its digits.
Block = Callable[[Sequence[pl.Series], Scratch], np.ndarray]


@dataclass(frozen=True)
class Digits:
    """One known column's link digits in one table: each in ``[0, radix)`` (the
    radix both tables share), or -1 for a value no member of U can hold (only when
    ``may_miss``). The query reads ``reads``; ``block`` turns a block of them into
    digits (None: the one read is the digits)."""

    reads: tuple[pl.Expr, ...]
    radix: int
    block: Block | None = None
    may_miss: bool = False


@dataclass(frozen=True)
class PackedKeys:
    """Both tables' profiles as keys in ``[0, radix]``: the original's, every row in
    order, ``radix`` for a profile no avatar can hold; the avatars', sorted, those no
    member of U can hold left out."""

    original: Ints
    avatars: Ints
    radix: int


def packed_keys(
    original: pl.LazyFrame,
    avatars: pl.LazyFrame,
    bins: Mapping[str, NumericBins],
    texts: Mapping[str, pl.Series],
    shape: tuple[int, int],
    tuning: Tuning,
) -> PackedKeys | None:
    """The :class:`PackedKeys` of both tables' known columns (``bins``: the binned
    ones; ``texts``: by text column, the original's distinct present texts; ``shape``:
    both tables' rows). The packing is injective, so the counts are exact. None when a
    column cannot be packed or the digits need more than 63 bits."""
    plan = digit_plan(original.collect_schema(), avatars, bins, texts, tuning)
    if plan is None:
        return None
    radix = math.prod(o.radix for o, _ in plan)
    if radix >= 2**63 - 1:
        return None
    dtype = np.uint32 if radix < tuning.keys32 else np.int64
    pack = partial(_table_keys, dtype=dtype, tuning=tuning)
    with ThreadPoolExecutor(1) as pool:  # the original's on another thread
        o_plan, a_plan = [o for o, _ in plan], [a for _, a in plan]
        o_keys = pool.submit(pack, original, shape[0], radix, o_plan)
        a_keys = pack(avatars, shape[1], None, a_plan)
        return PackedKeys(o_keys.result(), sort(a_keys, tuning.sorter), radix)


#: Each known column's digits in the original and in the avatars.
Plan = list[tuple[Digits, Digits]]


def digit_plan(
    o_schema: pl.Schema,
    avatars: pl.LazyFrame,
    bins: Mapping[str, NumericBins],
    texts: Mapping[str, pl.Series],
    tuning: Tuning,
) -> Plan | None:
    """Each known column's :class:`Digits` in both tables, in the order of
    ``o_schema`` (the original's known columns); None when one cannot be packed (a
    float code, a column of another type in each table, an integer range too wide)."""
    a_schema = avatars.collect_schema()
    integers = [
        k
        for k in o_schema
        if k not in bins and o_schema[k].is_integer() and a_schema[k].is_integer()
    ]
    ranges = _avatar_ranges(avatars, integers)
    plan = []
    for k, o_type in o_schema.items():
        a_type = a_schema[k]
        both: Digits | None = None
        if k in bins:
            both = _class_digits(k, bins[k])
        elif isinstance(o_type, _TEXT_TYPES) and isinstance(a_type, _TEXT_TYPES):
            if (pair := _text_digits(k, texts.get(k), tuning)) is None:
                return None
            plan.append(pair)
            continue
        elif o_type == a_type == pl.Boolean:
            both = Digits(((pl.col(k).cast(pl.Int64) + 1).fill_null(0),), 3)
        elif k in integers:
            both = _integer_digits(k, ranges[f"{k}__lo"], ranges[f"{k}__hi"])
        if both is None:
            return None
        plan.append((both, both))
    return plan


def _class_digits(k: str, bins: NumericBins) -> Digits | None:
    """A numeric column's classes shifted to digits (``kpr.metric.classes.digit_shift``),
    from its values cast to float64 as the lazy codes cast them, NaN for missing;
    None for float codes, or classes beyond exact float codes."""
    plan = digit_shift(bins, 2**62) if bins.int_codes else None
    if plan is None:
        return None
    shift, radix = plan
    read = pl.col(k).cast(pl.Float64).fill_null(float("nan"))
    small = np.int32 if radix < 2**31 else np.int64  # quicker to convert to

    def block(parts: Sequence[pl.Series], scratch: Scratch) -> np.ndarray:
        rows = len(parts[0])
        work, out = scratch.codes[:rows], scratch.digits[small][:rows]
        return shifted_digits(parts[0].to_numpy(), bins, shift, work, out)

    return Digits((read,), radix, block)


def _text_digits(k: str, texts: pl.Series | None, tuning: Tuning) -> tuple[Digits, Digits] | None:
    """A text column's digits in both tables: its place among ``texts`` (the
    original's distinct present texts) from 1, numbered by ``TextIds`` (0 missing,
    -1 another text). The original holds no other text, so its ids are read from
    the hashes alone; the avatars' texts are compared with their id's."""
    if texts is None:
        return None
    ids = TextIds(texts, tuning)
    if not ids.hashed:  # an enum of many texts, in both tables

        def enum(parts: Sequence[pl.Series], scratch: Scratch) -> np.ndarray:
            return ids.encode(parts[0])

        numbered = Digits((pl.col(k),), ids.radix, enum, may_miss=True)
        return numbered, numbered

    def held(parts: Sequence[pl.Series], scratch: Scratch) -> np.ndarray:
        return ids.held(parts[0].to_numpy(), parts[1].to_numpy())

    def compared(parts: Sequence[pl.Series], scratch: Scratch) -> np.ndarray:
        return ids.encode(parts[0], parts[1].to_numpy())

    original = Digits((text_hash(k), pl.col(k).is_null()), ids.radix, held)
    return original, Digits((pl.col(k), text_hash(k)), ids.radix, compared, may_miss=True)


def _avatar_ranges(a: pl.LazyFrame, ints: list[str]) -> dict[str, Any]:
    """The avatars' integer range, by column (``{k}__lo``, ``{k}__hi``), in one
    streaming query."""
    if not ints:
        return {}
    return (
        a.select(
            *(pl.col(k).min().alias(f"{k}__lo") for k in ints),
            *(pl.col(k).max().alias(f"{k}__hi") for k in ints),
        )
        .collect(engine="streaming")
        .row(0, named=True)
    )


def _integer_digits(k: str, lo: Any, hi: Any) -> Digits | None:
    """An integer column's digits (from 1; 0 missing) from the avatars' range
    ``lo``..``hi``; None when the range is too wide to pack."""
    if lo is None:  # no avatar value: only missing can match
        return Digits((pl.when(pl.col(k).is_null()).then(0).otherwise(-1),), 1, may_miss=True)
    radix = int(hi) - int(lo) + 2
    if radix >= 2**62:
        return None
    # a U value outside the avatars' range is no digit (-1): subtracting first
    # could wrap around int64 onto a valid digit
    outside = ~pl.col(k).is_between(int(lo), int(hi))
    inside = (pl.col(k) - int(lo) + 1).cast(pl.Int64)
    digit = pl.when(outside).then(-1).otherwise(inside).fill_null(0)
    return Digits((digit.cast(pl.Int64),), radix, may_miss=True)


def _table_keys(
    frame: pl.LazyFrame,
    rows: int,
    missed: int | None,
    plan: Sequence[Digits],
    *,
    dtype: type[np.integer[Any]],
    tuning: Tuning,
) -> Ints:
    """One table's keys (``rows`` of them at most), in row order: a profile holding
    a digit of -1 gets the key ``missed``, or is left out (None)."""
    out = np.empty(rows, dtype=dtype)
    at, block = 0, tuning.pack_block
    reads = [e.alias(f"__kpr_read_{i}__") for i, e in enumerate(e for d in plan for e in d.reads)]
    scratch = Scratch(block)
    for batch in frame.select(reads).collect_batches(chunk_size=tuning.batch_rows):
        columns = batch.get_columns()
        for start in range(0, batch.height, block):
            parts = iter([c.slice(start, block) for c in columns])
            per_column = [[next(parts) for _ in d.reads] for d in plan]
            keys = _block_keys(per_column, plan, missed, scratch)
            out[at : at + len(keys)] = keys
            at += len(keys)
    return out[:at]


def _block_keys(
    parts: Sequence[Sequence[pl.Series]],
    plan: Sequence[Digits],
    missed: int | None,
    scratch: Scratch,
) -> Ints:
    """The keys of a block of rows (``parts``: each column's reads, a block of each)."""
    key = scratch.key[: len(parts[0][0])]
    key.fill(0)
    bad: np.ndarray | None = None
    for read, digits in zip(parts, plan, strict=True):
        digit = digits.block(read, scratch) if digits.block is not None else read[0].to_numpy()
        push_digit(key, digit, digits.radix, out=key)
        if digits.may_miss:
            bad = digit < 0 if bad is None else bad | (digit < 0)
    if bad is None or not bad.any():
        return key
    if missed is None:
        return key[~bad]
    key[bad] = missed
    return key
