"""Choosing k: privacy and utility of the avatars across the number of neighbours.

The source recommends raising k to raise the KPR (an avatar mixes more
neighbours, so it sits further from its own individual) at some cost in
utility. :func:`sweep` measures that trade-off on the user's own table: for each
k (and each repeat, seeds ``seed``, ``seed + 1``, ...) it generates avatars and
reports

* the KPR of the attack on ``known`` (``kpr.evaluate``, bit for bit) with its
  Wilson interval, and optionally the size-fair comparison with a control group
  attacked through the same avatars (``kpr.evaluate(control=...)``'s, bit for
  bit: the same function, seeded with the run's seed);
* the pairing-based metrics of the Avatar paper: hidden rate and median local
  cloaking (ties count in the cloaking, broken at random in the hidden rate);
* correct links: of the individuals the attack links, those linked to their own
  avatar (kpr made the avatars, so it knows the pairing), and the
  re-identification rate 100 x correct / n;
* distances to the originals: exact-copy share, median DCR and NNDR
  (:mod:`kpr.avatar.distance`; the control, when given, is the holdout baseline);
* utility (:func:`kpr.utility`): SDMetrics' Quality Report scores (overall, column
  shapes, column pair trends) and Octopize's mean Hellinger distance and
  correlation difference.

:func:`tune` evaluates every k and chooses on stated criteria
(:class:`~kpr.results.ksweep_tune.TuneCriteria`): the KPR lower bound reaches a
target, the control difference's interval lies below a bound (with a control), the
median local cloaking reaches a floor; among the ks meeting all, the most useful
(SDMetrics' overall score). It repeats each k (3 times by default) so that the
intervals it compares cover the generator's randomness, not one draw. KPR is not
guaranteed to rise with k (each k is its own random draw): when no k meets every
criterion, the advice follows from the measured sweep (a larger k is suggested for
the KPR only while it is still rising beyond its interval).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from typing import Any, TypedDict, Unpack

import numpy as np

from kpr.analysis.baselines import DEFAULT_SUBSETS, evaluate_inputs
from kpr.avatar import _table as tb
from kpr.avatar.distance import distance_metrics
from kpr.avatar.generator import Generation, generate_with
from kpr.avatar.metrics import (
    cloaking_of,
    correct_links,
    hidden_rate,
    median_local_cloaking,
)
from kpr.checks import percentage, whole_number
from kpr.checks import seed as check_seed
from kpr.checks import subsets as check_subsets
from kpr.errors import InputError
from kpr.fidelity import utility
from kpr.inputs.files import check_columns
from kpr.measure import load
from kpr.metric.attack import DEFAULT_TOLERANCE, Attack, Kind, make_attack
from kpr.metric.interval import DEFAULT_CONFIDENCE
from kpr.progress import Progress
from kpr.results.avatar_settings import Decoding, GeneratorSettings, Synthesis
from kpr.results.ksweep import KSweepResult
from kpr.results.ksweep_rows import SweepRow, SweepRun, UtilityScores
from kpr.results.ksweep_tune import (
    DEFAULT_MAX_CONTROL_DIFFERENCE,
    DEFAULT_MIN_CLOAKING,
    TuneCriteria,
    TuneResult,
)
from kpr.results.rates import AttackRate

DEFAULT_KS: tuple[int, ...] = (2, 5, 10, 20, 40, 80)
#: tune searches the same ks as sweep reports: one list, so the two agree.
DEFAULT_TUNE_KS: tuple[int, ...] = DEFAULT_KS
#: tune's repeats per k: its intervals then envelope three draws of the generator, so a
#: k is chosen on what the generator's randomness leaves, not on one lucky table; three
#: is the fewest giving a worst and a best draw around a middle one, at 3x one sweep's time.
DEFAULT_TUNE_REPEATS = 3

#: Steps of one run, for the progress bar.
_STEPS = ("generating avatars", "privacy metrics", "utility", "KPR")


def check_ks(ks: Iterable[object], n: int | None = None) -> tuple[int, ...]:
    """Whole numbers >= 1 (and < n when the table is known), sorted, duplicates dropped."""
    values = list(ks)
    if not values:
        raise InputError("ks is empty: give at least one k, e.g. 2,5,10,20,40")
    out: set[int] = set()
    for k in values:
        if isinstance(k, bool) or not isinstance(k, int | np.integer):
            raise InputError(f"each k must be a whole number, got {k!r}")
        if k < 1:
            raise InputError(f"each k must be >= 1, got {k}")
        if n is not None and k >= n:
            raise InputError(
                f"k={k} must be smaller than the number of rows ({n:,}): each individual "
                "needs k other individuals; drop it or lower it"
            )
        out.add(int(k))
    return tuple(sorted(out))


def _read(table: Any, categorical: Collection[str], role: str) -> Any:
    """A path is read into polars (CSV typed as ``kpr evaluate`` types it); frames pass."""
    if isinstance(table, str | os.PathLike):
        from kpr.avatar.files import read_original

        return read_original(table, categorical=categorical, role=role)
    return table


@dataclass
class _Plan:
    """Checked parameters shared by :func:`sweep` and :func:`tune`."""

    original: Any
    control: Any
    attack: Attack  # checked once, with the kinds the user declares
    ks: tuple[int, ...]
    generator: GeneratorSettings  #: k and seed: the first run's
    inputs: dict[str, str]
    control_subsets: int = DEFAULT_SUBSETS
    roles: dict[str, Any] | None = None


def _plan(
    original: Any,
    known: str | Iterable[str],
    ks: Iterable[object],
    control: Any,
    tolerance: float,
    repeats: object,
    generator: GeneratorSettings,
    control_subsets: object = DEFAULT_SUBSETS,
) -> _Plan:
    """Check everything before the first (slow) generation, each problem in one line."""
    attack = make_attack(known, tolerance)
    whole_number(repeats, "repeats", 1)
    whole_number(generator.ncp, "ncp", 1)
    check_subsets(control_subsets, "control_subsets")
    check_seed(generator.seed)
    cats = list(generator.categorical)
    inputs = {"original": _label(original, "original")}
    if control is not None:
        inputs["control"] = _label(control, "control")
    blame = _blame(original, "original")  # messages name the file, or the table's role
    original = _read(original, cats, "original")
    tb.frame_backend(original)  # a polars or pandas table, else one clear InputError
    if generator.drop:  # left out of the avatars entirely, as avatarize --drop does
        check_columns([str(c) for c in tb.column_names(original)], generator.drop, blame)
        original = tb.drop_columns(original, list(generator.drop))
    names = [str(c) for c in tb.column_names(original)]
    check_columns(names, attack.known, blame)
    nums = list(generator.numeric)
    check_columns(names, cats + nums, blame)
    n = tb.n_rows(original)
    if n < 2:
        raise InputError(
            f"the original table has {n} row(s); avatars need at least 2 (k >= 1 neighbours)"
        )
    checked_ks = check_ks(ks, n)
    if control is not None:
        blame = _blame(control, "control")
        control = _read(control, cats, "control")
        tb.frame_backend(control)  # a polars or pandas table, else one clear InputError
        present = [c for c in generator.drop if c in tb.column_names(control)]
        control = tb.drop_columns(control, present) if present else control
        check_columns([str(c) for c in tb.column_names(control)], attack.known, blame)
    # A column the user declares categorical is compared as categorical by the attack too.
    kinds = {c: Kind.CATEGORICAL for c in cats if c in attack.known}
    kinds.update({c: Kind.NUMERIC for c in nums if c in attack.known})
    subsets = int(control_subsets)  # type: ignore[call-overload]  # checked above
    attack = replace(attack, kinds=kinds)
    return _Plan(original, control, attack, checked_ks, generator, inputs, subsets)


def _blame(table: Any, role: str) -> str:
    """How a message names an input: its role and file (``original data.csv``)."""
    label = _label(table, role)
    return f"{role} {label}" if isinstance(table, str | os.PathLike) else label


def _label(table: Any, role: str) -> str:
    if isinstance(table, str | os.PathLike):
        return os.fspath(table)
    return f"{role} ({type(table).__module__.split('.')[0]} table)"


def _run(
    plan: _Plan,
    settings: GeneratorSettings,
    *,
    tolerance: float,
    confidence: float,
    step: Callable[[str], None],
) -> SweepRun:
    """Generate one avatar table and measure it."""
    step(_STEPS[0])
    start = time.perf_counter()
    gen = generate_with(plan.original, settings)
    k, seed = settings.k, int(settings.seed or 0)
    seconds = time.perf_counter() - start
    if plan.roles is None and gen.roles is not None:
        plan.roles = gen.roles.to_dict()
    step(_STEPS[1])
    cloaking = cloaking_of(gen)
    distance = distance_metrics(
        _fitted_columns(plan.original, gen), gen.avatars, _holdout(plan.control, gen),
        projection=gen.projection,
    )  # fmt: skip
    step(_STEPS[2])
    scored = [c for c in tb.column_names(plan.original) if c not in settings.keep_identifiers]
    declared = {c: "categorical" for c in settings.categorical}
    declared |= {c: "numeric" for c in settings.numeric}
    use = utility(
        plan.original, gen.avatars, columns=scored,
        kinds={c: kind for c, kind in declared.items() if c in scored},
    )  # fmt: skip
    step(_STEPS[3])
    # kpr.evaluate(original, avatars, control=..., seed=seed)'s result and control
    inputs = load(plan.original, gen.avatars, plan.attack, control=plan.control, materialize=True)
    result = evaluate_inputs(
        inputs, plan.attack, subsets=plan.control_subsets, seed=seed, confidence=confidence
    )
    rate = AttackRate.of(plan.attack, result.counts, "bins", confidence)
    correct = correct_links(result.linked_individuals(), gen.pairing)
    comparison = result.control
    return SweepRun(
        k=k,
        seed=seed,
        kpr=rate,
        control=comparison,
        hidden_rate=hidden_rate(cloaking),
        median_local_cloaking=median_local_cloaking(cloaking),
        utility=UtilityScores.of(use.summary()),
        hellinger=dict(use.columns.select("column", "hellinger").iter_rows()),
        seconds=seconds,
        correct_links=correct,
        distance=distance,
    )


def _holdout(control: Any, gen: Generation) -> Any:
    """The control as the distance baseline, when it has every column the space was
    fitted on (a control may hold only the known variables: then there is none)."""
    if control is None:
        return None
    names = set(tb.column_names(control))
    fitted = [c for c in gen.projection.columns if c not in gen.projection.dropped]
    if not all(c in names for c in fitted):
        return None
    return tb.select_columns(control, fitted)


def _fitted_columns(table: Any, gen: Generation) -> Any:
    """The columns the generation's space was fitted on (passed-through ones left out)."""
    passthrough = [] if gen.roles is None else gen.roles.of("passthrough")
    if not passthrough:
        return table
    return tb.drop_columns(table, passthrough)


