"""Counts by class profile over several tables, on every backend: the count tables
the measures beyond the rate are computed from (the inference measures' profile x
secret, ``kpr.engine.profiles``; the membership attack's profiles,
``kpr.engine.membership``). Counting paths give it as ``Counting.cells``.

Each table is grouped by its codes on its own, then the small grouped tables are
stacked and summed: stacking instead of joining keeps missing == missing on every
backend (SQL joins never match NULL with NULL).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import narwhals as nw

Frame = nw.LazyFrame[Any]

_N = "__kpr_n__"


def cell_counts(parts: Mapping[str, Frame], keys: Sequence[str]) -> Frame:
    """One row per distinct profile on ``keys`` (missing == missing) with, per part
    (its name), the rows of that table holding it (Int64, 0 when none). Every part
    holds ``keys`` in the same types."""
    names = list(parts)
    counted = [
        frame.group_by(*keys, drop_null_keys=False)
        .agg(nw.len().alias(_N))
        .select(
            *keys,
            *((nw.col(_N) if c == own else nw.lit(0)).cast(nw.Int64).alias(c) for c in names),
        )
        for own, frame in parts.items()
    ]
    return (
        nw.concat(counted, how="vertical")
        .group_by(*keys, drop_null_keys=False)
        .agg(*(nw.col(c).sum() for c in names))
        .with_columns(nw.col(c).cast(nw.Int64) for c in names)
    )
