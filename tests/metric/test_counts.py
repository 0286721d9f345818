"""The one counts type (kpr.metric.counts): what every engine, sweep and result
derives the rate, the worst case and the interval from."""

from __future__ import annotations

import pytest

import kpr
from kpr.metric.counts import Counts, require_rows
from kpr.metric.interval import kpr_interval
from tests.conftest import worked_example


def test_the_rate_floor_and_interval_come_from_the_four_counts() -> None:
    c = Counts(n=5, n_avatars=5, unique_originals=3, linked=2)
    assert c.rate == 60.0 and c.floor == 40.0
    assert c.interval == kpr_interval(2, 5) and c.interval_at(0.5) == kpr_interval(2, 5, 0.5)


def test_evaluate_analyze_and_sweep_carry_the_same_counts() -> None:
    from kpr.analysis import analyze, sweep

    o, a = worked_example()
    direct = kpr.evaluate(o, a, known=["age", "sex"])
    assert direct.counts == Counts(5, 5, 3, 2)
    assert analyze(o, a, ["age", "sex"], tolerances=None).attack.counts == direct.counts
    both = sweep(o, a, ["age", "sex"], 2).rate_of(["age", "sex"])
    assert both.counts == direct.counts and both.rate == direct.rate


def test_no_rows_is_one_input_error() -> None:
    require_rows(1)
    with pytest.raises(kpr.InputError, match="no rows"):
        require_rows(0)


def test_a_result_shows_its_counts_under_their_own_names_read_only() -> None:
    """``n``, ``n_avatars``, ``unique_originals``, ``linked`` of a result are its
    counts' (kpr.metric.forwarded), written in JSON as the counts write them."""
    o, a = worked_example()
    result = kpr.evaluate(o, a, known=["age", "sex"])
    counts = result.counts
    assert (result.n, result.n_avatars, result.unique_originals, result.linked) == (5, 5, 3, 2)
    assert counts.to_dict() == {"n": 5, "n_avatars": 5, "unique_originals": 3, "linked": 2}
    assert {k: result.to_dict()[k] for k in counts.to_dict()} == counts.to_dict()
    with pytest.raises(AttributeError, match="linked is read from counts"):
        result.linked = 0
    assert result.linked == 2
