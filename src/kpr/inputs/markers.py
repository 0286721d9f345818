"""Missing-value markers read as values: ``?`` (the UCI convention), ``NA``, ``N/A``,
``null``, ``-`` and ``.`` are text to a CSV reader unless ``--na-value`` names them, so
a known column may silently hold them as a category (or turn a numeric column into a
categorical one). This module counts them on each known text column's distinct values:
those the counting path made on its way (the in-memory engine numbers them), else one
query per column; the warning that names them (with the ``--na-value`` to pass) is
:func:`kpr.diagnostics.marker_warnings`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

#: The markers looked for, each as a whole value.
MARKERS = ("?", "NA", "N/A", "null", "-", ".")
#: A number as a CSV reader parses one (with inf and nan, any case).
NUMBER = r"^\s*[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|(?i:inf|infinity|nan))\s*$"


@dataclass(frozen=True)
class MarkerCount:
    """One text column: rows holding each marker found, rows holding a number, rows
    holding other text (neither a marker nor a number), and its rows."""

    found: dict[str, int]
    numbers: int
    others: int
    rows: int

    @property
    def otherwise_numeric(self) -> bool:
        """Numbers apart from the markers: the markers made the column text."""
        return self.others == 0 and self.numbers > 0


#: The rows each distinct value stands for, in the small table of distinct values.
_ROWS = "__kpr_rows__"
#: The distinct values, in a table made by :func:`value_rows`.
_VALUE = "__kpr_value__"


def _count(flag: Any, label: str) -> Any:
    """Rows whose value has ``flag``, summed over the distinct values. A comparison with
    a missing value is missing: counted as False (Dask's Arrow-backed pandas cannot cast
    a missing boolean to an integer)."""
    return (flag.fill_null(False).cast(nw.Int64) * nw.col(_ROWS)).sum().alias(label)


def _column(frame: nw.LazyFrame[Any], name: str) -> MarkerCount:
    """One text column: one query for its distinct values and their rows, then
    :func:`_counted` on them."""
    values = frame.group_by(name).agg(nw.len().alias(_ROWS)).collect()
    return _counted(values, name)


def value_rows(values: pl.Series, rows: np.ndarray) -> nw.DataFrame[Any]:
    """A text column's distinct ``values`` (missing included, as None) with the
    ``rows`` holding each: what a counting path that numbered the column's values
    on its way (``kpr.engine.inmemory``) already holds, handed to
    :func:`marker_counts` so that no query reads the column again."""
    table = pl.DataFrame({_VALUE: values.cast(pl.String), _ROWS: rows.astype(np.int64)})
    return nw.from_native(table, eager_only=True)


def _counted(values: nw.DataFrame[Any], name: str) -> MarkerCount:
    """The markers and the numbers looked for among the distinct values alone (a
    column of 100 values costs 100 tests, not one per row)."""
    col = nw.col(name)
    present = ~col.is_null() & ~col.is_in(MARKERS)
    number = col.str.contains(NUMBER)
    exprs = [nw.col(_ROWS).sum().alias("rows")]
    exprs += [_count(col == m, f"m{j}") for j, m in enumerate(MARKERS)]
    exprs += [_count(present & number, "n"), _count(present & ~number, "o")]
    row = {k: v[0] for k, v in values.select(exprs).to_dict(as_series=False).items()}
    found = {m: int(row[f"m{j}"] or 0) for j, m in enumerate(MARKERS)}
    return MarkerCount(
        {m: c for m, c in found.items() if c},
        int(row["n"] or 0),
        int(row["o"] or 0),
        int(row["rows"] or 0),
    )


def marker_counts(
    frame: nw.LazyFrame[Any],
    names: Iterable[str],
    values: Mapping[str, nw.DataFrame[Any]] | None = None,
) -> dict[str, MarkerCount]:
    """Per text column of ``names``, the markers it holds (columns of another type
    hold none and are left out): from its distinct ``values`` when a counting path
    made them (:func:`value_rows`), else from one query on its distinct values."""
    schema = frame.collect_schema()
    values = values or {}
    return {
        n: _counted(values[n], _VALUE) if n in values else _column(frame, n)
        for n in names
        if schema[n] == nw.String
    }
