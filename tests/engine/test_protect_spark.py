"""kpr.protect on Spark DataFrames (the one engine tests/protection/test_engines.py leaves
to this folder, which holds the Spark session): the protected table, collected, reaches
the target by a fresh evaluation and by the reference, equal to the polars run."""

from __future__ import annotations

from typing import Any

import polars as pl

import kpr
from tests.engine.conftest import _to_spark
from tests.protection.test_protect import KNOWN, reference, tables


def test_protect_on_spark_equals_polars_and_meets_the_target(spark: Any) -> None:
    original, avatars = tables(n=200, seed=11)
    o, a = _to_spark(spark, original), _to_spark(spark, avatars)
    protected, result = kpr.protect(o, a, KNOWN, target=95.0, distances=False, utility=False)
    out = protected if isinstance(protected, pl.DataFrame) else pl.from_arrow(protected)
    assert isinstance(out, pl.DataFrame)
    assert result.met
    assert kpr.evaluate(original, out, KNOWN).rate >= 95.0
    assert reference(original, out, KNOWN).kpr >= 95.0
    assert out.columns == avatars.columns and out.height == avatars.height
    same, _ = kpr.protect(original, avatars, KNOWN, target=95.0, distances=False, utility=False)
    assert out.equals(same)
