"""The avatar table protect rewrites, in the input's own library.

A change is a cell taking the value another input row holds in the same column
(a swap, a shift), a new avatar's value (regenerate: the new avatars are appended
to the input, see ``appended``) or a blank (suppress); a deletion drops rows. Each is applied
by a ``take`` of the input column, so every library keeps the column's exact
dtype (categories, time zones, widths).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Collection
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.errors import InputError
from kpr.inputs.reading import ReadSettings

Library = str  # "polars", "pandas" or "pyarrow"


#: The libraries whose tables protect rewrites as they are.
LIBRARIES = ("polars", "pandas", "pyarrow")


def library(table: Any) -> str:
    return type(table).__module__.split(".")[0]


def is_path(obj: object) -> bool:
    return isinstance(obj, str | os.PathLike)


def full_table(obj: Any, csv: ReadSettings, categorical: Collection[str] = ()) -> tuple[Any, str]:
    """Every column of an input, as a table protect can rewrite, and its library:
    pandas and pyarrow stay as they are; files, polars and other engines
    (DuckDB, Spark, Dask, collected into memory) become polars."""
    if is_path(obj):
        from kpr.avatar.files import read_original

        return read_original(obj, categorical=categorical, csv=csv, role="avatars"), "polars"
    if isinstance(obj, pl.DataFrame):
        return obj, "polars"
    if isinstance(obj, pl.LazyFrame):
        return obj.collect(), "polars"
    lib = library(obj)
    if lib == "pandas" and type(obj).__name__ == "DataFrame":
        return obj, "pandas"
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
        return pl.from_pandas(table)
    if library == "pyarrow":
        out = pl.from_arrow(table)
        assert isinstance(out, pl.DataFrame)
        return out
    assert isinstance(table, pl.DataFrame)
    return table


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
) -> Any:
    """The table with each changed cell taken from its source row (-1: blank) and
    the deleted rows dropped. A source row past the table's end is a row of
    ``extended`` (the table followed by new avatars, see :func:`appended`)."""
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
        blank = idx < 0
        idx[blank] = 0
        if library == "polars":
            col = rows_of[name].gather(idx)
            if blank.any():
                col = pl.select(
                    pl.when(pl.Series(blank)).then(None).otherwise(col).alias(name)
                ).to_series()
            out = out.with_columns(col.alias(name))
        elif library == "pandas":
            col = rows_of[name].take(idx).set_axis(table.index)
            out[name] = col.mask(blank) if blank.any() else col
        else:
            import pyarrow as pa
            import pyarrow.compute as pc

            col = rows_of.column(name).take(pa.array(idx))
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
