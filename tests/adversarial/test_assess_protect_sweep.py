"""Hostile inputs of ``kpr assess``, ``kpr verify`` and ``kpr protect``: the files
and frames a user may hand them by mistake (empty, header only, a BOM, NUL bytes,
a folder, /dev/null, integer column names, a misspelt column, a damaged pack).
Each is read exactly as the other commands read it, or refused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import kpr
from tests.adversarial.conftest import assert_cli_refuses, assert_input_error, assess_argv, write
from tests.conftest import run_cli

HEADER = "âge en années,sexe,ville"
ROWS = [f"{20 + i % 9},{'FM'[i % 2]},{('Zürich', 'Genève', 'Bâle')[i % 3]}" for i in range(60)]
TEXT = HEADER + "\n" + "\n".join(ROWS) + "\n"
KNOWN = "âge en années,sexe"


@pytest.fixture
def good(tmp_path: Path) -> Path:
    return Path(write(tmp_path / "données réelles.csv", TEXT))


def _assess(original: Path | str, synthetic: Path | str, out: Path, *extra: str) -> list[str]:
    return assess_argv(original, synthetic, out, KNOWN, *extra)


def _protect(original: Path | str, avatars: Path | str, out: Path, *extra: str) -> list[str]:
    return ["protect", str(original), str(avatars), "-k", KNOWN, "--target", "90",
            "-o", str(out), *extra]  # fmt: skip


def _figures(pack: Path) -> dict[str, object]:
    return dict(json.loads((pack / "results.json").read_text("utf-8"))["figures"])


# --- the same table written otherwise gives the same pack ------------------------------


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("bom.csv", TEXT.encode("utf-8-sig")),
        ("crlf.csv", TEXT.replace("\n", "\r\n").encode("utf-8")),
        ("windows.csv", TEXT.encode("cp1252")),
    ],
    ids=["BOM", "CRLF", "cp1252"],
)
def test_the_same_table_written_otherwise_gives_the_same_figures(
    name: str, data: bytes, good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / name
    other.write_bytes(data)
    extra = ["--encoding", "cp1252"] if name == "windows.csv" else []
    assert run_cli(_assess(good, good, tmp_path / "a"), capsys)[0] == 0
    code, _, err = run_cli(_assess(other, other, tmp_path / "b", *extra), capsys)
    assert code == 0, err
    assert _figures(tmp_path / "a") == _figures(tmp_path / "b")
    # kpr evaluate reads the file with the same option as the same table
    same = kpr.evaluate(other, other, known=KNOWN.split(","), encoding=extra[1] if extra else None)
    assert same.counts == kpr.evaluate(good, good, known=KNOWN.split(",")).counts


# --- files that are no table -------------------------------------------------------------


BAD_FILES = {
    "header only": (lambda d: _text(d / "header.csv", HEADER + "\n"), "has no row"),
    "NUL bytes": (lambda d: _bytes(d / "nul.csv", TEXT.encode()[:40] + b"\x00" + TEXT.encode()),
                  "binary content"),
    "blank lines": (lambda d: _text(d / "blank.csv", "\n\n\n"), "is empty"),
    "a folder": (lambda d: str(d), "is a directory"),
}  # fmt: skip


def _text(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def _bytes(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("case", list(BAD_FILES))
@pytest.mark.parametrize("side", ["original", "synthetic"])
def test_assess_and_protect_refuse_a_file_that_is_no_table(
    case: str, side: str, good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    make, match = BAD_FILES[case]
    bad = make(folder)
    pair = (bad, good) if side == "original" else (good, bad)
    if case == "header only" and side == "synthetic":  # no avatar: nobody to link
        assert run_cli(_protect(*pair, tmp_path / "p.csv"), capsys)[0] == 0
    else:
        line = assert_cli_refuses(_protect(*pair, tmp_path / "p.csv"), capsys, "")
        assert match in line or (case == "header only" and "no rows" in line), line
    assert_cli_refuses(_assess(*pair, tmp_path / "pack"), capsys, match)
    assert not (tmp_path / "pack").exists()


def test_dev_null_is_one_line(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_cli_refuses(_protect(good, "/dev/null", tmp_path / "p.csv"), capsys, "is empty")
    assert_cli_refuses(_assess(good, "/dev/null", tmp_path / "pack"), capsys, "not a regular file")


# --- item 5 and 6: column names ----------------------------------------------------------


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Integer column names; every avatar a copy of its original, most singled out."""
    original = pd.DataFrame({0: [i * i for i in range(80)], 1: [i % 2 for i in range(80)],
                             "z": range(80)})  # fmt: skip
    return original, original.copy()


