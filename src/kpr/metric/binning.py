"""The binning rule of the spec, written once.

Engines collect a few aggregates over U (the original records present once);
everything derived from them (mean, std, ``lo``, ``width``, the range of codes
that members of U can take) is computed here, in Python floats, so every engine
and every row order gets bit-identical values. Engines receive the resulting
:class:`NumericBins`; the rule that turns a value into a class with them, and its
expression in each engine, is ``kpr.metric.classes``.

This module imports nothing but the standard library (and ``kpr.metric``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from kpr.metric.classes import rank
from kpr.metric.exact import combine_limbs, limb_bits, limb_pairs

#: Largest code magnitude that is cast to int64 exactly (else codes stay float64).
_INT_SAFE = 2.0**62


@dataclass(frozen=True)
class Moments:
    """Aggregates an engine collects over the finite values of one column of U.

    ``sum_d`` and ``sum_d2`` are the exact sums of ``d`` and ``d ** 2`` where
    ``d = x * 2 ** -scale_exp - shift``: integer columns are shifted
    (:class:`Deviations`), float columns are read on a binary grid
    (``kpr.metric.exact``, shift 0).
    """

    count: int
    minimum: float | None
    maximum: float | None
    shift: float | int
    sum_d: float | int
    sum_d2: float | int
    scale_exp: int = 0


@dataclass(frozen=True)
class Deviations:
    """What the second pass over U sums for an integer column, decided from the first pass.

    ``d = x - shift`` in int64,
    split into ``limbs`` limbs of ``bits`` bits; the engine sums each limb and
    each product of two limbs in int64, which never overflows, and
    :meth:`combine` rebuilds the exact sums of ``d`` and ``d ** 2``, so every
    engine and row order gets the same integers whatever the magnitude.
    """

    shift: int
    bits: int
    limbs: int

    def pairs(self) -> list[tuple[int, int]]:
        """The limb products the engine sums (i <= j)."""
        return limb_pairs(self.limbs)

    def combine(self, linear: list[int], products: list[int]) -> tuple[int, int]:
        """Exact ``(sum d, sum d**2)`` from the limb sums, in :meth:`pairs` order."""
        return combine_limbs(self.bits, linear, products)


def deviations(count: int, int_range: tuple[int, int]) -> Deviations:
    """Plan the exact sums of one integer column from its exact smallest and
    largest value over U."""
    lo, hi = int_range
    base = lo if hi - lo < 2**62 else 0  # x - base never overflows int64
    span = max(abs(lo - base), abs(hi - base), 1)
    bits = limb_bits(count)
    limbs = max(1, -(-span.bit_length() // bits))
    return Deviations(base, bits, limbs)


@dataclass(frozen=True)
class NumericBins:
    """Statistics over U and the class grid of one numeric known variable."""

    count: int
    mean: float | None
    std: float | None
    minimum: float | None
    maximum: float | None
    lo: float
    width: float
    code_min: float | None  #: smallest code a member of U takes (None: no finite value)
    code_max: float | None  #: largest code a member of U takes
    #: the grid's origin moved down by ``offset * width`` (0 <= offset < 1): the
    #: same rule on a moved grid (0: the spec's grid, from ``lo``)
    offset: float = 0.0

    @property
    def origin(self) -> float:
        """Where class 0 starts: ``lo``, less ``offset * width`` on a moved grid."""
        return self.lo if self.offset == 0 else self.lo - self.offset * self.width

    def moved(self, offset: float) -> NumericBins:
        """The same statistics on the grid whose origin is moved down by ``offset *
        width`` (codes of members of U stay >= 0)."""
        if not 0 <= offset < 1:
            raise ValueError(f"a grid offset is a fraction of the width in [0, 1), not {offset}")
        moved = replace(self, offset=offset)
        if self.minimum is None or self.maximum is None:
            return moved
        code_min = rank(self.minimum, moved.origin, self.width)
        code_max = rank(self.maximum, moved.origin, self.width)
        return replace(moved, code_min=code_min, code_max=code_max)

    @property
    def classes(self) -> int:
        """Number of classes over ``[origin, max + std/10]`` (0 with no finite value)."""
        if self.maximum is None or self.std is None:
            return 0
        top = self.maximum + self.std / 10.0
        last = rank(top, self.origin, self.width)
        return int(last) + 1 if math.isfinite(last) else 0

    @property
    def int_codes(self) -> bool:
        """Whether codes fit int64 exactly (the usual case); else engines keep float64."""
        return self.code_max is None or self.code_max < _INT_SAFE

    @property
    def clip(self) -> tuple[float, float]:
        """Bounds strictly outside U's codes, to clip a quotient to before ``floor``.

        The next floats below ``code_min`` and above ``code_max``: ``code_max +
        1.0`` rounds back to ``code_max`` from 2**53 on, which would put a value
        above every member of U in the top class."""
        assert self.code_min is not None and self.code_max is not None
        return (
            min(self.code_min - 1.0, math.nextafter(self.code_min, -math.inf)),
            max(self.code_max + 1.0, math.nextafter(self.code_max, math.inf)),
        )


def _to_float(q: Fraction) -> float:
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _finite(x: float | None) -> bool:
    """Finite number (exact integer sums always are, however large)."""
    return isinstance(x, int) or (x is not None and math.isfinite(x))


def _sqrt(q: Fraction) -> float:
    """``sqrt(q)`` rounded, also when ``q`` itself lies beyond the float range
    (scaled by a power of four, which is exact)."""
    j = 0
    while _to_float(q / Fraction(4) ** j) == math.inf:
        j += 64
    while 0 < q / Fraction(4) ** j < 2**-900:  # tiny: scaled up, no underflow
        j -= 64
    return math.sqrt(_to_float(q / Fraction(4) ** j)) * 2.0**j


def numeric_bins(
    m: Moments,
    tolerance: float,
    *,
    date: bool = False,
    width: float | None = None,
    offset: float = 0.0,
) -> NumericBins:
    """Apply the spec's rule: mean, std (ddof 1), ``width`` with its fall-backs, ``lo``.

    ``date``: the values are days since the epoch, which has no natural zero, so
    the width comes from the range (spec, "Dates and times"). ``width``: an
    absolute width given by the user, which replaces the computed one.
    ``offset``: the grid's origin moved down by this fraction of the width
    (:meth:`NumericBins.moved`).
    """
    if m.count == 0 or m.minimum is None or m.maximum is None:
        return NumericBins(0, None, None, None, None, 0.0, width or 1.0, None, None)
    mean: float
    std: float
    if _finite(m.sum_d) and _finite(m.sum_d2):
        # Exact rational arithmetic on the collected sums, one rounding at the end.
        s1, s2, n = Fraction(m.sum_d), Fraction(m.sum_d2), m.count
        scale = Fraction(2) ** m.scale_exp
        mean = _to_float((Fraction(m.shift) + s1 / n) * scale)
        var = Fraction(0) if n < 2 else max(Fraction(0), (s2 - s1 * s1 / n) / (n - 1))
        std = _sqrt(var * scale * scale)
    else:  # overflowed sums: no finite statistics
        mean, std = math.inf, math.inf
    if width is None:
        width = class_width(m, mean, tolerance, date)
    lo = m.minimum - std / 10.0
    if not math.isfinite(lo):
        lo = m.minimum
    # + 0.0 leaves every float but -0.0 as it is: a minimum read as -0.0 on one engine
    # path and 0.0 on another gives the same lo, bit for bit
    lo += 0.0
    bins = NumericBins(m.count, mean, std, m.minimum, m.maximum, lo, width, None, None)
    return bins.moved(offset)


def class_width(m: Moments, mean: float, tolerance: float, date: bool) -> float:
    """``tolerance * |mean|`` (not for dates), else ``tolerance * (max - min)``, else 1."""
    assert m.minimum is not None and m.maximum is not None
    width = math.nan if date else tolerance * abs(mean)
    if not (math.isfinite(width) and width > 0):
        width = tolerance * (m.maximum - m.minimum)
        if not (math.isfinite(width) and width > 0):
            width = 1.0
    return width
