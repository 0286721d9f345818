"""What ``kpr.membership`` returns: whether an attacker holding the avatars can tell
the people used to make them (members) from people of the same population who were
not (non-members), by the histogram DOMIAS score on class profiles.

Plain data, the sentence that explains it, ``to_dict()``; the figures come from
``kpr.metric.membership``, the page from ``kpr.render.membership`` (looked up in
``kpr.results.views``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import polars as pl

from kpr.metric.forwarded import Forwarded
from kpr.metric.membership import Figures
from kpr.notices import warnings_json
from kpr.results.json import JsonResult
from kpr.results.views import Page


def percent(x: float, digits: int = 1) -> str:
    """A share as a percentage, e.g. ``1.4 %``."""
    return f"{100 * x:.{digits}f} %"


def fpr_text(fpr: Fraction) -> str:
    """1/100 as ``1 %``, 1/1000 as ``0.1 %``."""
    return f"{100 * fpr.numerator / fpr.denominator:g} %"


@dataclass(frozen=True)
class TprPoint:
    """The TPR at one FPR, with its bootstrap interval; ``tpr`` is None when the FPR is
    below the resolution (``reason`` says why)."""

    fpr: Fraction
    tpr: float | None
    interval: tuple[float, float] | None
    flagged: float  # non-members flagged at this FPR (FPR x non-members)
    reason: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "fpr": self.fpr.numerator / self.fpr.denominator,
            "tpr": self.tpr,
            "interval": None
            if self.interval is None
            else {"low": self.interval[0], "high": self.interval[1]},
            "available": self.tpr is not None,
            "reason": self.reason,
        }


def not_available(fpr: Fraction, non_members: int) -> str:
    """Why the non-members cannot show an FPR this low, and the holdout that could."""
    return (
        f"an FPR of {fpr_text(fpr)} is below the resolution: the {non_members:,} non-members "
        f"can show no FPR under 1/{non_members:,} ({percent(1 / max(non_members, 1), 3)}); "
        f"give a holdout of at least {2 * fpr.denominator:,} rows"
    )


@dataclass(frozen=True, eq=False)
class MembershipResult(Page, JsonResult):
    """The membership attack on class profiles (histogram DOMIAS).

    ``columns``: the columns of the class profile; ``figures``: what the
    attack measured (the drawn sets, the score levels, the
    AUC, the TPR at each FPR and their bootstrap intervals); ``shared_rows``: holdout
    rows equal to an original row (compared by value), beside ``original_repeats``:
    original rows equal to another original row."""

    columns: tuple[str, ...]
    tolerance: float
    seed: int
    replicates: int
    confidence: float
    figures: Figures
    shared_rows: int = 0
    original_repeats: int = 0
    warnings: tuple[str, ...] = ()

    n_original = Forwarded[int]("figures")
    n_avatars = Forwarded[int]("figures")
    n_holdout = Forwarded[int]("figures")
    reference_size = Forwarded[int](
        "figures", "|R|: the half of the holdout whose profiles stand for the population."
    )
    non_members = Forwarded[int](
        "figures", "The other half of the holdout (and as many members, drawn from the original)."
    )

    @property
    def members(self) -> int:
        return self.figures.non_members

    @property
    def resolution(self) -> float:
        """The lowest FPR the non-members can show: 1 / non-members."""
        return 1.0 / self.non_members

    @property
    def auc(self) -> float:
        """The chance that a random member scores above a random non-member (ties 1/2)."""
        return self.figures.auc

    @property
    def auc_interval(self) -> tuple[float, float]:
        return self.figures.intervals.auc

    @property
    def tpr(self) -> tuple[TprPoint, ...]:
        """The TPR at each reported FPR (1 % and 0.1 %)."""
        f = self.figures
        points = zip(f.fprs, f.tpr, f.intervals.tpr, strict=True)
        return tuple(
            TprPoint(
                fpr,
                value,
                interval,
                self.non_members * fpr.numerator / fpr.denominator,
                None if value is not None else not_available(fpr, self.non_members),
            )
            for fpr, value, interval in points
        )

    @property
    def member_share_in_avatars(self) -> float:
        """Members whose class profile some avatar holds, as a share."""
        return self.figures.members_in_avatars / self.members

    @property
    def non_member_share_in_avatars(self) -> float:
        """Non-members whose class profile some avatar holds, as a share."""
        return self.figures.non_members_in_avatars / self.non_members

    def roc_curve(self) -> tuple[np.ndarray, np.ndarray]:
        """The ROC curve's corners (FPR, TPR), ties as straight segments between them."""
        from kpr.metric.membership import roc_curve

        return roc_curve(self.figures.levels.members, self.figures.levels.non_members)

    def score_table(self) -> pl.DataFrame:
        """One row per distinct score, highest first: the members and non-members at it."""
        lv = self.figures.levels
        return pl.DataFrame(
            {
                "score": lv.scores(self.n_avatars, self.reference_size),
                "members": lv.members,
                "non_members": lv.non_members,
            }
        )

    @property
    def meaning(self) -> str:
        """What the figures say, in words generated from them."""
        low, high = self.auc_interval
        text = (
            f"Scored by how much more often the avatars hold their class profile than the "
            f"population does, a member (one of {self.members:,} people drawn from the "
            f"original) ranks above a non-member ({self.non_members:,} people of the holdout) "
            f"{percent(self.auc)} of the time (AUC {self.auc:.3f}, "
            f"{100 * self.confidence:g} % interval {low:.3f} to {high:.3f}; 0.5 is a coin "
            "toss)."
        )
        for point in self.tpr:
            if point.tpr is None or point.interval is None:
                continue
            text += (
                f" Flagging {fpr_text(point.fpr)} of the non-members ({point.flagged:,.1f} "
                f"people) flags {percent(point.tpr)} of the members ({percent(point.interval[0])}"
                f" to {percent(point.interval[1])}; a guess flags {fpr_text(point.fpr)})."
            )
        text += (
            f" {percent(self.member_share_in_avatars)} of the members have their class "
            f"profile among the avatars, against {percent(self.non_member_share_in_avatars)} "
            "of the non-members."
        )
        return text

    def to_dict(self) -> dict[str, Any]:
        f = self.figures
        return {
            "columns": list(self.columns),
            "tolerance": self.tolerance,
            "seed": self.seed,
            "replicates": self.replicates,
            "confidence": self.confidence,
            "n_original": self.n_original,
            "n_avatars": self.n_avatars,
            "n_holdout": self.n_holdout,
            "reference_size": self.reference_size,
            "members": self.members,
            "non_members": self.non_members,
            "resolution": self.resolution,
            "auc": {
                "value": self.auc,
                "interval": {"low": self.auc_interval[0], "high": self.auc_interval[1]},
            },
            "tpr_at_fpr": [p.to_dict() for p in self.tpr],
            "in_avatars": {
                "members": f.members_in_avatars,
                "non_members": f.non_members_in_avatars,
                "member_share": self.member_share_in_avatars,
                "non_member_share": self.non_member_share_in_avatars,
            },
            "scores": self.score_table().to_dicts(),
            "shared_rows": self.shared_rows,
            "original_repeats": self.original_repeats,
            "warnings": warnings_json(self.warnings),
            "meaning": self.meaning,
        }
