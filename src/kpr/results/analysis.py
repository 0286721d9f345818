"""What the attacker-knowledge analysis returns: plain data, each part with the
one sentence that explains it, and ``to_dict()`` for JSON and the HTML report."""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from kpr.metric.interval import (
    DEFAULT_CONFIDENCE,
    kpr_interval,
    share_difference_interval,
    share_interval,
    z_value,
)
from kpr.notices import warnings_json
from kpr.results import json, views
from kpr.results.evaluation import claims_sentence, format_rate, protection_rate

Method = Literal["bins", "window"]
METHODS: tuple[Method, ...] = ("bins", "window")

EXPLAIN_INTERVAL = (
    "The {conf:g} % interval (Wilson score) treats each of the n original individuals as a "
    "trial that the attack links or not: it measures sampling noise, not the choice of "
    "known variables."
)
EXPLAIN_METHOD = {
    "bins": "Numeric values approach when they fall in the same class of width "
    "tolerance * |mean| (the specified KPR).",
    "window": "Numeric values approach when they lie within ± tolerance * |mean| of the "
    "individual's value (the source's wording, without classes).",
}
EXPLAIN_WORST = (
    "Publishing the original table itself would leave {rate} protected against the same "
    "attack: a reference point for the avatars' {avatars}."
)
EXPLAIN_CONTROL = (
    "Control individuals were not used to make the avatars, so their rate ({control} at "
    "{size:,} rows) shows what the population structure alone gives any attacker; the "
    "difference at the same size, {diff:+.2f} points, is the part of the risk the synthesis "
    "itself creates for the people it was trained on."
)
EXPLAIN_SUBSETS = (
    " The rate depends on the table's size, so the {side} is compared through {count} random "
    "subsets of that size, each its own attack, averaged; the interval includes their spread."
)
EXPLAIN_CURVE = (
    "The rate at each tolerance; it need not be monotonic, because a wider tolerance both "
    "merges unique avatars into duplicates and brings more individuals within reach."
)
EXPLAIN_SWEEP = (
    "Each subset of the candidate variables is its own attack (U and the classes are "
    "recomputed for it); riskiest first, i.e. lowest rate."
)
EXPLAIN_CONTRIBUTION = (
    "How much, on average, adding the variable to a smaller set of known variables lowers "
    "the rate, in percentage points (averaged over every subset without it that stays "
    "within the size limit, the empty set counting as 100 %)."
)


@dataclass(frozen=True)
class AttackRate:
    """The outcome of one attack: counts, the rate and its interval."""

    known: tuple[str, ...]
    tolerance: float
    method: Method
    n: int
    n_avatars: int
    unique_originals: int
    linked: int
    confidence: float = DEFAULT_CONFIDENCE

    @property
    def rate(self) -> float:
        """KPR in percent, computed exactly as ``kpr.evaluate`` does."""
        return protection_rate(self.linked, self.n)

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson score interval of the rate, in percent (low, high)."""
        return kpr_interval(self.linked, self.n, self.confidence)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "known": list(self.known),
            "kpr": self.rate,
            "interval": {"low": low, "high": high, "confidence": self.confidence},
            "n": self.n,
            "n_avatars": self.n_avatars,
            "unique_originals": self.unique_originals,
            "linked": self.linked,
            "tolerance": self.tolerance,
            "method": self.method,
        }


@dataclass(frozen=True)
class Contribution:
    """Mean decrease of the rate when a variable is added to the attacker's knowledge."""

    variable: str
    mean_decrease: float  # percentage points; positive: the variable helps the attacker
    subsets: int  # how many subsets the mean is over

    def to_dict(self) -> dict[str, Any]:
        return {
            "variable": self.variable,
            "mean_decrease": self.mean_decrease,
            "subsets": self.subsets,
        }


@dataclass
class SweepResult:
    """Every attack of the sweep, riskiest first, and each variable's contribution."""

    candidates: tuple[str, ...]
    max_known: int
    tolerance: float
    method: Method
    entries: list[AttackRate]
    contributions: list[Contribution]

    def top(self, k: int = 10) -> list[AttackRate]:
        """The ``k`` riskiest subsets."""
        return self.entries[:k]

    def rate_of(self, known: tuple[str, ...] | list[str]) -> AttackRate:
        """The entry of one subset (names in any order)."""
        wanted = frozenset(known)
        for entry in self.entries:
            if frozenset(entry.known) == wanted:
                return entry
        raise KeyError(f"{sorted(wanted)} is not a subset of this sweep")

    def to_dict(self) -> dict[str, Any]:
        return {
            "candidates": list(self.candidates),
            "max_known": self.max_known,
            "tolerance": self.tolerance,
            "method": self.method,
            "attacks": len(self.entries),
            "explanation": EXPLAIN_SWEEP,
            "entries": [e.to_dict() for e in self.entries],
            "contributions": [c.to_dict() for c in self.contributions],
            "contributions_explanation": EXPLAIN_CONTRIBUTION,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent)


