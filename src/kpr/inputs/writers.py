"""Every file kpr writes goes through here, so every output obeys the same rules.

- ``-`` means standard output.
- A regular file is written to a temporary file beside it, then renamed over it:
  an error or an interruption (Ctrl-C, SIGTERM) leaves the old file and no temporary.
- A symlink is followed: its target is replaced, the link is kept.
- A character device or a FIFO (``/dev/stdout``, ``>(...)``) is written through,
  never replaced; block devices, sockets and directories are refused.
- An output that is also an input of the run (same file after following links,
  hard links included) is refused before any work, as is a folder kpr cannot write.
- CSV exports are safe to open in a spreadsheet: no cell runs as a formula.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

import polars as pl

from kpr.errors import InputError

#: The output name that means standard output.
STDOUT = "-"

#: Leading characters a spreadsheet may interpret as a formula (OWASP CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

Writer = Callable[[Path], object]


def neutralise(cell: str) -> str:
    """Prefix a text cell with a quote when a spreadsheet would run it."""
    return "'" + cell if cell.startswith(FORMULA_PREFIXES) else cell


def _final_path(path: str | os.PathLike[str]) -> Path:
    """The file a write to ``path`` lands in: every symlink followed."""
    return Path(os.path.realpath(os.fspath(path)))


def _stat(path: str | os.PathLike[str]) -> os.stat_result | None:
    """The file ``path`` names, links followed by the system (``/dev/stdout`` included)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


#: Paths that name the process's own streams: written through even when they lead
#: to a regular file (``kpr ... --report /dev/stdout > out.html``).
_SYSTEM_FOLDERS = ("/dev/", "/proc/")


def _is_stream(path: str | os.PathLike[str], st: os.stat_result | None) -> bool:
    """A character device, a FIFO or a system stream: written through, never replaced."""
    if st is None:
        return False
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return True
    return stat.S_ISREG(st.st_mode) and os.path.abspath(path).startswith(_SYSTEM_FOLDERS)


def _same_file(st: os.stat_result, other: str | os.PathLike[str]) -> bool:
    try:
        o = os.stat(other)
    except (OSError, ValueError):
        return False
    return (o.st_dev, o.st_ino) == (st.st_dev, st.st_ino)


