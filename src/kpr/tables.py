"""Turning what the user gives (frames of any library, or file paths) into two
narwhals LazyFrames that hold only the known columns, with agreed dtypes and
kinds, ready for the engine.

Kinds follow the spec: numeric when the original column has a numeric type
(not boolean) or is a duration, date when it holds dates or datetimes (or CSV
text of ISO dates), categorical otherwise, unless declared. Both tables must agree;
a disagreement is an error that names the column and one offending value.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import narwhals as nw
import polars as pl

from kpr.engine.backends import ReadTable, parse_number, text_facts
from kpr.errors import InputError
from kpr.io import dates
from kpr.io.readers import CsvOptions, check_columns, read_table
from kpr.metric.plan import Attack, Kind

#: Name of the row-position column the engine carries (never a user column).
ROW = "__kpr_row__"

_TEXT = (nw.String, nw.Categorical, nw.Enum)

#: (some value present, every value an integer, the first value that is not a number)
TextFacts = tuple[bool, bool, str | None]


@dataclass
class Side:
    """One input table, read but not yet reconciled with the other one."""

    frame: pl.LazyFrame | nw.LazyFrame[Any]
    untyped: bool  # every known column is text still to be parsed (CSV)
    label: str
    facts: dict[str, TextFacts | None] = field(default_factory=dict)  # see _text_facts
    row: str | None = None  # the column that identifies rows (else positions, polars only)

    @property
    def is_polars(self) -> bool:
        return isinstance(self.frame, pl.LazyFrame)


@dataclass
class Prepared:
    """Both tables, restricted to the known columns, with their kinds decided."""

    original: nw.LazyFrame[Any]
    avatars: nw.LazyFrame[Any]
    kinds: dict[str, Kind]
    has_rows: bool  # row ids in column ROW: positions (polars, files) or a row_id column


def _is_path(obj: object) -> bool:
    return isinstance(obj, str | os.PathLike)


def load_side(
    obj: object, known: Sequence[str], label: str, csv: CsvOptions, row_id: str | None = None
) -> Side:
    """Read one input, keep only the known columns (and the ``row_id`` column)."""
    if row_id is not None:
        side = load_side(obj, [*known, *([row_id] if row_id not in known else [])], label, csv)
        side.row = row_id
        return side
    if _is_path(obj):
        loaded = read_table(obj, known, csv, label)  # type: ignore[arg-type]
        return Side(loaded.frame, loaded.untyped, loaded.label)
    if isinstance(obj, pl.DataFrame | pl.LazyFrame):
        lf = obj.lazy()
        check_columns(lf.collect_schema().names(), known, label)
        return Side(lf.select(list(known)), False, label)
    if isinstance(obj, ReadTable):  # a file read by another engine (Spark)
        frame = nw.from_native(obj.frame).lazy()
        check_columns(frame.collect_schema().names(), known, obj.label)
        columns = [*known, *([obj.row] if obj.row and obj.row not in known else [])]
        return Side(frame.select(columns), obj.untyped, obj.label, row=obj.row)
    module = type(obj).__module__.split(".")[0]
    if module == "pandas":
        columns = [str(c) for c in obj.columns]  # type: ignore[attr-defined]
        check_columns(columns, known, label)
        try:
            frame = pl.from_pandas(obj[list(known)])  # type: ignore[index]
        except Exception as exc:
            raise InputError(
                f"{label}: a known column mixes value types ({str(exc).splitlines()[0]}); "
                "give each column one type"
            ) from None
        return Side(frame.lazy(), False, label)
    if module == "pyarrow":
        check_columns(list(obj.column_names), known, label)  # type: ignore[attr-defined]
        table = pl.from_arrow(obj.select(list(known)))  # type: ignore[attr-defined]
        assert isinstance(table, pl.DataFrame)
        return Side(table.lazy(), False, label)
    try:
        with warnings.catch_warnings():  # narwhals' notice that Dask moves to a plugin
            warnings.filterwarnings("ignore", "Dask support", FutureWarning)
            native = nw.from_native(obj)  # type: ignore[call-overload]
    except TypeError:
        raise InputError(
            f"{label}: unsupported input of type {type(obj).__name__}; give a pandas or "
            "polars DataFrame, a pyarrow Table, a DuckDB relation, a Spark or Dask DataFrame, "
            "or a CSV/Parquet path"
        ) from None
    lazy = native.lazy()
    check_columns(lazy.collect_schema().names(), known, label)
    return Side(lazy.select(list(known)), False, label)


def polars_text_facts(lf: pl.LazyFrame, name: str) -> TextFacts:
    """For a text column, in one query: (some value present, every value an
    integer, the first value that is not a number)."""
    col = pl.col(name)
    present = col.is_not_null()
    textual = isinstance(lf.collect_schema()[name], pl.String)
    some, not_int, bad = (
        lf.select(
            present.any().alias("some"),
            (present & col.cast(pl.Int64, strict=False).is_null()).any().alias("not_int"),
            col.filter(present & col.cast(pl.Float64, strict=False).is_null())
            .first()
            .cast(pl.String)
            .alias("bad"),
        )
        .collect()
        .row(0)
    )
    return bool(some), textual and not not_int, bad


def text_to_number(name: str, facts: TextFacts) -> pl.Expr:
    """Text of integers becomes Int64 (so warnings can see integer columns), else Float64."""
    return pl.col(name).cast(pl.Int64 if facts[1] else pl.Float64)


def all_numbers(facts: TextFacts) -> bool:
    """Whether a text column holds numbers only (and at least one)."""
    some, _ints, bad = facts
    return some and bad is None


def _example(side: Side, name: str) -> str:
    frame = side.frame if side.is_polars else None
    if isinstance(frame, pl.LazyFrame):
        value = frame.select(pl.col(name).drop_nulls().first()).collect().item()
        return repr(value)
    try:
        lf = side.frame
        assert isinstance(lf, nw.LazyFrame)
        got = lf.filter(~nw.col(name).is_null()).select(name).head(1).collect()
        return repr(got[name][0]) if len(got) else "?"
    except Exception:  # an example is a nicety
        return "?"


@dataclass(frozen=True)
class _Days:
    """Replace a typed date, datetime or duration column by its days (``kpr.io.dates``)."""

    dtype: Any


@dataclass(frozen=True)
class _Parse:
    """Parse a text column of a non-polars side into numbers (``integer``: Int64)."""

    integer: bool


def _text_facts(side: Side, name: str) -> TextFacts | None:
    """The text facts of one column, computed once per side (None: this backend
    cannot parse text)."""
    if name not in side.facts:
        if isinstance(side.frame, pl.LazyFrame):
            side.facts[name] = polars_text_facts(side.frame, name)
        else:
            side.facts[name] = text_facts(side.frame, name)
    return side.facts[name]


def _dtype(side: Side, name: str) -> Any:
    return (
        nw.from_native(side.frame).collect_schema()[name]
        if side.is_polars
        else (side.frame.collect_schema()[name])
    )


def _cast(side: Side, name: str, dtype: Any) -> None:
    frame = nw.from_native(side.frame).with_columns(nw.col(name).cast(dtype))
    side.frame = frame.to_native() if side.is_polars else frame


def _adopt_null_type(o: Side, a: Side, name: str) -> None:
    """A column with no values at all (null type) takes the other table's type."""
    do, da = _dtype(o, name), _dtype(a, name)
    if do == nw.Unknown and da == nw.Unknown:
        _cast(o, name, nw.String)
        _cast(a, name, nw.String)
    elif do == nw.Unknown:
        _cast(o, name, da)
    elif da == nw.Unknown:
        _cast(a, name, do)


