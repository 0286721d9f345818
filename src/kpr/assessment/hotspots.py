"""Item 8, the "well-chosen examples": the classes of the known variables where the
linked individuals concentrate, shown by their values only when they hold at least
``min_count`` people; smaller groups are counted, never named."""

from __future__ import annotations

from typing import Any

import polars as pl

from kpr.metric.classes import interval_label
from kpr.results.evaluation import KprResult

from .figures import HotSpot

#: Hot spots filed in the pack, riskiest first.
TOP = 5


def _label(row: dict[str, Any], name: str, binned: bool) -> str:
    if not binned:
        value = row[name]
        return "(missing)" if value is None else str(value)
    if row["special"] is not None:
        return str(row["special"])
    return interval_label(row["lower"], row["upper"], row["upper"] - row["lower"])


def hot_spots(result: KprResult, min_count: int) -> tuple[list[HotSpot], int]:
    """The ``TOP`` classes with the highest share of linked people among those of at
    least ``min_count`` people, and how many classes holding a linked person were too
    small to be shown."""
    found: list[HotSpot] = []
    hidden = 0
    for name in result.known:
        binned = result.variables[name].kind.binned
        table = result.class_table(name).filter(pl.col("linked") > 0)
        for row in table.iter_rows(named=True):
            if row["originals"] < min_count:
                hidden += 1
                continue
            value = _label(row, name if not binned else "class", binned)
            share = 100 * row["linked"] / row["originals"]
            found.append(HotSpot(name, value, row["originals"], row["linked"], share))
    found.sort(key=lambda g: (-g.share, -g.linked, g.variable, g.value))
    return found[:TOP], hidden
