"""The ids of the count table's cells (``profiles._numbered``), found from each key's
rank among its distinct values without sorting the table, equal those of the plain
sort of the keys (``profiles.sorted_ids``, the way they were found before), for every
kind of key: floats with NaN,
-0.0 and infinities, text, whole numbers, booleans, dates, categoricals, missing."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from kpr.engine.profiles import CLASS, PROFILE, _numbered, levels, sorted_ids

FLOATS = st.one_of(
    st.none(),
    st.sampled_from([float("nan"), -0.0, 0.0, float("inf"), float("-inf"), 1e300]),
    st.integers(-3, 3).map(float),
)
COLUMNS: dict[str, tuple[Any, st.SearchStrategy[Any]]] = {
    "f": (pl.Float64, FLOATS),
    "s": (pl.String, st.one_of(st.none(), st.sampled_from(["", "a", "B", "é東", "a b"]))),
    "i": (pl.Int64, st.one_of(st.none(), st.integers(-2, 2), st.just(2**62))),
    "b": (pl.Boolean, st.one_of(st.none(), st.booleans())),
    "d": (pl.Date, st.one_of(st.none(), st.dates(dt.date(1999, 12, 30), dt.date(2000, 1, 2)))),
    "c": (pl.Categorical, st.one_of(st.none(), st.sampled_from(["z", "y", "x"]))),
}


@st.composite
def tables(draw: st.DrawFn) -> tuple[pl.DataFrame, list[str]]:
    """A count table: distinct key rows (a cell each), keys of any kind, a count."""
    names = draw(st.lists(st.sampled_from(list(COLUMNS)), min_size=1, max_size=4, unique=True))
    rows = draw(st.lists(st.tuples(*(COLUMNS[n][1] for n in names)), max_size=60))
    schema = {n: COLUMNS[n][0] for n in names}
    table = pl.DataFrame(rows, schema=schema, orient="row").unique(maintain_order=True)
    return table.with_row_index("people"), names


def _in_order(table: pl.DataFrame, order: np.ndarray | None) -> pl.DataFrame:
    return table if order is None else table[order]


@settings(max_examples=300, deadline=None)
@given(tables())
def test_ids_equal_the_plain_sort(drawn: tuple[pl.DataFrame, list[str]]) -> None:
    table, names = drawn
    keys, extra = names[:-1], names[-1]
    got, order = _numbered(table, keys, extra)
    assert _in_order(got, order).equals(sorted_ids(table, keys, extra))


def test_a_large_shuffled_table_takes_the_fast_path() -> None:
    """A million-cell-like table (here 20k cells) in shuffled order: ids found without
    sorting it (``order`` given), equal to the plain sort's."""
    rng = np.random.default_rng(5)
    n = 20_000
    table = pl.DataFrame({
        "k0": rng.integers(0, 400, n).astype(float),
        "k1": rng.choice(["north", "south", "é東", None], n),
        "t": rng.choice(["y", "n", None], n),
    }).unique()  # fmt: skip
    table = table.with_row_index("people").sample(fraction=1.0, shuffle=True, seed=1)
    got, order = _numbered(table, ["k0", "k1"], "t")
    assert order is not None
    assert got.equals(table.with_columns(got[PROFILE], got[CLASS]))  # rows left in place
    assert _in_order(got, order).equals(sorted_ids(table, ["k0", "k1"], "t"))


def test_levels_decline_what_they_cannot_check() -> None:
    """A lone NaN matches no level in a polars join: declined, and the sort decides."""
    lone = pl.DataFrame({"x": [float("nan")]})
    assert levels(lone, pl.col("x")) is None
    got, order = _numbered(lone.with_row_index("people"), [], "x")
    assert order is None and got[CLASS].to_list() == [0]
    assert levels(pl.DataFrame({"x": [2.0, None, -0.0, 0.0]}), pl.col("x")) is not None
