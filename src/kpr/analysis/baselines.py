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

import os
from collections.abc import Iterable
from typing import Any, Literal

import narwhals as nw
import numpy as np
import polars as pl

from kpr.analysis.attacks import run_attack
from kpr.checks import seed as check_seed
from kpr.checks import subsets as check_subsets
from kpr.errors import InputError
from kpr.inputs.files import read_all
from kpr.inputs.reading import ReadSettings
from kpr.inputs.reconcile import Prepared
from kpr.inputs.same_rows import comparable, repeated_rows, rows_found, same_rows
from kpr.measure import load
from kpr.metric.attack import DEFAULT_TOLERANCE
from kpr.metric.interval import DEFAULT_CONFIDENCE
from kpr.notices import Notice
from kpr.results.control import ControlComparison
from kpr.results.evaluation import KprResult
from kpr.results.rates import AttackRate, Method


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


def original_published_inputs(prepared: Prepared) -> Prepared:
    """The same inputs with the original table published as the avatars."""
    return Prepared(
        original=prepared.original,
        avatars=prepared.original,
        kinds=dict(prepared.kinds),
        has_rows=prepared.has_rows,
        row=prepared.row,
        unique_values=prepared.unique_values,
    )


def original_published(
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
        original_published_inputs(prepared), known, tolerance=tolerance, method=method,
        confidence=confidence,
    )  # fmt: skip


#: Random subsets of the larger side averaged by the size-fair control comparison.
DEFAULT_SUBSETS = 20


def _polars(frame: nw.LazyFrame[Any]) -> pl.DataFrame:
    native = frame.collect(backend="polars").to_native()
    assert isinstance(native, pl.DataFrame)
    return native


def _known_rows(prepared: Prepared, known: list[str]) -> pl.DataFrame:
    return _polars(prepared.original.select(known))


def whole_table(table: Any, csv: ReadSettings) -> pl.DataFrame | None:
    """Every column of an input, to find the rows a control shares with the original;
    None for inputs that are not read into memory (DuckDB, Spark)."""
    if isinstance(table, str | os.PathLike):
        return read_all(table, csv).frame.collect()
    if isinstance(table, pl.LazyFrame):
        return table.collect()
    if isinstance(table, pl.DataFrame):
        return table
    if type(table).__module__.split(".")[0] in ("pandas", "pyarrow"):
        try:
            return nw.from_native(table, eager_only=True).to_polars()
        except (TypeError, ValueError, pl.exceptions.PolarsError):  # e.g. non-text names
            return None
    return None


def shared_rows(original: pl.DataFrame, control: pl.DataFrame) -> tuple[int, int]:
    """Control rows equal to some original row, and original rows equal to another
    original row, on every column the tables share, compared by value and kind as the
    metric compares them (30 equals 30.0; missing equals missing). Refuses a control
    that holds exactly the original's rows, however it is written."""
    left, right = comparable(original, control)
    if same_rows(left, right):
        raise InputError(
            "the control table holds exactly the original's rows (compared by value, so "
            "30 and 30.0 are equal): a control must be individuals NOT used to make the "
            "avatars; give a held-out table"
        )
    return rows_found(right, left), repeated_rows(left)


def _subset(prepared: Prepared, frame: pl.DataFrame, rows: np.ndarray) -> Prepared:
    """The same inputs with only ``rows`` (positions) of the original table."""
    return Prepared(
        original=nw.from_native(frame[rows].lazy()),
        avatars=nw.from_native(_polars(prepared.avatars).lazy()),
        kinds=dict(prepared.kinds),
        has_rows=prepared.has_rows,
        row=prepared.row,
    )


def subset_attacks(
    prepared: Prepared,
    size: int,
    count: int,
    seed: int,
    known: list[str],
    **opts: Any,
) -> tuple[AttackRate, ...]:
    """``count`` attacks, each on a random subset of ``size`` rows of the original
    (drawn without replacement by one generator seeded with ``seed``)."""
    frame = _polars(prepared.original)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        rows = np.sort(rng.choice(frame.height, size=size, replace=False))
        out.append(run_attack(_subset(prepared, frame, rows), known, **opts))
    return tuple(out)


