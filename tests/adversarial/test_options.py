"""Second hostile round (issue 21): the newer options get the rate's guarantees.

Classes: pairings (whole numbers, one-to-one, complete, in a row id's terms), side
inputs as outputs (control, pairing, metadata, holdout), units and text where they
mean nothing, numeric options checked while parsed (seeds, capped subset counts,
options that need another). Each case is answered as the reference answers
(``tests/reference.py``) or refused with one line; the ``work`` fixture proves that
no file of the run (inputs, links) changed, bytes and inode, in any case.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kpr
from kpr.analysis import analyze
from tests.adversarial._outputs_helpers import (
    AVATARS,
    ORIGINAL,
    one_error_line,
    reference,
    rows,
    run_process,
    snapshot,
)
from tests.adversarial.conftest import assert_cli_refuses, assert_input_error, run_cli
from tests.reference import reference_kpr

KNOWN = ["age", "sex"]
ORIGINAL_FRAME = pl.DataFrame(rows(ORIGINAL))
AVATAR_FRAME = pl.DataFrame(rows(AVATARS))
IDENTITY = pl.DataFrame({"original_row": range(5), "avatar_row": range(5)})
METADATA = '{"columns": {"age": {"sdtype": "numerical"}, "sex": {"sdtype": "categorical"}}}'
CONTROL = "age,sex\n31,F\n44,M\n52,M\n63,F\n29,M\n35,F\n"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The run's files, in the working directory (restored after the case); after
    the case, every one is as it was (bytes and inode)."""
    (tmp_path / "o.csv").write_text(ORIGINAL)
    (tmp_path / "a.csv").write_text(AVATARS)
    (tmp_path / "control.csv").write_text(CONTROL)
    (tmp_path / "metadata.json").write_text(METADATA)
    IDENTITY.write_csv(tmp_path / "pairing.csv")
    (tmp_path / "link.csv").symlink_to(tmp_path / "pairing.csv")
    os.link(tmp_path / "metadata.json", tmp_path / "hard.json")
    monkeypatch.chdir(tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    before = snapshot(*names)
    yield tmp_path
    assert snapshot(*names) == before


def correct_by_reference(own: list[int]) -> int:
    """Links the reference makes that the pairing ``own`` shows to be right."""
    return sum(1 for i, j in reference().pairs.items() if own[i] == j)


def evaluate(pairing: Any, **options: Any) -> kpr.KprResult:
    return kpr.evaluate(ORIGINAL_FRAME, AVATAR_FRAME, KNOWN, pairing=pairing, **options)


# --- 1. pairings ------------------------------------------------------------------------

BAD_PAIRINGS = [
    (pl.DataFrame({"original_row": range(5), "avatar_row": [0.0, 0.7, 2, 3, 4]}), "0.7 is not one"),
    (pl.DataFrame({"original_row": range(5), "avatar_row": [True] * 5}), "not true/false"),
    (np.array([True, False, True, False, True]), "not true/false"),
    (pl.DataFrame({"original_row": range(5), "avatar_row": [0, 0, 2, 3, 4]}), "several"),
    (pl.DataFrame({"original_row": [0, 1, 1, 3, 4], "avatar_row": range(5)}), "original row twice"),
    (pl.DataFrame({"original_row": range(4), "avatar_row": range(4)}), "every original row"),
    ([0, 1, 2], "every original row"),
    ([0, 1, 2, 3, 4, 0], "original rows outside 0..4"),
    ([0, 1, 2, 3, -1], "avatar rows outside 0..4"),
    ([0, 1, 2, 3, 5], "avatar rows outside 0..4"),
    (pl.DataFrame({"original_row": range(5), "avatar_row": [0, None, 2, 3, 4]}), "missing"),
    (pl.DataFrame({"original_row": range(5), "avatar_row": ["0", "x", "2", "3", "4"]}), "'x'"),
    (pl.DataFrame({"original_row": range(5), "avatar_row": [0.0, np.inf, 2, 3, 4]}), "inf"),
    (pl.DataFrame({"original_row": [], "avatar_row": []}, schema=IDENTITY.schema), "no rows"),
]


@pytest.mark.parametrize(("pairing", "message"), BAD_PAIRINGS)
def test_a_bad_pairing_is_one_line_in_the_api(work: Path, pairing: Any, message: str) -> None:
    assert_input_error(lambda: evaluate(pairing), message)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("original_row,avatar_row\n", "the pairing has no rows"),
        ("original_row,avatar_row\n0,0\n1,0.7\n2,2\n3,3\n4,4\n", "0.7 is not one"),
        ("original_row,avatar_row\n0,true\n1,false\n2,2\n3,3\n4,4\n", "'true' is not one"),
        ("original_row,avatar_row\n0,4\n1,4\n2,2\n3,3\n4,0\n", "several individuals"),
    ],
)
@pytest.mark.parametrize("command", ["evaluate", "analyze"])
def test_a_bad_pairing_file_is_one_line_in_the_cli(
    work: Path, capsys: pytest.CaptureFixture[str], command: str, text: str, message: str
) -> None:
    (work / "bad.csv").write_text(text)
    option = "-k" if command == "evaluate" else "-c"
    argv = [command, "o.csv", "a.csv", option, "age,sex", "--pairing", "bad.csv", "-q"]
    assert_cli_refuses([*argv, "--tolerance", "0.05"], capsys, message)


