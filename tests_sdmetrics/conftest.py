"""The suite's hypothesis profiles (tests/conftest.py: derandomised when CI is set),
loaded from the one place they are defined."""

import runpy
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[1] / "tests" / "conftest.py"))