def _decide_kind(original: Side, name: str, declared: Kind | None) -> Kind:
    if declared is not None:
        return declared
    if original.untyped:
        facts = _text_facts(original, name)
        if facts is None:
            raise InputError(
                f"{original.label}: text columns cannot be parsed as numbers on this engine"
            )
        if all_numbers(facts):
            return Kind.NUMERIC
        return Kind.DATE if _iso_dates(original, name) else Kind.CATEGORICAL
    dtype = _dtype(original, name)
    if dates.is_temporal(dtype):
        return Kind.DATE
    return Kind.NUMERIC if dtype.is_numeric() or dates.is_duration(dtype) else Kind.CATEGORICAL


def _iso_dates(side: Side, name: str) -> bool:
    """Whether a CSV text column holds ISO dates only (and at least one)."""
    return _reads_text_dates(side) and _iso_facts(side, name) is None


def _reads_text_dates(side: Side) -> bool:
    """polars and Spark parse ISO text into dates; other backends do not."""
    frame = side.frame
    return isinstance(frame, pl.LazyFrame) or frame.implementation.is_pyspark()


def _iso_facts(side: Side, name: str) -> str | bool | None:
    """None when every value of a text column is an ISO date, False when it has
    no value, else the first value that is not (polars and Spark)."""
    frame = side.frame
    if isinstance(frame, pl.LazyFrame):
        return dates.iso_text_facts(frame.select(pl.col(name).cast(pl.String)), name)
    return dates.spark_iso_facts(frame.to_native(), name)