def check_control_options(subsets: object, seed: object) -> None:
    """The control comparison's count of subsets (capped) and seed, checked before any work."""
    check_subsets(subsets, "control_subsets")
    check_seed(seed)


def control_comparison(
    prepared: Prepared,
    control: Prepared,
    known: Iterable[str],
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    method: Method = "bins",
    confidence: float = DEFAULT_CONFIDENCE,
    original_rate: AttackRate | None = None,
    subsets: int = DEFAULT_SUBSETS,
    seed: int = 0,
    tables: tuple[pl.DataFrame | None, pl.DataFrame | None] = (None, None),
    correct_links: int | None = None,
) -> ControlComparison:
    """The same attack on the original (training) individuals and on the control,
    compared at the smaller side's size: ``subsets`` random subsets of the larger
    side of that size (seeded by ``seed``), each its own attack, are averaged
    (see :class:`ControlComparison`). Shared rows are counted on every column of
    ``tables`` (the whole original and control) when given, else on the known
    variables; a control holding exactly the original's rows is an input error."""
    known = list(known)
    check_control_options(subsets, seed)
    if _polars(control.original.select(nw.len())).item() == 0:
        raise InputError(
            "the control table has no rows: give individuals of the same population who "
            "were not used to make the avatars"
        )
    opts: dict[str, Any] = {"tolerance": tolerance, "method": method, "confidence": confidence}
    whole_o, whole_c = tables
    if whole_o is not None and whole_c is not None:
        shared, repeats = shared_rows(whole_o, whole_c)
    else:
        shared, repeats = shared_rows(_known_rows(prepared, known), _known_rows(control, known))
    original = original_rate or run_attack(prepared, known, **opts)
    rate = run_attack(control, known, **opts)
    side: Literal["original", "control"] | None = None
    drawn: tuple[AttackRate, ...] = ()
    if original.n > rate.n:
        side, drawn = "original", subset_attacks(prepared, rate.n, subsets, seed, known, **opts)
    elif rate.n > original.n:
        side, drawn = "control", subset_attacks(control, original.n, subsets, seed, known, **opts)
    return ControlComparison(
        original=original, control=rate, subsets=drawn, subsampled=side,
        shared_rows=shared, original_repeats=repeats, seed=seed, correct_links=correct_links,
    )  # fmt: skip


def compare_control(
    result: KprResult,
    prepared: Prepared,
    original: Any,
    control: Any,
    avatars: Any,
    *,
    subsets: int = DEFAULT_SUBSETS,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    delimiter: str | None = None,
    encoding: str | None = None,
    na_values: Iterable[str] = ("",),
) -> ControlComparison:
    """The size-fair control comparison of an evaluation (``kpr.evaluate(control=...)``;
    ``kpr.avatar.sweep`` calls it for each avatar table it generates)."""
    loaded = load_control(
        control, avatars, prepared, result.known, delimiter=delimiter, encoding=encoding,
        na_values=na_values,
    )  # fmt: skip
    main = AttackRate(
        result.known, result.tolerance, "bins", result.n, result.n_avatars,
        result.unique_originals, result.linked, confidence,
    )  # fmt: skip
    csv = ReadSettings(delimiter, encoding, tuple(na_values))
    return control_comparison(
        prepared, loaded, result.known, tolerance=result.tolerance, original_rate=main,
        subsets=subsets, seed=seed, confidence=confidence,
        tables=(whole_table(original, csv), whole_table(control, csv)),
        correct_links=result.correct_links,
    )  # fmt: skip


def control_warnings(comparison: ControlComparison | None) -> list[str]:
    """Control rows equal to original rows, set against how often the original repeats
    its own rows: equal records of different people are expected, so they are reported,
    never removed (removing them biases the comparison)."""
    if comparison is None or comparison.shared_rows == 0:
        return []
    return [Notice("control-shares-rows", comparison.shared_sentence)]
