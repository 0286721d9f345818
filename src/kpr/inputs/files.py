"""Reading CSV and Parquet files into polars frames, reading only the known columns.

CSV is read as text on purpose: kinds are decided afterwards, on the original
table (see ``kpr.inputs.reconcile``), so an avatar file is parsed with the kinds of the
original and a column declared categorical keeps ``01230`` as it is written.

With ``compact=True`` (what ``kpr.evaluate`` and ``kpr.utility`` ask for), a text
column whose every value is a number written the way it prints back (``30``, ``-7``,
``30.5``; not ``030``, ``+7``, `` 30 `` or ``30.50``) is held as Int64 or Float64
instead of text: 8 bytes a value instead of 16, parsed once, and exact, since
casting it back to text gives the file's text again.

Plain files (UTF-8, no quotes, every line as long as the header) are read by
polars' multi-threaded reader (``kpr.inputs.plain_csv``); every other file by
Arrow's, which is the reference for both.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import os
import shutil
import stat
import tempfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from kpr.errors import InputError, directory_given, first_line, shown, unreadable
from kpr.inputs.ahead import taken
from kpr.inputs.compact import Compact, Parts, TextLost
from kpr.inputs.names import suggest
from kpr.inputs.plain_csv import is_plain_candidate, read_plain
from kpr.inputs.quotes import check_closed, open_quote, unclosed
from kpr.inputs.reading import ReadSettings
from kpr.inputs.sniffing import SAMPLE_BYTES, is_gzip, not_encoded, open_bytes, sniff_csv

if TYPE_CHECKING:  # imported when a CSV needs Arrow
    import pyarrow as pa
    import pyarrow.csv as pa_csv

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")


@dataclass(frozen=True)
class CsvDialect:
    """How a CSV file is written, found while it is read: what a writer needs to
    write the same rows back byte for byte (``kpr.protect`` rewrites a few cells)."""

    encoding: str
    delimiter: str
    line_end: str  #: ``\n`` or ``\r\n``, as the header line ends
    final_line_end: bool  #: the file ends with a line break


@dataclass
class Loaded:
    """A table read from a file: the known columns, plus whether they are untyped text."""

    frame: pl.LazyFrame
    untyped: bool  # CSV: every column is text, kinds are inferred later
    label: str
    dialect: CsvDialect | None = None  #: a CSV file's (None: Parquet)


def read_table(
    path: str | os.PathLike[str],
    columns: Sequence[str] | None,
    options: ReadSettings,
    name: str = "",
    compact: Compact = False,
) -> Loaded:
    """Read ``columns`` (None: all) of a CSV or Parquet file (by extension, or by its
    first bytes when it comes through a pipe); ``name`` (original, avatars...) names it in errors;
    ``compact``: CSV columns of numbers held as numbers (see the module docstring and
    :data:`Compact`)."""
    label = f"{name} {path}".strip()
    try:
        return _read_table(Path(path), columns, options, label, compact)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:  # click would call EOF "interrupted"
        raise InputError(
            f"{label}: damaged gzip file ({first_line(exc)}); compress it again"
        ) from None
    except OSError as exc:  # permission denied, an I/O error, a full temporary folder
        raise InputError(f"{label}: cannot read it ({exc.strerror or first_line(exc)})") from None


def _read_table(
    path: Path, columns: Sequence[str] | None, options: ReadSettings, label: str, compact: Compact
) -> Loaded:
    with _regular_file(path, label) as p:
        if _is_parquet(p, path):
            frame = _read_parquet(p, columns, label)
            if p != path:  # a spooled pipe: read it before the copy goes
                frame = frame.collect().lazy()
            return Loaded(frame, untyped=False, label=label)
        sniffed = sniff_csv(p, options.delimiter, options.encoding, label)
        table = _read_csv(p, columns, options, label, compact, sniffed)
        return Loaded(table.lazy(), untyped=True, label=label, dialect=_dialect(p, *sniffed[:2]))


def _dialect(p: Path, encoding: str, delimiter: str) -> CsvDialect:
    """The file's encoding, delimiter and line breaks (read while it is open once)."""
    with open_bytes(p) as fh:
        sample = fh.read(SAMPLE_BYTES)
        final = sample[-1:] in (b"\n", b"\r") if len(sample) < SAMPLE_BYTES else None
        if final is None:
            if is_gzip(p):
                last = b""
                while block := fh.read(1 << 20):
                    last = block[-1:]
            else:
                fh.seek(-1, os.SEEK_END)
                last = fh.read(1)
            final = last in (b"\n", b"\r")
    newline = sample.find(b"\n")
    line_end = "\r\n" if newline > 0 and sample[newline - 1 : newline] == b"\r" else "\n"
    return CsvDialect(encoding, delimiter, line_end, final)


