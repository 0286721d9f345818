"""One sweep's measurements: a run (one avatar table, one k and one seed) and a row
(every repeat at one k, with the summaries a sweep or tune reports). The sweep and
tune results gathering the rows live in :mod:`kpr.results.ksweep`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, overload

import numpy as np

from kpr.results import json
from kpr.results.control import ControlComparison, verdict
from kpr.results.distance import DistanceMetrics
from kpr.results.rates import AttackRate


def _mean(values: Iterable[float]) -> float:
    """Mean that stays NaN (instead of raising) when a metric is undefined."""
    vals = list(values)
    return float(np.mean(vals)) if vals else float("nan")


@dataclass(frozen=True)
class UtilityScores:
    """The scalar figures of ``kpr.utility`` for one avatar table (``UtilityResult.summary()``):
    SDMetrics' Quality Report (``overall``, ``column_shapes``, ``column_pair_trends``, 0-1,
    higher = more useful) and Octopize's two (``mean_hellinger``, 0-1, and
    ``correlation_difference``, in percent; lower = more useful)."""

    overall: float
    column_shapes: float
    column_pair_trends: float
    mean_hellinger: float
    correlation_difference: float

    @classmethod
    def of(cls, summary: dict[str, float | None]) -> UtilityScores:
        """From ``UtilityResult.summary()`` (None, an undefined figure, as NaN)."""
        nan = float("nan")
        values = [summary[name] for name in FIELDS]
        return cls(*(nan if v is None else float(v) for v in values))

    def to_dict(self) -> dict[str, float | None]:
        return {name: json.finite_or_none(getattr(self, name)) for name in FIELDS}


#: The utility figures, in the order the reports show them.
FIELDS = (
    "overall",
    "column_shapes",
    "column_pair_trends",
    "mean_hellinger",
    "correlation_difference",
)


@dataclass(frozen=True)
class SweepRun:
    """One avatar table, generated with one k and one seed, and what it was measured to give."""

    k: int
    seed: int
    kpr: AttackRate
    control: ControlComparison | None
    hidden_rate: float
    median_local_cloaking: float
    utility: UtilityScores
    hellinger: dict[str, float]
    seconds: float  #: generation time (avatars only, not the metrics)
    correct_links: int  #: linked individuals linked to their own avatar
    distance: DistanceMetrics

    @property
    def reidentification(self) -> float:
        """Correct links per 100 individuals."""
        return 100.0 * self.correct_links / self.kpr.n

    def to_dict(self) -> dict[str, Any]:
        low, high = self.kpr.interval
        return {
            "seed": self.seed,
            "kpr": self.kpr.rate,
            "interval": {"low": low, "high": high},
            "linked": self.kpr.linked,
            "correct_links": self.correct_links,
            "reidentification_rate": self.reidentification,
            "unique_originals": self.kpr.unique_originals,
            "control": None if self.control is None else self.control.to_dict(),
            "hidden_rate": self.hidden_rate,
            "median_local_cloaking": self.median_local_cloaking,
            "distance": self.distance.to_dict(),
            **self.utility.to_dict(),
            "hellinger": {str(c): json.finite_or_none(v) for c, v in self.hellinger.items()},
            "generation_seconds": self.seconds,
        }


class RunMean:
    """A figure of :class:`SweepRow`: the mean over its repeats of each run's figure
    at ``path`` (dotted; default: the figure's own name), NaN-safe as ``_mean``."""

    def __init__(self, path: str | None = None, doc: str | None = None) -> None:
        self.path = path
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.figure = attrgetter(self.path or name)

    @overload
    def __get__(self, row: None, owner: type | None = None) -> RunMean: ...

    @overload
    def __get__(self, row: SweepRow, owner: type | None = None) -> float: ...

    def __get__(self, row: SweepRow | None, owner: type | None = None) -> float | RunMean:
        if row is None:
            return self
        return _mean(self.figure(run) for run in row.runs)


@dataclass(frozen=True)
class SweepRow:
    """Every repeat at one k, and their summaries (means, min/max, interval envelope)."""

    k: int
    runs: tuple[SweepRun, ...]

    # the means over the repeats of each run's figure
    kpr = RunMean("kpr.rate", "Mean KPR over the repeats, in percent.")
    hidden_rate = RunMean()
    median_local_cloaking = RunMean()
    correct_links = RunMean(doc="Mean number of correct links over the repeats.")
    reidentification = RunMean(doc="Mean re-identification rate (100 x correct links / n).")
    exact_copy_percent = RunMean("distance.synthetic.exact_copy_percent")
    median_dcr = RunMean("distance.synthetic.median_dcr")
    median_nndr = RunMean("distance.synthetic.median_nndr")
    overall = RunMean(
        "utility.overall", "SDMetrics' overall quality score (0-1, higher = more useful)."
    )
    mean_hellinger = RunMean("utility.mean_hellinger")
    correlation_difference = RunMean(
        "utility.correlation_difference", "Octopize's correlation difference, in percent."
    )
    seconds = RunMean(doc="Mean generation time of one avatar table, in seconds.")

    @property
    def kpr_min(self) -> float:
        return min(r.kpr.rate for r in self.runs)

    @property
    def kpr_max(self) -> float:
        return max(r.kpr.rate for r in self.runs)

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson interval (one repeat), or the envelope of the repeats' intervals."""
        return (
            min(r.kpr.interval[0] for r in self.runs),
            max(r.kpr.interval[1] for r in self.runs),
        )

    @property
    def low(self) -> float:
        """The lower bound :func:`tune` compares with the target (the worst repeat's)."""
        return self.interval[0]

    @property
    def controls(self) -> list[ControlComparison]:
        """Each repeat's size-fair control comparison (empty without a control)."""
        return [r.control for r in self.runs if r.control is not None]

    @property
    def control_kpr(self) -> float | None:
        """Mean KPR of the control group at the compared size, None without a control."""
        controls = self.controls
        return _mean(c.control_rate for c in controls) if controls else None

    @property
    def original_kpr_at_size(self) -> float | None:
        """Mean KPR of the original at the compared size, None without a control."""
        controls = self.controls
        return _mean(c.original_rate for c in controls) if controls else None

    @property
    def control_difference(self) -> float | None:
        """Mean of the repeats' control minus original KPR at the same size, in points."""
        controls = self.controls
        return _mean(c.difference for c in controls) if controls else None

    @property
    def control_difference_interval(self) -> tuple[float, float] | None:
        """The difference's interval (one repeat), or the envelope of the repeats'."""
        spans = [c.difference_interval for c in self.controls]
        if not spans:
            return None
        return min(s[0] for s in spans), max(s[1] for s in spans)

    def control_dict(self) -> dict[str, Any] | None:
        """The comparison at this k, with the names of ``kpr.evaluate``'s ``control``
        object: means over the repeats, intervals as their envelope."""
        controls = self.controls
        diff, span = self.control_difference, self.control_difference_interval
        if not controls or diff is None or span is None:
            return None
        first, conf = controls[0], controls[0].original.confidence
        risks = [c.residual_risk for c in controls]
        risk_spans = [c.residual_risk_interval for c in controls]
        risk_span = None
        if all(s is not None for s in risk_spans):
            lows = [s[0] for s in risk_spans if s is not None]
            highs = [s[1] for s in risk_spans if s is not None]
            risk_span = {"low": min(lows), "high": max(highs), "confidence": conf}
        return {
            "compared_at_size": first.size,
            "subsampled": first.subsampled,
            "subsets": len(first.subsets),
            "seeds": [c.seed for c in controls],
            "original_kpr_at_size": self.original_kpr_at_size,
            "control_kpr_at_size": self.control_kpr,
            "difference": diff,
            "difference_interval": {"low": span[0], "high": span[1], "confidence": conf},
            "residual_risk": None
            if any(r is None for r in risks)
            else _mean(r for r in risks if r is not None),
            "residual_risk_interval": risk_span,
            "residual_risk_unclipped": None
            if any(c.residual_risk_unclipped is None for c in controls)
            else _mean(c.residual_risk_unclipped or 0.0 for c in controls),
            "shared_rows": first.shared_rows,
            "shared_share": first.shared_share,
            "original_repeats": first.original_repeats,
            "original_repeat_share": first.original_repeat_share,
            "shared_sentence": first.shared_sentence,
            "verdict": verdict(
                diff,
                span,
                first.size,
                conf,
                round(_mean(r.kpr.linked for r in self.runs)),
                round(self.correct_links),
            ),
        }

    @property
    def control_distance(self) -> dict[str, float] | None:
        """The control's own copies, DCR and NNDR (the holdout baseline), None without."""
        held = [r.distance.holdout for r in self.runs if r.distance.holdout is not None]
        if not held:
            return None
        return {
            "exact_copy_percent": _mean(h.exact_copy_percent for h in held),
            "median_dcr": _mean(h.median_dcr for h in held),
            "median_nndr": _mean(h.median_nndr for h in held),
        }

    @property
    def median_local_cloaking_min(self) -> float:
        """The lowest median local cloaking of the repeats (what tune's floor is checked on)."""
        return min(r.median_local_cloaking for r in self.runs)

    @property
    def utility(self) -> UtilityScores:
        """Each utility figure's mean over the repeats."""
        return UtilityScores(
            *(_mean(getattr(r.utility, name) for r in self.runs) for name in FIELDS)
        )

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "k": self.k,
            "kpr": self.kpr,
            "kpr_min": self.kpr_min,
            "kpr_max": self.kpr_max,
            "interval": {"low": low, "high": high},
            "control": self.control_dict(),
            "correct_links": self.correct_links,
            "reidentification_rate": self.reidentification,
            "hidden_rate": self.hidden_rate,
            "median_local_cloaking": self.median_local_cloaking,
            "exact_copy_percent": self.exact_copy_percent,
            "median_dcr": json.finite_or_none(self.median_dcr),
            "median_nndr": json.finite_or_none(self.median_nndr),
            "control_distance": self.control_distance,
            "median_local_cloaking_min": self.median_local_cloaking_min,
            **self.utility.to_dict(),
            "generation_seconds": self.seconds,
            "runs": [r.to_dict() for r in self.runs],
        }
