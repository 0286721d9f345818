"""Wrong argument types in the Python API, pandas frames named by integers and a
demo folder that cannot be made: one line each (``kpr.InputError``; CLI exit 2),
never a TypeError or AttributeError from deep inside, never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest

import kpr
from tests.adversarial.conftest import assert_input_error, run_cli

FRAME = pl.DataFrame({"age": [30, 41, 52, 60] * 5, "sex": ["F", "M", "F", "M"] * 5})


@pytest.mark.parametrize(
    ("keywords", "match"),
    [
        ({"columns": 5}, "columns must be a column name or a list of them, got 5"),
        ({"columns": [1]}, "columns must name each column by a non-empty text, got 1"),
        ({"columns": []}, "columns is empty"),
        ({"kinds": 5}, "kinds must map column names to kinds"),
        ({"kinds": ["age"]}, "kinds must map column names to kinds"),
        ({"table": "adults"}, r"table= \(--table\) names a table of SDV metadata: give metadata="),
        ({"delimiter": 5}, "delimiter must be a text or None, got 5"),
        ({"encoding": b"utf-8"}, "encoding must be a text or None"),
        ({"na_values": 5}, "na_values must be a list of texts, got 5"),
        ({"na_values": [None]}, "na_values must be texts, got None"),
        ({"progress": 5}, "progress must be a function"),
    ],
)
def test_utility_refuses_a_wrong_type_in_one_line(keywords: dict[str, Any], match: str) -> None:
    assert_input_error(lambda: kpr.utility(FRAME, FRAME, **keywords), match)


@pytest.mark.parametrize(
    ("keywords", "match"),
    [
        ({"delimiter": 5}, "delimiter must be a text"),
        ({"encoding": 5}, "encoding must be a text"),
        ({"na_values": 5}, "na_values must be a list of texts"),
        ({"known": 5}, "known must be a column name or a list of them"),
    ],
)
def test_evaluate_refuses_a_wrong_type_in_one_line(keywords: dict[str, Any], match: str) -> None:
    keywords = {"known": ["age"], **keywords}
    assert_input_error(lambda: kpr.evaluate(FRAME, FRAME, **keywords), match)


def test_one_text_as_na_values_is_one_marker(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("age,sex\n30,F\nNA,M\n41,F\n30,M\n", encoding="utf-8")
    one = kpr.utility(path, path, na_values="NA")
    listed = kpr.utility(path, path, na_values=["NA"])
    assert one.columns.equals(listed.columns)
    assert one.kinds_used == listed.kinds_used


def test_a_pandas_frame_named_by_integers_is_read_by_those_names() -> None:
    named = pd.DataFrame({"0": [30, 41, 52, 60, 30], "1": ["F", "M", "F", "M", "F"]})
    numbered = pd.DataFrame({0: [30, 41, 52, 60, 30], 1: ["F", "M", "F", "M", "F"]})
    got = kpr.evaluate(numbered, numbered.iloc[::-1], known=["0", "1"])
    want = kpr.evaluate(named, named.iloc[::-1], known=["0", "1"])
    assert (got.rate, got.unique_originals, got.linked) == (
        want.rate,
        want.unique_originals,
        want.linked,
    )


def test_a_pandas_column_named_0_twice_as_text_and_integer_is_refused() -> None:
    both = pd.DataFrame({0: [1, 2], "0": [3, 4]})
    assert_input_error(lambda: kpr.evaluate(both, both, known=["0"]), "duplicate column name")


@pytest.mark.parametrize("where", ["FILE/sub", "FILE/a/b", "/proc/kpr-demo/x"])
def test_demo_write_where_no_folder_can_be_made_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    (tmp_path / "file").write_text("not a folder\n", encoding="utf-8")
    folder = where.replace("FILE", str(tmp_path / "file"))
    code, out, err = run_cli(["demo", "--write", folder], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"kpr: error: --write {folder}: cannot make this folder (")
    assert err.count("\n") == 1


def test_utility_table_without_metadata_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.csv"
    FRAME.write_csv(path)
    code, out, err = run_cli(["utility", str(path), str(path), "--table", "adults"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("kpr: error: --table applies with --metadata") and err.count("\n") == 1
