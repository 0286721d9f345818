"""The rate of one attack (``AttackRate``): the figure every analysis, control
comparison and sweep over k is built from, with its interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kpr.metric.interval import DEFAULT_CONFIDENCE, kpr_interval
from kpr.results.evaluation import protection_rate

Method = Literal["bins", "window"]
METHODS: tuple[Method, ...] = ("bins", "window")


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
    def floor(self) -> float:
        """The lowest rate this attack can give, every member of U linked:
        100 * (1 - |U| / n) (the worst case)."""
        return protection_rate(self.unique_originals, self.n)

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
