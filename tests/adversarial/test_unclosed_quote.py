"""A CSV with an unclosed quote: Arrow read the rest of the file into one cell,
silently (the last field), or said only "Expected 3 columns, got 2" (another field).
Refused in one line naming the file and the line where the quote opens,
by every command (one reader); valid quoted cells, multi-line ones included, are
read exactly as before."""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import pytest

import kpr
from kpr.inputs.files import read_all
from kpr.inputs.reading import ReadSettings
from tests.adversarial.conftest import assert_cli_refuses, assert_input_error

ROWS = "a,b\n" + "".join(f"{i % 4},{'xy'[i % 2]}\n" for i in range(30))
THREE = "a,b,c\n" + "".join(f"{i % 4},{'xy'[i % 2]},{i}\n" for i in range(30))


def _file(tmp_path: Path, text: str, name: str = "t.csv", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


@pytest.mark.parametrize(
    ("tail", "line"),
    [
        ('3,"x\n4,5\n6,7\n', 32),  # the rest swallowed, line breaks and all
        ('3,"never closed', 32),  # on the last line, no line break after it
        ('3,"', 32),  # an opening quote and nothing after it
        ('3,"NA', 32),  # what follows is a missing marker
        ('3,"he said ""hi""\n4,5\n', 32),  # doubled quotes inside, never closed
    ],
    ids=["swallows rows", "last line", "quote alone", "a marker", "doubled quotes"],
)
def test_an_unclosed_quote_is_refused_with_its_line(tail: str, line: int, tmp_path: Path) -> None:
    path = _file(tmp_path, ROWS + tail)
    message = assert_input_error(
        lambda: kpr.evaluate(path, path, known=["a", "b"], na_values=["", "NA"]),
        f"opened on line {line} is never closed",
    )
    assert "t.csv" in message


@pytest.mark.parametrize(
    ("header", "row", "tail"),
    [
        ("âge,ville", "{},Zürich", '20,"Genève\n21,x\n'),
        ("âge;ville;n", "{};Zürich;1", '20;"Genève;1\n'),
    ],
    ids=["last field", "another field"],
)
def test_in_a_cp1252_file_and_a_gzip_file(header: str, row: str, tail: str, tmp_path: Path) -> None:
    text = f"{header}\n" + "".join(row.format(i) + "\n" for i in range(20)) + tail
    cp = _file(tmp_path, text, "windows.csv", "cp1252")
    assert_input_error(lambda: kpr.evaluate(cp, cp, known=["âge"], encoding="cp1252"),
                       "windows.csv: the quote .+ opened on line 22")  # fmt: skip
    gz = tmp_path / "zipped.csv.gz"
    gz.write_bytes(gzip.compress(text.encode("utf-8")))
    assert_input_error(lambda: kpr.evaluate(gz, gz, known=["âge", "ville"]), "opened on line 22")


@pytest.mark.parametrize("command", ["evaluate", "assess", "protect", "utility", "distance"])
@pytest.mark.parametrize(
    ("rows", "tail"), [(ROWS, '3,"x\n4,y\n'), (THREE, '3,"x,5\n4,y,6\n')], ids=["last", "another"]
)
def test_every_command_refuses_it(
    command: str, rows: str, tail: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In the last field (Arrow reads the rest into it) or another (Arrow counts fields)."""
    good = _file(tmp_path, rows, "good.csv")
    bad = _file(tmp_path, rows + tail, "bad file.csv")
    extra = {
        "evaluate": ["-k", "a,b"],
        "assess": ["-c", "a,b", "-o", str(tmp_path / "pack")],
        "protect": ["-k", "a,b", "--target", "90", "-o", str(tmp_path / "out.csv")],
        "utility": [], "distance": [],
    }[command]  # fmt: skip
    line = assert_cli_refuses([command, str(good), str(bad), *extra], capsys, "bad file.csv")
    assert "opened on line 32 is never closed" in line and "Expected" not in line
    assert not (tmp_path / "pack").exists() and not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize(
    "tail",
    [
        '3,"x\n4"\n',  # a quoted cell over two lines, last in the file
        '3,"x\n4"',  # the same without a final line break
        '3,""\n',  # an empty quoted cell
        '3,""',
        '3,"x"""\n',  # a quoted cell ending with a doubled quote
        '3,"x"""',
        '3,"a,b"\n4,y\n',
        '3,x"y\n',  # a quote inside an unquoted cell is a character
        '3,x"',
    ],
)
def test_valid_quoted_cells_are_read(tail: str, tmp_path: Path) -> None:
    """Every cell as Python's csv module reads it (an empty cell missing)."""
    path = _file(tmp_path, ROWS + tail)
    got = read_all(path, ReadSettings()).frame.collect().rows()
    expected = list(csv.reader(io.StringIO(ROWS + tail)))[1:]
    assert got == [tuple(c or None for c in row) for row in expected]
    assert kpr.evaluate(path, path, known=["a", "b"]).n == len(expected)


