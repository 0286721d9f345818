"""SDV metadata as a source of kinds, and the CLI options of dates and widths."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import polars as pl
import pytest

import kpr
from kpr.inputs.metadata import sdv_kinds
from tests.conftest import run_cli as run

ORIGINAL = pl.DataFrame(
    {
        "zip": [75001, 75002, 75003, 75001, 69001, 69002],
        "age": [30, 41, 52, 60, 33, 47],
        "email": [f"p{i}@x.org" for i in range(6)],
        "id": list(range(6)),
    }
)
AVATARS = ORIGINAL.with_columns(pl.col("zip") + 1, pl.col("age") + 1)
COLUMNS = {
    "zip": {"sdtype": "categorical"},
    "age": {"sdtype": "numerical"},
    "email": {"sdtype": "email", "pii": True},
    "id": {"sdtype": "id"},
}
SINGLE = {"METADATA_SPEC_VERSION": "SINGLE_TABLE_V1", "columns": COLUMNS}
MULTI = {
    "METADATA_SPEC_VERSION": "V1",
    "tables": {
        "people": {"columns": COLUMNS},
        "visits": {"columns": {"zip": {"sdtype": "numerical"}}},
    },
    "relationships": [],
}


def test_sdtypes_give_kinds() -> None:
    assert sdv_kinds(SINGLE, ["zip", "age", "other"]) == {"zip": "categorical", "age": "numeric"}
    assert sdv_kinds(
        {"columns": {"d": {"sdtype": "datetime"}, "b": {"sdtype": "boolean"}}}, ["d", "b"]
    ) == {
        "d": "date",
        "b": "categorical",
    }
    assert sdv_kinds(MULTI, ["zip"], table="visits") == {"zip": "numeric"}
    old = {"METADATA_SPEC_VERSION": "MULTI_TABLE_V1", "tables": {"people": {"columns": COLUMNS}}}
    assert sdv_kinds(old, ["zip"]) == {"zip": "categorical"}  # one table: no name needed


def test_metadata_changes_the_result_as_declared_kinds_do(tmp_path: Path) -> None:
    declared = kpr.evaluate(ORIGINAL, AVATARS, known=["zip", "age"], kinds={"zip": "categorical"})
    inferred = kpr.evaluate(ORIGINAL, AVATARS, known=["zip", "age"])
    assert declared.variables["zip"].kind != inferred.variables["zip"].kind
    path = tmp_path / "metadata.json"
    path.write_text(json.dumps(SINGLE))
    obj = SimpleNamespace(to_dict=lambda: SINGLE)  # what SDV's Metadata offers
    for given in (SINGLE, path, str(path), obj):
        got = kpr.evaluate(ORIGINAL, AVATARS, known=["zip", "age"], metadata=given)
        assert got.variables == declared.variables and got.rate == declared.rate
    # kinds= wins over the metadata
    wins = kpr.evaluate(ORIGINAL, AVATARS, known=["zip"], metadata=SINGLE, kinds={"zip": "numeric"})
    assert wins.variables["zip"].kind is kpr.Kind.NUMERIC


@pytest.mark.parametrize(
    ("metadata", "known", "table", "message"),
    [
        (SINGLE, ["id"], None, r"'id' is an id in the metadata .*remove it from known"),
        (SINGLE, ["email"], None, r"'email' is personal information .*sdtype 'email'"),
        (MULTI, ["zip"], None, r"several tables \('people', 'visits'\); name one"),
        (MULTI, ["zip"], "nope", r"no table 'nope'; its tables: 'people', 'visits'"),
        (SINGLE, ["zip"], "people", r"describes one table"),
        ({"foo": 1}, ["zip"], None, r"neither 'columns' nor 'tables'"),
        (42, ["zip"], None, r"metadata must be SDV metadata"),
    ],
)
def test_bad_metadata_says_why(
    metadata: Any, known: list[str], table: str | None, message: str
) -> None:
    with pytest.raises(kpr.InputError, match=message):
        kpr.evaluate(ORIGINAL, AVATARS, known=known, metadata=metadata, table=table)


def test_unreadable_metadata_file(tmp_path: Path) -> None:
    bad = tmp_path / "m.json"
    bad.write_text("{not json")
    with pytest.raises(kpr.InputError, match="is not JSON"):
        kpr.evaluate(ORIGINAL, AVATARS, known=["zip"], metadata=bad)
    with pytest.raises(kpr.InputError, match="cannot read it"):
        kpr.evaluate(ORIGINAL, AVATARS, known=["zip"], metadata=tmp_path / "missing.json")


@pytest.fixture
def csv_files(tmp_path: Path) -> tuple[str, str, str]:
    o, a, m = tmp_path / "o.csv", tmp_path / "a.csv", tmp_path / "meta.json"
    o.write_text(
        "admitted,zip\n2020-01-01,75001\n2020-03-15,75002\n2021-07-01,75003\n2020-01-01,75001\n"
    )
    a.write_text(
        "admitted,zip\n2020-01-09,75001\n2020-03-15,75002\n2021-09-01,75003\n2020-01-01,75004\n"
    )
    m.write_text(
        json.dumps(
            {"METADATA_SPEC_VERSION": "MULTI_TABLE_V1", "tables": {"t": {"columns": COLUMNS}}}
        )
    )
    return str(o), str(a), str(m)


def test_cli_dates_widths_and_metadata(
    csv_files: tuple[str, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    o, a, m = csv_files
    argv = ["evaluate", o, a, "-k", "admitted,zip", "--format", "json"]
    argv += ["--metadata", m, "--table", "t", "--width", "admitted=30d"]
    code, out, _ = run(argv, capsys)
    assert code == 0
    got = json.loads(out)
    expected = kpr.evaluate(
        o, a, known=["admitted", "zip"], kinds={"zip": "categorical"}, widths={"admitted": 30}
    )
    assert got["kpr"] == expected.rate
    assert (
        got["variables"]["admitted"]["kind"] == "date"
        and got["variables"]["admitted"]["width"] == 30
    )
    assert got["variables"]["zip"]["kind"] == "categorical"
    code, out, _ = run(
        ["evaluate", o, a, "-k", "admitted", "--format", "json", "--width", "admitted=12h"], capsys
    )
    assert code == 0 and json.loads(out)["variables"]["admitted"]["width"] == 0.5
    code, out, _ = run(
        ["evaluate", o, a, "-k", "admitted", "--format", "json", "--date", "admitted"], capsys
    )
    assert code == 0 and json.loads(out)["variables"]["admitted"]["kind"] == "date"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--width", "admitted"], "--width must be NAME=WIDTH"),
        (["--width", "admitted=-3d"], "--width must be NAME=WIDTH"),
        (["--width", "zip=2"], "'zip', which is not a known variable"),
        (["--date", "admitted", "--categorical", "admitted"], "both --categorical and --date"),
        (["--metadata", "nowhere.json"], "cannot read it"),
    ],
)
def test_cli_bad_options_are_one_line(
    csv_files: tuple[str, str, str],
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    o, a, _ = csv_files
    code, _, err = run(["evaluate", o, a, "-k", "admitted", *extra], capsys)
    assert code == 2 and message in err and "Traceback" not in err
