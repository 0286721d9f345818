"""How a class of a numeric known variable is written for a person: ``[lower, upper)``,
or the name of a special class (missing, ±inf, outside U's range)."""

from __future__ import annotations

import datetime as dt
import math

#: Codes of the special classes (``kpr.metric.binning``) and how they read.
SPECIAL_LABELS = {-1: "outside U's range", -2: "missing", -3: "+inf", -4: "-inf"}
_EPOCH = dt.datetime(1970, 1, 1)


def format_edge(x: float, width: float) -> str:
    """A class bound with just enough decimals to tell neighbouring bounds apart."""
    if not (math.isfinite(x) and math.isfinite(width) and width > 0):
        return f"{x:.6g}"
    decimals = 2 - math.floor(math.log10(width))
    if decimals > 10 or abs(x) >= 1e9:
        return f"{x:.6g}"
    return f"{x:.{max(decimals, 0)}f}"


def date_edge(days: float, width: float) -> str:
    """A class bound of a date (days since the epoch) as an ISO date, with the
    time when classes are shorter than a day."""
    try:
        moment = _EPOCH + dt.timedelta(days=days)
    except OverflowError:  # beyond year 9999: the number of days
        return f"{days:.6g} days"
    return moment.strftime("%Y-%m-%d" if width >= 1.0 else "%Y-%m-%d %H:%M")


def interval_label(lower: float, upper: float, width: float, date: bool = False) -> str:
    """``[lower, upper)``: a class holds its lower bound, not its upper one."""
    edge = date_edge if date else format_edge
    return f"[{edge(lower, width)}, {edge(upper, width)})"


#: The class of finite values whose ``x - lo`` overflows (the spec's IEEE rule gives +inf).
OVERFLOW_LABEL = "x - lo beyond the float range"


def class_label(code: float, lo: float, width: float, date: bool = False) -> str:
    """The interval of class ``code`` (``lo + code * width`` onwards), or its special name."""
    if math.isinf(code):
        return OVERFLOW_LABEL
    if code < 0:
        return SPECIAL_LABELS.get(int(code), f"class {code}")
    return interval_label(lo + code * width, lo + (code + 1) * width, width, date)
