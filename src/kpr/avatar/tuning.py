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
* utility: mean Hellinger distance and mean correlation difference.

:func:`tune` walks the ks in increasing order and stops at the first whose KPR
lower bound reaches a target. KPR is not guaranteed to rise with k (each k is
its own random draw), so the answer is "the smallest k of the list that
reaches it", not a statement about the ks after it, which are not evaluated.
When no k reaches it, the advice follows from the measured sweep: a larger k
is suggested only while the KPR is still rising beyond its interval; on a
plateau (the KPR at the largest k within the interval of the previous k, or
below it) more k is not the remedy, and tune says so.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from kpr.analysis.baselines import DEFAULT_SUBSETS, evaluate_inputs
from kpr.avatar import _table as tb
from kpr.avatar.distance import distance_metrics
from kpr.avatar.generator import Generation, generate
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
from kpr.results.ksweep import (
    Decoding,
    SweepOverK,
    Synthesis,
    TuneResult,
)
from kpr.results.ksweep_rows import SweepRow, SweepRun
from kpr.results.rates import AttackRate

#: ``progress(done, total, label)``, as in ``kpr.analysis``: called before each step.
Progress = Callable[[int, int, str], None]

DEFAULT_KS: tuple[int, ...] = (2, 5, 10, 20, 40, 80)
#: tune searches the same ks as sweep reports: one list, so the two agree.
DEFAULT_TUNE_KS: tuple[int, ...] = DEFAULT_KS

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
    categorical: list[str]
    inputs: dict[str, str]
    keep_identifiers: list[str] = field(default_factory=list)
    control_subsets: int = DEFAULT_SUBSETS
    roles: dict[str, Any] | None = None
    numeric: list[str] = field(default_factory=list)


def _plan(
    original: Any,
    known: str | Iterable[str],
    ks: Iterable[object],
    control: Any,
    tolerance: float,
    categorical: Iterable[str] | None,
    repeats: object,
    seed: object,
    ncp: object,
    keep_identifiers: Iterable[str] | None = None,
    control_subsets: object = DEFAULT_SUBSETS,
    numeric: Iterable[str] | None = None,
) -> _Plan:
    """Check everything before the first (slow) generation, each problem in one line."""
    attack = make_attack(known, tolerance)
    whole_number(repeats, "repeats", 1)
    whole_number(ncp, "ncp", 1)
    check_subsets(control_subsets, "control_subsets")
    check_seed(seed)
    cats = [categorical] if isinstance(categorical, str) else list(categorical or [])
    inputs = {"original": _label(original, "original")}
    if control is not None:
        inputs["control"] = _label(control, "control")
    original = _read(original, cats, "original")
    tb.frame_backend(original)  # a polars or pandas table, else one clear InputError
    names = [str(c) for c in tb.column_names(original)]
    check_columns(names, attack.known, "original")
    nums = [numeric] if isinstance(numeric, str) else list(numeric or [])
    check_columns(names, cats + nums, "original")
    n = tb.n_rows(original)
    if n < 2:
        raise InputError(
            f"the original table has {n} row(s); avatars need at least 2 (k >= 1 neighbours)"
        )
    checked_ks = check_ks(ks, n)
    if control is not None:
        control = _read(control, cats, "control")
        tb.frame_backend(control)  # a polars or pandas table, else one clear InputError
        check_columns([str(c) for c in tb.column_names(control)], attack.known, "control")
    # A column the user declares categorical is compared as categorical by the attack too.
    kinds = {c: Kind.CATEGORICAL for c in cats if c in attack.known}
    kinds.update({c: Kind.NUMERIC for c in nums if c in attack.known})
    keep = [keep_identifiers] if isinstance(keep_identifiers, str) else list(keep_identifiers or [])
    subsets = int(control_subsets)  # type: ignore[call-overload]  # checked above
    return _Plan(
        original, control, replace(attack, kinds=kinds), checked_ks, cats, inputs, keep, subsets,
        numeric=nums,
    )  # fmt: skip


def _label(table: Any, role: str) -> str:
    if isinstance(table, str | os.PathLike):
        return os.fspath(table)
    return f"{role} ({type(table).__module__.split('.')[0]} table)"


