"""The bundled demo: UCI Adult against a synthetic version (see data/README.md)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

DEMO_KNOWN = ["age", "sex", "race", "marital_status", "education", "native_country"]


def demo_paths() -> tuple[Path, Path]:
    """Paths of the bundled original and avatar Parquet files."""
    root = resources.files("kpr") / "data"
    return Path(str(root / "adult.parquet")), Path(str(root / "adult_avatars.parquet"))
