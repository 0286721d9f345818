"""What the avatar code needs from a polars or pandas table beyond narwhals.

Column listing, selection and extraction go through narwhals. What stays
hand-written is what narwhals does not offer with the exactness avatars need:
dtypes classified and restored exactly (pandas time zones and units, polars
NaN-only floats), sorted integer codes of mixed-type values, and fresh pandas
indexes. Everything downstream works on numpy arrays; pandas is imported only
when a pandas object is actually seen, so polars users never need it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import narwhals as nw
import numpy as np
import polars as pl
from narwhals.dependencies import is_pandas_dataframe
from narwhals.exceptions import DuplicateError

from kpr.errors import InputError

#: The dataframe library a table comes from (kpr.metric.Kind is a column's kind, unrelated).
Backend = Literal["polars", "pandas"]

#: Integer physical values of temporal columns are carried in float64 (exact below 2**53).
_I8_MISSING = np.iinfo(np.int64).min


def frame_backend(df: object) -> Backend:
    """Which library the table comes from, so the output can be of the same type."""
    if isinstance(df, pl.DataFrame):
        return "polars"
    if is_pandas_dataframe(df):
        return "pandas"
    raise InputError(
        f"expected a polars or pandas DataFrame, got {type(df).__name__}; "
        "convert the table with polars.DataFrame(...) first"
    )


def _frame(df: Any) -> nw.DataFrame[Any]:
    """The narwhals view of a polars or pandas table (unique column names checked)."""
    try:
        return nw.from_native(df, eager_only=True)
    except DuplicateError:
        raise InputError(
            "the table has duplicate column names; rename them so each is unique"
        ) from None


def column_names(df: Any) -> list[Any]:
    """Column labels, in order (pandas labels need not be strings)."""
    return list(_frame(df).columns)


def drop_columns(df: Any, names: list[Any]) -> Any:
    """The table without the given columns."""
    return _frame(df).drop(names).to_native()


def select_columns(df: Any, names: list[Any]) -> Any:
    """The table with only the given columns, in that order."""
    return _frame(df).select(nw.col(*names)).to_native()


def n_rows(df: Any) -> int:
    """Number of rows of a polars or pandas table."""
    return len(_frame(df))


def get_column(df: Any, name: Any) -> Any:
    """The native Series of one column."""
    return _frame(df).get_column(name).to_native()


@dataclass(frozen=True)
class ColumnType:
    """What a column's dtype allows: how it can be coded and restored."""

    numeric: bool  #: ints, floats, decimals, temporals (carried as numbers)
    boolean: bool
    integer: bool  #: integer storage: values must come back whole
    float32: bool  #: single precision (decides the rounding tolerance)
    dtype: Any  #: the native dtype, to cast back to


def column_type(backend: Backend, s: Any) -> ColumnType:
    """Classify a Series by dtype only (distinct counts are looked at elsewhere)."""
    if backend == "polars":
        dt = s.dtype
        if dt.is_nested() or dt == pl.Object:
            raise InputError(
                f"column {s.name!r} has dtype {dt}, which cannot be avatarised; "
                "drop it or convert it to strings"
            )
        if dt == pl.Boolean:
            return ColumnType(False, True, False, False, dt)
        if dt.is_integer() or dt.is_temporal():
            return ColumnType(True, False, True, False, dt)
        if dt.is_float() or dt.is_decimal():
            return ColumnType(True, False, False, dt == pl.Float32, dt)
        return ColumnType(False, False, False, False, dt)
    import pandas as pd

    dt = s.dtype
    api = pd.api.types
    if api.is_bool_dtype(dt):
        return ColumnType(False, True, False, False, dt)
    if isinstance(dt, pd.CategoricalDtype):
        return ColumnType(False, False, False, False, dt)
    if api.is_integer_dtype(dt) or api.is_datetime64_any_dtype(dt) or api.is_timedelta64_dtype(dt):
        return ColumnType(True, False, True, False, dt)
    if api.is_float_dtype(dt):
        return ColumnType(True, False, False, str(dt).lower() == "float32", dt)
    return ColumnType(False, False, False, False, dt)


def _is_pandas_temporal(dt: Any) -> bool:
    import pandas as pd

    api = pd.api.types
    return bool(api.is_datetime64_any_dtype(dt) or api.is_timedelta64_dtype(dt))


def to_float(backend: Backend, s: Any) -> np.ndarray:
    """A numeric column as float64 with NaN for missing (nulls and NaN alike).

    Temporal columns give their integer physical value (e.g. microseconds).
    """
    if backend == "polars":
        dt = s.dtype
        if dt.is_temporal():
            s = s.to_physical()
        # A writable copy: polars may hand out a read-only view of its buffer.
        return np.array(s.cast(pl.Float64).to_numpy(), dtype=np.float64)
    dt = s.dtype
    if _is_pandas_temporal(dt):
        if getattr(dt, "tz", None) is not None:
            s = s.dt.tz_convert("UTC").dt.tz_localize(None)
        i8 = s.to_numpy().view("i8")
        out = i8.astype(np.float64)
        out[i8 == _I8_MISSING] = np.nan
        return out
    return np.array(s.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)


def nan_only_missing(backend: Backend, s: Any) -> bool:
    """True for a polars float column whose missing values are all NaN (no null)."""
    return backend == "polars" and s.dtype.is_float() and s.null_count() == 0