@dataclass(frozen=True)
class ControlComparison:
    """The same attack on the training individuals and on a control group, compared
    at the same size.

    The rate depends on n (a smaller table has more unique records), so the
    larger side is compared through ``subsets``: random subsets of the smaller
    side's size, each its own attack (U and classes recomputed), whose linked
    shares are averaged. The difference's interval is Newcombe's, at that size,
    widened by the Monte Carlo error of the average (z * spread / sqrt(subsets)).
    ``original`` and ``control`` stay the attacks on the full tables.
    """

    original: AttackRate
    control: AttackRate
    subsets: tuple[AttackRate, ...] = ()  # attacks on subsets of the larger side
    subsampled: Literal["original", "control"] | None = None  # which side they come from
    shared_rows: int = 0  # control rows whose known values equal an original row's
    seed: int = 0

    @property
    def size(self) -> int:
        """The size both sides are compared at: the smaller side's."""
        return min(self.original.n, self.control.n)

    def _share(self, side: Literal["original", "control"]) -> float:
        if self.subsampled == side and self.subsets:
            return statistics.fmean(s.linked / s.n for s in self.subsets)
        rate = self.original if side == "original" else self.control
        return rate.linked / rate.n

    @property
    def original_share(self) -> float:
        """The original's linked share at the compared size (attack success)."""
        return self._share("original")

    @property
    def control_share(self) -> float:
        """The control's linked share at the compared size (control success)."""
        return self._share("control")

    @property
    def subset_spread(self) -> float:
        """Standard deviation of the subsets' linked shares (0 without subsets)."""
        if len(self.subsets) < 2:
            return 0.0
        return statistics.stdev(s.linked / s.n for s in self.subsets)

    def _monte_carlo(self) -> float:
        """Uncertainty of the subsets' average, as a share at the interval's confidence."""
        if len(self.subsets) < 2:
            return 0.0
        z = z_value(self.original.confidence)
        return z * self.subset_spread / math.sqrt(len(self.subsets))

    @property
    def original_rate(self) -> float:
        """KPR of the original at the compared size, in percent."""
        return 100.0 * (1.0 - self.original_share)

    @property
    def control_rate(self) -> float:
        """KPR of the control at the compared size, in percent."""
        return 100.0 * (1.0 - self.control_share)

    @property
    def difference(self) -> float:
        """Control rate minus original rate at the same size, in points: the risk the
        synthesis adds for the individuals it was trained on."""
        return self.control_rate - self.original_rate

    @property
    def difference_interval(self) -> tuple[float, float]:
        """Interval of ``difference`` in points (see the class docstring)."""
        return share_difference_interval(
            self.original_share, self.size, self.control_share, self.size,
            self.original.confidence, extra=self._monte_carlo(),
        )  # fmt: skip

    @property
    def residual_risk(self) -> float | None:
        """anonymeter's residual risk, (attack - control) / (1 - control), with the
        linked shares at the compared size as the success rates; None when every
        control individual is linked."""
        p_o, p_c = self.original_share, self.control_share
        return None if p_c >= 1.0 else (p_o - p_c) / (1.0 - p_c)

    @property
    def residual_risk_interval(self) -> tuple[float, float] | None:
        """Its interval, propagated from the two sides' Wilson half-widths (and the
        subsets' Monte Carlo error) as anonymeter propagates its errors."""
        risk = self.residual_risk
        if risk is None:
            return None
        conf = self.original.confidence
        p_o, p_c = self.original_share, self.control_share
        lo_o, hi_o = share_interval(p_o, self.size, conf)
        lo_c, hi_c = share_interval(p_c, self.size, conf)
        err_o = math.hypot((hi_o - lo_o) / 2.0, self._monte_carlo())
        err_c = (hi_c - lo_c) / 2.0
        error = math.hypot(err_o / (1.0 - p_c), err_c * (1.0 - p_o) / (1.0 - p_c) ** 2)
        return risk - error, risk + error

    @property
    def shared_share(self) -> float:
        """Share of the control's rows whose known values equal an original row's."""
        return self.shared_rows / self.control.n

    @property
    def explanation(self) -> str:
        text = EXPLAIN_CONTROL.format(
            size=self.size, control=format_rate(self.control_rate), diff=self.difference
        )
        if self.subsampled is not None:
            text += EXPLAIN_SUBSETS.format(count=len(self.subsets), side=self.subsampled)
        low, high = self.difference_interval
        if low <= 0.0 <= high:
            text += " Its interval includes 0: no measurable risk is added by the synthesis."
        return text

    def summary_lines(self) -> list[str]:
        """The comparison as a few lines of plain text (the CLI and the reports show them)."""
        conf = f"{self.original.confidence * 100:g} %"
        low, high = self.difference_interval
        drawn = (
            f" ({len(self.subsets)} random subsets of the {self.subsampled}, seed {self.seed})"
            if self.subsets
            else ""
        )
        lines = [
            f"control individuals {format_rate(self.control.rate)} (n {self.control.n:,}, "
            f"linked {self.control.linked:,}); rows shared with the original: "
            f"{self.shared_rows:,} ({100 * self.shared_share:.1f} %)",
            f"compared at n = {self.size:,}: original {format_rate(self.original_rate)}, "
            f"control {format_rate(self.control_rate)}{drawn}",
            f"control minus original: {self.difference:+.2f} points ({conf} CI "
            f"{low:+.2f} to {high:+.2f})",
        ]
        risk, interval = self.residual_risk, self.residual_risk_interval
        if risk is not None and interval is not None:
            lines.append(
                f"residual risk (anonymeter's (attack - control) / (1 - control)): "
                f"{risk:+.4f} ({conf} CI {interval[0]:+.4f} to {interval[1]:+.4f})"
            )
        return [*lines, self.explanation]

    def to_dict(self) -> dict[str, Any]:
        low, high = self.difference_interval
        risk_interval = self.residual_risk_interval
        return {
            "original": self.original.to_dict(),
            "control": self.control.to_dict(),
            "compared_at_size": self.size,
            "subsampled": self.subsampled,
            "subsets": len(self.subsets),
            "seed": self.seed,
            "subset_spread": self.subset_spread,
            "original_kpr_at_size": self.original_rate,
            "control_kpr_at_size": self.control_rate,
            "difference": self.difference,
            "difference_interval": {
                "low": low,
                "high": high,
                "confidence": self.original.confidence,
            },
            "residual_risk": self.residual_risk,
            "residual_risk_interval": None
            if risk_interval is None
            else {
                "low": risk_interval[0],
                "high": risk_interval[1],
                "confidence": self.original.confidence,
            },
            "shared_rows": self.shared_rows,
            "shared_share": self.shared_share,
            "explanation": self.explanation,
        }


