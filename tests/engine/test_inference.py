"""``kpr.inference`` gives the same figures on every engine, from files too, and
the person-by-person reference's."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings

import kpr
from tests.inference.helpers import SecretCase, assert_matches, run, secret_cases
from tests.strategies import Case

from .conftest import Convert

_ROWS = [
    {"age": a, "score": s, "sex": x, "region": r}
    for a, s, x, r in [
        (30, 1.5, "F", "north"), (30, 1.5, "F", "north"), (41, 2.0, "M", "south"),
        (52, None, "F", "é東"), (60, math.inf, "M", None), (61, 3.25, None, "a b,c"),
        (None, 2.0, "F", "north"), (75, -1.0, "M", "south"), (75, 4.0, "M", "south"),
        (18, 0.0, "F", "north"), (19, 0.25, "F", "south"), (44, 10.0, "M", "é東"),
    ]
]  # fmt: skip
_AVATARS = [*_ROWS[2:9], {"age": 120, "score": 99.0, "sex": "F", "region": "north"}]
_AVATARS += [{"age": 18, "score": 0.0, "sex": "M", "region": None}, _ROWS[11]]


def _case(secret: str, known: list[str]) -> SecretCase:
    return SecretCase(Case(_ROWS, _AVATARS, known, 0.05), secret, None)


def _frames(sc: SecretCase) -> tuple[pl.DataFrame, pl.DataFrame]:
    return sc.case.frames()


@pytest.mark.parametrize(
    ("secret", "known"), [("region", ["age", "sex"]), ("score", ["age", "region"])]
)
def test_every_engine_gives_the_reference(engine: Convert, secret: str, known: list[str]) -> None:
    sc = _case(secret, known)
    o, a = _frames(sc)
    expected = kpr.inference(o, a, known=known, secret=secret)[secret]
    got = kpr.inference(engine(o), engine(a), known=known, secret=secret)[secret]
    assert_matches(got, sc)
    assert got.to_dict() == expected.to_dict()


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_files_give_the_same_figures(tmp_path: Path, suffix: str) -> None:
    sc = _case("score", ["age", "sex", "region"])
    o, a = _frames(sc)
    paths: list[Any] = []
    for name, frame in (("original", o), ("avatars", a)):
        path = tmp_path / f"{name}.{suffix}"
        if suffix == "csv":
            frame.write_csv(path)
        else:
            frame.write_parquet(path)
        paths.append(path)
    got = kpr.inference(*paths, known=sc.case.known, secret="score")
    expected = kpr.inference(o, a, known=sc.case.known, secret="score")
    assert got.to_dict() == expected.to_dict()
    assert_matches(got["score"], sc)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(secret_cases())
def test_duckdb_gives_the_reference_on_random_tables(sc: SecretCase) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    got = run(sc, lambda f: con.from_arrow(f.to_arrow()))
    assert_matches(got, sc)
    assert got.to_dict() == run(sc).to_dict()
