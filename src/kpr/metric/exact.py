"""Exact, order-independent sums of float64 values and of their squares.

Float sums depend on the order of the additions, so engines (and one engine's
group-by order) disagree in the last bits of the mean, and a mean that cancels
to ~1e-17 can even change sign. Here every finite double is read as an
integer on a binary grid: ``x = X * 2**grid`` with ``X`` an integer. ``|X|`` is
split into limbs of ``bits`` bits, which engines compute in float64 exactly
(power-of-two scalings, ``floor`` and the fractional part of a non-negative
number are exact) and sum in int64, signed for ``sum X`` (the limb and
pairwise-product sums cannot overflow). :meth:`FloatSums.combine`
rebuilds the exact ``sum X`` and ``sum X**2`` as Python integers; the spec's
mean and variance are then computed once, exactly, and rounded once.

A column whose values span many binary orders (1e-300 next to 1e308) is cut
into windows of magnitudes, each on its own grid, so that the limbs stay few.

This module imports nothing but the standard library.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

#: The smallest exponent of a double's last bit (subnormals).
_LOWEST = -1074
#: Beyond this, a scaling by ``2**e`` is done as two multiplications.
_ONE_STEP = 1000
#: A window holds values of at most this many binary orders above its lowest one.
_WINDOW_ORDERS = 128
#: One window for the whole column when its values span at most this many bits.
_ONE_WINDOW_BITS = 200
#: Limb sums and limb-product sums stay below ``2**_LIMB_BUDGET``.
_LIMB_BUDGET = 60


def limb_pairs(limbs: int) -> list[tuple[int, int]]:
    """The limb products summed for a sum of squares (i <= j)."""
    return [(i, j) for i in range(limbs) for j in range(i, limbs)]


def combine_limbs(bits: int, linear: list[int], products: list[int]) -> tuple[int, int]:
    """Exact ``(sum d, sum d**2)`` from the sums of each limb of ``d`` (lowest
    first) and of each product of two limbs (in :func:`limb_pairs` order)."""
    total = sum(s << (bits * i) for i, s in enumerate(linear))
    squares = sum(
        (s << (bits * (i + j))) * (1 if i == j else 2)
        for (i, j), s in zip(limb_pairs(len(linear)), products, strict=True)
    )
    return total, squares


def limb_bits(count: int) -> int:
    """Limb width such that ``count`` products of two limbs sum below 2**60 in int64."""
    return max(1, (_LIMB_BUDGET - 2 - count.bit_length()) // 2)


def power_factors(exp: int) -> tuple[float, ...]:
    """``2.0**exp`` as one or two factors that are each a normal double."""
    if abs(exp) <= _ONE_STEP:
        return (2.0**exp,)
    half = exp // 2
    return (2.0**half, 2.0 ** (exp - half))


@dataclass(frozen=True)
class Window:
    """Values with ``2**low <= |x| < 2**high`` (``None``: no bound), each a
    multiple of ``2**grid``, split into ``limbs`` limbs."""

    low: int | None
    high: int | None
    grid: int
    limbs: int

    def scale(self, bits: int) -> tuple[float, ...]:
        """Factors that map a value to its top limb's units: ``|x * scale| < 2**bits``."""
        return power_factors(-(self.grid + bits * (self.limbs - 1)))


@dataclass(frozen=True)
class FloatSums:
    """The plan of the exact sums of one float column (from count, smallest
    non-zero and largest magnitude over U's finite values)."""

    bits: int
    windows: tuple[Window, ...]

    def pairs(self, window: Window) -> list[tuple[int, int]]:
        """The limb products summed for ``sum X**2`` (i <= j)."""
        return limb_pairs(window.limbs)

    @property
    def grid(self) -> int:
        """The common grid of the combined sums (the lowest one)."""
        return min((w.grid for w in self.windows), default=0)

    def combine(self, linear: list[list[int]], products: list[list[int]]) -> tuple[int, int]:
        """Exact ``(sum X, sum X**2)`` on :attr:`grid` from each window's limb sums
        (limbs lowest first; products in :meth:`pairs` order)."""
        total, squares = 0, 0
        for window, lin, prod in zip(self.windows, linear, products, strict=True):
            s1, s2 = combine_limbs(self.bits, lin, prod)
            up = window.grid - self.grid
            total += s1 << up
            squares += s2 << (2 * up)
        return total, squares


def _exponent(x: float) -> int:
    """``e`` with ``2**(e-1) <= |x| < 2**e`` (x finite, non-zero)."""
    return math.frexp(abs(x))[1]


def _window(low: int | None, high: int | None, exps: tuple[int, int], bits: int) -> Window:
    """The window ``[2**low, 2**high)`` of values whose exponents lie in ``exps``."""
    grid = max((exps[0] if low is None else low) - 53, _LOWEST)
    top = exps[1] if high is None else high
    return Window(low, high, grid, max(1, -(-(top - grid) // bits)))


def float_sums(count: int, smallest: float | None, largest: float | None) -> FloatSums:
    """Plan the exact sums: ``smallest``/``largest`` are the smallest non-zero and
    the largest magnitude of the finite values (``None``: no non-zero value)."""
    bits = limb_bits(count)
    if count == 0 or smallest is None or largest is None or largest == 0:
        return FloatSums(bits, ())
    low_exp, high_exp = _exponent(smallest), _exponent(largest)
    exps = (low_exp, high_exp)
    if high_exp - max(low_exp - 53, _LOWEST) <= _ONE_WINDOW_BITS:
        return FloatSums(bits, (_window(None, None, exps, bits),))
    edges = range(low_exp - 1 + _WINDOW_ORDERS, high_exp, _WINDOW_ORDERS)
    bounds = [None, *edges, None]
    return FloatSums(bits, tuple(_window(a, b, exps, bits) for a, b in itertools.pairwise(bounds)))
