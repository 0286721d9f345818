"""Hostile numbers: values at the edges of float64 and int64, exact statistics,
categorical values that must never pass through a float, internal names."""

from __future__ import annotations

import math
import random
from decimal import Decimal
from typing import Any

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.engine.tuning import DEFAULT_TUNING, TablePath, Tuning

from .conftest import assert_input_error, assert_reference, rows


def _zscores(n: int = 20, seed: int = 0) -> list[float]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return [float(v) for v in (x - x.mean()) / x.std()]


def test_zscore_codes_beyond_2_53_keep_an_avatar_above_every_original_outside() -> None:
    z = _zscores()
    o, a = pl.DataFrame({"z": z}), pl.DataFrame({"z": [max(z) * 10]})
    r = kpr.evaluate(o, a, known=["z"])
    b = r.variables["z"]
    assert b.width is not None and (max(z) - b.lo) / b.width > 2.0**53  # the hostile part
    assert_reference(r, rows(o), rows(a), ["z"], {"z"})
    assert r.linked == 0 and r.rate == 100.0  # was 1 linked (95 %)


def test_zscore_top_original_still_links_its_own_avatar() -> None:
    z = _zscores(seed=3)
    o = pl.DataFrame({"z": z})
    a = pl.DataFrame({"z": [max(z), max(z) * 3, min(z) * 3]})
    r = kpr.evaluate(o, a, known=["z"])
    assert_reference(r, rows(o), rows(a), ["z"], {"z"})
    assert r.linked == 1


NEAR_LIMIT = [1e308, 1.2e308, 1.4e308, 1.6e308]


@pytest.mark.parametrize(
    ("original", "avatars"),
    [
        (NEAR_LIMIT, [9.84e307, 1.203e308, 1.389e308, 1.61e308]),  # main: 1 linked, reference 4
        ([-v for v in NEAR_LIMIT], [-9.84e307, -1.203e308, -1.389e308, -1.61e308]),
        ([-1.7e308, 1.7e308, 0.0, 1e307], [-1.7e308, 1.7e308, 1.0, 1e307]),  # variance > max float
        ([1.7976931348623157e308] * 2 + [1e308], [1e308, 1.7976931348623157e308]),
    ],
    ids=["positive", "negative", "both-signs", "max-float"],
)
def test_finite_values_near_the_float_limit_give_exact_statistics(
    original: list[float], avatars: list[float]
) -> None:
    o, a = pl.DataFrame({"v": original}), pl.DataFrame({"v": avatars})
    r = kpr.evaluate(o, a, known=["v"])
    assert r.variables["v"].mean is not None and math.isfinite(r.variables["v"].mean)
    assert_reference(r, rows(o), rows(a), ["v"], {"v"})


def test_subnormal_and_signed_zero_values() -> None:
    o = pl.DataFrame({"v": [5e-324, 1e-310, -0.0, 0.0, 2.2e-308]})
    a = pl.DataFrame({"v": [0.0, 5e-324, 1e-310, -5e-324]})
    assert_reference(kpr.evaluate(o, a, known=["v"]), rows(o), rows(a), ["v"], {"v"})


def _engines() -> dict[str, Any]:
    import duckdb

    con = duckdb.connect()
    return {
        "polars": lambda f: f,
        "lazy": lambda f: f.lazy(),
        "pandas": lambda f: f.to_pandas(),
        "duckdb": lambda f: con.from_arrow(f.to_arrow()),
    }


@pytest.mark.parametrize(
    "magnitude", [10**9, 10**12, 10**15, 2**61], ids=["1e9", "1e12", "1e15", "2^61"]
)
def test_integer_columns_give_bit_identical_bins_on_every_engine_and_row_order(
    magnitude: int,
) -> None:
    rng = random.Random(magnitude % 1000)
    values = [rng.randrange(-magnitude, magnitude) for _ in range(400)]
    expected = None
    for name, convert in _engines().items():
        for seed in range(3):
            shuffled = values[:]
            random.Random(seed).shuffle(shuffled)
            o = pl.DataFrame({"i": shuffled})
            r = kpr.evaluate(convert(o), convert(o.head(5)), known=["i"])
            got = (r.variables["i"].lo, r.variables["i"].width, r.variables["i"].mean)
            expected = expected or got
            assert got == expected, (name, seed)
    o = pl.DataFrame({"i": values})
    assert_reference(
        kpr.evaluate(o, o.head(5), known=["i"]), rows(o), rows(o.head(5)), ["i"], {"i"}
    )


def test_int64_extremes_are_numbers_without_wrapping() -> None:
    lo, hi = -(2**63), 2**63 - 1
    o = pl.DataFrame({"i": [lo, hi, 0, 1, lo + 1]})
    a = pl.DataFrame({"i": [lo, hi, 5, hi - 1]})
    assert_reference(kpr.evaluate(o, a, known=["i"]), rows(o), rows(a), ["i"], {"i"})


def _tuning(hashed: bool) -> Tuning:
    """The path of polars above 20M rows (G from hashes, packed profiles), forced."""
    return Tuning.forcing(TablePath.HASHED) if hashed else DEFAULT_TUNING


