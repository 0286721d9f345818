"""How the in-memory engine shares work with its thread pool: calls queued in the
pool that the thread needing them makes itself when no thread of the pool has
started them yet (:class:`Job`; :func:`results` of several), and blocks of rows
taken in turn by several threads (:func:`shared_blocks`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future
from typing import Generic, TypeVar

T = TypeVar("T")


class Job(Generic[T]):
    """A call queued in the pool whose :meth:`result` is made on the calling thread
    when no thread of the pool has started it yet: a thread that needs work still
    waiting in the queue does it rather than wait for it (on 2 cores the pool's
    one thread is as busy as the calling one)."""

    def __init__(self, call: Callable[[], T], pool: Executor | None = None) -> None:
        self.call, self.lock = call, threading.Lock()
        self.future = pool.submit(call) if pool is not None else None
        self.taken: list[T] = []  # the result, once made here

    @classmethod
    def done(cls, value: T) -> Job[T]:
        """A job already made (by the calling thread)."""
        job = cls(lambda: value)
        job.taken.append(value)
        return job

    def result(self) -> T:
        self.make_unless_started()
        return self.taken[0] if self.taken else self._queued().result()

    def make_unless_started(self) -> None:
        """Made here, unless a thread of the pool has started it (or it is made)."""
        with self.lock:
            if not self.taken and (self.future is None or self.future.cancel()):
                self.taken.append(self.call())

    def _queued(self) -> Future[T]:
        assert self.future is not None
        return self.future


def results(jobs: Sequence[Job[T]]) -> list[T]:
    """Every job's result, in order: those no thread of the pool has started are made
    here first, from the last (the pool's threads take theirs from the front of its
    queue), and only then are the others waited for. Asked for one after the other,
    the calling thread would wait for a job the pool runs while the next one, still
    queued, waits for the pool too."""
    for job in reversed(jobs):
        job.make_unless_started()
    return [job.result() for job in jobs]


class SharedBlocks:
    """The starts of the blocks of ``range(0, size, block)``, handed out to the
    threads that iterate over it.

    Contract: every start is handed out exactly once, whatever the number of threads
    iterating at once, in increasing order of hand-out; a thread's loop ends once
    every start was handed out (a block handed to another thread may still be in
    work: the caller waits for that thread, e.g. ``Job.result``). A lock guards the
    hand-out, so the contract holds on a free-threaded Python too, not only under
    the GIL. The blocks' work must not depend on which thread does it."""

    def __init__(self, size: int, block: int) -> None:
        self._starts = iter(range(0, size, block))
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[int]:
        return self

    def __next__(self) -> int:
        with self._lock:
            return next(self._starts)


def shared_blocks(size: int, block: int) -> SharedBlocks:
    """The block starts of ``size`` rows, shared by every thread that iterates over
    them (see :class:`SharedBlocks` for the contract)."""
    return SharedBlocks(size, block)
