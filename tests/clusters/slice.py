"""The slice of the engine suite that runs on real clusters: the cases whose values
cross the wire differently (missing values, infinities, out-of-range values), row
ids, and a derandomised hypothesis sample, each compared with the reference.

What a cluster adds to the engine suite, which runs every case in local mode, is the
way: tables pickled to executors, an executor's own Python, partitions on other
processes. So the slice runs the cases whose values travel differently, not every
case: ``missing-values`` (nulls and NaN in integer, float and text columns, and m != n:
9 original rows, 7 avatars), ``infinities`` (±inf) and ``out-of-range-avatars``
(1e300, the smallest subnormal, -2**62). The worked example (its values a subset of
``missing-values``' kinds) runs on the Spark cluster through the command line
(``spark_driver.check_cli``); the sizes of ``m-greater-than-n`` and ``m-less-than-n``
change no path between processes, and the hypothesis sample draws other sizes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
from hypothesis import HealthCheck, given, settings

import kpr
from tests.engine.test_engines import CASES, _reference, assert_same
from tests.strategies import Case, assert_matches_reference, cases

Convert = Callable[[pl.DataFrame], Any]

NAMES = ["missing-values", "out-of-range-avatars", "infinities"]


def check_cases(convert: Convert) -> None:
    for name in NAMES:
        case = CASES[name]
        o, a = case.frames()
        result = kpr.evaluate(
            convert(o), convert(a), case.known, tolerance=case.tolerance, kinds=case.kinds
        )
        assert_same(result, _reference(case))


def check_row_ids(convert: Convert) -> None:
    """Linked individuals by row id, computed in the cluster, equal polars' positions."""
    o, a = CASES["missing-values"].frames()
    known = CASES["missing-values"].known
    expected = kpr.evaluate(o, a, known).linked_individuals()
    o, a = o.with_row_index("id"), a.with_row_index("id")
    o, a = (f.with_columns(pl.col("id").cast(pl.Int64)) for f in (o, a))
    got = kpr.evaluate(convert(o), convert(a), known, row_id="id").linked_individuals()
    assert got.height > 0
    assert (
        got.to_dicts()
        == expected.with_columns(pl.col("original_row", "avatar_row").cast(pl.Int64)).to_dicts()
    )


def check_hypothesis_sample(convert: Convert, examples: int = 3) -> None:
    """A few random tables on the cluster: the engines' agreement with the reference on
    hypothesis tables is the property of ``tests/engine/test_hypothesis.py`` (Spark and
    Dask, in local mode); here a handful of examples check that such tables, not only
    the fixed cases, cross to the executors and back."""

    @settings(max_examples=examples, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(cases())
    def sample(case: Case) -> None:
        original, avatars = case.frames()
        got = kpr.evaluate(
            convert(original), convert(avatars), known=case.known, tolerance=case.tolerance
        )
        assert_matches_reference(got, case)

    sample()
