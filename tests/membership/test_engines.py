"""One answer everywhere: the membership attack gives the same figures on every engine
(polars, pandas, pyarrow, DuckDB, Spark, Dask) and from CSV and Parquet files, and its
profiles are the brute force's."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import kpr
from kpr.analysis.members import count_profiles
from tests.engine.conftest import Convert
from tests.reference import reference_triples

from .test_api import triples

SCHEMA = {"age": pl.Int64, "h": pl.Float64, "sex": pl.String, "town": pl.String}


def _people(n: int, shift: int) -> pl.DataFrame:
    rows = []
    for i in range(shift, shift + n):
        rows.append(
            {
                "age": None if i % 13 == 0 else 18 + (i * 7) % 70,
                "h": math.inf if i % 31 == 0 else None if i % 11 == 0 else 150 + (i * 3) % 41 / 4,
                "sex": None if i % 17 == 0 else "FM"[i % 2],
                "town": ["north", "é東", "a b,c", "south"][(i * 5) % 4],
            }
        )
    return pl.DataFrame(rows, schema=SCHEMA)


ORIGINAL = _people(150, 0)
AVATARS = pl.concat([ORIGINAL[::3], _people(70, 1000)])
HOLDOUT = _people(90, 5000)


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    return kpr.membership(ORIGINAL, AVATARS, holdout=HOLDOUT, seed=3, replicates=100).to_dict()


def test_the_profiles_are_the_brute_force() -> None:
    got = count_profiles(ORIGINAL, AVATARS, HOLDOUT)
    want = reference_triples(
        ORIGINAL.to_dicts(), AVATARS.to_dicts(), HOLDOUT.to_dicts(), list(SCHEMA), {"age", "h"}
    )
    assert triples(got.counts) == want


def test_every_engine_gives_the_same_figures(engine: Convert, expected: dict[str, Any]) -> None:
    got = kpr.membership(
        engine(ORIGINAL), engine(AVATARS), holdout=engine(HOLDOUT), seed=3, replicates=100
    )
    assert got.to_dict() == expected


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_files_give_the_same_figures(tmp_path: Path, suffix: str, expected: dict[str, Any]) -> None:
    paths = []
    for name, table in (("original", ORIGINAL), ("avatars", AVATARS), ("holdout", HOLDOUT)):
        path = tmp_path / f"{name}.{suffix}"
        getattr(table, f"write_{suffix}")(path)
        paths.append(str(path))
    got = kpr.membership(paths[0], paths[1], holdout=paths[2], seed=3, replicates=100)
    assert got.to_dict() == expected
