"""Turning what the user gives (frames of any library, or file paths) into two
narwhals LazyFrames that hold only the known columns, with agreed dtypes and
kinds, ready for the engine.

Kinds follow the one rule of ``kpr.inputs.kinds`` (decided on the original table):
numeric, date or categorical. Both tables must agree; a disagreement is an error
that names the column and one offending value.

Loading each table is ``kpr.inputs.sides``; what a CSV text column holds, on
polars, is ``kpr.inputs.csv_text``; this module reconciles the two sides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import narwhals as nw
import polars as pl

from kpr.errors import InputError, shown
from kpr.inputs import dates
from kpr.inputs.csv_text import (
    EngineText,
    TextFacts,
    TextParsing,
    nan_text_is_missing,
    polars_text_facts,
    text_column_facts,
    text_to_number,
)
from kpr.inputs.kinds import ColumnFacts, TypeClass, decide_kind, not_numeric, type_class
from kpr.inputs.markers import MarkerCount
from kpr.inputs.reading import ReadSettings
from kpr.inputs.sides import Side, load_side
from kpr.metric.attack import ROW, Attack, Kind


def row_name(known: Sequence[str]) -> str:
    """A row-position column name that is not a known column's name."""
    name = ROW
    while name in known:
        name += "_"
    return name


_TEXT = (nw.String, nw.Categorical, nw.Enum)


@dataclass
class Prepared:
    """Both tables, restricted to the known columns, with their kinds decided."""

    original: nw.LazyFrame[Any]
    avatars: nw.LazyFrame[Any]
    kinds: dict[str, Kind]
    has_rows: bool  # row ids in column ``row``: positions (polars, files) or a row_id column
    row: str = ROW  # the row-id column: never a known column's name
    #: per known variable, original rows whose value no other row has (filled on demand)
    unique_values: dict[str, int] = field(default_factory=dict)
    library: str = "polars"  # of the original input (pandas, pyarrow or polars)
    #: the user's row-id column, when ``row`` holds its ids rather than positions
    row_id: str | None = None
    #: numeric known variables that hold durations (a width in time units suits them)
    durations: frozenset[str] = frozenset()
    #: per known text variable, the missing-value markers the original holds (filled
    #: on demand, :func:`kpr.inputs.markers.marker_counts`)
    markers: dict[str, MarkerCount] = field(default_factory=dict)


def _example(side: Side, name: str) -> str:
    frame = side.frame if side.is_polars else None
    if isinstance(frame, pl.LazyFrame):
        value = frame.select(pl.col(name).drop_nulls().first()).collect().item()
        return shown(value)
    try:
        lf = side.frame
        assert isinstance(lf, nw.LazyFrame)
        got = lf.filter(~nw.col(name).is_null()).select(name).head(1).collect()
        return shown(got[name][0]) if len(got) else "?"
    except Exception:  # an example is a nicety
        return "?"


@dataclass(frozen=True)
class _Days:
    """Replace a typed date, datetime or duration column by its days (``kpr.inputs.dates``)."""

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
            parsing = side.parsing
            side.facts[name] = (
                None if parsing is None else parsing(side.frame).text_facts(side.frame, name)
            )
    return side.facts[name]


def _engine_text(side: Side, frame: Any) -> EngineText:
    """The input parsing of the engine ``frame`` (a narwhals frame of ``side``) runs on."""
    if side.parsing is None:
        raise InputError(f"{side.label}: kpr cannot parse the text columns of this engine")
    return side.parsing(frame)


def _parsing(side: Side, frame: Any) -> TextParsing:
    """The parsing of an engine that parses text itself (Spark), or a one-line error."""
    parsing = _engine_text(side, frame)
    if not isinstance(parsing, TextParsing):
        raise InputError(f"{side.label}: kpr cannot parse the text columns of this engine")
    return parsing


def _schema(side: Side) -> Any:
    """The side's narwhals schema, walked once per frame (kinds and casts ask for
    dtypes many times; a new frame, after a cast, is walked again)."""
    if side.schema_of is not side.frame:
        frame: Any = nw.from_native(side.frame) if side.is_polars else side.frame
        side.schema, side.schema_of = frame.collect_schema(), side.frame
    return side.schema


def _dtype(side: Side, name: str) -> Any:
    return _schema(side)[name]


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


def _has_value(side: Side, name: str) -> bool:
    """Whether a typed column holds at least one value (not null, not NaN); one
    query answers it for every numeric column of the side, the first time: on
    the first rows, then on every row for the columns with no value there (so
    a large file is usually not read for it)."""
    if name not in side.present:
        frame: Any = nw.from_native(side.frame) if side.is_polars else side.frame
        schema = _schema(side)
        numeric = [n for n, t in schema.items() if t.is_numeric() or t.is_temporal()]
        for rows in (frame.head(_PROBE_ROWS), frame):
            exprs = []
            for n in (n for n in numeric if not side.present.get(n)):
                present = ~nw.col(n).is_null()
                if schema[n].is_float():
                    present = present & ~nw.col(n).is_nan()
                exprs.append(present.any().alias(n))
            if exprs:
                got = rows.select(exprs).collect().to_dict(as_series=False)
                side.present.update({n: bool(v[0]) for n, v in got.items()})
    return side.present[name]


