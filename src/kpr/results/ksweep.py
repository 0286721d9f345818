"""What a sweep over k returns (``kpr sweep``, ``kpr tune``, ``kpr.avatar.sweep``):
one run per k and seed, their summary per k, and tune's verdict. Plain data with
the sentences that explain each figure, ``to_dict()``/``to_json()``; the HTML page
lives in ``kpr.render.ksweep`` (registered through ``kpr.results.views``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from kpr.results import json, views
from kpr.results.evaluation import format_rate
from kpr.results.ksweep_rows import SweepRow

#: How the avatars were made (``kpr.avatar.generate``'s options), recorded in a sweep.
Synthesis = Literal["full", "reduced"]
Decoding = Literal["draw", "mode"]

#: Where the pairing metrics are measured, for reports.
PAIRING_SPACE = (
    "FAMD space fitted on the originals (its ncp first axes), avatars projected into it; "
    "ties count in the local cloaking and are broken at random in the hidden rate"
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
    "mean_hellinger": "Mean Hellinger: distance between each column's distribution in the "
    "original and in the avatars, averaged over columns (0 = identical, 1 = disjoint; lower "
    "= more useful).",
    "correlation_difference": "Correlation difference: mean over every pair of columns of the "
    "absolute change of its association (|r| for two numbers, Cramer's V for two categories, "
    "eta squared for a category and a number; kpr.utility), from 0 to 1 (lower = more "
    "useful).",
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


def ks_text(ks: Sequence[int]) -> str:
    return ", ".join(str(k) for k in ks)


@dataclass
class KSweepResult:
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
        """One sentence, generated from the measured intervals: whether the KPR rises,
        falls or stays flat from the smallest to the largest k (rises only when the last
        k's interval lies above the first's), any measurable drop between two ks, and
        how the mean Hellinger distance moves."""
        first, last = self.rows[0], self.rows[-1]
        if len(self.rows) == 1:
            return (
                f"With k = {first.k}, the KPR is {format_rate(first.kpr)} and the mean "
                f"Hellinger distance {first.mean_hellinger:.4f}; one k cannot show how the "
                "KPR moves with k."
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
            f"{text}. The mean Hellinger distance goes from {first.mean_hellinger:.4f} to "
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
    sweep: KSweepResult
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
                f"k = {b.k}: {format_rate(b.kpr)}, the interval of k = {b.k} does not lie "
                f"above that of k = {a.k}), so the "
                "sweep gives no reason to expect a larger k to reach the target: assume fewer "
                "known variables, or coarsen them"
            )
        elif len(self.sweep.rows) < 2:
            suggestion = "one k cannot show a trend: try several, e.g. --ks 5,10,20,40,80"
        else:
            larger = [max(self.ks) * 2, max(self.ks) * 4]
            hint = ",".join(str(k) for k in larger if k < self.sweep.n)
            suggestion = (
                f"the KPR was still rising measurably at the largest k (its interval lies "
                f"above the previous k's): try larger k (e.g. --ks {hint}; "
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
        """The KPR stopped rising measurably: the largest evaluated k's interval does not
        lie above the previous k's (False with fewer than two ks)."""
        rows = self.sweep.rows
        if len(rows) < 2:
            return False
        return trend(rows[-2], rows[-1]) != "rises"

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
            "reaches the target; larger ks are not evaluated"
            if self.reached
            else "ks in increasing order; none reached the target, so every k was evaluated",
            "sweep": self.sweep.to_dict(),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent)
