"""``kpr.utility``: the fidelity of a synthetic table, measured as SDMetrics' Quality
Report and Octopize's summary figures measure it (``columns`` and ``pairs`` hold
the definitions; ``kpr.results.utility`` the result)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import astuple
from typing import Any

import numpy as np
import polars as pl

from kpr.checks import callback
from kpr.fidelity.columns import Column, category_codes, column
from kpr.fidelity.load import Selection, load_tables
from kpr.fidelity.pairs import Pair, all_pairs
from kpr.inputs.reading import ReadSettings
from kpr.metric.attack import Kind
from kpr.progress import Progress
from kpr.results.utility import UtilityResult

#: Columns scored at the same time, at most: each holds temporary arrays of its
#: own, as long as the tables (polars' own operations use every thread anyway).
_WORKERS = 2


def _mean(values: Iterable[float]) -> float:
    """The mean of the defined values (pandas' ``mean``: NaN skipped; NaN if none)."""
    kept = [v for v in values if not math.isnan(v)]
    return float(np.mean(kept)) if kept else float("nan")


#: The per-column table: one row per ``Column`` (:func:`_column_row`).
COLUMN_SCHEMA = {
    "column": pl.String, "kind": pl.String, "metric": pl.String, "score": pl.Float64,
    "hellinger": pl.Float64, "missing_original": pl.Float64, "missing_synthetic": pl.Float64,
}  # fmt: skip
#: The per-pair table: one row per ``Pair``, its fields in order.
PAIR_SCHEMA = {
    "column_1": pl.String, "column_2": pl.String, "metric": pl.String, "score": pl.Float64,
    "meets_threshold": pl.Boolean, "real_correlation": pl.Float64,
    "synthetic_correlation": pl.Float64, "real_cramers_v": pl.Float64,
    "association": pl.String, "original_association": pl.Float64,
    "synthetic_association": pl.Float64,
}  # fmt: skip


def _column_row(c: Column) -> tuple:
    return (
        c.name, c.kind.value, c.metric, c.score, c.hellinger, c.missing_original,
        c.missing_synthetic,
    )  # fmt: skip


def _frame(rows: list[tuple], schema: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=schema, orient="row")


def utility(
    original: Any,
    synthetic: Any,
    *,
    columns: Iterable[str] | None = None,
    kinds: Mapping[str, str] | None = None,
    metadata: Any = None,
    table: str | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
    na_values: Iterable[str] = ("",),
    progress: Progress | None = None,
) -> UtilityResult:
    """How faithfully ``synthetic`` follows ``original``, column by column and pair by pair.

    The inputs are anything ``kpr.evaluate`` reads (frames of any library, CSV or
    Parquet paths); ``columns`` restricts the comparison (default: every column of
    the original); kinds are inferred as for the rate, then declared by SDV
    ``metadata`` (columns it calls ids or personal information are skipped, as in
    SDMetrics), then by ``kinds``. The scores equal SDMetrics' Quality Report's
    (see ``kpr.fidelity.columns`` and ``kpr.fidelity.pairs``), computed on every row.

    >>> import polars as pl, kpr
    >>> o = pl.DataFrame({"age": [30, 41, 52, 60], "sex": ["F", "M", "F", "M"]})
    >>> kpr.utility(o, o).overall
    1.0
    """
    csv = ReadSettings(delimiter, encoding, na_values)  # type: ignore[arg-type]
    callback(progress)
    loaded = load_tables(original, synthetic, Selection(columns, kinds, metadata, table), csv)
    cols, pairs = _scored(loaded.original, loaded.synthetic, loaded.kinds, progress)
    shapes = _mean(c.score for c in cols)
    trends = _mean(p.score for p in pairs if p.meets_threshold)
    change = pl.col("synthetic_association") - pl.col("original_association")
    return UtilityResult(
        columns=_frame([_column_row(c) for c in cols], COLUMN_SCHEMA),
        pairs=_frame([astuple(p) for p in pairs], PAIR_SCHEMA).with_columns(
            change.fill_nan(None).alias("association_change")
        ),
        column_shapes=shapes,
        column_pair_trends=trends,
        overall=_mean([shapes, trends]),
        n_original=loaded.original.height,
        n_synthetic=loaded.synthetic.height,
        skipped=loaded.skipped,
        codes=loaded.codes,
    )


def _scored(
    o: pl.DataFrame, s: pl.DataFrame, kind: Mapping[str, Kind], progress: Progress | None
) -> tuple[list[Column], list[Pair]]:
    """Every column's score, then every pair's, on a thread pool; ``progress`` is
    called as they are done."""
    names = list(kind)
    total = len(names) + len(names) * (len(names) - 1) // 2
    categorical = [n for n in names if kind[n] is Kind.CATEGORICAL]
    workers = max(1, min(_WORKERS, pl.thread_pool_size()))
    with ThreadPoolExecutor(workers) as pool:
        # numpy and polars release the GIL: columns, and the two sides' pair
        # statistics, computed at the same time (the results do not depend on it)
        mapper = map if workers == 1 else pool.map
        codes = category_codes(o, s, categorical, mapper)
        cols: list[Column] = []
        for got in mapper(lambda n: column(n, kind[n], o[n], s[n], codes.get(n)), names):
            cols.append(got)
            if progress is not None:
                progress(len(cols), total, "scoring")
        half = len(cols) + (total - len(cols)) // 2
        step = None if progress is None else lambda: progress(half, total, "scoring")
        pairs = all_pairs(cols, step, mapper)
    if progress is not None:
        progress(total, total, "scoring")
    return cols, pairs
