"""An unclosed quote in a CSV file: Arrow reads everything after it, to the end of
the file, into one cell (``newlines_in_values``). When the quote opens the last field
of a row, silently: the last row's last cell is then the file's tail after the quote.
Elsewhere the row then lacks fields, and Arrow says only "Expected 3 columns, got 2".
Both are refused with one line naming the line of the quote (:func:`unclosed`).

:func:`check_closed` looks at that last cell and the file's last bytes only: a file
whose last cell is the quote's unclosed rest ends with ``"`` + the cell (quotes
doubled, as written), right after a delimiter or a line break; a closed quoted cell
ends with its closing ``"``, an unquoted one has no ``"`` before it.
:func:`open_quote` reads the file once, quote to quote, when Arrow refused a row:
whether it ends inside a quoted field, where that field opens, and the start of its
row, so that the quote is named only when its row is the one Arrow refused."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kpr.errors import InputError
from kpr.inputs.sniffing import is_gzip, open_bytes

_BLOCK = 1 << 22
_SHOWN = 256  # more than Arrow shows of a refused row


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
            raise unclosed(label, _line_at(p) - _breaks(body))


def unclosed(label: str, line: int) -> InputError:
    """The one line for a quote opened on ``line`` and never closed."""
    return InputError(
        f'{label}: the quote (") opened on line {line} is never closed, so the '
        "rest of the file would be read as one cell; close that quote, or remove it"
    )


@dataclass(frozen=True)
class OpenQuote:
    """A quote that opens a field and is never closed: its line, and the bytes of the
    file from the start of the row that holds it (the row's first ``_SHOWN`` bytes)."""

    line: int
    row: bytes

    def refused(self, exc: Exception) -> bool:
        """Whether Arrow's error ``exc`` refused this quote's row, rather than an
        earlier malformed row (the first fault is then that row's, not the quote's).
        Arrow shows the refused row's first 100 bytes or so ("... got 2: 4,\"5 ...")."""
        shown = re.search(r"columns, got \d+: (.*)", str(exc), re.DOTALL)
        if shown is None:
            return True  # no row shown: the quote is all we know of
        text = shown.group(1).removesuffix(" ...").encode("utf-8", "replace")
        return self.row.startswith(text.rstrip(b"\r\n"))


def open_quote(p: Path, delimiter: str, block_size: int = _BLOCK) -> OpenQuote | None:
    """The quote that opens a field and is never closed in the UTF-8 CSV file ``p``
    (decompressed when gzipped), or None. As Arrow reads: a quote opens a field only
    at its start (after a delimiter, a line break or at the file's start; elsewhere it
    is a character), ``""`` inside is one quote; a row ends at a line break outside
    quotes. Read ``block_size`` bytes at a time, quote to quote."""
    starts = (delimiter.encode("utf-8")[-1], ord("\n"), ord("\r"))
    quoted, pending, opened, row, at, offset, before = False, False, 0, 0, 0, 0, -1
    with open_bytes(p) as fh:
        while block := fh.read(block_size):
            i = 0
            if pending:  # a quote ended the last block: doubled, or the field's end
                pending, quoted = False, block[0] == ord('"')
                i = 1 if quoted else 0
            while i < len(block):
                k = block.find(b'"', i)
                if not quoted:  # the rows that end before this quote (or block end)
                    end = len(block) if k < 0 else k
                    if (last := max(block.rfind(b"\n", i, end), block.rfind(b"\r", i, end))) >= 0:
                        row = offset + last + 1
                if k < 0:
                    break
                if quoted:  # a closing quote, or a doubled one
                    if k + 1 == len(block):
                        pending = True
                    elif block[k + 1] == ord('"'):
                        k += 1
                    else:
                        quoted = False
                elif (block[k - 1] if k else before) in (*starts, -1):
                    quoted, opened, at = True, offset + k, row
                i = k + 1
            offset, before = offset + len(block), block[-1]
    if not quoted or pending:
        return None
    return OpenQuote(_line_at(p, opened), _read_at(p, at, _SHOWN))


def _line_at(p: Path, offset: int | None = None) -> int:
    """The line (from 1) holding the content's byte ``offset`` (None: its end). A line
    ends as Arrow ends it: LF, CR LF or CR alone (old Mac files), even mixed in a file."""
    lines, read, last = 0, 0, b""
    with open_bytes(p) as fh:
        while offset is None or read < offset:
            block = fh.read(_BLOCK if offset is None else min(_BLOCK, offset - read))
            if not block:
                break
            # a \r\n split between two blocks is one break
            lines += _breaks(block) - (last == b"\r" and block[:1] == b"\n")
            read, last = read + len(block), block[-1:]
    return lines + 1


def _breaks(text: bytes) -> int:
    """How many line breaks ``text`` holds (CR LF is one)."""
    return text.count(b"\n") + text.count(b"\r") - text.count(b"\r\n")


def _read_at(p: Path, offset: int, size: int) -> bytes:
    """``size`` bytes of the file's content from ``offset`` (decompressed when gzipped)."""
    with open_bytes(p) as fh:
        fh.seek(offset)
        return fh.read(size)


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
