"""An unclosed quote in a CSV file: Arrow reads everything after it, to the end of
the file, into one cell (``newlines_in_values``), silently. That happens only when
the quote opens the last field of a row (elsewhere the row lacks fields, and Arrow
says so), so the last row's last cell is then the file's tail after the quote.

:func:`check_closed` looks at that cell and the file's last bytes only: a file
whose last cell is the quote's unclosed rest ends with ``"`` + the cell (quotes
doubled, as written), right after a delimiter or a line break; a closed quoted cell
ends with its closing ``"``, an unquoted one has no ``"`` before it."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from kpr.errors import InputError
from kpr.inputs.sniffing import is_gzip, open_bytes

_BLOCK = 1 << 22


def check_closed(
    p: Path, delimiter: str, last: object, na_values: Sequence[str], label: str
) -> None:
    """Refuse (one line naming the line of the quote) a UTF-8 CSV file ``p`` whose
    last row's last cell, read as ``last`` (None: missing, one of ``na_values``), is
    an unclosed quote running to the end of the file."""
    written = [str(last)] if last is not None else list(dict.fromkeys(["", *na_values]))
    for text in written:
        body = text.replace('"', '""').encode("utf-8")
        before = _tail(p, len(body) + 2)
        if before.endswith(b'"' + body) and before[-len(body) - 2 :][:1] in (
            delimiter.encode("utf-8"), b"\n", b"\r",
        ):  # fmt: skip
            line = _line_of(p, b'"' + body)
            raise InputError(
                f'{label}: the quote (") opened on line {line} is never closed, so the '
                "rest of the file would be read as one cell; close that quote, or remove it"
            )


def _tail(p: Path, size: int) -> bytes:
    """The last ``size`` bytes of the file's content (decompressed when gzipped)."""
    if not is_gzip(p):
        with p.open("rb") as fh:
            fh.seek(max(0, p.stat().st_size - size), os.SEEK_SET)
            return fh.read()
    kept = b""
    with open_bytes(p) as fh:
        while block := fh.read(_BLOCK):
            kept = (kept + block)[-size:]
    return kept


def _line_of(p: Path, rest: bytes) -> int:
    """The line (from 1) where ``rest``, the content's last bytes, begins."""
    breaks = {b"\n": 0, b"\r": 0}
    with open_bytes(p) as fh:
        while block := fh.read(_BLOCK):
            for mark in breaks:
                breaks[mark] += block.count(mark)
    mark = b"\n" if breaks[b"\n"] else b"\r"  # old Mac files break lines with \r alone
    return breaks[mark] - rest.count(mark) + 1