def missing_mask(backend: Backend, s: Any) -> np.ndarray:
    """True where the value is missing (null, NaN or NaT)."""
    if backend == "polars":
        mask = s.is_null()
        if s.dtype.is_float():
            mask = mask | s.is_nan().fill_null(False)
        return np.asarray(mask.to_numpy(), dtype=bool)
    return np.asarray(s.isna().to_numpy(), dtype=bool)


def factorize(backend: Backend, s: Any) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of a column's distinct non-missing values, in sorted order.

    Returns ``codes`` (int64, -1 where missing) and ``first``: for each code, the
    first row holding it, so the levels can be gathered in their own dtype.
    """
    if backend == "polars":
        if s.dtype.is_float():
            s = s.fill_nan(None)
        # Dense ranks are 1..L in sorted order; nulls get rank null, coded -1.
        ranks = s.rank("dense").fill_null(0).cast(pl.Int64).to_numpy()
        codes = np.asarray(ranks, dtype=np.int64) - 1
    else:
        import pandas as pd

        try:
            raw = pd.factorize(s, sort=True, use_na_sentinel=True)[0]
        except TypeError:  # values of mixed, unorderable types: keep first-seen order
            try:
                raw = pd.factorize(s, sort=False, use_na_sentinel=True)[0]
            except TypeError as exc:
                raise InputError(
                    f"column {s.name!r} holds values that cannot be compared (e.g. lists); "
                    "drop it or convert it to strings"
                ) from exc
        codes = np.asarray(raw, dtype=np.int64)
    present = codes >= 0
    if not present.any():
        return codes, np.empty(0, dtype=np.int64)
    levels, first = np.unique(codes[present], return_index=True)
    rows = np.flatnonzero(present)[first]
    # Dense ranks are 0..L-1 already; keep the guard in case a backend skips some.
    if levels.size and levels[-1] != levels.size - 1:
        remap = np.full(levels[-1] + 1, -1, dtype=np.int64)
        remap[levels] = np.arange(levels.size)
        codes = np.where(present, remap[np.maximum(codes, 0)], -1)
    return codes, rows.astype(np.int64)


def take(backend: Backend, s: Any, idx: np.ndarray) -> Any:
    """Rows ``idx`` of a Series, keeping its dtype exactly (fresh index for pandas)."""
    if backend == "polars":
        return s.gather(idx)
    return s.take(idx).reset_index(drop=True)


def encode(backend: Backend, levels: Any, s: Any) -> np.ndarray:
    """Codes of ``s`` against the fitted ``levels`` Series: -1 for missing or unseen values."""
    if backend == "polars":
        if s.dtype.is_float():
            s = s.fill_nan(None)
        if s.dtype != levels.dtype:
            s = s.cast(levels.dtype, strict=False)
        left = pl.DataFrame({"v": s})
        right = pl.DataFrame({"v": levels, "c": np.arange(len(levels), dtype=np.int64)})
        joined = left.join(right, on="v", how="left", maintain_order="left")
        return np.array(joined.get_column("c").fill_null(-1).to_numpy(), dtype=np.int64)
    import pandas as pd

    codes = np.asarray(pd.Index(levels).get_indexer(s), dtype=np.int64)
    codes[np.asarray(s.isna().to_numpy(), dtype=bool)] = -1
    return codes


def from_float(
    backend: Backend, name: Any, values: np.ndarray, ctype: ColumnType, nan_missing: bool = False
) -> Any:
    """A Series of dtype ``ctype.dtype`` from float64 values (NaN = missing).

    Values must already be rounded as the dtype requires (whole for integers).
    polars: missing becomes null, or stays NaN if ``nan_missing`` (a float column
    whose original marked missing values with NaN only).
    """
    if backend == "polars":
        dt = ctype.dtype
        s = pl.Series(name, values, dtype=pl.Float64)
        if not (nan_missing and dt.is_float()):
            s = s.fill_nan(None)
        if dt.is_temporal():
            phys = pl.Series(name, [], dtype=dt).to_physical().dtype
            return s.cast(phys).cast(dt)
        return s.cast(dt)
    import pandas as pd

    dt = ctype.dtype
    if _is_pandas_temporal(dt):
        i8 = np.where(np.isnan(values), _I8_MISSING, values).astype(np.int64)
        tz = getattr(dt, "tz", None)
        unit = getattr(dt, "unit", None) or np.datetime_data(dt)[0]
        unit_char = "m" if pd.api.types.is_timedelta64_dtype(dt) else "M"
        arr = i8.view(f"{unit_char}8[{unit}]")
        out = pd.Series(arr, name=name)
        if tz is not None:
            out = out.dt.tz_localize("UTC").dt.tz_convert(tz)
        return out.astype(dt)
    return pd.Series(values, name=name).astype(dt)


def assemble(backend: Backend, names: list[Any], columns: list[Any]) -> Any:
    """A table of the given library from Series, in the given column order."""
    if backend == "polars":
        return pl.DataFrame([c.alias(n) for n, c in zip(names, columns, strict=True)])
    import pandas as pd

    out = pd.concat([c.rename(n) for n, c in zip(names, columns, strict=True)], axis=1)
    out.columns = names
    return out
