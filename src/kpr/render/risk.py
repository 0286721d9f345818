"""Where the risk concentrates, as data the report draws and tabulates.

Pure polars and no matplotlib, so it can be tested (and reused) without the
``report`` extra. Labels here are plain text: the HTML layer escapes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from kpr.metric.attack import Kind
from kpr.metric.classes import interval_label
from kpr.results.analysis import AnalysisResult
from kpr.results.evaluation import KprResult

#: At most this many bars per numeric plot: beyond, adjacent classes are merged.
MAX_BARS = 60
#: Categorical plots and tables show this many values (those with the most linked).
TOP_VALUES = 15
#: Longest category label drawn in a plot (the table holds the full text).
MAX_LABEL = 32

MISSING_LABEL = "(missing)"


@dataclass(frozen=True)
class Group:
    """One bar of a plot and one row of its table: a class, a run of merged
    classes, a special class (missing, ±inf, outside) or a categorical value."""

    label: str
    originals: int
    avatars: int
    unique_originals: int
    linked: int
    lower: float | None = None
    upper: float | None = None
    missing: bool = False  # a missing categorical value (shown in italics)

    @property
    def share(self) -> float:
        """Share of this group's originals linked to a unique avatar (0..1)."""
        return self.linked / self.originals if self.originals else 0.0


@dataclass(frozen=True)
class VariableRisk:
    """What the report shows for one known variable."""

    name: str
    kind: Kind
    groups: list[Group]  # plotted: regular classes (numeric) or top values (categorical)
    special: list[Group]  # numeric only: missing, ±inf, outside U's range
    rest: Group | None  # categorical only: the values not shown, summed
    values: int  # number of classes or values holding anyone
    merged: int  # classes per bar (numeric), 1 when none are merged
    score: float | None  # unevenness of the linked over the values; None if nobody is linked
    hotspot: Group | None  # the value holding the most linked beyond its fair share
    #: one-sided p-value that the hotspot holds that many linked by chance (hypergeometric:
    #: the linked drawn at random among the originals); None without a hotspot
    hotspot_p: float | None = None


def shorten(label: str, limit: int = MAX_LABEL) -> str:
    """A label short enough for a plot axis."""
    return label if len(label) <= limit else label[: limit - 1] + "…"


def chance_of_as_many(group: Group, linked: int, n: int) -> float:
    """P(a group of ``group.originals`` individuals holds at least ``group.linked`` of the
    ``linked``, were the linked drawn at random among the ``n`` originals): the
    one-sided hypergeometric test of a hot spot.

    Summed here in log space (the first term from log-gamma, the next ones by the ratio
    of consecutive terms) rather than with ``scipy.stats.hypergeom``, whose import alone
    takes seconds, on every ``kpr evaluate``; the tests compare the two."""
    k, draws = group.linked, group.originals
    top = min(linked, draws)
    if k <= max(0, draws + linked - n):
        return 1.0
    if k > top:
        return 0.0

    def log_comb(a: int, b: int) -> float:
        return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)

    first = log_comb(linked, k) + log_comb(n - linked, draws - k) - log_comb(n, draws)
    x = np.arange(k, top, dtype=np.float64)  # term x+1 = term x * ratio(x)
    ratios = (linked - x) * (draws - x) / ((x + 1.0) * (n - linked - draws + x + 1.0))
    logs = first + np.concatenate(([0.0], np.cumsum(np.log(ratios))))
    peak = float(logs.max())
    return float(min(1.0, math.exp(peak) * float(np.exp(logs - peak).sum())))


def _score(
    table: pl.DataFrame, labels: list[Group], linked: int, n: int
) -> tuple[float | None, Group | None, float | None]:
    """Total variation distance between how the linked and how all originals
    spread over the values, the value with the most linked beyond its share, and
    the chance of that many linked in it (see :func:`chance_of_as_many`)."""
    if linked == 0 or n == 0:
        return None, None, None
    originals = table["originals"].to_list()
    linked_per = table["linked"].to_list()
    excess = [lk - o * linked / n for o, lk in zip(originals, linked_per, strict=True)]
    score = sum(max(0.0, e) for e in excess) / linked
    best = labels[max(range(len(excess)), key=lambda i: excess[i])]
    return score, best, chance_of_as_many(best, linked, n)


def _group(label: str, row: dict[str, Any], **extra: Any) -> Group:
    """A Group from one row of ``by_class`` (or of its merged version)."""
    return Group(
        label,
        originals=int(row["originals"]),
        avatars=int(row["avatars"]),
        unique_originals=int(row["unique_originals"]),
        linked=int(row["linked"]),
        **extra,
    )


