"""The original read while the command imports (``kpr.inputs.ahead``): handed over
only when reading the file then would give the same table, once; never an error of
its own, never a thread left running."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import kpr
from kpr.engine.tuning import Tuning
from kpr.inputs.ahead import ReadAhead, taken
from kpr.inputs.files import read_table
from kpr.inputs.reading import ReadSettings
from tests.conftest import run_cli

COLUMNS = ["âge", "sex code"]  # unicode and a space, as users name them


def _always(rows: int) -> bool:
    return True


@pytest.fixture
def table() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "âge": [31.0, 45.5, None, 45.5, float("nan"), 60.0],
            "sex code": ["F", "M", "M", None, "F", "F"],
            "other": [1, 2, 3, 4, 5, 6],
        }
    )


@pytest.fixture
def parquet(tmp_path: Path, table: pl.DataFrame) -> Path:
    path = tmp_path / "original data.parquet"
    table.write_parquet(path)
    return path


def _taken(path: Path, columns: list[str], accepts: Callable[[int], bool] = _always) -> object:
    with ReadAhead(path, columns, accepts):
        return taken(path, columns)


def test_the_table_is_the_files_columns_handed_over_once(parquet: Path) -> None:
    with ReadAhead(parquet, COLUMNS, _always):
        frame = taken(parquet, COLUMNS)
        again = taken(parquet, COLUMNS)
    assert isinstance(frame, pl.DataFrame)
    assert_frame_equal(frame, pl.read_parquet(parquet, columns=COLUMNS))
    assert again is None  # a second read of the file reads it


def test_the_rows_asked_about_are_the_files(parquet: Path) -> None:
    asked: list[int] = []

    def refuse(rows: int) -> bool:
        asked.append(rows)
        return False

    assert _taken(parquet, COLUMNS, refuse) is None
    assert asked == [6]


@pytest.mark.parametrize(
    "columns",
    [
        ["âge", "missing"],  # a name that is not a column: the reading layer says so
        ["âge", "âge"],
        [],
        [" âge"],  # matched once trimmed by the reading layer, not here
    ],
)
def test_not_read_ahead_unless_the_columns_are_the_names_given(
    parquet: Path, columns: list[str]
) -> None:
    assert _taken(parquet, columns) is None


def test_not_handed_over_to_another_read(parquet: Path, tmp_path: Path) -> None:
    with ReadAhead(parquet, COLUMNS, _always):
        assert taken(parquet, ["âge"]) is None  # other columns
        assert taken(parquet, COLUMNS) is None  # and dropped: not held for later
    other = tmp_path / "other.parquet"
    pl.read_parquet(parquet).write_parquet(other)
    with ReadAhead(parquet, COLUMNS, _always):
        assert taken(other, COLUMNS) is None


def test_csv_pipes_and_missing_files_are_left_to_the_reading_layer(
    tmp_path: Path, table: pl.DataFrame
) -> None:
    csv = tmp_path / "t.csv"
    table.write_csv(csv)
    assert _taken(csv, COLUMNS) is None
    assert _taken(tmp_path / "absent.parquet", COLUMNS) is None
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.parquet"
        os.mkfifo(fifo)
        assert _taken(fifo, COLUMNS) is None  # never opened: nobody writes to it


def test_a_damaged_file_gives_the_reading_layers_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\xff" * 64 + b"PAR1")
    assert _taken(bad, COLUMNS) is None
    with ReadAhead(bad, COLUMNS, _always), pytest.raises(kpr.InputError, match="not a readable"):
        read_table(bad, COLUMNS, ReadSettings(), "original")


def test_a_file_changed_since_its_read_is_read_again(parquet: Path, table: pl.DataFrame) -> None:
    with ReadAhead(parquet, COLUMNS, _always) as ahead:
        ahead._thread.join()  # read
        changed = table.with_columns(pl.col("âge") + 1)
        changed.write_parquet(parquet)
        stat = parquet.stat()
        os.utime(parquet, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
        assert taken(parquet, COLUMNS) is None
        loaded = read_table(parquet, COLUMNS, ReadSettings(), "original")
    assert_frame_equal(loaded.frame.collect(), changed.select(COLUMNS))


def test_the_reading_layer_takes_it(parquet: Path) -> None:
    with ReadAhead(parquet, COLUMNS, _always) as ahead:
        loaded = read_table(parquet, COLUMNS, ReadSettings(), "original")
        assert ahead.take(parquet, COLUMNS) is None  # handed over already
    assert_frame_equal(loaded.frame.collect(), pl.read_parquet(parquet, columns=COLUMNS))


def test_only_the_thread_that_entered_it_sees_it(parquet: Path) -> None:
    seen: list[object] = []
    with ReadAhead(parquet, COLUMNS, _always):
        other = threading.Thread(target=lambda: seen.append(taken(parquet, COLUMNS)))
        other.start()
        other.join()
        assert isinstance(taken(parquet, COLUMNS), pl.DataFrame)
    assert seen == [None]
    assert taken(parquet, COLUMNS) is None  # outside: the API reads the file


def test_the_thread_has_ended_when_the_block_does(parquet: Path) -> None:
    with ReadAhead(parquet, COLUMNS, _always) as ahead:
        pass  # nothing taken: an error before the read, say
    assert not ahead._thread.is_alive()


def test_read_ahead_only_where_the_engine_reads_the_table_whole() -> None:
    tuning = Tuning(memory_bytes=1 << 30)
    assert tuning.reads_ahead(1_000_000, known=5, columns=5)
    assert not tuning.reads_ahead(10_000_000, known=5, columns=5)  # 100M cells: too many
    assert not Tuning(memory_bytes=0).reads_ahead(10, known=1, columns=1)  # streamed
    small = Tuning(memory_bytes=1 << 30, ahead_cells=10)
    assert small.reads_ahead(5, 2, 2) and not small.reads_ahead(6, 2, 2)


def _spied(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """What the command's read ahead does: ``"started"`` when one starts, then each
    path it hands over (None: a read it left to the reading layer)."""
    events: list[object] = []
    enter, take = ReadAhead.__enter__, ReadAhead.take

    def entered(self: ReadAhead) -> ReadAhead:
        events.append("started")
        return enter(self)

    def spy(self: ReadAhead, path: Path, columns: list[str]) -> object:
        frame = take(self, path, columns)
        events.append(None if frame is None else path)
        return frame

    monkeypatch.setattr(ReadAhead, "__enter__", entered)
    monkeypatch.setattr(ReadAhead, "take", spy)
    return events


def test_the_command_takes_the_original_read_ahead(
    tmp_path: Path,
    parquet: Path,
    table: pl.DataFrame,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``kpr evaluate`` on Parquet files: the original read ahead is the one counted,
    and the figures are the API's (which reads no table ahead)."""
    avatars = tmp_path / "avatars.parquet"
    table.reverse().with_columns(pl.col("âge") + 0.5).write_parquet(avatars)
    events = _spied(monkeypatch)
    known = ",".join(f'"{c}"' for c in COLUMNS)
    code, out, err = run_cli(
        ["evaluate", str(parquet), str(avatars), "--known", known, "-f", "json"], capsys
    )
    assert code == 0, err
    assert events == ["started", parquet, None]  # the avatars: read by the engine
    expected = kpr.evaluate(parquet, avatars, known=COLUMNS)
    data = json.loads(out)
    assert (data["kpr"], data["unique_originals"], data["linked"]) == (
        expected.rate,
        expected.counts.unique_originals,
        expected.counts.linked,
    )
    assert not any(t.name == "kpr-read-ahead" for t in threading.enumerate())


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (["--row-id", "other"], "the row id column is read too"),
        (["--engine", "dask"], "another engine reads the files"),
    ],
)
def test_the_command_reads_no_table_ahead_for_other_reads(
    tmp_path: Path,
    parquet: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    why: str,
) -> None:
    if "dask" in extra:
        pytest.importorskip("dask")
    events = _spied(monkeypatch)
    argv = ["evaluate", str(parquet), str(parquet), "--known", "other", "-f", "json", *extra]
    code, _, err = run_cli(argv, capsys)
    assert code == 0, err
    assert events == [], why


