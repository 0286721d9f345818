"""The avatar table protect rewrites, in the input's own library.

A file is read once, every column as the file holds it (``kpr.inputs.files``): a
CSV's cells as their text (a number only where it prints back as the same text), its
missing markers (``N``, ``?``) as text too, so that every cell protect does not
change is written back as it was read, in the file's own dialect (:func:`write_csv_like`).
The metric and the API see the same cells with the markers read as missing
(:func:`read_view`). Columns that are not known variables are never typed.

A change is a cell taking the value another input row holds in the same column
(a swap, a shift), a new avatar's value (regenerate: the new avatars are appended
to the input, see ``appended``), a new number drawn on the column's grid (a shift,
written in the column's type: text in a CSV's text column) or a blank (suppress); a
deletion drops rows. Each is applied
by a ``take`` of the input column, so every library keeps the column's exact
dtype (categories, time zones, widths).
"""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.errors import InputError, first_line
from kpr.inputs.compact import exact_numbers
from kpr.inputs.files import CsvDialect, Loaded, read_table
from kpr.inputs.reading import ReadSettings
from kpr.inputs.writers import write_atomic

Library = str  # "polars", "pandas" or "pyarrow"


#: The libraries whose tables protect rewrites as they are.
LIBRARIES = ("polars", "pandas", "pyarrow")


def library(table: Any) -> str:
    return type(table).__module__.split(".")[0]


def is_path(obj: object) -> bool:
    return isinstance(obj, str | os.PathLike)


@dataclass(frozen=True)
class FileSource:
    """Where a CSV's avatars came from: how to write them back, and which of their
    texts mean missing."""

    label: str
    dialect: CsvDialect
    markers: tuple[str, ...]  #: texts read as missing besides an empty field


def read_avatars(path: Any, csv: ReadSettings) -> tuple[pl.DataFrame, FileSource | None]:
    """Every column of an avatar file, read once, as the file holds it: a CSV's
    markers kept as text (see the module's docstring); a Parquet file as it is."""
    empty_is_missing = "" in csv.na_values
    raw = replace(csv, na_values=("",) if empty_is_missing else ())
    loaded = read_table(path, None, raw, "avatars", compact=True)
    try:
        frame = loaded.frame.collect()
    except pl.exceptions.PolarsError as exc:
        raise InputError(f"{loaded.label}: could not read the data ({first_line(exc)})") from None
    if loaded.dialect is None:
        return frame, None
    markers = tuple(m for m in csv.na_values if m != "")
    return frame, FileSource(loaded.label, loaded.dialect, markers)


def read_view(frame: pl.DataFrame, source: FileSource | None) -> pl.DataFrame:
    """The avatars as ``kpr.evaluate`` reads the file: markers missing, a column of
    numbers that print back as their text held as numbers (others stay text)."""
    if source is None:
        return frame
    texts = [n for n, t in frame.schema.items() if t == pl.String]
    if source.markers and texts:
        frame = frame.with_columns(
            pl.when(pl.col(n).is_in(source.markers)).then(None).otherwise(pl.col(n)).alias(n)
            for n in texts
        )
    return exact_numbers(frame)


def for_metric(frame: pl.DataFrame, source: FileSource | None, known: Collection[str]) -> Any:
    """What ``kpr.measure.load`` reads for the avatars: a file's known columns as
    untyped text, typed by the rule evaluate applies to a CSV; other tables as they are."""
    return frame if source is None else as_file(frame.select(list(known)), source)


def write_csv_like(frame: pl.DataFrame, path: str | os.PathLike[str], source: FileSource) -> None:
    """The avatars in their file's own dialect (encoding, delimiter, line breaks, a
    final line break or none), each cell as read: a table protect did not change is
    written back byte for byte, when the file quoted only the fields that need it."""
    d = source.dialect
    text = frame.with_columns(
        pl.col(n).cast(pl.String).replace("", None) for n in frame.columns
    )  # a number held as a number prints back as its text (the compact rule)
    buffer = io.BytesIO()
    text.write_csv(
        buffer, separator=d.delimiter, line_terminator=d.line_end, quote_style="necessary",
        null_value="",
    )  # fmt: skip
    data = buffer.getvalue()
    if not d.final_line_end and data.endswith(d.line_end.encode()):
        data = data[: -len(d.line_end)]
    if d.encoding.replace("_", "-").lower() not in ("utf-8", "utf8"):
        data = data.decode("utf-8").encode(d.encoding)
    write_atomic(path, lambda p: p.write_bytes(data))