# --- a quote left open in a field that is not the last one (issue 38) ------------------


@pytest.mark.parametrize(
    ("tail", "line"),
    [
        ('3,"x,5\n4,y,6\n6,x,7\n', 32),  # the middle field, the rest swallowed
        ('3,"x,5\n', 32),  # on the last line
        ('"3,x,5\n4,y,6\n', 32),  # the first field
        ('3,"x\n4,y,6\n', 32),  # the row then lacks a field at the line break
        ('3,"a\n""b"",c",9\n5,"x,5\n6,y,7\n', 34),  # after a valid multi-line cell
        ('3,x"y,5\n4,"x,6\n', 33),  # after a quote inside an unquoted cell
    ],
    ids=[
        "middle",
        "last line",
        "first field",
        "lacks a field",
        "after multi-line",
        "after literal",
    ],
)
def test_an_unclosed_quote_in_another_field_is_refused_with_its_line(
    tail: str, line: int, tmp_path: Path
) -> None:
    path = _file(tmp_path, THREE + tail, "three cols.csv")
    message = assert_input_error(
        lambda: kpr.evaluate(path, path, known=["a", "b"]),
        f"opened on line {line} is never closed",
    )
    assert message.startswith("original ") and "three cols.csv" in message
    assert "Expected" not in message and "close that quote, or remove it" in message


def test_a_row_short_of_a_field_without_a_quote_keeps_its_message(tmp_path: Path) -> None:
    """A malformed row with no quote left open is not blamed on a quote."""
    path = _file(tmp_path, THREE + '3,"x"\n4,y,6\n')
    message = assert_input_error(lambda: kpr.evaluate(path, path, known=["a"]), "malformed CSV")
    assert "quote" not in message


@pytest.mark.parametrize("ends", ["\n", "\r\n"])
@pytest.mark.parametrize(
    "tail",
    ['3,4\n5,"x,6\n7,y,8\n', '3,4\n5,"x\n7,y,8\n', "3,4\n" + "9,z,1\n" * 40 + '5,"x,6\n'],
    ids=["next row", "quote in the last field", "far after"],
)
def test_a_malformed_row_before_an_unclosed_quote_is_the_first_fault(
    ends: str, tail: str, tmp_path: Path
) -> None:
    """Arrow refuses the first malformed row; a quote left open further down is not
    that fault, so Arrow's line (the row it refused) is kept, not the quote's."""
    path = _file(tmp_path, (THREE + tail).replace("\n", ends))
    message = assert_input_error(lambda: kpr.evaluate(path, path, known=["a"]), "malformed CSV")
    assert "quote" not in message and "got 2: 3,4" in message


@pytest.mark.parametrize("ends", ["\r\n", "\r", "mixed"])
@pytest.mark.parametrize(
    "tail", ['3,"x,5\n4,y,6\n', '3,4,"x\n5,6,7\n'], ids=["middle", "last field"]
)
def test_the_line_is_counted_as_arrow_breaks_lines(ends: str, tail: str, tmp_path: Path) -> None:
    """CR LF, CR alone (old Mac files) or both in one file: the quote's line is the
    one a reader counting every kind of break finds (str.splitlines)."""
    lines = (THREE + tail).splitlines()
    breaks = ["\r\n", "\r", "\n"] if ends == "mixed" else [ends]
    text = "".join(line + breaks[i % len(breaks)] for i, line in enumerate(lines))
    path = _file(tmp_path, text)
    quote = next(i for i, line in enumerate(text.splitlines(), 1) if '"' in line)
    assert quote == 32
    expected = f"opened on line {quote} is never closed"
    assert_input_error(lambda: kpr.evaluate(path, path, known=["a", "b"]), expected)


@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 1 << 22])
def test_the_quote_and_its_row_do_not_depend_on_the_block_size(
    block_size: int, tmp_path: Path
) -> None:
    """Read quote to quote a few bytes at a time: a doubled quote, a line break or a
    CR LF split between two blocks gives the same quote, line and row."""
    from kpr.inputs.quotes import open_quote

    text = THREE + '3,"a\r\n""b"",c",9\r\n5,x,6\r\n"7",8,"y\n9,z,1\n'
    quote = open_quote(_file(tmp_path, text), ",", block_size)
    assert quote is not None and quote.line == 35
    assert quote.row == b'"7",8,"y\n9,z,1\n'
