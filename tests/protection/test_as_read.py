"""``kpr protect`` writes every cell it did not change as it was read (issues 34 and
37): a CSV's missing markers, zero-padded codes, 20-digit ids, quoting, delimiter
and line breaks; columns that are not known variables are never typed. Each input
file is opened once."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import kpr
from tests.adversarial.conftest import run_cli
from tests.file_reads import file_reads

KNOWN = ["age", "height", "sex", "region"]
HEADER = ["age", "height", "sex", "region", "zip", "account", "mixed", "note", "vide é"]


def _rows(n: int, seed: int, noise: int) -> list[list[str]]:
    """Rows as a data owner's export writes them: ``N`` for a missing age, heights
    written with a trailing zero now and then, zip codes with leading zeros, 20-digit
    account numbers, a column of numbers and words, notes with commas and ``?``, and
    an empty column whose name has a space and an accent."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        age = rng.randint(18, 90) + rng.randint(-noise, noise)
        height = rng.randint(600, 800) / 4
        rows.append([
            "N" if rng.random() < 0.03 else str(age),
            f"{height:.2f}" if i % 7 == 0 else str(height),
            rng.choice("FM"), rng.choice("abcdefgh"),
            f"{rng.randint(0, 999):05d}",
            str(10_000_000_000_000_000_000 + rng.randrange(10**19)),
            rng.choice(["12", "abc", "3.5", ""]),
            rng.choice(["x, y", "?", "", 'say "hi"', "plain"]), "",
        ])  # fmt: skip
    return rows


def _write(path: Path, rows: list[list[str]], line_end: str = "\r\n") -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=line_end)
    writer.writerow(HEADER)
    writer.writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
    return path


def _cells(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh))


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    original = _write(tmp_path / "o.csv", _rows(500, 1, 0))
    avatars = _write(tmp_path / "a.csv", _rows(500, 1, 2))
    return original, avatars


def _protect(
    files: tuple[Path, Path], out: Path, target: str, capsys: pytest.CaptureFixture[str]
) -> str:
    """Run the command; it succeeds, opening each input once. Its standard output."""
    o, a = files
    log = out.with_name("changes.csv")
    with file_reads() as reads:
        code, stdout, _ = run_cli(
            ["protect", str(o), str(a), "-k", ",".join(KNOWN), "--target", target,
             "--na-value", "N", "-o", str(out), "--changes-out", str(log)],
            capsys,
        )  # fmt: skip
    assert code == 0, stdout
    assert sorted(reads) == ["a.csv", "o.csv"]  # each input opened once
    return stdout


def test_an_unchanged_table_is_written_byte_for_byte(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.csv"
    assert "nothing was changed" in _protect(files, out, "1", capsys)
    assert out.read_bytes() == files[1].read_bytes()


def test_only_the_changed_cells_differ(
    files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "p.csv"
    assert "Protected" in _protect(files, out, "97", capsys)
    before, after = _cells(files[1]), _cells(out)
    assert before[0] == after[0] and len(before) == len(after)
    differ = {
        (i - 1, HEADER[j], b[j], c[j])
        for i, (b, c) in enumerate(zip(before, after, strict=True))
        for j in range(len(HEADER))
        if b[j] != c[j]
    }
    log = pl.read_csv(out.with_name("changes.csv"), infer_schema=False)
    logged = {
        (int(r["avatar_row"]), r["column"], r["old"] or "", r["new"] or "")
        for r in log.iter_rows(named=True)
    }
    assert differ and differ == logged
    assert {c for _, c, _, _ in differ} <= set(KNOWN)
    assert out.read_bytes().count(b"\r\n") == files[1].read_bytes().count(b"\r\n")
    # the metric reads the markers as missing: the file written gives the rate promised
    rate = kpr.evaluate(files[0], out, KNOWN, na_values=("", "N")).rate
    assert rate >= 97


def test_parquet_keeps_its_schema_and_unchanged_cells(tmp_path: Path) -> None:
    rows = _rows(400, 5, 2)
    frame = pl.DataFrame([dict(zip(HEADER, r, strict=True)) for r in rows]).with_columns(
        pl.col("age").replace("N", None).cast(pl.Int32),
        pl.col("height").cast(pl.Float32),
        pl.col("zip").cast(pl.Categorical),
    )
    original = frame.with_columns(pl.col("age") + 1)
    source = tmp_path / "a.parquet"
    frame.write_parquet(source)
    out = tmp_path / "p.parquet"
    _, result = kpr.protect(
        original, source, KNOWN, target=97, output=out, distances=False, utility=False
    )
    assert result.met and result.cells_total
    written = pl.read_parquet(out)
    assert written.schema == frame.schema
    changed = result.changes
    assert changed is not None
    for name in HEADER:
        rows_changed = changed.filter(pl.col("column") == name)["avatar_row"].to_list()
        keep = pl.Series([i not in set(rows_changed) for i in range(frame.height)])
        assert frame[name].filter(keep).equals(written[name].filter(keep))


def test_a_mixed_column_that_is_not_known_does_not_stop_protect() -> None:
    rows = _rows(300, 3, 2)
    avatars = pd.DataFrame(rows, columns=HEADER)
    avatars["age"] = pd.to_numeric(avatars["age"], errors="coerce")
    avatars["height"] = avatars["height"].astype(float)
    avatars["mixed"] = [1 if i % 2 else "x" for i in range(len(avatars))]
    original = avatars.assign(age=avatars["age"] + 1)
    protected, result = kpr.protect(original, avatars, KNOWN, target=95, distances=False)
    assert result.met and result.utility is not None
    assert protected["mixed"].tolist() == avatars["mixed"].tolist()
