"""``kpr.utility`` reads CSV numbers once: a column that will be numeric is held as
floats without its text (``kpr.inputs.files.Compact``). Whatever the text, the
loaded tables (values, types, kinds) and the errors are those of the exact reading,
which keeps every text recoverable."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kpr.errors import InputError
from kpr.fidelity import load
from kpr.fidelity.load import Selection, load_tables
from kpr.inputs import plain_csv

VALUES = [
    ["1.5", "2.25", "-0.5", "1e+16", "3.0"],  # floats that print back
    ["1.50", "+2.5", "1e5", ".5", "2.0"],  # floats that do not
    ["1", "22", "-3"],  # integers that print back
    ["01", "+2", "3"],  # integers that do not
    ["1.5", "2", "NaN"],  # NaN is missing among numbers
    ["a", "1.5", "b"],  # words
    ["2024-03-01", "2024-03-02"],  # dates
]
LATE = ["", "x", "NaN", "7", "2.5", "1.50"]  # the last row's value, after the first batch


@st.composite
def csv_text(draw: st.DrawFn, rows: int) -> str:
    columns = []
    for _ in range(3):
        values = draw(st.sampled_from(VALUES))
        cells = [values[i % len(values)] if i % 7 else "" for i in range(rows)]
        cells[-1] = draw(st.sampled_from([cells[-1], *LATE]))
        columns.append(cells)
    return "a,b,c\n" + "".join(",".join(row) + "\n" for row in zip(*columns, strict=True))


def loaded(o: Path, s: Path, kinds: dict[str, str]) -> Any:
    try:
        got = load_tables(str(o), str(s), Selection(kinds=kinds))
    except InputError as exc:
        return str(exc)
    return got.original, got.synthetic, got.kinds


def same(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    frames = all(x.schema == y.schema and x.equals(y) for x, y in zip(a[:2], b[:2], strict=True))
    return frames and a[2] == b[2]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(
    st.sampled_from([3, 1030, 2100]).flatmap(lambda n: st.tuples(csv_text(n), csv_text(n))),
    st.dictionaries(st.sampled_from("abc"), st.sampled_from(["categorical", "numeric"])),
)
def test_numbers_held_without_their_text_load_as_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, texts: tuple[str, str], kinds: dict[str, str]
) -> None:
    monkeypatch.setattr(plain_csv, "_BATCH_BYTES", 1)  # batches of 1,024 rows
    o, s = tmp_path / "o.csv", tmp_path / "s.csv"
    o.write_text(texts[0])
    s.write_text(texts[1])
    got = loaded(o, s, kinds)
    never = mock.patch.object(load, "_undeclared", lambda _: lambda _: False)
    with never, mock.patch.object(load, "_numeric_in", lambda *_: lambda _: False):
        exact = loaded(o, s, kinds)
    assert same(got, exact), (got, exact)


def test_a_word_after_the_first_batch_reads_the_file_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plain_csv, "_BATCH_BYTES", 1)
    rows = ["1.50"] * 1500 + ["x"]  # 1.50 does not print back: only its text says 1.50
    path = tmp_path / "o.csv"
    path.write_text("a,b\n" + "".join(f"{v},{i}\n" for i, v in enumerate(rows)))
    got = load_tables(str(path), str(path), Selection())
    assert got.original["a"].dtype == pl.String
    assert got.original["a"].to_list() == rows