def full_table(obj: Any, csv: ReadSettings) -> tuple[Any, str]:
    """Every column of an input, as a table protect can rewrite, and its library:
    pandas and pyarrow stay as they are; files, polars and other engines
    (DuckDB, Spark, Dask, collected into memory) become polars."""
    if is_path(obj):
        return read_avatars(obj, csv)[0], "polars"
    if isinstance(obj, pl.DataFrame):
        return obj, "polars"
    if isinstance(obj, pl.LazyFrame):
        return obj.collect(), "polars"
    lib = library(obj)
    if lib == "pandas" and type(obj).__name__ == "DataFrame":
        return _named_by_text(obj), "pandas"
    if lib == "pyarrow" and type(obj).__name__ == "Table":
        return obj, "pyarrow"
    try:
        with warnings.catch_warnings():  # narwhals' notice that Dask moves to a plugin
            warnings.filterwarnings("ignore", "Dask support", FutureWarning)
            frame = nw.from_native(obj)
    except TypeError:
        raise InputError(
            f"cannot read a table from a {type(obj).__name__}; give a polars, pandas or "
            "pyarrow table, a DuckDB relation, a Spark or Dask DataFrame, or a CSV/Parquet path"
        ) from None
    collected = frame.lazy().collect(backend="polars").to_native()
    assert isinstance(collected, pl.DataFrame)
    return collected, "polars"


def _named_by_text(frame: Any) -> Any:
    """A pandas frame whose columns are named by texts, as the known variables are
    (``kpr.evaluate`` reads the column ``0`` as ``"0"``): a renamed copy when a name
    is not a text, refused when two names then read the same."""
    if all(isinstance(c, str) for c in frame.columns):
        return frame
    names = [str(c) for c in frame.columns]
    twice = next((c for c in frame.columns if names.count(str(c)) > 1), None)
    if twice is not None:
        raise InputError(
            f"the avatars have two columns named {str(twice)!r} once names are read as "
            "texts (e.g. 0 and '0'); rename one of them"
        )
    return frame.set_axis(names, axis=1)


def columns_of(table: Any, library: str) -> list[str]:
    if library == "pyarrow":
        return list(table.column_names)
    return [str(c) for c in table.columns]


def n_rows(table: Any, library: str) -> int:
    return int(table.num_rows if library == "pyarrow" else len(table))


def can_blank(table: Any, library: str, name: str) -> bool:
    """Whether a column can hold a missing value (pandas' numpy integers and
    booleans cannot)."""
    if library != "pandas":
        return True
    return table[name].dtype.kind not in "iub"


def to_polars(table: Any, library: str) -> pl.DataFrame:
    if library == "pandas":
        return _from_pandas(table)
    if library == "pyarrow":
        out = pl.from_arrow(table)
        assert isinstance(out, pl.DataFrame)
        return out
    assert isinstance(table, pl.DataFrame)
    return table


def _from_pandas(table: Any) -> pl.DataFrame:
    """A pandas table in polars; a column of mixed Python values (``1`` and ``"x"``),
    which Arrow refuses, as their text: protect compares and logs such a column, it
    never computes on it."""
    try:
        return pl.from_pandas(table)
    except (TypeError, ValueError, pl.exceptions.PolarsError):  # pyarrow's errors subclass these
        pass
    columns: dict[str, pl.Series] = {}
    for name in table.columns:
        try:
            columns[str(name)] = pl.Series(str(name), pl.from_pandas(table[name]))
        except (TypeError, ValueError, pl.exceptions.PolarsError):
            texts = [None if v is None or v != v else str(v) for v in table[name].tolist()]
            columns[str(name)] = pl.Series(str(name), texts, dtype=pl.String)
    return pl.DataFrame(columns)


def appended(table: Any, library: str, extra: pl.DataFrame) -> Any:
    """``table`` followed by the rows of ``extra`` (new avatars), cast to its dtypes."""
    if library == "polars":
        return pl.concat([table, extra.cast(table.schema)])
    if library == "pandas":
        import pandas as pd

        more = extra.to_pandas().astype(table.dtypes.to_dict())
        return pd.concat([table, more], ignore_index=True)
    import pyarrow as pa

    return pa.concat_tables([table, extra.to_arrow().cast(table.schema)])