#: Rows :func:`_has_value` looks at first.
_PROBE_ROWS = 10_000


def _column_facts(side: Side, name: str) -> ColumnFacts:
    if side.untyped:
        facts = _text_facts(side, name)
        if facts is None:
            raise InputError(
                f"{side.label}: text columns cannot be parsed as numbers on this engine"
            )
        return text_column_facts(facts, lambda: _iso_dates(side, name))
    cls = TypeClass.CATEGORY if name in side.categories else type_class(_dtype(side, name))
    if cls in (TypeClass.CATEGORY, TypeClass.TEXT, TypeClass.OTHER):  # no query needed
        return ColumnFacts(cls)
    return ColumnFacts(cls, any_value=_has_value(side, name))


def _decide_kind(original: Side, name: str, declared: Kind | None) -> tuple[Kind, bool]:
    """The kind (by ``kpr.inputs.kinds``) and whether the original holds any value."""
    if declared is not None:
        return declared, True
    facts = _column_facts(original, name)
    return decide_kind(facts), facts.any_value


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
    return _parsing(side, frame).iso_facts(frame.to_native(), name)


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
    if dtype.is_numeric() and (not side.untyped or dtype.is_integer()):
        return None  # a number already (CSV integers come as Int64, see read_table)
    if not side.untyped and dates.is_duration(dtype):
        return _Days(dtype)
    textual = side.untyped or any(dtype == t for t in _TEXT)
    facts = _text_facts(side, name) if textual and (side.untyped or declared) else None
    if facts is not None and facts[2] is None:
        return text_to_number(name, facts) if side.is_polars else _Parse(integer=facts[1])
    hint = f"e.g. {shown(facts[2])}" if facts is not None else f"e.g. {_example(side, name)}"
    raise not_numeric(name, other.label, _describe(side, dtype), side.label, hint)


def _nan_text_missing(side: Side, name: str) -> None:
    """A CSV text column kept as text: NaN is missing in it when every value is a
    number (see :func:`nan_text_is_missing`; on Spark, ``nan_text_to_null``)."""
    if not side.untyped or _dtype(side, name) != nw.String:
        return
    lf = side.frame
    facts = _text_facts(side, name)
    if facts is not None and facts[2] is not None:  # a word: NaN is a category here
        return
    if isinstance(lf, pl.LazyFrame):
        side.frame = lf.with_columns(nan_text_is_missing(name))
        return
    if facts is not None and facts[2] is None:  # numbers only (Spark)
        side.frame = _parsing(side, lf).nan_text_to_null(lf, name)


def _empty_takes_avatar_type(o: Side, a: Side, name: str) -> None:
    """An original column with no value (categorical by the kind rule) is compared
    in the avatars' type: its nulls cast to any type on polars; elsewhere two
    numeric types meet in float64 (NaN is missing there)."""
    do, da = _dtype(o, name), _dtype(a, name)
    if do == da:
        return
    if o.is_polars:  # a typed null column (NaN would become the text "NaN")
        frame = nw.from_native(o.frame).with_columns(nw.lit(None).cast(da).alias(name))
        o.frame = frame.to_native()
    elif do.is_numeric() and da.is_numeric():
        _cast(o, name, nw.Float64)
        _cast(a, name, nw.Float64)


def _categorical_target(o: Side, a: Side, name: str) -> Any | None:
    """The common dtype both sides' values are compared in (None: keep as they are).

    Values are compared exactly: integers stay integers (never through float64,
    which merges values beyond 2**53), decimals stay decimals."""
    do, da = _dtype(o, name), _dtype(a, name)
    to, ta = _describe(o, do), _describe(a, da)
    if to == "text" and ta == "text":
        return nw.String
    if do == da:
        return None
    if to == "numeric" and ta == "numeric":
        if do.is_integer() and da.is_integer():
            return nw.String if nw.UInt64 in (do, da) else nw.Int64
        if do.is_float() and da.is_float():
            return nw.Float64
        if (do.is_integer() or da.is_integer()) and (do.is_float() or da.is_float()):
            ints = o if do.is_integer() else a
            if _max_abs(ints, name) <= 2**53:  # every such integer is a float64 exactly
                return nw.Float64
    if (o.untyped and da.is_integer()) or (a.untyped and do.is_integer()):
        return nw.String
    side, other = a, o  # the original is the reference
    raise InputError(
        f"column {name!r} is {_describe(other, _dtype(other, name))} ({_dtype(other, name)}) "
        f"in {other.label} but {_describe(side, _dtype(side, name))} ({_dtype(side, name)}) "
        f"in {side.label} (e.g. {_example(side, name)}); give both tables the same type for it"
    )


