"""The class rule (kpr.metric.classes): every dialect an engine runs gives, value
by value, the code ``code_of`` gives: numpy (the in-memory engine), and the
narwhals expressions on polars, DuckDB, Dask and Spark (``kpr.engine.queries.
code_frame``, which every lazy engine runs). The edge values: a value exactly on
a class edge, NaN, None, ±inf, -0.0, 2**53 and beyond, values far outside U's
classes (the outside class), an empty U, float codes beyond 2**62, and a grid
whose origin is moved."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kpr.engine.inmemory.digits import digit_shift, shifted_digits
from kpr.engine.queries import code_frame
from kpr.metric import classes
from kpr.metric.attack import Kind
from kpr.metric.binning import Moments, NumericBins, numeric_bins
from kpr.metric.classes import (
    DIGIT_OFFSET,
    MISSING,
    NEG_INF,
    OUTSIDE,
    POS_INF,
    code_of,
    code_radix,
    label_of,
    pack_digits,
    push_digit,
    value_codes,
)
from tests.engine.conftest import _duckdb_convert, _to_dask, _to_spark
from tests.engine.conftest import spark as spark  # the session fixture, for getfixturevalue

#: U's values 0 .. 99.9 on classes 10 wide from 0: codes 0 .. 9.
TENS = NumericBins(10, 50.0, 30.0, 0.0, 99.9, lo=0.0, width=10.0, code_min=0.0, code_max=9.0)
#: Classes 0.1 wide: 0.3 / 0.1 is 2.9999999999999996 in float64 (class 2, not 3).
TENTHS = NumericBins(3, 0.2, 0.1, 0.0, 0.5, lo=0.0, width=0.1, code_min=0.0, code_max=5.0)
#: Codes up to 2**60 (int64 codes beyond the floats' exact integers).
WIDE = NumericBins(2, 0.0, 0.0, 0.0, 2.0**60, lo=0.0, width=1.0, code_min=0.0, code_max=2.0**60)
#: Codes beyond 2**62: float codes, and the top of U's range overflows to inf.
HUGE = NumericBins(2, 0.0, 0.0, 0.0, 1e10, lo=0.0, width=1e-300, code_min=0.0, code_max=math.inf)
#: No finite value in U: every finite value is outside.
EMPTY = NumericBins(0, None, None, None, None, 0.0, 1.0, None, None)
#: TENS on a grid moved down by a quarter of the width: classes from -2.5.
MOVED = TENS.moved(0.25)
#: The other moved grids protect's collateral measures: origins -5 and -7.5; TENTHS
#: moved by half a width (edges at 0.05 + k * 0.1, where float rounding decides).
MOVED_GRIDS = {
    "moved half": TENS.moved(0.5),
    "moved 3/4": TENS.moved(0.75),
    "tenths moved half": TENTHS.moved(0.5),
}

BINS = {
    "tens": TENS, "tenths": TENTHS, "wide": WIDE, "huge": HUGE, "empty": EMPTY, "moved": MOVED,
    **MOVED_GRIDS,
}  # fmt: skip

FLOATS: list[float | None] = [
    0.0,
    -0.0,
    10.0,  # on an edge: the class above
    9.999999999999998,
    0.3,
    0.30000000000000004,
    7.5,  # an edge of the moved grid
    -2.5,
    5.0,  # edges of the grids moved by 1/2 and 3/4
    2.5,
    -5.0,
    -7.5,
    0.05,
    0.15000000000000002,
    99.9,
    100.0,
    -1e-300,
    5e-324,
    2.0**53,
    2.0**53 + 2,
    2.0**60,
    2.0**63,
    1e300,
    -1e300,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    math.nan,
    None,
    math.inf,
    -math.inf,
]
INTS: list[int | None] = [0, 7, 10, 2**53, 2**53 + 1, 2**60 + 1, 2**62, 2**63 - 1, -(2**63), None]

ENGINES = ["polars", "duckdb", "dask", "spark"]


@pytest.fixture(params=ENGINES)
def convert(request: pytest.FixtureRequest) -> Callable[[pl.DataFrame], Any]:
    """A polars frame as one engine's input (``tests/engine/conftest.py``)."""
    name = request.param
    if name == "polars":
        return lambda f: f.lazy()
    if name == "duckdb":
        return _duckdb_convert()
    if name == "dask":
        return _to_dask
    session = request.getfixturevalue("spark")
    return lambda f: _to_spark(session, f)


