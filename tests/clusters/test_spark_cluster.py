"""The engine slice on a real Spark standalone cluster: a master and a worker
started as separate processes on 127.0.0.1 from the installed pyspark, and a
driver process connected to them (``spark_driver.py``). Catches what local
mode cannot: closures that do not pickle, an executor's own Python."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .processes import spark_env, spark_standalone

ROOT = Path(__file__).resolve().parents[2]
#: The whole driver run, JVM starts included, on a loaded machine.
DRIVER_TIMEOUT = 900


def test_engine_slice_on_a_standalone_cluster(tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    with spark_standalone(cores=2, memory="1g") as url:
        env = spark_env(tmp_path)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
        done = subprocess.run(
            [sys.executable, "-m", "tests.clusters.spark_driver", url],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=DRIVER_TIMEOUT,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "cluster checks passed" in done.stdout
