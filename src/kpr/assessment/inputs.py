"""The assessment's inputs, each read once through the inputs layer (one
``ReadSettings`` for every table) and hashed: every criterion is computed on what
was read here, never on the files again."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from kpr.avatar.files import typed_table
from kpr.errors import InputError, unreadable
from kpr.inputs.files import Loaded, read_all
from kpr.inputs.reading import ReadSettings

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
    """One input by role: its file, hash and shape; ``loaded`` is the table as the
    inputs layer read it (every column, in memory), ``None`` for the policy."""

    role: str
    path: Path
    sha256: str
    loaded: Loaded | None
    rows: int | None = None
    columns: int | None = None
    columns_named: tuple[str, ...] = ()

    def typed(self) -> pl.DataFrame:
        """The table with CSV columns typed as ``kpr evaluate`` and ``kpr distance``
        type them (for the measures that take polars frames)."""
        assert self.loaded is not None
        return typed_table(self.loaded)

    def all_missing(self, column: str) -> bool:
        """Whether ``column`` has no value (every cell empty or a missing marker)."""
        assert self.loaded is not None
        found = self.loaded.frame.select(pl.col(column).is_not_null().any()).collect()
        return found.item() is False

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"file": self.path.name, "sha256": self.sha256}
        if self.rows is not None:
            out |= {"rows": self.rows, "columns": self.columns}
        return out


def _identity(p: Path) -> tuple[int, int, int, int]:
    st = p.stat()
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _regular(role: str, p: Path) -> None:
    """A pipe or a device can be read once only: it cannot be both read and hashed.
    A missing file or a directory is left to the inputs layer's own one line."""
    try:
        mode = p.stat().st_mode
    except OSError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(
            f"the {role} {p} is not a regular file (a pipe or a device): the pack hashes "
            "every input, so save it to a file first"
        )


def _unchanged(role: str, p: Path, before: tuple[int, int, int, int]) -> None:
    if _identity(p) != before:
        raise InputError(
            f"the {role} {p} changed while it was read: run again once nothing writes to it"
        )


def read_input(role: str, path: str | os.PathLike[str], settings: ReadSettings) -> InputFile:
    """Read the ``role`` table once (every column, through ``read_all`` with
    ``settings``) and hash the bytes read: the file must be the same before and after."""
    p = Path(path)
    _regular(role, p)
    try:
        before = _identity(p)
    except OSError:
        before = (-1, -1, -1, -1)  # read_all says what is wrong, in one line
    loaded = read_all(p, settings, role)  # a missing file, a folder, an unknown encoding
    try:
        frame = loaded.frame.collect()
    except pl.exceptions.PolarsError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise InputError(f"cannot read the {role} {p}: {first}") from None
    digest = sha256_of(p)
    _unchanged(role, p, before)
    if frame.height == 0 and role != "protect_log":
        raise InputError(f"the {role} {p} has no row: give a table with rows")
    kept = replace(loaded, frame=frame.lazy())
    return InputFile(role, p, digest, kept, frame.height, frame.width, tuple(frame.columns))


def read_policy_file(path: str | os.PathLike[str]) -> tuple[InputFile, bytes]:
    """The policy's bytes, read once, and their hash (the pack keeps those bytes)."""
    p = Path(path)
    _regular("policy", p)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise unreadable(f"the policy {p}", e, "a policy.toml file") from None
    return InputFile("policy", p, hashlib.sha256(data).hexdigest(), None), data
