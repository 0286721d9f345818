"""glibc's heap kept, and part of it made ready while the command imports its modules.

Counting tables in memory, ``kpr evaluate`` spends a large share of its time in the
kernel, which hands it fresh pages: each is zeroed on its first touch, and on a virtual
machine the host may first have to find it (docs/benchmarks.md, the thirteenth session:
from 0.1 to 0.4 ms of CPU per MiB, from one run to the next). numpy takes its large
arrays from ``mmap`` and gives them back when they are freed, so each new array is
fresh memory again.

:func:`warm_heap` (Linux with glibc; elsewhere it does nothing):

- tells glibc (``mallopt``) to serve every thread from one arena, blocks of up to
  32 MiB from its heap, and never to give the heap back: memory numpy frees is
  reused by the next array, on whichever thread;
- starts a thread that takes ``size`` bytes of that heap, writes them (the kernel
  gives them their pages) and frees them. It runs while the command imports polars,
  when the other core idles; the engine's arrays then reuse those pages. (Having the
  kernel fault them in without writing, ``MADV_POPULATE_WRITE``, measured no gain.)

Only the command line does this: it owns its process, where a library must not change
how the whole process allocates. Arrays of more than 32 MiB (columns of more than about
4 million 8-byte values) still come from ``mmap``: glibc keeps no larger block in its heap.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: ``mallopt`` options (glibc's malloc.h) and their values: the heap never trimmed,
#: blocks up to glibc's largest threshold from the heap, one arena for every thread.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
#: The largest block glibc serves from its heap (``HEAP_MAX_SIZE / 2`` on 64 bits).
HEAP_BLOCK = 32 << 20
_KEPT = ((_M_TRIM_THRESHOLD, (1 << 31) - 1), (_M_MMAP_THRESHOLD, HEAP_BLOCK), (_M_ARENA_MAX, 1))
#: Bytes taken at a time by the warming thread: below ``HEAP_BLOCK`` (from the heap),
#: and few blocks (each write waits for the interpreter lock once, after it).
CHUNK = HEAP_BLOCK - (1 << 20)
#: ``madvise`` advice (linux/mman.h): huge pages, as numpy asks for its large arrays.
_MADV_HUGEPAGE, _HUGE_PAGE = 14, 2 << 20


def glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc on Linux (``mallopt`` and ``madvise`` as used
    here), else None. Its calls keep the interpreter lock (they return at once): only
    the writing (``ctypes.memset``) lets it go, and waits for it once after."""
    if sys.platform != "linux":
        return None
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return None
        libc = ctypes.PyDLL(None)
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc.argtypes, libc.malloc.restype = [ctypes.c_size_t], ctypes.c_void_p
        libc.free.argtypes = [ctypes.c_void_p]
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    except (OSError, ValueError, AttributeError):
        return None
    return libc


@contextmanager
def warm_heap(size: int) -> Iterator[list[int]]:
    """glibc's heap kept from here on (``mallopt``), and ``size`` bytes of it written by
    a thread, in :data:`CHUNK` blocks (``size`` below one block: none); the block ends
    once the thread has. Yields the blocks' addresses, filled in once they are warmed
    (freed, and so the heap's to reuse); nothing where glibc is not the C library."""
    chunks: list[int] = []
    libc = glibc() if size >= CHUNK else None
    if libc is None:
        yield chunks
        return
    for option, value in _KEPT:  # set before the command starts its other threads
        libc.mallopt(option, value)
    thread = threading.Thread(
        target=_warm, args=(libc, size // CHUNK, chunks), name="kpr-warm-heap", daemon=True
    )
    thread.start()
    try:
        yield chunks
    finally:
        thread.join()


def _warm(libc: ctypes.CDLL, blocks: int, chunks: list[int]) -> None:
    """Take ``blocks`` blocks of the heap, write them, free them; their addresses go
    into ``chunks``."""
    taken: list[int] = []
    try:
        for _ in range(blocks):
            block = libc.malloc(CHUNK)
            if not block:  # no more memory: what was taken is warm already
                break
            taken.append(block)
            _fault_in(libc, block, CHUNK)
    finally:
        for block in taken:
            libc.free(block)
        chunks.extend(taken)


def _fault_in(libc: ctypes.CDLL, block: int, size: int) -> None:
    """Have the kernel give ``block`` its pages now (huge pages where they fit, as numpy
    asks for them), by writing it: ``ctypes.memset`` releases the interpreter lock."""
    huge = -(-block // _HUGE_PAGE) * _HUGE_PAGE
    if (end := (block + size) // _HUGE_PAGE * _HUGE_PAGE) > huge:
        libc.madvise(huge, end - huge, _MADV_HUGEPAGE)
    ctypes.memset(block, 0, size)