def check_output_path(
    path: str | os.PathLike[str],
    option: str = "the output",
    inputs: Iterable[Any] = (),
) -> Path:
    """Fail before any work when ``path`` cannot be written safely; return it.

    ``inputs`` are the run's inputs (paths; other objects are ignored): an output
    that is one of them, through a link or not, would destroy it.
    """
    given = os.fspath(path)
    if given == STDOUT:
        return Path(STDOUT)
    label = f"{option} {given!r}".strip()
    try:
        st = _stat(given)
        final = _final_path(given)
    except OSError as exc:  # a symlink loop, a name too long...
        raise InputError(f"cannot write {label}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise InputError(f"cannot write {label}: it is a directory; give a file name")
    if st is not None and not (stat.S_ISREG(st.st_mode) or _is_stream(given, st)):
        raise InputError(
            f"cannot write {label}: it is a device or socket kpr will not overwrite; "
            "give a file name"
        )
    if _is_stream(given, st):
        if not os.access(given, os.W_OK):
            raise InputError(f"cannot write {label}: permission denied")
        return Path(given)
    folder = final.parent
    if not folder.is_dir():
        raise InputError(
            f"cannot write {label}: the folder {folder} does not exist; create it first"
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(
            f"cannot write {label}: no permission to write in the folder {folder}; "
            "choose another place"
        )
    if st is not None:
        if not os.access(final, os.W_OK):
            raise InputError(f"cannot write {label}: the file is read-only; choose another name")
        for other in inputs:
            if isinstance(other, str | os.PathLike) and _same_file(st, other):
                raise InputError(
                    f"{label} is also an input of this run ({os.fspath(other)}); "
                    "write to another file"
                )
    return Path(given)


def check_outputs(
    outputs: Mapping[str, str | os.PathLike[str] | None],
    inputs: Iterable[Any] = (),
    stdout_taken: str | None = None,
) -> None:
    """Check every output of a run before any work: each can be written, none is an
    input, no two are the same file, and at most one writes to standard output
    (``stdout_taken`` names what else prints there, e.g. ``--format json``)."""
    given = {option: p for option, p in outputs.items() if p is not None}
    inputs = list(inputs)
    seen: dict[tuple[int, int] | str, str] = {}
    if stdout_taken is not None:
        seen[STDOUT] = stdout_taken
    for option, path in given.items():
        check_output_path(path, option, inputs)
        key = _identity(path)
        if key in seen:
            raise InputError(
                f"{option} and {seen[key]} would write to the same place "
                f"({os.fspath(path)}); give each its own file"
            )
        seen[key] = option


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | str:
    if _is_stdout(path):
        return STDOUT
    st = _stat(path)
    return (st.st_dev, st.st_ino) if st is not None else str(_final_path(path))


def _is_stdout(path: str | os.PathLike[str]) -> bool:
    """``-``, or a name of the file standard output already goes to (``/dev/stdout``)."""
    if os.fspath(path) == STDOUT:
        return True
    if not os.path.abspath(path).startswith(_SYSTEM_FOLDERS):
        return False
    try:
        st, out = os.stat(path), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino)


def writes_to_stdout(*paths: str | os.PathLike[str] | None) -> bool:
    """Whether one of the outputs is standard output (the summary then goes to stderr)."""
    return any(p is not None and _is_stdout(p) for p in paths)


@contextlib.contextmanager
def _sigterm_as_exit() -> Iterator[None]:
    """Turn SIGTERM into ``SystemExit`` while writing, so the temporary file is removed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main interpreter
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _temporary(folder: Path, suffix: str, mode_of: os.stat_result | None) -> Path:
    fd, tmp = tempfile.mkstemp(prefix=".kpr-", suffix=suffix, dir=folder)
    os.close(fd)
    if mode_of is not None:
        mode = stat.S_IMODE(mode_of.st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)  # mkstemp makes it private; give it the mode the file would have
    return Path(tmp)


def write_atomic(path: str | os.PathLike[str], write: Writer) -> None:
    """Write a file by calling ``write(temporary_path)``, then put it in place (see the
    module's docstring for stdout, links and devices)."""
    target = check_output_path(path)
    given = os.fspath(target)
    final = None if _is_stdout(given) else _final_path(given)
    st = None if final is None else _stat(given)
    through = final is None or _is_stream(given, st)
    folder = Path(tempfile.gettempdir()) if through or final is None else final.parent
    suffix = Path(given).suffix
    tmp: Path | None = None
    with _sigterm_as_exit():
        try:
            tmp = _temporary(folder, suffix, None if through else st)
            write(tmp)
            if final is None:
                sys.stdout.flush()
                with tmp.open("rb") as src:
                    shutil.copyfileobj(src, sys.stdout.buffer)
                sys.stdout.buffer.flush()
            elif through:
                with tmp.open("rb") as src, open(given, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            else:
                os.replace(tmp, final)
                tmp = None
        except PermissionError as exc:
            raise InputError(
                f"cannot write {given}: {exc.strerror or 'permission denied'}"
            ) from None
        finally:
            if tmp is not None:
                tmp.unlink(missing_ok=True)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """A UTF-8 text file (an HTML report), written as every output is."""
    write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"))


#: dtypes whose values are written as text: each may hold a formula.
def _is_text(dtype: pl.DataType) -> bool:
    return isinstance(dtype, pl.String | pl.Categorical | pl.Enum | pl.Binary | pl.Object)


def _as_polars(frame: Any) -> pl.DataFrame:
    if isinstance(frame, pl.DataFrame):
        return frame
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    out = pl.from_pandas(frame) if type(frame).__module__.startswith("pandas") else None
    if isinstance(out, pl.DataFrame):
        return out
    raise TypeError(f"cannot write a {type(frame).__name__} as CSV")


def _text(col: str, dtype: pl.DataType) -> pl.Expr:
    if isinstance(dtype, pl.Object):
        return pl.col(col).map_elements(
            lambda v: None if v is None else str(v), return_dtype=pl.String
        )
    if isinstance(dtype, pl.Binary):
        return pl.col(col).cast(pl.String, strict=False)
    return pl.col(col).cast(pl.String)


def safe_csv_frame(frame: Any) -> pl.DataFrame:
    """Neutralise every text-like cell (string, categorical, enum, object) and column
    name that a spreadsheet would run."""
    frame = _as_polars(frame)
    risky = "^[" + "".join("\\" + ch if ch in "-^]\\" else ch for ch in FORMULA_PREFIXES) + "]"
    exprs = []
    for c, dtype in frame.schema.items():
        if _is_text(dtype):
            text = _text(c, dtype)
            exprs.append(
                pl.when(text.str.contains(risky)).then(pl.lit("'") + text).otherwise(text).alias(c)
            )
    out = frame.with_columns(exprs) if exprs else frame
    return out.rename({c: neutralise(c) for c in out.columns if neutralise(c) != c})


def write_csv(frame: Any, path: str | os.PathLike[str]) -> None:
    """A spreadsheet-safe UTF-8 CSV with a header row, written as every output is."""
    safe = safe_csv_frame(frame)
    write_atomic(path, lambda p: safe.write_csv(p))


def write_parquet(frame: pl.DataFrame, path: str | os.PathLike[str]) -> None:
    """A Parquet file, written as every output is."""
    write_atomic(path, lambda p: frame.write_parquet(p))
