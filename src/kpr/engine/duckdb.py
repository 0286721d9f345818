"""The DuckDB backend, and the default for every other backend narwhals supports
(Ibis, SQLFrame, ...): the database plans and recomputes each query itself, so
nothing of ``queries.Hooks`` is overridden; G is rebuilt by each of the three
queries, which DuckDB's optimiser runs from the columns it holds."""

from __future__ import annotations

from kpr.engine.queries import Hooks


class DuckDBHooks(Hooks):
    """The default hooks: every query sent to the database as it is."""