@pytest.mark.parametrize("hashed", [False, True], ids=["grouped", "hashed-packed"])
def test_int64_extremes_as_categories_in_the_packed_path(
    hashed: bool,
) -> None:
    tuning = _tuning(hashed)
    lo, hi = -(2**63), 2**63 - 1
    o = pl.DataFrame({"c": [lo, hi, 0, lo + 1], "s": ["a", "b", "a", "b"]})
    a = pl.DataFrame({"c": [lo, hi, hi, lo + 1, None], "s": ["a", "b", "b", "b", "a"]})
    r = kpr.evaluate(
        o.lazy(), a.lazy(), known=["c", "s"], kinds={"c": "categorical"}, tuning=tuning
    )
    assert_reference(r, rows(o), rows(a), ["c", "s"], set())
    assert r.linked == 2  # lo and lo + 1: hi occurs twice among the avatars


@pytest.mark.parametrize("hashed", [False, True], ids=["grouped", "hashed-packed"])
def test_an_original_outside_the_avatars_int64_range_never_wraps_onto_them(
    hashed: bool,
) -> None:
    tuning = _tuning(hashed)  # hashed: main packed 2**63 - 1 into the digit of a missing value
    lo, hi = -(2**63), 2**63 - 1
    o = pl.DataFrame({"c": [hi, 5], "s": ["a", "b"]})
    a = pl.DataFrame({"c": [None, lo, lo + 1], "s": ["a", "b", "c"]})
    r = kpr.evaluate(
        o.lazy(), a.lazy(), known=["c", "s"], kinds={"c": "categorical"}, tuning=tuning
    )
    assert_reference(r, rows(o), rows(a), ["c", "s"], set())
    assert r.linked == 0


def test_categorical_integers_beyond_2_53_stay_distinct() -> None:
    big = 2**53
    o = pl.DataFrame({"c": [big, big + 1, big + 2]})
    a = pl.DataFrame({"c": [big + 1, big + 3]})
    r = kpr.evaluate(o, a, known=["c"], kinds={"c": "categorical"})
    assert_reference(r, rows(o), rows(a), ["c"], set())
    assert r.linked == 1  # big + 1 only: each integer is its own category


def test_categorical_integers_mixed_int_widths_compare_exactly() -> None:
    big = 2**60
    o = pl.DataFrame({"c": [big, big + 1]}, schema={"c": pl.Int64})
    a = pl.DataFrame({"c": [big + 1, 7]}, schema={"c": pl.Int64}).with_columns(
        pl.col("c").cast(pl.Int64)
    )
    a32 = pl.DataFrame({"c": [1, 2]}, schema={"c": pl.Int32})
    r = kpr.evaluate(o, a, known=["c"], kinds={"c": "categorical"})
    assert_reference(r, rows(o), rows(a), ["c"], set())
    r32 = kpr.evaluate(o, a32, known=["c"], kinds={"c": "categorical"})
    assert_reference(r32, rows(o), rows(a32), ["c"], set())


def test_decimal_38_19_categories_are_never_rounded() -> None:
    dtype = pl.Decimal(38, 19)
    x = Decimal("1.0000000000000000001")
    y = Decimal("1.0000000000000000002")
    o = pl.DataFrame({"d": [x, y, Decimal(3)]}, schema={"d": dtype})
    a = pl.DataFrame({"d": [y, Decimal(3), Decimal(3)]}, schema={"d": dtype})
    r = kpr.evaluate(o, a, known=["d"], kinds={"d": "categorical"})
    assert_reference(r, rows(o), rows(a), ["d"], set())
    assert r.linked == 1  # y only; through float64 x and y are one value


def test_integers_beyond_2_53_against_floats_are_refused_not_merged() -> None:
    o = pl.DataFrame({"c": [2**53, 2**53 + 1]})
    a = pl.DataFrame({"c": [float(2**53), 1.5]})
    assert_input_error(
        lambda: kpr.evaluate(o, a, known=["c"], kinds={"c": "categorical"}),
        r"'c' is numeric \(Int64\) in original but numeric \(Float64\) in avatars",
    )


def test_small_integers_against_floats_compare_as_numbers() -> None:
    o = pl.DataFrame({"c": [1, 2, 3]})
    a = pl.DataFrame({"c": [1.0, 2.5, 3.0]})
    r = kpr.evaluate(o, a, known=["c"], kinds={"c": "categorical"})
    assert_reference(r, rows(o), rows(a), ["c"], set())
    assert r.linked == 2


@pytest.mark.parametrize(
    "name",
    ["__kpr_row__", "__kpr_hash__", "__kpr_n__", "__kpr_k0__", "__kpr_code____kpr_k0__", "c"],
)
@pytest.mark.parametrize("hashed", [False, True], ids=["grouped", "hashed"])
def test_user_columns_named_like_internal_columns(name: str, hashed: bool) -> None:
    o = pl.DataFrame({name: [1, 2, 3, 4, 5], "x": ["a", "b", "c", "c", "d"]})
    a = pl.DataFrame({name: [1, 2, 3, 9, 9], "x": ["a", "b", "c", "d", "d"]})
    r = kpr.evaluate(o, a, known=[name, "x"], tuning=_tuning(hashed))
    assert_reference(r, rows(o), rows(a), [name, "x"], {name})
    pairs = r.linked_individuals()
    assert pairs.columns == ["original_row", "avatar_row", name, "x"]
    assert pairs["original_row"].to_list() == [0, 1, 2]


def test_huge_avatars_never_overflow_an_engine() -> None:
    o = pl.DataFrame({"x": [1.0, 2.0, 3.0, 1e-300]})
    a = pl.DataFrame({"x": [1e300, -1e300, 1.7e308, -1.7e308, 2.0, math.inf, -math.inf]})
    assert_reference(kpr.evaluate(o, a, known=["x"]), rows(o), rows(a), ["x"], {"x"})
