"""What an evidence pack holds, typed: the parameters, the riskiest subsets, the hot
spots, the verdicts and the whole result (``AssessResult.to_dict()`` is results.json).

Figures stay one flat mapping of dotted names (``singling_out.rate``...): it is what
``kpr verify`` compares name by name and what the schema lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kpr.inputs.reading import ReadSettings

from .inputs import InputFile
from .policy import CRITERIA, Policy

Figure = int | float | None

#: Distances are computed on a seeded sample of at most this many rows per side.
DISTANCE_ROWS = 100_000


@dataclass(frozen=True)
class Parameters:
    """Every parameter of an assessment (written to the manifest, read back by verify)."""

    candidates: tuple[str, ...]
    max_known: int
    secrets: tuple[str, ...]
    seed: int = 0
    distance_rows: int = DISTANCE_ROWS  #: rows per side above which distances sample
    read: ReadSettings = field(default_factory=ReadSettings)  #: how every CSV is parsed

    def to_dict(self) -> dict[str, Any]:
        return {
            "candidates": list(self.candidates),
            "max_known": self.max_known,
            "secrets": list(self.secrets),
            "seed": self.seed,
            "distance_rows": self.distance_rows,
            "read": {
                "delimiter": self.read.delimiter,
                "encoding": self.read.encoding,
                "na_values": list(self.read.na_values),
            },
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Parameters:
        r = d.get("read", {})
        read = ReadSettings(r.get("delimiter"), r.get("encoding"), tuple(r.get("na_values", [""])))
        return cls(
            tuple(d["candidates"]), int(d["max_known"]), tuple(d["secrets"]), int(d["seed"]),
            int(d["distance_rows"]), read,
        )  # fmt: skip


@dataclass(frozen=True)
class WorstSubset:
    """One subset of known variables of the sweep, among the riskiest (item 3)."""

    known: tuple[str, ...]
    rate: float
    unique: int
    linked: int

    def to_dict(self) -> dict[str, Any]:
        return {"known": list(self.known), "rate": self.rate, "unique": self.unique,
                "linked": self.linked}  # fmt: skip


@dataclass(frozen=True)
class HotSpot:
    """A class of one known variable where linked people concentrate (item 8): only
    classes of at least ``min_count`` people are ever made."""

    variable: str
    value: str
    people: int
    linked: int
    share: float  #: percent of the class's people linked

    def to_dict(self) -> dict[str, Any]:
        return {"variable": self.variable, "value": self.value, "people": self.people,
                "linked": self.linked, "share": self.share}  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    """A criterion's figure against the controller's threshold (None: none stated)."""

    figure: str
    value: Figure
    unit: str
    threshold: float | None
    verdict: str  #: pass, fail, not assessed, or no threshold stated
    rationale: str

    def to_dict(self) -> dict[str, Any]:
        return {"figure": self.figure, "value": self.value, "unit": self.unit,
                "threshold": self.threshold, "verdict": self.verdict,
                "rationale": self.rationale}  # fmt: skip


def verdicts(figures: Mapping[str, Figure], policy: Policy) -> dict[str, Verdict]:
    """Per criterion: the figure, the threshold with its unit and pass/fail, or
    "no threshold stated" (then no verdict)."""
    out: dict[str, Verdict] = {}
    for name, crit in CRITERIA.items():
        value = figures.get(crit.figure)
        t = policy.thresholds.get(name)
        if t is None:
            verdict = "no threshold stated"
        elif value is None:
            verdict = "not assessed"
        else:
            verdict = "pass" if t.passes(value) else "fail"
        threshold = None if t is None else t.value
        out[name] = Verdict(crit.figure, value, crit.unit, threshold, verdict,
                            t.rationale if t else "")  # fmt: skip
    return out


@dataclass(frozen=True)
class AssessResult:
    """The figures of every criterion, the items' notes, the verdicts and the inputs."""

    parameters: Parameters
    inputs: tuple[InputFile, ...]
    figures: Mapping[str, Figure]
    worst_subsets: tuple[WorstSubset, ...]
    policy: Policy
    policy_bytes: bytes | None  #: the policy file as read (copied into the pack)
    not_assessed: Mapping[str, str] = field(default_factory=dict)
    hot_spots: tuple[HotSpot, ...] = ()

    def verdicts(self) -> dict[str, Verdict]:
        return verdicts(self.figures, self.policy)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "kpr-assess/1",
            "parameters": self.parameters.to_dict(),
            "figures": dict(self.figures),
            "worst_subsets": [w.to_dict() for w in self.worst_subsets],
            "hot_spots": [g.to_dict() for g in self.hot_spots],
            "not_assessed": dict(self.not_assessed),
            "policy": self.policy.to_dict(),
            "verdicts": {k: v.to_dict() for k, v in self.verdicts().items()},
        }
