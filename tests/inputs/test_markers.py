"""The marker counts, made on a column's distinct values, equal a row-by-row count."""

from __future__ import annotations

import re

import narwhals as nw
import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from kpr.inputs.markers import MARKERS, NUMBER, MarkerCount, marker_counts

VALUES = st.one_of(
    st.none(),
    st.sampled_from([*MARKERS, "1", " 2.5 ", "-3e2", "inf", "NaN", "x", "N A"]),
    st.text(max_size=3),
)


def reference(values: list[str | None]) -> MarkerCount:
    found: dict[str, int] = {}
    numbers = others = 0
    for v in values:
        if v is None:
            continue
        if v in MARKERS:
            found[v] = found.get(v, 0) + 1
        elif re.search(NUMBER, v):
            numbers += 1
        else:
            others += 1
    return MarkerCount(found, numbers, others, len(values))


@given(st.lists(VALUES, max_size=40))
def test_the_counts_equal_a_row_by_row_count(values: list[str | None]) -> None:
    frame = nw.from_native(
        pl.DataFrame(
            {"v": values, "n": [1.0] * len(values)}, schema={"v": pl.String, "n": pl.Float64}
        ).lazy()
    )
    counts = marker_counts(frame, ["v", "n"])
    assert counts == {"v": reference(values)}