def _date_expr(side: Side, name: str, other: Side) -> pl.Expr | _Days:
    """How to turn one side's column into days, or raise naming an offending value."""
    dtype = _dtype(side, name)
    if not side.untyped and dates.is_temporal(dtype):
        return _Days(dtype)
    textual = side.untyped or any(dtype == t for t in _TEXT)
    if textual and _reads_text_dates(side) and (side.is_polars or dtype == nw.String):
        bad = _iso_facts(side, name)
        if bad is None or bad is False:
            return dates.text_to_days(name) if side.is_polars else _Days(nw.String)
        hint = f"e.g. {bad!r}"
    elif textual:
        hint = "text dates are read on polars and Spark only"
    else:
        hint = f"e.g. {_example(side, name)}"
    raise InputError(
        f"column {name!r} is a date in {other.label} but {_describe(side, dtype)} in "
        f"{side.label} ({hint}); write dates as ISO 8601 (2024-03-01, 2024-03-01T12:00:00), "
        f"or declare the column categorical (--categorical / kinds={{{name!r}: 'categorical'}})"
    )


def _describe(side: Side, dtype: Any) -> str:
    if side.untyped:
        return "text"
    if dtype.is_numeric():
        return "numeric"
    if any(dtype == t for t in _TEXT):
        return "text"
    return str(dtype)


def _numeric_expr(
    side: Side, name: str, declared: bool, other: Side
) -> pl.Expr | _Parse | _Days | None:
    """How to make one side's column numeric, or raise naming an offending value."""
    dtype = _dtype(side, name)
    if not side.untyped and dtype.is_numeric():
        return None
    if not side.untyped and dates.is_duration(dtype):
        return _Days(dtype)
    textual = side.untyped or any(dtype == t for t in _TEXT)
    facts = _text_facts(side, name) if textual and (side.untyped or declared) else None
    if facts is not None and facts[2] is None:
        return text_to_number(name, facts) if side.is_polars else _Parse(integer=facts[1])
    hint = f"e.g. {facts[2]!r}" if facts is not None else f"e.g. {_example(side, name)}"
    raise InputError(
        f"column {name!r} is numeric in {other.label} but {_describe(side, dtype)} in "
        f"{side.label} ({hint}); fix that value, or declare the column categorical "
        f"(--categorical / kinds={{{name!r}: 'categorical'}})"
    )


def _categorical_target(o: Side, a: Side, name: str) -> Any | None:
    """The common dtype both sides' values are compared in (None: keep as they are)."""
    do, da = _dtype(o, name), _dtype(a, name)
    to, ta = _describe(o, do), _describe(a, da)
    if to == "text" and ta == "text":
        return nw.String
    if to == "numeric" and ta == "numeric":
        return nw.Int64 if do.is_integer() and da.is_integer() else nw.Float64
    if do == da:
        return None
    if (o.untyped and da.is_integer()) or (a.untyped and do.is_integer()):
        return nw.String
    side, other = a, o  # the original is the reference
    raise InputError(
        f"column {name!r} is {_describe(other, _dtype(other, name))} in {other.label} but "
        f"{_describe(side, _dtype(side, name))} in {side.label} "
        f"(e.g. {_example(side, name)}); give both tables the same type for it"
    )


def _row_ids(side: Side) -> nw.Expr:
    """The ``row_id`` column as Int64, or an error naming a value that is not a whole number."""
    assert side.row is not None
    name = side.row
    if side.untyped and any(_dtype(side, name) == t for t in _TEXT):
        facts = _text_facts(side, name)
        ok = facts is not None and facts[1] and facts[2] is None
    else:
        ok = _dtype(side, name).is_integer()
    if not ok:
        raise InputError(
            f"{side.label}: the row id column {name!r} must hold whole numbers "
            f"(e.g. {_example(side, name)}); name a column of integer ids"
        )
    return nw.col(name).cast(nw.Int64).alias(ROW)


