"""One attack on loaded inputs, by either method, as an :class:`AttackRate`.

Every part of the analysis (sweep, baselines, tolerance curve) goes through
``run_attack``, so each figure it reports is exactly what ``kpr.evaluate``
(method ``bins``) or ``window_attack`` (method ``window``) gives for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kpr.analysis.window import window_counts
from kpr.errors import InputError
from kpr.inputs.reading import ReadSettings
from kpr.inputs.reconcile import Prepared
from kpr.measure import check_loaded, evaluate_loaded, load
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, make_attack
from kpr.metric.counts import require_rows
from kpr.metric.interval import DEFAULT_CONFIDENCE
from kpr.results.rates import METHODS, AttackRate, Method


def check_method(method: object) -> Method:
    if method not in METHODS:
        raise InputError(f"method must be 'bins' or 'window', got {method!r}")
    return method


def run_attack(
    prepared: Prepared,
    attack: Attack,
    *,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
) -> AttackRate:
    """Evaluate one (checked) attack on a pair loaded once (``kpr.measure.load``)."""
    if method == "bins":
        counts = evaluate_loaded(prepared, attack).counts
    else:
        check_loaded(prepared, attack)
        counts = window_counts(prepared, attack.known, attack.tolerance)
        require_rows(counts.n)
    return AttackRate.of(attack, counts, method, confidence)


def window_attack(
    original: Any,
    avatars: Any,
    known: str | Iterable[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> AttackRate:
    """The KPR with the window attack (see ``kpr.analysis.window``): same inputs
    as ``kpr.evaluate``; numeric values approach within ± tolerance * |mean|."""
    attack = make_attack(known, tolerance, kinds)
    pair = load(original, avatars, attack, ReadSettings()).pair
    return run_attack(pair, attack, method="window", confidence=confidence)
