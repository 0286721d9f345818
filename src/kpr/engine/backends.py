"""One dispatch to the backend a prepared frame runs on.

The metric is written once (``kpr.engine.queries``); each backend module holds only
what differs for it, as a subclass of ``queries.Hooks`` that overrides just that:

- ``kpr.engine.polars``: polars frames, and pandas and pyarrow inputs (read into
  polars when loaded, ``kpr.inputs.sides``): G kept in memory or rebuilt from row
  hashes, one scan of G's distinct values, packed profiles for the link;
- ``kpr.engine.spark``: G cached in the cluster; Spark's own text parsing and
  epoch functions; the session and reading files with Spark;
- ``kpr.engine.dask``: G persisted in the workers; reading Parquet with Dask;
- ``kpr.engine.duckdb``: DuckDB (and any other backend narwhals supports, such
  as Ibis): the database recomputes each query; nothing is overridden.
"""

from __future__ import annotations

from typing import Any

from kpr.engine.queries import Frame, Hooks
from kpr.engine.spark import nan_text_to_null, parse_number, spark_iso_facts
from kpr.inputs.csv_text import TextParsing


def hooks_for(frame: Frame) -> Hooks:
    """The hooks of the backend a prepared frame runs on."""
    impl = frame.implementation
    if impl.is_polars():
        from kpr.engine.polars import PolarsHooks

        return PolarsHooks()
    if impl.is_pyspark():
        from kpr.engine.spark import SparkHooks

        return SparkHooks()
    if impl.is_dask():
        from kpr.engine.dask import DaskHooks

        return DaskHooks()
    from kpr.engine.duckdb import DuckDBHooks

    return DuckDBHooks()


def text_facts(frame: Frame, name: str) -> tuple[bool, bool, str | None] | None:
    """For a text column: (some value present, every value an integer, the first
    value that is not a number); None when this backend cannot tell."""
    return hooks_for(frame).text_facts(frame, name)


def to_days(frame: Frame, name: str, dtype: Any) -> Frame:
    """Replace a date, datetime or duration column by its float64 days."""
    return hooks_for(frame).to_days(frame, name, dtype)


#: How the engines other than polars parse text, for ``kpr.inputs.reconcile``.
TEXT_PARSING = TextParsing(text_facts, parse_number, nan_text_to_null, spark_iso_facts, to_days)
