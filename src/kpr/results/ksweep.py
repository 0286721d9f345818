"""What a sweep over k returns (``kpr sweep``, ``kpr tune``, ``kpr.avatar.sweep``):
one run per k and seed, their summary per k, and tune's verdict. Plain data with
the sentences that explain each figure, ``to_dict()``/``to_json()``; the HTML page
lives in ``kpr.render.ksweep`` (registered through ``kpr.results.views``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np

from kpr.results import json, views
from kpr.results.analysis import AttackRate, ControlComparison
from kpr.results.distance import DistanceMetrics
from kpr.results.evaluation import format_rate

#: How the avatars were made (``kpr.avatar.generate``'s options), recorded in a sweep.
Synthesis = Literal["full", "reduced"]
Decoding = Literal["draw", "mode"]

#: Where the pairing metrics are measured, for reports.
PAIRING_SPACE = (
    "FAMD space fitted on the originals (its ncp first axes), avatars projected into it; "
    "ties count as closer"
)

EXPLAIN = {
    "kpr": "KPR: share of the original individuals for whom the attacker finds no unique "
    "approaching avatar (higher = safer); the mean over the repeats.",
    "interval": "Interval: the {conf:g} % Wilson interval of the KPR (the n individuals as "
    "trials); over several repeats, the lowest low and highest high of the repeats' "
    "intervals, so it covers the synthesis' randomness too.",
    "control": "Control: individuals not used to make the avatars, attacked through the same "
    "avatars (what the population structure alone gives an attacker), compared with the "
    "original at the smaller table's size (random subsets of the larger one, each its own "
    "attack, averaged); difference = control KPR minus original KPR at that size, the risk "
    "the synthesis adds; its interval (the envelope over the repeats) includes the subsets' "
    "spread.",
    "correct_links": "Correct links: linked individuals whose unique approaching avatar is "
    "really their own (kpr knows the pairing); re-identification rate = 100 x correct / n "
    "(lower = safer). The other linked individuals are claimed wrongly.",
    "hidden_rate": "Hidden rate: share of individuals whose own avatar is not strictly their "
    f"nearest (higher = safer); in the {PAIRING_SPACE}.",
    "median_local_cloaking": "Median local cloaking: median number of other avatars at most "
    "as far from an individual as its own avatar (ties count; higher = safer; the Avatar "
    "paper deems above ~5 protective).",
    "exact_copy_share": "Copies: share of avatars equal to a real record on every column "
    "(lower = safer).",
    "median_dcr": "DCR: median distance from an avatar to its closest original; NNDR: median "
    "ratio of closest to second-closest (near 0 = points at one real record); in the FAMD "
    "space fitted on the originals. A control with every column gives the baseline: its "
    "own figures.",
    "mean_hellinger": "Mean Hellinger: distance between each column's distribution in the "
    "original and in the avatars, averaged over columns (0 = identical, 1 = disjoint; lower "
    "= more useful).",
    "correlation_difference": "Correlation difference: mean absolute difference between the "
    "numeric columns' Pearson correlations (lower = more useful).",
}


def ks_text(ks: Sequence[int]) -> str:
    return ", ".join(str(k) for k in ks)


def _mean(values: Iterable[float]) -> float:
    """Mean that stays NaN (instead of raising) when a metric is undefined."""
    vals = list(values)
    return float(np.mean(vals)) if vals else float("nan")


@dataclass(frozen=True)
class SweepRun:
    """One avatar table, generated with one k and one seed, and what it was measured to give."""

    k: int
    seed: int
    kpr: AttackRate
    control: ControlComparison | None
    hidden_rate: float
    median_local_cloaking: float
    mean_hellinger: float
    correlation_difference: float
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
            "mean_hellinger": json.finite_or_none(self.mean_hellinger),
            "correlation_difference": json.finite_or_none(self.correlation_difference),
            "hellinger": {str(c): json.finite_or_none(v) for c, v in self.hellinger.items()},
            "generation_seconds": self.seconds,
        }


@dataclass(frozen=True)
class SweepRow:
    """Every repeat at one k, and their summaries (means, min/max, interval envelope)."""

    k: int
    runs: tuple[SweepRun, ...]

    @property
    def kpr(self) -> float:
        """Mean KPR over the repeats, in percent."""
        return _mean(r.kpr.rate for r in self.runs)

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
            "shared_rows": first.shared_rows,
            "shared_share": first.shared_share,
        }

    @property
    def hidden_rate(self) -> float:
        return _mean(r.hidden_rate for r in self.runs)

    @property
    def median_local_cloaking(self) -> float:
        return _mean(r.median_local_cloaking for r in self.runs)

    @property
    def correct_links(self) -> float:
        """Mean number of correct links over the repeats."""
        return _mean(r.correct_links for r in self.runs)

    @property
    def reidentification(self) -> float:
        """Mean re-identification rate (100 x correct links / n) over the repeats."""
        return _mean(r.reidentification for r in self.runs)

    @property
    def exact_copy_share(self) -> float:
        return _mean(r.distance.synthetic.exact_copy_share for r in self.runs)

    @property
    def median_dcr(self) -> float:
        return _mean(r.distance.synthetic.median_dcr for r in self.runs)

    @property
    def median_nndr(self) -> float:
        return _mean(r.distance.synthetic.median_nndr for r in self.runs)

    @property
    def control_distance(self) -> dict[str, float] | None:
        """The control's own copies, DCR and NNDR (the holdout baseline), None without."""
        held = [r.distance.holdout for r in self.runs if r.distance.holdout is not None]
        if not held:
            return None
        return {
            "exact_copy_share": _mean(h.exact_copy_share for h in held),
            "median_dcr": _mean(h.median_dcr for h in held),
            "median_nndr": _mean(h.median_nndr for h in held),
        }

    @property
    def mean_hellinger(self) -> float:
        return _mean(r.mean_hellinger for r in self.runs)

    @property
    def correlation_difference(self) -> float:
        return _mean(r.correlation_difference for r in self.runs)

    @property
    def seconds(self) -> float:
        """Mean generation time of one avatar table, in seconds."""
        return _mean(r.seconds for r in self.runs)

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
            "exact_copy_share": self.exact_copy_share,
            "median_dcr": json.finite_or_none(self.median_dcr),
            "median_nndr": json.finite_or_none(self.median_nndr),
            "control_distance": self.control_distance,
            "mean_hellinger": json.finite_or_none(self.mean_hellinger),
            "correlation_difference": json.finite_or_none(self.correlation_difference),
            "generation_seconds": self.seconds,
            "runs": [r.to_dict() for r in self.runs],
        }