def _engine_codes(native: Any, bins: NumericBins) -> list[float]:
    """The codes ``code_frame`` gives on one engine, in the rows' order."""
    frame = nw.from_native(native).lazy()
    coded = code_frame(frame, {"x": Kind.NUMERIC}, {"x": bins}, "id").collect()
    rows = sorted(zip(coded["id"].to_list(), coded["__kpr_code__x"].to_list(), strict=True))
    return [float(code) for _, code in rows]


def _expected(values: list[Any], bins: NumericBins) -> list[float]:
    return [float(code_of(v, bins)) for v in values]


@pytest.mark.parametrize("grid", list(BINS))
def test_numpy_gives_the_codes_of_code_of(grid: str) -> None:
    bins = BINS[grid]
    values = np.array([math.nan if v is None else v for v in FLOATS], dtype=np.float64)
    assert value_codes(values, bins).tolist() == _expected(FLOATS, bins)
    ints = np.array([0 if v is None else v for v in INTS], dtype=np.int64).astype(np.float64)
    assert value_codes(ints, bins).tolist() == _expected(
        [0 if v is None else v for v in INTS], bins
    )


@pytest.mark.parametrize("grid", list(BINS))
def test_numpy_codes_written_in_a_given_array_are_the_same(grid: str) -> None:
    """A block loop passes the array to write in (``out``), full of an earlier
    block's codes: every code is written again."""
    bins = BINS[grid]
    values = np.array([math.nan if v is None else v for v in FLOATS], dtype=np.float64)
    for shift, specials in ((0.0, 0.0), (-3.0, 4.0)):
        expected = value_codes(values, bins, shift, specials)
        out = np.full(len(values), 123.0)
        assert value_codes(values, bins, shift, specials, out=out) is out
        assert out.tolist() == expected.tolist()
        inside = values[np.isfinite(values) & (np.abs(values) < 50)]
        part = out[: len(inside)]
        assert value_codes(inside, bins, shift, specials, out=part).tolist() == (
            value_codes(inside, bins, shift, specials).tolist()
        )


@pytest.mark.parametrize("grid", list(BINS))
def test_every_engine_gives_the_codes_of_code_of(
    grid: str, convert: Callable[[pl.DataFrame], Any]
) -> None:
    bins = BINS[grid]
    floats = pl.DataFrame(
        {"id": range(len(FLOATS)), "x": FLOATS}, schema={"id": pl.Int64, "x": pl.Float64}
    )
    assert _engine_codes(convert(floats), bins) == _expected(FLOATS, bins)
    ints = pl.DataFrame({"id": range(len(INTS)), "x": INTS}, schema={"id": pl.Int64, "x": pl.Int64})
    assert _engine_codes(convert(ints), bins) == _expected(INTS, bins)


def test_code_of_names_each_edge_case() -> None:
    """The reference itself, on the cases the dialects are compared on."""
    assert [code_of(v, TENS) for v in (0.0, -0.0, 10.0, 9.999999999999998, 99.9)] == [0, 0, 1, 0, 9]
    assert [code_of(v, TENS) for v in (100.0, -1e-300, 1e300, 2**53 + 1)] == [OUTSIDE] * 4
    assert [code_of(v, TENS) for v in (math.nan, None, math.inf, -math.inf)] == [
        MISSING,
        MISSING,
        POS_INF,
        NEG_INF,
    ]
    assert code_of(0.3, TENTHS) == 2  # 0.3 / 0.1 is just below 3 in float64
    assert code_of(2**53 + 1, WIDE) == 2**53  # an integer read as float64 first
    assert code_of(2**60 + 1, WIDE) == 2**60 and code_of(2**62, WIDE) == OUTSIDE
    assert code_of(5.0, HUGE) == 5.0 / 1e-300 and code_of(1e10, HUGE) == math.inf
    assert code_of(1e300, HUGE) == math.inf  # x - lo / width overflows: the class inf
    assert code_of(-1.0, HUGE) == float(OUTSIDE)  # float codes, specials too
    assert [code_of(v, EMPTY) for v in (0.0, math.nan, math.inf)] == [OUTSIDE, MISSING, POS_INF]
    assert [code_of(v, MOVED) for v in (-2.5, 0.0, 7.5, 7.4, 99.9, 97.6)] == [0, 0, 1, 0, 10, 10]
    assert (MOVED.origin, MOVED.code_min, MOVED.code_max) == (-2.5, 0.0, 10.0)
    half, three = MOVED_GRIDS["moved half"], MOVED_GRIDS["moved 3/4"]
    assert [code_of(v, half) for v in (-5.0, 4.9, 5.0, 94.9, 95.0)] == [0, 0, 1, 9, 10]
    assert [code_of(v, three) for v in (-7.5, 2.4, 2.5, 99.9)] == [0, 0, 1, 10]
    assert code_of(-5.1, half) == OUTSIDE  # below the moved origin: no member of U there


