"""The four counts every attack comes to (n, m, |U|, |S|), with the rate and its
interval derived from them: one type for the engines, the sweeps, the window
method and the results built on them."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from kpr.errors import InputError
from kpr.metric.forwarded import Forwarded
from kpr.metric.interval import DEFAULT_CONFIDENCE, kpr_interval


def protection_rate(linked: int, n: int) -> float:
    """KPR = 100 * (1 - |S| / n), the spec's step 6."""
    return 100.0 * (1.0 - linked / n)


def require_rows(n: int) -> None:
    """The one error for an original table without rows (the rate divides by n)."""
    if n == 0:
        raise InputError(
            "the original table has no rows: there is nobody to protect; "
            "give a table with at least one row"
        )


class Counted:
    """The counts of a result that holds them (``counts``), under their own names."""

    counts: Counts
    n = Forwarded[int]("counts")
    n_avatars = Forwarded[int]("counts")
    unique_originals = Forwarded[int]("counts")
    linked = Forwarded[int]("counts")

    @property
    def rate(self) -> float:
        """KPR in percent."""
        return self.counts.rate


@dataclass(frozen=True)
class Counts:
    """What one attack found: ``n`` original rows, ``n_avatars`` (m) avatar rows,
    ``unique_originals`` (|U|) and ``linked`` (|S|) individuals."""

    n: int
    n_avatars: int
    unique_originals: int
    linked: int

    @property
    def rate(self) -> float:
        """KPR in percent."""
        return protection_rate(self.linked, self.n)

    @property
    def floor(self) -> float:
        """The lowest rate this attack can give, every member of U linked:
        100 * (1 - |U| / n) (the worst case)."""
        return protection_rate(self.unique_originals, self.n)

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson score interval of the rate at the default confidence, in percent."""
        return self.interval_at(DEFAULT_CONFIDENCE)

    def interval_at(self, confidence: float) -> tuple[float, float]:
        """Wilson score interval of the rate, in percent (low, high)."""
        return kpr_interval(self.linked, self.n, confidence)

    def to_dict(self) -> dict[str, int]:
        """The four counts under their JSON names (every result writes them so)."""
        return asdict(self)
