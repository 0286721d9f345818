"""What a sweep over k returns (``kpr sweep``, ``kpr tune``, ``kpr.avatar.sweep``):
one run per k and seed, their summary per k, and tune's verdict. Plain data with
the sentences that explain each figure, ``to_dict()``/``to_json()``; the HTML page
lives in ``kpr.render.ksweep`` (registered through ``kpr.results.views``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from kpr.results import json, views
from kpr.results.avatar_settings import GeneratorSettings
from kpr.results.ksweep_rows import SweepRow
from kpr.results.rates import format_rate

#: Where the pairing metrics are measured, for reports.
PAIRING_SPACE = (
    "FAMD space fitted on the originals (its ncp first axes), avatars projected into it; "
    "ties count in the local cloaking and are broken at random in the hidden rate"
)

#: The columns of a sweep's table that tune's leaves out (tune shows the figures its
#: criteria and choice rest on): its glossary leaves them out too.
SWEEP_ONLY = ("correct_links", "hidden_rate", "exact_copy_percent", "median_dcr", "seconds")


def explained(has_control: bool, tune: bool = False) -> list[str]:
    """The keys of ``EXPLAIN`` for the columns a sweep's table (or tune's) shows."""
    return [
        k for k in EXPLAIN if (k != "control" or has_control) and not (tune and k in SWEEP_ONLY)
    ]


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
    "hidden_rate": "Hidden rate: expected share of individuals whose nearest avatar is not "
    "their own, ties broken at random (another avatar strictly closer: hidden; t avatars "
    f"tied with the own one: hidden with probability t / (t + 1); higher = safer); in the "
    f"{PAIRING_SPACE}.",
    "median_local_cloaking": "Median local cloaking: median number of other avatars at most "
    "as far from an individual as its own avatar (ties count; higher = safer; the Avatar "
    "paper deems above ~5 protective).",
    "exact_copy_percent": "Copies: share of avatars equal to a real record on every column "
    "(lower = safer).",
    "median_dcr": "DCR: median distance from an avatar to its closest original; NNDR: median "
    "ratio of closest to second-closest (near 0 = points at one real record); in the FAMD "
    "space fitted on the originals. A control with every column gives the baseline: its "
    "own figures.",
    "overall": "Quality: SDMetrics' Quality Report score of the avatars against the original "
    "(kpr.utility; the mean of Column Shapes, each column's KSComplement or TVComplement, "
    "and Column Pair Trends, each associated pair's correlation or contingency similarity), "
    "from 0 to 1 (higher = more useful); shapes and trends are shown beside it.",
    "mean_hellinger": "Mean Hellinger: distance between each column's distribution in the "
    "original and in the avatars, averaged over columns (0 = identical, 1 = disjoint; lower "
    "= more useful; Octopize's target: below 0.1).",
    "correlation_difference": "Correlation difference: 100 x the mean over every pair of "
    "columns of the absolute change of its association (|r| for two numbers, Cramer's V for "
    "two categories, eta squared for a category and a number; kpr.utility), in percent "
    "(lower = more useful; Octopize's target: below 10 %).",
    "seconds": "Time (s): seconds to generate one avatar table (the metrics not included); the "
    "mean over the repeats.",
}


def trend(a: SweepRow, b: SweepRow) -> Literal["rises", "falls", "flat"]:
    """How the KPR moves from row ``a`` to row ``b``, as their intervals say: rises when
    ``b``'s interval lies entirely above ``a``'s, falls when entirely below, else flat."""
    if b.interval[0] > a.interval[1]:
        return "rises"
    if b.interval[1] < a.interval[0]:
        return "falls"
    return "flat"


def _span(row: SweepRow) -> str:
    low, high = row.interval
    return f"{low:.2f} to {high:.2f} %"


def _score(x: float) -> str:
    return f"{x:.3f}" if math.isfinite(x) else "undefined"


def ks_text(ks: Sequence[int]) -> str:
    return ", ".join(str(k) for k in ks)


@dataclass
class KSweepResult(json.JsonResult, views.Page):
    """Privacy and utility of the avatars for each k, in increasing k; its page
    (``to_html``) plots KPR and utility against k."""

    known: tuple[str, ...]
    tolerance: float
    #: how each table was made: run ``i`` at k uses ``generator.with_run(k, generator.seed + i)``
    generator: GeneratorSettings
    repeats: int
    confidence: float
    n: int
    rows: list[SweepRow] = field(default_factory=list)
    inputs: dict[str, str] = field(default_factory=dict)  #: labels of the tables, for reports
    roles: dict[str, Any] | None = None  #: the column roles (``Roles.to_dict()``)

    @property
    def seed(self) -> int:
        """The first repeat's seed (repeat i uses seed + i)."""
        return self.generator.seed or 0

    @property
    def keep_identifiers(self) -> tuple[str, ...]:
        return tuple(str(c) for c in self.generator.keep_identifiers)

    def settings(self, k: int, repeat: int = 0) -> GeneratorSettings:
        """The generator settings of one run: ``avatarize`` with them rebuilds its table."""
        return self.generator.with_run(k, self.seed + repeat)

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
        """One sentence, generated from the measured intervals: whether the KPR rises,
        falls or stays flat from the smallest to the largest k (rises only when the last
        k's interval lies above the first's), any measurable drop between two ks, and
        how the mean Hellinger distance moves."""
        first, last = self.rows[0], self.rows[-1]
        if len(self.rows) == 1:
            return (
                f"With k = {first.k}, the KPR is {format_rate(first.kpr)}, the quality score "
                f"{_score(first.overall)} and the mean Hellinger distance "
                f"{first.mean_hellinger:.4f}; one k cannot show how the KPR moves with k."
            )
        moves = trend(first, last)
        spans = f"k = {first.k}: {_span(first)}; k = {last.k}: {_span(last)}"
        if moves == "rises":
            text = (
                f"From k = {first.k} to k = {last.k}, the KPR rises from "
                f"{format_rate(first.kpr)} to {format_rate(last.kpr)}: the interval of the "
                f"largest k lies above that of the smallest ({spans})"
            )
        elif moves == "falls":
            text = (
                f"From k = {first.k} to k = {last.k}, the KPR falls from "
                f"{format_rate(first.kpr)} to {format_rate(last.kpr)}: the interval of the "
                f"largest k lies below that of the smallest ({spans})"
            )
        else:
            text = (
                f"From k = {first.k} to k = {last.k}, the KPR is flat: "
                f"{format_rate(first.kpr)} and {format_rate(last.kpr)}, whose intervals "
                f"overlap ({spans})"
            )
        drops = [
            f"k = {a.k} to {b.k}"
            for a, b in zip(self.rows, self.rows[1:], strict=False)
            if trend(a, b) == "falls"
        ]
        if drops and moves != "falls":
            text += f"; it drops beyond the intervals from {', '.join(drops)}"
        return (
            f"{text}. The quality score goes from {_score(first.overall)} to "
            f"{_score(last.overall)} and the mean Hellinger distance from "
            f"{first.mean_hellinger:.4f} to {last.mean_hellinger:.4f}."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "known": list(self.known),
            "tolerance": self.tolerance,
            "confidence": self.confidence,
            "ncp": self.generator.ncp,
            "synthesis": self.generator.synthesis,
            "categorical_decoding": self.generator.decoding,
            "keep_identifiers": list(self.keep_identifiers),
            "generator": self.generator.to_dict(),
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
