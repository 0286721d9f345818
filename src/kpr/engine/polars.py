"""The polars backend (and pandas and pyarrow inputs, which are read into polars).

The path is chosen by ``Tuning.table_path`` (``kpr.engine.tuning``):

- When both tables' known cells fit in the memory budget (``Tuning.memory_bytes``:
  half the memory available by default), both tables are read once into memory and
  counted with numpy (``kpr.engine.inmemory``): each row's group size from one hash
  of its known values, one sort (numbers) or one id per value (texts) per known
  variable for the statistics, the column profile and the identifying-variable
  counts, and the link on one packed integer per profile.
- Above it (a 100M-row Parquet file is not loaded), ``StreamedCounting``: each row
  hashed once for U (kept as a bit a row), each known column read alone and
  scanned with numpy (``kpr.engine.streamed``), and the link on packed profiles:
  digits computed by polars' streaming engine (numpy on each batch for the number
  columns, a table of hashes for the texts), the keys sorted (``sorted_link``).
  (Up to ``hashed_rows`` rows, which only tests reach there, plain group-bys and
  joins: the lazy queries DuckDB runs.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.engine import queries, streamed
from kpr.engine.inmemory import MemoryTables
from kpr.engine.inmemory.columns import number_dtype
from kpr.engine.inmemory.runs import singles
from kpr.engine.queries import Frame, Hooks, Scan, Tables
from kpr.engine.tuning import DEFAULT_TUNING, TablePath, Tuning
from kpr.metric.attack import Kind
from kpr.metric.binning import NumericBins
from kpr.metric.classes import DIGIT_OFFSET, code_radix, push_digit

_H = "__kpr_hash__"
_TEXT_TYPES = (pl.String, pl.Categorical, pl.Enum)


def _polars(frame: Frame) -> pl.LazyFrame:
    native = frame.to_native()
    assert isinstance(native, pl.LazyFrame)
    return native


class PolarsHooks(Hooks):
    """Lazy queries on polars' streaming engine, G by a group-by; the link on
    packed profiles, sorted (``packed``: ``TablePath.HASHED``), or by joins
    (``TablePath.GROUPED``)."""

    def __init__(
        self,
        packed: bool = False,
        texts: Mapping[str, pl.Series] | None = None,
        tuning: Tuning = DEFAULT_TUNING,
    ) -> None:
        self.packed = packed
        self.texts = texts or {}  # the original's distinct texts, by known column
        self.tuning = tuning

    def unique_values(self, original: Frame, known: Sequence[str]) -> dict[str, int] | None:
        lf = _polars(original)
        return {v: column_singles(lf, v) for v in known}

    def collect(self, frame: Frame) -> dict[str, Any]:
        out = _polars(frame).collect(engine="streaming")
        return {k: v[0] for k, v in out.to_dict(as_series=False).items()}

    def link(
        self, u: Frame, avatars: Frame, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]
    ) -> tuple[int, int]:
        keys = [queries.code_name(v) for v in kinds]
        if self.packed:
            counts = self._packed_link(_polars(u), _polars(avatars), kinds, bins, keys)
            if counts is not None:
                return counts
        coded = [queries.code_frame(f, kinds, bins, None) for f in (u, avatars)]
        coded_u, coded_a = (_polars(f).select(keys) for f in coded)
        return exact_link(coded_u, coded_a, keys)

    def _packed_link(
        self,
        u: pl.LazyFrame,
        a: pl.LazyFrame,
        kinds: Mapping[str, Kind],
        bins: Mapping[str, NumericBins],
        keys: list[str],
    ) -> tuple[int, int] | None:
        """m and |S| with each profile packed into one exact 64-bit integer
        (:func:`packed_keys`; polars' streaming group-by on several keys takes far
        more memory than on one integer key), counted by :func:`sorted_link`; the
        number columns' digits by numpy a batch at a time
        (``streamed.numeric_digit``) when each has them, else from their codes.
        None (use ``exact_link``) when the profiles cannot be packed."""
        texts = {queries.code_name(v): t for v, t in self.texts.items()}
        numbers = [f.collect_schema() for f in (u, a)]
        ready = {
            v: streamed.numeric_digit(v, b, self.tuning)
            if all(number_dtype(s[v]) for s in numbers)
            else None
            for v, b in bins.items()
        }
        if all(d is not None for d in ready.values()):
            digits = {v: d for v, d in ready.items() if d is not None}
            cols = [
                (digits[v][0] if v in digits else pl.col(v)).alias(queries.code_name(v))
                for v in kinds
            ]
            radices = {queries.code_name(v): d[1] for v, d in digits.items()}
            packed = packed_keys(
                u.select(cols), a.select(cols), keys, {}, texts, self.tuning, radices
            )
        else:
            coded = [queries.code_frame(nw.from_native(f), kinds, bins, None) for f in (u, a)]
            coded_u, coded_a = (_polars(f).select(keys) for f in coded)
            code_bins = {queries.code_name(v): b for v, b in bins.items()}
            packed = packed_keys(coded_u, coded_a, keys, code_bins, texts, self.tuning)
        return None if packed is None else sorted_link(packed[0], packed[1])


class MemoryCounting(queries.CountingState):
    """``queries.Counting`` on polars tables read into memory, counted with numpy
    (``kpr.engine.inmemory``): one scan per known variable instead of the two
    aggregation passes, G never built (U's rows made only if a command lists
    them), the link on packed profiles; a column with no digits there is linked
    by the lazy queries' join (``exact_link``)."""

    def __init__(self, tuning: Tuning = DEFAULT_TUNING) -> None:
        self.tuning = tuning
        self._tables: MemoryTables | None = None

    def scan(self, tables: Tables) -> Scan:
        kinds = tables.kinds
        memory = MemoryTables(_polars(tables.original), _polars(tables.avatars), kinds, self.tuning)
        self._tables = memory
        # every original row with its group's size: U is the rows of size 1
        self._keep(nw.from_native(memory.groups), tables.avatars)
        n, size_u, scans = memory.scan(kinds, tables.exact, tables.integers)
        moments = {v: s.moments for v, s in scans.items() if s.moments is not None}
        profile = {v: s.profile for v, s in scans.items()}
        texts = {v: s.texts for v, s in scans.items() if s.texts is not None}
        return Scan(n, size_u, moments, profile, {v: s.unique for v, s in scans.items()}, texts)

    def link(self, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]) -> tuple[int, int]:
        assert self._tables is not None, "scan first"
        counts = self._tables.link(bins)
        if counts is not None:
            return counts
        return PolarsHooks().link(self.unique(), self._kept_avatars(), kinds, bins)

    def release(self) -> None:
        if self._tables is not None:
            self._tables.close()
            self._tables = None


