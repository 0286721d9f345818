"""The engine slice on a Dask distributed cluster with worker processes
(``distributed.LocalCluster``, 127.0.0.1 only), the client connected to its
scheduler's address as a user's would be with ``--dask-scheduler``."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest

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
        cluster.close()


def _to_dask(frame: pl.DataFrame) -> Any:
    import dask.dataframe as dd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dd.from_pandas(frame.to_pandas(), npartitions=2)


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