@dataclass
class SweepOverK:
    """Privacy and utility of the avatars for each k, in increasing k."""

    known: tuple[str, ...]
    tolerance: float
    ncp: int
    seed: int
    repeats: int
    synthesis: Synthesis
    confidence: float
    n: int
    rows: list[SweepRow] = field(default_factory=list)
    inputs: dict[str, str] = field(default_factory=dict)  #: labels of the tables, for reports
    decoding: Decoding = "draw"
    roles: dict[str, Any] | None = None  #: the column roles (``Roles.to_dict()``)
    keep_identifiers: tuple[str, ...] = ()

    @property
    def ks(self) -> list[int]:
        return [r.k for r in self.rows]

    @property
    def has_control(self) -> bool:
        return any(r.control_kpr is not None for r in self.rows)

    def row(self, k: int) -> SweepRow:
        """The row of one k."""
        for r in self.rows:
            if r.k == k:
                return r
        raise KeyError(f"k={k} is not in this sweep (ks: {self.ks})")

    def summary(self) -> str:
        """One sentence: how the KPR and the mean Hellinger distance move from the smallest
        to the largest k, and whether the KPR ever drops (beyond its intervals or not)."""
        first, last = self.rows[0], self.rows[-1]
        if len(self.rows) == 1:
            return (
                f"With k = {first.k}, the KPR is {format_rate(first.kpr)} and the mean "
                f"Hellinger distance {first.mean_hellinger:.4f}."
            )
        moves = "rises" if last.kpr > first.kpr else "falls" if last.kpr < first.kpr else "stays"
        pairs = list(zip(self.rows, self.rows[1:], strict=False))
        drops = [(a, b) for a, b in pairs if b.kpr < a.kpr]
        shape = ""
        if drops and moves == "rises":
            overlap = all(b.interval[1] >= a.interval[0] for a, b in drops)
            shape = (
                " (not steadily: it dips between some ks, within the intervals)"
                if overlap
                else " (not steadily: it drops between some ks, beyond the intervals)"
            )
        return (
            f"From k = {first.k} to k = {last.k}, the KPR {moves} from "
            f"{format_rate(first.kpr)} to {format_rate(last.kpr)}{shape}, while the mean "
            f"Hellinger distance goes from {first.mean_hellinger:.4f} to "
            f"{last.mean_hellinger:.4f}."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "known": list(self.known),
            "tolerance": self.tolerance,
            "confidence": self.confidence,
            "ncp": self.ncp,
            "synthesis": self.synthesis,
            "categorical_decoding": self.decoding,
            "keep_identifiers": list(self.keep_identifiers),
            "pairing_space": PAIRING_SPACE,
            "roles": self.roles,
            "seed": self.seed,
            "repeats": self.repeats,
            "seeds": [self.seed + i for i in range(self.repeats)],
            "n": self.n,
            "inputs": dict(self.inputs),
            "ks": self.ks,
            "summary": self.summary() if self.rows else "",
            "rows": [r.to_dict() for r in self.rows],
            "explanations": {
                key: text.format(conf=self.confidence * 100) for key, text in EXPLAIN.items()
            },
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent)

    @overload
    def to_html(self, path: None = None) -> str: ...

    @overload
    def to_html(self, path: str | os.PathLike[str]) -> Path: ...

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str | Path:
        """The HTML page with the plot of KPR and utility against k (needs matplotlib):
        the document, or written atomically to ``path``."""
        return views.to_html(self, path)

    def _repr_html_(self) -> str:
        """Jupyter's view: one row per k (no plot)."""
        return views.repr_html(self)


