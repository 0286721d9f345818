"""A table another engine (Spark, Dask) read from a file: what the CLI hands to
``kpr.evaluate`` in place of a path, so that ``kpr.inputs.reconcile`` decides the kinds of
its columns as for a file polars read (``kpr.inputs.files.read_table``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: The column of file positions that ``spark_inputs`` and ``dask_inputs`` add.
FILE_ROW = "__kpr_file_row__"


@dataclass
class EngineTable:
    """A table an engine read from a file, handed to ``kpr.evaluate`` as input:
    ``untyped`` (CSV) columns are text whose kinds ``kpr.inputs.reconcile`` decides, as
    for a CSV file read by polars."""

    frame: Any  # a native lazy frame (a Spark or Dask DataFrame)
    untyped: bool
    label: str
    row: str | None = None  # the column of row positions in the file, when read with them
