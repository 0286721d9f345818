"""The rate at equal size: an avatar table much larger (or smaller) than the original
changes the rate by chance alone, so kpr says so and gives the rate with the larger
side cut to the smaller's size (computed by :func:`kpr.analysis.baselines.size_check`)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Literal

from kpr.results.rates import format_rate

#: Sizes further apart than 1/SIZE_GAP of the original's (|m/n - 1| > 5 %) earn the
#: warning and the rate at equal size (an integer: compared exactly, 105 rows against
#: 100 are within it).
SIZE_GAP = 20
#: Random subsets of the larger side the rate at equal size is the mean of.
SIZE_SUBSETS = 5


def sizes_differ(n: int, n_avatars: int) -> bool:
    """|m/n - 1| > 5 %: the avatar table is not about the original's size (an empty
    avatar table has its own warning)."""
    return n > 0 and n_avatars > 0 and abs(n_avatars - n) * SIZE_GAP > n


@dataclass(frozen=True)
class SizeCheck:
    """Both sizes, and the rate over ``len(rates)`` random subsets of the larger side
    (``subsampled``) at the smaller side's size, drawn with ``seed``."""

    n: int
    n_avatars: int
    rate: float  # the rate of the tables as given
    subsampled: Literal["original", "avatars"]
    rates: tuple[float, ...]
    seed: int

    @property
    def mean(self) -> float:
        """The rate at equal size: the mean over the subsets."""
        return statistics.fmean(self.rates)

    @property
    def spread(self) -> tuple[float, float]:
        """The lowest and highest rate over the subsets."""
        return min(self.rates), max(self.rates)

    @property
    def sentence(self) -> str:
        low, high = self.spread
        size = min(self.n, self.n_avatars)
        side = "avatar" if self.subsampled == "avatars" else "original"
        ratio = self.n_avatars / self.n
        return (
            f"the avatar table has {self.n_avatars:,} rows and the original {self.n:,} "
            f"({ratio:.2f} times as many): the rate depends on the sizes, so compare it "
            f"at equal size: over {len(self.rates)} random subsets of {size:,} {side} "
            f"rows (seed {self.seed}) it is {format_rate(self.mean)} (from "
            f"{format_rate(low)} to {format_rate(high)}) against {format_rate(self.rate)} "
            "as given"
        )

    def to_dict(self) -> dict[str, Any]:
        low, high = self.spread
        return {
            "n": self.n,
            "n_avatars": self.n_avatars,
            "subsampled": self.subsampled,
            "size": min(self.n, self.n_avatars),
            "subsets": len(self.rates),
            "seed": self.seed,
            "kpr_at_equal_size": self.mean,
            "low": low,
            "high": high,
        }