@dataclass
class TuneResult:
    """What :func:`tune` found: the k it picked (None when no k reaches the target) and
    every k it evaluated, in increasing order up to that one."""

    target: float
    k: int | None
    sweep: SweepOverK
    ks: tuple[int, ...]  #: every k it was allowed to try

    @property
    def reached(self) -> bool:
        return self.k is not None

    @property
    def row(self) -> SweepRow | None:
        """The picked k's row (None when none reaches the target)."""
        return None if self.k is None else self.sweep.row(self.k)

    @property
    def best(self) -> SweepRow:
        """The evaluated k with the highest lower bound."""
        return max(self.sweep.rows, key=lambda r: r.low)

    @property
    def message(self) -> str:
        conf = f"{self.sweep.confidence * 100:g} %"
        if self.row is not None:
            low, high = self.row.interval
            return (
                f"k = {self.row.k} is the smallest k of {ks_text(self.ks)} whose KPR lower "
                f"bound ({conf} interval) reaches {self.target:g} %: KPR "
                f"{format_rate(self.row.kpr)} ({low:.2f} to {high:.2f} %)."
            )
        best = self.best
        if self.target >= 100.0:
            suggestion = "a lower bound is always below 100 %: aim lower, e.g. 95"
        elif self.plateau:
            a, b = self.sweep.rows[-2], self.sweep.rows[-1]
            suggestion = (
                f"the KPR is not rising measurably with k (k = {a.k}: {format_rate(a.kpr)}, "
                f"k = {b.k}: {format_rate(b.kpr)}, within the interval of k = {a.k}), so the "
                "sweep gives no reason to expect a larger k to reach the target: assume fewer "
                "known variables, or coarsen them"
            )
        elif len(self.sweep.rows) < 2:
            suggestion = "one k cannot show a trend: try several, e.g. --ks 5,10,20,40,80"
        else:
            larger = [max(self.ks) * 2, max(self.ks) * 4]
            hint = ",".join(str(k) for k in larger if k < self.sweep.n)
            suggestion = (
                f"the KPR was still rising at the largest k: try larger k (e.g. --ks {hint}; "
                f"k must stay below n = {self.sweep.n:,})"
                if hint
                else f"k cannot grow much more (n = {self.sweep.n:,})"
            )
            suggestion += ", or assume fewer known variables"
        return (
            f"no k of {ks_text(self.ks)} reaches a KPR lower bound ({conf} interval) of "
            f"{self.target:g} %: the highest lower bound is {best.low:.2f} % (k = {best.k}); "
            f"{suggestion}."
        )

    @property
    def plateau(self) -> bool:
        """The KPR stopped rising: at the largest evaluated k it is not above the
        previous k's interval (False with fewer than two ks)."""
        rows = self.sweep.rows
        if len(rows) < 2:
            return False
        return rows[-1].kpr <= rows[-2].interval[1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "reached": self.reached,
            "k": self.k,
            "row": None if self.row is None else self.row.to_dict(),
            "highest_low": self.best.low,
            "highest_low_k": self.best.k,
            "plateau": self.plateau,
            "message": self.message,
            "ks": list(self.ks),
            "evaluated": self.sweep.ks,
            "search": "ks in increasing order, stopping at the first whose KPR lower bound "
            "reaches the target; larger ks are not evaluated",
            "sweep": self.sweep.to_dict(),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent)
