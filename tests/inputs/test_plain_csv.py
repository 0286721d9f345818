"""Plain CSV files read by polars (``kpr.inputs.plain_csv``) give exactly what Arrow's
reader gives, and every file that is not plain (short, long or blank lines, quotes,
a lone carriage return, another encoding) is left to Arrow: same frame, same error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kpr.errors import InputError
from kpr.inputs import files, plain_csv
from kpr.inputs.reading import ReadSettings

cells = st.one_of(
    st.sampled_from(["", " ", "30", " 30 ", "030", "-0", "1.5", "1.50", "1e+16", "NaN", "NA"]),
    st.sampled_from(["inf", "2024-03-01", "x y", "é", "東京", "#1", "'a'", "a\tb"]),
    st.integers(-(2**64), 2**64).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@st.composite
def csv_bytes(draw: st.DrawFn) -> tuple[bytes, str]:
    """A CSV file, plain or damaged in one of the ways polars would read silently."""
    width = draw(st.integers(1, 4))
    names = draw(st.lists(st.sampled_from(["a", " b", "c d", "é", "n"]), min_size=width,
                          max_size=width, unique=True))  # fmt: skip
    rows = draw(st.lists(st.lists(cells, min_size=width, max_size=width), max_size=8))
    delimiter = draw(st.sampled_from([",", ";", "|"]))
    lines = [delimiter.join(names)] + [delimiter.join(r) for r in rows]
    damage = draw(st.sampled_from(["none", "short", "long", "blank", "quote", "cr", "crlf"]))
    if damage in ("short", "long", "blank") and len(lines) > 1:
        at = draw(st.integers(1, len(lines) - 1))
        if damage == "short":
            lines[at] = lines[at].rpartition(delimiter)[0]
        elif damage == "long":
            lines[at] += delimiter + "9"
        else:
            lines.insert(at, "")
    newline = "\r\n" if damage == "crlf" else ("\r" if damage == "cr" else "\n")
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    if damage == "quote":
        text = text.replace("30", '"30"')
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "cp1252"]))
    return text.encode(encoding, errors="replace"), delimiter


def read(path: Path, compact: bool, na: tuple[str, ...]) -> pl.DataFrame | str:
    try:
        return files._read_csv(path, None, ReadSettings(na_values=na), "t", compact)
    except InputError as exc:
        return f"InputError: {exc}"


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150)
@given(csv_bytes(), st.booleans(), st.sampled_from([("",), ("", "NA"), ("NA",)]))
def test_polars_reads_what_arrow_reads(
    tmp_path: Path, file: tuple[bytes, str], compact: bool, na: tuple[str, ...]
) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes(file[0])
    with mock.patch.object(files, "is_plain_candidate", lambda *_: False):
        arrow = read(path, compact, na)
    got = read(path, compact, na)
    if isinstance(arrow, str):
        assert got == arrow
    else:
        assert isinstance(got, pl.DataFrame)
        assert got.schema == arrow.schema and got.equals(arrow)


def spy(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What each call of ``read_plain`` answered (True: polars read the file)."""
    answers: list[bool] = []
    real = plain_csv.read_plain

    def recorded(*args: object) -> bool:
        answers.append(real(*args))  # type: ignore[arg-type]
        return answers[-1]

    monkeypatch.setattr(files, "read_plain", recorded)
    return answers


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("a,b\n1,x\n2,y\n", True),
        ("a,b\r\n1,x\r\n2,\r\n", True),
        ("a,b\n1,x\n2\n", False),  # short: polars would fill a null
        ("a,b\n1,x\n\n2,y\n", False),  # blank: polars would add a row of nulls
        ("a,b\n1,x\n2,y\n\n", False),
        ('a,b\n1,"x"\n2,y\n', False),
        ("a,b\r1,x\r2,y\r", False),
    ],
)
def test_which_files_polars_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, plain: bool
) -> None:
    answers = spy(monkeypatch)
    path = tmp_path / "t.csv"
    path.write_text(text, newline="")
    got = read(path, True, ("",))
    assert answers == [plain]
    if "\n2\n" in text:  # Arrow's verdict on a short line
        assert got == "InputError: t: malformed CSV (CSV parse error: Expected 2 columns, got 1: 2)"
    else:
        assert isinstance(got, pl.DataFrame) and got["a"].to_list() == [1, 2]


def test_a_long_line_is_refused_even_when_its_column_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = spy(monkeypatch)
    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n1,2,3\n4\n5,6,7,8\n")  # as many delimiters as three good lines
    with pytest.raises(InputError, match="malformed CSV"):
        files._read_csv(path, ["a", "b"], ReadSettings(), "t", False)
    assert answers == [False]


def test_a_few_columns_of_a_wide_file_are_read_by_arrow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Arrow converts only the wanted columns; polars would parse every field."""
    answers = spy(monkeypatch)
    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n1,2,3\n")
    assert files._read_csv(path, ["a"], ReadSettings(), "t", True)["a"].to_list() == [1]
    assert answers == []
    assert files._read_csv(path, ["a", "c"], ReadSettings(), "t", True).row(0) == (1, 3)
    assert answers == [True]


def test_batches_hold_numbers_as_in_one_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches of 1,024 rows: a column's type is settled by its first value (text
    nulls before it), and a late value that does not print back turns the column
    back to text in every batch."""
    monkeypatch.setattr(plain_csv, "_BATCH_BYTES", 1)
    f = [""] * 1100 + ["1.5", "2.25"] * 500
    h = [*f[:-1], "3"]  # 3 is an integer: it does not print back as a float (3.0)
    path = tmp_path / "t.csv"
    rows = (f"{a},{i},{b}\n" for i, (a, b) in enumerate(zip(f, h, strict=True)))
    path.write_text("f,g,h\n" + "".join(rows))
    answers = spy(monkeypatch)
    frame = files._read_csv(path, None, ReadSettings(), "t", True)
    assert answers == [True]
    assert frame.schema == pl.Schema({"f": pl.Float64, "g": pl.Int64, "h": pl.String})
    assert frame["f"].cast(pl.String).to_list() == [v or None for v in f]
    assert frame["h"].to_list() == [v or None for v in h]
    assert frame["g"].to_list() == list(range(len(f)))


def batches(path: Path) -> Iterator[pl.DataFrame]:
    got: list[pl.DataFrame] = []
    assert plain_csv.read_plain(path, 2, {0: "a", 1: "b"}, ReadSettings(), ",", 4.0, got.append)
    yield from got


def test_names_come_from_the_header_positions(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("x,x\n1,2\n")  # polars would rename the second x
    (frame,) = batches(path)
    assert frame.columns == ["a", "b"] and frame.row(0) == ("1", "2")


@pytest.mark.parametrize("text", ["a,,b\n1,2,3\n", 'a,,b\n1,"2",3\n'])
def test_a_column_without_a_name_keeps_its_place(tmp_path: Path, text: str) -> None:
    """Both readers (the second file has a quote: Arrow's) keep the empty name."""
    path = tmp_path / "t.csv"
    path.write_text(text)
    frame = files._read_csv(path, None, ReadSettings(), "t", True)
    assert frame.columns == ["a", "", "b"] and frame.row(0) == (1, 2, 3)