def test_protect_reads_integer_column_names_as_evaluate_does() -> None:
    original, avatars = _frames()
    table, result = kpr.protect(original, avatars, known=["0", "1"], target=90)
    named = {c: str(c) for c in original.columns}
    table2, result2 = kpr.protect(original.rename(columns=named), avatars.rename(columns=named),
                                  known=["0", "1"], target=90)  # fmt: skip
    assert result.attacks[0].before.counts == kpr.evaluate(original, avatars, ["0", "1"]).counts
    assert [a.after.counts for a in result.attacks] == [a.after.counts for a in result2.attacks]
    assert result.attacks[0].after.counts.linked < result.attacks[0].before.counts.linked
    assert table.equals(table2) and list(avatars.columns) == [0, 1, "z"]  # the input untouched


def test_two_columns_named_alike_once_read_as_text_are_refused() -> None:
    original, avatars = _frames()
    avatars["0"] = 1
    assert_input_error(lambda: kpr.protect(original, avatars, known=["0", "1"], target=90),
                       "two columns named '0'")  # fmt: skip


def test_keep_names_the_file_and_its_columns(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _protect(good, good, tmp_path / "p.csv", "--keep", "Ville")
    match = "--keep names 'Ville', which is not a column of the avatars"
    line = assert_cli_refuses(argv, capsys, match)
    assert good.name in line and "did you mean 'ville'?" in line and "'sexe'" in line


def test_a_misspelt_candidate_names_the_original_and_its_columns(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["assess", str(good), str(good), "-c", "age en années", "-o", str(tmp_path / "p")]
    line = assert_cli_refuses(argv, capsys, "'age en années' not a column of the original")
    assert good.name in line and "did you mean 'âge en années'?" in line


# --- a damaged pack ------------------------------------------------------------------------


@pytest.fixture
def pack(good: Path, tmp_path: Path) -> Path:
    policy = tmp_path / "policy.toml"
    policy.write_text('[criteria.singling_out]\nthreshold = 99\nunit = "percent of people"\n')
    out = tmp_path / "pack"
    kpr.assessment.write_pack(
        kpr.assess(good, good, candidates=KNOWN.split(","), policy=policy), out, "kpr assess"
    )
    return out


@pytest.mark.parametrize(
    ("damage", "match"),
    [
        (lambda p: (p / "manifest.json").unlink(), "manifest.json is missing"),
        (lambda p: ((p / "manifest.json").unlink(), (p / "manifest.json").mkdir()),
         "manifest.json is a directory"),
        (lambda p: (p / "results.json").write_text("{"), "results.json is not valid JSON"),
        (lambda p: ((p / "policy.toml").unlink(), (p / "policy.toml").mkdir()),
         "policy.toml is a directory"),
    ],
    ids=["no manifest", "manifest a folder", "results not JSON", "policy a folder"],
)  # fmt: skip
def test_a_damaged_pack_is_one_line_in_kpr_words(
    damage: object, match: str, pack: Path, good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damage(pack)  # type: ignore[operator]
    argv = ["verify", str(pack), "--original", str(good), "--synthetic", str(good)]
    line = assert_cli_refuses(argv, capsys, match)
    assert "Errno" not in line


def test_a_policy_folder_is_one_line_naming_it(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "my policy"
    folder.mkdir()
    line = assert_cli_refuses(_assess(good, good, tmp_path / "pack", "--policy", str(folder)),
                              capsys, f"the policy {folder} is a directory")  # fmt: skip
    assert "Errno" not in line
    shutil.rmtree(folder)


def test_a_missing_policy_is_one_line_naming_it(
    good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no policy.toml"
    argv = _assess(good, good, tmp_path / "pack", "--policy", str(missing))
    line = assert_cli_refuses(argv, capsys, f"the policy {missing}: no such file")
    assert line.endswith("check the path")
    assert "Errno" not in line
