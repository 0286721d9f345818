"""CSV integer columns held as Int64 while reading (``compact``, for memory): the
same values as the text, block by block, whatever comes later in the file."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import kpr
from kpr.inputs import compact
from kpr.inputs.files import _stream_csv
from kpr.inputs.reading import ReadSettings

#: Small blocks, so a file of a few hundred bytes spans many of them.
BLOCK = 1 << 6

texts = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(str),  # canonical, at the Int64 limits too
    st.sampled_from(["", "007", "+5", "-0", " 30 ", "9223372036854775808", "1.0", "NaN", "x"]),
)


def read(path: Path, compact: bool) -> pl.DataFrame:
    return _stream_csv(path, ["v", "w"], ReadSettings(), ("utf-8", ",", "w"), BLOCK, compact, "t")


@given(st.lists(st.tuples(texts, st.integers(0, 99)), min_size=1, max_size=80), st.integers(0, 79))
def test_integers_are_the_text_they_were_read_from(
    tmp_path_factory: pytest.TempPathFactory, values: list[tuple[str, int]], cut: int
) -> None:
    """Mostly canonical integers with, somewhere, a value that is not one: the
    Int64 column (or the text it falls back to) prints as the file's text."""
    rows = [f"{v},{w}" for v, w in values]
    rows[: min(cut, len(rows))] = [f"{i},{i}" for i in range(min(cut, len(rows)))]
    path = tmp_path_factory.mktemp("csv") / "t.csv"
    path.write_text("v,w\n" + "\n".join(rows) + "\n")
    text, compact = read(path, False), read(path, True)
    assert compact.select(pl.all().cast(pl.String)).equals(text)
    for name in ("v", "w"):
        present = text[name].drop_nulls().to_list()
        canonical = bool(present) and all(map(prints_back, present))
        assert (compact[name].dtype == pl.Int64) == canonical, name


def prints_back(text: str) -> bool:
    """An Int64 written the way Python prints it (the oracle, without polars)."""
    return (
        re.fullmatch(r"-?(0|[1-9][0-9]*)", text) is not None
        and text != "-0"
        and (-(2**63) <= int(text) < 2**63)
    )


def test_a_late_code_with_a_leading_zero_keeps_every_value_as_written(tmp_path: Path) -> None:
    lines = [str(i) for i in range(400)] + ["1230", "01230"]
    (tmp_path / "o.csv").write_text("zip\n" + "\n".join(lines) + "\n")
    frame = read_zip(tmp_path / "o.csv")
    assert frame.dtype == pl.String and frame.to_list() == lines
    path = tmp_path / "o.csv"
    r = kpr.evaluate(path, path, ["zip"], kinds={"zip": "categorical"})
    assert r.unique_originals == r.linked == 402  # 1230 and 01230 are two codes


def read_zip(path: Path) -> pl.Series:
    dialect = ("utf-8", ",", "zip")
    return _stream_csv(path, ["zip"], ReadSettings(), dialect, BLOCK, True, "t")["zip"]


def test_integers_beyond_2_53_stay_exact(tmp_path: Path) -> None:
    """Distinct integers that float64 would merge: as Int64, never through float."""
    big = [2**62 + i for i in range(4)]
    (tmp_path / "o.csv").write_text("c,n\n" + "".join(f"{v},1\n" for v in big))
    r = kpr.evaluate(tmp_path / "o.csv", tmp_path / "o.csv", ["c"], kinds={"c": "categorical"})
    assert r.unique_originals == r.linked == 4
    assert read_zip_like(tmp_path / "o.csv").to_list() == big


def read_zip_like(path: Path) -> pl.Series:
    return _stream_csv(path, ["c"], ReadSettings(), ("utf-8", ",", "n"), BLOCK, True, "t")["c"]


def test_a_column_with_no_value_stays_text(tmp_path: Path) -> None:
    (tmp_path / "o.csv").write_text("a,b\n1,\n2,\n")
    dialect = ("utf-8", ",", "b")
    frame = _stream_csv(tmp_path / "o.csv", ["a", "b"], ReadSettings(), dialect, BLOCK, True, "t")
    assert frame.schema == pl.Schema({"a": pl.Int64, "b": pl.String})


@pytest.mark.parametrize(
    ("values", "held"),
    [
        (["30.5", "1e+16", "-0.0", "inf", None], True),
        (["30.5", "30.50"], False),  # 30.50 prints as 30.5
        (["30.5", "NaN"], False),  # NaN is a category once declared categorical
        (["30.5", "+1.5"], False),
        (["30.5", " 1.5"], False),
        (["30.5", "x"], False),
    ],
)
def test_floats_are_held_only_when_they_print_back(values: list[str | None], held: bool) -> None:
    text = pl.Series("v", values, dtype=pl.String)
    got = compact.held(text, pl.Float64)
    assert (got is not None) == held
    if got is not None:
        assert got.dtype == pl.Float64 and got.cast(pl.String).equals(text)
