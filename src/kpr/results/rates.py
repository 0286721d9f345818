"""The rate of one attack (``AttackRate``): the figure every analysis, control
comparison and sweep over k is built from, with its interval; and how a rate is
written (``format_rate``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kpr.metric.attack import Attack
from kpr.metric.counts import Counted, Counts
from kpr.metric.interval import DEFAULT_CONFIDENCE


def format_rate(rate: float) -> str:
    """Percent with two decimals, or the fewest more that show it is not 100 % when
    it is not (99.995833 reads 99.996 %, not 100.00 % nor six decimals)."""
    digits = 2
    while rate < 100.0 and f"{rate:.{digits}f}".startswith("100") and digits < 15:
        digits += 1
    return f"{rate:.{digits}f} %"


Method = Literal["bins", "window"]
METHODS: tuple[Method, ...] = ("bins", "window")


@dataclass(frozen=True)
class AttackRate(Counted):
    """The outcome of one attack: its counts, the rate and its interval."""

    known: tuple[str, ...]
    tolerance: float
    method: Method
    counts: Counts
    confidence: float = DEFAULT_CONFIDENCE

    @classmethod
    def of(
        cls,
        attack: Attack,
        counts: Counts,
        method: Method = "bins",
        confidence: float = DEFAULT_CONFIDENCE,
    ) -> AttackRate:
        """The rate of ``attack`` from the counts it found."""
        return cls(attack.known, attack.tolerance, method, counts, confidence)

    @property
    def floor(self) -> float:
        """The lowest rate this attack can give, every member of U linked:
        100 * (1 - |U| / n) (the worst case)."""
        return self.counts.floor

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson score interval of the rate, in percent (low, high)."""
        return self.counts.interval_at(self.confidence)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "known": list(self.known),
            "kpr": self.rate,
            "interval": {"low": low, "high": high, "confidence": self.confidence},
            **self.counts.to_dict(),
            "tolerance": self.tolerance,
            "method": self.method,
        }
