"""Missing-value markers read as values: ``?`` (the UCI convention), ``NA``, ``N/A``,
``null``, ``-`` and ``.`` are text to a CSV reader unless ``--na-value`` names them, so
a known column may silently hold them as a category (or turn a numeric column into a
categorical one). This module counts them, one query per table; the warning that names
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


def _count(flag: Any, label: str) -> Any:
    # a comparison with a missing value is missing: counted as False (Dask's Arrow-backed
    # pandas cannot cast a missing boolean to an integer)
    return flag.fill_null(False).cast(nw.Int64).sum().alias(label)


def marker_counts(frame: nw.LazyFrame[Any], names: Iterable[str]) -> dict[str, MarkerCount]:
    """Per text column of ``names``, the markers it holds (columns of another type
    hold none and are left out); one query over the table."""
    schema = frame.collect_schema()
    texts = [n for n in names if schema[n] == nw.String]
    if not texts:
        return {}
    exprs = [nw.len().alias("rows")]
    for i, name in enumerate(texts):
        col = nw.col(name)
        exprs += [_count(col == m, f"{i}:m{j}") for j, m in enumerate(MARKERS)]
        present = ~col.is_null() & ~col.is_in(MARKERS)
        number = col.str.contains(NUMBER)
        exprs += [_count(present & number, f"{i}:n"), _count(present & ~number, f"{i}:o")]
    row = {k: v[0] for k, v in frame.select(exprs).collect().to_dict(as_series=False).items()}
    out = {}
    for i, name in enumerate(texts):
        found = {m: int(row[f"{i}:m{j}"] or 0) for j, m in enumerate(MARKERS)}
        out[name] = MarkerCount(
            {m: c for m, c in found.items() if c}, int(row[f"{i}:n"] or 0),
            int(row[f"{i}:o"] or 0), int(row["rows"] or 0),
        )  # fmt: skip
    return out
