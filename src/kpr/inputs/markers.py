"""Missing-value markers read as values: ``?`` (the UCI convention), ``NA``, ``N/A``,
``null``, ``-`` and ``.`` are text to a CSV reader unless ``--na-value`` names them, so
a known column may silently hold them as a category (or turn a numeric column into a
categorical one). This module counts them, one query per known text column; the warning that names
them (with the ``--na-value`` to pass) is :func:`kpr.diagnostics.marker_warnings`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import narwhals as nw

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


def _count(flag: Any, label: str) -> Any:
    """Rows whose value has ``flag``, summed over the distinct values. A comparison with
    a missing value is missing: counted as False (Dask's Arrow-backed pandas cannot cast
    a missing boolean to an integer)."""
    return (flag.fill_null(False).cast(nw.Int64) * nw.col(_ROWS)).sum().alias(label)


def _column(frame: nw.LazyFrame[Any], name: str) -> MarkerCount:
    """One text column: one query for its distinct values and their rows, then the
    markers and the numbers looked for among the distinct values alone (a column of 100
    values costs 100 tests, not one per row)."""
    values = frame.group_by(name).agg(nw.len().alias(_ROWS)).collect()
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


def marker_counts(frame: nw.LazyFrame[Any], names: Iterable[str]) -> dict[str, MarkerCount]:
    """Per text column of ``names``, the markers it holds (columns of another type
    hold none and are left out); one query per text column, on its distinct values."""
    schema = frame.collect_schema()
    return {n: _column(frame, n) for n in names if schema[n] == nw.String}
