"""What ``kpr.avatar.distance_metrics`` returns: how close a synthetic table (and a
holdout, the baseline) sits to the originals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kpr.results import json


@dataclass(frozen=True)
class Closeness:
    """How close one table's rows sit to the originals."""

    rows: int
    exact_copies: int  #: rows equal to some original row on every column
    median_dcr: float
    median_nndr: float

    @property
    def exact_copy_percent(self) -> float:
        """Percentage of rows that copy an original row exactly."""
        return 100.0 * self.exact_copies / self.rows if self.rows else float("nan")

    @property
    def copies_text(self) -> str:
        """The copies as a count and a share that never reads 0.00 % for a copy."""
        share = self.exact_copy_percent
        shown = "<0.01" if 0 < share < 0.005 else f"{share:.2f}"
        return f"{self.exact_copies:,} ({shown} %)"

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "exact_copies": self.exact_copies,
            "exact_copy_percent": json.finite_or_none(self.exact_copy_percent),
            "median_dcr": json.finite_or_none(self.median_dcr),
            "median_nndr": json.finite_or_none(self.median_nndr),
        }


#: How pairing metrics treat ties (the spec's "Pairing metrics").
TIE_RULE = (
    "Hidden rate: the expected share of individuals whose nearest synthetic row is not "
    "their own when ties are broken at random (c other rows strictly closer: 1 if c > 0, "
    "else t / (t + 1) with t other rows at exactly the own row's distance); local "
    "cloaking: other rows at most as far as the own one, ties counting."
)


@dataclass(frozen=True)
class PairingMetrics:
    """The Avatar method's pairing metrics, for any synthetic table whose pairing of
    individuals and rows is known (see ``kpr.avatar.metrics``)."""

    individuals: int  #: individuals with a synthetic row in the pairing
    hidden_rate: float  #: percent, ties broken at random
    median_local_cloaking: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "individuals": self.individuals,
            "hidden_rate": json.finite_or_none(self.hidden_rate),
            "median_local_cloaking": json.finite_or_none(self.median_local_cloaking),
            "tie_rule": TIE_RULE,
        }


@dataclass(frozen=True)
class DistanceMetrics:
    """Closeness of a synthetic table (and of a holdout, the baseline) to the originals."""

    synthetic: Closeness
    holdout: Closeness | None
    ncp: int
    n_original: int
    pairing: PairingMetrics | None = None

    @property
    def space(self) -> str:
        return f"FAMD space fitted on the originals ({self.ncp} axes)"

    @property
    def dcr_ratio(self) -> float | None:
        """Synthetic over holdout median DCR (None without a holdout or with a zero DCR):
        below 1, the synthetic rows sit closer to the originals than unseen real people."""
        if self.holdout is None or not self.holdout.median_dcr > 0:
            return None
        return self.synthetic.median_dcr / self.holdout.median_dcr

    @property
    def reading(self) -> str:
        """What the figures mean, in one or two sentences."""
        if self.holdout is None:
            return (
                "Without a holdout (real rows not used to synthesise) these distances have no "
                "baseline: give --holdout (holdout= in Python) to read them."
            )
        s, h, ratio = self.synthetic, self.holdout, self.dcr_ratio
        if ratio is None:
            closeness = (
                f"The holdout's median DCR is {h.median_dcr:.4g}: half the unseen real rows "
                "copy an original, so distances cannot tell copying from the population's "
                "own duplicates."
            )
        elif ratio < 1:
            closeness = (
                f"The synthetic rows sit closer to the originals than unseen real people do "
                f"(median DCR {s.median_dcr:.3g} against {h.median_dcr:.3g}, {ratio:.2f}x): "
                "they stay nearer to the people the generator was trained on than new people "
                "from the population would, so the closest ones deserve a look."
            )
        else:
            closeness = (
                f"The synthetic rows sit no closer to the originals than unseen real people "
                f"do (median DCR {s.median_dcr:.3g} against {h.median_dcr:.3g}, "
                f"{ratio:.2f}x): no sign that the generator copies its training rows."
            )
        copies = (
            f" Exact copies: {s.copies_text} of the synthetic rows against "
            f"{h.copies_text} of the holdout's"
            + (
                ": more than chance duplicates explain."
                if s.exact_copy_percent > h.exact_copy_percent
                else ", no more than real people share by chance."
            )
        )
        return closeness + copies

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_original": self.n_original,
            "space": self.space,
            "synthetic": self.synthetic.to_dict(),
            "holdout": None if self.holdout is None else self.holdout.to_dict(),
            "pairing": None if self.pairing is None else self.pairing.to_dict(),
            "dcr_ratio": None if self.dcr_ratio is None else json.finite_or_none(self.dcr_ratio),
            "reading": self.reading,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent)

    def text(self) -> str:
        """A small table: synthetic (and holdout) rows' copies, DCR and NNDR."""
        lines = [
            f"Closeness to the {self.n_original:,} originals, in the {self.space}:",
            f"  {'':<10} {'rows':>10} {'exact copies':>18} {'median DCR':>11} {'median NNDR':>11}",
        ]
        for label, c in (("synthetic", self.synthetic), ("holdout", self.holdout)):
            if c is None:
                continue
            lines.append(
                f"  {label:<10} {c.rows:>10,} {c.copies_text:>18} "
                f"{c.median_dcr:>11.4f} {c.median_nndr:>11.4f}"
            )
        lines.append(
            "  DCR: distance to the closest original; NNDR: closest over second-closest "
            "(near 0 = points at one real record)."
        )
        lines.append(f"  {self.reading}")
        p = self.pairing
        if p is not None:
            lines += [
                f"Pairing metrics over the {p.individuals:,} individuals with a synthetic row:",
                f"  hidden rate {p.hidden_rate:.2f} %, median local cloaking "
                f"{p.median_local_cloaking:g}",
                f"  {TIE_RULE}",
            ]
        return "\n".join(lines)
