"""``kpr demo --write``: the demo as files, reproducible, never overwriting anything."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from kpr.cli.demo_files import DEMO_FILES
from kpr.demo import demo_paths
from tests.conftest import run_cli as run


def test_the_files_split_adult_and_hold_kprs_avatars(
    demo_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert sorted(p.name for p in demo_folder.iterdir()) == sorted(DEMO_FILES)
    adult = pl.read_parquet(demo_paths()[0])
    original = pl.read_csv(demo_folder / "original.csv")
    holdout = pl.read_csv(demo_folder / "holdout.csv")
    assert (original.height, holdout.height) == (24_000, 8_561)
    assert pl.concat([original, holdout]).equals(adult)
    # the avatars and pairing are exactly what `kpr avatarize --k 20 --seed 0` writes
    out = tmp_path / "avatars.csv"
    pairing = tmp_path / "pairing.csv"
    argv = ["avatarize", str(demo_folder / "original.csv"), "-o", str(out), "--k", "20"]
    code, _, _ = run([*argv, "--seed", "0", "--pairing-out", str(pairing), "-q"], capsys)
    assert code == 0
    assert out.read_bytes() == (demo_folder / "avatars.csv").read_bytes()
    assert pairing.read_bytes() == (demo_folder / "pairing.csv").read_bytes()
    pairs = pl.read_csv(pairing)
    assert pairs.columns == ["original_row", "avatar_row"]
    assert sorted(pairs["avatar_row"]) == list(range(24_000))
    metadata = json.loads((demo_folder / "metadata.json").read_text(encoding="utf-8"))
    assert metadata["METADATA_SPEC_VERSION"] == "SINGLE_TABLE_V1"
    assert metadata["columns"]["age"] == {"sdtype": "numerical"}
    assert metadata["columns"]["sex"] == {"sdtype": "categorical"}
    assert list(metadata["columns"]) == adult.columns


def test_write_says_what_it_wrote_and_never_overwrites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "new" / "demo"
    code, out, _ = run(["demo", "--write", str(folder), "-q"], capsys)
    assert code == 0
    assert out.count("\n") == 1 and out.startswith(f"Wrote to {folder}: original.csv (24,000")
    assert sorted(p.name for p in folder.iterdir()) == sorted(DEMO_FILES)
    # one file already there: refused before anything is written, nothing changed
    for path in folder.iterdir():
        path.unlink() if path.name != "pairing.csv" else path.write_text("mine\n")
    code, out, err = run(["demo", "--write", str(folder), "-q"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("kpr: error: --write") and "pairing.csv already there" in err
    assert [p.name for p in folder.iterdir()] == ["pairing.csv"]
    assert (folder / "pairing.csv").read_text() == "mine\n"


def test_write_takes_no_other_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["demo", "--write", str(tmp_path), "--format", "json"], capsys)
    assert code == 2 and "--write only writes the demo files" in err
    assert list(tmp_path.iterdir()) == []
    file = tmp_path / "a-file"
    file.write_text("x")
    code, _, err = run(["demo", "--write", str(file)], capsys)
    assert code == 2 and err.count("\n") == 1
