"""The Spark driver of the cluster tests, run as its own process
(``python -m tests.clusters.spark_driver spark://127.0.0.1:PORT``) so that its
SparkContext, connected to the standalone master, never meets the local one
of the other Spark tests. Exits 0 when every check passed."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import polars as pl

from kpr.cli.app import main as cli
from kpr.engine.spark import spark_session
from tests.clusters.processes import HOST
from tests.clusters.slice import check_cases, check_hypothesis_sample, check_row_ids
from tests.engine.conftest import _to_spark

#: Small executors: the machine is shared with other Spark tests.
CLUSTER_CONF = {
    "spark.executor.memory": "512m",
    "spark.driver.memory": "1g",
    "spark.cores.max": "2",
    "spark.driver.host": HOST,
    "spark.driver.bindAddress": HOST,
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "2",
    "spark.executorEnv.PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src"),
    # the executors' JVMs take the driver's options (tests/conftest.py)
    "spark.executor.extraJavaOptions": os.environ.get("SPARK_SUBMIT_OPTS", ""),
}


def check_cli(url: str) -> None:
    """``kpr evaluate --engine spark --spark-master URL --linked-out``: the file
    positions numbered in the cluster give the default engine's linked rows."""
    with tempfile.TemporaryDirectory() as tmp:
        o, a = Path(tmp, "o.csv"), Path(tmp, "a.csv")
        o.write_text("age,sex\n30,F\n30,F\n41,M\n52,F\n60,M\n")
        a.write_text("age,sex\n42,M\n53.5,F\n54,F\n61,M\n59,M\n")
        written = []
        for extra in (["--engine", "spark", "--spark-master", url], []):
            out = Path(tmp, f"linked{len(written)}.csv")
            argv = ["evaluate", str(o), str(a), "-k", "age,sex", "-q", "--linked-out", str(out)]
            try:
                cli([*argv, *extra])
            except SystemExit as done:
                assert done.code in (0, None), done.code
            written.append(pl.read_csv(out).to_dicts())
        assert written[0] == written[1] and [r["original_row"] for r in written[0]] == [2, 4]


def run(url: str) -> None:
    session = spark_session(url, CLUSTER_CONF)
    assert session.sparkContext.master == url
    try:
        convert = lambda frame: _to_spark(session, frame)  # noqa: E731
        check_cases(convert)
        check_row_ids(convert)
        check_hypothesis_sample(convert)
        check_cli(url)
        executors = session.sparkContext._jsc.sc().getExecutorMemoryStatus().size()
        assert executors >= 2, f"expected the driver and a worker's executor, got {executors}"
    finally:
        session.stop()
    print("cluster checks passed")


if __name__ == "__main__":
    run(sys.argv[1])
