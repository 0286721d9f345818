"""The shared parameter checks (kpr.checks): one rule whether a value comes from Python
or from an option's text."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from kpr import InputError
from kpr.checks import percentage, percentage_text, whole_number
from kpr.metric.attack import check_tolerance


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
    assert percentage(1, "target", zero=False) == 1.0


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


@pytest.mark.parametrize(
    ("option", "text", "check"),
    [
        ("FAIL_UNDER", "101", lambda: percentage_text("101", "--fail-under")),
        ("TARGET", "0", lambda: percentage_text("0", "--target", zero=False)),
        ("TOLERANCE_TYPE", "1.5", lambda: check_tolerance(1.5)),
    ],
)
def test_option_types_refuse_with_the_api_message(
    option: str, text: str, check: Callable[[], object]
) -> None:
    """A click option type converts with the API's check: same error, same line."""
    from kpr.cli import options

    with pytest.raises(InputError) as api:
        check()
    with pytest.raises(InputError) as cli:
        getattr(options, option).convert(text, None, None)
    assert str(cli.value) == str(api.value)


def test_option_types_convert_good_text() -> None:
    from kpr.cli import options

    assert options.FAIL_UNDER.convert("61.5", None, None) == 61.5
    assert options.TARGET.convert("100", None, None) == 100.0
    assert options.TOLERANCE_TYPE.convert("0.05", None, None) == 0.05