def test_a_boolean_parquet_pairing_is_refused(work: Path) -> None:
    pl.DataFrame({"original_row": range(5), "avatar_row": [False] * 5}).write_parquet("p.parquet")
    assert_input_error(lambda: evaluate("p.parquet"), "not true/false")


@pytest.mark.parametrize(
    "pairing",
    [
        IDENTITY,
        IDENTITY.cast(pl.Float64),  # integral floats are whole numbers
        IDENTITY.reverse(),  # any order of the rows
        [0, 1, 2, 3, 4],
        np.arange(5, dtype=np.float32),
        "pairing.csv",
        "link.csv",
    ],
)
def test_a_valid_pairing_counts_the_reference_links(work: Path, pairing: Any) -> None:
    result = evaluate(pairing)
    assert result.linked == reference().linked
    assert result.correct_links == correct_by_reference([0, 1, 2, 3, 4]) == 1


def test_the_pairing_counts_the_same_in_analyze(work: Path) -> None:
    got = analyze(ORIGINAL_FRAME, AVATAR_FRAME, KNOWN, pairing=[4, 3, 2, 1, 0], tolerances=None)
    assert got.correct_links == correct_by_reference([4, 3, 2, 1, 0])


def _with_ids(frame: pl.DataFrame, first: int) -> pl.DataFrame:
    return frame.with_columns(id=pl.int_range(first, first + frame.height, dtype=pl.Int64))


@pytest.mark.parametrize("own", [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [0, 3, 2, 1, 4]])
def test_with_a_row_id_the_pairing_is_read_in_ids(work: Path, own: list[int]) -> None:
    """Ids 100.. (original) and 200.. (avatars), rows shuffled: ids mapped to positions."""
    original = _with_ids(ORIGINAL_FRAME, 100)
    avatars = _with_ids(AVATAR_FRAME, 200)
    order = [3, 0, 4, 1, 2]
    pairing = pl.DataFrame({"original_row": range(100, 105), "avatar_row": [200 + j for j in own]})
    result = kpr.evaluate(original[order], avatars, KNOWN, pairing=pairing[order], row_id="id")
    assert result.correct_links == correct_by_reference(own)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_any_pairing_in_any_row_order_counts_as_the_reference(data: st.DataObject) -> None:
    """A random population, pairing and row order, with and without a row id: the
    correct links are the reference's links that the pairing shows."""
    n = data.draw(st.integers(1, 12))
    ages = data.draw(st.lists(st.integers(20, 26), min_size=n, max_size=n))
    shown = data.draw(st.lists(st.integers(20, 26), min_size=n, max_size=n))
    own = data.draw(st.permutations(range(n)))
    order = data.draw(st.permutations(range(n)))
    original = pl.DataFrame({"age": ages, "sex": ["F"] * n})
    avatars = pl.DataFrame({"age": shown, "sex": ["F"] * n})
    ref = reference_kpr(original.to_dicts(), avatars.to_dicts(), KNOWN, {"age"})
    expected = sum(1 for i, j in ref.pairs.items() if own[i] == j)
    pairing = pl.DataFrame({"original_row": range(n), "avatar_row": own})
    assert kpr.evaluate(original, avatars, KNOWN, pairing=pairing[order]).correct_links == (
        expected
    )
    in_ids = pairing.with_columns(pl.col("original_row") * 3 + 7, pl.col("avatar_row") * 5 - 2)
    with_ids = original.with_columns(id=pl.int_range(n) * 3 + 7)[order]
    got = kpr.evaluate(
        with_ids, avatars.with_columns(id=pl.int_range(n) * 5 - 2), KNOWN,
        pairing=in_ids, row_id="id",
    )  # fmt: skip
    assert got.correct_links == expected


def test_with_a_row_id_a_pairing_in_positions_is_refused(work: Path) -> None:
    original, avatars = _with_ids(ORIGINAL_FRAME, 100), _with_ids(AVATAR_FRAME, 200)
    assert_input_error(
        lambda: kpr.evaluate(original, avatars, KNOWN, pairing=IDENTITY, row_id="id"),
        "names original id 0, which is not in the original table's 'id' column",
    )


