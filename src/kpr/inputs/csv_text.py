"""What a CSV text column holds, read on polars: whether it has a value, holds
integers only, or which value is no number; and the expressions that parse it.
Spark's counterparts are in ``kpr.engine.spark``; the kind rule in
``kpr.inputs.kinds``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import polars as pl

from kpr.inputs.kinds import ColumnFacts, decide_kind
from kpr.inputs.kinds import text_facts as text_facts_of
from kpr.metric.attack import Kind

#: Rows :func:`polars_text_facts` looks at before the whole column.
_HEAD_ROWS = 1000

#: (some value present, every value an integer, the first value that is not a number)
TextFacts = tuple[bool, bool, str | None]


class EngineText(Protocol):
    """What the reconciler asks of the engine a side runs on, on narwhals frames: the
    engine's parsing answers (``kpr.engine.parsing.parsing_for``, given to the reconciler by
    its callers, so that the inputs layer imports no engine). ``text_facts`` is None
    when the engine cannot tell what a text column holds: it then parses no text."""

    def text_facts(self, frame: Any, name: str) -> TextFacts | None: ...

    def to_days(self, frame: Any, name: str, dtype: Any) -> Any: ...


@runtime_checkable
class TextParsing(EngineText, Protocol):
    """An engine that parses text itself (``kpr.engine.spark.SparkParsing``): numbers,
    NaN texts as missing, and whether a column holds ISO dates (``iso_facts(native, name)``, see
    ``kpr.inputs.dates.iso_text_facts``)."""

    def parse_number(self, frame: Any, name: str, integer: bool) -> Any: ...

    def nan_text_to_null(self, frame: Any, name: str) -> Any: ...

    def iso_facts(self, native: Any, name: str) -> str | bool | None: ...


def polars_text_facts(lf: pl.LazyFrame, name: str) -> TextFacts:
    """For a text column, in one query: (some value present, every value an
    integer, the first value that is not a number). A CSV column of integers
    read as Int64 (``compact``, see ``kpr.inputs.files``) needs no parsing."""
    col = pl.col(name)
    present = col.is_not_null()
    dtype = lf.collect_schema()[name]
    if dtype.is_integer():
        return bool(lf.select(present.any()).collect().item()), True, None
    if dtype.is_float():  # held as Float64: text such as 30.5 or 1e+16, no integer
        return bool(lf.select((present & ~col.is_nan()).any()).collect().item()), False, None
    textual = isinstance(dtype, pl.String)
    number = _trimmed(name).cast(pl.Float64, strict=False)
    first_bad = col.filter(present & number.is_null()).first().cast(pl.String)
    not_integer = (present & _trimmed(name).cast(pl.Int64, strict=False).is_null()).any()
    # the first rows first: a column of words has its first non-number there, and
    # then holds a value that is no integer (no need to read the rest); a column of
    # decimals has a value that is no integer there
    head = lf.head(_HEAD_ROWS).select(first_bad.alias("bad"), not_integer.alias("not_int"))
    bad, not_int = head.collect().row(0)
    if bad is not None:
        return True, False, bad
    some, not_nan, bad, *rest = (
        lf.select(
            present.any().alias("some"),
            (present & ~number.is_nan().fill_null(False)).any().alias("not_nan"),
            first_bad.alias("bad"),
            *([] if not_int else [not_integer.alias("not_int")]),
        )
        .collect()
        .row(0)
    )
    not_int = not_int or rest[0]
    # a column of numbers holds a value when some number is not NaN (NaN is missing)
    return bool(some if bad is not None else not_nan), textual and not not_int, bad


def nan_text_is_missing(name: str) -> pl.Expr:
    """A CSV text column kept as text (not numeric by kind) in which every value is a
    number: its NaN texts become missing, as NaN is in a float column of a frame (a
    frame written to CSV writes its NaN as ``NaN``). In a column holding other text,
    ``NaN`` is a category like any word."""
    col = pl.col(name)
    number = _trimmed(name).cast(pl.Float64, strict=False)
    numbers_only = ~(col.is_not_null() & number.is_null()).any()
    return pl.when(numbers_only & number.is_nan()).then(None).otherwise(col).alias(name)


def _trimmed(name: str) -> pl.Expr:
    """A text column without surrounding spaces: ``" 30 "`` is the number 30."""
    return pl.col(name).cast(pl.String).str.strip_chars()


def text_to_number(name: str, facts: TextFacts) -> pl.Expr:
    """Text of integers becomes Int64 (so warnings can see integer columns), else
    Float64; a column read as numbers already (``compact``) is only cast."""
    target = pl.Int64 if facts[1] else pl.Float64
    return pl.col(name).map_batches(
        lambda values: _to_number(values, target), return_dtype=target, is_elementwise=True
    )


def _to_number(values: pl.Series, target: type[pl.Int64 | pl.Float64]) -> pl.Series:
    """Numbers, or text of numbers (spaces trimmed, only where a value has some), as
    ``target``; a value that is no number raises, as a strict cast does."""
    if values.dtype.is_numeric():
        return values.cast(target)
    text = values.cast(pl.String)
    got = text.cast(target, strict=False)
    if got.null_count() == text.null_count():
        return got
    return text.str.strip_chars().cast(target)


def text_column_facts(
    facts: TextFacts, iso_dates: Callable[[], bool] = lambda: False
) -> ColumnFacts:
    """What the kind rule needs to know of a CSV text column."""
    some, _ints, bad = facts
    return text_facts_of(some, bad is None, iso_dates)


def all_numbers(facts: TextFacts) -> bool:
    """Whether a CSV text column is numeric by the kind rule (numbers only, at least one)."""
    return decide_kind(text_column_facts(facts)) is Kind.NUMERIC
