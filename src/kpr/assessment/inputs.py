"""The assessment's inputs, each read once and hashed: every criterion is computed
on these frames, never on the files again."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from kpr.errors import InputError

#: The roles of the files an assessment reads, in the manifest's order.
ROLES = ("original", "synthetic", "holdout", "pairing", "protect_log", "policy")


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class InputFile:
    """One input by role: its file, hash and shape (the frame stays in memory)."""

    role: str
    path: Path
    sha256: str
    frame: pl.DataFrame | None  # None for the policy (text)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"file": self.path.name, "sha256": self.sha256}
        if self.frame is not None:
            out |= {"rows": self.frame.height, "columns": self.frame.width}
        return out


def _frame(path: Path, role: str) -> pl.DataFrame:
    """A CSV (types inferred from every row) or Parquet file as a polars frame."""
    try:
        with path.open("rb") as fh:
            parquet = fh.read(4) == b"PAR1"
        if parquet:
            return pl.read_parquet(path)
        return pl.read_csv(path, infer_schema_length=None)
    except (OSError, pl.exceptions.PolarsError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise InputError(f"cannot read the {role} {path}: {first}") from None


def read_input(role: str, path: str | Path) -> InputFile:
    """Read and hash the ``role`` file once."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"the {role} {path} is not a file: give the path of a CSV or Parquet file")
    frame = None if role == "policy" else _frame(p, role)
    if frame is not None and frame.height == 0 and role != "protect_log":
        raise InputError(f"the {role} {path} has no row: give a table with rows")
    return InputFile(role, p, sha256_of(p), frame)
