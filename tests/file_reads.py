"""Counting the files kpr opens: every input file is opened through
``kpr.inputs.files._regular_file``, so a test can say each is read once."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kpr.inputs.files as files


@contextlib.contextmanager
def file_reads() -> Iterator[list[str]]:
    """The names of the files opened inside the block, one entry per opening."""
    reads: list[str] = []
    opened = files._regular_file

    def counted(p: Path, label: str) -> Any:
        reads.append(p.name)
        return opened(p, label)

    files._regular_file = counted  # type: ignore[assignment]
    try:
        yield reads
    finally:
        files._regular_file = opened  # type: ignore[assignment]
