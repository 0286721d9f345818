"""What ``kpr.inference`` returns: per secret column, what an attacker infers about
the people of the original (the spec's section "Inference"), beside the population
guess any attacker makes without the avatars, and against a control when given.
Plain data with the sentences that explain it and ``to_dict()``; computed in
:mod:`kpr.analysis.inference`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from kpr.labels import interval_label
from kpr.metric.attack import Kind
from kpr.metric.binning import NumericBins
from kpr.metric.inference import InferenceCounts
from kpr.metric.interval import DEFAULT_CONFIDENCE, share_difference_interval, z_value
from kpr.results import views
from kpr.results.control import excess_links
from kpr.results.json import JsonResult, finite_or_none

#: Groups (secret classes, profiles) of fewer people are counted but not shown by value.
MIN_GROUP = 10


def class_name(value: Any, kind: Kind, bins: NumericBins | None) -> str:
    """How a class of a column reads: its interval (binned), its value (categorical),
    or the name of a special class."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "missing"
    if kind is Kind.CATEGORICAL or bins is None:
        # -0.0 equals 0.0: one class, written one way whatever the engine returns
        return str(value + 0.0 if isinstance(value, float) else value)
    code = float(value)
    if math.isinf(code):
        return "+inf" if code > 0 else "-inf"
    lo, width = bins.lo, bins.width
    return interval_label(lo + code * width, lo + (code + 1) * width, width, kind is Kind.DATE)


def _pct(part: float, whole: float) -> float | None:
    return 100.0 * part / whole if whole else None


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1f} %"


class _PercentOfN:
    """A read-only attribute of :class:`SecretInference`: one of its counts (named
    ``count``) as a percentage of n, so each measure is read the same way."""

    def __init__(self, count: str, doc: str | None = None) -> None:
        self.count = count
        self.__doc__ = doc

    @overload
    def __get__(self, secret: None, owner: type | None = None) -> _PercentOfN: ...
    @overload
    def __get__(self, secret: SecretInference, owner: type | None = None) -> float: ...
    def __get__(
        self, secret: SecretInference | None, owner: type | None = None
    ) -> float | _PercentOfN:
        if secret is None:
            return self
        return secret.counts.percent(getattr(secret.counts, self.count))


@dataclass(frozen=True)
class Group:
    """One class of the secret, or one profile: its people and what the measures
    count among them (shown by value only from :data:`MIN_GROUP` people on)."""

    label: str
    people: int
    linked: int
    right: int
    disco: int
    cap: float

    @property
    def shown(self) -> bool:
        return self.people >= MIN_GROUP

    def to_dict(self) -> dict[str, Any]:
        if not self.shown:
            return {"label": self.label, "shown": False}
        return {
            "label": self.label,
            "shown": True,
            "people": self.people,
            "linked": self.linked,
            "right": self.right,
            "disco": self.disco,
            "expected_cap": self.cap,
        }


@dataclass(frozen=True)
class ControlMeasure:
    """One measure on the original and on the control, compared at the same size
    (the smaller side's; the larger one through random subsets of that size,
    averaged, as ``kpr.evaluate --control`` compares rates)."""

    name: str
    original_share: float
    control_share: float
    size: int
    subsets: int = 0
    spread: float = 0.0  # standard deviation of the subsets' shares
    confidence: float = DEFAULT_CONFIDENCE

    @property
    def difference(self) -> float:
        """Original minus control, in points: what the synthesis adds for the people
        it was trained on."""
        return 100.0 * (self.original_share - self.control_share)

    @property
    def interval(self) -> tuple[float, float]:
        """Newcombe's interval of the difference at the compared size, widened by the
        Monte Carlo error of the subsets' average."""
        extra = 0.0
        if self.subsets >= 2:
            extra = z_value(self.confidence) * self.spread / math.sqrt(self.subsets)
        return share_difference_interval(
            self.original_share, self.size, self.control_share, self.size,
            self.confidence, extra=extra,
        )  # fmt: skip

    @property
    def people(self) -> tuple[int, int, int]:
        """The difference and its interval's ends, in people among ``size``."""
        return excess_links(self.difference, self.interval, self.size)

    @property
    def anonymeter_risk(self) -> float | None:
        """Anonymeter's R = (original - control) / (1 - control), for comparison only
        (it divides a small gap by what the control leaves; not clipped)."""
        c = self.control_share
        return None if c >= 1.0 else (self.original_share - c) / (1.0 - c)

    def sentence(self) -> str:
        low, high = self.interval
        est, lo, hi = self.people
        conf = f"{self.confidence * 100:g} %"
        text = (
            f"{self.name}: original {100 * self.original_share:.2f} %, control "
            f"{100 * self.control_share:.2f} % at n = {self.size:,}; difference "
            f"{self.difference:+.2f} points ({conf} CI {low:+.2f} to {high:+.2f}), "
            f"{est:+,} people ({lo:+,} to {hi:+,})"
        )
        if low <= 0.0 <= high:
            return text + ": no excess detected"
        return text + (": an excess" if low > 0 else ": below the control")

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        est, lo, hi = self.people
        return {
            "measure": self.name,
            "original": self.original_share,
            "control": self.control_share,
            "compared_at_size": self.size,
            "subsets": self.subsets,
            "subset_spread": self.spread,
            "difference": self.difference,
            "difference_interval": {"low": low, "high": high, "confidence": self.confidence},
            "people": {"estimate": est, "low": lo, "high": hi},
            "anonymeter_risk": self.anonymeter_risk,
        }


