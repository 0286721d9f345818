"""The sweep that encodes the candidates once gives, for every subset, exactly
what an independent ``kpr.evaluate`` gives: rate, n, |U|, |S|, lo and width.

The statistics over U are exact on both sides (``kpr.metric.exact``), so the
comparison is bit for bit, for any float values."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings

import kpr
from kpr.analysis import sweep
from kpr.analysis.sweep import subsets
from kpr.engine.inmemory import EncodedTables, sweep_counts
from kpr.engine.tuning import DEFAULT_TUNING, KeyCount, Tuning
from kpr.measure import load
from kpr.metric.attack import make_attack
from tests.conftest import worked_example
from tests.reference import reference_kpr
from tests.strategies import SCHEMA, Case, cases

from ._data import tables


def _shared(
    original: Any,
    avatars: Any,
    names: list[str],
    size: int,
    tuning: Tuning = DEFAULT_TUNING,
    **kw: Any,
) -> list[Any]:
    prepared = load(original, avatars, make_attack(names), materialize=True).pair
    frames = [f.select(names).to_native().collect() for f in (prepared.original, prepared.avatars)]
    coded = EncodedTables(*frames, {n: prepared.kinds[n] for n in names}, tuning)
    return sweep_counts(coded, subsets(names, size), kw.pop("tolerance", 0.05), **kw)


def _assert_each_subset_equals_evaluate(
    original: Any,
    avatars: Any,
    names: list[str],
    size: int,
    tolerance: float = 0.05,
    **kw: Any,
) -> None:
    counts = _shared(original, avatars, names, size, tolerance=tolerance, **kw)
    assert [c.known for c in counts] == subsets(names, size)
    for c in counts:
        direct = kpr.evaluate(original, avatars, known=list(c.known), tolerance=tolerance)
        assert c.counts == direct.counts, c.known
        for name, b in c.bins.items():
            v = direct.variables[name]
            stats = (b.lo, b.width, b.mean, b.std, b.minimum, b.maximum)
            assert stats == (v.lo, v.width, v.mean, v.std, v.min, v.max), (c.known, name)


def _outliers() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Missing values, NaN, infinities, signed zeros, negative and huge numbers."""
    rng = np.random.default_rng(3)
    n, m = 300, 260
    specials = [None, math.nan, math.inf, -math.inf, -0.0, 0.0, 1e300, -1e300]

    def table(k: int, far: bool) -> pl.DataFrame:
        x = (rng.integers(-400, 400, k) / 4).tolist()
        for i in rng.choice(k, 30, replace=False):
            x[i] = specials[i % len(specials)]
        big = rng.integers(-5, 5, k) * 2**16  # sums of squares stay exact
        return pl.DataFrame(
            {
                "x": pl.Series(x, dtype=pl.Float64),
                "neg": rng.integers(-90, -10, k),
                "big": big if not far else np.where(rng.random(k) < 0.1, -(2**62), big),
                "flag": pl.Series(rng.random(k) < 0.3).set(pl.Series(rng.random(k) < 0.1), None),
                "cat": pl.Series(rng.choice(["a", "b", "é東", "a b,c"], k)).cast(pl.Categorical),
            }
        )

    return table(n, far=False), table(m, far=True)


def test_random_tables_every_subset() -> None:
    original, avatars = tables()
    _assert_each_subset_equals_evaluate(
        original, avatars, ["age", "sex", "region", "height", "kids"], 3
    )


def test_missing_signed_zero_negative_and_huge_values() -> None:
    original, avatars = _outliers()
    _assert_each_subset_equals_evaluate(original, avatars, list(original.columns), 5, 0.1)


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("path", [KeyCount.BITMAP, KeyCount.SORT])
def test_keys_renumbered_before_overflow_and_counted_other_ways(
    workers: int, path: KeyCount
) -> None:
    """The other paths (dense renumbering, links counted by a bitmap or by sorting,
    values numbered by sorts) on small data."""
    tuning = replace(Tuning.forcing(path), key_limit=64)
    original, avatars = _outliers()
    _assert_each_subset_equals_evaluate(original, avatars, ["x", "neg", "cat", "big"], 4, 0.1,
                                        workers=workers, tuning=tuning)  # fmt: skip
    original, avatars = tables()
    _assert_each_subset_equals_evaluate(original, avatars, ["age", "height", "region"], 3,
                                        workers=workers, tuning=tuning)  # fmt: skip


def test_the_worked_example() -> None:
    o, a = worked_example()
    [age, _sex, both] = _shared(o, a, ["age", "sex"], 2)
    assert (both.counts.unique_originals, both.counts.linked) == (3, 2)
    assert both.bins["age"].lo == 41 - both.bins["age"].std / 10  # type: ignore[operator]
    assert both.bins["age"].width == 0.05 * 51
    assert age.known == ("age",)


