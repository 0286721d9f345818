"""The fidelity of a synthetic table (``kpr.utility``, ``kpr utility``): plain data,
the sentence that explains it, ``to_dict()``; computed in :mod:`kpr.utility`.

Figures:

* ``column_shapes``, ``column_pair_trends``, ``overall``: SDMetrics' Quality
  Report (0-1, 1 = same distributions);
* ``mean_hellinger``: Octopize's first summary figure, the mean over columns of
  the Hellinger distance (target < 0.1);
* ``correlation_difference``: Octopize's second, in points of 100: 100 x the mean over
  pairs of |association in the synthetic table - association in the original|,
  the association being |r| for two numbers or dates, Cramér's V for two
  categories and η² for a category and a number (target < 10 points).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import polars as pl

from kpr.results import views
from kpr.results.json import finite_or_none

#: Octopize's targets.
HELLINGER_TARGET = 0.1
CORRELATION_DIFFERENCE_TARGET = 10.0
#: Quantile bins of a number's Hellinger distance: the figure, and whether it meets
#: its target, depend on them (more bins, a larger distance), so it is said.
HELLINGER_BINS = 20

EXPLAIN_UTILITY = (
    "The synthetic table scores {overall} on SDMetrics' Quality Report (column shapes "
    "{shapes}, column pair trends {trends}; 1 means the same distributions); the mean "
    "Hellinger distance is {hellinger} (numbers on " + str(HELLINGER_BINS) + " quantile "
    "bins, a figure that depends on them; Octopize's target: below 0.1) and the "
    "associations between columns move by {corr} on average (target: below 10 points)."
)


def _fmt(x: float, digits: int = 3) -> str:
    return "undefined" if math.isnan(x) else f"{x:.{digits}f}"


def _records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    out = []
    for row in frame.iter_rows(named=True):
        out.append({k: finite_or_none(v) if isinstance(v, float) else v for k, v in row.items()})
    return out


@dataclass(frozen=True, eq=False)
class UtilityResult:
    """Column and pair scores of a synthetic table against its original.

    ``columns``: one row per column (``column``, ``kind``, ``metric``: KSComplement
    or TVComplement, its ``score``, ``hellinger``, ``missing_original``,
    ``missing_synthetic``: shares of missing values). ``pairs``: one row per pair
    (``metric``: CorrelationSimilarity or ContingencySimilarity, its ``score``,
    computed for every pair; ``meets_threshold``: whether the pair counts in the
    Column Pair Trends score, SDMetrics' rule; ``real_correlation`` and
    ``synthetic_correlation``: Pearson's r; ``real_cramers_v``: the association
    SDMetrics thresholds; ``association``: r, cramers_v or eta2, and its
    ``original_association``, ``synthetic_association`` and ``association_change``).
    """

    columns: pl.DataFrame
    pairs: pl.DataFrame
    column_shapes: float
    column_pair_trends: float
    overall: float
    n_original: int
    n_synthetic: int
    skipped: tuple[str, ...] = field(default=())
    #: numeric columns with at most 10 distinct values, scored as categories as
    #: ``kpr avatarize`` treats them (``kinds=`` / ``--numeric`` scores one as a number)
    codes: tuple[str, ...] = field(default=())

    def column_table(self) -> pl.DataFrame:
        """The per-column scores (a copy to compare before/after, e.g. by ``column``)."""
        return self.columns.clone()

    def pair_table(self) -> pl.DataFrame:
        """The per-pair scores, largest association change first."""
        return self.pairs.sort(pl.col("association_change").abs(), descending=True, nulls_last=True)

    @property
    def mean_hellinger(self) -> float:
        """Mean Hellinger distance over the columns where it is defined (0 = same)."""
        value = self.columns["hellinger"].fill_nan(None).mean()
        return float("nan") if value is None else float(value)  # type: ignore[arg-type]

    @property
    def mean_abs_association_change(self) -> float:
        """Mean over pairs of |association change| (0-1; NaN without a defined pair)."""
        value = self.pairs["association_change"].abs().mean() if self.pairs.height else None
        return float("nan") if value is None else float(value)  # type: ignore[arg-type]

    @property
    def correlation_difference(self) -> float:
        """Octopize's correlation difference, in percent: 100 x ``mean_abs_association_change``."""
        return 100.0 * self.mean_abs_association_change

    @property
    def meets_targets(self) -> bool:
        """Both of Octopize's targets met (mean Hellinger < 0.1, difference < 10 %)."""
        return (
            self.mean_hellinger < HELLINGER_TARGET
            and self.correlation_difference < CORRELATION_DIFFERENCE_TARGET
        )

    def worst_pairs(self, n: int = 5) -> pl.DataFrame:
        """The ``n`` pairs whose scores are lowest (the relationships that moved most)."""
        return self.pairs.filter(pl.col("score").is_not_nan()).sort("score").head(n)

    @property
    def kinds_used(self) -> str:
        """The kinds the scores used, in one sentence (and why some numbers are categories)."""
        by_kind: dict[str, list[str]] = {}
        for name, kind in self.columns.select("column", "kind").iter_rows():
            by_kind.setdefault(kind, []).append(name)
        text = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in by_kind.items())
        if self.codes:
            text += (
                f". Scored as categories as kpr avatarize treats them (numbers with at most "
                f"10 distinct values): {', '.join(self.codes)}; declare one numeric "
                "(--numeric, kinds= in Python) to score it as a number"
            )
        return f"Kinds used: {text}."

    @property
    def meaning(self) -> str:
        """One sentence explaining the figures."""
        trends = _fmt(self.column_pair_trends)
        if math.isnan(self.column_pair_trends) and self.pairs.height:
            trends = "undefined: no pair is associated strongly enough in the original to count"
        return EXPLAIN_UTILITY.format(
            overall=_fmt(self.overall),
            shapes=_fmt(self.column_shapes),
            trends=trends,
            hellinger=_fmt(self.mean_hellinger),
            corr="undefined"
            if math.isnan(self.correlation_difference)
            else f"{self.correlation_difference:.1f} points of 100",
        )

    def summary(self) -> dict[str, float | None]:
        """The scalar figures (for a before/after comparison, or a table per k)."""
        return {
            "overall": finite_or_none(self.overall),
            "column_shapes": finite_or_none(self.column_shapes),
            "column_pair_trends": finite_or_none(self.column_pair_trends),
            "mean_hellinger": finite_or_none(self.mean_hellinger),
            "correlation_difference": finite_or_none(self.correlation_difference),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.summary(),
            "meets_targets": self.meets_targets,
            "targets": {
                "mean_hellinger": HELLINGER_TARGET,
                "correlation_difference": CORRELATION_DIFFERENCE_TARGET,
            },
            "n_original": self.n_original,
            "n_synthetic": self.n_synthetic,
            "skipped": list(self.skipped),
            "codes_as_categories": list(self.codes),
            "columns": _records(self.columns),
            "pairs": _records(self.pairs),
            "meaning": self.meaning,
        }

    @overload
    def to_html(self, path: None = None) -> str: ...

    @overload
    def to_html(self, path: str | os.PathLike[str]) -> Path: ...

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str | Path:
        """The HTML page: column shapes and a heatmap of the pair scores (needs
        matplotlib): the document, or written atomically to ``path``."""
        return views.to_html(self, path)

    def _repr_html_(self) -> str:
        return views.repr_html(self)
