"""The files the command-line tests of protect read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.protection.test_protect import tables


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Originals and noisy avatars (``tables``, 600 rows) as CSV files."""
    original, avatars = tables(n=600, seed=21)
    paths = {"original": tmp_path / "o.csv", "avatars": tmp_path / "a.csv"}
    original.write_csv(paths["original"])
    avatars.write_csv(paths["avatars"])
    return paths
