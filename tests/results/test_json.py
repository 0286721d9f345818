"""One JSON policy for every result (kpr.results.json): valid JSON, undefined -> null."""

from __future__ import annotations

import json
import math

import pytest

from kpr.avatar import Closeness, DistanceMetrics
from kpr.results.json import dumps, finite_or_none


def test_undefined_distances_are_null_not_nan() -> None:
    """A table of no rows has no copy share and no median distance: null, valid JSON."""
    empty = Closeness(rows=0, exact_copies=0, median_dcr=math.nan, median_nndr=math.nan)
    metrics = DistanceMetrics(synthetic=empty, holdout=None, ncp=2, n_original=5)
    parsed = json.loads(metrics.to_json(), parse_constant=pytest.fail)
    assert parsed["synthetic"] == {
        "rows": 0, "exact_copies": 0, "exact_copy_percent": None,
        "median_dcr": None, "median_nndr": None,
    }  # fmt: skip


@pytest.mark.parametrize("x", [math.nan, math.inf, -math.inf])
def test_non_finite_is_null_or_refused(x: float) -> None:
    assert finite_or_none(x) is None
    with pytest.raises(ValueError):
        dumps({"x": x})


def test_text_stays_readable() -> None:
    assert dumps({"name": "âge"}, indent=None) == '{"name": "âge"}'
