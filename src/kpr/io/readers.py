"""Reading CSV and Parquet files into polars frames, reading only the known columns.

CSV is read as text on purpose: kinds are decided afterwards, on the original
table (see ``kpr.tables``), so an avatar file is parsed with the kinds of the
original and a column declared categorical keeps ``01230`` as it is written.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.csv as pa_csv

from kpr.errors import InputError
from kpr.io.names import suggest

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
_SAMPLE_BYTES = 1 << 16
_DELIMITERS = ",;\t|"


@dataclass(frozen=True)
class CsvOptions:
    """How to parse CSV files; ``None`` means sniff it from the file."""

    delimiter: str | None = None
    encoding: str | None = None
    na_values: tuple[str, ...] = ("",)


@dataclass
class Loaded:
    """A table read from a file: the known columns, plus whether they are untyped text."""

    frame: pl.LazyFrame
    untyped: bool  # CSV: every column is text, kinds are inferred later
    label: str


def read_table(
    path: str | os.PathLike[str],
    columns: Sequence[str] | None,
    options: CsvOptions,
    role: str = "",
) -> Loaded:
    """Read ``columns`` (None: all) of a CSV or Parquet file (by extension); ``role``
    names it in errors."""
    p = Path(path)
    label = f"{role} {path}".strip()
    if not p.exists():
        raise InputError(f"{label}: no such file; check the path")
    if p.is_dir():
        raise InputError(f"{label} is a directory; give a .csv or .parquet file")
    if p.stat().st_size == 0:
        raise InputError(f"{label} is empty (0 bytes); give a table with a header row")
    if p.suffix.lower() in PARQUET_SUFFIXES:
        return Loaded(_read_parquet(p, columns, label), untyped=False, label=label)
    return Loaded(_read_csv(p, columns, options, label).lazy(), untyped=True, label=label)


def read_all(path: str | os.PathLike[str], options: CsvOptions, role: str = "") -> Loaded:
    """Read every column of a CSV or Parquet file (for tools that need the whole table,
    such as ``kpr avatarize``); CSV columns come as text, as in :func:`read_table`."""
    return read_table(path, None, options, role)


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
            raise InputError(f"{label}: no column {name!r}{suggest(name, available)}")
        out.append(near[0])
    return out


def _renamed(frame: pl.LazyFrame, actual: Sequence[str], wanted: Sequence[str]) -> pl.LazyFrame:
    """Select the actual columns under the names the user gave."""
    return frame.select(pl.col(a).alias(w) for a, w in zip(actual, wanted, strict=True))


def _read_parquet(p: Path, columns: Sequence[str] | None, label: str) -> pl.LazyFrame:
    try:
        schema = pl.read_parquet_schema(p)
    except Exception as exc:  # polars raises several types for garbage
        raise InputError(f"{label} is not a readable Parquet file ({_first_line(exc)})") from None
    wanted = list(schema) if columns is None else list(columns)
    return _renamed(pl.scan_parquet(p), resolve_columns(list(schema), wanted, label), wanted)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _sniff_encoding(sample: bytes, label: str) -> str:
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in sample:
        raise InputError(
            f"{label} does not look like a CSV file (binary content); "
            "give a UTF-8 CSV with a header row, or a .parquet file"
        )
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(sample) < _SAMPLE_BYTES or exc.start < len(sample) - 4:  # not a cut character
            return "cp1252"
    return "utf-8"


def _decode(sample: bytes, encoding: str, label: str) -> str:
    try:
        return sample.decode(encoding, errors="strict" if len(sample) < _SAMPLE_BYTES else "ignore")
    except (UnicodeDecodeError, LookupError) as exc:
        raise InputError(f"{label}: cannot decode as {encoding} ({exc}); pass --encoding") from None


def _sniff_delimiter(text: str) -> str:
    lines = text.splitlines()[:50]
    try:
        return csv.Sniffer().sniff("\n".join(lines), delimiters=_DELIMITERS).delimiter
    except csv.Error:
        counts = {d: lines[0].count(d) for d in _DELIMITERS} if lines else {}
        best = max(counts, key=lambda d: counts[d], default=",")
        return best if counts.get(best) else ","


def _read_csv(
    p: Path, columns: Sequence[str] | None, options: CsvOptions, label: str
) -> pl.DataFrame:
    with p.open("rb") as fh:
        sample = fh.read(_SAMPLE_BYTES)
    encoding = options.encoding or _sniff_encoding(sample, label)
    text = _decode(sample, encoding, label)
    delimiter = options.delimiter or _sniff_delimiter(text)
    if len(delimiter) != 1:
        raise InputError(f"the delimiter must be one character, got {delimiter!r}")
    first = io.StringIO(text, newline=None)  # any line ending: \n, \r\n or \r alone
    try:
        header = next(csv.reader(first, delimiter=delimiter), None)
    except csv.Error as exc:
        raise InputError(f"{label}: malformed header row ({exc})") from None
    if not header or all(not h.strip() for h in header):
        raise InputError(f"{label} has no header row; the first line must name the columns")
    wanted = header if columns is None else list(columns)
    columns = resolve_columns(header, wanted, label)
    try:
        table = pa_csv.read_csv(
            p,
            read_options=pa_csv.ReadOptions(encoding=encoding),
            parse_options=pa_csv.ParseOptions(
                delimiter=delimiter, quote_char='"', newlines_in_values=True
            ),
            convert_options=pa_csv.ConvertOptions(
                include_columns=list(columns),
                column_types={c: pa.string() for c in columns},
                null_values=list(options.na_values),
                strings_can_be_null=True,
                quoted_strings_can_be_null=True,
            ),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError, LookupError) as exc:
        raise InputError(f"{label}: malformed CSV ({_first_line(exc)})") from None
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return _renamed(frame.lazy(), columns, wanted).collect()
