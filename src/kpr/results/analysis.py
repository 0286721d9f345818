"""What the attacker-knowledge analysis returns: plain data, each part with the
one sentence that explains it, and ``to_dict()`` for JSON and the HTML report."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, overload

from kpr.metric.counts import Counts
from kpr.notices import warnings_json
from kpr.results import json, views
from kpr.results.control import ControlComparison
from kpr.results.evaluation import Claims
from kpr.results.rates import AttackRate, Method, format_rate
from kpr.results.sizes import SizeCheck

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
    "The lowest rate this attack can give: every one of the {unique:,} individuals whose "
    "known values are unique in the original linked, 100 x (1 - |U|/n) = {floor}; the "
    "avatars' {avatars} is {diff:.2f} points above it."
)
EXPLAIN_PUBLISHED = (
    "Publishing the original table itself would leave {rate} protected against the same "
    "attack: a reference point for the avatars' {avatars}, not the worst case (an avatar "
    "table with one record per class profile of U links every member of U)."
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
class Contribution:
    """Mean decrease of the rate when a variable is added to the attacker's knowledge."""

    variable: str
    mean_decrease: float  # percentage points; positive: the variable helps the attacker
    subsets: int  # how many subsets the mean is over

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SweepResult(json.JsonResult):
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


@dataclass
class AnalysisResult(Claims, json.JsonResult):
    """One attack examined from every side: its interval, the baselines, the
    tolerance curve and (optionally) the sweep over subsets of candidates."""

    attack: AttackRate
    original_published: AttackRate  # the same attack with the original as the avatars
    tolerance_curve: list[AttackRate]
    control: ControlComparison | None = None
    sweep: SweepResult | None = None
    warnings: list[str] = field(default_factory=list)
    #: linked individuals whose unique avatar is their own (with a pairing)
    correct_links: int | None = None
    #: the rate at equal size, when the tables' sizes differ by more than 5 %, else None
    sizes: SizeCheck | None = None

    def _claimed(self) -> Counts:
        return self.attack.counts

    @property
    def worst_case_explanation(self) -> str:
        a = self.attack
        return EXPLAIN_WORST.format(
            unique=a.unique_originals, floor=format_rate(a.floor),
            avatars=format_rate(a.rate), diff=a.rate - a.floor,
        )  # fmt: skip

    @property
    def original_published_explanation(self) -> str:
        return EXPLAIN_PUBLISHED.format(
            rate=format_rate(self.original_published.rate), avatars=format_rate(self.attack.rate)
        )

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
                "kpr": self.worst_case,
                "n": a.n,
                "unique_originals": a.unique_originals,
                "difference": a.rate - self.worst_case,
                "explanation": self.worst_case_explanation,
            },
            "original_published": {
                **self.original_published.to_dict(),
                "difference": a.rate - self.original_published.rate,
                "explanation": self.original_published_explanation,
            },
            "control": None if self.control is None else self.control.to_dict(),
            "tolerance_curve": {
                "points": [p.to_dict() for p in self.tolerance_curve],
                "explanation": EXPLAIN_CURVE,
            },
            "sweep": None if self.sweep is None else self.sweep.to_dict(),
            **self.claims_dict(),
            "sizes": None if self.sizes is None else self.sizes.to_dict(),
            "warnings": warnings_json(self.warnings),
        }
