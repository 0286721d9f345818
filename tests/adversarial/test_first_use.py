"""Third hostile round (issue 38): what a first user guesses wrong is refused or said.

Classes: percentages given as SDMetrics-style fractions (every option and keyword
whose unit is a rate's percentage), tables of different sizes, missing-value markers
read as values, the meaning of the rate without a control, progress when stderr is
a log. Each case either answers as before or is refused with one line (API:
``kpr.InputError``; CLI: exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import kpr
from kpr.analysis import analyze
from kpr.checks import percentage
from tests.adversarial._outputs_helpers import AVATARS, ORIGINAL, run_process
from tests.adversarial.conftest import assert_cli_refuses, assert_input_error, run_cli, write
from tests.reference import reference_kpr, reference_value_order

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


# --- 3. tables of different sizes -----------------------------------------------------


def _people(n: int, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {"age": rng.integers(18, 80, n), "sex": rng.choice(np.array(["F", "M"]), n)}
    )


def _equal_size_rates(original: pl.DataFrame, avatars: pl.DataFrame, seed: int) -> list[float]:
    """The reference's rate over 5 subsets of the larger side, drawn as kpr draws them."""
    big, small = (avatars, original) if avatars.height > original.height else (original, avatars)
    order = np.array(reference_value_order(big.to_dicts(), KNOWN))
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(5):
        rows = np.sort(order[rng.choice(big.height, size=small.height, replace=False)])
        part = big[rows]
        o, a = (original, part) if big is avatars else (part, avatars)
        out.append(reference_kpr(o.to_dicts(), a.to_dicts(), KNOWN, {"age"}).kpr)
    return out


@pytest.mark.parametrize(("n", "m"), [(120, 400), (400, 120), (100, 106), (100, 94)])
def test_unequal_sizes_are_warned_with_the_rate_at_equal_size(n: int, m: int) -> None:
    original, avatars = _people(n, 1), _people(m, 2)
    result = kpr.evaluate(original, avatars, KNOWN, seed=3)
    expected = _equal_size_rates(original, avatars, 3)
    assert result.sizes is not None
    assert list(result.sizes.rates) == expected
    assert result.sizes.mean == pytest.approx(sum(expected) / 5, abs=1e-12)
    assert result.sizes.spread == (min(expected), max(expected))
    (warning,) = [w for w in result.warnings if w.code == "unequal-sizes"]
    assert f"{m:,} rows and the original {n:,}" in warning
    assert result.to_dict()["sizes"]["kpr_at_equal_size"] == result.sizes.mean


@pytest.mark.parametrize(("n", "m"), [(100, 100), (100, 105), (100, 95), (20, 21)])
def test_sizes_within_five_percent_add_nothing(n: int, m: int) -> None:
    result = kpr.evaluate(_people(n, 1), _people(m, 2), KNOWN)
    assert result.sizes is None and result.to_dict()["sizes"] is None
    assert not [w for w in result.warnings if w.code == "unequal-sizes"]


def test_unequal_sizes_in_text_json_html_and_analyze(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    _people(120, 1).write_csv(o)
    _people(400, 2).write_csv(a)
    code, out, _ = run_cli(["evaluate", str(o), str(a), "-k", "age,sex", "-q"], capsys)
    assert code == 0 and "400 rows and the original 120" in out
    code, out, _ = run_cli(
        ["evaluate", str(o), str(a), "-k", "age,sex", "--format", "json"], capsys
    )
    data = json.loads(out)
    assert data["sizes"]["subsampled"] == "avatars" and data["sizes"]["size"] == 120
    assert "unequal-sizes" in [w["code"] for w in data["warnings"]]
    html = kpr.evaluate(str(o), str(a), KNOWN).to_html()
    assert "400 rows and the original 120" in html
    analysis = analyze(str(o), str(a), KNOWN, tolerances=None)
    assert analysis.sizes is not None and analysis.to_dict()["sizes"]["n_avatars"] == 400
    assert "unequal-sizes" in [w.code for w in analysis.warnings]


# --- 4. missing-value markers read as values ------------------------------------------


def _markers(warnings: list[str]) -> list[str]:
    return [w for w in warnings if getattr(w, "code", "") == "missing-marker"]


@pytest.mark.parametrize("marker", ["?", "NA", "N/A", "null", "-", "."])
def test_a_marker_in_a_numeric_column_is_named_with_its_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marker: str
) -> None:
    o = write(tmp_path / "o.csv", f"age,sex\n30,F\n{marker},F\n41,M\n52,F\n60,M\n")
    a = write(tmp_path / "a.csv", AVATARS)
    result = kpr.evaluate(o, a, KNOWN)
    (warning,) = _markers(result.warnings)
    assert result.variables["age"].kind is kpr.Kind.CATEGORICAL  # nothing changed silently
    assert f"'age' holds numbers and {marker!r} in 1 row (20.0 %)" in warning
    assert f"--na-value {shlex.quote(marker)}" in warning
    fixed = kpr.evaluate(o, a, KNOWN, na_values=["", marker])
    assert fixed.variables["age"].kind is kpr.Kind.NUMERIC and not _markers(fixed.warnings)
    code, out, _ = run_cli(
        ["evaluate", o, a, "-k", "age,sex", "--na-value", marker, "--format", "json"], capsys
    )
    assert code == 0 and json.loads(out)["kpr"] == fixed.rate


