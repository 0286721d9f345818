"""SDMetrics' CAP family (CategoricalCAP, CategoricalZeroCAP, DisclosureProtection)
from the cells' counts, as SDMetrics 0.32 defines them, so a group-by gives its figures.

SDMetrics scores each real row by the share of the synthetic rows with its key (the
raw known values) whose sensitive value equals its own. CategoricalCAP averages that
over the real rows whose key some synthetic row has (undefined when none has);
CategoricalZeroCAP over every real row, a missing key scoring 0; each is reported as
1 minus the average. DisclosureProtection first cuts each continuous column into 10
bins over the real values (pandas' ``cut``, the synthetic values by the same edges
opened to ±inf), makes missing values a category, then divides CategoricalCAP's figure
by the baseline ``1 - 1 / (number of sensitive categories in the real data)``, capped
at 1. Every sum here runs over cells, never rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kpr.metric.inference import Cells

#: SDMetrics' number of bins for a continuous column (DisclosureProtection's default).
SDMETRICS_BINS = 10


def cut_edges(minimum: float, maximum: float, bins: int = SDMETRICS_BINS) -> tuple[float, ...]:
    """The inner edges of pandas' ``cut(x, bins)`` over values from ``minimum`` to
    ``maximum`` (pandas 2's ``_nbins_to_bins``): ``bins + 1`` equal steps, the lowest
    edge lowered by 0.1 % of the range (or both ends moved by 0.1 % of their size when
    every value is the same). A value ``x`` falls in class ``#{inner edges < x}``
    (right-closed bins): the outer edges never matter, since SDMetrics opens them to
    ±inf for the synthetic values and the real ones lie inside."""
    mn, mx = float(minimum), float(maximum)
    if mn == mx:
        mn -= 0.001 * abs(mn) if mn != 0 else 0.001
        mx += 0.001 * abs(mx) if mx != 0 else 0.001
    edges = np.linspace(mn, mx, bins + 1, endpoint=True)
    return tuple(float(e) for e in edges[1:-1])


def _mean_right(cells: Cells, only_matched: bool) -> float:
    """The real rows' mean share of right synthetic rows with their key (over the rows
    whose key the synthetic table has, or over every row); NaN when there is none."""
    c = cells.per_profile(cells.avatars)[cells.profile]
    matched = c > 0
    share = np.where(matched, cells.avatars / np.where(matched, c, 1), 0.0)
    weights = cells.people * matched if only_matched else cells.people
    count = float(np.sum(weights))
    return float(np.sum(cells.people * share)) / count if count else math.nan


def categorical_cap(cells: Cells) -> float:
    """SDMetrics' CategoricalCAP: 1 - the mean share over matched real rows (NaN: none)."""
    return 1.0 - _mean_right(cells, only_matched=True)


def categorical_zero_cap(cells: Cells) -> float:
    """SDMetrics' CategoricalZeroCAP: 1 - the mean share over every real row."""
    return 1.0 - _mean_right(cells, only_matched=False)


@dataclass(frozen=True)
class DisclosureProtection:
    """SDMetrics' DisclosureProtection breakdown (computation method ``cap``)."""

    score: float
    cap_protection: float
    baseline_protection: float


def disclosure_protection(cells: Cells) -> DisclosureProtection:
    """From cells over the cut, null-filled columns: CategoricalCAP over the baseline
    ``1 - 1 / (sensitive categories among the real rows)``, capped at 1 (NaN when the
    baseline is 0, or CAP undefined)."""
    categories = int(np.count_nonzero(cells.per_class(cells.people)))
    baseline = 1.0 - 1.0 / categories if categories else math.nan
    cap = categorical_cap(cells)
    score = math.nan if baseline == 0 or math.isnan(cap) else min(cap / baseline, 1.0)
    return DisclosureProtection(score, cap, baseline)
