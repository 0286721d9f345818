"""The tolerance curve: the same attack at several tolerances (drawn in the
analysis report by ``kpr.render.plots.tolerance_svg``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from kpr.analysis.attacks import run_attack
from kpr.errors import InputError
from kpr.inputs.reconcile import Prepared
from kpr.metric.attack import Attack, check_tolerance
from kpr.metric.interval import DEFAULT_CONFIDENCE
from kpr.results.rates import AttackRate, Method

DEFAULT_TOLERANCES: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1, 0.2)


def check_tolerances(values: Iterable[object]) -> tuple[float, ...]:
    """Each in (0, 1); sorted, duplicates dropped."""
    out = sorted({check_tolerance(v) for v in values})
    if not out:
        raise InputError("tolerances is empty: give at least one, e.g. 0.01,0.05,0.1")
    return tuple(out)


def tolerance_curve(
    prepared: Prepared,
    attack: Attack,
    tolerances: Iterable[float] = DEFAULT_TOLERANCES,
    *,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
    known_rates: Iterable[AttackRate] = (),
    step: Callable[[str], None] | None = None,
) -> list[AttackRate]:
    """The rate of ``attack`` at each tolerance (rates already computed for the
    same attack and method in ``known_rates`` are reused; ``step(label)`` is called
    before each other attack). No tolerance, no curve."""
    done = {r.tolerance: r for r in known_rates if r.known == attack.known and r.method == method}
    out: list[AttackRate] = []
    tolerances = tuple(tolerances)
    for t in check_tolerances(tolerances) if tolerances else ():
        if t not in done and step is not None:
            step(f"tolerance {t:g}")
        at_t = replace(attack, tolerance=t)
        out.append(done.get(t) or run_attack(prepared, at_t, method=method, confidence=confidence))
    return out
