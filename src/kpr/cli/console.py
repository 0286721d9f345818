"""The process around the command line: ``kpr`` and ``python -m kpr`` end here.

Once polars and Arrow's CSV reader have both run in a process, tearing down the C++
runtime at interpreter exit may abort it (``terminate called without an active
exception``, exit 134): a thread of a native pool is still joinable when its static
destructor runs. Under load it happened in about half the runs of a command that
refuses a malformed CSV. So the console ends the process itself: Python's exit
handlers run, the output is flushed, and the process exits without the C++ static
destructors. :func:`kpr.cli.app.main` itself keeps raising ``SystemExit`` for
callers in the same process (tests, notebooks).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from typing import NoReturn

from kpr.cli.app import main


def run() -> NoReturn:
    """Run :func:`main` and end the process with its exit code."""
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exit_code(exc.code)
    end_process(code)


def exit_code(code: object) -> int:
    """The status Python gives ``SystemExit(code)``: None is 0, an integer itself,
    anything else is printed on stderr and gives 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def end_process(code: int) -> NoReturn:
    """Python's exit handlers, then the output flushed, then the end, skipping the C++
    runtime's teardown (see the module's docstring)."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to say
            stream.flush()
    os._exit(code)
