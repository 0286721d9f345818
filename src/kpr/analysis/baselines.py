"""Baselines that put a rate in context.

* Control: real individuals of the same population that were *not* used to
  train the synthesizer, attacked through the same avatars (they play the role
  of the original, with their own U and classes). Their rate is what the
  population structure gives any attacker; the gap to the original's rate, at
  the same size (random subsets of the larger side, averaged), is what the
  synthesis itself creates.
* Original published: the rate if the original table itself were published (avatars
  = original), a reference the avatars' rate is meant to improve on (not the worst
  case: that is every member of U linked, ``AttackRate.floor``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, Literal

import narwhals as nw
import numpy as np
import polars as pl

from kpr.analysis.attacks import run_attack
from kpr.checks import seed as check_seed
from kpr.checks import subsets as check_subsets
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.errors import InputError
from kpr.inputs.reading import ReadSettings
from kpr.inputs.reconcile import Prepared
from kpr.inputs.same_rows import comparable, repeated_rows, rows_found, same_rows
from kpr.measure import Inputs, evaluate_loaded, load
from kpr.metric.attack import ROW, Attack, make_attack
from kpr.metric.counts import Counts
from kpr.metric.interval import DEFAULT_CONFIDENCE
from kpr.notices import Notice
from kpr.progress import Step
from kpr.results.control import ControlComparison
from kpr.results.evaluation import KprResult
from kpr.results.rates import AttackRate, Method
from kpr.results.sizes import SIZE_SUBSETS, SizeCheck, sizes_differ


def original_published(prepared: Prepared) -> Prepared:
    """The same inputs with the original table published as the avatars: an attack on
    them equals ``kpr.evaluate(original, original, known)`` (method ``bins``)."""
    return replace(prepared, avatars=prepared.original, kinds=dict(prepared.kinds))


#: Random subsets of the larger side averaged by the size-fair control comparison.
DEFAULT_SUBSETS = 20


def _polars(frame: nw.LazyFrame[Any]) -> pl.DataFrame:
    native = frame.collect(backend="polars").to_native()
    assert isinstance(native, pl.DataFrame)
    return native


def _known_rows(prepared: Prepared, known: list[str]) -> pl.DataFrame:
    return _polars(prepared.original.select(known))


def load_inputs(
    original: Any,
    avatars: Any,
    attack: Attack,
    csv: ReadSettings,
    control: Any = None,
    row_id: str | None = None,
    secrets: tuple[str, ...] = (),
    kinds: Mapping[str, str] | None = None,
) -> Inputs:
    """The inputs read once (``kpr.measure.load``: the known columns of ``attack``).
    With ``secrets``, the secret columns too (``kinds``: the declared kinds, the
    secrets' among them), held in memory for the counts of every secret, and a control
    that holds exactly the original's rows refused: ``kpr.evaluate``'s attack runs on
    them too, so ``kpr evaluate --secret`` reads each file once."""
    if not secrets:
        return load(original, avatars, attack, csv, control, row_id=row_id)
    loaded = make_attack([*attack.known, *secrets], attack.tolerance, kinds)
    inputs = load(
        original, avatars, loaded, csv, control,
        materialize=True, control_known=loaded.known, row_id=row_id,
    )  # fmt: skip
    whole_o, whole_c = inputs.whole
    if whole_o is not None and whole_c is not None:
        shared_rows(whole_o, whole_c)  # refuses a control holding exactly the original's rows
    return inputs


def shared_rows(
    original: pl.DataFrame, control: pl.DataFrame, role: str = "control"
) -> tuple[int, int]:
    """Control rows equal to some original row, and original rows equal to another
    original row, on every column the tables share, compared by value and kind as the
    metric compares them (30 equals 30.0; missing equals missing). Refuses a control
    that holds exactly the original's rows, however it is written (``role``: the
    table's name in the message, e.g. ``holdout``)."""
    left, right = comparable(original, control)
    if same_rows(left, right):
        raise InputError(
            f"the {role} table holds exactly the original's rows (compared by value, so "
            f"30 and 30.0 are equal): a {role} must be individuals NOT used to make the "
            "avatars; give a held-out table"
        )
    return rows_found(right, left), repeated_rows(left)


Side = Literal["original", "avatars"]


def _subset(
    prepared: Prepared, frames: dict[Side, pl.DataFrame], side: Side, rows: np.ndarray
) -> Prepared:
    """The same inputs with only ``rows`` (positions) of the ``side`` table."""
    tables = {**frames, side: frames[side][rows]}
    return replace(
        prepared,
        original=nw.from_native(tables["original"].lazy()),
        avatars=nw.from_native(tables["avatars"].lazy()),
        kinds=dict(prepared.kinds),
        unique_values={},  # counted again on the subset
        markers={},
    )


def subset_attacks(
    prepared: Prepared,
    size: int,
    count: int,
    seed: int,
    attack: Attack,
    side: Side = "original",
    **opts: Any,
) -> tuple[AttackRate, ...]:
    """``count`` attacks, each on a random subset of ``size`` rows of the ``side``
    table (:func:`random_subsets`)."""
    return tuple(
        run_attack(p, attack, **opts) for p in random_subsets(prepared, size, count, seed, side)
    )


def random_subsets(
    prepared: Prepared, size: int, count: int, seed: int, side: Side = "original"
) -> Iterator[Prepared]:
    """``count`` copies of the inputs, each with a random subset of ``size`` rows of the
    ``side`` table (drawn without replacement by one generator seeded with ``seed``,
    over the rows in :func:`value_order`, so row order does not matter):
    the size-fair draws of the control comparison and of the rate at equal size, for
    every measure compared at another size."""
    frames: dict[Side, pl.DataFrame] = {
        "original": _polars(prepared.original), "avatars": _polars(prepared.avatars)
    }  # fmt: skip
    order = value_order(frames[side])
    rng = np.random.default_rng(seed)
    for _ in range(count):
        rows = np.sort(order[rng.choice(len(order), size=size, replace=False)])
        yield _subset(prepared, frames, side, rows)


def value_order(frame: pl.DataFrame) -> np.ndarray:
    """The positions of ``frame``'s rows sorted by their values, every column in turn
    (missing last; categoricals by their text, not their codes; the row-position
    column left out): positions drawn in this order pick the same rows, by value,
    whatever order the file lists them in, so a seeded draw's rate does not depend
    on row order (tied rows hold the same values; only correct links, which follow
    the pairing, can tell them apart)."""
    keys = [
        pl.col(name).cast(pl.String) if dtype in (pl.Categorical, pl.Enum) else pl.col(name)
        for name, dtype in frame.schema.items()
        if name != ROW  # the row's position: what the order must not depend on
    ]
    if not keys:
        return np.arange(frame.height)
    order = frame.select(pl.arg_sort_by(keys, nulls_last=True, maintain_order=True))
    return order.to_series().to_numpy().astype(np.int64)


def check_control_options(subsets: object, seed: object) -> None:
    """The control comparison's count of subsets (capped) and seed, checked before any work."""
    check_subsets(subsets, "control_subsets")
    check_seed(seed)


def compare_control(
    inputs: Inputs,
    attack: Attack,
    *,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
    original_rate: AttackRate | None = None,
    subsets: int = DEFAULT_SUBSETS,
    seed: int = 0,
    correct_links: int | None = None,
) -> ControlComparison:
    """The one control comparison (``kpr.evaluate``, ``analyze``, the sweep over k and
    tune): the same attack on the original (training) individuals and on the control
    (``inputs.control``), compared at the smaller side's size: ``subsets`` random
    subsets of the larger side of that size (seeded by ``seed``), each its own
    attack, are averaged (see :class:`ControlComparison`). Shared rows are counted on
    every column of ``inputs.whole`` when both are there, else on the known variables;
    a control holding exactly the original's rows is an input error."""
    if inputs.control is None:
        raise ValueError("compare_control needs inputs loaded with a control")
    check_control_options(subsets, seed)
    prepared, control = inputs.pair, inputs.control
    if _polars(control.original.select(nw.len())).item() == 0:
        raise InputError(
            "the control table has no rows: give individuals of the same population who "
            "were not used to make the avatars"
        )
    opts: dict[str, Any] = {"method": method, "confidence": confidence}
    whole_o, whole_c = inputs.whole
    if whole_o is None or whole_c is None:
        known = list(attack.known)
        whole_o, whole_c = _known_rows(prepared, known), _known_rows(control, known)
    shared, repeats = shared_rows(whole_o, whole_c)
    original = original_rate or run_attack(prepared, attack, **opts)
    rate = run_attack(control, attack, **opts)
    side: Literal["original", "control"] | None = None
    drawn: tuple[AttackRate, ...] = ()
    if original.n > rate.n:
        side, drawn = "original", subset_attacks(prepared, rate.n, subsets, seed, attack, **opts)
    elif rate.n > original.n:
        side, drawn = "control", subset_attacks(control, original.n, subsets, seed, attack, **opts)
    return ControlComparison(
        original=original, control=rate, subsets=drawn, subsampled=side,
        shared_rows=shared, original_repeats=repeats, seed=seed, correct_links=correct_links,
    )  # fmt: skip


def evaluate_inputs(
    inputs: Inputs,
    attack: Attack,
    *,
    progress: Step | None = None,
    pairing: Any = None,
    subsets: int = DEFAULT_SUBSETS,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    tuning: Tuning = DEFAULT_TUNING,
) -> KprResult:
    """``kpr.evaluate`` on loaded inputs: the attack on the pair and, when the inputs
    hold a control, the result built with its comparison and warning."""
    result = evaluate_loaded(inputs.pair, attack, progress=progress, pairing=pairing, tuning=tuning)
    result = with_sizes(result, inputs.pair, attack, seed, progress)
    if inputs.control is None:
        return result
    comparison = compare_control(
        inputs, attack, original_rate=AttackRate.of(attack, result.counts, "bins", confidence),
        subsets=subsets, seed=seed, confidence=confidence, correct_links=result.correct_links,
    )  # fmt: skip
    warnings = [*result.warnings, *control_warnings(comparison)]
    return replace(result, control=comparison, warnings=warnings)


def size_check(
    prepared: Prepared, attack: Attack, counts: Counts, seed: int, **opts: Any
) -> SizeCheck | None:
    """The rate at equal size when the sizes differ by more than 5 %, else None: the
    same attack on random subsets of the larger side at the smaller side's size, each
    its own attack (a larger avatar table finds other matches by chance alone)."""
    n, m = counts.n, counts.n_avatars
    if not sizes_differ(n, m):
        return None
    side: Side = "original" if n > m else "avatars"
    drawn = subset_attacks(prepared, min(n, m), SIZE_SUBSETS, seed, attack, side=side, **opts)
    return SizeCheck(n, m, counts.rate, side, tuple(r.rate for r in drawn), seed)


def size_warnings(check: SizeCheck | None) -> list[str]:
    """The warning of sizes that differ (code ``unequal-sizes``), with the rate at
    equal size."""
    return [] if check is None else [Notice("unequal-sizes", check.sentence)]


def with_sizes(
    result: KprResult, prepared: Prepared, attack: Attack, seed: int, progress: Step | None
) -> KprResult:
    """The result with the rate at equal size and its warning when the tables' sizes
    differ by more than 5 %."""
    if progress is not None and sizes_differ(result.n, result.n_avatars):
        progress("the rate at equal size")
    check = size_check(prepared, attack, result.counts, seed)
    if check is None:
        return result
    return replace(result, sizes=check, warnings=[*result.warnings, *size_warnings(check)])


def control_warnings(comparison: ControlComparison | None) -> list[str]:
    """Control rows equal to original rows, set against how often the original repeats
    its own rows: equal records of different people are expected, so they are reported,
    never removed (removing them biases the comparison)."""
    if comparison is None or comparison.shared_rows == 0:
        return []
    settled = comparison.shared_share <= comparison.original_repeat_share
    return [Notice("control-shares-rows", comparison.shared_sentence, settled=settled)]
