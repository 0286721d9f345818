"""Every engine kpr accepts, as a pytest parameter: a polars table is turned
into that engine's native input, so one case runs on all of them.

Spark runs in one shared local session (``local[2]``, 4 shuffle partitions, no
UI) for the whole test run; Spark and Dask tests are skipped when the extras
are not installed (``pip install -e '.[test,spark,dask]'``).
"""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import polars as pl
import pytest

from kpr.engine.spark import spark_session
from kpr.engine.tuning import DEFAULT_TUNING, TablePath, Tuning

ENGINES = [
    "polars",
    "polars-lazy",
    "polars-hashed",
    "pandas",
    "pyarrow",
    "duckdb",
    "spark",
    "dask",
]


@dataclass(frozen=True)
class Convert:
    """One engine's input made from a polars table (called), and the thresholds
    that choose its counting path (``kpr.evaluate(..., tuning=engine.tuning)``)."""

    convert: Callable[[pl.DataFrame], Any]
    tuning: Tuning = DEFAULT_TUNING

    def __call__(self, frame: pl.DataFrame) -> Any:
        return self.convert(frame)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    session = spark_session(
        "local[2]",
        {
            "spark.sql.shuffle.partitions": "4",
            "spark.default.parallelism": "2",
            "spark.driver.memory": "1g",
            "spark.sql.execution.arrow.pyspark.enabled": "true",
        },
    )
    yield session
    session.stop()


def _to_spark(session: Any, frame: pl.DataFrame) -> Any:
    from pyspark.sql import types as T

    # Through Python rows with an explicit schema: exact values, NaN and ±inf
    # kept, nulls in every column, and empty tables keep their types.
    spark_types = {
        pl.Int64: T.LongType(),
        pl.Int32: T.IntegerType(),
        pl.Float64: T.DoubleType(),
        pl.String: T.StringType(),
        pl.Boolean: T.BooleanType(),
        pl.Date: T.DateType(),
        pl.Datetime("us"): T.TimestampNTZType(),
        pl.Datetime("us", "UTC"): T.TimestampType(),
    }
    schema = T.StructType(
        [T.StructField(name, spark_types[dtype], True) for name, dtype in frame.schema.items()]
    )
    return session.createDataFrame(frame.rows(), schema=schema)


def _to_dask(frame: pl.DataFrame) -> Any:
    dd = pytest.importorskip("dask.dataframe")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dd.from_pandas(frame.to_pandas(), npartitions=2)


def _duckdb_convert() -> Callable[[pl.DataFrame], Any]:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    return lambda f: con.from_arrow(f.to_arrow())


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Convert:
    """A function turning a polars DataFrame into this engine's input."""
    name = request.param
    if name == "polars":
        return Convert(lambda f: f)
    if name == "polars-lazy":
        return Convert(lambda f: f.lazy())
    if name == "polars-hashed":  # the path of polars above 20M rows, forced on small tables
        return Convert(lambda f: f.lazy(), Tuning.forcing(TablePath.HASHED))
    if name == "pandas":
        return Convert(lambda f: f.to_pandas())
    if name == "pyarrow":
        return Convert(lambda f: f.to_arrow())
    if name == "duckdb":
        return Convert(_duckdb_convert())
    if name == "spark":
        session = request.getfixturevalue("spark")
        return Convert(lambda f: _to_spark(session, f))
    if name == "dask":
        return Convert(_to_dask)
    raise AssertionError(name)
