"""The rate as text: two decimals, or the fewest more that keep it below 100 %."""

from __future__ import annotations

import pytest

from kpr.results.evaluation import format_rate


@pytest.mark.parametrize(
    ("rate", "text"),
    [
        (100.0, "100.00 %"),
        (99.93, "99.93 %"),
        (99.994, "99.99 %"),
        (99.995833, "99.996 %"),  # analyze's tolerance curve printed 99.995833 %
        (99.9951, "99.995 %"),
        (99.9999999, "99.9999999 %"),
        (0.0, "0.00 %"),
    ],
)
def test_format_rate(rate: float, text: str) -> None:
    assert format_rate(rate) == text


@pytest.mark.parametrize("gap", [10.0**-k for k in range(1, 13)])
def test_a_rate_below_100_never_reads_100(gap: float) -> None:
    rate = 100.0 - gap
    assert rate < 100.0
    assert not format_rate(rate).startswith("100"), rate