class StreamedCounting(queries.CountingState):
    """``queries.Counting`` of an original too large to hold (``TablePath.HASHED``):
    U's rows from one hash of each row, each known column read alone and counted
    with numpy (``kpr.engine.streamed``), the link by packed profiles sorted
    (``PolarsHooks``)."""

    def __init__(self, tuning: Tuning = DEFAULT_TUNING) -> None:
        self.tuning = tuning
        self._texts: dict[str, pl.Series] = {}

    def scan(self, tables: Tables) -> Scan:
        lf, kinds = _polars(tables.original), tables.kinds
        outside, size = streamed.outside_rows(lf, list(kinds), self.tuning)
        self._u = nw.from_native(streamed.unique_rows(lf, outside, size))
        self._avatars = tables.avatars
        scans, self._texts = streamed.column_scans(
            lf, kinds, outside, tables.exact, tables.integers, self.tuning
        )
        moments = {v: s.moments for v, s in scans.items() if s.moments is not None}
        profile = {v: s.profile for v, s in scans.items()}
        unique = {v: s.unique for v, s in scans.items()}
        return Scan(size, size - len(outside), moments, profile, unique)

    def link(self, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]) -> tuple[int, int]:
        hooks = PolarsHooks(packed=True, texts=self._texts, tuning=self.tuning)
        return hooks.link(self.unique(), self._kept_avatars(), kinds, bins)

    def release(self) -> None:
        return None