def test_sweep_entries_equal_the_shared_counts() -> None:
    original, avatars = tables()
    names = ["age", "sex", "height"]
    by_subset = {c.known: c for c in _shared(original, avatars, names, 3)}
    for entry in sweep(original, avatars, names, 3).entries:
        c = by_subset[entry.known]
        assert entry.counts == c.counts
        assert entry.rate == kpr.evaluate(original, avatars, known=list(entry.known)).rate


def test_empty_original_is_an_input_error() -> None:
    empty = pl.DataFrame({"a": pl.Series([], dtype=pl.Int64)})
    with pytest.raises(kpr.InputError, match="no rows"):
        sweep(empty, pl.DataFrame({"a": [1]}), ["a"], 1)


# 40 tables, each checked on all 15 subsets of its four columns (600 comparisons with
# kpr.evaluate); hostile numbers and dates have their own tests below.
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_hypothesis_tables_every_subset(case: Case) -> None:
    original, avatars = case.frames()
    names = list(SCHEMA)
    _assert_each_subset_equals_evaluate(original, avatars, names, len(names), case.tolerance)


def test_dates_every_subset() -> None:
    """Dates are binned on their days with the range rule, like ``kpr.evaluate``."""
    original, avatars = tables()
    rng = np.random.default_rng(5)

    def born(k: int) -> pl.Series:
        days = rng.integers(0, 3000, k).tolist()
        return (
            pl.Series("born", days, dtype=pl.Int32)
            .cast(pl.Date)
            .set(pl.Series(rng.random(k) < 0.05), None)
        )

    original = original.with_columns(born(original.height))
    avatars = avatars.with_columns(born(avatars.height))
    _assert_each_subset_equals_evaluate(original, avatars, ["born", "age", "sex", "height"], 3)


def _hostile(k: int, seed: int, top: float = 1.5e300, bottom: float = -1e300) -> pl.DataFrame:
    """i11b's hostile numbers: integers near 1e12, int64 extremes, quarters, a
    z-score column (mean ~1e-17 by cancellation: its width is 5 % of that mean,
    so any rounding in its sums would show), values from subnormals to 1e300 in
    one column, and a user column named like an internal one."""
    rng = np.random.default_rng(seed)
    z = rng.integers(-8, 9, k) / 4.0
    x = rng.normal(size=k)
    mixed = rng.choice([5e-324, -1e-300, 2.5, -7.0, top, bottom, 0.0], k)
    extremes = rng.choice([-(2**63), 2**63 - 1, -(2**62), 0, 1, 2**62], k)
    return pl.DataFrame(
        {
            "ids": 10**12 + rng.integers(-50, 50, k),
            "wide": pl.Series(extremes, dtype=pl.Int64),
            "z": z,
            "zscore": (x - x.mean()) / x.std(),
            "mixed": mixed * rng.integers(1, 4, k),
            "__kpr_k0__": rng.choice(["a", "b", "c"], k),
            "__kpr_row__": rng.integers(0, 4, k),
        }
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_hostile_numbers_every_subset_in_shuffled_orders(seed: int) -> None:
    original, avatars = _hostile(400, 10 + seed), _hostile(350, 20 + seed)
    names = list(original.columns)
    for shuffled in (original, original.sample(fraction=1.0, shuffle=True, seed=seed)):
        _assert_each_subset_equals_evaluate(shuffled, avatars, names, 3)


def test_hostile_numbers_up_to_the_float_limit_equal_the_reference() -> None:
    """``mixed`` from -1.5e308 to 1.5e308: ``x - lo`` overflows for its top
    members of U, whose class is then +inf (spec: IEEE order). kpr.evaluate
    linked 6 for (z, mixed) where the reference and the sweep link 3."""
    original = _hostile(400, 11, top=5e307, bottom=-5e307).sample(
        fraction=1.0, shuffle=True, seed=1
    )
    avatars = _hostile(350, 21, top=5e307, bottom=-5e307)
    assert original["mixed"].abs().max() == 1.5e308  # the hostile magnitude, finite
    names = ["z", "mixed", "ids"]
    _assert_each_subset_equals_evaluate(original, avatars, names, 2)
    ref = reference_kpr(original.to_dicts(), avatars.to_dicts(), ["z", "mixed"], {"z", "mixed"})
    assert kpr.evaluate(original, avatars, known=["z", "mixed"]).linked == ref.linked


def test_values_near_the_float_limit_every_subset() -> None:
    rng = np.random.default_rng(5)

    def table(k: int) -> pl.DataFrame:
        near = rng.integers(-4000, 4000, k) / 4.0
        near[rng.random(k) < 0.1] = 1.7e308
        near[rng.random(k) < 0.05] = -1.7e308
        return pl.DataFrame({"near": near, "ints": rng.integers(0, 5, k)})

    original, avatars = table(300), table(250)
    for c in _shared(original, avatars, ["near", "ints"], 2):  # no overflow
        if "near" in c.known:
            std = c.bins["near"].std
            assert std is not None and math.isfinite(std), c.known
    _assert_each_subset_equals_evaluate(original, avatars, ["near", "ints"], 2)