def rebuild(
    table: Any,
    library: str,
    sources: dict[str, dict[int, int]],
    deleted: Collection[int],
    extended: Any = None,
    new_values: dict[str, tuple[list[float], list[str]]] | None = None,
) -> Any:
    """The table with each changed cell taken from its source row (-1: blank) and
    the deleted rows dropped. A source row past the table's end is a row of
    ``extended`` (the table followed by new avatars, see :func:`appended`); a source
    ``-2 - k`` is the column's ``k``-th new value (``new_values``: each as a number
    and as the column's text, see :func:`with_new_values`)."""
    m = n_rows(table, library)
    rows_of = table if extended is None else extended
    keep = np.ones(m, dtype=bool)
    keep[list(deleted)] = False
    out = table.copy() if library == "pandas" else table
    for name, source in sources.items():
        if not source:
            continue
        idx = np.arange(m, dtype=np.int64)
        rows = np.fromiter(source.keys(), dtype=np.int64, count=len(source))
        idx[rows] = np.fromiter(source.values(), dtype=np.int64, count=len(source))
        blank = idx == -1
        idx[blank] = 0
        column = rows_of[name] if library != "pyarrow" else rows_of.column(name)
        if name in (new_values or {}):
            assert new_values is not None
            column = with_new_values(column, library, *new_values[name])
            drawn = idx <= -2
            idx[drawn] = n_rows(rows_of, library) - 2 - idx[drawn]
        if library == "polars":
            col = column.gather(idx)
            if blank.any():
                col = pl.select(
                    pl.when(pl.Series(blank)).then(None).otherwise(col).alias(name)
                ).to_series()
            out = out.with_columns(col.alias(name))
        elif library == "pandas":
            col = column.take(idx).set_axis(table.index)
            out[name] = col.mask(blank) if blank.any() else col
        else:
            import pyarrow as pa
            import pyarrow.compute as pc

            col = column.take(pa.array(idx))
            if blank.any():
                col = pc.if_else(pa.array(blank), pa.scalar(None, type=col.type), col)
            out = out.set_column(out.column_names.index(name), name, col)
    if keep.all():
        return out
    if library == "polars":
        return out.filter(pl.Series(keep))
    if library == "pandas":
        return out.iloc[np.flatnonzero(keep)]
    import pyarrow as pa

    return out.filter(pa.array(keep))


def with_new_values(column: Any, library: str, numbers: list[float], texts: list[str]) -> Any:
    """A column followed by new values in its own type: text in a text column (a
    CSV's cells as read), integers in an integer column, else floats."""
    if library == "polars":
        dtype = column.dtype
        values: list[Any] = (
            texts if dtype == pl.String else [int(v) for v in numbers] if dtype.is_integer()
            else numbers
        )  # fmt: skip
        return column.append(pl.Series(column.name, values).cast(dtype))
    if library == "pandas":
        import pandas as pd

        kind = column.dtype.kind
        values = [int(v) for v in numbers] if kind in "iu" else numbers if kind == "f" else texts
        more = pd.Series(values, name=column.name).astype(column.dtype)
        return pd.concat([column, more], ignore_index=True)
    import pyarrow as pa

    t = column.type
    values = (
        texts if pa.types.is_string(t) or pa.types.is_large_string(t)
        else [int(v) for v in numbers] if pa.types.is_integer(t) else numbers
    )  # fmt: skip
    return pa.chunked_array([*column.chunks, pa.array(values).cast(t)], type=t)


def as_file(frame: pl.DataFrame, source: FileSource) -> Loaded:
    """A file's avatars as the inputs layer hands a file read once to the metric and
    to ``kpr.utility``: untyped text, markers missing, typed by their CSV rule."""
    view = read_view(frame, source)
    return Loaded(view.lazy(), untyped=True, label=source.label, dialect=source.dialect)


def for_utility(table: Any, source: FileSource | None) -> Any:
    """What ``kpr.utility`` reads for an input: a file's every column (see
    :func:`as_file`); a pandas table in polars, a column of mixed values as text
    (:func:`to_polars`); other tables as they are."""
    if source is not None:
        return as_file(table, source)
    return to_polars(table, "pandas") if library(table) == "pandas" else table


def write_protected(
    table: Any, library: str, source: FileSource | None, path: str | os.PathLike[str]
) -> None:
    """The protected avatars to a .csv or .parquet file: a CSV read from a CSV in its
    own dialect, cells as read (:func:`write_csv_like`); otherwise as ``kpr avatarize``
    writes a table (a spreadsheet-safe CSV, or Parquet with the table's types)."""
    from kpr.avatar.files import output_format, write_table

    if source is not None and output_format(path) == "csv":
        write_csv_like(table, path, source)
        return
    write_table(to_polars(read_view(table, source), library), path)
