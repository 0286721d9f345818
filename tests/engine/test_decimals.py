"""A float column of few values counted as whole numbers of tenths, hundredths...
(``kpr.engine.inmemory.decimals``), against numpy's own distinct values and counts,
and refused (None, the group-by then counts it) whenever one value is off the grid;
the streamed path's counts of a column of few values, the same, and of a column it
sorts, a count by hand."""

from __future__ import annotations

import math
import warnings
from collections import Counter

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kpr.engine.inmemory.columns import SortedColumn, few_value_counts, grouped_values
from kpr.engine.inmemory.decimals import SCALES, decimal_counts
from kpr.engine.streamed import column_counts, value_candidates
from kpr.engine.tuning import Tuning


def reference(values: np.ndarray) -> tuple[list[float], list[int]]:
    """The distinct present values (-0.0 as 0.0) and their rows, by ``np.unique``."""
    present = values[~np.isnan(values)] + 0.0
    distinct, counts = np.unique(present, return_counts=True)
    return distinct.tolist(), counts.tolist()


def counted(values: np.ndarray, span: int = 1 << 20, block: int = 1 << 16) -> object:
    absent = np.isnan(values)
    got = decimal_counts(values, absent if absent.any() else None, span, block)
    return None if got is None else (got[0].tolist(), got[1].tolist())


@settings(max_examples=120)
@given(
    st.lists(st.one_of(st.none(), st.integers(-5_000, 5_000)), min_size=1, max_size=300),
    st.sampled_from(SCALES),
    st.sampled_from([1, 3, 1 << 16]),
    st.sampled_from([1 << 20, 64]),
)
def test_decimal_counts_are_numpys_distinct_values(
    codes: list[int | None], scale: float, block: int, span: int
) -> None:
    """Whole numbers of ``1 / scale`` (missing as NaN) give numpy's distinct values and
    counts, whatever the block of rows checked at a time and whether the codes are
    counted a block at a time or gathered first; None only when no value is present,
    or (``span`` 64) when the codes may span more than ``span``."""
    values = np.array([np.nan if c is None else c / scale for c in codes], dtype=np.float64)
    got = counted(values, span, block)
    if all(c is None for c in codes):
        assert got is None
    elif span == 1 << 20:  # 10,001 codes at most, at any scale
        assert got == reference(values)
    else:
        assert got is None or got == reference(values)


@pytest.mark.parametrize(
    "values",
    [
        [0.1, 0.2, 1 / 3],  # a third is no whole number of thousandths
        [1.0, float("inf")],
        [1.0, -float("inf"), 2.0],
        [1.0, 2.0**60],  # beyond exact whole numbers in float64
        [0.0001, 0.0002],  # four decimals: beyond the scales tried
    ],
)
def test_a_value_off_the_grid_leaves_the_column_to_the_group_by(values: list[float]) -> None:
    assert counted(np.array(values), block=4) is None


def test_a_value_finer_than_the_sample_is_counted_at_its_scale() -> None:
    """The sample (every 25th row here) sees whole numbers; one row needs hundredths."""
    values = np.array([18.0, 18.25] + [18.0] * 99)
    assert counted(values, block=4) == ([18.0, 18.25], [100, 1])


