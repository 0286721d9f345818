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
from kpr.inputs.reconcile import Prepared
from kpr.measure import evaluate_loaded, load
from kpr.metric.attack import DEFAULT_TOLERANCE, make_attack
from kpr.metric.interval import DEFAULT_CONFIDENCE
from kpr.results.rates import METHODS, AttackRate, Method


def check_method(method: object) -> Method:
    if method not in METHODS:
        raise InputError(f"method must be 'bins' or 'window', got {method!r}")
    return method


def run_attack(
    prepared: Prepared,
    known: Iterable[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
) -> AttackRate:
    """Evaluate one attack on inputs loaded once (``kpr.measure.load``)."""
    attack = make_attack(list(known), tolerance)
    method = check_method(method)
    if method == "bins":
        r = evaluate_loaded(prepared, attack.known, tolerance=attack.tolerance)
        n, m, u, linked = r.n, r.n_avatars, r.unique_originals, r.linked
    else:
        missing = [v for v in attack.known if v not in prepared.kinds]
        if missing:
            raise InputError(f"{missing[0]!r} was not loaded; load it with the other columns")
        n, m, u, linked = window_counts(prepared, attack.known, attack.tolerance)
        if n == 0:
            raise InputError(
                "the original table has no rows: there is nobody to protect; "
                "give a table with at least one row"
            )
    return AttackRate(attack.known, attack.tolerance, method, n, m, u, linked, confidence)


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
    prepared = load(original, avatars, attack.known, kinds=kinds)
    return run_attack(
        prepared, attack.known, tolerance=attack.tolerance, method="window",
        confidence=confidence,
    )  # fmt: skip