def _run(
    plan: _Plan,
    k: int,
    seed: int,
    *,
    ncp: int,
    tolerance: float,
    synthesis: Synthesis,
    decoding: Decoding,
    confidence: float,
    step: Callable[[str], None],
) -> SweepRun:
    """Generate one avatar table and measure it."""
    step(_STEPS[0])
    start = time.perf_counter()
    gen = generate(
        plan.original, k=k, ncp=ncp, seed=seed, categorical=plan.categorical, synthesis=synthesis,
        categorical_decoding=decoding, keep_identifiers=plan.keep_identifiers,
        numeric=plan.numeric,
    )  # fmt: skip
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
    scored = [c for c in tb.column_names(plan.original) if c not in plan.keep_identifiers]
    declared = {c: "categorical" for c in plan.categorical} | {c: "numeric" for c in plan.numeric}
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
        mean_hellinger=use.mean_hellinger,
        correlation_difference=use.mean_abs_association_change,
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
    seed: int,
    ncp: int,
    tolerance: float,
    synthesis: Synthesis,
    decoding: Decoding,
    confidence: float,
    progress: Progress | None,
    stop: Callable[[SweepRow], bool],
) -> SweepOverK:
    """Evaluate the ks in increasing order until ``stop`` says so."""
    result = SweepOverK(
        known=plan.attack.known, tolerance=tolerance, ncp=ncp, seed=seed, repeats=repeats,
        synthesis=synthesis, confidence=confidence, n=tb.n_rows(plan.original),
        decoding=decoding, inputs=plan.inputs, keep_identifiers=tuple(plan.keep_identifiers),
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

            run = _run(
                plan, k, seed + r, ncp=ncp, tolerance=tolerance, synthesis=synthesis,
                decoding=decoding, confidence=confidence, step=step,
            )  # fmt: skip
            runs.append(run)
        result.rows.append(SweepRow(k, tuple(runs)))
        if stop(result.rows[-1]):
            break
    if progress is not None:
        progress(total, total, "done")
    result.roles = plan.roles
    return result


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
) -> SweepOverK:
    """KPR, pairing metrics and utility of the avatars of ``original`` for each k.

    ``original`` (and ``control``) is a polars or pandas table, or a CSV/Parquet path.
    Each k is generated ``repeats`` times with seeds ``seed``, ``seed + 1``, ...; the
    KPR of a run equals ``kpr.evaluate(original, generate(original, k=k, seed=s,
    ...).avatars, known)``. Columns in ``categorical`` are categorical both for the
    generator and for the attack; columns in ``numeric`` stay numeric for both (a 1-10
    score the generator would otherwise treat as categories). ``progress(done, total,
    label)`` is called before each step. ``categorical_decoding`` and ``keep_identifiers`` as in
    :func:`kpr.avatar.generate`.

    With ``control`` (individuals not used to make the avatars), each run also holds
    the size-fair control comparison, equal to ``kpr.evaluate(original, avatars,
    known, control=control, control_subsets=control_subsets, seed=s).control``; it
    costs ``control_subsets`` extra attacks per run when the tables differ in size.
    """
    plan = _plan(
        original, known, ks, control, tolerance, categorical, repeats, seed, ncp,
        keep_identifiers, control_subsets, numeric,
    )  # fmt: skip
    tolerance = plan.attack.tolerance
    return _walk(
        plan, repeats=repeats, seed=int(seed), ncp=ncp, tolerance=tolerance,
        synthesis=synthesis, decoding=categorical_decoding, confidence=confidence,
        progress=progress, stop=lambda _row: False,
    )  # fmt: skip


def tune(
    original: Any,
    known: str | Iterable[str],
    target: float = 95.0,
    ks: Iterable[int] = DEFAULT_TUNE_KS,
    repeats: int = 1,
    seed: int = 0,
    ncp: int = 5,
    tolerance: float = DEFAULT_TOLERANCE,
    categorical: Iterable[str] | None = None,
    progress: Progress | None = None,
    *,
    synthesis: Synthesis = "full",
    confidence: float = DEFAULT_CONFIDENCE,
    categorical_decoding: Decoding = "draw",
    keep_identifiers: Iterable[str] | None = None,
    control: Any = None,
    control_subsets: int = DEFAULT_SUBSETS,
    numeric: Iterable[str] | None = None,
) -> TuneResult:
    """The smallest k of ``ks`` whose KPR lower bound (``confidence`` interval; with
    repeats, the lowest over them) reaches ``target`` percent, with its utility.

    The ks are evaluated in increasing order and the search stops at the first that
    reaches the target: nothing makes the KPR rise with k (the sweep measures it), so a
    larger k is not promised to reach it too. ``result.k`` is None when none does; then
    ``result.message`` gives the highest lower bound reached. The avatars measured for
    the picked k are those of ``avatarize(original, k=k, seed=seed, ...)``. ``control``
    and ``control_subsets`` add the size-fair control comparison as in :func:`sweep`
    (it informs; the pick depends on the KPR lower bound only).
    """
    goal = percentage(target, "target", zero=False)
    plan = _plan(
        original, known, ks, control, tolerance, categorical, repeats, seed, ncp,
        keep_identifiers, control_subsets, numeric,
    )  # fmt: skip
    tolerance = plan.attack.tolerance
    result = _walk(
        plan, repeats=repeats, seed=int(seed), ncp=ncp, tolerance=tolerance,
        synthesis=synthesis, decoding=categorical_decoding, confidence=confidence,
        progress=progress, stop=lambda row: row.low >= goal,
    )  # fmt: skip
    last = result.rows[-1]
    return TuneResult(target=goal, k=last.k if last.low >= goal else None, sweep=result, ks=plan.ks)
