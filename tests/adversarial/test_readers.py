"""Every file reader, on damaged files: one line naming the file (API: ``kpr.InputError``;
CLI: exit 2, no traceback), whatever the command and whichever side the file is on.
The audit behind these cases is in issue 38 (item 9)."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

import kpr
from tests.adversarial.conftest import assert_cli_refuses, assert_input_error

GOOD = "age,sex,city\n" + "".join(
    f"{20 + i % 50},{'FM'[i % 2]},{['Paris', 'Lyon', 'Nice'][i % 3]}\n" for i in range(60)
)


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.csv"
    path.write_text(GOOD, encoding="utf-8")
    return path


def _damaged_gzip(tmp_path: Path) -> Path:
    """A gzip file cut in the middle of its stream (a copy interrupted)."""
    path = tmp_path / "cut.csv.gz"
    path.write_bytes(gzip.compress(GOOD.encode() * 50)[:200])
    return path


#: Each command, with the file under test in the ORIGINAL or the second table's place.
COMMANDS = {
    "evaluate": lambda o, a, out: ["evaluate", o, a, "-k", "age,sex", "-q"],
    "protect": lambda o, a, out: [
        *("protect", o, a, "-k", "age,sex", "--target", "50", "-o", out),
        *("--no-utility", "--no-distances", "-q"),
    ],
    "utility": lambda o, a, out: ["utility", o, a, "-q"],
    "analyze": lambda o, a, out: ["analyze", o, a, "-c", "age,sex", "-q"],
    "distance": lambda o, a, out: ["distance", o, a, "-q"],
    "inference": lambda o, a, out: ["inference", o, a, "-k", "age,sex", "--secret", "city", "-q"],
}


@pytest.mark.parametrize("side", ["first", "second"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_cut_gzip_file_is_named_not_called_an_interruption(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str], command: str, side: str
) -> None:
    """Click turns an EOFError into "interrupted" (exit 130): gzip's own error for a cut
    stream must become one line about the file instead."""
    cut = str(_damaged_gzip(tmp_path))
    pair = (cut, str(good)) if side == "first" else (str(good), cut)
    argv = COMMANDS[command](*pair, str(tmp_path / "out.csv"))
    line = assert_cli_refuses(argv, capsys, "damaged gzip file")
    assert cut in line


def test_a_cut_gzip_file_through_the_api(tmp_path: Path, good: Path) -> None:
    cut = _damaged_gzip(tmp_path)
    message = assert_input_error(
        lambda: kpr.evaluate(good, cut, known=["age", "sex"]), "damaged gzip"
    )
    assert message.startswith(f"avatars {cut}")


def test_a_file_that_cannot_be_opened_is_named(
    tmp_path: Path, good: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Permission denied (simulated: the tests may run as root, who reads any file)."""
    locked = tmp_path / "locked.csv"
    locked.write_text(GOOD, encoding="utf-8")
    real_open = Path.open

    def refusing_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refusing_open)
    message = assert_input_error(
        lambda: kpr.evaluate(locked, good, known=["age", "sex"]), "cannot read it"
    )
    assert message == f"original {locked}: cannot read it (Permission denied)"


# --- a missing column: named with its file and the columns that exist -------------------

#: command (with O the original's path, S the other table's) -> the column it lacks
MISSING = {
    "evaluate": (["evaluate", "O", "S", "-k", "agee"], "agee"),
    "protect": (["protect", "O", "S", "-k", "age,zz", "--target", "50", "-o", "OUT"], "zz"),
    "analyze": (["analyze", "O", "S", "-c", "agee,sex"], "agee"),
    "tune": (["tune", "O", "-k", "agee", "--target", "50", "--ks", "2"], "agee"),
    "tune numeric": (["tune", "O", "-k", "age", "--target", "50", "--numeric", "ag"], "ag"),
    "sweep": (["sweep", "O", "-k", "age,zz", "--k", "2"], "zz"),
    "inference": (["inference", "O", "S", "-k", "age", "--secret", "cty"], "cty"),
    "distance": (["distance", "O", "S", "--categorical", "cty"], "cty"),
    "utility columns": (["utility", "O", "S", "--columns", "agee"], "agee"),
    "utility kind": (["utility", "O", "S", "--categorical", "cty"], "cty"),
    "avatarize": (["avatarize", "O", "--categorical", "cty", "-o", "OUT"], "cty"),
}


@pytest.mark.parametrize("case", sorted(MISSING))
def test_a_missing_column_is_named_with_its_file_and_the_columns_there(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    argv, column = MISSING[case]
    paths = {"O": str(good), "S": str(good), "OUT": str(tmp_path / "out.csv")}
    line = assert_cli_refuses([paths.get(a, a) for a in argv] + ["-q"], capsys, repr(column))
    assert str(good) in line, line  # the file at fault
    assert "'sex'" in line, line  # a column it has


def test_the_synthetic_side_is_blamed_for_the_column_it_lacks(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    two = tmp_path / "two columns.csv"
    two.write_text("age,sex\n30,F\n40,M\n", encoding="utf-8")
    line = assert_cli_refuses(["utility", str(good), str(two)], capsys, "'city'")
    assert line.startswith(f"kpr: error: synthetic {two} lacks"), line
    assert "'age', 'sex'" in line


def test_metadata_of_another_table_names_both_files(
    tmp_path: Path, good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = tmp_path / "meta.json"
    meta.write_text('{"columns": {"zip": {"sdtype": "categorical"}}}', encoding="utf-8")
    argv = ["utility", str(good), str(good), "--metadata", str(meta)]
    line = assert_cli_refuses(argv, capsys, f"metadata {meta} describes column 'zip'")
    assert f"original {good}" in line and "'city'" in line, line


def test_a_long_header_is_shown_in_part() -> None:
    from kpr.inputs.names import suggest

    hint = suggest("zz", [f"c{i}" for i in range(30)])
    assert hint.startswith("; columns are: 'c0', 'c1'") and hint.endswith(", …")
    assert "'c8'" not in hint
