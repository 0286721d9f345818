"""The size-fair comparison of the training individuals with a control group
(``kpr.evaluate(control=...)``, ``kpr analyze --control``): plain data, the
sentence that explains it and ``to_dict()``; computed in
:mod:`kpr.analysis.baselines`.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Literal

from kpr.metric.interval import (
    share_difference_interval,
    share_interval,
    z_value,
)
from kpr.results.rates import AttackRate, format_rate

EXPLAIN_CONTROL = (
    "Control individuals were not used to make the avatars, so their rate ({control} at "
    "{size:,} rows) shows what the population structure alone gives any attacker; the "
    "difference at the same size, control minus original, measures the risk the synthesis "
    "adds for the people it was trained on."
)


def no_control(option: str) -> str:
    """What a rate means without a control, in one line; ``option`` names how the reader
    gives one (``--control`` on the command line)."""
    return (
        "No control given: the rate counts every match, whatever made it. It measures the "
        "risk of synthesis only if the original is the generator's training set (for "
        f"another sample of the population it counts chance matches); {option}, individuals "
        "not used to make the avatars, separates the two."
    )


EXPLAIN_SUBSETS = (
    " The rate depends on the table's size, so the {side} is compared through {count} random "
    "subsets of that size, each its own attack, averaged; the interval includes their spread."
)


#: Why a control comparison after ``kpr protect`` draws no conclusion on excess risk.
PROTECTED_VERDICT = (
    "Protect edited the avatars to lower the links of these original individuals and never "
    "considered the control, so the original's rate is raised by construction: this "
    "difference is no test of the synthesis and no excess risk can be concluded from it. "
    "Compare the control's own rate before and after instead."
)


def excess_links(
    difference: float, interval: tuple[float, float], size: int
) -> tuple[int, int, int]:
    """A difference in points (and its interval) as links among ``size`` individuals."""
    low, high = interval
    return round(difference * size / 100.0), round(low * size / 100.0), round(high * size / 100.0)


def verdict(
    difference: float,
    interval: tuple[float, float],
    size: int,
    confidence: float,
    linked: int,
    correct: int | None = None,
) -> str:
    """The sentence a control difference (control minus original, in points) earns from
    its interval: no excess detected when it holds 0 (with the most it allows) or lies
    below; an excess, in claimable links per ``size`` individuals (and, with the
    original's ``correct`` of ``linked`` links, in correct links), when it lies above."""
    conf = f"{confidence * 100:g} %"
    low, high = interval
    span = f"Its {conf} interval, {low:+.2f} to {high:+.2f} points,"
    links, lo_links, hi_links = excess_links(difference, interval, size)
    if low <= 0.0 <= high:
        return (
            f"{span} holds 0: no excess risk detected; at most {high:+.2f} points at {conf}, "
            f"i.e. at most {max(hi_links, 0):,} more claimable links per {size:,} individuals."
        )
    if high < 0.0:
        return (
            f"{span} lies below 0: the individuals used to make the avatars are linked less "
            "often than the control: no excess risk detected."
        )
    text = (
        f"{span} lies above 0: an excess risk; the synthesis lets the attacker claim about "
        f"{links:,} more links per {size:,} individuals than the population structure alone "
        f"({lo_links:,} to {hi_links:,} at {conf})."
    )
    if correct is not None and linked > 0:
        text += (
            f" If they are right as often as all links ({correct:,} of {linked:,}), about "
            f"{round(links * correct / linked):,} of them would be correct (the individual's "
            "own avatar)."
        )
    return text


def _unit(x: float) -> float:
    return min(max(x, 0.0), 1.0)


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
    shared_rows: int = 0  # control rows equal to an original row (by value and kind)
    seed: int = 0
    original_repeats: int = 0  # original rows equal to another original row (same columns)
    correct_links: int | None = None  # of the original's links, with a pairing
    #: the avatars were edited (kpr protect) to lower the original's links, not the
    #: control's: the difference is then no test of the synthesis
    protected: bool = False

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
    def residual_risk_unclipped(self) -> float | None:
        """anonymeter's residual risk before clipping, (attack - control) / (1 - control),
        with the linked shares at the compared size as the success rates; None when every
        control individual is linked. Negative when the control is linked more often."""
        p_o, p_c = self.original_share, self.control_share
        return None if p_c >= 1.0 else (p_o - p_c) / (1.0 - p_c)

    @property
    def residual_risk_interval_unclipped(self) -> tuple[float, float] | None:
        """Its interval, propagated from the two sides' Wilson half-widths (and the
        subsets' Monte Carlo error) as anonymeter propagates its errors."""
        risk = self.residual_risk_unclipped
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
    def residual_risk(self) -> float | None:
        """The residual risk clipped to [0, 1], as anonymeter reports a risk."""
        risk = self.residual_risk_unclipped
        return None if risk is None else _unit(risk)

    @property
    def residual_risk_interval(self) -> tuple[float, float] | None:
        """Its interval, clipped to [0, 1] like the risk."""
        span = self.residual_risk_interval_unclipped
        if span is None:
            return None
        low, high = span
        return _unit(low), _unit(high)

    @property
    def shared_share(self) -> float:
        """Share of the control's rows whose known values equal an original row's."""
        return self.shared_rows / self.control.n

    @property
    def original_repeat_share(self) -> float:
        """Share of the original's rows equal to another original row (on the columns
        shared rows are counted on): what equal records of different people give."""
        return self.original_repeats / self.original.n if self.original.n else 0.0

    @property
    def shared_sentence(self) -> str:
        """The shared rows against the original's own repeats, and why they are kept."""
        return shared_rows_sentence(
            "control", self.shared_rows, self.control.n, self.original_repeats, self.original.n,
            "keep them (removing them biases the comparison).",
        )  # fmt: skip

    @property
    def excess_links(self) -> tuple[int, int, int]:
        """The difference as links among ``size`` individuals: the estimate and its
        interval's ends (positive: more links on the original than on the control)."""
        return excess_links(self.difference, self.difference_interval, self.size)

    @property
    def verdict(self) -> str:
        """What the difference's interval says, in words generated from its numbers;
        after protection, why it says nothing about the synthesis."""
        if self.protected:
            return PROTECTED_VERDICT
        return verdict(
            self.difference, self.difference_interval, self.size, self.original.confidence,
            self.original.linked, self.correct_links,
        )  # fmt: skip

    @property
    def explanation(self) -> str:
        text = EXPLAIN_CONTROL.format(size=self.size, control=format_rate(self.control_rate))
        if self.subsampled is not None:
            text += EXPLAIN_SUBSETS.format(count=len(self.subsets), side=self.subsampled)
        return f"{text} {self.verdict}"

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
            f"linked {self.control.linked:,}); rows equal to an original row: "
            f"{self.shared_rows:,} ({100 * self.shared_share:.1f} %; the original repeats "
            f"{100 * self.original_repeat_share:.1f} % of its own rows)",
            f"compared at n = {self.size:,}: original {format_rate(self.original_rate)}, "
            f"control {format_rate(self.control_rate)}{drawn}",
            f"control minus original: {self.difference:+.2f} points ({conf} CI "
            f"{low:+.2f} to {high:+.2f})",
        ]
        risk, interval = self.residual_risk, self.residual_risk_interval
        if risk is not None and interval is not None:
            lo, hi = interval
            lines.append(
                f"residual risk (anonymeter's (attack - control) / (1 - control), clipped to "
                f"[0, 1]): {risk:.4f} ({conf} CI {lo:.4f} to {hi:.4f})"
            )
        return [*lines, self.explanation]

    def _span(self, span: tuple[float, float] | None) -> dict[str, float] | None:
        if span is None:
            return None
        low, high = span
        return {"low": low, "high": high, "confidence": self.original.confidence}

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
            "residual_risk_interval": self._span(risk_interval),
            "residual_risk_unclipped": self.residual_risk_unclipped,
            "residual_risk_interval_unclipped": self._span(self.residual_risk_interval_unclipped),
            "shared_rows": self.shared_rows,
            "shared_share": self.shared_share,
            "original_repeats": self.original_repeats,
            "original_repeat_share": self.original_repeat_share,
            "excess_links": dict(zip(("estimate", "low", "high"), self.excess_links, strict=True)),
            "explanation": self.explanation,
        }


def shared_rows_sentence(side: str, shared: int, size: int, repeats: int, n: int, kept: str) -> str:
    """``shared`` of the ``side`` table's ``size`` rows equal an original row, against the
    ``repeats`` of the original's ``n`` rows that equal another original row; ``kept``
    says what keeping them does. A side repeating original rows more often than the
    original repeats its own may hold people used to make the avatars: said too."""
    share, own = 100 * shared / size if size else 0.0, 100 * repeats / n if n else 0.0
    text = (
        f"{shared:,} {side} rows ({share:.1f} %) equal a row of the original (compared by "
        f"value); in the original itself, {own:.1f} % of the rows equal another original "
        f"row. Equal records of different people are expected in real populations: {kept}"
    )
    if share > own:
        text += (
            f" The {side} repeats original rows more often than the original repeats its "
            "own: check that it holds no individual used to make the avatars."
        )
    return text