def test_with_a_row_id_repeated_ids_are_refused(work: Path) -> None:
    original = ORIGINAL_FRAME.with_columns(id=pl.Series([1, 1, 2, 3, 4]))
    avatars = _with_ids(AVATAR_FRAME, 0)
    assert_input_error(
        lambda: kpr.evaluate(original, avatars, KNOWN, pairing=IDENTITY, row_id="id"),
        "holds an id twice",
    )


def test_row_id_and_pairing_on_the_command_line(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _with_ids(ORIGINAL_FRAME, 100).write_csv("oi.csv")
    _with_ids(AVATAR_FRAME, 200).write_csv("ai.csv")
    pl.DataFrame({"original_row": range(100, 105), "avatar_row": range(200, 205)}).write_csv(
        "pi.csv"
    )
    argv = ["evaluate", "oi.csv", "ai.csv", "-k", "age,sex", "--row-id", "id", "-f", "json"]
    code, out, _ = run_cli([*argv, "--pairing", "pi.csv"], capsys)
    assert code == 0 and '"correct_links": 1' in out
    assert_cli_refuses([*argv, "--pairing", "pairing.csv"], capsys, "which is not in the")


# --- 2. every file argument is an input of the overwrite check -------------------------

SIDE_OUTPUTS = [
    "evaluate o.csv a.csv -k age,sex --control control.csv --linked-out control.csv",
    "evaluate o.csv a.csv -k age,sex --pairing pairing.csv --linked-out pairing.csv",
    "evaluate o.csv a.csv -k age,sex --metadata metadata.json --linked-out metadata.json",
    "evaluate o.csv a.csv -k age,sex --pairing link.csv --linked-out pairing.csv",
    "evaluate o.csv a.csv -k age,sex --metadata hard.json --report metadata.json",
    "evaluate o.csv a.csv -k age,sex --control control.csv --report control.csv",
    "analyze o.csv a.csv -c age,sex --control control.csv --report control.csv",
    "analyze o.csv a.csv -c age,sex --pairing pairing.csv --report link.csv",
    "sweep o.csv -k age,sex --k 2 --control control.csv --report control.csv",
]


@pytest.mark.parametrize("argv", SIDE_OUTPUTS)
def test_an_output_onto_a_side_input_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str], argv: str
) -> None:
    assert_cli_refuses([*argv.split(), "-q"], capsys, "is also an input of this run")


# --- 3. units and text where they mean nothing -----------------------------------------


@pytest.mark.parametrize("width", ["age=2h", "age=1d", "age=30min", "age=5s"])
def test_a_time_unit_on_a_plain_number_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str], width: str
) -> None:
    argv = ["evaluate", "o.csv", "a.csv", "-k", "age,sex", "--width", width]
    assert_cli_refuses(argv, capsys, "units (d, h, min, s) apply to dates and durations")


def test_a_timedelta_width_on_a_plain_number_is_refused_by_the_api(work: Path) -> None:
    assert_input_error(
        lambda: evaluate(None, widths={"age": dt.timedelta(hours=2)}), "apply to dates"
    )


def test_a_time_unit_on_a_date_and_on_a_duration_is_days(work: Path) -> None:
    day = dt.date(2024, 1, 1)
    dates = pl.DataFrame({"d": [day + dt.timedelta(days=i * 7) for i in range(6)]})
    assert kpr.evaluate(dates, dates, ["d"], widths={"d": dt.timedelta(hours=36)}).variables[
        "d"
    ].width == pytest.approx(1.5)
    spans = pl.DataFrame({"t": [dt.timedelta(hours=h) for h in (1, 5, 9, 30)]})
    got = kpr.evaluate(spans, spans, ["t"], widths={"t": dt.timedelta(hours=2)})
    assert got.variables["t"].width == pytest.approx(2 / 24)


def test_a_plain_width_keeps_its_number(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["evaluate", "o.csv", "a.csv", "-k", "age", "--width", "age=2",
                            "-f", "json"], capsys)  # fmt: skip
    assert code == 0 and '"width": 2.0' in out


