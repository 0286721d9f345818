"""The slice of the engine suite that runs on real clusters: the worked
example, missing values, out-of-range values, m != n, row ids, and a
derandomised hypothesis sample, each compared with the reference."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
from hypothesis import HealthCheck, given, settings

import kpr
from tests.engine.test_engines import CASES, _reference, assert_same
from tests.strategies import Case, assert_matches_reference, cases

Convert = Callable[[pl.DataFrame], Any]

NAMES = ["worked-example", "missing-values", "out-of-range-avatars", "m-greater-than-n",
         "m-less-than-n", "infinities"]  # fmt: skip


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


def check_hypothesis_sample(convert: Convert, examples: int = 6) -> None:
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