def numeric_risk(result: KprResult, name: str) -> VariableRisk:
    """Classes of a numeric variable, merged into at most MAX_BARS bars."""
    info = result.variables[name]
    width = info.width if info.width is not None else 1.0
    date = info.kind is Kind.DATE
    table = result.class_table(name)
    rows = table.to_dicts()
    raw: list[Group] = []
    for row in rows:
        if row["special"] is not None:
            raw.append(_group(str(row["special"]), row))
        else:
            lower, upper = float(row["lower"]), float(row["upper"])
            label = interval_label(lower, upper, width, date)
            raw.append(_group(label, row, lower=lower, upper=upper))
    score, hotspot, p = _score(table, raw, result.linked, result.n)
    special = [g for g in raw if g.lower is None]
    regular = table.filter(pl.col("special").is_null())
    merged = 1
    groups: list[Group] = []
    if regular.height:
        first, last = int(regular["class"].min()), int(regular["class"].max())  # type: ignore[arg-type]
        merged = max(1, math.ceil((last - first + 1) / MAX_BARS))
        grouped = (
            regular.with_columns(((pl.col("class") - first) // merged).alias("_group"))
            .group_by("_group")
            .agg(
                pl.col("originals", "avatars", "unique_originals", "linked").sum(),
                pl.col("lower").min(),
                pl.col("upper").max(),
            )
            .sort("_group")
        )
        for row in grouped.to_dicts():
            lower, upper = float(row["lower"]), float(row["upper"])
            label = interval_label(lower, upper, width, date)
            groups.append(_group(label, row, lower=lower, upper=upper))
    return VariableRisk(
        name, Kind.NUMERIC, groups, special, None, len(rows), merged, score, hotspot, p
    )


def categorical_risk(result: KprResult, name: str, top: int = TOP_VALUES) -> VariableRisk:
    """Values of a categorical variable, those with the most linked first."""
    table = result.class_table(name)
    values = table.to_series(0).to_list()
    rows = table.to_dicts()
    raw = [
        _group(MISSING_LABEL if v is None else str(v), row, missing=v is None)
        for v, row in zip(values, rows, strict=True)
    ]
    score, hotspot, p = _score(table, raw, result.linked, result.n)
    ordered = sorted(raw, key=lambda g: (-g.linked, -g.originals, g.label))
    shown, hidden = ordered[:top], ordered[top:]
    rest = None
    if hidden:
        rest = Group(
            f"{len(hidden)} other value{'s' if len(hidden) != 1 else ''}",
            originals=sum(g.originals for g in hidden),
            avatars=sum(g.avatars for g in hidden),
            unique_originals=sum(g.unique_originals for g in hidden),
            linked=sum(g.linked for g in hidden),
        )
    return VariableRisk(name, Kind.CATEGORICAL, shown, [], rest, len(raw), 1, score, hotspot, p)


def variable_risk(result: KprResult, name: str) -> VariableRisk:
    """The risk view of one known variable, by its kind."""
    if result.variables[name].kind.binned:
        return numeric_risk(result, name)
    return categorical_risk(result, name)


def drivers(risks: list[VariableRisk]) -> list[VariableRisk]:
    """Known variables ranked by how unevenly the linked spread over their values."""
    scored = [r for r in risks if r.score is not None]
    return sorted(scored, key=lambda r: -(r.score or 0.0))


#: At most this many variables are named by the advice.
ADVICE_VARIABLES = 3
#: A hot spot is named when its p-value, times the number of classes looked at
#: (Bonferroni), is at most this.
HOTSPOT_LEVEL = 0.05


def significant_hotspots(risks: list[VariableRisk]) -> tuple[list[VariableRisk], int]:
    """The variables whose hot spot holds more linked than chance explains, after a
    Bonferroni correction over every class of every variable looked at (a hot spot is
    the most linked class of its variable, so every class was a candidate); riskiest
    first. Also returns that number of classes."""
    scored = drivers(risks)
    classes = sum(r.values for r in scored)
    found = [
        r
        for r in scored
        if r.hotspot is not None
        and r.hotspot_p is not None
        and r.hotspot_p * classes <= HOTSPOT_LEVEL
    ]
    return found, classes


#: The advice on k, given only for kpr's own avatars (a pairing or an explicit flag).
ADVICE_K = (
    "These avatars come from kpr's generator: a larger k mixes more neighbours into each "
    "avatar, but whether it raises the rate on this data is to be measured, not assumed: "
    "run kpr sweep over several k and read the KPR of each."
)
#: What to do about the variables that drive the risk, whatever made the table.
ADVICE_ACT = (
    "To protect them: coarsen {names} (wider classes, rare values grouped) before release, "
    "change the fewest avatar values that reach a target rate (kpr protect, verified by a "
    "fresh evaluation), or generate the synthetic table again; then evaluate again."
)


#: A handful: at most this many linked individuals, and under 1 % of n.
FEW_LINKED = 20


def few_linked(linked: int, n: int) -> bool:
    """Whether so few are linked that changing whole variables would be out of proportion."""
    return 0 < linked <= FEW_LINKED and 100.0 * linked < n


#: How to list the linked individuals, from evaluate and from analyze (which has no
#: --linked-out of its own).
LIST_FROM_EVALUATE = "--linked-out, linked_individuals()"
LIST_FROM_ANALYZE = "kpr evaluate with these --known and --linked-out"


def advice_for_few(linked: int, n: int, listing: str = LIST_FROM_EVALUATE) -> str:
    """The advice when a handful are linked: look at them, not at whole variables."""
    return (
        f"Only {linked:,} of {n:,} individuals are linked ({100.0 * linked / n:.2f} %): "
        f"coarsening whole variables would cost every row for them; list them ({listing}) "
        "and suppress or group their rare values, or accept the risk "
        "if their number and the correct links are acceptable for this release."
    )


def advice(result: KprResult, risks: list[VariableRisk] | None, kpr_avatars: bool) -> list[str]:
    """What to do next, from the evidence of this result: the values that hold the
    most linked individuals beyond their share, and (for kpr's avatars only) k."""
    if result.linked == 0:
        out = ["Nobody is linked by this attack: nothing to fix for it; other known variables "
               "may still single people out (kpr analyze --candidates)."]  # fmt: skip
    elif few_linked(result.linked, result.n):
        out = [advice_for_few(result.linked, result.n)]
    else:
        found, classes = significant_hotspots(risks or [])
        ranked = found[:ADVICE_VARIABLES]
        overall = 100.0 * result.linked / result.n
        test = (
            f"one-sided hypergeometric test, Bonferroni over the {classes:,} classes looked "
            f"at, {HOTSPOT_LEVEL * 100:g} % level"
        )
        out = []
        if ranked:
            spots = "; ".join(
                f"{r.name} {r.hotspot.label}: {r.hotspot.linked:,} of "
                f"{r.hotspot.originals:,} linked (p = {r.hotspot_p:.2g})"
                for r in ranked
                if r.hotspot is not None and r.hotspot_p is not None
            )
            out.append(
                f"The linked individuals concentrate in: {spots}; {overall:.2f} % are linked "
                f"overall ({test})."
            )
            out.append(ADVICE_ACT.format(names=", ".join(r.name for r in ranked)))
        else:
            if risks:
                out.append(
                    "No class holds more linked individuals than chance explains "
                    f"({overall:.2f} % linked overall; {test})."
                )
            out.append(ADVICE_ACT.format(names="the known variables"))
    if kpr_avatars:
        out.append(ADVICE_K)
    return out


def analysis_advice(result: AnalysisResult, kpr_avatars: bool) -> list[str]:
    """What to do next, from the analysis: the variables whose knowledge lowers the
    rate most (with a sweep), and (for kpr's avatars only) k."""
    out: list[str] = []
    s = result.sweep
    if result.attack.linked == 0:
        out.append("Nobody is linked by this attack: nothing to fix for it.")
    elif few_linked(result.attack.linked, result.attack.n):
        out.append(advice_for_few(result.attack.linked, result.attack.n, LIST_FROM_ANALYZE))
    elif s is not None and s.contributions:
        top = [c for c in s.contributions if c.mean_decrease > 0][:ADVICE_VARIABLES]
        if top:
            named = "; ".join(
                f"{c.variable} (by {c.mean_decrease:.2f} points on average)" for c in top
            )
            out.append(f"The variables whose knowledge lowers the rate most: {named}.")
            out.append(ADVICE_ACT.format(names=", ".join(c.variable for c in top)))
    else:
        out.append(
            "Sweep over candidate known variables (--candidates) to see which ones drive the "
            "risk; kpr evaluate --report shows the values holding the most linked individuals."
        )
    if kpr_avatars:
        out.append(ADVICE_K)
    return out
