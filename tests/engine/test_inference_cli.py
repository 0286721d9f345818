"""``kpr inference --engine``: Spark and Dask read the files and count, and the JSON is
the default engine's to the last field (DuckDB and the frame libraries are checked
through the API in ``test_inference.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.adversarial.conftest import assert_cli_refuses, run_cli

from .test_inference import _AVATARS, _ROWS

ARGS = ["-k", "age,region", "--secret", "score", "--denom-lim", "3", "-f", "json", "-q"]


@pytest.fixture
def parquet(tmp_path: Path) -> tuple[str, str]:
    o, a = tmp_path / "o.parquet", tmp_path / "a.parquet"
    pl.DataFrame(_ROWS).write_parquet(o)
    pl.DataFrame(_AVATARS).write_parquet(a)
    return str(o), str(a)


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    return json.loads(out)


def test_dask_gives_the_default_engine_figures(
    parquet: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("dask.dataframe")
    expected = _json(["inference", *parquet, *ARGS], capsys)
    assert expected["secrets"][0]["linked"] > 0
    assert _json(["inference", *parquet, *ARGS, "--engine", "dask"], capsys) == expected


def test_spark_gives_the_default_engine_figures(
    spark: Any, parquet: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    expected = _json(["inference", *parquet, *ARGS], capsys)
    assert _json(["inference", *parquet, *ARGS, "--engine", "spark"], capsys) == expected


def test_a_control_needs_the_default_engine(
    parquet: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert_cli_refuses(
        ["inference", *parquet, *ARGS, "--engine", "dask", "--control", parquet[0]],
        capsys, "--engine dask",
    )  # fmt: skip
