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

from kpr.engine.queries import Frame, Hooks
from kpr.engine.tuning import DEFAULT_TUNING, Tuning


def hooks_for(frame: Frame, tuning: Tuning = DEFAULT_TUNING) -> Hooks:
    """The hooks of the backend a prepared frame runs on (``tuning``: the thresholds
    choosing polars' counting path)."""
    impl = frame.implementation
    if impl.is_polars():
        from kpr.engine.polars import PolarsHooks

        return PolarsHooks(tuning)
    if impl.is_pyspark():
        from kpr.engine.spark import SparkHooks

        return SparkHooks()
    if impl.is_dask():
        from kpr.engine.dask import DaskHooks

        return DaskHooks()
    from kpr.engine.duckdb import DuckDBHooks

    return DuckDBHooks()
