"""Sampling uncertainty of a rate: Wilson score intervals.

The individuals of the original table are the trials of the attack: each is
linked (a success) or not. The Wilson score interval is used rather than the
normal ("Wald") one because rates near 100 % are the usual case here, where
the Wald interval collapses to a point or leaves [0, 1]. For the difference
between two rates (original vs control), Newcombe's hybrid score interval
(Newcombe 1998, method 10) combines the two Wilson intervals.
"""

from __future__ import annotations

import math
from statistics import NormalDist

DEFAULT_CONFIDENCE = 0.95


def _z(confidence: float) -> float:
    if not (isinstance(confidence, int | float) and 0.0 < confidence < 1.0):
        raise ValueError(f"confidence must be in (0, 1), such as 0.95; got {confidence!r}")
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


def wilson_interval(
    successes: int, n: int, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n``.

    >>> tuple(round(x, 4) for x in wilson_interval(81, 263))
    (0.2553, 0.3662)
    """
    if n <= 0:
        raise ValueError(f"n must be a positive number of trials, got {n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, n={n}], got {successes}")
    return share_interval(successes / n, n, confidence)


def share_interval(p: float, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a share ``p`` observed on ``n`` trials; ``p`` may be
    an average of several tables of ``n`` rows (the size-fair control)."""
    z = _z(confidence)
    z2n = z * z / n
    center = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n))
    # At 0 and 1 the bound is exactly 0 or 1; rounding must not move it.
    low = 0.0 if p == 0.0 else max(0.0, center - half)
    high = 1.0 if p == 1.0 else min(1.0, center + half)
    return low, high


def z_value(confidence: float = DEFAULT_CONFIDENCE) -> float:
    """The normal quantile of a two-sided interval at ``confidence``."""
    return _z(confidence)


def kpr_interval(
    linked: int, n: int, confidence: float = DEFAULT_CONFIDENCE
) -> tuple[float, float]:
    """Interval of KPR = 100 * (1 - linked/n), in percent (low, high)."""
    low, high = wilson_interval(linked, n, confidence)
    return 100.0 * (1.0 - high), 100.0 * (1.0 - low)


def difference_interval(
    linked_a: int,
    n_a: int,
    linked_b: int,
    n_b: int,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[float, float]:
    """Interval of KPR_b - KPR_a in percentage points (Newcombe's method 10).

    KPR_b - KPR_a = 100 * (p_a - p_b) with p the linked shares, so the
    interval of p_a - p_b from the two Wilson intervals is scaled by 100.
    """
    return share_difference_interval(linked_a / n_a, n_a, linked_b / n_b, n_b, confidence)


def share_difference_interval(
    pa: float,
    n_a: int,
    pb: float,
    n_b: int,
    confidence: float = DEFAULT_CONFIDENCE,
    extra: float = 0.0,
) -> tuple[float, float]:
    """Newcombe's interval of ``100 * (pa - pb)`` in points, from shares; ``extra``
    (a share, added in quadrature to both bounds) widens it by another source of
    uncertainty, such as the spread of the random subsets of the size-fair control."""
    la, ua = share_interval(pa, n_a, confidence)
    lb, ub = share_interval(pb, n_b, confidence)
    d = pa - pb
    low = d - math.sqrt((pa - la) ** 2 + (ub - pb) ** 2 + extra**2)
    high = d + math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2 + extra**2)
    return 100.0 * low, 100.0 * high
