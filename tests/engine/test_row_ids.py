"""``row_id``: linked individuals on every engine, equal to polars' positions.

The tables carry an ``id`` column equal to each row's position, so every
engine's ``linked_individuals()`` must equal what polars reports from
positions alone."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import kpr
from kpr.cli.app import main

from .conftest import Convert

KNOWN = ["age", "sex", "score"]


def _tables() -> tuple[pl.DataFrame, pl.DataFrame]:
    original = pl.DataFrame(
        {
            "age": [30, 30, 41, 52, 60, 18, None, 77, 41, 90],
            "sex": ["F", "F", "M", "F", "M", None, "F", "M", "F", "M"],
            "score": [1.5, 2.0, None, 4.0, float("inf"), 0.0, 3.25, -2.0, 9.0, 1e300],
        }
    )
    avatars = pl.DataFrame(
        {
            "age": [42, 53, 54, 61, 59, 18, None, 77, 40, 1_000_000, 41],
            "sex": ["M", "F", "F", "M", "M", None, "F", "M", "F", "M", "M"],
            "score": [None, 4.0, 4.0, float("inf"), float("inf"), 0.0, 3.25, -2.0, 9.0, 1.0, 5.0],
        }
    )
    return (
        original.with_row_index("id").with_columns(pl.col("id").cast(pl.Int64) + 100),
        avatars.with_row_index("id").with_columns(pl.col("id").cast(pl.Int64) + 100),
    )


def _expected() -> pl.DataFrame:
    original, avatars = _tables()
    got = kpr.evaluate(original.drop("id"), avatars.drop("id"), KNOWN).linked_frame()
    assert got.height >= 3  # the case links several individuals
    return got.with_columns(pl.col("original_row", "avatar_row").cast(pl.Int64) + 100)


def test_row_ids_give_the_polars_links_on_every_engine(engine: Convert) -> None:
    original, avatars = _tables()
    result = kpr.evaluate(
        engine(original), engine(avatars), KNOWN, row_id="id", tuning=engine.tuning
    )
    got = result.linked_frame()
    assert got.height == result.linked
    assert got.sort("original_row").to_dicts() == _expected().to_dicts()


def test_row_id_may_also_be_a_known_variable(engine: Convert) -> None:
    original, avatars = _tables()
    result = kpr.evaluate(
        engine(original), engine(avatars), ["id", "sex"], row_id="id", tuning=engine.tuning
    )
    direct = kpr.evaluate(original, avatars, ["id", "sex"])
    assert result.linked == direct.linked
    assert result.linked_frame()["original_row"].to_list() == [
        r + 100 for r in direct.linked_frame()["original_row"].to_list()
    ]


def test_without_row_ids_spark_dask_duckdb_say_how(engine: Convert) -> None:
    original, avatars = _tables()
    result = kpr.evaluate(engine(original), engine(avatars), KNOWN, tuning=engine.tuning)
    if result._detail is not None and result._detail.run.row is not None:
        assert result.linked_frame().height == result.linked  # polars-backed
        return
    with pytest.raises(ValueError, match="row_id="):
        result.linked_individuals()


def test_row_ids_must_be_whole_numbers() -> None:
    original, avatars = _tables()
    with pytest.raises(kpr.InputError, match="row id column 'sex' must hold whole numbers"):
        kpr.evaluate(original, avatars, ["age"], row_id="sex")
    with pytest.raises(kpr.InputError, match="no column 'nope'"):
        kpr.evaluate(original, avatars, ["age"], row_id="nope")


def test_dask_numbers_a_files_rows_in_file_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--engine dask --linked-out`` without ``--row-id``: Dask numbers each Parquet
    file's rows (several row groups, so several partitions) in file order, and the
    CSV of linked individuals equals the default engine's."""
    pytest.importorskip("dask.dataframe")
    original, avatars = (t.drop("id") for t in _tables())
    paths = []
    for name, frame in (("o", original), ("a", avatars)):
        path = tmp_path / f"{name}.parquet"
        frame.write_parquet(path, row_group_size=3)
        paths.append(str(path))
    written = []
    for engine in ("polars", "dask"):
        out = tmp_path / f"linked-{engine}.csv"
        argv = ["evaluate", *paths, "-k", ",".join(KNOWN), "--engine", engine, "-q",
                "--linked-out", str(out)]  # fmt: skip
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code in (0, None), capsys.readouterr().err
        written.append(pl.read_csv(out).sort("original_row").to_dicts())
    assert written[0] == written[1]
    expected = _expected().with_columns(pl.col("original_row", "avatar_row") - 100)
    pairs = [{k: r[k] for k in ("original_row", "avatar_row")} for r in written[1]]
    assert pairs == expected.select("original_row", "avatar_row").sort("original_row").to_dicts()


def test_dask_positions_count_across_partitions() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    from kpr.engine.dask import dask_positions

    frame = dd.from_pandas(pd.DataFrame({"x": list("abcdefghij")}), npartitions=4)
    got = dask_positions(frame, "pos").compute()
    assert frame.npartitions == 4
    assert got["pos"].tolist() == list(range(10))
    assert got["x"].tolist() == list("abcdefghij")
