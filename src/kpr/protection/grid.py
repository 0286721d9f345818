"""New numeric values that leave no mark: drawn on the column's own grid.

A shift that copied a value another avatar holds gave a continuous column (an
income, most of whose values are unique) changed rows whose value is held by 2-3
rows: a rule that needs no seed and no labels found them. A new value is instead
drawn uniformly among the points of the column's grid inside its admissible interval
(the target class, within the move's bound), the grid being the largest power of
ten that divides every value the column holds (10, 100 … allowed; for a float, its
shortest decimal that round-trips). It may equal a value other rows hold (an integer
age always does); the draw prefers a point whose multiplicity after the move falls in
the bucket (held once, by 2-3 rows, by more) drawn from the table's own shares, so
that changed rows are held as often as the others (:func:`multiplicity_check`).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from kpr.results.marks import MultiplicityCheck

#: Decimals looked for in a float column before it is called continuous (no grid).
_MAX_DECIMALS = 15
#: Powers of ten above 1 looked for in an integer-valued column.
_MAX_EXPONENT = 15
#: Grid points tried per draw for one in the wanted multiplicity bucket.
TRIES = 8


@dataclass(frozen=True)
class Grid:
    """The step ``10 ** exponent`` every value of a column is a multiple of (None:
    no decimal grid of at most 15 decimals: values are drawn as floats)."""

    exponent: int | None
    integer: bool  #: the column's type holds integers only

    def value(self, k: int) -> float:
        """The ``k``-th grid point, the float nearest the decimal ``k * 10^e``."""
        assert self.exponent is not None
        return float(f"{k}e{self.exponent}")

    @property
    def decimals(self) -> int:
        return 0 if self.exponent is None or self.exponent >= 0 else -self.exponent

    def text(self, x: float) -> str:
        """A value as the column writes its values: an integer as an integer, a
        decimal with the grid's decimals."""
        if self.integer or (self.exponent is not None and self.exponent >= 0):
            return str(int(x))
        if self.exponent is None:
            return repr(float(x))
        return f"{x:.{self.decimals}f}"

    def draw(self, rng: random.Random, lo: float, hi: float) -> float | None:
        """A point drawn uniformly among the grid's points in ``[lo, hi)`` (None:
        there is none)."""
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
            return None
        if self.exponent is None:
            x = rng.uniform(lo, hi)
            return x if lo <= x < hi else None
        step = 10.0**self.exponent
        first, last = math.ceil(lo / step), math.floor(hi / step)
        while first <= last and self.value(first) < lo:
            first += 1
        while last >= first and self.value(last) >= hi:
            last -= 1
        if last < first:
            return None
        return self.value(rng.randint(first, last))


def grid_of(values: np.ndarray, integer: bool) -> Grid:
    """The largest power of ten that divides every finite value of ``values``."""
    v = values[np.isfinite(values)]
    if not len(v):
        return Grid(0 if integer else None, integer)
    if integer or np.array_equal(np.round(v), v):
        e = 0
        while e < _MAX_EXPONENT and np.all(np.fmod(v, 10.0 ** (e + 1)) == 0):
            e += 1
        return Grid(e, integer)
    for d in range(1, _MAX_DECIMALS + 1):
        if np.array_equal(np.round(v, d), v):
            return Grid(-d, integer)
    return Grid(None, integer)


@dataclass(frozen=True)
class Buckets:
    """The table's own shares of rows whose value is held once, by 2-3 rows, by more."""

    once: float
    few: float  #: held by exactly 2-3 rows

    @classmethod
    def of(cls, held: np.ndarray) -> Buckets:
        """From each present row's multiplicity."""
        if not len(held):
            return cls(1.0, 0.0)
        return cls(float(np.mean(held == 1)), float(np.mean((held == 2) | (held == 3))))

    def pick(self, rng: random.Random) -> int:
        """A bucket drawn from the shares: 0 once, 1 by 2-3 rows, 2 by more."""
        u = rng.random()
        return 0 if u < self.once else 1 if u < self.once + self.few else 2


def bucket(multiplicity: int) -> int:
    return 0 if multiplicity <= 1 else 1 if multiplicity <= 3 else 2


def interval(x: float, bound: float, classes: list[tuple[float, float]]) -> tuple[float, float]:
    """``[x - bound, x + bound]`` cut to every attack's target class ``[lo, hi)``."""
    lo, hi = x - bound, math.nextafter(x + bound, math.inf)
    for a, b in classes:
        lo, hi = max(lo, a), min(hi, b)
    return lo, hi


def grow(array: np.ndarray, size: int, fill: float) -> np.ndarray:
    """``array`` with room for ``size`` entries (doubling: new codes cost O(1))."""
    if len(array) >= size:
        return array
    more = np.full(max(size, 2 * len(array)) - len(array), fill, dtype=array.dtype)
    return np.concatenate([array, more])


def multiplicities(values: np.ndarray) -> np.ndarray:
    """How many of ``values`` hold each one's value (missing: 0)."""
    out = np.zeros(len(values), dtype=np.int64)
    present = ~np.isnan(values)
    _, inverse, counts = np.unique(values[present], return_inverse=True, return_counts=True)
    out[present] = counts[inverse]
    return out


def multiplicity_check(
    name: str, before: np.ndarray, after: np.ndarray, changed: np.ndarray
) -> MultiplicityCheck:
    """The check of one column: ``before`` the input's values, ``after`` the
    release's (same rows, deleted ones dropped from both), ``changed`` which rows
    changed."""
    from scipy.stats import binomtest

    held_before = multiplicities(before)
    base = Buckets.of(held_before[held_before > 0]).few
    held = multiplicities(after)[changed]
    held = held[held > 0]
    few = int(np.sum((held == 2) | (held == 3)))
    n = len(held)
    p = 1.0 if n == 0 else float(binomtest(few, n, base, alternative="greater").pvalue)
    return MultiplicityCheck(name, n, few, base, p)
