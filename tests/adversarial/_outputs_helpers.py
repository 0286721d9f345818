"""Shared by the adversarial tests of outputs and files: run the CLI, take a
snapshot of files (bytes, links, devices) to prove nothing was damaged, and the
reference result of the small worked example."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import WORKED_AVATARS_CSV, WORKED_ORIGINAL_CSV
from tests.conftest import run_cli as run
from tests.reference import RefResult, reference_kpr

__all__ = ["run"]

ORIGINAL, AVATARS = WORKED_ORIGINAL_CSV, WORKED_AVATARS_CSV
SRC = str(Path(__file__).resolve().parents[2] / "src")


def rows(text: str) -> list[dict[str, Any]]:
    """The records of a small CSV, ``age`` as a number, empty as missing."""
    header, *lines = text.strip().splitlines()
    names = header.split(",")
    out = []
    for line in lines:
        rec: dict[str, Any] = dict(zip(names, line.split(","), strict=True))
        for k, v in rec.items():
            rec[k] = None if v == "" else (float(v) if k == "age" else v)
        out.append(rec)
    return out


def reference(
    original: str = ORIGINAL, avatars: str = AVATARS, known: tuple[str, ...] = ("age", "sex")
) -> RefResult:
    return reference_kpr(rows(original), rows(avatars), list(known), {"age"} & set(known))


def run_process(
    argv: list[str], *, stdin: Any = None, stdout: Any = subprocess.PIPE, shell: bool = False
) -> subprocess.CompletedProcess[bytes]:
    """The CLI as a real process (for standard streams, pipes and devices)."""
    env = {**os.environ, "PYTHONPATH": SRC}
    cmd: Any = argv if not shell else " ".join(argv)
    if not shell:
        cmd = [sys.executable, "-m", "kpr", *argv]
    return subprocess.run(
        cmd, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, env=env, timeout=300,
        shell=shell, executable="/bin/bash" if shell else None, check=False,
    )  # fmt: skip


def one_error_line(code: int, err: str) -> bool:
    """Exit 2 with exactly one line on stderr, and no traceback."""
    lines = err.strip("\n").splitlines()
    return code == 2 and len(lines) == 1 and lines[0].startswith("kpr: error: ")


def snapshot(*paths: str | os.PathLike[str]) -> dict[str, tuple[Any, ...]]:
    """What each path is (kind, link target, bytes), to prove it is unchanged."""
    out: dict[str, tuple[Any, ...]] = {}
    for p in paths:
        key = os.fspath(p)
        try:
            st = os.lstat(key)
        except FileNotFoundError:
            out[key] = ("absent",)
            continue
        if stat.S_ISLNK(st.st_mode):
            out[key] = ("link", os.readlink(key))
        elif stat.S_ISREG(st.st_mode):
            out[key] = ("file", Path(key).read_bytes(), stat.S_IMODE(st.st_mode), st.st_ino)
        else:
            out[key] = ("special", stat.S_IFMT(st.st_mode), st.st_rdev)
    return out


def temporaries(folder: Path) -> list[str]:
    """kpr's temporary files left in a folder (there must be none)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".kpr-"))


def linked_csv(ref: RefResult) -> list[tuple[int, int]]:
    """The (original_row, avatar_row) pairs the reference links."""
    return sorted(ref.pairs.items())