def _walk(
    plan: _Plan,
    *,
    repeats: int,
    tolerance: float,
    confidence: float,
    progress: Progress | None,
) -> KSweepResult:
    """Evaluate every k, in increasing order, ``repeats`` times each."""
    result = KSweepResult(
        known=plan.attack.known, tolerance=tolerance, generator=plan.generator, repeats=repeats,
        confidence=confidence, n=tb.n_rows(plan.original), inputs=plan.inputs,
    )  # fmt: skip
    total = len(plan.ks) * repeats * len(_STEPS)
    done = 0
    for k in plan.ks:
        runs = []
        for r in range(repeats):
            where = f"k={k}" + (f", repeat {r + 1}/{repeats}" if repeats > 1 else "")

            def step(label: str, where: str = where) -> None:
                nonlocal done
                if progress is not None:
                    progress(done, total, f"{where}: {label}")
                done += 1

            settings = result.settings(k, r)
            runs.append(_run(plan, settings, tolerance=tolerance, confidence=confidence, step=step))
        result.rows.append(SweepRow(k, tuple(runs)))
    if progress is not None:
        progress(total, total, "done")
    result.roles = plan.roles
    return result


class SweepOptions(TypedDict, total=False):
    """The keywords :func:`sweep` takes after ``*``, which :func:`tune` passes on."""

    synthesis: Synthesis
    confidence: float
    categorical_decoding: Decoding
    keep_identifiers: Iterable[str] | None
    control_subsets: int
    numeric: Iterable[str] | None
    generator: GeneratorSettings | None


