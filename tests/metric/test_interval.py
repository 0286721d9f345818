from __future__ import annotations

import math

import pytest

from kpr.metric.interval import difference_interval, kpr_interval, wilson_interval


def test_wilson_textbook_value() -> None:
    # Newcombe (1998) / Wikipedia: 81 successes out of 263 at 95 %.
    low, high = wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)


@pytest.mark.parametrize(
    ("successes", "n", "expected"),
    [
        # Newcombe (1998), table I, method 3 (score without continuity correction).
        (15, 148, (0.0624, 0.1605)),
        (0, 20, (0.0, 0.1611)),
        (1, 29, (0.0061, 0.1718)),
        (29, 29, (0.8830, 1.0)),
    ],
)
def test_wilson_newcombe_table(successes: int, n: int, expected: tuple[float, float]) -> None:
    low, high = wilson_interval(successes, n)
    assert (round(low, 4), round(high, 4)) == expected


def test_wilson_matches_statsmodels() -> None:
    sm = pytest.importorskip("statsmodels.stats.proportion")
    for successes, n, conf in [(81, 263, 0.95), (3, 1000, 0.9), (999, 1000, 0.99), (7, 7, 0.95)]:
        ref = sm.proportion_confint(successes, n, alpha=1 - conf, method="wilson")
        got = wilson_interval(successes, n, conf)
        assert got == pytest.approx(ref, abs=1e-12)


def test_wilson_edges() -> None:
    low, high = wilson_interval(0, 50)
    assert low == 0.0 and 0.0 < high < 0.1
    low, high = wilson_interval(50, 50)
    assert high == 1.0 and 0.9 < low < 1.0
    low, high = wilson_interval(1, 1)
    assert high == 1.0 and low == pytest.approx(1 / (1 + 1.959963984540054**2))


@pytest.mark.parametrize(("successes", "n"), [(0, 0), (-1, 5), (6, 5)])
def test_wilson_rejects_impossible_counts(successes: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n)


def test_wilson_rejects_bad_confidence() -> None:
    with pytest.raises(ValueError):
        wilson_interval(1, 2, confidence=1.0)


def test_kpr_interval_is_the_complement_in_percent() -> None:
    low, high = wilson_interval(81, 263)
    assert kpr_interval(81, 263) == pytest.approx((100 * (1 - high), 100 * (1 - low)))
    assert kpr_interval(0, 10)[1] == 100.0


def test_difference_interval_brackets_the_difference() -> None:
    # KPR_b - KPR_a = 100 * (p_a - p_b): a has 30/100 linked, b 10/100 -> +20 points.
    low, high = difference_interval(30, 100, 10, 100)
    assert low < 20.0 < high
    assert math.isclose(high - 20.0, 20.0 - low, rel_tol=0.5)
    # Newcombe (1998) table II example (56/70 vs 48/80): difference 0.2, CI 0.0524 to 0.3339.
    low, high = difference_interval(56, 70, 48, 80)
    assert (round(low / 100, 4), round(high / 100, 4)) == (0.0524, 0.3339)
