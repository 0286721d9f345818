"""``kpr protect``: exit codes, outputs, the change log, the JSON schema."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import kpr
from tests.adversarial.conftest import assert_cli_refuses, run_cli
from tests.protection.test_protect import KNOWN
from tests.test_schema import validate

K = ",".join(KNOWN)


def _args(files: dict[str, Path], out: Path, *more: str) -> list[str]:
    return ["protect", str(files["original"]), str(files["avatars"]), "-k", K,
            "-o", str(out), "--no-distances", "--no-utility", *more]  # fmt: skip


def test_protects_writes_the_table_and_the_log(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, log = tmp_path / "p.csv", tmp_path / "changes.csv"
    code, stdout, _ = run_cli(
        _args(files, out, "--target", "95", "--changes-out", str(log)), capsys
    )
    assert code == 0, stdout
    assert "Protected: the attack now gives at least 95.00 %" in stdout
    assert kpr.evaluate(files["original"], out, KNOWN).rate >= 95.0
    changes = pl.read_csv(log)
    assert changes.columns == [
        "avatar_row", "column", "move", "old", "new", "old_class", "new_class",
    ]  # fmt: skip
    assert set(changes["column"]) <= set(KNOWN) and len(changes) > 0
    first = out.read_bytes()
    code, _, _ = run_cli(_args(files, out, "--target", "95"), capsys)
    assert code == 0 and out.read_bytes() == first  # same seed, same bytes


def test_json_follows_the_schema(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.parquet"
    code, stdout, _ = run_cli(
        ["protect", str(files["original"]), str(files["avatars"]), "-c", "age,sex,region",
         "--max-known", "2", "--target", "97", "-o", str(out), "--format", "json"],
        capsys,
    )  # fmt: skip
    assert code == 0
    data = json.loads(stdout)
    validate("protect", data)
    assert data["met"] and len(data["attacks"]) == 7
    assert data["cost"]["utility"] is not None and data["distance_after"] is not None


def test_already_met_changes_nothing(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.csv"
    code, stdout, _ = run_cli(_args(files, out, "--target", "1"), capsys)
    assert code == 0 and "already met" in stdout and "nothing was changed" in stdout
    assert pl.read_csv(out).equals(pl.read_csv(files["avatars"]))


def test_unreachable_target_exits_1_with_the_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    o, a, out = tmp_path / "o.csv", tmp_path / "a.csv", tmp_path / "p.csv"
    pl.DataFrame({"sex": list("FMFMF"), "region": list("aabbc")}).write_csv(o)
    pl.DataFrame({"sex": list("FMFMF"), "region": list("aabbc")}).reverse().write_csv(a)
    code, stdout, _ = run_cli(
        ["protect", str(o), str(a), "-k", "sex,region", "--target", "100", "--moves", "shift",
         "-o", str(out), "--no-distances", "--no-utility"],
        capsys,
    )  # fmt: skip
    assert code == 1
    assert "was not reached" in stdout and "reached 0.00 %" in stdout


@pytest.mark.parametrize(
    ("more", "match"),
    [
        (["--target", "0"], "--target must be a percentage in (0, 100]"),
        (["--target", "101"], "--target must be a percentage"),
        (["--target", "99", "--moves", "swap,teleport"], "unknown move 'teleport'"),
        (["--target", "99", "--moves", "regenerate"], "'regenerate' needs --pairing"),
        (["--target", "99", "-k", "weight"], "'weight' is not a column of the avatars"),
    ],
)
def test_bad_input_one_line_exit_2_nothing_written(
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    more: list[str],
    match: str,
) -> None:
    out = tmp_path / "p.csv"
    args = _args(files, out, *more)
    if "-k" in more:  # replace the attack
        args = [x for x in args if x != K]
        args.remove("-k")
    assert_cli_refuses(args, capsys, match)
    assert not out.exists()


def test_output_may_not_overwrite_an_input(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    before = files["avatars"].read_bytes()
    assert_cli_refuses(_args(files, files["avatars"], "--target", "99"), capsys, "--output")
    assert files["avatars"].read_bytes() == before


def test_report_has_the_table_and_the_trace(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    out, report = tmp_path / "p.csv", tmp_path / "r.html"
    code, _, _ = run_cli(_args(files, out, "--target", "95", "--report", str(report)), capsys)
    assert code == 0
    page = report.read_text("utf-8")
    assert "Content-Security-Policy" in page and "<script" not in page
    assert "cells changed" in page and "<svg" in page and "Cells changed so far" in page


def test_collateral_measures_the_subsets_above_the_row_limit(
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--collateral``: the subsets no attack names are measured also above the row
    limit (lowered here), where they are otherwise skipped with a sentence."""
    from kpr.protection import collateral

    monkeypatch.setattr(collateral, "SUBSET_ROWS", 10)
    out = tmp_path / "p.csv"
    code, stdout, _ = run_cli(_args(files, out, "--target", "95", "-f", "json"), capsys)
    skipped = json.loads(stdout)["untested_subsets"]
    assert code == 0 and skipped["measured"] == 0 and "more than 10 rows" in skipped["skipped"]
    code, stdout, _ = run_cli(
        _args(files, out, "--target", "95", "-f", "json", "--collateral"), capsys
    )
    forced = json.loads(stdout)["untested_subsets"]
    assert code == 0 and forced["skipped"] is None
    assert forced["measured"] == forced["subsets"] == 2 ** len(KNOWN) - 2