@pytest.mark.parametrize("where", ["synthetic", "holdout"])
def test_distance_refuses_a_word_in_a_numeric_column_as_evaluate_does(
    work: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    (work / "word.csv").write_text(AVATARS.replace("53.5", "unknown"))
    other, holdout = ("word.csv", "a.csv") if where == "synthetic" else ("a.csv", "word.csv")
    argv = ["distance", "o.csv", other, "--holdout", holdout, "--ncp", "2"]
    line = assert_cli_refuses(argv, capsys, "column 'age' is numeric in original o.csv but text")
    assert f"in {where} word.csv (e.g. 'unknown')" in line
    evaluate_line = assert_cli_refuses(
        ["evaluate", "o.csv", "word.csv", "-k", "age,sex"], capsys, "column 'age' is numeric"
    )
    assert evaluate_line.split("(e.g.")[1] == line.split("(e.g.")[1]


# --- 4. numeric options checked while parsed ---------------------------------------------

REFUSED_OPTIONS = [
    (["evaluate", "o.csv", "a.csv", "-k", "age", "--control", "control.csv", "--seed", "-1"],
     "--seed must be an integer >= 0, got -1"),
    (["evaluate", "o.csv", "a.csv", "-k", "age", "--control", "control.csv",
      "--control-subsets", "1000000000000"], "--control-subsets must be at most 1,000"),
    (["evaluate", "o.csv", "a.csv", "-k", "age", "--control", "control.csv",
      "--control-subsets", "0"], "--control-subsets must be an integer >= 1"),
    (["evaluate", "o.csv", "a.csv", "-k", "age", "--control", "control.csv",
      "--control-subsets", "2.5"], "--control-subsets must be an integer >= 1, got '2.5'"),
    (["evaluate", "o.csv", "a.csv", "-k", "age", "--table", "people"],
     "--table applies with --metadata"),
    (["evaluate", "o.csv", "a.csv", "-k", "age", "--seed", "3"], "--seed applies with --control"),
    (["evaluate", "o.csv", "a.csv", "-k", "age", "--control-subsets", "3"],
     "--control-subsets applies with --control"),
    (["analyze", "o.csv", "a.csv", "-c", "age", "--control", "control.csv", "--seed", "-2"],
     "--seed must be an integer >= 0"),
    (["analyze", "o.csv", "a.csv", "-c", "age", "--top", "-1"], "--top must be an integer >= 0"),
    (["analyze", "o.csv", "a.csv", "-c", "age", "--max-known", "0"], "--max-known must be"),
    (["analyze", "o.csv", "a.csv", "-c", "age", "--max-attacks", "x"], "--max-attacks must be"),
    (["sweep", "o.csv", "-k", "age", "--seed", "-1"], "--seed must be an integer >= 0"),
    (["sweep", "o.csv", "-k", "age", "--control-subsets", "2"], "applies with --control"),
    (["tune", "o.csv", "-k", "age", "--target", "90", "--repeats", "0"], "--repeats must be"),
    (["avatarize", "o.csv", "-o", "out.csv", "--k", "0"], "--k must be an integer >= 1"),
    (["avatarize", "o.csv", "-o", "out.csv", "--seed", "-5"], "--seed must be an integer >= 0"),
    (["avatarize", "o.csv", "-o", "out.csv", "--ncp", "0"], "--ncp must be an integer >= 1"),
    (["distance", "o.csv", "a.csv", "--ncp", "-3"], "--ncp must be an integer >= 1"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "message"), REFUSED_OPTIONS)
def test_a_bad_option_is_refused_while_parsed(
    work: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert_cli_refuses(argv, capsys, message)
    assert not (work / "out.csv").exists()


@pytest.mark.parametrize("command", ["evaluate", "analyze"])
def test_an_empty_control_is_named(
    work: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    (work / "empty.csv").write_text("age,sex\n")
    option = "-k" if command == "evaluate" else "-c"
    argv = [command, "o.csv", "a.csv", option, "age,sex", "--control", "empty.csv", "-q"]
    assert_cli_refuses(argv, capsys, "the control table has no rows")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"control_subsets": 10**12}, "control_subsets must be at most 1,000"),
        ({"control_subsets": True}, "control_subsets must be an integer"),
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"seed": 1.5}, "seed must be an integer >= 0"),
    ],
)
def test_the_api_applies_the_same_checks(work: Path, options: dict[str, Any], message: str) -> None:
    assert_input_error(lambda: evaluate(None, control=CONTROL_FRAME, **options), message)
    assert_input_error(
        lambda: analyze(ORIGINAL_FRAME, AVATAR_FRAME, KNOWN, control=CONTROL_FRAME, **options),
        message,
    )


CONTROL_FRAME = pl.read_csv(CONTROL.encode())


def test_the_help_states_the_caps(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["evaluate", "--help"], capsys)
    out = " ".join(out.split())
    assert code == 0 and "1 to 1,000; needs --control" in out and "needs --metadata" in out


# --- no traceback from real processes ------------------------------------------------------


def test_real_processes_answer_in_one_line(work: Path) -> None:
    (work / "bad.csv").write_text("original_row,avatar_row\n0,0\n1,0.7\n2,2\n3,3\n4,4\n")
    for argv in (
        ["evaluate", "o.csv", "a.csv", "-k", "age,sex", "--pairing", "bad.csv"],
        ["evaluate", "o.csv", "a.csv", "-k", "age", "--control", "control.csv", "--seed", "-1"],
        ["evaluate", "o.csv", "a.csv", "-k", "age", "--width", "age=2h"],
    ):
        done = run_process(argv)
        assert one_error_line(done.returncode, done.stderr.decode()), done.stderr
