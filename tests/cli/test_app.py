"""The command line: outputs, exit codes, and one clear line for every bad input."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import run_cli as run


def test_text_output(worked_files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["evaluate", *worked_files, "--known", "age,sex", "-q"], capsys)
    assert code == 0 and err == ""
    assert "Knowledge Protection Rate: 60.00 %" in out
    assert "For 60.00 % of the original individuals" in out
    assert "unique originals |U|" in out and "numeric" in out


def test_json_output(worked_files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["evaluate", *worked_files, "-k", "age", "-k", "sex", "--format", "json"], capsys
    )
    data = json.loads(out)
    assert code == 0
    assert data["kpr"] == 60.0 and data["n"] == 5 and data["n_avatars"] == 5
    assert data["unique_originals"] == 3 and data["linked"] == 2
    assert data["tolerance"] == 0.05 and data["known"] == ["age", "sex"]
    age = data["variables"]["age"]
    assert set(age) >= {"kind", "over_unique_originals", "lo", "width"}
    # the statistics are over U (rows 2, 3, 4: ages 41, 52, 60), as their key says
    assert age["over_unique_originals"]["mean"] == 51.0
    assert (age["over_unique_originals"]["min"], age["over_unique_originals"]["max"]) == (41, 60)
    assert data["variables"]["sex"]["kind"] == "categorical"
    assert isinstance(data["warnings"], list)


def test_a_moved_grid_says_so(
    worked_files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``--grid-offset``: the figure of the API's ``grid_offset``, and every output
    says the grid was moved (the spec's grid says nothing)."""
    import kpr

    argv = ["evaluate", *worked_files, "-k", "age,sex", "--grid-offset", "0.5", "-q"]
    code, out, _ = run([*argv, "-f", "json"], capsys)
    data = json.loads(out)
    expected = kpr.evaluate(*worked_files, known=["age", "sex"], grid_offset=0.5)
    assert code == 0 and data["grid_offset"] == 0.5 and data["kpr"] == expected.rate
    code, out, _ = run(argv, capsys)
    assert "class grid moved down by 0.5 of each width" in out
    assert "from the moved origin" in out
    code, out, _ = run(["evaluate", *worked_files, "-k", "age,sex", "-q"], capsys)
    assert "moved" not in out


def test_release_gate(worked_files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["evaluate", *worked_files, "-k", "age,sex", "--fail-under", "90"], capsys)[0] == 1
    assert run(["evaluate", *worked_files, "-k", "age,sex", "--fail-under", "60"], capsys)[0] == 0
    code, out, _ = run(
        ["evaluate", *worked_files, "-k", "age,sex", "--fail-under", "61", "-f", "json"], capsys
    )
    assert code == 1 and json.loads(out)["passed"] is False