@dataclass
class AnalysisResult:
    """One attack examined from every side: its interval, the baselines, the
    tolerance curve and (optionally) the sweep over subsets of candidates."""

    attack: AttackRate
    worst_case: AttackRate
    tolerance_curve: list[AttackRate]
    control: ControlComparison | None = None
    sweep: SweepResult | None = None
    warnings: list[str] = field(default_factory=list)
    #: linked individuals whose unique avatar is their own (with a pairing)
    correct_links: int | None = None

    @property
    def reidentification_rate(self) -> float | None:
        """100 * correct links / n (with a pairing)."""
        return None if self.correct_links is None else 100.0 * self.correct_links / self.attack.n

    @property
    def claims(self) -> str:
        """'The attacker can claim X links; Y are right.'"""
        return claims_sentence(self.attack.linked, self.correct_links, self.attack.n)

    @property
    def worst_case_explanation(self) -> str:
        return EXPLAIN_WORST.format(
            rate=format_rate(self.worst_case.rate), avatars=format_rate(self.attack.rate)
        )

    def to_dict(self) -> dict[str, Any]:
        a = self.attack
        return {
            "known": list(a.known),
            "method": a.method,
            "method_explanation": EXPLAIN_METHOD[a.method],
            "tolerance": a.tolerance,
            "attack": a.to_dict(),
            "interval_explanation": EXPLAIN_INTERVAL.format(conf=a.confidence * 100),
            "worst_case": {
                **self.worst_case.to_dict(),
                "difference": a.rate - self.worst_case.rate,
                "explanation": self.worst_case_explanation,
            },
            "control": None if self.control is None else self.control.to_dict(),
            "tolerance_curve": {
                "points": [p.to_dict() for p in self.tolerance_curve],
                "explanation": EXPLAIN_CURVE,
            },
            "sweep": None if self.sweep is None else self.sweep.to_dict(),
            "correct_links": self.correct_links,
            "reidentification_rate": self.reidentification_rate,
            "claims": self.claims,
            "warnings": warnings_json(self.warnings),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent)

    @overload
    def to_html(
        self,
        path: None = None,
        *,
        top: int = 10,
        inputs: Sequence[str] | None = None,
        kpr_avatars: bool = False,
    ) -> str: ...

    @overload
    def to_html(
        self,
        path: str | os.PathLike[str],
        *,
        top: int = 10,
        inputs: Sequence[str] | None = None,
        kpr_avatars: bool = False,
    ) -> Path: ...

    def to_html(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        top: int = 10,
        inputs: Sequence[str] | None = None,
        kpr_avatars: bool = False,
    ) -> str | Path:
        """The self-contained HTML report (needs ``pip install 'kpr[report]'``).

        Without ``path``, return the document; with it, write it atomically and
        return the path. ``top`` is how many of the riskiest subsets to show;
        ``inputs`` labels the original, the avatar and (optionally) the control
        tables; ``kpr_avatars`` says kpr's generator made the avatars (then, and with
        a pairing, the advice speaks of k).
        """
        return views.to_html(self, path, top=top, inputs=inputs, kpr_avatars=kpr_avatars)

    def _repr_html_(self) -> str:
        """Jupyter's view: the attack, its baselines, the riskiest subsets (no plots)."""
        return views.repr_html(self)
