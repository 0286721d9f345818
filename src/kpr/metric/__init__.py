"""The metric, written once: what an attack is (``plan``) and how values are
binned (``binning``: the grid; ``classes``: the class rule). Pure Python:
engines translate it, never re-invent it."""

from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, Kind, make_attack
from kpr.metric.binning import Moments, NumericBins
from kpr.metric.classes import MISSING, NEG_INF, OUTSIDE, POS_INF

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
