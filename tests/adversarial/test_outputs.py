"""Hostile output targets: every file kpr writes goes through ``kpr.inputs.writers``.

Each case ends with a result equal to the reference or with exit 2 and one line,
and in every case no input and no other file is damaged (bytes, links, devices
compared before and after).
"""

from __future__ import annotations

import os
import signal
import socket
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

from kpr.avatar.files import write_table
from kpr.demo import demo_paths
from kpr.errors import InputError
from kpr.inputs import writers
from tests.adversarial._outputs_helpers import (
    AVATARS,
    ORIGINAL,
    linked_csv,
    one_error_line,
    reference,
    run,
    run_process,
    snapshot,
    temporaries,
)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "o.csv").write_text(ORIGINAL)
    (tmp_path / "a.csv").write_text(AVATARS)
    pl.read_csv(tmp_path / "a.csv").write_parquet(tmp_path / "a.parquet")
    (tmp_path / "control.csv").write_text(ORIGINAL)
    return tmp_path


def _pairs(path: Path) -> list[tuple[int, int]]:
    frame = pl.read_csv(path)
    return list(zip(frame["original_row"], frame["avatar_row"], strict=True))


EVALUATE = ["evaluate", "o.csv", "a.csv", "-k", "age,sex", "-q"]
EVALUATE_PQ = ["evaluate", "o.csv", "a.parquet", "-k", "age,sex", "-q"]
ANALYZE = ["analyze", "o.csv", "a.csv", "-c", "age,sex", "-q", "--tolerances", "0.05"]
SWEEP = ["sweep", "o.csv", "-k", "age,sex", "--k", "2", "-q"]
AVATARIZE = ["avatarize", "o.csv", "--k", "2", "--seed", "1", "-q"]


def _symlink(target: str) -> Callable[[Path], None]:
    return lambda d: os.symlink(d / target, d / "out")


def _hardlink(target: str) -> Callable[[Path], None]:
    return lambda d: os.link(d / target, d / "out")


def _nothing(d: Path) -> None:
    pass


def _loop(d: Path) -> None:
    os.symlink(d / "loop2", d / "out")
    os.symlink(d / "out", d / "loop2")


def _directory(d: Path) -> None:
    (d / "out").mkdir()


def _block_device(d: Path) -> None:
    os.mknod(d / "out", stat.S_IFBLK | 0o600, os.makedev(7, 250))  # no such loop device


def _socket(d: Path) -> None:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(d / "out"))
    sock.close()


