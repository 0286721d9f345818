"""Random tables: polars, DuckDB, Dask, polars' hashed path and Spark all give
the reference answer (values are integers or multiples of 1/4, so sums are
exact and bins bit-identical)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings

import kpr
from kpr.engine.spark import SparkHooks
from kpr.engine.tuning import DEFAULT_TUNING, TablePath, Tuning
from tests.strategies import Case, assert_matches_reference, cases

from .conftest import _to_dask, _to_spark

SETTINGS: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": list(HealthCheck),
}


def _check(case: Case, convert: Any, tuning: Tuning = DEFAULT_TUNING) -> None:
    original, avatars = case.frames()
    got = kpr.evaluate(
        convert(original), convert(avatars), known=case.known, tolerance=case.tolerance,
        tuning=tuning,
    )  # fmt: skip
    assert_matches_reference(got, case)


@settings(max_examples=120, **SETTINGS)
@given(cases())
def test_duckdb_matches_polars_and_the_reference(case: Case) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    _check(case, lambda f: f)
    _check(case, lambda f: con.from_arrow(f.to_arrow()))


@settings(max_examples=80, **SETTINGS)
@given(cases())
def test_polars_hashed_path_matches_the_reference(case: Case) -> None:
    """The path of polars above 20M rows (G rebuilt from row hashes by each query,
    packed profiles sorted), forced on small tables."""
    small = replace(Tuning.forcing(TablePath.HASHED), batch_rows=3, pack_block=2)  # blocks of 2
    _check(
        case, lambda f: f.lazy(), small if len(case.known) % 2 else Tuning.forcing(TablePath.HASHED)
    )


# Each Dask run costs seconds (graph optimisation), and the query plan it runs is the
# one DuckDB runs on 120 examples above: 10 examples check Dask's translation of it.
@settings(max_examples=10, **SETTINGS)
@given(cases())
def test_dask_matches_the_reference(case: Case) -> None:
    _check(case, _to_dask)


@pytest.fixture(scope="module")
def spark_convert(spark: Any) -> Any:
    return lambda f: _to_spark(spark, f)


@settings(max_examples=6, **SETTINGS)
@given(cases(min_avatars=1))
def test_spark_matches_the_reference(spark_convert: Any, case: Case) -> None:
    _check(case, spark_convert)


def test_spark_never_collects_rows(spark: Any) -> None:
    """Only one-row aggregates come back to the driver: G is cached in Spark."""
    o = pl.DataFrame({"x": list(range(2000)), "g": ["a", "b"] * 1000})
    so, sa = _to_spark(spark, o), _to_spark(spark, o)
    seen: list[int] = []
    original = SparkHooks.collect

    def spy(self: Any, frame: Any) -> dict[str, Any]:
        row = original(self, frame)
        seen.append(1)
        return row

    SparkHooks.collect = spy  # type: ignore[method-assign]
    try:
        r = kpr.evaluate(so, sa, ["x", "g"])
    finally:
        SparkHooks.collect = original  # type: ignore[method-assign]
    expected = kpr.evaluate(o, o, ["x", "g"])
    assert (r.n, r.unique_originals, r.linked) == (2000, 2000, expected.linked)
    assert [v.lo for v in r.variables.values()] == [v.lo for v in expected.variables.values()]
    assert len(seen) == 3
    with pytest.raises(ValueError, match="row positions"):
        r.linked_individuals()
