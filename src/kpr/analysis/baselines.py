"""Baselines that put a rate in context.

* Control: real individuals of the same population that were *not* used to
  train the synthesizer, attacked through the same avatars (they play the role
  of the original, with their own U and classes). Their rate is what the
  population structure gives any attacker; the gap to the original's rate is
  what the synthesis itself creates.
* Worst case: the rate if the original table itself were published (avatars =
  original), the reference the avatars' rate is meant to improve on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kpr.analysis.attacks import run_attack
from kpr.analysis.interval import DEFAULT_CONFIDENCE
from kpr.analysis.result import AttackRate, ControlComparison, Method
from kpr.api import load
from kpr.metric.plan import DEFAULT_TOLERANCE
from kpr.tables import Prepared


def load_control(
    control: Any,
    avatars: Any,
    prepared: Prepared,
    names: Iterable[str],
    *,
    delimiter: str | None = None,
    encoding: str | None = None,
    na_values: Iterable[str] = ("",),
) -> Prepared:
    """Read the control table against the avatars, with the kinds decided on the
    original (so both attacks compare values the same way). Errors name the
    control table, not the original."""
    names = list(names)
    kinds = {n: prepared.kinds[n].value for n in names}
    return load(
        control, avatars, names, kinds=kinds, delimiter=delimiter, encoding=encoding,
        na_values=na_values, materialize=True, role="control",
    )  # fmt: skip


def worst_case_inputs(prepared: Prepared) -> Prepared:
    """The same inputs with the original table published as the avatars."""
    return Prepared(
        original=prepared.original,
        avatars=prepared.original,
        kinds=dict(prepared.kinds),
        has_rows=prepared.has_rows,
    )


def worst_case(
    prepared: Prepared,
    known: Iterable[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
) -> AttackRate:
    """The rate if the original itself were published: equals
    ``kpr.evaluate(original, original, known)`` for the bins method."""
    return run_attack(
        worst_case_inputs(prepared), known, tolerance=tolerance, method=method,
        confidence=confidence,
    )  # fmt: skip


def control_comparison(
    prepared: Prepared,
    control: Prepared,
    known: Iterable[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
    original_rate: AttackRate | None = None,
) -> ControlComparison:
    """The same attack on the original (training) individuals and on the control."""
    known = list(known)
    original = original_rate or run_attack(
        prepared, known, tolerance=tolerance, method=method, confidence=confidence
    )
    rate = run_attack(control, known, tolerance=tolerance, method=method, confidence=confidence)
    return ControlComparison(original=original, control=rate)