#: (command, output option and value, setup) -> exit 2, nothing damaged.
REFUSED = {
    "linked-out is the original": (EVALUATE, ["--linked-out", "o.csv"], _nothing),
    "linked-out links to the original": (EVALUATE, ["--linked-out", "out"], _symlink("o.csv")),
    "linked-out hard link of avatars": (EVALUATE, ["--linked-out", "out"], _hardlink("a.csv")),
    "report is the original": (EVALUATE, ["--report", "o.csv"], _nothing),
    "report is the parquet avatars": (EVALUATE_PQ, ["--report", "a.parquet"], _nothing),
    "report links to the parquet": (EVALUATE_PQ, ["--report", "out"], _symlink("a.parquet")),
    "analyze report is the original": (ANALYZE, ["--report", "o.csv"], _nothing),
    "analyze report is the control": (
        [*ANALYZE, "--control", "control.csv"], ["--report", "out"], _hardlink("control.csv")
    ),
    "sweep report is the original": (SWEEP, ["--report", "out"], _symlink("o.csv")),
    "avatarize output links to original": (AVATARIZE, ["-o", "out.csv"], _nothing),
    "avatarize pairing hard link": (
        AVATARIZE, ["-o", "new.csv", "--pairing-out", "out"], _hardlink("o.csv")
    ),
    "linked-out and report the same": (
        EVALUATE, ["--linked-out", "same.csv", "--report", "same.csv"], _nothing
    ),
    "linked-out on stdout with json": (EVALUATE, ["--linked-out", "-", "-f", "json"], _nothing),
    "linked-out is a directory": (EVALUATE, ["--linked-out", "out"], _directory),
    "linked-out in a missing folder": (EVALUATE, ["--linked-out", "nope/x.csv"], _nothing),
    "linked-out is a symlink loop": (EVALUATE, ["--linked-out", "out"], _loop),
    "linked-out is a block device": (EVALUATE, ["--linked-out", "out"], _block_device),
    "report is a socket": (EVALUATE, ["--report", "out"], _socket),
}  # fmt: skip


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_before_any_work(
    case: str, work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    command, output, setup = REFUSED[case]
    monkeypatch.chdir(work)
    if case == "avatarize output links to original":
        os.symlink(work / "o.csv", work / "out.csv")
    setup(work)
    names = ["o.csv", "a.csv", "a.parquet", "control.csv", "out", "out.csv", "same.csv"]
    before = snapshot(*(work / n for n in names))
    code, out, err = run([*command, *output], capsys)
    assert one_error_line(code, err), err
    assert out == ""  # refused before any work: no result printed
    assert snapshot(*(work / n for n in names)) == before
    assert temporaries(work) == []


def test_demo_output_cannot_be_the_bundled_data(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundled = demo_paths()[0]
    link = work / "out.csv"
    os.symlink(bundled, link)
    before = snapshot(bundled, link)
    code, _, err = run(["demo", "-q", "--linked-out", str(link)], capsys)
    assert one_error_line(code, err) and "also an input" in err
    assert snapshot(bundled, link) == before


def test_symlink_is_followed_and_kept(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "real.csv").write_text("old\n")
    os.chmod(work / "real.csv", 0o640)
    os.symlink("real.csv", work / "link.csv")
    inputs = snapshot(work / "o.csv", work / "a.csv")
    code, _, _ = run([*_abs(EVALUATE, work), "--linked-out", str(work / "link.csv")], capsys)
    assert code == 0
    assert os.readlink(work / "link.csv") == "real.csv"  # the link is kept
    assert _pairs(work / "real.csv") == linked_csv(reference())
    assert stat.S_IMODE(os.stat(work / "real.csv").st_mode) == 0o640  # its mode too
    assert snapshot(work / "o.csv", work / "a.csv") == inputs
    assert temporaries(work) == []


def test_dangling_symlink_creates_its_target(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.symlink("made.csv", work / "link.csv")
    code, _, _ = run([*_abs(EVALUATE, work), "--linked-out", str(work / "link.csv")], capsys)
    assert code == 0 and os.path.islink(work / "link.csv")
    assert _pairs(work / "made.csv") == linked_csv(reference())


def test_parquet_avatars_through_a_symlink(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "real.parquet").write_bytes(b"old")
    os.symlink("real.parquet", work / "av.parquet")
    code, _, err = run([*_abs(AVATARIZE, work), "-o", str(work / "av.parquet")], capsys)
    assert code == 0, err
    assert os.readlink(work / "av.parquet") == "real.parquet"
    assert pl.read_parquet(work / "real.parquet").height == 5


def test_character_device_is_written_through(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a null device of our own: a broken writer would replace it, not the system's
    null = work / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    before = snapshot(null)
    code, _, _ = run([*_abs(EVALUATE, work), "--linked-out", str(null)], capsys)
    assert code == 0 and snapshot(null) == before


def test_fifo_is_written_through(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = work / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, _, _ = run([*_abs(EVALUATE, work), "--linked-out", str(fifo)], capsys)
    reader.join(timeout=60)
    assert code == 0 and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    (work / "got.csv").write_bytes(got[0])
    assert _pairs(work / "got.csv") == linked_csv(reference())


def test_dash_is_standard_output(work: Path) -> None:
    done = run_process([*_abs(EVALUATE, work), "--linked-out", "-"])
    assert done.returncode == 0
    (work / "got.csv").write_bytes(done.stdout)
    assert _pairs(work / "got.csv") == linked_csv(reference())
    assert b"Knowledge Protection Rate" in done.stderr  # the summary moved out of the way


def test_dev_stdout_redirected_to_a_file_keeps_everything(work: Path) -> None:
    target = work / "redirected.csv"
    with target.open("wb") as fh:
        done = run_process([*_abs(EVALUATE, work), "--linked-out", "/dev/stdout"], stdout=fh)
    assert done.returncode == 0 and stat.S_ISREG(os.lstat(target).st_mode)
    assert _pairs(target) == linked_csv(reference())


def test_report_to_dev_stdout_through_a_pipe(work: Path) -> None:
    done = run_process([*_abs(EVALUATE, work), "--report", "/dev/stdout"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"<!DOCTYPE html>") and b"60.00" in done.stdout


def test_unwritable_folder_is_refused_before_the_work(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # root may write anywhere: the permission answer is simulated, the path is real
    real_access = os.access
    folder = str(work / "locked")
    (work / "locked").mkdir()
    monkeypatch.setattr(
        writers.os, "access", lambda p, m: False if os.fspath(p) == folder else real_access(p, m)
    )
    code, out, err = run([*_abs(EVALUATE, work), "--report", f"{folder}/r.html"], capsys)
    assert one_error_line(code, err) and "permission" in err and out == ""


def _abs(command: list[str], work: Path) -> list[str]:
    return [str(work / c) if c.endswith((".csv", ".parquet")) else c for c in command]


# --- interruptions: the old file stays, no temporary is left ---------------------------


def _kill_self(sig: signal.Signals) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        tmp.write_text("partial")
        # raise_signal delivers to this thread and runs the handler before it returns.
        # os.kill(getpid()) may hand the signal to another thread of the process (polars'
        # pool): under load the handler then ran after write_atomic had returned, and
        # the test failed ("DID NOT RAISE KeyboardInterrupt") by chance.
        signal.raise_signal(sig)

    return write


def _fail(tmp: Path) -> None:
    tmp.write_text("partial")
    raise OSError("disk full")


@pytest.mark.parametrize(
    ("writer", "raised"),
    [(_kill_self(signal.SIGTERM), SystemExit), (_kill_self(signal.SIGINT), KeyboardInterrupt),
     (_fail, OSError)],
    ids=["SIGTERM", "SIGINT", "error"],
)  # fmt: skip
def test_interrupted_write_leaves_the_old_file(
    tmp_path: Path, writer: Callable[[Path], None], raised: type[BaseException]
) -> None:
    target = tmp_path / "out.csv"
    target.write_text("old")
    with pytest.raises(raised):
        writers.write_atomic(target, writer)
    assert target.read_text() == "old" and temporaries(tmp_path) == []
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler is restored


# --- formula injection, whatever the dtype ---------------------------------------------

FORMULAS = ['=HYPERLINK("http://x")', "+1+1", "-2+3", "@SUM(A1)", "\tTAB", "ok"]


def _frames() -> dict[str, object]:
    enum = pl.Enum(sorted(set(FORMULAS)))
    return {
        "String": pl.DataFrame({"v": FORMULAS}),
        "Categorical": pl.DataFrame({"v": pl.Series(FORMULAS, dtype=pl.Categorical)}),
        "Enum": pl.DataFrame({"v": pl.Series(FORMULAS, dtype=enum)}),
        "Object": pl.DataFrame({"v": pl.Series(FORMULAS, dtype=pl.Object)}),
        "pandas category": pd.DataFrame({"v": pd.Series(FORMULAS, dtype="category")}),
        "pandas object": pd.DataFrame({"v": pd.Series(FORMULAS, dtype=object)}),
    }


@pytest.mark.parametrize("dtype", list(_frames()))
def test_csv_export_is_formula_safe_whatever_the_dtype(tmp_path: Path, dtype: str) -> None:
    out = tmp_path / "x.csv"
    writers.write_csv(_frames()[dtype], out)
    cells = pl.read_csv(out, infer_schema=False)["v"].to_list()
    assert cells == [f"'{v}" if v != "ok" else v for v in FORMULAS]


def test_avatarize_table_with_enum_and_formula_header(tmp_path: Path) -> None:
    frame = pl.DataFrame({"=cmd": pl.Series(FORMULAS, dtype=pl.Enum(sorted(set(FORMULAS))))})
    write_table(frame, tmp_path / "av.csv")
    text = (tmp_path / "av.csv").read_text()
    assert text.startswith("'=cmd\n") and "\n=" not in text and "\n+" not in text


def test_api_export_refuses_a_directory(tmp_path: Path) -> None:
    import kpr

    (tmp_path / "o.csv").write_text(ORIGINAL)
    (tmp_path / "a.csv").write_text(AVATARS)
    result = kpr.evaluate(tmp_path / "o.csv", tmp_path / "a.csv", known=["age", "sex"])
    with pytest.raises(InputError, match="directory"):
        result.to_html(tmp_path)
