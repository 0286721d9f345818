"""Third hostile round (issue 38): what a first user guesses wrong is refused or said.

Classes: percentages given as SDMetrics-style fractions (every option and keyword
whose unit is a rate's percentage), tables of different sizes, missing-value markers
read as values, the meaning of the rate without a control, progress when stderr is
a log. Each case either answers as before or is refused with one line (API:
``kpr.InputError``; CLI: exit 2, one line, no traceback)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import kpr
from kpr.checks import percentage
from tests.adversarial._outputs_helpers import AVATARS, ORIGINAL
from tests.adversarial.conftest import assert_cli_refuses, assert_input_error, run_cli, write

KNOWN = ["age", "sex"]


@pytest.fixture
def pair(tmp_path: Path) -> tuple[str, str]:
    return write(tmp_path / "o.csv", ORIGINAL), write(tmp_path / "a.csv", AVATARS)


# --- 2. percentages given as fractions ------------------------------------------------


@pytest.mark.parametrize(
    ("value", "meant"), [(0.99, "99"), (0.5, "50"), (0.075, "7.5"), (1e-3, "0.1")]
)
def test_a_fraction_is_refused_with_the_percentage_it_means(value: float, meant: str) -> None:
    message = assert_input_error(lambda: percentage(value, "threshold"), "looks like a fraction")
    assert message.endswith(f"did you mean {meant}?") and repr(value) in message


@pytest.mark.parametrize("value", [0, 0.0, 1, 1.0, 1.5, 99, 100])
def test_zero_one_and_percentages_pass(value: float) -> None:
    assert percentage(value, "threshold") == float(value)


@pytest.mark.parametrize(
    ("command", "option"),
    [
        (["evaluate", "O", "A", "-k", "age,sex"], ["--fail-under", "0.99"]),
        (["demo"], ["--fail-under", "0.99"]),
        (["tune", "O", "--known", "age,sex"], ["--target", "0.99"]),
        (["protect", "O", "A", "--known", "age,sex"], ["--target", "0.99"]),
    ],
)
def test_cli_refuses_a_fraction_as_a_percentage(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str], command: list[str],
    option: list[str],
) -> None:  # fmt: skip
    argv = [{"O": pair[0], "A": pair[1]}.get(a, a) for a in command] + option
    line = assert_cli_refuses(argv, capsys, "did you mean 99?")
    assert option[0] in line and "'0.99'" in line


def test_tolerance_is_a_fraction_and_stays_one(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(["evaluate", *pair, "-k", "age,sex", "--tolerance", "0.5"], capsys)
    assert code == 0 and "Knowledge Protection Rate" in out


def test_api_keywords_refuse_a_fraction() -> None:
    original = pl.read_csv(ORIGINAL.encode())
    avatars = pl.read_csv(AVATARS.encode())
    result = kpr.evaluate(original, avatars, KNOWN)
    assert_input_error(lambda: result.to_html(threshold=0.9), "did you mean 90?")
    assert_input_error(
        lambda: kpr.protect(original, avatars, KNOWN, target=0.99), "did you mean 99?"
    )
    from kpr.avatar import tune

    assert_input_error(lambda: tune(original, KNOWN, target=0.95), "did you mean 95?")
