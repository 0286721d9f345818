"""One attack examined in depth: its Wilson interval, the control, the original
published as is and the worst case (every member of U linked), the tolerance curve
and (optionally) the sweep, the inputs read once (``kpr analyze`` on the command
line)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Unpack

from kpr.analysis.attacks import check_method, run_attack
from kpr.analysis.baselines import (
    DEFAULT_SUBSETS,
    check_control_options,
    compare_control,
    control_warnings,
    original_published,
    size_check,
    size_warnings,
)
from kpr.analysis.sweep import (
    DEFAULT_MAX_ATTACKS,
    attack_count,
    check_candidates,
    sweep_loaded,
)
from kpr.analysis.tolerance import DEFAULT_TOLERANCES, check_tolerances, tolerance_curve
from kpr.errors import InputError
from kpr.inputs.reading import ReadKeywords, ReadSettings
from kpr.inputs.reconcile import Prepared
from kpr.measure import Inputs, evaluate_loaded, load
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, make_attack
from kpr.metric.interval import DEFAULT_CONFIDENCE
from kpr.progress import Progress
from kpr.results.analysis import AnalysisResult
from kpr.results.control import ControlComparison
from kpr.results.rates import AttackRate, Method
from kpr.results.sizes import sizes_differ


class _Steps:
    """The analysis's progress: ``progress(done, total, label)`` before each attack."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def __call__(self, label: str) -> None:
        if self.progress is not None:
            self.progress(self.done, self.total, label)
        self.done += 1

    def finish(self) -> None:
        """The last call: ``done == total``."""
        if self.progress is not None:
            self.progress(self.total, self.total, "done")


def _attacks(
    known: str | Iterable[str] | None,
    candidates: str | Iterable[str] | None,
    max_known: int,
    max_attacks: int | None,
    tolerance: float,
    kinds: Mapping[str, str] | None,
) -> tuple[Attack, Attack, list[str] | None, int]:
    """The attack examined and the one loaded (its variables and the candidates),
    checked before any work; the candidates and ``max_known``, checked."""
    cands: list[str] | None = None
    if candidates is not None:
        cands, max_known = check_candidates(candidates, max_known, max_attacks)
    if known is None:
        if cands is None:
            raise InputError("name the known variables, or the candidates to sweep over")
        known = cands
    examined = make_attack(known, tolerance)
    names = list(dict.fromkeys([*examined.known, *(cands or [])]))
    loaded = make_attack(names, tolerance, kinds)
    return loaded.on(examined.known), loaded, cands, max_known


def _main_rate(
    pair: Prepared, attack: Attack, method: Method, confidence: float, pairing: Any
) -> tuple[AttackRate, list[str], int | None]:
    """The examined attack's rate, with its warnings and correct links (which come
    with ``kpr.evaluate``'s full result)."""
    if method == "window" and pairing is None:
        return run_attack(pair, attack, method="window", confidence=confidence), [], None
    full = evaluate_loaded(pair, attack, pairing=pairing)
    if method == "bins":
        rate = AttackRate.of(attack, full.counts, "bins", confidence)
    else:
        rate = run_attack(pair, attack, method=method, confidence=confidence)
    return rate, list(full.warnings), full.correct_links


