"""Start and stop real cluster processes on 127.0.0.1 for the cluster tests:
a Spark standalone master and worker from the installed pyspark, each its own
process group, stopped (and killed if need be) whatever happens."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HOST = "127.0.0.1"
#: Seconds a process may take to open its port (JVM start on a loaded machine).
START_TIMEOUT = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"exited with {process.returncode}: {log.read_text()[-2000:]}")
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=1):
            return
        time.sleep(0.5)
    raise RuntimeError(
        f"port {port} not open after {START_TIMEOUT:.0f} s: {log.read_text()[-2000:]}"
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process group this module started, SIGKILL after 20 s."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=20)


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def spark_env(work: Path) -> dict[str, str]:
    """The environment of the cluster's processes: this Python for the executors,
    logs and scratch space in ``work``, only the loopback interface."""
    return {
        **os.environ,
        "SPARK_HOME": str(spark_home()),
        "SPARK_LOCAL_IP": HOST,
        "SPARK_LOG_DIR": str(work),
        "SPARK_WORKER_DIR": str(work / "worker"),
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_DAEMON_MEMORY": "512m",
    }


@contextlib.contextmanager
def spark_standalone(cores: int = 2, memory: str = "1g") -> Iterator[str]:
    """A Spark standalone master and one worker as separate processes; yields the
    master URL (``spark://127.0.0.1:PORT``)."""
    spark_class = str(spark_home() / "bin" / "spark-class")
    with tempfile.TemporaryDirectory(prefix="kpr-spark-cluster-") as tmp:
        work = Path(tmp)
        env = spark_env(work)
        port = free_port()
        url = f"spark://{HOST}:{port}"
        started: list[subprocess.Popen[bytes]] = []
        try:
            for name, args in (
                ("master", ["org.apache.spark.deploy.master.Master", "--host", HOST,
                            "--port", str(port), "--webui-port", str(free_port())]),
                ("worker", ["org.apache.spark.deploy.worker.Worker", "--host", HOST,
                            "--cores", str(cores), "--memory", memory,
                            "--webui-port", str(free_port()), url]),
            ):  # fmt: skip
                log = work / f"{name}.log"
                with log.open("wb") as out:
                    process = subprocess.Popen(
                        [spark_class, *args], env=env, stdout=out, stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )  # fmt: skip
                started.append(process)
                if name == "master":
                    _wait_for_port(port, process, log)
            yield url
        finally:
            for process in reversed(started):
                _stop(process)
