"""The shared parameter checks (kpr.checks): one rule whether a value comes from Python
or from an option's text."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kpr import InputError
from kpr.checks import percentage, percentage_text, whole_number


@pytest.mark.parametrize("value", [0, 0.0, 50, 99.5, 100])
def test_percentages_in_range_pass_as_floats(value: float) -> None:
    assert percentage(value, "threshold") == float(value)
    assert percentage_text(str(value), "--fail-under") == float(value)


@pytest.mark.parametrize("value", [-0.1, 100.1, math.nan, math.inf, True, "50", None])
def test_other_values_are_refused_with_the_name(value: object) -> None:
    with pytest.raises(InputError, match=r"^threshold must be a percentage in \[0, 100\]"):
        percentage(value, "threshold")


def test_zero_is_refused_where_a_positive_percentage_is_asked() -> None:
    with pytest.raises(InputError, match=r"target must be a percentage in \(0, 100\]"):
        percentage(0, "target", zero=False)
    assert percentage(0.001, "target", zero=False) == 0.001


@pytest.mark.parametrize("text", ["high", "", "nan", "1e400"])
def test_option_text_is_quoted_as_given(text: str) -> None:
    with pytest.raises(InputError, match=rf"--target .* got {text!r}$"):
        percentage_text(text, "--target", zero=False)


@pytest.mark.parametrize("value", [1, 7, np.int64(3)])
def test_whole_numbers(value: int) -> None:
    assert whole_number(value, "k", 1) == int(value)


@pytest.mark.parametrize("value", [0, -2, 2.0, True, "3", np.float64(3)])
def test_not_whole_numbers_or_too_small(value: object) -> None:
    with pytest.raises(InputError, match=r"^k must be an integer >= 1, got "):
        whole_number(value, "k", 1)
