"""``kpr.utility`` stays the function whatever was imported before it: the fidelity
package has its own name (``kpr.fidelity``), so importing it cannot rebind
``kpr.utility`` to a module (as a submodule named ``utility`` would)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def test_public_functions_stay_callable_after_their_modules_are_imported() -> None:
    code = (
        "import kpr, kpr.fidelity.columns, kpr.protection, kpr.api, kpr.analysis.members\n"
        "import kpr.analysis.inference\n"
        "import polars as pl\n"
        "t = pl.DataFrame({'a': [1, 2, 3, 4], 'b': ['x', 'y', 'x', 'y']})\n"
        "for name in ('utility', 'protect', 'evaluate', 'membership', 'inference'):\n"
        "    assert callable(getattr(kpr, name)), name\n"
        "assert kpr.utility(t, t).overall == 1.0\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
