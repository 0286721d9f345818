"""The streamed path's pieces (``kpr.engine.streamed``) against plain polars: the rows
outside U, and the text digits from a table of hashes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from kpr.engine.streamed import outside_rows, text_digit, unique_rows
from kpr.engine.tuning import DEFAULT_TUNING

_VALUES = st.one_of(st.none(), st.sampled_from(["a", "b", "é", "", "a b"]))


@given(
    st.lists(st.tuples(st.none() | st.integers(0, 3), _VALUES), max_size=40),
    st.sampled_from([1, 20]),
)
def test_outside_rows_are_the_rows_of_shared_tuples(
    rows: list[tuple[int | None, str | None]], bits: int
) -> None:
    frame = pl.DataFrame(rows, schema={"x": pl.Int64, "t": pl.String}, orient="row")
    tuning = replace(DEFAULT_TUNING, table_bits=bits)  # one bit: every slot collides
    outside, size = outside_rows(frame.lazy(), ["x", "t"], tuning)
    expected = np.flatnonzero(frame.is_duplicated().to_numpy())
    assert size == frame.height
    assert outside.tolist() == expected.tolist()
    u = unique_rows(frame.lazy(), outside, size).collect()
    assert u.equals(frame.filter(~frame.is_duplicated()))


def test_text_digits_number_each_text_once_and_missing_as_zero() -> None:
    texts = pl.Series(["b", "a", "é", "", "a b", None, "a"])
    found = text_digit("t", texts, DEFAULT_TUNING)
    assert found is not None
    digit, radix = found
    frame = pl.DataFrame({"t": ["a", "b", "é", "", "a b", None, "b", "a"]})
    got = frame.select(digit.alias("d"))["d"].to_list()
    assert radix == 6  # five texts and missing
    assert got[5] == 0
    assert got[0] == got[7] and got[1] == got[6]
    present = got[:5]
    assert len(set(present)) == 5 and all(0 < d < radix for d in present)


def test_text_digits_decline_too_many_texts_or_too_small_a_table() -> None:
    texts = pl.Series(["a", "b", "c"])
    assert text_digit("t", texts, replace(DEFAULT_TUNING, few_texts=2)) is None
    assert text_digit("t", texts, replace(DEFAULT_TUNING, table_bits=1)) is None