def test_the_fixed_read_equals_the_reference(tmp_path: Path) -> None:
    o = write(tmp_path / "o.csv", "age,sex\n30,F\n?,F\n41,M\n52,F\n60,M\n")
    fixed = kpr.evaluate(o, pl.read_csv(AVATARS.encode()), KNOWN, na_values=["", "?"])
    ages = [30, None, 41, 52, 60]
    original = [{"age": v, "sex": s} for v, s in zip(ages, "FFMFM", strict=True)]
    avatars = pl.read_csv(AVATARS.encode()).to_dicts()
    assert fixed.rate == reference_kpr(original, avatars, KNOWN, {"age"}).kpr


@pytest.mark.parametrize(("rows", "warned"), [(200, True), (201, False)])
def test_a_marker_in_a_text_column_from_half_a_percent(rows: int, warned: bool) -> None:
    """1 row of 200 is 0.5 %: named; 1 of 201 is below: not."""
    people = _people(rows, 4).with_columns(
        pl.when(pl.int_range(pl.len()) == 7).then(pl.lit("?")).otherwise("sex").alias("sex")
    )
    found = _markers(kpr.evaluate(people, people, KNOWN).warnings)
    assert bool(found) is warned
    if warned:
        assert "'sex' holds '?' in 1 row (0.5 %)" in found[0]


def test_several_markers_are_named_together_and_words_are_not_markers() -> None:
    frame = pl.DataFrame(
        {"age": ["30", "?", "41", "-", "60"], "sex": ["F", "F", "M", "questions?", "M"]}
    )
    (warning,) = _markers(kpr.evaluate(frame, frame, KNOWN).warnings)
    assert "'?' in 1 row (20.0 %), '-' in 1 row (20.0 %)" in warning
    assert "--na-value '?' --na-value -" in warning and "'sex'" not in warning


def test_no_marker_no_warning_and_numbers_are_untouched() -> None:
    frame = pl.DataFrame({"age": [30, None, 41], "sex": ["F", "NAB", "M"]})
    assert not _markers(kpr.evaluate(frame, frame, KNOWN).warnings)


# --- 5. the rate without a control ----------------------------------------------------


def test_without_a_control_one_line_says_what_the_rate_measures(
    pair: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(["evaluate", *pair, "-k", "age,sex", "-q"], capsys)
    said = [line for line in out.splitlines() if "training set" in line]
    assert code == 0 and len(said) == 1 and said[0].startswith("No control given")
    assert "--control" in said[0] and "control=" not in said[0]
    control = write(tmp_path / "c.csv", "age,sex\n31,F\n44,M\n52,M\n63,F\n29,M\n")
    code, out, _ = run_cli(["evaluate", *pair, "-k", "age,sex", "--control", control], capsys)
    assert code == 0 and "training set" not in out and "Control" in out
    html = kpr.evaluate(*pair, KNOWN).to_html()
    assert "generator&#x27;s training set" in html or "generator's training set" in html
    code, out, _ = run_cli(["analyze", *pair, "-k", "age,sex", "-q"], capsys)
    assert code == 0 and "No control given" in out


# --- 6. progress on a log -------------------------------------------------------------

PROGRESS_LINE = re.compile(r"^kpr: \[ *\d+\.\d s\] .+ \(\d+\.\d s\)$")


def test_a_log_gets_one_line_per_step_and_quiet_silences_it(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(["evaluate", *pair, "-k", "age,sex"], capsys)
    lines = err.splitlines()
    assert code == 0 and "Knowledge Protection Rate" in out
    assert len(lines) >= 3 and all(PROGRESS_LINE.match(line) for line in lines), err
    assert "finding the original records present once (U)" in lines[0]
    code, _, err = run_cli(["evaluate", *pair, "-k", "age,sex", "-q"], capsys)
    assert code == 0 and err == ""
    code, _, err = run_cli(["analyze", *pair, "-c", "age,sex", "--tolerances", "0.05"], capsys)
    assert code == 0 and "(1/" in err and all(PROGRESS_LINE.match(x) for x in err.splitlines())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "O", "A", "-k", "agee"], "did you mean 'age'"),
        (["evaluate", "O", "WORDS", "-k", "age,sex"], "age"),
        (["evaluate", "O", "BAD", "-k", "age,sex"], "kpr: error"),
        (["analyze", "O", "BAD", "-c", "age,sex"], "kpr: error"),
        (["evaluate", "O", "A", "-k", "age,sex", "--pairing", "PAIRS"], "several individuals"),
        (["evaluate", "EMPTY", "A", "-k", "age,sex"], "no rows"),
        (["utility", "O", "BAD"], "kpr: error"),
        (["avatarize", "BAD", "-o", "OUT"], "kpr: error"),
        (["sweep", "BAD", "-k", "age,sex", "--k", "2"], "kpr: error"),
    ],
)
def test_a_bad_input_on_a_log_gets_exactly_one_line(
    pair: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    argv: list[str], message: str,
) -> None:  # fmt: skip
    words = write(tmp_path / "w.csv", "age,sex\nold,F\n40,M\n")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b'age,sex\n\xff\xfe30,F\n\x00,\n"41,M\n')
    paths = {"O": pair[0], "A": pair[1], "WORDS": words, "BAD": str(bad)}
    paths["OUT"] = str(tmp_path / "out.csv")
    paths["PAIRS"] = write(tmp_path / "p.csv", "original_row,avatar_row\n0,0\n1,0\n2,2\n3,3\n4,4\n")
    paths["EMPTY"] = write(tmp_path / "e.csv", "age,sex\n")
    code, _, err = run_cli([paths.get(a, a) for a in argv], capsys)
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1 and message in lines[0], err


def test_a_real_pipe_gets_the_lines(pair: tuple[str, str]) -> None:
    done = run_process(["evaluate", *pair, "-k", "age,sex"])
    lines = done.stderr.decode().splitlines()
    assert done.returncode == 0 and lines and all(PROGRESS_LINE.match(x) for x in lines)