def sweep(
    original: Any,
    known: str | Iterable[str],
    ks: Iterable[int] = DEFAULT_KS,
    repeats: int = 1,
    seed: int = 0,
    control: Any = None,
    ncp: int = 5,
    tolerance: float = DEFAULT_TOLERANCE,
    categorical: Iterable[str] | None = None,
    progress: Progress | None = None,
    *,
    synthesis: Synthesis = "full",
    confidence: float = DEFAULT_CONFIDENCE,
    categorical_decoding: Decoding = "draw",
    keep_identifiers: Iterable[str] | None = None,
    control_subsets: int = DEFAULT_SUBSETS,
    numeric: Iterable[str] | None = None,
    generator: GeneratorSettings | None = None,
) -> KSweepResult:
    """KPR, pairing metrics and utility of the avatars of ``original`` for each k.

    Parameters
    ----------
    original, control
        A polars or pandas table, or a CSV/Parquet path. ``control``: individuals not
        used to make the avatars; each run then also holds the size-fair control
        comparison, equal to ``kpr.evaluate(original, avatars, known, control=control,
        control_subsets=control_subsets, seed=s).control`` (``control_subsets`` extra
        attacks per run when the tables differ in size).
    known, tolerance, confidence
        The attack, as in :func:`kpr.evaluate`.
    ks, repeats, seed
        Each k is generated ``repeats`` times with seeds ``seed``, ``seed + 1``, ...; the
        KPR of a run equals ``kpr.evaluate(original, generate(original, k=k, seed=s,
        ...).avatars, known)``.
    ncp, categorical, numeric, synthesis, categorical_decoding, keep_identifiers
        The generator's options, as in :func:`kpr.avatar.generate`; or all of them at
        once as ``generator`` (a :class:`GeneratorSettings`, whose k is ignored and whose
        seed, when set, replaces ``seed``; the keywords are then ignored). Columns in
        ``categorical`` are categorical for the attack too; columns in ``numeric`` stay
        numeric for both.
    progress
        ``progress(done, total, label)``, called before each step.
    """
    settings = _settings(
        generator, seed=seed, ncp=ncp, synthesis=synthesis, numeric=numeric,
        categorical_decoding=categorical_decoding, categorical=categorical,
        keep_identifiers=keep_identifiers,
    )  # fmt: skip
    plan = _plan(original, known, ks, control, tolerance, repeats, settings, control_subsets)
    return _walk(
        plan, repeats=repeats, tolerance=plan.attack.tolerance, confidence=confidence,
        progress=progress,
    )  # fmt: skip


