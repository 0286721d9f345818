"""protect checks itself: its counts against ``kpr.evaluate`` before any move, and
every invariant of the spec's "Protecting a release" on fresh evaluations after. A
failed check is a bug and raises :class:`ProtectionError`, never a result."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from kpr.errors import KprError
from kpr.protection import table as tables
from kpr.protection.collateral import linked_rows
from kpr.protection.loading import Loaded
from kpr.protection.moves import Outcome
from kpr.protection.state import AttackState
from kpr.results.evaluation import KprResult
from kpr.results.marks import Plausibility
from kpr.results.protect import MOVED_GRID_SLACK, Collateral


class ProtectionError(KprError, RuntimeError):
    """The fresh evaluation contradicts what protect computed: a bug, never a result."""


def agree(states: list[AttackState], before: list[KprResult]) -> None:
    """protect's own counts must be kpr.evaluate's before any move."""
    for s, r in zip(states, before, strict=True):
        if s.linked != r.linked:
            raise ProtectionError(
                f"protect's counts ({s.linked} linked) disagree with kpr.evaluate "
                f"({r.linked}) for {', '.join(s.known)}: a bug"
            )


def check_plausible(plausible: Plausibility) -> None:
    """No move may add rows holding a pair of categorical values no original holds."""
    if plausible.after > plausible.before:
        raise ProtectionError(
            f"protect failed its own verification (a bug): rows with a pair of categorical "
            f"values no original holds rose {plausible.before} -> {plausible.after}"
        )


def verify(
    attacks: list[tuple[str, ...]],
    before: list[KprResult],
    after: list[KprResult],
    states: list[AttackState],
    target: float,
    outcome: Outcome,
    loaded: Loaded,
    protected: Any,
) -> None:
    """Every invariant of the spec's "Protecting a release", from the fresh evaluations."""
    problems = []
    for known, b, a, s in zip(attacks, before, after, states, strict=True):
        label = ", ".join(known)
        if a.linked != s.linked:
            problems.append(f"{label}: kept count {s.linked} but evaluate finds {a.linked} linked")
        if not outcome.unfixed and a.rate < target:
            problems.append(f"{label}: rate {a.rate} below the target {target}")
        new = linked_rows(a) - linked_rows(b)
        if new:
            problems.append(f"{label}: {len(new)} individual(s) newly linked, e.g. {min(new)}")
        if b.correct_links is not None and (a.correct_links or 0) > b.correct_links:
            problems.append(f"{label}: correct links rose {b.correct_links} -> {a.correct_links}")
    problems += _table_problems(outcome, loaded, protected)
    if problems:
        raise ProtectionError("protect failed its own verification (a bug): " + "; ".join(problems))


def _table_problems(outcome: Outcome, loaded: Loaded, protected: Any) -> list[str]:
    """The protected table keeps the input's columns, their order and dtypes, its rows
    less the deleted ones, and every cell of a column that is not a known variable."""
    problems = []
    names = tables.columns_of(loaded.table, loaded.library)
    if tables.columns_of(protected, loaded.library) != names:
        problems.append("the columns or their order changed")
    rows = tables.n_rows(loaded.table, loaded.library) - len(outcome.deleted)
    if tables.n_rows(protected, loaded.library) != rows:
        problems.append("the row count is not the input's minus the deleted rows")
    before_pl = tables.to_polars(loaded.table, loaded.library)
    after_pl = tables.to_polars(protected, loaded.library)
    if before_pl.schema != after_pl.schema:
        problems.append("a column's dtype changed")
    others = [n for n in names if n not in loaded.kinds]
    kept = np.ones(before_pl.height, dtype=bool)
    kept[list(outcome.deleted)] = False
    position = np.cumsum(kept) - 1
    same_row = kept.copy()
    same_row[list(outcome.regenerated)] = False  # regenerate replaces the whole row
    same = (
        before_pl.filter(pl.Series(same_row))
        .select(others)
        .equals(after_pl[position[same_row]].select(others))
    )
    if others and not same:
        problems.append("a column that is not a known variable changed")
    return problems


def verify_robust(rows: tuple[Collateral, ...], target: float, met: bool) -> None:
    """``--rule robust``, checked by fresh evaluations: under the window rule nobody
    is newly linked and every attack reaches the target when the run met it; on each
    moved grid nobody is newly linked and every attack reaches the target less
    :data:`~kpr.results.protect.MOVED_GRID_SLACK` points when the run met it."""
    for c in rows:
        if c.rule == "window":
            floor, what = target, "the window rule"
        elif c.offset:
            floor, what = target - MOVED_GRID_SLACK, f"the grid moved {c.offset:g} width"
        else:
            continue
        if c.newly_linked or (met and c.after.rate < floor):
            raise ProtectionError(
                f"protect failed its own verification (a bug): under {what}, "
                f"{', '.join(c.known)}: {c.after.rate:.4f} %, {c.newly_linked} newly linked"
            )
