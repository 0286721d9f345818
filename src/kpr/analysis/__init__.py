"""Attacker-knowledge analysis: how the rate depends on what the attacker knows.

* :func:`sweep`: the rate of every subset of candidate known variables, the
  riskiest first, and each variable's contribution;
* :func:`analyze`: one attack with its Wilson interval, the control, the
  original published as is and the worst case (every member of U linked), the
  tolerance curve and (optionally) the sweep;
* :func:`window_attack`: the attack without classes (``method="window"``).

Inputs are read once and every attack is evaluated exactly as ``kpr.evaluate``
does (method ``bins``), so each figure can be checked against it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import polars as pl

from kpr.analysis.attacks import check_method, run_attack, window_attack
from kpr.analysis.baselines import (
    DEFAULT_SUBSETS,
    check_control_options,
    compare_control,
    control_comparison,
    control_warnings,
    load_control,
    original_published,
    whole_table,
)
from kpr.analysis.sweep import (
    DEFAULT_MAX_ATTACKS,
    SweepProgress,
    attack_count,
    check_candidates,
    contributions,
    sweep,
    sweep_loaded,
)
from kpr.analysis.tolerance import (
    DEFAULT_TOLERANCES,
    check_tolerances,
    tolerance_curve,
)
from kpr.errors import InputError
from kpr.inputs.reading import ReadSettings
from kpr.measure import evaluate_loaded, load
from kpr.metric.attack import DEFAULT_TOLERANCE, make_attack
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
    "SweepProgress",
    "SweepResult",
    "analyze",
    "attack_count",
    "check_candidates",
    "check_tolerances",
    "compare_control",
    "contributions",
    "control_comparison",
    "difference_interval",
    "kpr_interval",
    "original_published",
    "run_attack",
    "sweep",
    "sweep_loaded",
    "tolerance_curve",
    "wilson_interval",
    "window_attack",
]


def analyze(
    original: Any,
    avatars: Any,
    known: str | Iterable[str] | None = None,
    *,
    candidates: str | Iterable[str] | None = None,
    max_known: int = 3,
    control: Any = None,
    control_subsets: int = DEFAULT_SUBSETS,
    seed: int = 0,
    pairing: Any = None,
    tolerance: float = DEFAULT_TOLERANCE,
    tolerances: Iterable[float] | None = DEFAULT_TOLERANCES,
    method: Method = "bins",
    kinds: Mapping[str, str] | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    progress: SweepProgress | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
    na_values: Iterable[str] = ("",),
    max_attacks: int | None = DEFAULT_MAX_ATTACKS,
) -> AnalysisResult:
    """Examine the attack with ``known`` variables (default: all ``candidates``).

    Reports its rate with a Wilson interval, the worst case (every member
    of U linked), the original published as is, the control comparison when ``control`` (a table of
    individuals not used to train the synthesizer) is given, the rate at each
    of ``tolerances`` (None: no curve beyond ``tolerance``), and, when
    ``candidates`` are given, the sweep over their subsets of up to
    ``max_known`` variables. ``progress(done, total, label)`` is called as
    the work advances, the last time with ``done == total``. A sweep of more than
    ``max_attacks`` attacks is refused before it starts (None lifts the cap).

    The control is compared at the smaller side's size: ``control_subsets``
    random subsets of the larger side, drawn with ``seed``, are averaged (see
    :class:`ControlComparison`). ``pairing`` (as in ``kpr.evaluate``) adds the
    correct links of the attack.
    """
    method = check_method(method)
    cands: list[str] | None = None
    if candidates is not None:
        cands, max_known = check_candidates(candidates, max_known, max_attacks)
    if known is None:
        if cands is None:
            raise InputError("name the known variables, or the candidates to sweep over")
        known = cands
    attack = make_attack(known, tolerance)
    if control is not None:
        check_control_options(control_subsets, seed)
    curve_tols = check_tolerances(tolerances) if tolerances is not None else ()
    names = list(dict.fromkeys([*attack.known, *(cands or [])]))
    prepared = load(
        original, avatars, names, kinds=kinds, delimiter=delimiter, encoding=encoding,
        na_values=na_values, materialize=True,
    )  # fmt: skip
    control_prepared = None
    tables: tuple[pl.DataFrame | None, pl.DataFrame | None] = (None, None)
    if control is not None:
        csv = ReadSettings(delimiter, encoding, tuple(na_values))
        tables = (whole_table(original, csv), whole_table(control, csv))
        control_prepared = load_control(
            control, avatars, prepared, attack.known, delimiter=delimiter,
            encoding=encoding, na_values=na_values,
        )  # fmt: skip
    n_curve = len([t for t in curve_tols if t != attack.tolerance])
    n_sweep = attack_count(len(cands), max_known) if cands is not None else 0
    total = 2 + (control is not None) + n_curve + n_sweep
    done = 0

    def step(label: str) -> None:
        nonlocal done
        if progress is not None:
            progress(done, total, label)
        done += 1

    opts: dict[str, Any] = {"method": method, "confidence": confidence}
    label = ", ".join(attack.known)
    step(f"attack: {label}")
    correct: int | None = None
    warnings: list[str] = []
    if method == "bins" or pairing is not None:  # warnings come with the full result
        full = evaluate_loaded(prepared, attack.known, tolerance=attack.tolerance, pairing=pairing)
        warnings = list(full.warnings)
        correct = full.correct_links
    if method == "bins":
        main = AttackRate(
            full.known, full.tolerance, "bins", full.n, full.n_avatars,
            full.unique_originals, full.linked, confidence,
        )  # fmt: skip
    else:
        main = run_attack(prepared, attack.known, tolerance=attack.tolerance, **opts)
    step("the original published as is")
    published = original_published(prepared, attack.known, tolerance=attack.tolerance, **opts)
    comparison = None
    if control_prepared is not None:
        step("control individuals")
        comparison = control_comparison(
            prepared, control_prepared, attack.known, tolerance=attack.tolerance,
            original_rate=main, subsets=control_subsets, seed=seed, tables=tables,
            correct_links=correct, **opts,
        )  # fmt: skip
        warnings += control_warnings(comparison)
    curve = []
    for t in curve_tols:
        if t == attack.tolerance:
            curve.append(main)
            continue
        step(f"tolerance {t:g}")
        curve.append(run_attack(prepared, attack.known, tolerance=t, **opts))
    result_sweep = None
    if cands is not None:
        result_sweep = sweep_loaded(
            prepared, cands, max_known, tolerance=attack.tolerance, progress=progress,
            offset=done, total=total, max_attacks=max_attacks, **opts,
        )  # fmt: skip
    elif progress is not None:
        progress(total, total, "done")
    return AnalysisResult(
        attack=main,
        original_published=published,
        tolerance_curve=curve,
        control=comparison,
        sweep=result_sweep,
        warnings=warnings,
        correct_links=correct,
    )