def _settings(generator: GeneratorSettings | None, **options: Any) -> GeneratorSettings:
    """The generator settings of a sweep: given whole, or built from the keywords."""
    seed = options.pop("seed")
    if generator is not None and generator.seed is not None:
        return generator
    check_seed(seed)
    if generator is not None:
        return generator.with_run(generator.k, int(seed))
    return GeneratorSettings.of(seed=int(seed), **options)


def tune(
    original: Any,
    known: str | Iterable[str],
    target: float = 95.0,
    ks: Iterable[int] = DEFAULT_TUNE_KS,
    repeats: int = DEFAULT_TUNE_REPEATS,
    seed: int = 0,
    ncp: int = 5,
    tolerance: float = DEFAULT_TOLERANCE,
    categorical: Iterable[str] | None = None,
    progress: Progress | None = None,
    *,
    control: Any = None,
    max_control_difference: float = DEFAULT_MAX_CONTROL_DIFFERENCE,
    min_cloaking: float = DEFAULT_MIN_CLOAKING,
    **options: Unpack[SweepOptions],
) -> TuneResult:
    """Choose k on stated criteria: every k of ``ks`` is swept (:func:`sweep`,
    ``repeats`` times each) and the chosen k is the most useful (SDMetrics' overall
    quality score) among those meeting all of:

    Parameters
    ----------
    target
        The KPR lower bound (``confidence`` interval; with repeats, the lowest over them)
        reaches this percentage.
    control, control_subsets, max_control_difference
        With a control (individuals not used to make the avatars): the interval of
        control minus original KPR at the same size lies entirely below
        ``max_control_difference`` points (the synthesis adds less risk than that over
        the population's own). Without one, that criterion is not checked.
    min_cloaking
        Every repeat's median local cloaking is at least this (the Avatar paper deems
        above ~5 protective).
    repeats
        3 by default, so that the intervals cover the generator's randomness.
    original, known, ks, seed, tolerance, progress
        As in :func:`sweep`.
    ncp, categorical, options
        The generator's options, as in :func:`sweep`; ``options`` are the keywords
        :func:`sweep` takes after ``*`` (``synthesis``, ``confidence``,
        ``categorical_decoding``, ``keep_identifiers``, ``control_subsets``, ``numeric``,
        ``generator``), passed on to it.

    ``result.k`` is None when no k meets every criterion; ``result.message`` then says
    which fail and what to try. The avatars measured for the chosen k (first repeat) are
    those of ``avatarize(original, k=k, seed=seed, ...)``.
    """
    goal = percentage(target, "target", zero=False)
    ks = list(ks)
    criteria = TuneCriteria(
        goal, control_bound(max_control_difference), cloaking_floor(min_cloaking)
    )
    result = sweep(
        original, known, ks, repeats, seed, control, ncp, tolerance, categorical, progress,
        **options,
    )  # fmt: skip
    return TuneResult(criteria, result, check_ks(ks))


def _number(value: object, name: str, example: str) -> float:
    """A finite number, given as one or as text (the command line's)."""
    number: object = value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
    if isinstance(number, bool) or not isinstance(number, int | float) or not np.isfinite(number):
        raise InputError(f"{name} must be a finite number, e.g. {example}; got {value!r}")
    return float(number)


def control_bound(value: object, name: str = "max_control_difference") -> float:
    """tune's bound on the control difference, in KPR points (any finite number)."""
    return _number(value, name, "1")


def cloaking_floor(value: object, name: str = "min_cloaking") -> float:
    """tune's floor on the median local cloaking: a finite number >= 0."""
    floor = _number(value, name, "5")
    if floor < 0:
        raise InputError(f"{name} must be >= 0 (a number of avatars), got {value!r}")
    return floor