def _baselines(
    inputs: Inputs,
    attack: Attack,
    main: AttackRate,
    correct: int | None,
    step: _Steps,
    opts: dict[str, Any],
    *,
    subsets: int,
    seed: int,
) -> tuple[AttackRate, ControlComparison | None]:
    """The original published as is, and the control comparison when there is a control."""
    step("the original published as is")
    published = run_attack(original_published(inputs.pair), attack, **opts)
    if inputs.control is None:
        return published, None
    step("control individuals")
    comparison = compare_control(
        inputs, attack, original_rate=main, subsets=subsets, seed=seed, correct_links=correct,
        **opts,
    )  # fmt: skip
    return published, comparison


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
    progress: Progress | None = None,
    max_attacks: int | None = DEFAULT_MAX_ATTACKS,
    **read: Unpack[ReadKeywords],
) -> AnalysisResult:
    """Examine the attack with ``known`` variables (default: all ``candidates``):
    its rate with a Wilson interval, the worst case (every member of U linked), the
    original published as is, the control comparison, the tolerance curve and the
    sweep over the candidates. Inputs are those of ``kpr.evaluate``, read once.

    Parameters
    ----------
    candidates, max_known
        Sweep over every subset of up to ``max_known`` candidates (a sweep of more
        than ``max_attacks`` attacks is refused before it starts; None lifts the cap).
    control, control_subsets, seed
        A table of individuals not used to train the synthesizer, compared at the
        smaller side's size: ``control_subsets`` random subsets of the larger side,
        drawn with ``seed``, are averaged (see :class:`ControlComparison`).
    tolerance, tolerances, method, confidence
        The attack's tolerance; the curve's (None: no curve); ``"bins"`` (the metric)
        or ``"window"``; the confidence of the intervals.
    pairing, kinds, delimiter, encoding, na_values
        As in ``kpr.evaluate``: the correct links of the attack, declared kinds, CSV options.
    progress
        ``progress(done, total, label)``, called as the work advances, the last
        time with ``done == total``.
    """
    method = check_method(method)
    attack, loaded, cands, max_known = _attacks(known, candidates, max_known, max_attacks,
                                                tolerance, kinds)  # fmt: skip
    curve = _checked_options(control, control_subsets, seed, tolerances)  # before any work
    inputs = load(original, avatars, loaded, ReadSettings.of(read), control, materialize=True,
                  control_known=attack.known)  # fmt: skip
    n_sweep = attack_count(len(cands), max_known) if cands is not None else 0
    step = _Steps(progress, 2 + (control is not None) + n_sweep)
    opts: dict[str, Any] = {"method": method, "confidence": confidence}
    result = _examined(inputs, attack, curve, step, opts, pairing, control_subsets, seed)
    if cands is not None:
        result.sweep = sweep_loaded(inputs.pair, loaded.on(cands), max_known, progress=progress,
                                    offset=step.done, total=step.total, max_attacks=max_attacks,
                                    **opts)  # fmt: skip
    else:
        step.finish()
    return result


def _checked_options(
    control: Any, subsets: int, seed: int, tolerances: Iterable[float] | None
) -> tuple[float, ...]:
    """The control's options checked (when there is a control), and the tolerances
    of the curve (none: no curve)."""
    if control is not None:
        check_control_options(subsets, seed)
    return check_tolerances(tolerances) if tolerances is not None else ()


def _examined(
    inputs: Inputs,
    attack: Attack,
    curve_tols: tuple[float, ...],
    step: _Steps,
    opts: dict[str, Any],
    pairing: Any,
    subsets: int,
    seed: int,
) -> AnalysisResult:
    """The examined attack from every side but the sweep: its rate, the baselines,
    the rate at equal size and the tolerance curve (``step`` counts their attacks)."""
    step.total += len(set(curve_tols) - {attack.tolerance})
    step(f"attack: {', '.join(attack.known)}")
    main, warnings, correct = _main_rate(inputs.pair, attack, opts["method"], opts["confidence"],
                                         pairing)  # fmt: skip
    published, comparison = _baselines(
        inputs, attack, main, correct, step, opts, subsets=subsets, seed=seed
    )
    if sizes_differ(main.n, main.n_avatars):
        step.total += 1
        step("the rate at equal size")
    sizes = size_check(inputs.pair, attack, main.counts, seed, **opts)
    warnings += [*control_warnings(comparison), *size_warnings(sizes)]
    curve = tolerance_curve(inputs.pair, attack, curve_tols, known_rates=[main], step=step, **opts)
    return AnalysisResult(
        attack=main, original_published=published, tolerance_curve=curve, control=comparison,
        warnings=warnings, correct_links=correct, sizes=sizes,
    )  # fmt: skip
