"""One dispatch to the counting path a prepared frame runs on.

The metric is written once (``kpr.engine.queries``), and counted on one path
(``queries.Counting``): the lazy queries (``queries.LazyCounting``), with each
backend's module holding only what differs for it, as a subclass of
``queries.Hooks`` that overrides just that; or, for polars tables small enough,
in memory with numpy (``kpr.engine.polars.MemoryCounting``):

- ``kpr.engine.polars``: polars frames, and pandas and pyarrow inputs (read into
  polars when loaded, ``kpr.inputs.sides``): in memory, or G rebuilt from row
  hashes and packed profiles for the link (the path ``Tuning.table_path`` names);
- ``kpr.engine.spark``: G cached in the cluster; the session and reading files
  with Spark;
- ``kpr.engine.dask``: G persisted in the workers; reading Parquet with Dask;
- ``kpr.engine.duckdb``: DuckDB (and any other backend narwhals supports, such
  as Ibis): the database recomputes each query; nothing is overridden.

Parsing input (text, dates) is apart: ``kpr.engine.parsing.parsing_for``.
"""

from __future__ import annotations

from kpr.engine.queries import Counting, Frame, LazyCounting
from kpr.engine.tuning import DEFAULT_TUNING, Tuning


def counting_for(frame: Frame, tuning: Tuning = DEFAULT_TUNING, known: int = 1) -> Counting:
    """The counting path of the backend a prepared original runs on (``tuning``: the
    thresholds choosing polars' path by the memory its ``known`` variables need)."""
    impl = frame.implementation
    if impl.is_polars():
        from kpr.engine.polars import polars_counting

        return polars_counting(frame, tuning, known)
    if impl.is_pyspark():
        from kpr.engine.spark import SparkHooks

        return LazyCounting(SparkHooks())
    if impl.is_dask():
        from kpr.engine.dask import DaskHooks

        return LazyCounting(DaskHooks())
    from kpr.engine.duckdb import DuckDBHooks

    return LazyCounting(DuckDBHooks())
