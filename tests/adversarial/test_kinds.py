"""Hostile kinds: one rule for every source (``kpr.inputs.kinds``). Category-like
types are categorical whatever their values, an all-missing column is
categorical from CSV and from typed frames alike, padded numbers are numbers,
declarations win, and mismatched types are one clear line."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import kpr
from kpr.avatar import column_roles
from kpr.inputs.kinds import ColumnFacts, TypeClass, decide_kind

from .conftest import assert_cli_refuses, assert_input_error, assert_reference, rows, run_cli, write

CODES_O = [1, 2, 3, 40, 40]
CODES_A = [1, 2, 41, 40, 3]


def _reference_codes(r: kpr.KprResult) -> None:
    o = [{"c": v} for v in CODES_O]
    a = [{"c": v} for v in CODES_A]
    assert_reference(r, o, a, ["c"], set())  # categorical: 41 is not "near" 40


@pytest.mark.parametrize(
    "make",
    [
        lambda v: pd.DataFrame({"c": pd.Categorical(v)}),
        lambda v: pa.table({"c": pa.array(v).dictionary_encode()}),
        lambda v: pl.DataFrame({"c": [str(x) for x in v]}).with_columns(
            pl.col("c").cast(pl.Enum(["1", "2", "3", "40", "41"]))
        ),
        lambda v: pl.DataFrame({"c": [str(x) for x in v]}).with_columns(
            pl.col("c").cast(pl.Categorical)
        ),
    ],
    ids=["pandas-category", "arrow-dictionary", "polars-enum", "polars-categorical"],
)
def test_category_like_columns_of_integers_are_categorical(make: Any) -> None:
    r = kpr.evaluate(make(CODES_O), make(CODES_A), known=["c"])
    assert r.variables["c"].kind is kpr.Kind.CATEGORICAL
    if isinstance(make(CODES_O), pl.DataFrame):  # string categories: compared as text
        o = [{"c": str(v)} for v in CODES_O]
        assert_reference(r, o, [{"c": str(v)} for v in CODES_A], ["c"], set())
    else:
        _reference_codes(r)


def test_category_declared_numeric_is_numeric() -> None:
    o = pd.DataFrame({"c": pd.Categorical(CODES_O)})
    a = pd.DataFrame({"c": pd.Categorical(CODES_A)})
    r = kpr.evaluate(o, a, known=["c"], kinds={"c": "numeric"})
    assert_reference(r, [{"c": v} for v in CODES_O], [{"c": v} for v in CODES_A], ["c"], {"c"})


def _empty_sources(tmp_path: Path) -> dict[str, Any]:
    """One table (x: no value at all; s: text) from every kind of source."""
    csv = write(tmp_path / "o.csv", "x,s\n,a\n,b\n,b\n,c\n")
    parquet = tmp_path / "o.parquet"
    pl.DataFrame(
        {"x": [None] * 4, "s": ["a", "b", "b", "c"]}, schema={"x": pl.Float64, "s": pl.String}
    ).write_parquet(parquet)
    return {
        "csv": csv,
        "parquet": str(parquet),
        "polars-null": pl.DataFrame({"x": [None] * 4, "s": ["a", "b", "b", "c"]}),
        "polars-int": pl.DataFrame(
            {"x": [None] * 4, "s": ["a", "b", "b", "c"]}, schema={"x": pl.Int64, "s": pl.String}
        ),
        "polars-nan": pl.DataFrame({"x": [math.nan] * 4, "s": ["a", "b", "b", "c"]}),
        "pandas-float": pd.DataFrame(
            {"x": [None] * 4, "s": ["a", "b", "b", "c"]}, dtype=object
        ).astype({"x": "float64"}),
    }


@pytest.mark.parametrize(
    "source", ["csv", "parquet", "polars-null", "polars-int", "polars-nan", "pandas-float"]
)
def test_an_all_missing_column_is_categorical_from_every_source(
    source: str, tmp_path: Path
) -> None:
    original = _empty_sources(tmp_path)[source]
    avatars = write(tmp_path / "a.csv", "x,s\n,a\n7,c\n,c\nseven,b\n")
    if not isinstance(original, str):  # frames with frames, files with files
        avatars = pl.DataFrame({"x": [None, "7", None, "seven"], "s": ["a", "c", "c", "b"]})
        if source.startswith("pandas"):
            avatars = avatars.to_pandas()
    r = kpr.evaluate(original, avatars, known=["x", "s"])
    assert r.variables["x"].kind is kpr.Kind.CATEGORICAL
    o = [{"x": None, "s": s} for s in ["a", "b", "b", "c"]]
    a = [{"x": x, "s": s} for x, s in [(None, "a"), ("7", "c"), (None, "c"), ("seven", "b")]]
    assert_reference(r, o, a, ["x", "s"], set())
    assert (r.unique_originals, r.linked) == (2, 2)  # (-, a) and (-, c), each once


def test_all_missing_declared_numeric_uses_the_fallback_grid() -> None:
    o = pl.DataFrame({"x": [None, None, 3.0]}).head(2)
    a = pl.DataFrame({"x": [None, 1.0]})
    r = kpr.evaluate(o, a, known=["x"], kinds={"x": "numeric"})
    v = r.variables["x"]
    assert (v.kind, v.lo, v.width) == (kpr.Kind.NUMERIC, 0.0, 1.0)
    assert_reference(r, rows(o), rows(a), ["x"], {"x"})


@pytest.mark.parametrize(
    "cells",
    [[" 30 ", "41", "52 ", "\t60"], ["30", " 41", "52", "60\t"], [" 3e1", "41.0 ", "52", "60"]],
)
def test_numbers_with_surrounding_spaces_are_numbers(cells: list[str], tmp_path: Path) -> None:
    o = write(tmp_path / "o.csv", "age\n" + "\n".join(cells) + "\n")
    a = write(tmp_path / "a.csv", "age\n31\n 42\n70\n")
    r = kpr.evaluate(o, a, known=["age"])
    assert r.variables["age"].kind is kpr.Kind.NUMERIC
    numbers = [{"age": float(c) if "." in c or "e" in c else int(c)} for c in cells]
    assert_reference(r, numbers, [{"age": 31}, {"age": 42}, {"age": 70}], ["age"], {"age"})


def test_a_blank_cell_of_spaces_is_text_not_a_number(tmp_path: Path) -> None:
    o = write(tmp_path / "o.csv", "age\n30\n   \n41\n")
    r = kpr.evaluate(o, o, known=["age"])
    assert r.variables["age"].kind is kpr.Kind.CATEGORICAL


def test_booleans_are_categorical_and_declarations_win() -> None:
    o = pl.DataFrame({"b": [True, False, None], "n": [1, 2, 3]})
    r = kpr.evaluate(o, o, known=["b", "n"], kinds={"n": "categorical"})
    assert r.variables["b"].kind is kpr.Kind.CATEGORICAL
    assert_reference(r, rows(o), rows(o), ["b", "n"], set())


def test_the_rule_itself() -> None:
    assert decide_kind(ColumnFacts(TypeClass.NUMBER)) is kpr.Kind.NUMERIC
    assert decide_kind(ColumnFacts(TypeClass.CATEGORY)) is kpr.Kind.CATEGORICAL
    assert decide_kind(ColumnFacts(TypeClass.NUMBER, any_value=False)) is kpr.Kind.CATEGORICAL
    untyped = ColumnFacts(TypeClass.UNTYPED, numbers=True)
    assert decide_kind(untyped) is kpr.Kind.NUMERIC
    assert decide_kind(untyped, kpr.Kind.CATEGORICAL) is kpr.Kind.CATEGORICAL


def test_avatarize_roles_start_from_the_same_rule() -> None:
    df = pd.DataFrame(
        {
            "cat": pd.Categorical(list(range(40)) * 3),  # many integer categories
            "num": [float(i) for i in range(120)],
            "few": [i % 3 for i in range(120)],
        }
    )
    roles = column_roles("pandas", df)
    assert roles == {"cat": "categorical", "num": "numeric", "few": "categorical"}


@pytest.mark.parametrize(
    ("original", "avatars", "match"),
    [
        ({"age": [30, 41]}, {"age": ["30", "forty"]}, "'age' is numeric in original but text"),
        ({"c": ["a", "b"]}, {"c": [1.5, 2.5]}, "'c' is text"),
        ({"c": [True, False]}, {"c": ["a", "b"]}, "give both tables the same type"),
    ],
    ids=["number-vs-text", "text-vs-float", "bool-vs-text"],
)
def test_mismatched_types_are_one_line(
    original: dict[str, list[Any]], avatars: dict[str, list[Any]], match: str
) -> None:
    name = next(iter(original))
    assert_input_error(
        lambda: kpr.evaluate(pl.DataFrame(original), pl.DataFrame(avatars), known=[name]), match
    )


def test_decimal_against_integer_categories_is_one_line() -> None:
    from decimal import Decimal

    o = pl.DataFrame({"d": [Decimal("1.5"), Decimal(2)]}, schema={"d": pl.Decimal(10, 2)})
    a = pl.DataFrame({"d": [1, 2]})
    assert_input_error(
        lambda: kpr.evaluate(o, a, known=["d"], kinds={"d": "categorical"}),
        "give both tables the same type",
    )


def test_empty_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    header_only = write(tmp_path / "o.csv", "age,sex\n")
    some = write(tmp_path / "a.csv", "age,sex\n30,F\n")
    assert_input_error(lambda: kpr.evaluate(header_only, some, known=["age"]), "no rows")
    assert_cli_refuses(["evaluate", header_only, some, "-k", "age"], capsys, "no rows")
    r = kpr.evaluate(some, header_only, known=["age", "sex"])
    assert (r.n_avatars, r.linked, r.rate) == (0, 0, 100.0)


def test_all_missing_csv_column_from_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    o = write(tmp_path / "o.csv", "x,s\n,a\n,b\n")
    a = write(tmp_path / "a.csv", "x,s\n1,a\nz,b\n")
    code, out, err = run_cli(["evaluate", o, a, "-k", "x,s"], capsys)
    assert code == 0 and "x  categorical" in out.replace("   ", "  "), out + err
