"""The contract of ``kpr.engine.jobs.shared_blocks``: every block start is handed out
exactly once, whatever the number of threads taking them at once."""

from __future__ import annotations

import threading

import pytest

from kpr.engine.jobs import shared_blocks


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
