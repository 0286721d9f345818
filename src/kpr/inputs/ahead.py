"""The original table read while the command is still importing its modules.

A command first imports polars (about 0.17 s), then numpy, narwhals and kpr's own
modules (0.1-0.15 s more) on one core, while the other core idles. :class:`ReadAhead`
reads the original's columns on a thread of its own as soon as polars is loaded, and
the reading layer (``files.read_table``) takes that table in place of scanning the
file again: the same data, read earlier (docs/benchmarks.md, the twelfth session).
Only the original: the engine reads the avatars on its own threads while it sorts the
original's columns, which a read ahead would make wait (measured: no gain on one
table shape, a loss on the other).

The table is read ahead only when the result cannot differ from reading the file when
asked: a regular Parquet file whose columns are the names given, exactly, and of a
number of rows the caller accepts (the command line: when the engine would read it
whole into memory anyway and the read ends about when the imports do,
``Tuning.reads_ahead``). It is handed over only to a read of the same path and
columns, once, and only if the file is unchanged (device, inode, size, modification
time) since before it was read. Anything else (CSV, a pipe, a name that is not a
column, an unreadable file) is left to the reading layer, which reads and reports it
as before: an error while reading ahead is dropped, never shown.

Only the thread that entered the :class:`ReadAhead` sees it (a context variable): the
Python API never reads ahead. The thread is always waited for on exit: a thread left
in polars' native code while the interpreter shuts down can abort the process.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from contextvars import ContextVar, Token
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import polars as pl


class _Identity(NamedTuple):
    """What says a file is the one read ahead: the same inode, size and mtime."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> _Identity:
        st = path.stat()
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class _Read(NamedTuple):
    identity: _Identity  # the file's, before it was read
    frame: pl.DataFrame


class ReadAhead:
    """``columns`` of the table at ``path`` read on a thread from ``__enter__`` (once
    polars is imported) and offered to :func:`taken` until ``__exit__``, which waits
    for the thread. ``accepts``: whether a table of that many rows is read ahead."""

    def __init__(
        self, path: str | os.PathLike[str], columns: Sequence[str], accepts: Callable[[int], bool]
    ) -> None:
        self.path = Path(path)
        self.columns = tuple(columns)
        self.accepts = accepts
        self._read: Future[_Read | None] = Future()  # _NOTHING once handed over
        self._thread = threading.Thread(
            target=self._run, args=(self._read,), name="kpr-read-ahead", daemon=True
        )
        self._token: Token[ReadAhead | None] | None = None

    @staticmethod
    def applies(path: str | os.PathLike[str]) -> bool:
        """Whether the file at ``path`` may be read ahead: Parquet, by its name (the
        contents are checked on the thread)."""
        return Path(path).suffix.lower() == ".parquet"

    def __enter__(self) -> ReadAhead:
        self._token = _ACTIVE.set(self)
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._token is not None:
            _ACTIVE.reset(self._token)
        self._thread.join()
        self._read = _NOTHING  # not held past the command

    def _run(self, future: Future[_Read | None]) -> None:
        read = None
        try:
            read = self._ahead()
        except Exception:  # the reading layer reads the file itself and says what is wrong
            read = None
        finally:
            future.set_result(read)

    def _ahead(self) -> _Read | None:
        """The table, or None when it is not one to read ahead."""
        columns = list(self.columns)
        if not columns or len(set(columns)) < len(columns) or not self.path.is_file():
            return None
        if not self.applies(self.path):
            return None
        import polars as pl

        identity = _Identity.of(self.path)
        if not set(columns) <= set(pl.read_parquet_schema(self.path)):
            return None
        if not self.accepts(pl.scan_parquet(self.path).select(pl.len()).collect().item()):
            return None  # (the rows counted from the file's footer: no column read)
        frame = pl.read_parquet(self.path, columns=columns)
        return _Read(identity, frame) if _Identity.of(self.path) == identity else None

    def take(self, path: Path, columns: Sequence[str]) -> pl.DataFrame | None:
        """The table read ahead if it is ``path``'s ``columns``, unchanged, once
        (waiting for its read to end); None otherwise."""
        if path != self.path:
            return None
        future, self._read = self._read, _NOTHING  # the caller's now, or of no use
        read = future.result()
        if read is None or tuple(columns) != self.columns:
            return None
        return read.frame if _Identity.of(path) == read.identity else None


#: A table handed over, or never read: nothing to give.
_NOTHING: Future[_Read | None] = Future()
_NOTHING.set_result(None)

#: The read ahead of the command running in this thread, if any.
_ACTIVE: ContextVar[ReadAhead | None] = ContextVar("kpr_read_ahead", default=None)


def taken(path: Path, columns: Sequence[str]) -> pl.DataFrame | None:
    """For the reading layer: the table read ahead from ``path`` with ``columns``,
    handed over once; None when there is none (read the file)."""
    ahead = _ACTIVE.get()
    return None if ahead is None else ahead.take(path, columns)
