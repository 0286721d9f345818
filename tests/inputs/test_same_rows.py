"""The one row matcher (kpr.inputs.same_rows): rows equal by value and kind, against a
brute-force comparison of Python values."""

from __future__ import annotations

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from kpr.inputs.same_rows import comparable, repeated_rows, rows_found, same_rows

ROWS = st.lists(
    st.tuples(st.one_of(st.none(), st.integers(0, 3)), st.sampled_from(["a", "b", None])),
    max_size=12,
)


Row = tuple[int | None, str | None]


def _frame(rows: list[Row], as_float: bool, as_text: bool) -> pl.DataFrame:
    frame = pl.DataFrame(rows, schema={"x": pl.Int64, "c": pl.String}, orient="row")
    if as_float:
        frame = frame.with_columns(pl.col("x").cast(pl.Float64))
    if as_text:  # a CSV read as text: "3.0", "3"
        frame = frame.with_columns(pl.col("x").cast(pl.String))
    return frame


@given(ROWS, ROWS, st.booleans(), st.booleans())
def test_rows_match_by_value_whatever_the_numbers_look_like(
    left: list[Row],
    right: list[Row],
    right_float: bool,
    right_text: bool,
) -> None:
    a, b = comparable(_frame(left, False, False), _frame(right, right_float, right_text))
    assert rows_found(b, a) == sum(row in set(left) for row in right)
    assert repeated_rows(a) == sum(1 for row in left if left.count(row) > 1)
    assert same_rows(a, b) == (sorted(left, key=repr) == sorted(right, key=repr))
