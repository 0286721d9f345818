"""Protect on every engine's input type: the protected table comes back in the
input's library (pandas, pyarrow; polars otherwise) and a fresh evaluation, and
the reference, give at least the target."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

import kpr
from tests.protection.test_protect import KNOWN, reference, tables


def _as_polars(table: Any) -> pl.DataFrame:
    if isinstance(table, pl.DataFrame):
        return table
    if type(table).__module__.startswith("pandas"):
        return pl.from_pandas(table)
    out = pl.from_arrow(table)
    assert isinstance(out, pl.DataFrame)
    return out


ENGINES = ["polars", "lazy", "pandas", "pyarrow", "duckdb", "dask", "csv", "parquet"]


@pytest.mark.parametrize("engine", ENGINES)
def test_every_input_type(engine: str, tmp_path: Path) -> None:
    original, avatars = tables(n=600, seed=11)
    if engine == "lazy":
        o, a = original.lazy(), avatars.lazy()
    elif engine == "pandas":
        o, a = original.to_pandas(), avatars.to_pandas()
    elif engine == "pyarrow":
        o, a = original.to_arrow(), avatars.to_arrow()
    elif engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        o, a = con.from_arrow(original.to_arrow()), con.from_arrow(avatars.to_arrow())
    elif engine == "dask":
        dd = pytest.importorskip("dask.dataframe")
        o = dd.from_pandas(original.to_pandas(), npartitions=1)
        a = dd.from_pandas(avatars.to_pandas(), npartitions=1)
    elif engine in ("csv", "parquet"):
        o, a = tmp_path / f"o.{engine}", tmp_path / f"a.{engine}"
        write = "write_csv" if engine == "csv" else "write_parquet"
        getattr(original, write)(o)
        getattr(avatars, write)(a)
    else:
        o, a = original, avatars
    protected, result = kpr.protect(o, a, KNOWN, target=95.0, distances=False)
    expected = {"pandas": "pandas", "pyarrow": "pyarrow"}.get(engine, "polars")
    assert type(protected).__module__.split(".")[0] == expected
    out = _as_polars(protected)
    assert result.met
    assert kpr.evaluate(original, out, KNOWN).rate >= 95.0
    assert reference(original, out, KNOWN).kpr >= 95.0
    assert out.columns == avatars.columns and out.height == avatars.height
    if engine in ("polars", "lazy", "pyarrow", "duckdb", "parquet"):  # dask: via pandas
        assert out.schema == avatars.schema
    if engine == "pandas":
        assert list(protected.dtypes) == list(a.dtypes)
    # the same attack on the same data: the same protected table, whatever the input
    polars_out, _ = kpr.protect(original, avatars, KNOWN, target=95.0, distances=False)
    if engine != "csv":
        assert out.equals(polars_out)


def test_pandas_integer_columns_are_never_blanked() -> None:
    """A numpy int64 column of pandas cannot hold a missing value: suppress leaves it
    alone, so dtypes are kept."""
    original, avatars = tables(n=300, seed=12)
    a = avatars.to_pandas()
    protected, result = kpr.protect(
        original.to_pandas(), a, KNOWN, target=90, moves="suppress", distances=False,
        utility=False,
    )  # fmt: skip
    assert list(protected.dtypes) == list(a.dtypes)
    assert result.cells_changed["age"] == 0
    assert protected["age"].equals(a["age"])