@dataclass(frozen=True)
class SdmetricsFigure:
    """One of SDMetrics' CAP family as SDMetrics 0.32 computes it on the same inputs
    (``value`` None: it does not apply, ``note`` says why; NaN: SDMetrics' own NaN)."""

    metric: str
    value: float | None
    note: str = ""
    cap_protection: float | None = None  # DisclosureProtection's breakdown
    baseline_protection: float | None = None

    def line(self) -> str:
        if self.value is None:
            return f"{self.metric}: does not apply ({self.note})"
        text = (
            f"{self.metric} {self.value:.6f}"
            if math.isfinite(self.value)
            else (f"{self.metric}: undefined ({self.note})")
        )
        if self.cap_protection is not None and self.baseline_protection is not None:
            text += (
                f" (CAP protection {self.cap_protection:.6f} over the baseline "
                f"{self.baseline_protection:.6f})"
            )
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "value": finite_or_none(self.value),
            "applies": self.value is not None,
            "note": self.note,
            "cap_protection": finite_or_none(self.cap_protection),
            "baseline_protection": finite_or_none(self.baseline_protection),
        }


@dataclass(frozen=True)
class SecretInference:
    """The measures of one secret column (counts in people; percentages of n unless
    said otherwise)."""

    secret: str
    kind: Kind
    counts: InferenceCounts
    bins: NumericBins | None = None
    denom_lim: int | None = None
    classes: tuple[Group, ...] = ()
    profiles: tuple[Group, ...] = ()
    #: profiles with DiSCO people but fewer than MIN_GROUP people, not listed
    hidden_profiles: int = 0
    control: tuple[ControlMeasure, ...] = ()
    sdmetrics: tuple[SdmetricsFigure, ...] = ()

    ial = _PercentOfN(
        "right", "Inference after linking: linked people whose avatar is right, % of n."
    )

    @property
    def precision(self) -> float | None:
        """IAL's precision: right among the linked, in %."""
        return _pct(self.counts.right, self.counts.linked)

    @property
    def guess_precision(self) -> float | None:
        """The population guess's expected right among the same linked people, in %."""
        return _pct(self.counts.guess_linked, self.counts.linked)

    guess = _PercentOfN(
        "guess_all", "The population guess's expected right among everyone, % of n."
    )

    @property
    def link_adds(self) -> float | None:
        """IAL's precision minus the guess's, in points (None: nobody linked)."""
        p, g = self.precision, self.guess_precision
        return None if p is None or g is None else p - g

    disco = _PercentOfN("disco", "DiSCO, % of n (and DiS, Dorig, DiSDiO below).")
    dis = _PercentOfN("dis")
    dorig = _PercentOfN("dorig")
    disdio = _PercentOfN("disdio")

    @property
    def expected_cap(self) -> float:
        """synthpop's DCAP with classes (1 - SDMetrics' CategoricalZeroCAP on raw
        categorical keys), as a share in [0, 1]."""
        return self.counts.share(self.counts.cap)

    def _what(self) -> str:
        return self.secret if self.kind is Kind.CATEGORICAL else f"{self.secret} class"

    def sentence(self) -> str:
        """IAL against the population guess, in words generated from the numbers."""
        c, what = self.counts, self._what()
        if c.linked == 0:
            return (
                f"{self.secret}: nobody is linked, so no avatar discloses a {what} by a "
                f"link; the population guess gets {self.guess:.1f} % of the people right."
            )
        adds = self.link_adds
        assert adds is not None
        verdict = (
            f"the link adds {adds:.1f} points"
            if adds > 0
            else "the link adds nothing: the avatars disclose no more than the population "
            "structure does"
        )
        return (
            f"{self.secret}: of the {c.linked:,} people linked, {c.right:,} get their {what} "
            f"right — {_fmt(self.precision)}, against {_fmt(self.guess_precision)} by "
            f"guessing the most common {what} for their profile: {verdict}."
        )

    def summary_lines(self) -> list[str]:
        c = self.counts
        limit = "" if self.denom_lim is None else f", profiles of at most {self.denom_lim} avatars"
        lines = [
            self.sentence(),
            f"  IAL {self.ial:.2f} % of {c.n:,} people ({c.right:,}); population guess "
            f"{self.guess:.2f} % of everyone",
            f"  DiSCO {self.disco:.2f} % ({c.disco:,}; avatars of the profile agree and are "
            f"right{limit}), DiS {self.dis:.2f} %, Dorig {self.dorig:.2f} %, DiSDiO "
            f"{self.disdio:.2f} %",
            f"  expected CAP {self.expected_cap:.4f} (the share of a person's profile's "
            "avatars that are right, averaged over everyone)",
        ]
        lines += [f"  {m.sentence()}" for m in self.control]
        if self.sdmetrics:
            lines.append("  SDMetrics: " + "; ".join(f.line() for f in self.sdmetrics))
        shown = [g for g in self.classes if g.shown]
        if shown:
            top = max(shown, key=lambda g: (g.disco, g.right))
            lines.append(
                f"  the class disclosed most: {top.label} ({top.disco:,} DiSCO of "
                f"{top.people:,} people)"
            )
        return lines

    def to_dict(self) -> dict[str, Any]:
        c = self.counts
        bins = None
        if self.bins is not None:
            bins = {"lo": self.bins.lo, "width": self.bins.width}
        return {
            "secret": self.secret,
            "kind": self.kind.value,
            "classes_of": bins,
            "linked": c.linked,
            "right": c.right,
            "ial": self.ial,
            "precision": self.precision,
            "population_guess": {
                "among_linked": c.guess_linked,
                "precision": self.guess_precision,
                "among_everyone": c.guess_all,
                "share": self.guess,
            },
            "link_adds": self.link_adds,
            "dis": {"people": c.dis, "share": self.dis},
            "disco": {"people": c.disco, "share": self.disco},
            "dorig": {"people": c.dorig, "share": self.dorig},
            "disdio": {"people": c.disdio, "share": self.disdio},
            "denom_lim": self.denom_lim,
            "expected_cap": self.expected_cap,
            "control": [m.to_dict() for m in self.control],
            "sdmetrics": [f.to_dict() for f in self.sdmetrics],
            "by_class": [g.to_dict() for g in self.classes],
            "by_profile": [g.to_dict() for g in self.profiles],
            "hidden_profiles": self.hidden_profiles,
            "sentence": self.sentence(),
        }


