"""Hostile tables on the newest surfaces (utility, distance, tune, and the pandas
reader): a valid answer inside its schema's bounds, or one line naming the column
and the value at fault."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import kpr
from tests.adversarial.conftest import assert_cli_refuses, assert_input_error, write
from tests.adversarial.test_json_outputs import strict_json
from tests.conftest import run_cli
from tests.test_schema import validate

NORMAL = "age,sex,city\n" + "".join(
    f"{20 + i * 7 % 50},{'FM'[i % 2]},{'PLN'[i % 3]}\n" for i in range(30)
)
#: name -> CSV text: each a table a user may well give
TABLES = {
    "normal": NORMAL,
    "constant": "age,sex,city\n" + "30,F,Paris\n" * 20,
    "all missing": "age,sex,city\n" + "".join(f"{20 + i},,{'PL'[i % 2]}\n" for i in range(20)),
    "two rows": "age,sex,city\n30,F,Paris\n40,M,Lyon\n",
    "tiny numbers": "age,sex,city\n" + "".join(
        f"{1e-300 * (i + 1)},{'FM'[i % 2]},x\n" for i in range(20)
    ),
    "floats among codes": "age,sex,city\n" + "".join(
        f"{['0.5', '1', '2', '3'][i % 4]},{'FM'[i % 2]},{'PL'[i % 3 % 2]}\n" for i in range(20)
    ),
    "crlf bom": "\ufeff" + NORMAL.replace("\n", "\r\n"),
}  # fmt: skip
PAIRS = [
    ("normal", "constant"), ("constant", "normal"), ("all missing", "normal"),
    ("normal", "all missing"), ("two rows", "normal"), ("normal", "two rows"),
    ("tiny numbers", "normal"), ("constant", "floats among codes"),
    ("floats among codes", "constant"), ("crlf bom", "normal"),
]  # fmt: skip


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("hostile tables")  # a space in every path
    return {name: write(root / f"{name} é.csv", text) for name, text in TABLES.items()}


@pytest.mark.parametrize("command", ["utility", "distance"])
@pytest.mark.parametrize(("original", "synthetic"), PAIRS)
def test_scores_stay_inside_the_schema_on_hostile_tables(
    tables: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    command: str,
    original: str,
    synthetic: str,
) -> None:
    """A 1-row-per-value original, an all-missing column, two rows, numbers near the
    smallest double, an integer column against a float one: strict JSON that follows
    the schema (every score within its bounds), or one line (exit 2)."""
    argv = [command, tables[original], tables[synthetic], "-f", "json", "-q"]
    code, out, err = run_cli(argv, capsys)
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("kpr: error: "), err
        return
    assert code == 0, err
    validate(command, strict_json(out))


def test_an_integer_column_against_a_float_one_is_scored(
    tables: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The original's 30 (an integer, one value: a category) against the synthetic's
    0.5, 1, 2, 3 (floats): once a polars SchemaError traceback; the original's one
    category is never drawn, so the shape score is about 0."""
    argv = ["utility", tables["constant"], tables["floats among codes"], "-f", "json", "-q"]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    data = strict_json(out)
    validate("utility", data)
    age = next(c for c in data["columns"] if c["column"] == "age")
    assert 0 <= age["score"] < 0.001


def test_tune_json_follows_its_schema_on_a_constant_column(
    tables: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["tune", tables["constant"], "-k", "age,sex", "--target", "50", "--ks", "2"]
    code, out, err = run_cli([*argv, "--repeats", "1", "-f", "json", "-q"], capsys)
    assert code in (0, 1), err
    validate("tune", strict_json(out))


@pytest.mark.parametrize("value", ["inf", "-inf", "1e999"])
def test_distance_names_a_value_that_is_not_finite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """Once scipy's "data must be finite" traceback."""
    original = write(tmp_path / "o.csv", NORMAL)
    lines = NORMAL.splitlines()
    lines[5] = f"{value},F,P"
    synthetic = write(tmp_path / "s.csv", "\n".join(lines) + "\n")
    line = assert_cli_refuses(["distance", original, synthetic, "-q"], capsys, "column 'age'")
    assert f"holds {float(value)!r}" in line, line
    assert "synthetic" in line


#: A pandas frame whose columns are named by integers, one column mixing types.
MIXED = pd.DataFrame({0: [30, "x", 50, 60] * 5, 1: list("FMFM") * 5})
PLAIN = pd.DataFrame({0: [30, 41, 50, 61] * 5, 1: list("FMMF") * 5})


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("evaluate original", lambda: kpr.evaluate(MIXED, PLAIN, known=["0", "1"])),
        ("evaluate avatars", lambda: kpr.evaluate(PLAIN, MIXED, known=["0", "1"])),
        ("utility", lambda: kpr.utility(PLAIN, MIXED)),
        ("inference", lambda: kpr.inference(PLAIN, MIXED, known=["1"], secret=["0"])),
    ],
)
def test_a_pandas_column_of_mixed_types_is_named_with_its_odd_value(
    name: str, call: object
) -> None:
    message = assert_input_error(call, "mixes value types")  # type: ignore[arg-type]
    assert "column '0'" in message and "'x', a str among int" in message, message


def test_pandas_integer_column_names_give_the_rate_of_their_text_names() -> None:
    by_int = kpr.evaluate(PLAIN, PLAIN.iloc[::-1], known=["0", "1"])
    by_text = kpr.evaluate(
        PLAIN.rename(columns=str), PLAIN.iloc[::-1].rename(columns=str), known=["0", "1"]
    )
    assert (by_int.rate, by_int.linked) == (by_text.rate, by_text.linked)


@pytest.mark.parametrize(
    "variant",
    [
        lambda t: t.replace("\n", "\r\n"),
        lambda t: "\ufeff" + t,
        lambda t: t.replace(",P\n", ',"P"\n'),
        lambda t: "\n".join(line + ("\r" if i % 2 else "") for i, line in enumerate(t.split("\n"))),
    ],
    ids=["crlf", "bom", "quoted", "mixed line ends"],
)
def test_a_file_written_another_way_gives_the_same_rate(tmp_path: Path, variant: object) -> None:
    plain = write(tmp_path / "plain.csv", NORMAL)
    other = tmp_path / "other.csv"
    other.write_bytes(variant(NORMAL).encode("utf-8"))  # type: ignore[operator]
    want = kpr.evaluate(plain, plain, known=["age", "sex", "city"])
    got = kpr.evaluate(other, plain, known=["age", "sex", "city"])
    assert (got.n, got.linked, got.rate) == (want.n, want.linked, want.rate)


def test_a_quoted_line_break_is_one_value(tmp_path: Path) -> None:
    """Quoted newlines stay inside their field: 31 rows, not 32, and the value
    with its line break matches nobody else."""
    text = NORMAL.replace("city\n", 'city\n20,F,"two\nlines"\n', 1)
    path = write(tmp_path / "quoted.csv", text)
    got = kpr.evaluate(path, path, known=["city"])
    assert got.n == 31


def test_distance_refuses_a_holdout_without_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Once "median DCR is nan" and "0 (nan %)" in the text."""
    original = write(tmp_path / "o.csv", NORMAL)
    empty = write(tmp_path / "holdout.csv", "age,sex,city\n")
    argv = ["distance", original, original, "--holdout", empty, "-q"]
    assert_cli_refuses(argv, capsys, "the holdout table has no rows")
