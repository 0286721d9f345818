"""The optimiser's new numeric values: drawn on the column's grid, given codes.

A candidate names its new value by a *reference* code: an existing value in the
target class of every attack that knows the column (so every attack's digit of the
new value is the reference's, and the candidate is checked as before), and carries
the drawn value beside it. Only when the move is applied does the value get its own
code (or the code of an existing value equal to it): the column's arrays indexed by
code (values, first row, each attack's digit) grow by doubling. A new value's
"first row" is ``-2 - k``: the ``k``-th new value of the column, which
:func:`kpr.protection.table.rebuild` writes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from kpr.metric.attack import Kind
from kpr.metric.binning import NumericBins
from kpr.protection.grid import (
    TRIES,
    Buckets,
    Grid,
    bucket,
    grid_of,
    grow,
    interval,
    multiplicity_check,
)
from kpr.protection.state import AttackState
from kpr.results.marks import MultiplicityCheck

if TYPE_CHECKING:
    from kpr.protection.moves import Candidate, Column


def raw_class(x: float, bins: NumericBins) -> float:
    """The raw class of ``x`` (``kpr.metric.classes.value_codes`` before its special
    codes: two values with the same raw class have the same code)."""
    q = (x - bins.origin) / bins.width
    return float(math.floor(q)) if math.isfinite(q) else q


def new_value_row(k: int) -> int:
    """The source "row" of a column's ``k``-th new value (see the module)."""
    return -2 - k


@dataclass
class _ColumnDraws:
    grid: Grid
    buckets: Buckets
    held: np.ndarray  #: avatars holding each code now
    size: int  #: codes in use
    original: int  #: codes before any new value (sorted values: code = position + 1)
    known: dict[float, int] = field(default_factory=dict)  #: new value -> its code
    new: list[float] = field(default_factory=list)  #: the k-th new value


class NewValues:
    """Draws and codes of the new values of every numeric known variable."""

    def __init__(
        self,
        columns: dict[str, Column],
        states: Sequence[AttackState],
        rng: random.Random,
        grids: dict[str, Grid] | None = None,
    ) -> None:
        self.columns, self.states, self.rng = columns, list(states), rng
        self.of: dict[str, _ColumnDraws] = {}
        for name, col in columns.items():
            if col.kind is not Kind.NUMERIC or col.values is None:
                continue
            input_held = np.bincount(col.codes, minlength=len(col.values))
            present = input_held[1:] > 0
            values = col.values[1:][present]
            grid = (grids or {}).get(name) or grid_of(values, False)
            per_row = input_held[col.codes]
            buckets = Buckets.of(per_row[col.codes > 0])
            size = len(col.values)
            self.of[name] = _ColumnDraws(grid, buckets, input_held, size, size)

    def draws(self, name: str) -> bool:
        return name in self.of

    def draw(self, name: str, x: float, bound: float, ref: int) -> float | None:
        """A new value within ``bound`` of ``x`` in the class of the reference code
        ``ref`` under every attack that knows ``name`` (None: no grid point there,
        or only points that would be held by 2-3 rows when the table's share says
        otherwise)."""
        col, d = self.columns[name], self.of[name]
        assert col.values is not None
        anchor = float(col.values[ref])
        classes = []
        for s in self.states:
            b = s.bins.get(name)
            if b is not None:
                c = raw_class(anchor, b)
                classes.append((b.origin + c * b.width, b.origin + (c + 1) * b.width))
        lo, hi = interval(x, bound, classes)
        wanted = d.buckets.pick(self.rng)
        fallback = None
        for _ in range(TRIES):
            v = d.grid.draw(self.rng, lo, hi)
            if v is None:
                return None
            if not self._same_class(name, v, anchor):
                continue
            got = bucket(self._held(name, v) + 1)
            if got == wanted:
                return v
            if fallback is None and got != 1:
                fallback = v
        return fallback

    def _same_class(self, name: str, v: float, anchor: float) -> bool:
        for s in self.states:
            b = s.bins.get(name)
            if b is not None and raw_class(v, b) != raw_class(anchor, b):
                return False
        return True

    def _code(self, name: str, v: float) -> int | None:
        """The code of an existing value equal to ``v`` held by an input row or a
        new value (a value only a new avatar of *regenerate* holds is not reused)."""
        col, d = self.columns[name], self.of[name]
        assert col.values is not None
        if v in d.known:
            return d.known[v]
        sorted_values = col.values[1 : d.original]
        i = int(np.searchsorted(sorted_values, v))
        if i < len(sorted_values) and sorted_values[i] == v and col.first_row[i + 1] >= 0:
            return i + 1
        return None

    def _held(self, name: str, v: float) -> int:
        code = self._code(name, v)
        return 0 if code is None else int(self.of[name].held[code])

    def settle(self, c: Candidate) -> Candidate:
        """``c`` with each drawn value given its code (new codes made here)."""
        if not c.drawn:
            return c
        changes = {}
        for row, cells in c.changes.items():
            out = []
            for name, old, new in cells:
                v = c.drawn.get((row, name))
                out.append((name, old, new if v is None else self._assign(name, v, new)))
            changes[row] = out
        return type(c)(c.move, c.cells, changes, c.deleted, c.partner, c.source)

    def _assign(self, name: str, v: float, ref: int) -> int:
        code = self._code(name, v)
        if code is not None:
            return code
        col, d = self.columns[name], self.of[name]
        code, d.size = d.size, d.size + 1
        assert col.values is not None
        col.values = grow(col.values, d.size, np.nan)
        col.first_row = grow(col.first_row, d.size, -1)
        d.held = grow(d.held, d.size, 0)
        for s in self.states:
            if name in s.lookups:
                s.lookups[name] = grow(s.lookups[name], d.size, 0)
                s.lookups[name][code] = s.lookups[name][ref]
        col.values[code] = v
        col.first_row[code] = new_value_row(len(d.new))
        d.known[v] = code
        d.new.append(v)
        return code

    def applied(self, c: Candidate) -> None:
        """Keep the multiplicities up to date (call before the codes change)."""
        for cells in c.changes.values():
            for name, old, new in cells:
                d = self.of.get(name)
                if d is not None:
                    d.held[old] -= 1
                    d.held[new] += 1
        for row in c.deleted:
            for name, d in self.of.items():
                d.held[int(self.columns[name].codes[row])] -= 1

    def new_values(self) -> dict[str, tuple[Grid, list[float]]]:
        """Per column, its grid and its new values (the k-th at ``new_value_row(k)``)."""
        return {name: (d.grid, d.new) for name, d in self.of.items() if d.new}


def multiplicity_checks(
    columns: dict[str, Column], deleted: set[int]
) -> tuple[MultiplicityCheck, ...]:
    """The multiplicity check of every numeric known variable with a changed cell,
    on the release's rows (:func:`kpr.protection.grid.multiplicity_check`)."""
    out = []
    for name, col in columns.items():
        if col.kind is not Kind.NUMERIC or col.values is None:
            continue
        kept = np.ones(len(col.codes), dtype=bool)
        kept[list(deleted)] = False
        changed = (col.codes != col.input_codes)[kept]
        if changed.any():
            before, after = col.values[col.input_codes[kept]], col.values[col.codes[kept]]
            out.append(multiplicity_check(name, before, after, changed))
    return tuple(out)
