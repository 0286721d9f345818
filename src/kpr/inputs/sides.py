"""Loading one input (a frame of any library, a file path, or a table another
engine read) into a ``Side``: the known columns only, under the names the user
gave, not yet reconciled with the other table (``kpr.inputs.reconcile`` does that)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import narwhals as nw
import polars as pl

from kpr.errors import InputError, first_line, shown
from kpr.inputs.csv_text import EngineText, TextFacts
from kpr.inputs.engine_table import EngineTable
from kpr.inputs.files import Loaded, read_table, resolve_columns
from kpr.inputs.kinds import native_categories
from kpr.inputs.reading import ReadSettings


@dataclass
class Side:
    """One input table, read but not yet reconciled with the other one."""

    frame: pl.LazyFrame | nw.LazyFrame[Any]
    untyped: bool  # every known column is text still to be parsed (CSV)
    label: str
    facts: dict[str, TextFacts | None] = field(default_factory=dict)  # see reconcile._text_facts
    categories: set[str] = field(default_factory=set)  # category-like before conversion
    present: dict[str, bool] = field(default_factory=dict)  # see reconcile._has_value
    row: str | None = None  # the column that identifies rows (else positions, polars only)
    schema: Any = None  # of ``schema_of``, see reconcile._schema
    schema_of: object = None
    parsing: Callable[[Any], EngineText] | None = None  # its engine's (set by the reconciler)

    @property
    def is_polars(self) -> bool:
        return isinstance(self.frame, pl.LazyFrame)


def column_names(obj: Any) -> list[str]:
    """The column names of a frame of any library kpr reads, or of a file read already."""
    if isinstance(obj, pl.LazyFrame):
        return obj.collect_schema().names()
    if isinstance(obj, Loaded):  # kpr.protect's original, read once for every use
        return obj.frame.collect_schema().names()
    if hasattr(obj, "column_names"):  # pyarrow
        return [str(c) for c in obj.column_names]
    module = type(obj).__module__.split(".")[0]
    if module in ("pandas", "polars"):
        return [str(c) for c in obj.columns]
    try:
        with warnings.catch_warnings():  # narwhals' notice that Dask moves to a plugin
            warnings.filterwarnings("ignore", "Dask support", FutureWarning)
            return list(nw.from_native(obj).lazy().collect_schema().names())
    except TypeError:
        raise InputError(
            f"unsupported input of type {type(obj).__name__}; give a pandas or polars "
            "DataFrame, a pyarrow Table, a DuckDB relation or a CSV/Parquet path"
        ) from None


def _is_path(obj: object) -> bool:
    return isinstance(obj, str | os.PathLike)


def load_side(
    obj: object, known: Sequence[str], label: str, read: ReadSettings, row_id: str | None = None
) -> Side:
    """Read one input, keep only the known columns (and the ``row_id`` column)."""
    if row_id is not None:
        side = load_side(obj, [*known, *([row_id] if row_id not in known else [])], label, read)
        side.row = row_id
        return side
    side = _load_side(obj, known, label, read)
    if side.is_polars:
        assert isinstance(side.frame, pl.LazyFrame)
        check_column_types(side.frame.collect_schema(), side.label)
    return side


#: The widest decimal the engines compute with (narwhals and Arrow's decimal128).
MAX_DECIMAL_DIGITS = 38


def check_column_types(schema: Mapping[str, pl.DataType], label: str) -> None:
    """Refuse, in one line, the column types no engine can compare."""
    for name, dtype in schema.items():
        if isinstance(dtype, pl.Object):
            raise InputError(
                f"{label}: column {name!r} holds Python objects; convert it to numbers or "
                "text first (e.g. .cast(pl.String))"
            )
        if isinstance(dtype, pl.Decimal) and (dtype.precision or 0) > MAX_DECIMAL_DIGITS:
            raise InputError(
                f"{label}: column {name!r} is a decimal of {dtype.precision} digits, more "
                f"than the {MAX_DECIMAL_DIGITS} kpr computes with; cast it to float64 (numbers) "
                "or to text (codes)"
            )


def _is_series(obj: object) -> bool:
    kind = type(obj).__name__
    module = type(obj).__module__.split(".")[0]
    return (module in ("polars", "pandas", "pyarrow") and kind in (
        "Series", "Array", "ChunkedArray", "Expr",
    )) or (module == "pyarrow" and kind.endswith("Array"))  # fmt: skip


def _load_side(obj: object, known: Sequence[str], label: str, read: ReadSettings) -> Side:
    if _is_series(obj):
        raise InputError(
            f"{label} is a single column ({type(obj).__name__}), not a table; give a "
            "DataFrame, e.g. series.to_frame()"
        )
    if isinstance(obj, Loaded):  # a file read once already (kpr.measure.load with a control)
        frame = _select(nw.from_native(obj.frame), known, obj.label).to_native()
        return Side(frame, obj.untyped, obj.label)
    if _is_path(obj):
        loaded = read_table(obj, known, read, label, compact=True)  # type: ignore[arg-type]
        return Side(loaded.frame, loaded.untyped, loaded.label)
    if isinstance(obj, pl.DataFrame | pl.LazyFrame):
        lf = obj.lazy()
        return Side(_select(nw.from_native(lf), known, label).to_native(), False, label)
    if isinstance(obj, EngineTable):  # a file read by another engine (Spark)
        frame = nw.from_native(obj.frame).lazy()
        extra = obj.row if obj.row and obj.row not in known else None
        return Side(_select(frame, known, obj.label, extra), obj.untyped, obj.label, row=obj.row)
    module = type(obj).__module__.split(".")[0]
    if module in ("pandas", "pyarrow"):
        categories = native_categories(obj, _names(obj, known, label))
    if module == "pandas":
        frame = _from_pandas(obj, _names(obj, known, label), label)
        frame.columns = list(known)
        return Side(frame.lazy(), False, label, categories=_renamed(categories, obj, known, label))
    if module == "pyarrow":
        table = pl.from_arrow(obj.select(_names(obj, known, label)))  # type: ignore[attr-defined]
        assert isinstance(table, pl.DataFrame)
        table.columns = list(known)
        return Side(table.lazy(), False, label, categories=_renamed(categories, obj, known, label))
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
    return Side(_select(native.lazy(), known, label), False, label)


def _names(obj: Any, known: Sequence[str], label: str) -> list[str]:
    """The columns of a pandas DataFrame or pyarrow Table that ``known`` designates."""
    columns = obj.column_names if hasattr(obj, "column_names") else obj.columns
    return resolve_columns([str(c) for c in columns], known, label)


def _from_pandas(obj: Any, names: Sequence[str], label: str) -> pl.DataFrame:
    """The ``names`` columns of a pandas frame in polars; a column polars cannot convert
    (values of several types) is named, with its first value of another type."""
    columns = _pandas_columns(obj, names)
    try:
        return pl.from_pandas(obj[columns])
    except Exception as whole:  # pyarrow's or polars' conversion errors, several types
        for name, column in zip(names, columns, strict=True):
            try:
                pl.from_pandas(obj[[column]])
            except Exception as exc:
                found = _odd_value(obj[column]) or f" ({first_line(exc)})"
                raise InputError(
                    f"{label}: column {name!r} mixes value types{found}; give each column one type"
                ) from None
        raise InputError(
            f"{label}: the known columns cannot be converted ({first_line(whole)}); "
            "give each column one type"
        ) from None


def _odd_value(column: Any) -> str:
    """`` (e.g. 'x', a str among int)``: the first value whose type is not the most
    common one of the column (what the user must fix)."""
    values = column.dropna().tolist()
    types = [type(v) for v in values]
    if not types:
        return ""
    usual = max(set(types), key=types.count)
    odd = next((v for v in values if type(v) is not usual), None)
    if odd is None:
        return ""
    return f" (e.g. {shown(odd)}, a {type(odd).__name__} among {usual.__name__})"


def _pandas_columns(obj: Any, names: Sequence[str]) -> list[Any]:
    """The pandas labels behind ``names`` (which are text): a frame's columns may be
    named by integers or other objects, and pandas finds them only by their label."""
    by_text = {str(c): c for c in obj.columns}
    return [by_text[n] for n in names]


def _renamed(categories: set[str], obj: Any, known: Sequence[str], label: str) -> set[str]:
    actual = _names(obj, known, label)
    return {w for a, w in zip(actual, known, strict=True) if a in categories}


def _select(
    frame: nw.LazyFrame[Any], known: Sequence[str], label: str, extra: str | None = None
) -> nw.LazyFrame[Any]:
    """The known columns, under the names the user gave (see ``resolve_columns``),
    and the ``extra`` column (file row positions) as it is."""
    actual = resolve_columns(frame.collect_schema().names(), known, label)
    cols = [nw.col(a).alias(w) for a, w in zip(actual, known, strict=True)]
    return frame.select(*cols, *([nw.col(extra)] if extra else []))
