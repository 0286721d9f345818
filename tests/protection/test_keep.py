"""``keep=`` / ``--keep``: columns protect never changes (issue 34)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import kpr
from tests.adversarial.conftest import assert_cli_refuses, run_cli
from tests.protection.test_protect import KNOWN, tables
from tests.protection.test_regenerate import own_avatars


def test_kept_columns_are_never_changed() -> None:
    original, avatars = tables(n=600, seed=4)
    protected, result = kpr.protect(
        original, avatars, KNOWN, target=95, keep=["sex", "region"], distances=False,
        utility=False,
    )  # fmt: skip
    assert result.met and result.cells_total and result.keep == ("sex", "region")
    assert result.changes is not None
    assert set(result.changes["column"]) <= {"age", "height"}
    assert protected.select("sex", "region").equals(avatars.select("sex", "region"))
    assert kpr.evaluate(original, protected, KNOWN).rate >= 95
    assert result.to_dict()["keep"] == ["sex", "region"]


def test_a_kept_name_with_a_space_and_an_accent() -> None:
    original, avatars = tables(n=400, seed=6)
    renamed = {"region": "région d'origine"}
    original, avatars = original.rename(renamed), avatars.rename(renamed)
    known = ["age", "height", "sex", "région d'origine"]
    protected, result = kpr.protect(
        original, avatars, known, target=95, keep="région d'origine", distances=False,
        utility=False,
    )  # fmt: skip
    assert result.met and result.keep == ("région d'origine",)
    assert protected["région d'origine"].equals(avatars["région d'origine"])


def test_regenerate_leaves_a_kept_column_that_is_not_known() -> None:
    original, avatars, pairing = own_avatars(n=300)
    protected, result = kpr.protect(
        original, avatars, KNOWN, target=97, moves="regenerate,swap", pairing=pairing,
        keep="note", distances=False, utility=False,
    )  # fmt: skip
    assert result.moves_used.get("regenerate", 0) + result.moves_used.get("swap", 0) > 0
    assert protected["note"].equals(avatars["note"])


def test_a_target_kept_out_of_reach_names_the_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original, avatars = tables(n=400, seed=2)
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    original.write_csv(o)
    avatars.write_csv(a)
    argv = ["protect", str(o), str(a), "-k", ",".join(KNOWN), "--target", "95",
            "-o", str(tmp_path / "p.csv"), "--no-distances", "--no-utility"]  # fmt: skip
    code, stdout, _ = run_cli([*argv, "--keep", "note,age,height", "--keep", "sex,region"], capsys)
    assert code == 1, stdout
    named = "'age', 'height', 'sex', 'region' kept unchanged"
    assert named in stdout and "change fewer kept columns" in stdout, stdout
    assert "'note'" not in stdout  # not a known variable: it held no link
    code, _, _ = run_cli(argv, capsys)
    assert code == 0  # reachable without --keep


def test_a_kept_name_that_is_not_a_column_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original, avatars = tables(n=100)
    o, a = tmp_path / "o.csv", tmp_path / "a.csv"
    original.write_csv(o)
    avatars.write_csv(a)
    line = assert_cli_refuses(
        ["protect", str(o), str(a), "-k", "age,sex", "--target", "99", "-o",
         str(tmp_path / "p.csv"), "--keep", "sex,nosuch"],
        capsys, "--keep names 'nosuch'",
    )  # fmt: skip
    assert "keep=" not in line
    assert not (tmp_path / "p.csv").exists()
    with pytest.raises(kpr.InputError, match="keep= names 'nosuch'"):
        kpr.protect(original, avatars, ["age"], target=99, keep=["nosuch"])
    with pytest.raises(kpr.InputError, match="keep= must be column names"):
        kpr.protect(original, avatars, ["age"], target=99, keep=[3])  # type: ignore[list-item]
    assert pl.DataFrame  # polars imported for the tables
