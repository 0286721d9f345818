"""The distinct values of a float column of few values, and their rows, counted as
whole numbers when every value is one of tenths, hundredths, ... (ages as floats,
heights to 0.1 cm, amounts to the cent): one ``np.bincount`` of ``round(value *
scale)``, a block of rows at a time, instead of a hash group-by of the floats.

Exact by construction: a value is counted under ``k = round(value * scale)`` only
if ``k / scale == value`` (one correctly rounded division), so equal codes are equal
values and each distinct value is ``k / scale`` itself; a column where one value
fails that at every scale, or that holds an infinity, is left to the group-by
(None)."""

from __future__ import annotations

import math

import numpy as np

from kpr.engine.inmemory.runs import Ints

#: The scales tried, in turn: whole numbers, tenths, hundredths, thousandths.
SCALES = (1.0, 10.0, 100.0, 1000.0)

#: Codes beyond this magnitude would not be whole numbers in float64.
_EXACT = 2.0**52


def decimal_counts(
    values: np.ndarray, absent: np.ndarray | None, span: int, block: int
) -> tuple[np.ndarray, Ints] | None:
    """The distinct present values of ``values`` (float64, NaN where ``absent``),
    sorted, and how many rows hold each, when every present value is a whole number
    of ``1 / scale`` for one of :data:`SCALES` and the codes span at most ``span``
    values; None otherwise. The scales are tried from the first that fits an evenly
    spaced sample (a column off the grid fails in its first block)."""
    if len(values) == 0:
        return None
    # Python floats from here: a huge value's products are inf, never an overflow warning
    low, high = float(np.fmin.reduce(values)), float(np.fmax.reduce(values))  # NaN left out
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    # the scales under which every code is a whole number in float64 (nothing overflows)
    scales = [s for s in SCALES if max(-low, high) * s < _EXACT]
    sample = values[:: max(1, len(values) // block)]
    sample = sample[~np.isnan(sample)]
    first = next((i for i, s in enumerate(scales) if _fits(sample, s)), len(scales))
    for scale in scales[first:]:
        if (high - low) * scale >= span:
            return None
        counted = _counts(values, absent, scale, round(low * scale), round(high * scale), block)
        if counted is not None:
            return counted
    return None


def _counts(
    values: np.ndarray, absent: np.ndarray | None, scale: float, first: int, last: int, block: int
) -> tuple[np.ndarray, Ints] | None:
    """:func:`decimal_counts` at one ``scale`` (codes ``first`` to ``last``): rows
    checked and coded a block at a time, their codes counted a block at a time when
    they span at most a block, else gathered and counted once; None at the first
    value that is no whole number of ``1 / scale``."""
    counts = np.zeros(last - first + 1, dtype=np.int64)
    gathered = np.empty(len(values) if len(counts) > block else 0, dtype=np.intp)
    end = 0
    for start in range(0, len(values), block):
        part = values[start : start + block]
        code = part * scale
        np.round(code, out=code)
        kept = code / scale == part  # NaN (absent) is never kept
        if not (kept.all() if absent is None else (kept | absent[start : start + block]).all()):
            return None
        code = (code if absent is None else code[kept]) - first
        code = code.astype(np.intp)
        if len(gathered):
            gathered[end : end + len(code)] = code
            end += len(code)
        else:
            counts += np.bincount(code, minlength=len(counts))
    if len(gathered):
        counts = np.bincount(gathered[:end], minlength=len(counts))
    held = np.flatnonzero(counts)
    return (held + first) / scale, counts[held]


def _fits(values: np.ndarray, scale: float) -> bool:
    """Whether every one of ``values`` is a whole number of ``1 / scale``."""
    return bool((np.round(values * scale) / scale == values).all())