def test_a_grid_offset_is_a_fraction_of_the_width() -> None:
    assert TENS.moved(0.0) == TENS
    for offset in (-0.1, 1.0, math.nan):
        with pytest.raises(ValueError, match="fraction of the width"):
            TENS.moved(offset)
    m = Moments(3, 1.0, 5.0, 0, 9, 35)
    assert numeric_bins(m, 0.5, offset=0.5) == numeric_bins(m, 0.5).moved(0.5)


def test_the_in_memory_digits_are_the_codes_shifted() -> None:
    """Classes less the shift, special codes plus DIGIT_OFFSET: digits in [0, radix)."""
    for bins in (TENS, TENTHS, MOVED, EMPTY):
        plan = digit_shift(bins)
        assert plan is not None
        shift, radix = plan
        values = np.array([math.nan if v is None else v for v in FLOATS], dtype=np.float64)
        codes = np.array(_expected(FLOATS, bins))
        expected = np.where(codes >= 0, codes - shift, codes + DIGIT_OFFSET)
        digits = shifted_digits(values, bins, shift)
        assert digits.tolist() == expected.astype(np.int64).tolist()
        assert digits.min() >= 0 and digits.max() < radix
        # every code plus the offset (the polars packing) lies in [0, code_radix)
        assert codes.min() + DIGIT_OFFSET >= 0 and codes.max() + DIGIT_OFFSET < code_radix(bins)
    assert digit_shift(WIDE) is None  # 2**60 classes: numbered densely instead


@given(
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=30),
    st.floats(-1e6, 1e6),
    st.floats(1e-3, 1e3),
    st.floats(0.0, 0.99),
)
def test_numpy_and_polars_follow_code_of_on_any_value(
    values: list[float], low: float, width: float, offset: float
) -> None:
    present = [v for v in values if math.isfinite(v)] or [low]
    lo, hi = min(present), max(present)
    base = NumericBins(len(present), None, None, lo, hi, lo, width, None, None)
    bins = base.moved(offset)
    expected = _expected(values, bins)
    assert value_codes(np.array(values, dtype=np.float64), bins).tolist() == expected
    frame = pl.DataFrame(
        {"id": range(len(values)), "x": values}, schema={"id": pl.Int64, "x": pl.Float64}
    )
    assert _engine_codes(frame.lazy(), bins) == expected


def test_labels_read_the_classes() -> None:
    assert label_of(0, TENS) == "[0.0, 10.0)"
    assert label_of(0, MOVED) == "[-2.5, 7.5)"
    assert [label_of(c, TENS) for c in (OUTSIDE, MISSING, POS_INF, NEG_INF)] == [
        "outside U's range",
        "missing",
        "+inf",
        "-inf",
    ]
    assert label_of(math.inf, HUGE) == classes.OVERFLOW_LABEL
    assert classes.special_labels(False)[math.inf] == classes.OVERFLOW_LABEL
    assert classes.special_labels(True) == {-1: "outside U's range", -2: "missing", -3: "+inf",
                                            -4: "-inf"}  # fmt: skip


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 2), st.integers(0, 12)), min_size=1))
def test_one_packer_packs_profiles_injectively_on_arrays_and_expressions(
    rows: list[tuple[int, int, int]],
) -> None:
    radices = [7, 3, 13]
    digits = [np.array(column, dtype=np.int64) for column in zip(*rows, strict=True)]
    keys = pack_digits(digits, radices)
    assert keys.tolist() == [(a * 3 + b) * 13 + c for a, b, c in rows]
    assert pack_digits(digits, radices, object).tolist() == keys.tolist()  # Python integers
    block = np.empty(len(rows), dtype=np.uint32)
    block[:] = 0
    for digit, radix in zip(digits, radices, strict=True):
        push_digit(block, digit, radix, out=block)
    assert block.tolist() == keys.tolist()
    frame = pl.DataFrame({f"d{i}": d for i, d in enumerate(digits)})
    key: pl.Expr = pl.lit(0, pl.Int64)
    for i, radix in enumerate(radices):
        key = push_digit(key, pl.col(f"d{i}"), radix)
    assert frame.select(key).to_series().to_list() == keys.tolist()
    assert len(set(keys.tolist())) == len(set(rows))