def test_linked_out(
    worked_files: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "linked.csv"
    code, _, _ = run(
        ["evaluate", *worked_files, "-k", "age,sex", "--linked-out", str(out_path)], capsys
    )
    assert code == 0
    linked = pl.read_csv(out_path)
    assert linked.select("original_row", "avatar_row").rows() == [(2, 0), (4, 4)]
    # age shows its class as an interval, not the class index
    assert linked["age"].to_list() == ["[40.05, 42.60)", "[57.90, 60.45)"]


def test_linked_out_neutralises_formulas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t.csv"
    table.write_text('c\n=HYPERLINK("x")\n+cmd\n-1+1\n@SUM(A1)\nsafe\n')
    out_path = tmp_path / "linked.csv"
    code, _, _ = run(
        ["evaluate", str(table), str(table), "-k", "c", "--linked-out", str(out_path)], capsys
    )
    assert code == 0
    cells = pl.read_csv(out_path)["c"].to_list()
    assert sorted(cells) == sorted(['\'=HYPERLINK("x")', "'+cmd", "'-1+1", "'@SUM(A1)", "safe"])


def test_quoted_known_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.csv"
    pl.DataFrame({"income, net": [1, 2, 3], "âge": [3, 4, 5]}).write_csv(path)
    code, out, _ = run(
        ["evaluate", str(path), str(path), "--known", '"income, net",âge', "-f", "json"], capsys
    )
    assert code == 0 and json.loads(out)["known"] == ["income, net", "âge"]


def test_demo_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["demo", "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["n"] == 32561 and data["n_avatars"] == 32561
    assert data["known"] == ["age", "sex", "race", "marital_status", "education", "native_country"]
    assert 0 < data["linked"] < data["unique_originals"]


def _bad(tmp_path: Path) -> dict[str, Path]:
    files = {
        "empty": tmp_path / "empty.csv",
        "header": tmp_path / "header.csv",
        "binary": tmp_path / "binary.csv",
        "ragged": tmp_path / "ragged.csv",
        "long": tmp_path / "long.csv",
        "dupes": tmp_path / "dupes.csv",
        "text_age": tmp_path / "text_age.csv",
        "garbage_parquet": tmp_path / "garbage.parquet",
        "only_age": tmp_path / "only_age.csv",
    }
    files["only_age"].write_text("age,sexe\n1,F\n")
    files["empty"].write_text("")
    files["header"].write_text("age,sex\n")
    files["binary"].write_bytes(bytes(range(256)) * 20)
    files["ragged"].write_text("age,sex\n30,F\n41\n")
    files["long"].write_text("age,sex\n30,F\n41,M,extra\n")
    files["dupes"].write_text("age,age,sex\n1,2,F\n")
    files["text_age"].write_text("age,sex\n42,M\nforty,F\n")
    files["garbage_parquet"].write_bytes(b"PAR1 not really")
    return files


BAD_CASES = [
    # (id, the arguments of ``kpr evaluate``, expected message fragment): {o} is the
    # worked example's original, {folder} a folder, the other names files of ``_bad``
    ("missing path", "nope.csv {o} -k age", "no such file"),
    ("directory", "{folder} {o} -k age", "is a directory"),
    ("empty file", "{empty} {o} -k age", "is empty"),
    ("header only", "{header} {o} -k age", "no rows"),
    ("binary", "{binary} {o} -k age", "binary"),
    ("ragged", "{ragged} {o} -k age", "Expected 2 columns"),
    ("too many fields", "{long} {o} -k age", "Expected 2 columns"),
    ("duplicate names", "{dupes} {o} -k sex", "duplicate column"),
    ("unknown column", "{o} {o} -k agee", "did you mean 'age'"),
    ("duplicates in avatars", "{o} {dupes} -k age", "duplicate"),
    ("missing in avatars", "{o} {only_age} -k age,sex", "avatars"),
    ("empty known", "{o} {o} -k ''", "known is empty"),
    ("no known", "{o} {o}", "Missing option"),
    ("tolerance > 1", "{o} {o} -k age -t 5", "tolerance must be in (0, 1)"),
    ("tolerance 0", "{o} {o} -k age -t 0", "tolerance must be in (0, 1)"),
    ("tolerance text", "{o} {o} -k age -t abc", "tolerance must be a number"),
    ("tolerance nan", "{o} {o} -k age -t nan", "tolerance must be in"),
    ("fail-under 101", "{o} {o} -k age --fail-under 101", "[0, 100]"),
    ("fail-under -1", "{o} {o} -k age --fail-under -1", "[0, 100]"),
    ("fail-under text", "{o} {o} -k age --fail-under x", "[0, 100]"),
    ("type mismatch", "{o} {text_age} -k age", "'forty'"),
    ("bad parquet", "{garbage_parquet} {o} -k age", "not a readable Parquet"),
    ("output folder", "{o} {o} -k age --linked-out /nonexistent/dir/x.csv", "does not exist"),
    ("both kinds", "{o} {o} -k age --categorical age --numeric age", "both"),
    ("kind not known", "{o} {o} -k age --categorical sex", "not a known variable"),
    ("bad delimiter", "{o} {o} -k age --delimiter ;;", "one character"),
    ("bad encoding", "{o} {o} -k age --encoding nope-8", "nope-8"),
    ("bad format", "{o} {o} -k age -f xml", "xml"),
    (
        "grid offset of a whole width",
        "{o} {o} -k age --grid-offset 1",
        "grid offset (grid_offset, --grid-offset) is a fraction of the width in [0, 1)",
    ),
    ("grid offset not a number", "{o} {o} -k age --grid-offset half", "got 'half'"),
    (
        "grid offset with a secret",
        "{o} {o} -k age -s sex --grid-offset 0.5",
        "drop grid_offset= (--grid-offset) or secret=",
    ),
]


def _evaluate_argv(arguments: str, bad: dict[str, Path], original: str) -> list[str]:
    """``kpr evaluate`` with ``arguments``, its names ({o}, {folder}, ``_bad``'s) filled in."""
    names = {"o": original, "folder": str(bad["empty"].parent)}
    names |= {name: str(path) for name, path in bad.items()}
    return ["evaluate", *(token.format(**names) for token in shlex.split(arguments))]


@pytest.mark.parametrize(
    ("case", "arguments", "fragment"), BAD_CASES, ids=[c[0] for c in BAD_CASES]
)
def test_bad_input_is_one_clear_line(
    case: str,
    arguments: str,
    fragment: str,
    worked_files: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(_evaluate_argv(arguments, _bad(tmp_path), worked_files[0]), capsys)
    assert code == 2, (case, err)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kpr: error: "), err
    assert fragment in lines[0], lines[0]
    assert "Traceback" not in err


def test_no_partial_output_file_on_error(
    worked_files: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "linked.csv"
    bad = tmp_path / "text_age.csv"
    bad.write_text("age,sex\n42,M\nforty,F\n")
    code, _, _ = run(
        ["evaluate", worked_files[0], str(bad), "-k", "age", "--linked-out", str(out_path)], capsys
    )
    assert code == 2 and not out_path.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".kpr-")]


def test_header_only_avatars_give_100_with_a_warning(
    worked_files: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "none.csv"
    empty.write_text("age,sex\n")
    code, out, _ = run(
        ["evaluate", worked_files[0], str(empty), "-k", "age,sex", "-f", "json"], capsys
    )
    data = json.loads(out)
    assert code == 0 and data["kpr"] == 100.0 and data["n_avatars"] == 0
    assert any(
        w["code"] == "empty-avatars" and "avatar table is empty" in w["message"]
        for w in data["warnings"]
    )


def test_real_process_has_no_traceback(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kpr", "evaluate", "missing.csv", "x.csv", "-k", "a"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip() == "kpr: error: original missing.csv: no such file; check the path"


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "evaluate" in out and "demo" in out
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and "kpr" in out
