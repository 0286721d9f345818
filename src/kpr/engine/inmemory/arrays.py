"""A polars column as one numpy array, made with one copy.

A table read from Parquet holds each column in chunks (one per row group, 40 for
4M rows). polars' ``to_numpy`` of such a column first joins the chunks into one
fresh buffer; a ``fill_null`` or a ``hash`` before it makes another, column-long
too. Each fresh page costs a fault and its zeroing by the kernel, which on large
tables is more than the copy itself. Here each chunk is turned into numpy (its
small temporaries reuse the same memory from chunk to chunk) and written into the
one result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl


def _as_is(chunk: pl.Series) -> pl.Series:
    return chunk


def chunkwise(column: pl.Series, make: Callable[[pl.Series], pl.Series] = _as_is) -> np.ndarray:
    """``make(column).to_numpy()``, computed a chunk at a time into one array:
    ``make`` must map each value on its own (a fill, a cast, a hash), so that
    chunks give what the whole column would. A column of one chunk is made whole
    (no copy at all when ``make`` leaves it as it is and it has no missing value)."""
    chunks = column.get_chunks()
    if len(chunks) <= 1:
        return make(column).to_numpy()
    parts = iter(chunks)
    first = make(next(parts)).to_numpy()
    out = np.empty(len(column), dtype=first.dtype)
    out[: len(first)] = first
    start = len(first)
    for chunk in parts:
        part = make(chunk).to_numpy()
        if part.dtype != out.dtype:  # e.g. a fill that needs a wider type in one chunk only
            return make(column).to_numpy()
        out[start : start + len(part)] = part
        start += len(part)
    return out


def filled(column: pl.Series, fill: Any) -> np.ndarray:
    """``column``'s values with ``fill`` for missing, as one numpy array
    (:func:`chunkwise`)."""
    return chunkwise(column, lambda chunk: chunk.fill_null(fill) if chunk.null_count() else chunk)
