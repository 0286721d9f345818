"""The leak benchmark's features: computed from the release alone, one row per row."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import polars as pl

_PATH = Path(__file__).parents[2] / "benchmarks" / "bench_protect_leak.py"
_SPEC = importlib.util.spec_from_file_location("bench_protect_leak", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
leak = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(leak)

RELEASE = pl.DataFrame(
    {
        "age": [30, 30, 41, 52, 52, 52],
        "income": [1.5, 2.25, 2.25, 9.0, 7.0, 7.5],
        "sex": ["F", "F", "M", "M", "M", "F"],
        "job": ["a", "a", "b", "b", "b", "c"],
    }
)


def test_features_by_hand() -> None:
    f = leak.leak_features(RELEASE, ["age", "income", "sex"])
    assert f.height == RELEASE.height
    assert f["profile_exact"].to_list() == [1, 1, 1, 1, 1, 1]
    assert f["mult_age"].to_list() == [2, 2, 1, 3, 3, 3]
    assert f["two_three_age"].to_list() == [1, 1, 0, 1, 1, 1]
    assert f["mult_income"].to_list() == [1, 2, 2, 1, 1, 1]
    # (sex, job) pairs: F-a twice, M-b three times, F-c once (no other row holds it)
    assert f["pairs_absent"].to_list() == [0, 0, 0, 0, 0, 1]
    assert f["pairs_min"].to_list() == [1, 1, 2, 2, 2, 0]


def test_features_see_only_the_release() -> None:
    """The same release gives the same features whatever else changed (labels, order)."""
    order = [5, 3, 1, 0, 4, 2]
    f = leak.leak_features(RELEASE, ["age", "income", "sex"])
    g = leak.leak_features(RELEASE[order], ["age", "income", "sex"])
    assert f[order].equals(g)


def test_labels_from_the_change_log() -> None:
    changes = pl.DataFrame({"avatar_row": [3, 1, 3], "column": ["age", "sex", "income"]})
    assert leak.changed_rows(changes, 5).tolist() == [0, 1, 0, 1, 0]
    assert leak.changed_rows(None, 3).tolist() == [0, 0, 0]
    assert np.asarray(leak.changed_rows(changes, 5)).dtype == np.int8


def test_window_rate_is_the_window_rule() -> None:
    """The cost table's window-rule rate: 100 * (1 - linked / |U|), linked by the
    brute-force window reference."""
    from tests.reference import _unique, reference_window

    original = pl.DataFrame(
        {
            "age": [30, 31, 45, 52, 60, 61, 70, 33],
            "income": [1.0, 2.0, 3.0, 9.0, 7.0, 7.5, 4.0, 1.2],
            "sex": ["F", "F", "M", "M", "M", "F", "F", "M"],
        }
    )
    avatars = original.with_columns(pl.col("age") + pl.Series([0, 9, 1, 0, 30, 0, 2, 0]))
    known = ["age", "income", "sex"]
    o, a = original.to_dicts(), avatars.to_dicts()
    linked = reference_window(o, a, known, {"age", "income"})
    unique = _unique(o, known)
    expected = 100.0 * (1 - len(linked) / len(unique))
    assert 0 < len(linked) < len(unique)
    assert abs(leak.window_rate(original, avatars, known) - expected) < 1e-9


def test_placebo_scores_the_same_labels() -> None:
    """A feature that only the protected release carries: the protected AUC finds the
    changed rows, the placebo (same labels, unprotected features) does not."""
    import pytest

    pytest.importorskip("sklearn")
    label = np.array([0, 1] * 100, dtype=np.int8)  # leaves of 20 rows need some
    protected = pl.DataFrame({"x": label.astype(np.float64)})
    placebo = pl.DataFrame({"x": np.zeros(200)})
    assert leak.cv_auc(protected, label) == 1.0
    assert leak.cv_auc(placebo, label) == 0.5


def test_each_family_left_out_alone() -> None:
    """--ablate leaves out exactly one family's columns, and every column is in one family."""
    f = leak.leak_features(RELEASE, ["age", "income", "sex"])
    left = {family: set(leak.without_family(f, family).columns) for family in leak.FAMILIES}
    assert set(f.columns) - left["profile counts"] == {"profile_exact", "profile_coarse"}
    assert set(f.columns) - left["exact-value multiplicity"] == {
        "mult_age", "two_three_age", "mult_income", "two_three_income"
    }  # fmt: skip
    assert set(f.columns) - left["categorical-pair plausibility"] == {
        "pairs_absent", "pairs_rare", "pairs_min"
    }  # fmt: skip
    assert set.intersection(*left.values()) == set()
