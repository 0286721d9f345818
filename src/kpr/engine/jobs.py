"""Calls queued in an engine's thread pool that the thread needing them makes itself
when no thread of the pool has started them yet."""

from __future__ import annotations

import threading
from collections.abc import Callable
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
        with self.lock:
            if not self.taken and (self.future is None or self.future.cancel()):
                self.taken.append(self.call())
        return self.taken[0] if self.taken else self._queued().result()

    def _queued(self) -> Future[T]:
        assert self.future is not None
        return self.future
