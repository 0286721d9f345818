"""Every utility score stays inside its schema's bounds [0, 1]: one minus a total
variation fell to -2.2e-16 when two distributions share no cell."""

from __future__ import annotations

import numpy as np
import polars as pl

import kpr
from kpr.fidelity.pairs import contingency_similarity

DISJOINT_REAL = np.array([11.0, 18.0, 32.0, 0.0, 0.0, 0.0])
DISJOINT_SYNTHETIC = np.array([0.0, 0.0, 0.0, 25.0, 27.0, 1.0])


def test_the_raw_formula_falls_below_zero_on_these_tables() -> None:
    """The case is real: without the bound the score would be negative."""
    raw = 1 - (np.abs(DISJOINT_REAL / 61 - DISJOINT_SYNTHETIC / 53) / 2).sum()
    assert raw < 0


def test_contingency_similarity_of_disjoint_tables_is_zero() -> None:
    assert contingency_similarity(DISJOINT_REAL, DISJOINT_SYNTHETIC, 61, 53) == 0.0


def test_utility_scores_of_disjoint_tables_stay_in_bounds() -> None:
    real = pl.DataFrame({"a": ["x"] * 11 + ["y"] * 18 + ["z"] * 32, "b": ["p"] * 61})
    syn = pl.DataFrame({"a": ["x"] * 25 + ["y"] * 27 + ["z"], "b": ["q"] * 53})
    got = kpr.utility(real, syn)
    scores = [*got.columns["score"].to_list(), *got.pairs["score"].drop_nans().to_list()]
    scores += [got.overall, got.column_shapes]
    assert all(0.0 <= s <= 1.0 for s in scores), scores
