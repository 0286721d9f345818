"""What ``kpr tune`` (``kpr.avatar.tune``) decides: the stated criteria, whether each k
of the sweep meets each of them, and the k chosen, the most useful of those meeting
all. Plain data with the sentences that explain it; the sweep itself is a
:class:`~kpr.results.ksweep.KSweepResult`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from kpr.results import json, views
from kpr.results.ksweep import KSweepResult, ks_text, trend
from kpr.results.ksweep_rows import SweepRow
from kpr.results.rates import format_rate

#: The Avatar paper deems a median local cloaking above about 5 protective.
DEFAULT_MIN_CLOAKING = 5.0
#: Control minus original KPR, in points: the interval's high end must lie below it. On the
#: demo (8,561 controls) a difference near 0 has an interval reaching +1.2 to +1.5 points
#: over three repeats, so 2 passes a synthesis that adds nothing measurable, and refuses
#: an excess like the one issue 19 found on ACS data (+2.19 to +4.64 points).
DEFAULT_MAX_CONTROL_DIFFERENCE = 2.0

#: The criteria a k must meet, in the order the reports show them.
CRITERIA = ("kpr", "control", "cloaking")


@dataclass(frozen=True)
class TuneCriteria:
    """What ``tune`` requires of a k; among the ks meeting all, the highest utility
    (SDMetrics' overall quality score) wins.

    * ``target``: the KPR lower bound (the worst repeat's) reaches this percentage;
    * ``max_control_difference``: the interval of control minus original KPR at the same
      size (the envelope over the repeats) lies entirely below this many points, i.e. the
      synthesis adds less risk than that over what the population alone gives; checked
      only with a control (``None`` per k otherwise);
    * ``min_cloaking``: the median local cloaking of every repeat is at least this.
    """

    target: float
    max_control_difference: float = DEFAULT_MAX_CONTROL_DIFFERENCE
    min_cloaking: float = DEFAULT_MIN_CLOAKING

    def check(self, row: SweepRow) -> dict[str, bool | None]:
        """Each criterion met (True), not (False) or not measured (None) at this k."""
        span = row.control_difference_interval
        return {
            "kpr": row.low >= self.target,
            "control": None if span is None else span[1] < self.max_control_difference,
            "cloaking": row.median_local_cloaking_min >= self.min_cloaking,
        }

    def sentences(self, confidence: float) -> dict[str, str]:
        """Each criterion stated in words."""
        conf = f"{confidence * 100:g} %"
        return {
            "kpr": f"KPR lower bound ({conf} interval, worst repeat) at least {self.target:g} %",
            "control": "control minus original KPR at the same size: its interval entirely "
            f"below {self.max_control_difference:+g} points",
            "cloaking": f"median local cloaking at least {self.min_cloaking:g} (every repeat)",
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "max_control_difference": self.max_control_difference,
            "min_cloaking": self.min_cloaking,
            "utility": "overall",
        }


def _utility_key(row: SweepRow) -> tuple[float, int]:
    """Higher overall quality first; an undefined score last; ties to the smaller k."""
    score = row.overall
    return (score if math.isfinite(score) else -math.inf, -row.k)


@dataclass
class TuneResult(json.JsonResult, views.Page):
    """What :func:`kpr.avatar.tune` found: every k of ``ks`` evaluated, which criteria
    each meets, and the chosen k (None when no k meets all); its page (``to_html``)
    shows the criteria per k and privacy against utility."""

    criteria: TuneCriteria
    sweep: KSweepResult
    ks: tuple[int, ...]  #: every k it was asked to try

    @property
    def target(self) -> float:
        return self.criteria.target

    def checks(self, row: SweepRow) -> dict[str, bool | None]:
        """The criteria at one k (:meth:`TuneCriteria.check`)."""
        return self.criteria.check(row)

    def meets_all(self, row: SweepRow) -> bool:
        """Every measured criterion met (the control one counts only with a control)."""
        return all(met is not False for met in self.checks(row).values())

    @property
    def eligible(self) -> list[SweepRow]:
        """The ks meeting every criterion, in increasing k."""
        return [r for r in self.sweep.rows if self.meets_all(r)]

    @property
    def k(self) -> int | None:
        """The most useful k (highest overall quality) among those meeting every criterion."""
        rows = self.eligible
        return max(rows, key=_utility_key).k if rows else None

    @property
    def reached(self) -> bool:
        return self.k is not None

    @property
    def row(self) -> SweepRow | None:
        """The chosen k's row (None when no k meets every criterion)."""
        return None if self.k is None else self.sweep.row(self.k)

    @property
    def best(self) -> SweepRow:
        """The evaluated k with the highest KPR lower bound."""
        return max(self.sweep.rows, key=lambda r: r.low)

    @property
    def plateau(self) -> bool:
        """The KPR stopped rising measurably: the largest evaluated k's interval does not
        lie above the previous k's (False with fewer than two ks)."""
        rows = self.sweep.rows
        if len(rows) < 2:
            return False
        return trend(rows[-2], rows[-1]) != "rises"

    def meeting(self, criterion: str) -> list[int]:
        """The ks meeting one criterion."""
        return [r.k for r in self.sweep.rows if self.checks(r)[criterion]]

    @property
    def message(self) -> str:
        """The choice and why, or, when no k meets every criterion, which fail and what to try."""
        row = self.row
        if row is not None:
            others = [r.k for r in self.eligible if r.k != row.k]
            among = f" (also meeting them: {ks_text(others)})" if others else ""
            low, high = row.interval
            return (
                f"k = {row.k} meets every criterion and is the most useful of the ks that do"
                f"{among}: quality {row.overall:.3f}, KPR {format_rate(row.kpr)} ({low:.2f} to "
                f"{high:.2f} %), median local cloaking {row.median_local_cloaking_min:g}"
                + self._control_words(row)
                + "."
            )
        advice = [self._kpr_advice()] if not self.meeting("kpr") else []
        if self.sweep.has_control and not self.meeting("control"):
            advice.append(
                "the synthesis adds risk over what the population alone gives at every k "
                "(the control difference's interval reaches "
                f"{self.criteria.max_control_difference:+g} points): assume fewer known "
                "variables, coarsen them, or change the avatars with kpr protect"
            )
        if not self.meeting("cloaking"):
            top = max(self.sweep.rows, key=lambda r: r.median_local_cloaking_min)
            advice.append(
                f"the median local cloaking stays below {self.criteria.min_cloaking:g} "
                f"(at most {top.median_local_cloaking_min:g}, at k = {top.k}): it grows with "
                "k, so try larger k"
            )
        if not advice:
            advice.append(
                "each criterion is met by some k but none meets them all: "
                + "; ".join(f"{c}: {ks_text(self.meeting(c)) or 'none'}" for c in self._measured)
            )
        return f"no k of {ks_text(self.ks)} meets every criterion: " + "; ".join(advice) + "."

    @property
    def _measured(self) -> list[str]:
        return [c for c in CRITERIA if c != "control" or self.sweep.has_control]

    def _control_words(self, row: SweepRow) -> str:
        span = row.control_difference_interval
        if span is None:
            return "; no control given, so the control criterion was not checked"
        return f", control minus original {span[0]:+.2f} to {span[1]:+.2f} points"

    def _kpr_advice(self) -> str:
        best = self.best
        conf = f"{self.sweep.confidence * 100:g} %"
        head = (
            f"no k reaches a KPR lower bound ({conf} interval) of {self.target:g} % (the "
            f"highest is {best.low:.2f} %, at k = {best.k})"
        )
        if self.target >= 100.0:
            return f"{head}; a lower bound is always below 100 %: aim lower, e.g. 95"
        if self.plateau:
            a, b = self.sweep.rows[-2], self.sweep.rows[-1]
            return (
                f"{head}; the KPR is not rising measurably with k (k = {a.k}: "
                f"{format_rate(a.kpr)}, k = {b.k}: {format_rate(b.kpr)}, the interval of "
                f"k = {b.k} does not lie above that of k = {a.k}), so the sweep gives no reason "
                "to expect a larger k to reach the target: assume fewer known variables, or "
                "coarsen them"
            )
        if len(self.sweep.rows) < 2:
            return f"{head}; one k cannot show a trend: try several, e.g. --ks 5,10,20,40,80"
        larger = [max(self.ks) * 2, max(self.ks) * 4]
        hint = ",".join(str(k) for k in larger if k < self.sweep.n)
        more = (
            f"try larger k (e.g. --ks {hint}; k must stay below n = {self.sweep.n:,})"
            if hint
            else f"k cannot grow much more (n = {self.sweep.n:,})"
        )
        return (
            f"{head}; the KPR was still rising measurably at the largest k (its interval lies "
            f"above the previous k's): {more}, or assume fewer known variables"
        )

    def per_k(self) -> list[dict[str, Any]]:
        """Each k's criteria, utility and whether it is the chosen one."""
        chosen = self.k
        return [
            {
                "k": r.k,
                "criteria": self.checks(r),
                "meets_all": self.meets_all(r),
                "overall": json.finite_or_none(r.overall),
                "chosen": r.k == chosen,
            }
            for r in self.sweep.rows
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "criteria": self.criteria.to_dict(),
            "criteria_sentences": self.criteria.sentences(self.sweep.confidence),
            "reached": self.reached,
            "k": self.k,
            "row": None if self.row is None else self.row.to_dict(),
            "per_k": self.per_k(),
            "highest_low": self.best.low,
            "highest_low_k": self.best.k,
            "plateau": self.plateau,
            "message": self.message,
            "ks": list(self.ks),
            "evaluated": self.sweep.ks,
            "search": "every k evaluated; the chosen k has the highest overall quality among "
            "the ks meeting every criterion (ties: the smaller k)",
            "sweep": self.sweep.to_dict(),
        }
