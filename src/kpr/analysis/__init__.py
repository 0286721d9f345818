"""Attacker-knowledge analysis: how the rate depends on what the attacker knows.

* :func:`sweep`: the rate of every subset of candidate known variables, the
  riskiest first, and each variable's contribution (``kpr.analysis.sweep``);
* :func:`analyze`: one attack with its Wilson interval, the control, the
  original published as is and the worst case (every member of U linked), the
  tolerance curve and (optionally) the sweep (``kpr.analysis.analyze``);
* :func:`window_attack`: the attack without classes (``method="window"``).

Inputs are read once and every attack is evaluated exactly as ``kpr.evaluate``
does (method ``bins``), so each figure can be checked against it. This module is
the face only: each function lives in its own module.
"""

from __future__ import annotations

from kpr.analysis.analyze import analyze
from kpr.analysis.attacks import window_attack
from kpr.analysis.baselines import DEFAULT_SUBSETS
from kpr.analysis.sweep import DEFAULT_MAX_ATTACKS, contributions, sweep
from kpr.analysis.tolerance import DEFAULT_TOLERANCES, check_tolerances
from kpr.metric.interval import (
    DEFAULT_CONFIDENCE,
    difference_interval,
    kpr_interval,
    wilson_interval,
)
from kpr.results.analysis import AnalysisResult, Contribution, SweepResult
from kpr.results.control import ControlComparison
from kpr.results.rates import METHODS, AttackRate, Method

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_MAX_ATTACKS",
    "DEFAULT_SUBSETS",
    "DEFAULT_TOLERANCES",
    "METHODS",
    "AnalysisResult",
    "AttackRate",
    "Contribution",
    "ControlComparison",
    "Method",
    "SweepResult",
    "analyze",
    "check_tolerances",
    "contributions",
    "difference_interval",
    "kpr_interval",
    "sweep",
    "wilson_interval",
    "window_attack",
]