def polars_counting(
    original: Frame, tuning: Tuning = DEFAULT_TUNING, known: int = 1
) -> queries.Counting:
    """The counting path ``tuning`` chooses for the original's number of rows and the
    ``known`` variables counted (``Tuning.table_path``)."""
    path = tuning.table_path(_polars(original).select(pl.len()).collect().item(), known)
    if path is TablePath.MEMORY:
        return MemoryCounting(tuning)
    if path is TablePath.HASHED:
        return StreamedCounting(tuning)
    return queries.LazyCounting(PolarsHooks())


def column_singles(lf: pl.LazyFrame, name: str) -> int:
    """The rows whose value of one column no other row holds (missing and NaN each
    one value, as in ``is_unique``), one column read at a time: a numeric column's
    values sorted (8 bytes a row), other columns by a streaming group-by."""
    if not lf.collect_schema()[name].is_numeric():
        counts = lf.group_by(name).agg(pl.len().alias("c")).filter(pl.col("c") == 1)
        return int(counts.select(pl.len()).collect(engine="streaming").item())
    column = lf.select(name).collect(engine="streaming").to_series()
    nulls = column.null_count()
    values = column.drop_nulls()
    del column
    ordered = values.sort().to_numpy()  # NaN last
    del values
    nan = int(np.count_nonzero(np.isnan(ordered))) if ordered.dtype.kind == "f" else 0
    present = ordered[: len(ordered) - nan]
    return int(np.count_nonzero(singles(present))) + (nulls == 1) + (nan == 1)


def exact_link(u: pl.LazyFrame, a: pl.LazyFrame, keys: list[str]) -> tuple[int, int]:
    """m and |S|: polars joins can match null with null, so a semi-join of U's
    codes on the avatar profiles present once replaces the stacked group-by."""
    once = a.group_by(keys).agg(pl.len().alias("c")).filter(pl.col("c") == 1).drop("c")
    linked = u.join(once, on=keys, how="semi", nulls_equal=True).select(pl.len().alias("s"))
    s, m = pl.collect_all([linked, a.select(pl.len().alias("m"))], engine="streaming")
    return int(m.item()), int(s.item())


def sorted_link(u_keys: pl.LazyFrame, a_keys: pl.LazyFrame) -> tuple[int, int]:
    """m and |S| from packed keys too many to count in memory: the avatars' keys
    sorted (8 bytes a row; numpy's sort, about half the CPU of polars' here), only
    those present once kept; U's keys sorted, then looked up in them (a hash table
    of as many distinct keys would take far more)."""
    ordered = np.sort(a_keys.collect(engine="streaming").to_series().to_numpy())
    m = len(ordered)
    once = ordered[singles(ordered)]
    del ordered
    u_key = np.sort(
        u_keys.filter(pl.col(_H) >= 0).collect(engine="streaming").to_series().to_numpy()
    )
    linked = 0
    for start in range(0, len(u_key), _LOOKUP_BLOCK):
        block = u_key[start : start + _LOOKUP_BLOCK]
        at = np.minimum(np.searchsorted(once, block), len(once) - 1)
        linked += int(np.count_nonzero(once[at] == block)) if len(once) else 0
    return m, linked


#: U's sorted keys are looked up this many at a time (bounded temporary arrays).
_LOOKUP_BLOCK = 1 << 22


