"""The process ends cleanly: a command that read a CSV through Arrow, with polars
loaded, used to abort at interpreter exit (``terminate called without an active
exception``, exit 134) in about half the runs under load, whatever its answer.
These tests run the real console many times beside busy processes; before the fix
they failed in most runs of the suite on this project's 2-core machine."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from kpr.cli.console import exit_code

RUNS = 20
AT_ONCE = 4
BUSY = "while True: pass"


@pytest.fixture
def busy() -> Iterator[None]:
    """Two processes that keep both cores busy while the commands run."""
    loops = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(2)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


@pytest.fixture
def malformed(tmp_path: Path) -> tuple[Path, Path]:
    """A CSV that is not UTF-8 and whose rows have more fields than its header (Arrow
    reads it, then refuses it), and a valid one beside it."""
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"age,sex\n" + b"\x80\x81\x82,\xc3(\n" * 50 + b"1,2,3,4\n" * 50)
    good = tmp_path / "good.csv"
    good.write_text("age,sex\n30,F\n41,M\n52,F\n", encoding="utf-8")
    return bad, good


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kpr", *argv], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("command", [["utility"], ["evaluate", "--known", "age"]])
def test_a_refused_csv_exits_2_with_one_line_every_time_under_load(
    busy: None, malformed: tuple[Path, Path], command: list[str]
) -> None:
    bad, good = malformed
    argv = [command[0], str(bad), str(good), *command[1:]]
    with ThreadPoolExecutor(AT_ONCE) as pool:
        done = list(pool.map(lambda _: _run(argv), range(RUNS)))
    codes = sorted({p.returncode for p in done})
    assert codes == [2], f"exit codes {codes}: {[p.stderr for p in done if p.returncode != 2][:1]}"
    for p in done:
        assert p.stderr.startswith("kpr: error: ") and p.stderr.count("\n") == 1, p.stderr
        assert "malformed CSV" in p.stderr


def test_the_console_flushes_its_output_before_it_ends(malformed: tuple[Path, Path]) -> None:
    _, good = malformed
    done = _run(["evaluate", str(good), str(good), "--known", "age,sex", "--format", "json"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("}")


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (2, 2), (130, 130), ("bye", 1)])
def test_exit_codes_follow_python(code: object, status: int) -> None:
    assert exit_code(code) == status


#: Every command that reads the tables, with the malformed CSV as its original.
EVERY_READER = [
    ["evaluate", "BAD", "GOOD", "--known", "age"],
    ["protect", "BAD", "GOOD", "--known", "age", "--target", "50", "-o", "OUT"],
    ["utility", "BAD", "GOOD"],
    ["analyze", "BAD", "GOOD", "--candidates", "age,sex"],
    ["tune", "BAD", "--known", "age", "--target", "50", "--ks", "2"],
    ["distance", "BAD", "GOOD"],
]


def test_every_reading_command_refuses_the_malformed_csv_cleanly_under_load(
    busy: None, malformed: tuple[Path, Path], tmp_path: Path
) -> None:
    """30 runs, 5 of each command, two at a time beside two busy loops: each ends with
    exit 2 and one line naming the file (a hang fails on ``_run``'s timeout)."""
    bad, good = malformed
    paths = {"BAD": str(bad), "GOOD": str(good), "OUT": str(tmp_path / "out.csv")}
    runs = [[paths.get(a, a) for a in argv] for argv in EVERY_READER * 5]
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(_run, runs))
    failed = [(argv[0], p.returncode, p.stderr[-300:]) for argv, p in zip(runs, done, strict=True)
              if p.returncode != 2 or p.stderr.count("\n") != 1]  # fmt: skip
    assert not failed, failed
    for p in done:
        assert p.stderr.startswith(f"kpr: error: original {bad}: malformed CSV"), p.stderr