def _max_abs(side: Side, name: str) -> int:
    """The largest magnitude of an integer column (0 when empty)."""
    col = nw.col(name)
    frame: Any = nw.from_native(side.frame) if side.is_polars else side.frame
    got = (
        frame.select(col.max().alias("hi"), col.min().alias("lo"))
        .collect()
        .to_dict(as_series=False)
    )
    return max(abs(int(got["hi"][0] or 0)), abs(int(got["lo"][0] or 0)))


def _row_ids(side: Side, row: str) -> nw.Expr:
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
    return nw.col(name).cast(nw.Int64).alias(row)


def _wrap(
    side: Side, exprs: Mapping[str, Any], kinds: Mapping[str, Kind], row: str
) -> nw.LazyFrame[Any]:
    """Apply the casts, normalise float missing values, add row ids in column ``row``
    (positions, or the ``row_id`` column)."""
    source = side.row
    rows = _row_ids(side, row) if source is not None else None
    if (
        source is not None
        and side.untyped
        and not side.is_polars
        and _dtype(side, source) == nw.String
    ):
        side.frame = _parsing(side, side.frame).parse_number(side.frame, source, True)
    if side.is_polars:
        assert isinstance(side.frame, pl.LazyFrame)
        lf = side.frame
        pl_casts = [e.alias(n) for n, e in exprs.items() if isinstance(e, pl.Expr)]
        if source is not None:
            pl_casts.append(pl.col(source).cast(pl.Int64, strict=True).alias(row))
        if pl_casts:
            lf = lf.with_columns(pl_casts)
        if rows is None:
            lf = lf.with_row_index(row)
        frame = nw.from_native(lf)
    else:
        frame = side.frame  # type: ignore[assignment]
        for n, e in exprs.items():
            if isinstance(e, _Parse):
                frame = _parsing(side, frame).parse_number(frame, n, e.integer)
    nw_casts = [
        nw.col(n).cast(t) for n, t in exprs.items() if not isinstance(t, pl.Expr | _Parse | _Days)
    ]
    if rows is not None and not side.is_polars:
        nw_casts.append(rows)
    if nw_casts:
        frame = frame.with_columns(nw_casts)
    if source is not None and source not in kinds and source != row:
        frame = frame.drop(source)
    for n, e in exprs.items():
        if isinstance(e, _Days):
            frame = _engine_text(side, frame).to_days(frame, n, e.dtype)
    schema = frame.collect_schema()
    floats = [n for n in kinds if schema[n].is_float()]
    if floats:  # NaN is missing, like null: one class
        frame = frame.with_columns(nw.col(n).fill_nan(None) for n in floats)
    return frame


def prepare(
    original: object,
    avatars: object,
    attack: Attack,
    read: ReadSettings | None = None,
    names: tuple[str, str] = ("original", "avatars"),
    row_id: str | None = None,
    parsing: Callable[[Any], EngineText] | None = None,
) -> Prepared:
    """Load both inputs and agree on kinds and dtypes. ``row_id`` names a column of
    integer ids in both tables that identifies rows (default: positions, which
    only polars-backed inputs and files read by polars have); ``parsing``: the input
    parsing of the engine a frame runs on (``kpr.engine.parsing.parsing_for``), which convert dates
    and, on Spark, parse text."""
    read = read or ReadSettings()
    o = load_side(original, attack.known, names[0], read, row_id)
    a = load_side(avatars, attack.known, names[1], read, row_id)
    return reconcile(o, a, attack, parsing)


def reconcile(
    o: Side, a: Side, attack: Attack, parsing: Callable[[Any], EngineText] | None = None
) -> Prepared:
    """Agree on the kinds and dtypes of two loaded sides (``prepare`` after loading;
    ``kpr.utility`` loads its sides itself, every column of the tables)."""
    o.parsing = a.parsing = parsing
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
        kind, any_value = _decide_kind(o, name, declared)
        kinds[name] = kind
        if not any_value:
            _empty_takes_avatar_type(o, a, name)
        if kind is Kind.DATE:
            o_casts[name] = _date_expr(o, name, a)
            a_casts[name] = _date_expr(a, name, o)
        elif kind is Kind.NUMERIC:
            for side, other, casts in ((o, a, o_casts), (a, o, a_casts)):
                expr = _numeric_expr(side, name, declared is Kind.NUMERIC, other)
                if expr is not None:
                    casts[name] = expr
        else:
            _nan_text_missing(o, name)
            _nan_text_missing(a, name)
            target = _categorical_target(o, a, name)
            if target is not None:
                o_casts[name] = target
                a_casts[name] = target
    row = row_name(attack.known)
    return Prepared(
        original=_wrap(o, o_casts, kinds, row),
        avatars=_wrap(a, a_casts, kinds, row),
        kinds=kinds,
        has_rows=o.is_polars or o.row is not None,
        row=row,
        row_id=o.row,
        durations=frozenset(
            n for n in attack.known if not o.untyped and dates.is_duration(_dtype(o, n))
        ),
    )


__all__ = ["ROW", "Prepared", "prepare", "reconcile"]
