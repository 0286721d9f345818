"""The contracts of ``kpr.engine.jobs``: every block start of ``shared_blocks`` is
handed out exactly once, whatever the number of threads taking them at once; a
``Job`` no thread has started is made by the thread asking, and ``results`` makes
those before it waits for any."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from kpr.engine.jobs import Job, results, shared_blocks


@pytest.mark.parametrize(("size", "block"), [(0, 4), (1, 4), (10, 3), (1000, 7), (4096, 64)])
def test_each_block_goes_to_exactly_one_thread(size: int, block: int) -> None:
    starts = shared_blocks(size, block)
    taken: list[list[int]] = [[] for _ in range(4)]
    barrier = threading.Barrier(len(taken))

    def take(mine: list[int]) -> None:
        barrier.wait()  # every thread starts taking at once
        mine.extend(starts)

    threads = [threading.Thread(target=take, args=(mine,)) for mine in taken]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = sorted(s for mine in taken for s in mine)
    assert every == list(range(0, size, block))
    for mine in taken:  # each thread sees its starts in increasing order
        assert mine == sorted(mine)
    assert list(starts) == []  # nothing left once handed out


def _noting(name: str, made: list[tuple[str, str]]) -> Callable[[], str]:
    def call() -> str:
        made.append((name, threading.current_thread().name))
        return name

    return call


def test_results_makes_the_queued_jobs_here_from_the_last() -> None:
    made: list[tuple[str, str]] = []
    gate, busy = threading.Event(), threading.Event()
    with ThreadPoolExecutor(1, thread_name_prefix="pool") as pool:
        blocker = Job(lambda: busy.set() or gate.wait(30), pool)  # the pool's one thread
        busy.wait(30)
        jobs = [Job(_noting(name, made), pool) for name in "abc"]
        assert results(jobs) == ["a", "b", "c"]
        gate.set()
        assert blocker.result() is True
    here = threading.current_thread().name
    assert made == [("c", here), ("b", here), ("a", here)]  # the pool takes from the front


def test_results_works_while_the_pool_runs_a_job_it_waits_for() -> None:
    """Asked for one after the other, ``second`` would wait behind ``first``, which
    waits for ``second``'s work: the calling thread makes it first."""
    second_made = threading.Event()
    started = threading.Event()

    def first_call() -> bool:
        started.set()
        return second_made.wait(30)  # False if nobody makes the second meanwhile

    def second_call() -> str:
        second_made.set()
        return threading.current_thread().name

    with ThreadPoolExecutor(1) as pool:
        first = Job(first_call, pool)
        started.wait(30)
        second = Job(second_call, pool)
        assert results([first, second]) == [True, threading.current_thread().name]
