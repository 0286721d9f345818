"""A command's heavy modules (polars, numpy, narwhals, kpr's engine) imported from a
thread of their own, near the bottom of a fresh frame stack.

CPython keeps a thread's Python frames in chunks of memory. A call that does not fit
in the current chunk maps a new one, and its return unmaps it, so a loop of calls at
that depth maps and unmaps memory at each call (CPython issue gh-142183, fixed in 2026
on the 3.13 and 3.14 branches; 3.11 and 3.12 keep it). Module bodies that call many
functions (typing constructs, decorators: ``numpy._typing``, ``polars.expr.expr``)
run at a depth set by the code that imports them, so where the chunk boundaries fall
depends on how deep click's dispatch is: ``kpr evaluate`` mapped and unmapped 2,750
chunks under ``python -m kpr`` (803 from the ``kpr`` script) while importing, against
29 from a new thread: about 0.03 s of a 0.33 s command (docs/benchmarks.md, the
eleventh session). The calling thread waits: the imports are the same, only the
stack they run on changes.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from collections.abc import Sequence
from types import ModuleType

#: The libraries every command on tables imports, first: their module bodies then run
#: at the same depth whichever of kpr's modules imports them. polars first: when a
#: thread reading the original ahead (``kpr.inputs.ahead``) is importing it, these imports
#: wait for it instead of taking turns with it on the interpreter lock.
LIBRARIES = ("polars", "numpy", "narwhals")


def imported(*names: str, libraries: Sequence[str] = LIBRARIES) -> list[ModuleType]:
    """The modules ``names``, imported in turn from a new thread while this one waits
    (``libraries`` before them: none for a module that loads no table library); an
    error on the way is raised here, as the import statement would raise it."""
    modules: list[ModuleType] = []
    failed: list[BaseException] = []

    def load() -> None:
        try:
            for library in libraries:
                importlib.import_module(library)
            modules.extend(importlib.import_module(name) for name in names)
        except BaseException as exc:  # given back to the calling thread, never lost
            failed.append(exc)

    thread = threading.Thread(target=load, name="kpr-imports", daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return modules


def before_numpy() -> None:
    """The environment numpy's OpenBLAS reads, set before numpy loads and before the
    command starts any other thread (unless the user set it):

    - ``OPENBLAS_MAIN_FREE=1``: numpy's import sets it, loads OpenBLAS and unsets it
      (``putenv``, ``unsetenv``). glibc's ``getenv`` is not safe beside those calls,
      and polars' threads call it while they read the original ahead
      (``kpr.inputs.ahead``): one of them crashed there about once in 300 commands
      (docs/benchmarks.md, the thirteenth session). Set beforehand, numpy leaves the
      environment as it is.
    - ``OPENBLAS_THREAD_TIMEOUT=4``: OpenBLAS starts its threads while numpy is
      imported, and each spins for about 0.1 s of CPU, waiting for work, before it
      sleeps: on two cores, on the core the read ahead runs on. They sleep at once
      instead (2**4 cycles, the least); a call into BLAS wakes them as before."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_MAIN_FREE", "1")
        os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
