"""The statistics over U are exact: the mean and the standard deviation of a float
column are the exact rational values rounded once, whatever the row order, the
engine, the magnitudes (subnormals, values near 1e308, both at once) and however
much the values cancel (a z-score column whose mean is ~1e-17)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kpr
from kpr.metric.exact import float_sums
from tests.reference import _sqrt

FINITE = st.floats(allow_nan=False, allow_infinity=False)
#: values across every binary order, subnormals and the float limit included
MIXED = st.one_of(
    FINITE,
    st.sampled_from([5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308]),
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
)


def _exact(values: list[float]) -> tuple[float, float]:
    """Mean and sample std (ddof 1) in exact rationals, each rounded once."""
    q = [Fraction(v) for v in values]
    mean = sum(q, Fraction(0)) / len(q)
    var = (
        Fraction(0) if len(q) < 2 else sum(((x - mean) ** 2 for x in q), Fraction(0)) / (len(q) - 1)
    )
    return float(mean), _sqrt(var)


def _statistics(frame: pl.DataFrame) -> tuple[float | None, float | None, float, float]:
    """mean, std, lo and width of ``x`` with every row distinct (all in U)."""
    avatars = pl.DataFrame({"x": [0.0], "i": [-1]})
    v = kpr.evaluate(frame, avatars, known=["x", "i"]).variables["x"]
    assert v.lo is not None and v.width is not None
    return v.mean, v.std, v.lo, v.width


def _table(values: list[float]) -> pl.DataFrame:
    return pl.DataFrame({"x": pl.Series(values, dtype=pl.Float64), "i": range(len(values))})


@given(st.lists(MIXED, min_size=1, max_size=40), st.randoms(use_true_random=False))
def test_mean_and_std_are_the_exact_values_rounded_once(values: list[float], rnd: Any) -> None:
    mean, std = _exact(values)
    got = _statistics(_table(values))
    assert got[:2] == (mean, std)
    shuffled = list(values)
    rnd.shuffle(shuffled)
    assert _statistics(_table(shuffled)) == got


@given(st.lists(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), min_size=2, max_size=40))
def test_cancelling_columns_are_exact(values: list[float]) -> None:
    """Values and their negatives plus one tiny value: the mean is the tiny value
    over n, which float sums in any order get wrong."""
    column = [*values, *(-v for v in values), 1e-17]
    mean, std = _exact(column)
    got = _statistics(_table(column))
    assert got[:2] == (mean, std)
    assert mean == float(Fraction(1e-17) / len(column))


def test_zscore_column_is_the_same_in_every_order() -> None:
    """The case of issue 11: a z-score column (mean ~1e-17 by cancellation) gave a
    width that changed with polars' group-by order (0 or 78 linked)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=20_000)
    z = (x - x.mean()) / x.std()
    mean, std = _exact(z.tolist())
    frame = _table(z.tolist())
    results = {_statistics(frame.sample(fraction=1.0, shuffle=True, seed=s)) for s in range(6)}
    assert results == {(mean, std, min(z) - std / 10, 0.05 * abs(mean))}


@pytest.mark.parametrize("engine", ["pandas", "pyarrow", "duckdb"])
def test_engines_give_the_same_exact_statistics(engine: str) -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=2_000)
    values = [*((x - x.mean()) / x.std()).tolist(), 1.5e308, -1.2e308, 5e-324, 1e-300]
    frames = [_table(values), pl.DataFrame({"x": [0.0], "i": [-1]})]
    if engine == "duckdb":
        con = pytest.importorskip("duckdb").connect()
        native = [con.from_arrow(f.to_arrow()) for f in frames]
    else:
        native = [f.to_pandas() if engine == "pandas" else f.to_arrow() for f in frames]
    v = kpr.evaluate(*native, known=["x", "i"]).variables["x"]
    assert (v.mean, v.std) == _exact(values)
    assert (v.lo, v.width) == _statistics(frames[0])[2:]


def test_wide_columns_are_cut_into_windows() -> None:
    """A column from 1e-300 to 1e308 is summed window by window (few limbs each)."""
    plan = float_sums(4, 1e-300, 1e308)
    assert len(plan.windows) > 1
    assert max(w.limbs for w in plan.windows) * plan.bits < 256
    assert (
        float_sums(4, 0.5, 1e3).windows[0].low is None and len(float_sums(4, 0.5, 1e3).windows) == 1
    )
    assert not math.isnan(_statistics(_table([1e-300, 1e308, -3.0, 2.5]))[0] or math.nan)