def packed_keys(
    u: pl.LazyFrame,
    a: pl.LazyFrame,
    keys: list[str],
    bins: Mapping[str, NumericBins],
    texts: Mapping[str, pl.Series],
    tuning: Tuning = DEFAULT_TUNING,
    radices: Mapping[str, int] | None = None,
) -> tuple[pl.LazyFrame, pl.LazyFrame, int] | None:
    """U's and the avatars' profiles, each packed into one exact int64 (column
    ``_H``; -1 for a U profile no avatar can hold), and the radix of the keys.

    Each code becomes a digit of a mixed-radix number
    (``kpr.metric.classes.push_digit``): numeric codes (special codes included)
    shifted to start at 0 (``+ DIGIT_OFFSET``), text values as their categorical
    ids (a table of their hashes when ``texts`` holds few: ``_text_digits``),
    booleans and integers as small offsets; missing is digit 0. The packing is
    injective, so the counts are exact. None when a column cannot be packed or the
    digits need more than 63 bits.
    """
    ready = radices or {}
    schema = a.collect_schema()
    rest = [k for k in keys if k not in bins and k not in ready]
    text = [k for k in rest if isinstance(schema[k], _TEXT_TYPES)]
    ints = [k for k in rest if schema[k].is_integer()]
    flags = [k for k in rest if schema[k] == pl.Boolean]
    if any(not b.int_codes for b in bins.values()) or len(text) + len(ints) + len(flags) != len(
        rest
    ):
        return None
    hashed = _text_digits(a, [k for k in text if k in texts], texts, tuning)
    cast = [k for k in text if k not in hashed]
    u, a = (_categorical_ids(f, cast) for f in (u, a))
    ranges = _avatar_ranges(a, cast, ints)
    digits: list[tuple[pl.Expr, int]] = []  # (digit, radix), digit in [0, radix) or -1
    for k in keys:
        if k in ready:  # digits already, in [0, radix)
            digits.append((pl.col(k), ready[k]))
        elif k in bins:
            digits.append((pl.col(k) + DIGIT_OFFSET, code_radix(bins[k])))
        elif k in flags:
            digits.append((pl.col(k).cast(pl.Int64) + 1, 3))
        elif k in hashed:
            digits.append(hashed[k])
        elif k in text:
            hi = ranges[f"{k}__hi"]
            digits.append((pl.col(k) + 1, 1 if hi is None else int(hi) + 2))
        elif (digit := _integer_digit(k, ranges[f"{k}__lo"], ranges[f"{k}__hi"])) is not None:
            digits.append(digit)
        else:
            return None
    total = math.prod(r for _, r in digits)
    if total >= 2**63:
        return None
    packed = _packed(digits).alias(_H)
    return u.select(packed), a.select(packed), total


def _categorical_ids(frame: pl.LazyFrame, text: list[str]) -> pl.LazyFrame:
    """Each value of the ``text`` columns as its categorical id (computed once per table)."""
    if not text:
        return frame
    ids = pl.col(text).cast(pl.String).cast(pl.Categorical).to_physical().cast(pl.Int64)
    return frame.with_columns(ids)


def _text_digits(
    a: pl.LazyFrame, text: list[str], texts: Mapping[str, pl.Series], tuning: Tuning
) -> dict[str, tuple[pl.Expr, int]]:
    """The digits of the text columns whose original holds few distinct texts, by a
    table of the texts of both tables (the avatars' found by one query)."""
    text = [k for k in text if len(texts[k]) <= tuning.few_texts]
    if not text:
        return {}
    found = pl.collect_all(
        [a.select(pl.col(k).cast(pl.String).unique()) for k in text], engine="streaming"
    )
    out: dict[str, tuple[pl.Expr, int]] = {}
    for k, theirs in zip(text, found, strict=True):
        both = pl.concat([texts[k].cast(pl.String), theirs.to_series()])
        digit = streamed.text_digit(k, both, tuning)
        if digit is not None:
            out[k] = digit
    return out


def _avatar_ranges(a: pl.LazyFrame, text: list[str], ints: list[str]) -> dict[str, Any]:
    """The avatars' largest text id and integer range, by column (``{k}__lo``,
    ``{k}__hi``), in one streaming query."""
    if not (text or ints):
        return {}
    return (
        a.select(
            *(pl.col(k).max().alias(f"{k}__hi") for k in text),
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