@contextlib.contextmanager
def _regular_file(p: Path, label: str) -> Iterator[Path]:
    """``p`` itself when it is a regular file; a pipe, FIFO or ``/dev/stdin`` (which can
    be read only once) is first copied to a temporary file, removed afterwards."""
    wanted = "a .csv or .parquet file"
    try:
        st = p.stat()
    except OSError as exc:
        raise unreadable(label, exc, wanted) from None
    if stat.S_ISDIR(st.st_mode):
        raise directory_given(label, wanted)
    if stat.S_ISREG(st.st_mode):
        if st.st_size == 0:
            raise InputError(f"{label} is empty (0 bytes); give a table with a header row")
        yield p
        return
    fd, tmp = tempfile.mkstemp(prefix=".kpr-in-", suffix="".join(p.suffixes[-2:]))
    try:
        with os.fdopen(fd, "wb") as out, p.open("rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
        if os.stat(tmp).st_size == 0:
            raise InputError(f"{label} is empty (nothing came through); give a table with a header")
        yield Path(tmp)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _is_parquet(p: Path, named: Path) -> bool:
    """By the extension, else by Parquet's magic bytes at both ends (``/dev/stdin``)."""
    if named.suffix.lower() in PARQUET_SUFFIXES:
        return True
    if p.stat().st_size < 12:
        return False
    with p.open("rb") as fh:
        head = fh.read(4)
        fh.seek(-4, os.SEEK_END)
        return head == fh.read(4) == b"PAR1"


def read_all(path: str | os.PathLike[str], options: ReadSettings, name: str = "") -> Loaded:
    """Read every column of a CSV or Parquet file (for tools that need the whole table,
    such as ``kpr avatarize``); CSV columns come as text, as in :func:`read_table`."""
    return read_table(path, None, options, name)


def check_columns(available: Sequence[str], wanted: Sequence[str], label: str) -> None:
    """Each wanted column must exist; suggest the closest name when it does not."""
    resolve_columns(available, wanted, label, trim=False)


def resolve_columns(
    available: Sequence[str], wanted: Sequence[str], label: str, trim: bool = True
) -> list[str]:
    """The column each wanted name designates: the column of that exact name, else
    (``trim``) the only one equal once surrounding spaces are trimmed (a CSV header
    ``age, sex`` has a column ``" sex"``, named ``sex`` on the command line)."""
    dupes = sorted({c for c in available if list(available).count(c) > 1})
    if dupes:
        raise InputError(
            f"{label}: duplicate column name(s) {', '.join(map(repr, dupes))}; "
            "rename them so each column has its own name"
        )
    out = []
    for name in wanted:
        if name in available:
            out.append(name)
            continue
        near = [c for c in available if c.strip() == name.strip()] if trim else []
        if len(near) > 1:
            raise InputError(
                f"{label}: {name!r} matches several columns once spaces are trimmed "
                f"({', '.join(map(repr, near))}); give the exact name of one of them"
            )
        if not near:
            raise InputError(f"{label}: no column {shown(name)}{suggest(name, available)}")
        out.append(near[0])
    return out


def _renamed(frame: pl.LazyFrame, actual: Sequence[str], wanted: Sequence[str]) -> pl.LazyFrame:
    """Select the actual columns under the names the user gave."""
    return frame.select(pl.col(a).alias(w) for a, w in zip(actual, wanted, strict=True))


def _read_parquet(p: Path, columns: Sequence[str] | None, label: str) -> pl.LazyFrame:
    try:
        schema = pl.read_parquet_schema(p)
    except Exception as exc:  # polars raises several types for garbage
        raise InputError(f"{label} is not a readable Parquet file ({first_line(exc)})") from None
    wanted = list(schema) if columns is None else list(columns)
    actual = resolve_columns(list(schema), wanted, label)
    ahead = taken(p, actual)  # read while the command imported its modules
    return _renamed(pl.scan_parquet(p) if ahead is None else ahead.lazy(), actual, wanted)


#: Arrow reads a CSV in blocks; a quoted field holding line breaks must fit in one.
_BLOCK_BYTES = 1 << 20  # Arrow's default
_MAX_BLOCK_BYTES = (1 << 31) - 1  # Arrow's block size is an int32


def _read_csv(
    p: Path,
    columns: Sequence[str] | None,
    options: ReadSettings,
    label: str,
    compact: Compact,
    sniffed: tuple[str, str, list[str]] | None = None,
) -> pl.DataFrame:
    """``columns`` of a CSV file; ``sniffed``: its encoding, delimiter and header when
    the caller found them already (:func:`sniff_csv`)."""
    sniffed = sniffed or sniff_csv(p, options.delimiter, options.encoding, label)
    encoding, delimiter, header = sniffed
    wanted = header if columns is None else list(columns)
    columns = resolve_columns(header, wanted, label)
    try:
        frame = _read_plain(p, header, columns, options, encoding, delimiter, compact)
        if frame is None:
            dialect = (encoding, delimiter, header[-1])
            frame = _read_arrow(p, columns, options, label, dialect, compact)
    except TextLost:  # a loose column held a value that is no number: read it again
        return _read_csv(p, wanted, options, label, True, sniffed)
    return _renamed(frame.lazy(), columns, wanted).collect()


def _read_arrow(
    p: Path,
    columns: Sequence[str],
    options: ReadSettings,
    label: str,
    dialect: tuple[str, str, str],
    compact: Compact,
) -> pl.DataFrame:
    """``columns`` of any CSV file, by Arrow's reader (imported only then);
    ``dialect``: the file's encoding, delimiter and last column's name."""
    import pyarrow as pa

    encoding = dialect[0]
    block = _BLOCK_BYTES
    largest = _MAX_BLOCK_BYTES if is_gzip(p) else min(p.stat().st_size, _MAX_BLOCK_BYTES)
    while True:
        try:
            return _stream_csv(p, columns, options, dialect, block, compact, label)
        except pa.ArrowInvalid as exc:
            if _block_too_small(exc) and block < largest:
                block = min(block * 4, _MAX_BLOCK_BYTES)  # a field larger than a block
                continue
            if "cannot infer number of columns" in str(exc):
                # the whole file in one block and no line break: a header, no row
                return pl.DataFrame({c: pl.Series(c, [], pl.String) for c in columns})
            if "UTF8" in str(exc):
                raise not_encoded(label, encoding, exc) from None
            raise InputError(f"{label}: malformed CSV ({first_line(exc)})") from None
        except (UnicodeDecodeError, LookupError) as exc:
            raise not_encoded(label, encoding, exc) from None


def _block_too_small(exc: Exception) -> bool:
    """Arrow's errors for a row (or the header) longer than its block: a quoted field
    across two blocks, or a first line with no line break within the block."""
    text = str(exc)
    return "straddl" in text or "cannot infer number of columns" in text


def _read_plain(
    p: Path,
    header: Sequence[str],
    columns: Sequence[str],
    options: ReadSettings,
    encoding: str,
    delimiter: str,
    compact: Compact,
) -> pl.DataFrame | None:
    """``columns`` of a plain file (``kpr.inputs.plain_csv``), read by polars; None
    when the file is not plain, or when most of its columns are not wanted (polars
    parses every field, so that a long line is refused; Arrow converts only the
    wanted columns): Arrow reads it."""
    names = list(dict.fromkeys(columns))
    if 2 * len(names) < len(header):
        return None
    if not is_plain_candidate(encoding, delimiter, len(header)) or is_gzip(p):
        return None
    parts = Parts.of(names, compact)
    with p.open("rb") as fh:
        sample = fh.read(SAMPLE_BYTES)
    line_bytes = len(sample) / max(sample.count(b"\n"), 1)
    at = {header.index(n): n for n in names}
    if not read_plain(p, len(header), at, options, delimiter, line_bytes, parts.add):
        return None
    return parts.whole(names)


def _stream_csv(
    p: Path,
    columns: Sequence[str],
    options: ReadSettings,
    dialect: tuple[str, str, str],
    block: int,
    compact: Compact,
    label: str,
) -> pl.DataFrame:
    """Only ``columns``, as text, parsed one block at a time and moved to polars block
    by block, so Arrow's copy of the text never exists whole, and (``compact``)
    integer columns typed block by block, so their text never exists whole either
    (memory, see benchmarks/bench_memory.py). Arrow decompresses ``.gz``. The last
    column is read too, to see whether its last cell is an unclosed quote
    (:func:`kpr.inputs.quotes.check_closed`)."""
    import pyarrow as pa

    encoding, delimiter, last_name = dialect
    compression = "gzip" if is_gzip(p) else None
    wanted = list(dict.fromkeys(columns))
    parts = Parts.of(wanted, compact)
    last: object = None
    with contextlib.ExitStack() as stack:
        if codecs.lookup(encoding).name != "utf-8":
            # Arrow transcodes other encodings through Python codecs on its own thread,
            # which aborts the process at exit (``terminate called``) when the read
            # failed; transcoded here first, Arrow only ever reads UTF-8
            p, compression = stack.enter_context(_as_utf8(p, encoding)), None
        fh = stack.enter_context(pa.input_stream(str(p), compression=compression))
        at_last = wanted.index(last_name) if last_name in wanted else len(wanted)
        try:  # Arrow reads the first block as it opens
            for batch in _arrow_reader(fh, wanted, last_name, delimiter, options, block):
                if batch.num_rows:
                    last = batch.column(at_last)[-1].as_py()
                parts.add(_polars_part(batch, len(wanted)))
        except pa.ArrowInvalid as exc:
            # a row lacking fields may be a quote, opened in another field than the
            # last, that runs to the end of the file: named rather than Arrow's count
            quote = None if _block_too_small(exc) else open_quote(p, delimiter)
            if quote is not None and quote.refused(exc):
                raise unclosed(label, quote.line) from None
            raise
        check_closed(p, delimiter, last, options.na_values, label)
    return parts.whole(columns)


def _arrow_reader(
    fh: pa.NativeFile,
    wanted: Sequence[str],
    last_name: str,
    delimiter: str,
    options: ReadSettings,
    block: int,
) -> pa_csv.CSVStreamingReader:
    """Arrow's reader of the ``wanted`` columns and the last one, as text."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    return pa_csv.open_csv(
        fh,
        read_options=pa_csv.ReadOptions(encoding="utf8", block_size=block),
        parse_options=pa_csv.ParseOptions(
            delimiter=delimiter, quote_char='"', newlines_in_values=True
        ),
        convert_options=pa_csv.ConvertOptions(
            include_columns=[*wanted, last_name] if last_name not in wanted else list(wanted),
            column_types={c: pa.string() for c in [*wanted, last_name]},
            null_values=list(options.na_values),
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
        ),
    )


def _polars_part(batch: pa.RecordBatch, wanted: int) -> pl.DataFrame:
    """The ``wanted`` first columns of one of Arrow's record batches, in polars."""
    import pyarrow as pa

    names = batch.schema.names[:wanted]
    # positional names first: polars would rename an empty name (column_1),
    # through a method older pyarrow batches lack
    plain = pa.RecordBatch.from_arrays(
        batch.columns[:wanted], names=[str(i) for i in range(len(names))]
    )
    part = pl.from_arrow(plain)
    assert isinstance(part, pl.DataFrame)
    part.columns = names
    return part


@contextlib.contextmanager
def _as_utf8(p: Path, encoding: str) -> Iterator[Path]:
    """A UTF-8 copy of ``p`` (decompressed), in blocks, removed afterwards."""
    decoder = codecs.getincrementaldecoder(encoding)()
    with tempfile.TemporaryDirectory(prefix="kpr-utf8-") as folder:
        copy = Path(folder) / "table.csv"
        with open_bytes(p) as src, copy.open("wb") as dst:
            while block := src.read(1 << 22):
                dst.write(decoder.decode(block).encode("utf-8"))
            dst.write(decoder.decode(b"", final=True).encode("utf-8"))
        yield copy
