"""The engine slice on a Dask distributed cluster with worker processes
(``distributed.LocalCluster``, 127.0.0.1 only), the client connected to its
scheduler's address as a user's would be with ``--dask-scheduler``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.engine.conftest import _to_dask
from tests.engine.test_engines import CASES

from .processes import HOST
from .slice import check_cases, check_hypothesis_sample, check_row_ids


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host=HOST,
        dashboard_address=None, memory_limit="1GiB",
    )  # fmt: skip
    try:
        with distributed.Client(cluster.scheduler_address) as c:
            yield c
    finally:
        _close_every_client(distributed)
        cluster.close()


def _close_every_client(distributed: Any) -> None:
    """Later Dask tests must run on Dask's own scheduler again, not a closed cluster."""
    import dask

    while True:
        try:
            distributed.default_client().close()
        except ValueError:  # no client left
            break
    dask.config.config.pop("scheduler", None)


def test_the_cluster_has_worker_processes(client: Any) -> None:
    workers = client.scheduler_info()["workers"]
    assert len(workers) == 2
    assert {w["host"] for w in workers.values()} == {HOST}
    pids = client.run(lambda: __import__("os").getpid())
    assert len(set(pids.values())) == 2


def test_cases_match_the_reference(client: Any) -> None:
    check_cases(_to_dask)


def test_row_ids_match_polars(client: Any) -> None:
    check_row_ids(_to_dask)


def test_hypothesis_sample_matches_the_reference(client: Any) -> None:
    check_hypothesis_sample(_to_dask)


def test_cli_on_the_scheduler_address(
    client: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``kpr evaluate --dask-scheduler ADDRESS --row-id id --linked-out``: Dask
    reads the Parquet files on the cluster; same result and linked rows as polars."""
    import distributed

    from kpr.cli.app import main

    case = CASES["missing-values"]
    paths = []
    for name, frame in zip(("o", "a"), case.frames(), strict=True):
        path = tmp_path / f"{name}.parquet"
        frame.with_row_index("id").with_columns(pl.col("id").cast(pl.Int64) + 10).write_parquet(
            path
        )
        paths.append(str(path))
    outputs = []
    for extra in (["--dask-scheduler", client.scheduler.address], []):
        linked = tmp_path / f"linked{len(outputs)}.csv"
        argv = ["evaluate", *paths, "-k", ",".join(case.known), "--row-id", "id", "-f", "json",
                "-q", "--linked-out", str(linked), *extra]  # fmt: skip
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code in (0, None)
        outputs.append((json.loads(capsys.readouterr().out), pl.read_csv(linked).to_dicts()))
        if extra:
            used = distributed.default_client()
            assert used.scheduler.address == client.scheduler.address
    assert outputs[0] == outputs[1]
    assert outputs[0][1] and all(r["original_row"] >= 10 for r in outputs[0][1])