def _wrap(side: Side, exprs: Mapping[str, Any], kinds: Mapping[str, Kind]) -> nw.LazyFrame[Any]:
    """Apply the casts, normalise float missing values, add row ids (positions, or
    the ``row_id`` column)."""
    row = side.row
    rows = _row_ids(side) if row is not None else None
    if row is not None and side.untyped and not side.is_polars and _dtype(side, row) == nw.String:
        side.frame = parse_number(side.frame, row, integer=True)  # type: ignore[arg-type]
    if side.is_polars:
        assert isinstance(side.frame, pl.LazyFrame)
        lf = side.frame
        pl_casts = [e.alias(n) for n, e in exprs.items() if isinstance(e, pl.Expr)]
        if row is not None:
            pl_casts.append(pl.col(row).cast(pl.Int64, strict=True).alias(ROW))
        if pl_casts:
            lf = lf.with_columns(pl_casts)
        if rows is None:
            lf = lf.with_row_index(ROW)
        frame = nw.from_native(lf)
    else:
        frame = side.frame  # type: ignore[assignment]
        for n, e in exprs.items():
            if isinstance(e, _Parse):
                frame = parse_number(frame, n, e.integer)
    nw_casts = [
        nw.col(n).cast(t) for n, t in exprs.items() if not isinstance(t, pl.Expr | _Parse | _Days)
    ]
    if rows is not None and not side.is_polars:
        nw_casts.append(rows)
    if nw_casts:
        frame = frame.with_columns(nw_casts)
    if side.row is not None and side.row not in kinds:
        frame = frame.drop(side.row)
    for n, e in exprs.items():
        if isinstance(e, _Days):
            frame = dates.to_days(frame, n, e.dtype)
    schema = frame.collect_schema()
    floats = [n for n in kinds if schema[n].is_float()]
    if floats:  # NaN is missing, like null: one class
        frame = frame.with_columns(nw.col(n).fill_nan(None) for n in floats)
    return frame


def prepare(
    original: object,
    avatars: object,
    attack: Attack,
    csv: CsvOptions | None = None,
    roles: tuple[str, str] = ("original", "avatars"),
    row_id: str | None = None,
) -> Prepared:
    """Load both inputs and agree on kinds and dtypes. ``row_id`` names a column of
    integer ids in both tables that identifies rows (default: positions, which
    only polars-backed inputs and files read by polars have)."""
    csv = csv or CsvOptions()
    o = load_side(original, attack.known, roles[0], csv, row_id)
    a = load_side(avatars, attack.known, roles[1], csv, row_id)
    if (o.row is None) != (a.row is None):
        raise InputError("only one table was read with row positions; read both the same way")
    if o.is_polars != a.is_polars:
        raise InputError(
            "original and avatars must come from the same engine; convert one of them "
            "(e.g. both polars/pandas/files, or both DuckDB)"
        )
    if not o.is_polars:
        impl_o = nw.get_native_namespace(o.frame)
        impl_a = nw.get_native_namespace(a.frame)
        if impl_o is not impl_a:
            raise InputError("original and avatars must come from the same engine")
    for name in attack.known:
        _adopt_null_type(o, a, name)
    kinds: dict[str, Kind] = {}
    o_casts: dict[str, Any] = {}
    a_casts: dict[str, Any] = {}
    for name in attack.known:
        declared = attack.kinds.get(name)
        kind = _decide_kind(o, name, declared)
        kinds[name] = kind
        if kind is Kind.DATE:
            o_casts[name] = _date_expr(o, name, a)
            a_casts[name] = _date_expr(a, name, o)
        elif kind is Kind.NUMERIC:
            for side, other, casts in ((o, a, o_casts), (a, o, a_casts)):
                expr = _numeric_expr(side, name, declared is Kind.NUMERIC, other)
                if expr is not None:
                    casts[name] = expr
        else:
            target = _categorical_target(o, a, name)
            if target is not None:
                o_casts[name] = target
                a_casts[name] = target
    return Prepared(
        original=_wrap(o, o_casts, kinds),
        avatars=_wrap(a, a_casts, kinds),
        kinds=kinds,
        has_rows=o.is_polars or o.row is not None,
    )


__all__ = ["ROW", "Prepared", "prepare"]