def test_an_error_after_the_imports_waits_for_the_read(
    parquet: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An output refused once the modules are imported (it would overwrite an input):
    one line, exit 2, the input intact, and no read left running."""
    events = _spied(monkeypatch)
    before = parquet.read_bytes()
    argv = ["evaluate", str(parquet), str(parquet), "--known", "other"]
    code, _, err = run_cli([*argv, "--linked-out", str(parquet)], capsys)
    assert code == 2 and err.startswith("kpr: error: --linked-out")
    assert len(err.strip().splitlines()) == 1
    assert events == ["started"] and parquet.read_bytes() == before
    assert not any(t.name == "kpr-read-ahead" for t in threading.enumerate())


def _originals() -> dict[str, pl.DataFrame]:
    """Originals that take other ways through the checks: each gives the same answer
    read ahead or not."""
    age, sex = COLUMNS
    return {
        "empty": pl.DataFrame({age: [], sex: []}, schema={age: pl.Float64, sex: pl.String}),
        "all missing": pl.DataFrame(
            {age: [None, None, None], sex: ["F", "M", "F"]},
            schema={age: pl.Float64, sex: pl.String},
        ),
        "NaN and null": pl.DataFrame({age: [float("nan"), None, 40.0, 40.0], sex: ["F"] * 4}),
        "text ages": pl.DataFrame({age: ["31", "x", "45"], sex: ["F", "M", "F"]}),
        "whole ages": pl.DataFrame({age: [31, 45, 45, 60], sex: ["F", "M", "M", "F"]}),
    }


@pytest.mark.parametrize("name", list(_originals()))
@pytest.mark.parametrize("output", ["text", "json"])
def test_read_ahead_or_not_the_command_says_the_same(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    output: str,
) -> None:
    from contextlib import nullcontext

    from kpr.cli.engines import Engine

    original, avatars = tmp_path / "o.parquet", tmp_path / "a.parquet"
    _originals()[name].write_parquet(original)
    _originals()["NaN and null"].write_parquet(avatars)
    known = ",".join(f'"{c}"' for c in COLUMNS)
    argv = ["evaluate", str(original), str(avatars), "--known", known, "-q", "-f", output]
    events = _spied(monkeypatch)
    read_ahead = run_cli(argv, capsys)
    assert events[:1] == ["started"]
    monkeypatch.setattr(Engine, "read_ahead", lambda *args: nullcontext())
    assert run_cli(argv, capsys) == read_ahead