@dataclass(frozen=True)
class InferenceResult(JsonResult):
    """What an attacker knowing ``known`` infers about each secret column."""

    known: tuple[str, ...]
    tolerance: float
    secrets: tuple[SecretInference, ...]
    control_n: int | None = None
    seed: int = 0

    @property
    def n(self) -> int:
        return self.secrets[0].counts.n if self.secrets else 0

    def __getitem__(self, secret: str) -> SecretInference:
        for s in self.secrets:
            if s.secret == secret:
                return s
        raise KeyError(secret)

    def summary_lines(self) -> list[str]:
        first = self.secrets[0].counts if self.secrets else None
        head = f"attack on {', '.join(self.known)} (tolerance {self.tolerance:g})"
        if first is not None:
            head += (
                f": {first.n:,} people, {first.n_avatars:,} avatars, {first.unique:,} unique "
                f"on the known variables, {first.linked:,} linked"
            )
        lines = [head]
        if self.control_n is not None:
            lines.append(f"control: {self.control_n:,} people not used to make the avatars")
        for s in self.secrets:
            lines += s.summary_lines()
        return lines

    def to_dict(self) -> dict[str, Any]:
        first = self.secrets[0].counts if self.secrets else None
        return {
            "known": list(self.known),
            "tolerance": self.tolerance,
            "n": first.n if first else 0,
            "n_avatars": first.n_avatars if first else 0,
            "unique_originals": first.unique if first else 0,
            "linked": first.linked if first else 0,
            "control_n": self.control_n,
            "seed": self.seed,
            "secrets": [s.to_dict() for s in self.secrets],
        }

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str | Path:
        """The report page (returned, or written to ``path``)."""
        return views.to_html(self, path)

    def _repr_html_(self) -> str:
        return views.repr_html(self)
