"""Every error line stays short whatever the input holds: a huge cell, a huge column
name, a file with no line break at all (kpr used to echo the whole value)."""

from __future__ import annotations

from pathlib import Path

import pytest

import kpr
from kpr.errors import MESSAGE_CHARS, bounded, shown
from tests.adversarial.conftest import assert_cli_refuses

#: Longer than any block a reader uses at first (Arrow's is 1 MiB).
HUGE = 3_000_000


def _line_is_short(line: str) -> None:
    assert len(line) < MESSAGE_CHARS + 100, len(line)


@pytest.fixture
def huge_cell(tmp_path: Path) -> tuple[str, str]:
    """A numeric original, and a synthetic whose column ``a`` holds a 3 MB word."""
    rows = ["a,b"] + [f"{i % 9},{i % 3}" for i in range(50)]
    original = tmp_path / "original.csv"
    original.write_text("\n".join(rows) + "\n", encoding="utf-8")
    rows[5] = "x" * HUGE + ",1"
    synthetic = tmp_path / "synthetic.csv"
    synthetic.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(original), str(synthetic)


@pytest.mark.parametrize(
    "command",
    [["evaluate", "-k", "a,b"], ["assess", "-c", "a,b"], ["utility"], ["distance"]],
    ids=["evaluate", "assess", "utility", "distance"],
)
def test_a_huge_cell_is_cut_in_the_message(
    command: list[str], huge_cell: tuple[str, str], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    argv = [command[0], *huge_cell, *command[1:]]
    if command[0] == "assess":
        argv += ["-o", str(tmp_path / "pack")]
    line = assert_cli_refuses(argv, capsys, "is numeric in original")
    _line_is_short(line)
    assert "'xxxx" in line and "…'" in line and "declare the column categorical" in line


def test_a_file_with_no_line_break_is_a_header_without_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "one line.csv"
    path.write_text("a," + "b" * HUGE, encoding="utf-8")
    line = assert_cli_refuses(
        ["assess", str(path), str(path), "-c", "a", "-o", str(tmp_path / "pack")],
        capsys, "one line.csv has no row",
    )  # fmt: skip
    _line_is_short(line)
    argv = ["evaluate", str(path), str(path), "-k", "c"]
    line = assert_cli_refuses(argv, capsys, "no column 'c'")
    _line_is_short(line)


def test_a_huge_column_name_is_cut_in_the_api_message(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("a" * HUGE + "\n1\n", encoding="utf-8")
    with pytest.raises(kpr.InputError, match="no column 'b'") as info:
        kpr.evaluate(path, path, known=["b"])
    _line_is_short(str(info.value))


def test_shown_and_bounded_cut_with_an_ellipsis() -> None:
    assert shown("abc") == "'abc'"
    assert shown("x" * 200) == "'" + "x" * 77 + "…'" and len(shown("x" * 200)) == 80
    assert shown(10**200).endswith("…") and len(shown(10**200)) == 80
    assert bounded("short") == "short"
    cut = bounded("start " + "y" * 5000 + " how to fix")
    assert len(cut) == MESSAGE_CHARS and cut.startswith("start ") and cut.endswith("how to fix")
    assert " … " in cut
    error = kpr.InputError("v" * 10_000)
    assert len(str(error)) == MESSAGE_CHARS
