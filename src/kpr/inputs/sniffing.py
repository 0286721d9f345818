"""How a CSV file is written, found from its first bytes: its encoding (a BOM, else
UTF-8 when the whole file decodes, else cp1252, else latin-1), its delimiter and its
header; and its bytes read through gzip when it is compressed."""

from __future__ import annotations

import codecs
import csv
import gzip
import io
from pathlib import Path
from typing import BinaryIO, cast

from kpr.errors import InputError, first_line

SAMPLE_BYTES = 1 << 16


_DELIMITERS = ",;\t|"


def is_gzip(p: Path) -> bool:
    with p.open("rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def open_bytes(p: Path) -> BinaryIO:
    """The file's bytes, decompressed when it is gzipped (``.csv.gz``)."""
    return cast(BinaryIO, gzip.open(p, "rb")) if is_gzip(p) else p.open("rb")


def _sniff_encoding(p: Path, sample: bytes, label: str) -> str:
    """A BOM decides; otherwise UTF-8 when the whole file decodes as UTF-8, else cp1252
    (the usual encoding of spreadsheets saved on Windows), else latin-1."""
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in sample:
        raise InputError(
            f"{label} does not look like a CSV file (binary content); "
            "give a UTF-8 CSV with a header row, or a .parquet file"
        )
    for encoding in ("utf-8", "cp1252"):
        if _decodes(p, encoding):
            return encoding
    return "latin-1"


def _decodes(p: Path, encoding: str) -> bool:
    """Whether the whole file decodes (read in blocks: memory stays small)."""
    decoder = codecs.getincrementaldecoder(encoding)()
    with open_bytes(p) as fh:
        try:
            while block := fh.read(1 << 22):
                if block.isascii() and not decoder.getstate()[0]:
                    continue  # ASCII decodes alike in UTF-8 and cp1252: nothing to check
                decoder.decode(block)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return False
    return True


def not_encoded(label: str, encoding: str, exc: Exception) -> InputError:
    return InputError(
        f"{label}: cannot decode as {encoding} ({first_line(exc)}); "
        "pass the file's encoding with --encoding, e.g. --encoding cp1252"
    )


def _decode(sample: bytes, encoding: str, label: str) -> str:
    try:
        return codecs.getincrementaldecoder(encoding)().decode(sample)  # a cut character waits
    except (UnicodeDecodeError, LookupError) as exc:
        raise not_encoded(label, encoding, exc) from None


def _sniff_delimiter(text: str) -> str:
    lines = text.splitlines()[:50]
    try:
        return csv.Sniffer().sniff("\n".join(lines), delimiters=_DELIMITERS).delimiter
    except csv.Error:
        counts = {d: lines[0].count(d) for d in _DELIMITERS} if lines else {}
        best = max(counts, key=lambda d: counts[d], default=",")
        return best if counts.get(best) else ","


def sniff_csv(
    p: Path, delimiter: str | None, encoding: str | None, label: str
) -> tuple[str, str, list[str]]:
    """The encoding, the delimiter and the header of a CSV file (shared with Spark)."""
    with open_bytes(p) as fh:
        sample = fh.read(SAMPLE_BYTES)
    if not sample.strip():
        raise InputError(f"{label} is empty; give a table with a header row")
    encoding = encoding or _sniff_encoding(p, sample, label)
    text = _decode(sample, encoding, label)
    delimiter = delimiter or _sniff_delimiter(text)
    if len(delimiter) != 1:
        raise InputError(f"the delimiter must be one character, got {delimiter!r}")
    first = io.StringIO(text, newline=None)  # any line ending: \n, \r\n or \r alone
    try:
        header = next(csv.reader(first, delimiter=delimiter), None)
    except csv.Error as exc:
        raise InputError(f"{label}: malformed header row ({exc})") from None
    if not header or all(not h.strip() for h in header):
        raise InputError(f"{label} has no header row; the first line must name the columns")
    return encoding, delimiter, header
