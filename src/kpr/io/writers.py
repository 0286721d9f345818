"""Writing files the user asked for: atomically (no partial file on error) and,
for CSV, safe to open in a spreadsheet (no cell runs as a formula)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import polars as pl

from kpr.errors import InputError

#: Leading characters a spreadsheet may interpret as a formula (OWASP CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(cell: str) -> str:
    """Prefix a text cell with a quote when a spreadsheet would run it."""
    return "'" + cell if cell.startswith(FORMULA_PREFIXES) else cell


def check_output_path(path: str | os.PathLike[str]) -> Path:
    """Fail before any work when the output cannot be written."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"cannot write {p}: the folder {parent} does not exist; create it first")
    if p.is_dir():
        raise InputError(f"cannot write {p}: it is a directory; give a file name")
    return p


def write_atomic(path: str | os.PathLike[str], write: Callable[[Path], None]) -> None:
    """Write through a temporary file in the same folder, then rename over the target."""
    target = check_output_path(path)
    fd, tmp = tempfile.mkstemp(prefix=".kpr-", suffix=target.suffix, dir=target.parent or ".")
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; give it the usual mode
    try:
        write(Path(tmp))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def safe_csv_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """Neutralise text cells and column names that a spreadsheet would run."""
    text = [c for c, t in frame.schema.items() if t == pl.String or t == pl.Categorical]
    risky = "^[" + "".join("\\" + ch if ch in "-^]\\" else ch for ch in FORMULA_PREFIXES) + "]"
    out = frame.with_columns(
        pl.when(pl.col(c).cast(pl.String).str.contains(risky))
        .then(pl.lit("'") + pl.col(c).cast(pl.String))
        .otherwise(pl.col(c).cast(pl.String))
        .alias(c)
        for c in text
    )
    return out.rename({c: neutralise(c) for c in out.columns if neutralise(c) != c})


def write_csv(frame: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """A spreadsheet-safe UTF-8 CSV with a header row, written atomically."""
    safe = safe_csv_frame(frame)
    write_atomic(path, lambda p: safe.write_csv(p))
