"""``kpr.protect``: its keywords checked into a :class:`~kpr.protection.job.ProtectJob`,
then the run, step by step: load each input once, count, search, verify by fresh
evaluations, write, log the changes, measure what they cost."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Unpack

import numpy as np
import polars as pl

from kpr.avatar.files import check_output
from kpr.checks import percentage
from kpr.inputs.reading import ReadKeywords, ReadSettings
from kpr.metric.attack import DEFAULT_TOLERANCE, check_tolerance
from kpr.protection import arguments
from kpr.protection import table as tables
from kpr.protection.arguments import DEFAULT_MAX_ATTACKS
from kpr.protection.changes import change_log, counted, largest_change
from kpr.protection.collateral import collateral, untested
from kpr.protection.comparisons import (
    ControlAndFidelity,
    attack_rate,
    control_and_fidelity,
    distances,
)
from kpr.protection.draws import multiplicity_checks
from kpr.protection.job import ProtectJob
from kpr.protection.loading import Loaded, evaluations, kept_pairing, load_inputs, load_pair
from kpr.protection.moves import DEFAULT_MOVES, Column, Outcome
from kpr.protection.search import attack_states, optimise
from kpr.protection.verification import agree, verify, verify_robust
from kpr.results.distance import DistanceMetrics
from kpr.results.evaluation import KprResult
from kpr.results.marks import Plausibility
from kpr.results.protect import AttackOutcome, Collateral, ProtectResult, UntestedSubsets

#: At most this many points of the optimiser's trace are kept in the result.
_TRACE_POINTS = 200


@dataclass(frozen=True)
class Around:
    """What is measured around the protected table, each before and after: the
    control comparison and the fidelity, the distances (None: not asked for), the
    plausibility, the collateral under other rules and the subsets no attack names."""

    checks: ControlAndFidelity
    distances: tuple[DistanceMetrics, DistanceMetrics] | None
    plausibility: Plausibility | None
    collateral: tuple[Collateral, ...]
    untested: UntestedSubsets


def protect(
    original: Any,
    avatars: Any,
    known: str | Iterable[str] | None = None,
    *,
    target: float = 99.0,
    moves: str | Iterable[str] = DEFAULT_MOVES,
    seed: int = 0,
    pairing: Any = None,
    regenerate_k: int | None = None,
    keep: str | Iterable[str] = (),
    candidates: str | Iterable[str] | None = None,
    max_known: int | None = None,
    max_attacks: int | None = DEFAULT_MAX_ATTACKS,
    tolerance: float = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    control: Any = None,
    distances: bool = True,
    utility: bool = True,
    output: str | os.PathLike[str] | None = None,
    collateral: bool = False,
    rule: str = "robust",
    **read: Unpack[ReadKeywords],
) -> tuple[Any, ProtectResult]:
    """Change ``avatars`` as little as possible so that every attack's KPR reaches
    ``target`` (percent), checked at the end by a fresh evaluation of every attack (what
    ``kpr.evaluate`` computes); each input file is read once. Returns the protected
    table (pandas and pyarrow stay themselves; files, polars and other engines come back
    as polars) and a :class:`~kpr.results.protect.ProtectResult` (``met`` is False when
    the target cannot be reached with the moves allowed), whose ``changes`` is the change
    log: the data owner's record, never to be published with the table.

    One attack (``known``) or every subset of up to ``max_known`` of ``candidates`` (more
    than ``max_attacks``, default 5,000, refused before any work; None: no cap).
    ``moves``: any of swap, shift, regenerate (kpr's own avatars of ``original``: needs
    ``pairing``; each new avatar drawn from its individual's ``regenerate_k`` nearest
    originals, default 40), suppress, delete; ``seed`` makes every random choice.
    ``keep``: columns no move changes. ``control``, ``distances``, ``utility``: the
    control comparison of the worst attack, the exact copies and DCR (a FAMD fit), the
    fidelity, each before and after. ``output``: a .csv or .parquet path (a CSV read from
    a CSV keeps its dialect and every cell protect did not change, as read).
    ``collateral``: the unnamed subsets of the known variables measured above 100,000
    rows too. ``rule``: ``"robust"`` (the default: the class rule, the window rule, and
    the grids moved by ¼, ½, ¾ width at the target less 0.5 point; links freed first
    by decoys and escapes) or ``"class"`` (the spec's class rule alone). ``tolerance``,
    ``kinds``, ``delimiter``, ``encoding``, ``na_values``: as in ``kpr.evaluate``. More
    in docs/protect.md.
    """
    inputs = (original, avatars, pairing, control)
    _check_switches(
        output, inputs, read, distances=distances, utility=utility, collateral=collateral
    )
    job = ProtectJob(
        percentage(target, "target", zero=False),
        arguments.Moves.of(moves, seed, regenerate_k, pairing),
        arguments.attacks(known, candidates, max_known, max_attacks),
        check_tolerance(tolerance), arguments.kinds(kinds), ReadSettings.of(read), utility,
        arguments.names(keep, "keep"), arguments.rule(rule),
    )  # fmt: skip
    return _run(job, inputs, output, distances, collateral)


def _check_switches(
    output: Any, inputs: tuple[Any, ...], read: Mapping[str, object], **flags: object
) -> None:
    """The output path (never one of the input files), the switches, the CSV keywords."""
    arguments.output(output)
    if output is not None:
        check_output(output, "output", [x for x in inputs if tables.is_path(x)])
    arguments.flags(**flags)
    arguments.reading(read)


def _run(
    job: ProtectJob,
    inputs: tuple[Any, Any, Any, Any],
    output: str | os.PathLike[str] | None,
    distances_wanted: bool,
    force_untested: bool,
) -> tuple[Any, ProtectResult]:
    """Protect the avatars of ``inputs`` (original, avatars, pairing, control) as ``job``
    says, verified; write them to ``output``; measure the change and its cost (the
    subsets no attack names whatever the tables' size when ``force_untested``)."""
    original, avatars, pairing, control = inputs
    attacks, every, csv, target = job.attacks, job.every, job.csv, job.target
    whole = control is not None or distances_wanted or job.utility or "regenerate" in job.allowed
    loaded = load_inputs(original, avatars, job, pairing, whole)
    states, drawn, extended = attack_states(loaded, job, job.moves.regenerate_k)
    before = evaluations(loaded.pair, job, loaded.own)
    agree(states, before)
    columns, outcome, protected, plausible = optimise(loaded, states, job, drawn, extended)
    kept = kept_pairing(loaded, outcome.deleted)
    after_pair = load_pair(loaded.original, loaded.for_metric(protected), every, csv)
    after = evaluations(after_pair, job, kept)
    verify(attacks, before, after, states, target, outcome, loaded, protected)
    if output is not None:
        tables.write_protected(protected, loaded.library, loaded.source, output)
    protected_pl = tables.to_polars(protected, loaded.library)
    input_pl = tables.to_polars(loaded.table, loaded.library)
    changes = change_log(input_pl, protected_pl, columns, outcome, states)
    worst = min(range(len(attacks)), key=lambda i: (after[i].rate, len(attacks[i])))
    sizes = (loaded.encoded.n, loaded.n_avatars)
    around = Around(
        control_and_fidelity(
            job, loaded, protected, protected_pl, (before[worst], after[worst]), control
        ),
        distances(loaded, protected, csv) if distances_wanted else None,
        plausible,
        collateral(loaded.pair, after_pair, [every.on(a) for a in attacks]),
        untested(loaded.pair, after_pair, every, attacks, sizes, force_untested),
    )
    if job.rule == "robust":
        verify_robust(around.collateral, target, outcome.unfixed == 0)
    result = _result(job, loaded, columns, outcome, before, after, changes, around)
    return loaded.view(protected), result


def _result(
    job: ProtectJob,
    loaded: Loaded,
    columns: dict[str, Column],
    outcome: Outcome,
    before: list[KprResult],
    after: list[KprResult],
    changes: pl.DataFrame,
    around: Around,
) -> ProtectResult:
    per_column, used = counted(changes, job.union)
    checks = around.checks
    control_before, control_after = checks.control or (None, None)
    distance_before, distance_after = around.distances or (None, None)
    return ProtectResult(
        target=job.target,
        moves=job.allowed,
        seed=job.seed,
        attacks=tuple(
            AttackOutcome(attack_rate(b), attack_rate(a), b.correct_links, a.correct_links)
            for b, a in zip(before, after, strict=True)
        ),
        n_avatars=loaded.n_avatars,
        n_columns=len(loaded.columns),
        cells_changed=per_column,
        moves_used=used,
        rows_deleted=len(outcome.deleted),
        shift_bounds={
            n: c.bound for n, c in columns.items() if c.bound is not None and "shift" in job.allowed
        },
        largest_change=largest_change(columns, outcome.deleted),
        tried=outcome.tried,
        trace=_thin(outcome.trace),
        unfixed=outcome.unfixed,
        keep=job.keep,
        rule=job.rule,
        changes=changes,
        multiplicity=multiplicity_checks(columns, outcome.deleted),
        collateral=around.collateral,
        untested=around.untested,
        control_before=control_before,
        control_after=control_after,
        distance_before=distance_before,
        distance_after=distance_after,
        utility=None if checks.utility is None else checks.utility.to_dict(),
        plausibility=around.plausibility,
    )


def _thin(trace: list[tuple[int, float]]) -> tuple[tuple[int, float], ...]:
    """At most :data:`_TRACE_POINTS` points of the optimiser's trace, evenly spread."""
    if len(trace) <= _TRACE_POINTS:
        return tuple(trace)
    picks = np.unique(np.linspace(0, len(trace) - 1, _TRACE_POINTS).round().astype(int))
    return tuple(trace[i] for i in picks)
