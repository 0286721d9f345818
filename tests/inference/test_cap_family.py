"""SDMetrics' cut and CAP figures, checked here against pandas and a loop over rows
(tests_sdmetrics/ checks them against SDMetrics itself)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import kpr
from kpr.metric.cap_family import cut_edges


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-1000, 1000).map(lambda k: k / 8), min_size=1, max_size=30))
def test_the_cut_is_pandas_cut(values: list[float]) -> None:
    x = np.array(values)
    codes, bins = pd.cut(x, 10, labels=False, retbins=True)
    edges = np.array(cut_edges(x.min(), x.max()))
    assert list(edges) == list(bins[1:-1])
    assert list(codes) == [int(np.sum(edges < v)) for v in x]


def _loop_cap(o: list[tuple], a: list[tuple], zero: bool) -> float:
    """SDMetrics' rule, row by row: the share of the synthetic rows with my key that
    have my secret; a missing key skipped (CAP) or scored 0 (ZeroCAP)."""
    scores = []
    for key, secret in o:
        mine = [s for k, s in a if k == key]
        if mine:
            scores.append(sum(s == secret for s in mine) / len(mine))
        elif zero:
            scores.append(0.0)
    return 1 - sum(scores) / len(scores) if scores else math.nan


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xy")), min_size=1, max_size=20),
    st.lists(st.tuples(st.sampled_from("abd"), st.sampled_from("xy")), min_size=1, max_size=20),
)
def test_cap_and_zero_cap_are_the_row_by_row_rule(o: list[tuple], a: list[tuple]) -> None:
    frame = lambda rows: pl.DataFrame(rows, schema=["k", "s"], orient="row")  # noqa: E731
    got = kpr.inference(frame(o), frame(a), ["k"], secret="s")["s"].sdmetrics
    figures = {f.metric: f.value for f in got}
    cap, zero = _loop_cap(o, a, False), _loop_cap(o, a, True)
    assert (
        figures["CategoricalZeroCAP"] is not None
        and abs(figures["CategoricalZeroCAP"] - zero) < 1e-12
    )
    assert figures["CategoricalCAP"] is not None
    assert (math.isnan(cap) and math.isnan(figures["CategoricalCAP"])) or abs(
        figures["CategoricalCAP"] - cap
    ) < 1e-12