@pytest.mark.parametrize("huge", [1e308, -1.7e308, 2.0**60])
def test_huge_values_are_refused_without_a_warning(huge: float) -> None:
    """Values whose codes would not be whole numbers in float64 (or would overflow):
    None, and no overflow warning on the way (the command turns one into a line)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert counted(np.array([1.0, huge, 2.0, np.nan])) is None


def test_negative_zero_and_missing_values() -> None:
    """-0.0 is one value with 0.0 (as a group-by has it); NaN and missing are not counted."""
    values = np.array([-0.0, 0.0, np.nan, 2.5, -2.5, 2.5])
    assert counted(values) == ([-2.5, 0.0, 2.5], [1, 2, 2])


def test_a_column_holding_no_value_is_left_to_the_group_by() -> None:
    assert counted(np.array([np.nan, np.nan])) is None
    assert decimal_counts(np.zeros(0), None, 10, 10) is None


@pytest.mark.parametrize("column", [
    pl.Series([170.1, 170.1, None, 165.3, float("nan"), 180.0] * 50),
    pl.Series([18.0, 90.0, 45.0, None] * 40),
    pl.Series([100.0, 1_555_600.0, 400.0, 100.0] * 30),  # codes gathered, then counted
    pl.Series([0.1, 1 / 3, 0.2] * 40),  # off the grid: the group-by
])  # fmt: skip
def test_sorted_column_of_few_floats_is_the_sorted_columns(column: pl.Series) -> None:
    """A column of few floats, counted by :func:`grouped_values` (as whole numbers, or
    by the group-by), holds the distinct values and rows its sort finds."""
    grouped = SortedColumn.of(column, Tuning(check_block=8))
    ordered = SortedColumn.of(column, Tuning(few_values=0))
    assert grouped.distinct.tolist() == ordered.distinct.tolist()
    assert grouped.rows.tolist() == ordered.rows.tolist()
    values = column.fill_null(np.nan).to_numpy()
    assert grouped_values(column, Tuning(), values, np.isnan(values)) is not None


def test_float32_columns_keep_their_own_values() -> None:
    """A float32 column is grouped by polars: its distinct values are float32's (0.1 as
    float32, not float64's 0.1)."""
    column = pl.Series([0.1, 0.2, 0.1] * 20, dtype=pl.Float32)
    grouped = SortedColumn.of(column)
    assert grouped.distinct.tolist() == np.array([0.1, 0.2], dtype=np.float32).tolist()


@pytest.mark.parametrize(
    "column",
    [
        pl.Series([3, 1, 3, 2, 1_000]),  # a small range: one bincount
        pl.Series([0, 2**40, 2**40, 7]),  # a wide range of few values: the group-by
        pl.Series([1.5, float("nan"), 2.5, 1.5, -0.0, 0.0]),  # floats on a grid, one NaN
        pl.Series([0.1, 1 / 3, float("nan"), float("nan")]),  # off the grid: the group-by
    ],
)
def test_few_value_counts_are_numpys(column: pl.Series) -> None:
    """What the streamed path counts a column of few values by: numpy's distinct values
    and counts, NaN apart (-0.0 one with 0.0)."""
    got = few_value_counts(column, Tuning())
    assert got is not None
    distinct, rows, nan = got
    values = column.cast(pl.Float64).to_numpy()
    assert (distinct.astype(np.float64).tolist(), rows.tolist()) == reference(values)
    assert nan == int(np.isnan(values).sum())


def test_streamed_counts_take_nan_as_one_value() -> None:
    """A NaN held by one row is a value no other row holds, as in memory."""
    frame = pl.LazyFrame({"x": [1.5, 1.5, float("nan"), 2.0, None]})
    counts = column_counts(frame, "x", False, Tuning())
    assert counts.unique == 3  # NaN, 2.0 and the missing value, each on one row
    assert counts.grouped is not None and counts.grouped[0].tolist() == [1.5, 2.0]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.sampled_from([0.0, -0.0, float("nan"), 1.5, -2.25, 1e300, float("inf")]),
            st.floats(allow_nan=True, width=64),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_sorted_streamed_counts_and_candidates_are_a_count_by_hand(
    values: list[float | None],
) -> None:
    """A number column sorted (never grouped: ``few_values`` 0):
    the rows holding a value no other row holds (missing and NaN each one value,
    -0.0 one with 0.0), its distinct values, and the rows U's candidates are read
    from (a value held twice or more, missing, NaN) are those counted by hand."""
    frame = pl.LazyFrame({"x": values}, schema={"x": pl.Float64})
    counts = column_counts(frame, "x", True, Tuning(few_values=0))
    keys = ["none" if v is None else "nan" if math.isnan(v) else v + 0.0 for v in values]
    held = Counter(keys)
    assert counts.unique == sum(1 for k in keys if held[k] == 1)
    assert counts.profile == {
        "missing": keys.count("none"),
        "distinct": len(held) - ("none" in held),
    }
    if counts.shared is None:  # no present value: nothing to sort
        assert counts.grouped is not None and set(keys) == {"none"}
        return
    shared = {v + 0.0 for v in counts.shared.tolist()}
    assert shared == {k for k, c in held.items() if c > 1 and not isinstance(k, str)}
    assert len(shared) == len(counts.shared)
    candidates = value_candidates(counts.read(frame), counts.shared).tolist()
    assert candidates == [i for i, k in enumerate(keys) if isinstance(k, str) or held[k] > 1]
