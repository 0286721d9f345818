"""Plain CSV files read by polars' own multi-threaded reader, as text.

Arrow's streaming reader (``kpr.inputs.files``) is the reference: it reads every
CSV kpr accepts and names what is wrong with the others. polars reads the common
case faster, and gives the same text wherever the file is *plain*: UTF-8, no
quote character, line breaks ``\\n`` or ``\\r\\n``, and every line holding
exactly as many fields as the header. polars cannot say the last itself (a short
line gets nulls, a blank line a row of nulls), so the file's delimiters are
counted first: with every line at most as long as the header (polars refuses a
longer one), ``(fields - 1) * (rows + 1)`` delimiters mean every line is exactly
as long. Whatever fails these checks is read by Arrow instead.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import polars as pl

from kpr.inputs.reading import ReadSettings

_SCAN_BYTES = 1 << 20
#: Text held per batch: memory stays bounded whatever the file's size.
_BATCH_BYTES = 1 << 25


def is_plain_candidate(encoding: str, delimiter: str, fields: int) -> bool:
    """Whether polars may read such a file: UTF-8, a one-byte delimiter, and at
    least two fields (a one-field file has no delimiter to count its lines by)."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return False
    return name in ("utf-8", "utf-8-sig") and delimiter.isascii() and fields >= 2


def plain_delimiters(p: Path, delimiter: str) -> int | None:
    """How many delimiter bytes the file holds; None when it holds a quote character
    or a carriage return outside ``\\r\\n`` (Arrow reads those files)."""
    sep = ord(delimiter)
    count = 0
    pending_cr = False  # the previous block ended with \r: this one must start with \n
    with p.open("rb") as fh:
        while block := fh.read(_SCAN_BYTES):
            if b'"' in block or (pending_cr and block[:1] != b"\n"):
                return None
            if b"\r" in block:
                pending_cr = block.endswith(b"\r")
                if block.count(b"\r") != block.count(b"\r\n") + pending_cr:
                    return None
            else:
                pending_cr = False
            count += int(np.count_nonzero(np.frombuffer(block, np.uint8) == sep))
    return None if pending_cr else count


def read_plain(
    p: Path,
    fields: int,
    columns: Mapping[int, str],
    options: ReadSettings,
    delimiter: str,
    line_bytes: float,
    add: Callable[[pl.DataFrame], None],
) -> bool:
    """Read a file of ``fields`` columns (see :func:`is_plain_candidate`) if it is
    plain: the ``columns`` (position: name) as text, given to ``add`` in batches of
    about ``_BATCH_BYTES`` of file (``line_bytes``: the mean line's size). False when
    the file is not plain: what ``add`` received is to be dropped."""
    delimiters = plain_delimiters(p, delimiter)
    if delimiters is None:
        return False
    markers = [m for m in options.na_values if m != ""]
    scan = pl.scan_csv(
        p.absolute(),  # never a glob, a URL or ~
        separator=delimiter,
        quote_char=None,
        infer_schema=False,
        null_values=markers or None,
        empty_string_is_null="" in options.na_values,
        glob=False,
        encoding="utf8",
    )
    chunk = max(1024, int(_BATCH_BYTES / max(line_bytes, 1.0)))
    every_field = pl.QueryOptFlags(projection_pushdown=False)  # a longer line raises
    rows = 0
    try:
        if len(scan.collect_schema()) != fields:
            return False
        wanted = scan.select(pl.nth(i).alias(n) for i, n in columns.items())
        for batch in wanted.collect_batches(chunk_size=chunk, optimizations=every_field):
            rows += batch.height
            add(batch)
    except pl.exceptions.PolarsError:
        return False
    return rows > 0 and delimiters == (fields - 1) * (rows + 1)  # Arrow says what a header alone is
