"""One answer everywhere: every engine gives the same counts and the same bins
as the exact reference (``tests/reference.py``) on the same cases."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl
import pytest

import kpr
from kpr.metric.attack import Kind
from tests.conftest import WORKED_AVATARS, WORKED_ORIGINAL
from tests.reference import numeric_variables, reference_kpr

from .conftest import Convert

INF = math.inf
NAN = math.nan


@dataclass
class Case:
    original: dict[str, list[Any]]
    avatars: dict[str, list[Any]]
    known: list[str]
    schema: dict[str, Any]
    kinds: dict[str, str] = field(default_factory=dict)
    tolerance: float = 0.05

    def frames(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        return (
            pl.DataFrame(self.original, schema=self.schema),
            pl.DataFrame(self.avatars, schema=self.schema),
        )


AGE_SEX = {"age": pl.Int64, "sex": pl.String}
_BIG = [(k * 7_919_000_003) % 2_000_000_000_000 - 10**12 for k in range(60)]

CASES = {
    "worked-example": Case(
        WORKED_ORIGINAL,
        WORKED_AVATARS,
        ["age", "sex"],
        {"age": pl.Float64, "sex": pl.String},
    ),
    "missing-values": Case(
        {
            "age": [30, None, None, 41, None, 52, 60, 60, None],
            "h": [1.5, None, None, NAN, 2.0, NAN, NAN, 3.25, 1.5],
            "sex": ["F", None, None, None, "M", "F", None, None, "F"],
        },
        {
            "age": [31, None, None, 41, 60, None, 52],
            "h": [1.5, NAN, None, 2.0, NAN, 3.25, None],
            "sex": ["F", None, "M", None, None, "F", "F"],
        },
        ["age", "h", "sex"],
        {"age": pl.Int64, "h": pl.Float64, "sex": pl.String},
    ),
    "negative-and-zero-means": Case(
        {
            "neg": [-50, -40, -41, -60, -33, -70],
            "zero": [-2.0, 2.0, -1.0, 1.0, 0.0, -0.0],
        },
        {
            "neg": [-50, -40, -41, -60, -33, -70, -41],
            "zero": [-2.0, 2.0, -1.0, 1.0, 0.0, 0.5, -0.0],
        },
        ["neg", "zero"],
        {"neg": pl.Int64, "zero": pl.Float64},
    ),
    "signed-zero-is-zero": Case(
        {"x": [0.0, -0.0, 1.0, 2.0], "c": [0.0, -0.0, 1.5, -0.0]},
        {"x": [-0.0, 1.0, 2.0, 0.0], "c": [0.0, 1.5, -0.0, 0.0]},
        ["x", "c"],
        {"x": pl.Float64, "c": pl.Float64},
        kinds={"c": "categorical"},
    ),
    "constant-columns": Case(
        {"k": [7, 7, 7, 7], "z": [0.0, 0.0, 0.0, 0.0], "s": ["a", "b", "c", "d"]},
        {"k": [7, 7, 8, 6], "z": [0.0, 0.5, 0.0, -0.5], "s": ["a", "b", "c", "d"]},
        ["k", "z", "s"],
        {"k": pl.Int64, "z": pl.Float64, "s": pl.String},
    ),
    "infinities": Case(
        {
            "x": [INF, -INF, INF, 1.0, 2.0, 3.0, -INF, 5.0],
            "g": ["a", "a", "b", "a", "a", "a", "b", "b"],
        },
        {"x": [INF, -INF, INF, 1.0, 2.0, INF, 5.0], "g": ["a", "a", "b", "a", "a", "a", "b"]},
        ["x", "g"],
        {"x": pl.Float64, "g": pl.String},
    ),
    "only-missing-or-infinite": Case(
        {"x": [None, INF, -INF, NAN], "g": ["a", "b", "c", "d"]},
        {"x": [None, INF, 1.0, None], "g": ["a", "b", "c", "e"]},
        ["x", "g"],
        {"x": pl.Float64, "g": pl.String},
    ),
    "out-of-range-avatars": Case(
        {"x": [10.0, 20.0, 30.0, 40.0, 50.0], "i": [1, 2, 3, 4, 5]},
        {
            "x": [1e300, -1e300, 10.0, 1e18, -5.0, 50.0, 5e-324, 20.0],
            "i": [1, 2, 1, 4, 5, 5, -(2**62), 2],
        },
        ["x", "i"],
        {"x": pl.Float64, "i": pl.Int64},
    ),
    "huge-integers": Case(
        {"i": [2**62, 2**62 - 1, -(2**62), 3, 2**61], "j": [1, 2, 3, 4, 5]},
        {"i": [2**62, -(2**62), 3, 2**62 - 1, 0, 2**61], "j": [1, 3, 4, 2, 5, 5]},
        ["i", "j"],
        {"i": pl.Int64, "j": pl.Int64},
    ),
    "m-greater-than-n": Case(
        {"age": [30, 41, 52], "sex": ["F", "M", "F"]},
        {"age": [30, 41, 41, 52, 53, 30, 90], "sex": ["F", "M", "M", "F", "M", "M", "F"]},
        ["age", "sex"],
        AGE_SEX,
    ),
    "m-less-than-n": Case(
        {"age": [30, 41, 52, 60, 70, 70], "sex": ["F", "M", "F", "M", "F", "F"]},
        {"age": [52, 61], "sex": ["F", "M"]},
        ["age", "sex"],
        AGE_SEX,
    ),
    "no-avatars": Case(
        {"age": [30, 41, 52], "sex": ["F", "M", "F"]},
        {"age": [], "sex": []},
        ["age", "sex"],
        AGE_SEX,
    ),
    "no-unique-original": Case(
        {"age": [30, 30, 41, 41], "sex": ["F", "F", "M", "M"]},
        {"age": [30, 41], "sex": ["F", "M"]},
        ["age", "sex"],
        AGE_SEX,
    ),
    "integer-coded-category": Case(
        {"zip": [75001, 75002, 75001, 69001, 13001], "age": [20, 30, 40, 50, 60]},
        {"zip": [75001, 75002, 69001, 13001, 13001], "age": [21, 30, 41, 50, 59]},
        ["zip", "age"],
        {"zip": pl.Int64, "age": pl.Int64},
        kinds={"zip": "categorical"},
    ),
    # 0.0 sits exactly on the edge of class 4: (0 + 1.7875) / 0.446875 == 4.0, but
    # 1.7875 * (1 / 0.446875) == 3.9999999999999996 (an engine must divide).
    "value-on-a-class-edge": Case(
        {"age": [None] * 9 + [0, 1], "score": [None] * 7 + [0.0, 35.75, 0.0, 0.0]},
        {"age": [None] * 5, "score": [None] * 4 + [0.25]},
        ["age", "score"],
        {"age": pl.Int64, "score": pl.Float64},
    ),
    # Integer sums beyond 2**53 (d**2 for d ~ 1e12): exact limb sums on every engine.
    "integers-near-1e12": Case(
        {"i": _BIG, "c": ["a", "b"] * 30},
        {"i": [v + 10**10 for v in _BIG[::3]], "c": ["a", "b"] * 10},
        ["i", "c"],
        {"i": pl.Int64, "c": pl.String},
    ),
    "int64-extremes": Case(
        {"i": [-(2**63), 2**63 - 1, 0, 1, -(2**63) + 1]},
        {"i": [-(2**63), 2**63 - 1, 5, 2**63 - 2]},
        ["i"],
        {"i": pl.Int64},
    ),
    # Sums overflow float64 unless scaled: statistics of values near 1e308.
    "near-the-float-limit": Case(
        {"v": [1e308, 1.2e308, 1.4e308, 1.6e308]},
        {"v": [9.84e307, 1.203e308, 1.389e308, 1.61e308]},
        ["v"],
        {"v": pl.Float64},
    ),
    "booleans-and-wide-tolerance": Case(
        {"b": [True, False, True, None], "v": [1.25, 2.5, 3.75, 5.0]},
        {"b": [True, False, None, True], "v": [1.0, 2.5, 5.0, 3.5]},
        ["b", "v"],
        {"b": pl.Boolean, "v": pl.Float64},
        tolerance=0.5,
    ),
}


def _reference(case: Case) -> Any:
    o, a = case.frames()
    typed = {v for v in case.known if o.schema[v].is_numeric() and v not in case.kinds}
    numeric = numeric_variables(o.to_dicts(), typed)
    return reference_kpr(o.to_dicts(), a.to_dicts(), case.known, numeric, case.tolerance)


def assert_same(result: kpr.KprResult, expected: Any) -> None:
    assert (result.n, result.n_avatars) == (expected.n, expected.n_avatars)
    assert result.unique_originals == expected.unique_originals
    assert result.linked == expected.linked
    assert result.kpr == expected.kpr
    for name, b in expected.bins.items():
        v = result.variables[name]
        assert v.kind is Kind.NUMERIC
        assert (v.lo, v.width) == (b.lo, b.width), name
        assert v.mean == b.mean or (v.mean is None and b.mean is None)
        assert v.std == b.std or (v.std is None and b.std is None)


@pytest.mark.parametrize("name", list(CASES))
def test_every_engine_gives_the_reference_answer(engine: Convert, name: str) -> None:
    case = CASES[name]
    o, a = case.frames()
    result = kpr.evaluate(
        engine(o),
        engine(a),
        case.known,
        tolerance=case.tolerance,
        kinds=case.kinds,
        tuning=engine.tuning,
    )
    assert_same(result, _reference(case))


def test_worked_example_is_sixty_percent(engine: Convert) -> None:
    o, a = CASES["worked-example"].frames()
    result = kpr.evaluate(engine(o), engine(a), ["age", "sex"], tuning=engine.tuning)
    assert result.rate == 60.0
    assert (result.n, result.unique_originals, result.linked) == (5, 3, 2)
    age = result.variables["age"]
    assert age.lo == 41 - math.sqrt(91) / 10
    assert age.width == 0.05 * 51


def test_missing_counts_and_classes_agree(engine: Convert) -> None:
    o, a = CASES["missing-values"].frames()
    result = kpr.evaluate(engine(o), engine(a), ["age", "h", "sex"], tuning=engine.tuning)
    assert {n: v.missing for n, v in result.variables.items()} == {"age": 4, "h": 5, "sex": 5}
    table = result.class_table("h")  # by_class() gives the input's library
    assert table["originals"].sum() == 9
    assert table["avatars"].sum() == 7
    assert table["unique_originals"].sum() == result.unique_originals
    assert table["linked"].sum() == result.linked


def test_duckdb_relations_of_two_connections_are_one_clear_error() -> None:
    duckdb = pytest.importorskip("duckdb")
    o, a = CASES["worked-example"].frames()
    c1, c2 = duckdb.connect(), duckdb.connect()
    with pytest.raises(kpr.InputError, match="two different connections"):
        kpr.evaluate(c1.from_arrow(o.to_arrow()), c2.from_arrow(a.to_arrow()), ["age", "sex"])


@pytest.mark.parametrize("engine", ["duckdb", "spark", "dask"], indirect=True)
def test_mixing_engines_is_one_clear_error(engine: Convert) -> None:
    """A database or cluster frame cannot be linked to an in-memory one (pandas,
    polars and pyarrow inputs, all polars-backed, mix freely)."""
    o, a = CASES["worked-example"].frames()
    with pytest.raises(kpr.InputError, match="same engine"):
        kpr.evaluate(engine(o), a.to_pandas(), ["age", "sex"])
