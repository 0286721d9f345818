"""The metric, written once: what an attack is (``plan``) and how values are
binned (``binning``). Pure Python: engines translate it, never re-invent it."""

from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, Kind, make_attack
from kpr.metric.binning import MISSING, NEG_INF, OUTSIDE, POS_INF, Moments, NumericBins

__all__ = [
    "DEFAULT_TOLERANCE",
    "MISSING",
    "NEG_INF",
    "OUTSIDE",
    "POS_INF",
    "Attack",
    "Kind",
    "Moments",
    "NumericBins",
    "make_attack",
]
