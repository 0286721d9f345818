"""Hostile column names: padded CSV headers, ambiguity, unicode and spaces,
from the API and the command line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import kpr

from .conftest import assert_cli_refuses, assert_input_error, run_cli, write

CLEAN = "age,sex\n30,F\n30,F\n41,M\n52,F\n60,M\n"
AVATARS = "age,sex\n42,M\n53.5,F\n54,F\n61,M\n59,M\n"


def test_padded_header_is_nameable_from_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    o = write(tmp_path / "o.csv", CLEAN.replace("age,sex", "age, sex"))
    a = write(tmp_path / "a.csv", AVATARS)
    code, out, err = run_cli(["evaluate", o, a, "-k", "age", "-k", "sex"], capsys)
    assert code == 0, err
    assert "Knowledge Protection Rate: 60.00 %" in out  # the worked example


def test_padded_header_on_both_sides_and_in_parquet(tmp_path: Path) -> None:
    o = write(tmp_path / "o.csv", CLEAN.replace("age,sex", " age , sex"))
    a = tmp_path / "a.parquet"
    pl.read_csv(AVATARS.encode()).rename({"sex": "sex  "}).write_parquet(a)
    assert kpr.evaluate(o, str(a), known=["age", "sex"]).rate == 60.0


def test_padded_names_in_frames() -> None:
    o = pd.DataFrame({"age": [30, 30, 41, 52, 60], " sex ": list("FFMFM")})
    a = pd.DataFrame({"age ": [42, 53.5, 54, 61, 59], "sex": list("MFFMM")})
    assert kpr.evaluate(o, a, known=["age", "sex"]).rate == 60.0


def test_ambiguous_trimmed_names_are_refused_naming_the_candidates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    o = write(tmp_path / "o.csv", "a, sex,sex \n1,F,G\n")
    line = assert_cli_refuses(["evaluate", o, o, "-k", "sex"], capsys, "' sex', 'sex '")
    assert "several columns" in line
    assert_input_error(lambda: kpr.evaluate(o, o, known=["sex"]), "several columns")


def test_an_exact_name_wins_over_a_trimmed_one(tmp_path: Path) -> None:
    o = write(tmp_path / "o.csv", "sex, sex\nF,x\nM,x\n")
    a = write(tmp_path / "a.csv", "sex, sex\nF,y\nF,y\n")
    r = kpr.evaluate(o, a, known=["sex"])
    assert r.linked == 0  # "sex" (F twice among avatars), not " sex"
    assert kpr.evaluate(o, a, known=[" sex"]).linked == 0  # x never approaches y


@pytest.mark.parametrize("name", ["âge", "年齢", "birth year", "a,b", 'say "hi"', "\u00a0x"])
def test_unicode_spaces_and_quotes_in_names(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = pl.DataFrame({name: [30, 30, 41, 52, 60], "sex": list("FFMFM")})
    avatars = pl.DataFrame({name: [42.0, 53.5, 54, 61, 59], "sex": list("MFFMM")})
    frame.write_csv(tmp_path / "o.csv")
    avatars.write_csv(tmp_path / "a.csv")
    assert kpr.evaluate(frame, avatars, known=[name, "sex"]).rate == 60.0
    args = [str(tmp_path / "o.csv"), str(tmp_path / "a.csv"), "-k", name, "-k", "sex"]
    if "," in name:  # -k splits at commas: one clear line, naming the real column
        assert_cli_refuses(["evaluate", *args], capsys, repr(name))
        return
    code, out, err = run_cli(["evaluate", *args], capsys)
    assert code == 0 and "60.00 %" in out, err


def test_an_unknown_name_suggests_the_closest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    o = write(tmp_path / "o.csv", CLEAN)
    assert_cli_refuses(["evaluate", o, o, "-k", "Sex"], capsys, "did you mean 'sex'")
