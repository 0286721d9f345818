"""Profiles packed into one exact integer by polars expressions (streaming
queries), and the exact link by joins when they cannot be packed: what the paths of
tables too large to hold in memory link with (``kpr.engine.streamed``,
``kpr.engine.polars``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import polars as pl

from kpr.metric.binning import NumericBins
from kpr.metric.classes import DIGIT_OFFSET, code_radix, push_digit

#: The packed key's column.
KEY = "__kpr_hash__"
_TEXT_TYPES = (pl.String, pl.Categorical, pl.Enum)


def exact_link(u: pl.LazyFrame, a: pl.LazyFrame, keys: list[str]) -> tuple[int, int]:
    """m and |S|: polars joins can match null with null, so a semi-join of U's
    codes on the avatar profiles present once replaces the stacked group-by."""
    once = a.group_by(keys).agg(pl.len().alias("c")).filter(pl.col("c") == 1).drop("c")
    linked = u.join(once, on=keys, how="semi", nulls_equal=True).select(pl.len().alias("s"))
    s, m = pl.collect_all([linked, a.select(pl.len().alias("m"))], engine="streaming")
    return int(m.item()), int(s.item())


def packed_keys(
    u: pl.LazyFrame,
    a: pl.LazyFrame,
    keys: list[str],
    bins: Mapping[str, NumericBins],
    texts: Mapping[str, pl.Series],
) -> tuple[pl.LazyFrame, pl.LazyFrame, int] | None:
    """U's and the avatars' profiles, each packed into one exact int64 (column
    ``KEY``; -1 for a profile no avatar or no member of U can hold), and the radix of
    the keys.

    Each code becomes a digit of a mixed-radix number
    (``kpr.metric.classes.push_digit``): numeric codes (special codes included)
    shifted to start at 0 (``+ DIGIT_OFFSET``), text values as their place among
    ``texts`` (by column: the distinct texts U's values are among, e.g. the
    original's), booleans and integers as small offsets; missing is digit 0. The
    packing is injective, so the counts are exact. None when a column cannot be
    packed or the digits need more than 63 bits.
    """
    schema = a.collect_schema()
    text = [k for k in keys if k not in bins and isinstance(schema[k], _TEXT_TYPES)]
    ints = [k for k in keys if k not in bins and schema[k].is_integer()]
    flags = [k for k in keys if k not in bins and schema[k] == pl.Boolean]
    if any(not b.int_codes for b in bins.values()) or len(text) + len(ints) + len(flags) + len(
        bins
    ) != len(keys):
        return None
    if any(k not in texts for k in text):
        return None
    ranges = _avatar_ranges(a, ints)
    digits: list[tuple[pl.Expr, int]] = []  # (digit, radix), digit in [0, radix) or -1
    for k in keys:
        if k in bins:
            digits.append((pl.col(k) + DIGIT_OFFSET, code_radix(bins[k])))
        elif k in flags:
            digits.append((pl.col(k).cast(pl.Int64) + 1, 3))
        elif k in text:
            digits.append(_text_digit(k, texts[k]))
        elif (digit := _integer_digit(k, ranges[f"{k}__lo"], ranges[f"{k}__hi"])) is not None:
            digits.append(digit)
        else:
            return None
    total = math.prod(r for _, r in digits)
    if total >= 2**63:
        return None
    packed = _packed(digits).alias(KEY)
    return u.select(packed), a.select(packed), total


def _text_digit(k: str, texts: pl.Series) -> tuple[pl.Expr, int]:
    """A text column's digit: its place among ``texts`` (distinct, present) from 1,
    by a cast to an enum of them (0 missing; -1 a text not among them) and radix."""
    place = pl.col(k).cast(pl.String).cast(pl.Enum(texts), strict=False).to_physical()
    found = place.cast(pl.Int64) + 1
    return pl.when(pl.col(k).is_null()).then(0).otherwise(found.fill_null(-1)), len(texts) + 1


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


def _integer_digit(k: str, lo: Any, hi: Any) -> tuple[pl.Expr, int] | None:
    """An integer column's digit (from 1; 0 missing) and radix, from the avatars'
    range ``lo``..``hi``; None when the range is too wide to pack."""
    if lo is None:  # no avatar value: only missing can match (a column, not a
        # literal, which polars would turn into one row)
        return pl.when(pl.col(k).is_null()).then(0).otherwise(-1), 1
    radix = int(hi) - int(lo) + 2
    if radix >= 2**62:
        return None
    # a U value outside the avatars' range is no digit (-1): subtracting first
    # could wrap around int64 onto a valid digit
    outside = ~pl.col(k).is_between(int(lo), int(hi))
    return pl.when(outside).then(-1).otherwise(pl.col(k) - int(lo) + 1), radix


def _packed(digits: list[tuple[pl.Expr, int]]) -> pl.Expr:
    """The digits packed into one key (``push_digit``); -1 when a digit is outside
    its radix (a profile no avatar can hold)."""
    key: pl.Expr = pl.lit(0, pl.Int64)
    valid: pl.Expr = pl.lit(True)
    for digit, radix in digits:
        d = digit.fill_null(0)
        key = push_digit(key, d, radix)
        valid = valid & (d >= 0) & (d < radix)
    return pl.when(valid).then(key).otherwise(-1)
