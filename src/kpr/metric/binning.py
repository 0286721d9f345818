"""The binning rule of the spec, written once.

Engines collect a few aggregates over U (the original records present once);
everything derived from them (mean, std, ``lo``, ``width``, the range of codes
that members of U can take) is computed here, in Python floats, so every engine
and every row order gets bit-identical values. Engines receive the resulting
:class:`NumericBins` and only translate ``floor((x - lo) / width)`` and the
special classes below into their own expressions.

This module imports nothing but the standard library.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

# Special codes. In-range codes of members of U are integers >= 0 (because
# ``lo <= min``), so negative codes never collide with them.
OUTSIDE = -1  #: a finite value whose code no member of U can take
MISSING = -2  #: null / NaN: matches only missing
POS_INF = -3  #: +inf: matches only +inf
NEG_INF = -4  #: -inf: matches only -inf

#: Largest code magnitude that is cast to int64 exactly (else codes stay float64).
_INT_SAFE = 2.0**62


@dataclass(frozen=True)
class Moments:
    """Aggregates an engine collects over the finite values of one column of U.

    ``shift`` is any finite float the engine was told to subtract (chosen
    near the mean); ``sum_d`` and ``sum_d2`` are the sums of ``x - shift`` and
    ``(x - shift) ** 2``. For integer-valued columns all of them are exact
    integers in float64, whatever the summation order.
    """

    count: int
    minimum: float | None
    maximum: float | None
    shift: float
    sum_d: float
    sum_d2: float


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

    @property
    def classes(self) -> int:
        """Number of classes over ``[lo, max + std/10]`` (0 with no finite value)."""
        if self.maximum is None or self.std is None:
            return 0
        top = self.maximum + self.std / 10.0
        last = ffloor((top - self.lo) / self.width)
        return int(last) + 1 if math.isfinite(last) else 0

    @property
    def int_codes(self) -> bool:
        """Whether codes fit int64 exactly (the usual case); else engines keep float64."""
        return self.code_max is None or self.code_max < _INT_SAFE

    def code(self, x: float | None) -> float:
        """The class of one value, as every engine must compute it (float-valued code)."""
        if x is None or math.isnan(x):
            return MISSING
        if x == math.inf:
            return POS_INF
        if x == -math.inf:
            return NEG_INF
        c = ffloor((x - self.lo) / self.width)
        if self.code_min is None or self.code_max is None:
            return OUTSIDE
        if c < self.code_min or c > self.code_max:
            return OUTSIDE
        return float(c)


def shift_for(count: int, total: float, minimum: float | None) -> float:
    """The shift for the second pass: an integer near the mean, so that integer
    data stay exact and float data avoid cancellation."""
    if count == 0:
        return 0.0
    approx = total / count
    if math.isfinite(approx):
        return float(round(approx))
    return minimum if minimum is not None and math.isfinite(minimum) else 0.0


def _to_float(q: Fraction) -> float:
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def numeric_bins(
    m: Moments, tolerance: float, *, date: bool = False, width: float | None = None
) -> NumericBins:
    """Apply the spec's rule: mean, std (ddof 1), ``width`` with its fall-backs, ``lo``.

    ``date``: the values are days since the epoch, which has no natural zero, so
    the width comes from the range (spec, "Dates and times"). ``width``: an
    absolute width given by the user, which replaces the computed one.
    """
    if m.count == 0 or m.minimum is None or m.maximum is None:
        return NumericBins(0, None, None, None, None, 0.0, width or 1.0, None, None)
    mean: float
    var: float
    if math.isfinite(m.sum_d) and math.isfinite(m.sum_d2):
        # Exact rational arithmetic on the collected sums, one rounding at the end.
        s1, s2, n = Fraction(m.sum_d), Fraction(m.sum_d2), m.count
        mean = _to_float(Fraction(m.shift) + s1 / n)
        var = 0.0 if n < 2 else max(0.0, _to_float((s2 - s1 * s1 / n) / (n - 1)))
    else:  # overflowed sums (values near the float limit): no finite statistics
        mean, var = math.inf, math.inf
    std = math.sqrt(var)
    if width is None:
        width = class_width(m, mean, tolerance, date)
    lo = m.minimum - std / 10.0
    if not math.isfinite(lo):
        lo = m.minimum
    code_min = ffloor((m.minimum - lo) / width)
    code_max = ffloor((m.maximum - lo) / width)
    return NumericBins(m.count, mean, std, m.minimum, m.maximum, lo, width, code_min, code_max)


def class_width(m: Moments, mean: float, tolerance: float, date: bool) -> float:
    """``tolerance * |mean|`` (not for dates), else ``tolerance * (max - min)``, else 1."""
    assert m.minimum is not None and m.maximum is not None
    width = math.nan if date else tolerance * abs(mean)
    if not (math.isfinite(width) and width > 0):
        width = tolerance * (m.maximum - m.minimum)
        if not (math.isfinite(width) and width > 0):
            width = 1.0
    return width


def ffloor(q: float) -> float:
    """IEEE floor that keeps infinities (``math.floor`` raises on them)."""
    return q if not math.isfinite(q) else float(math.floor(q))
