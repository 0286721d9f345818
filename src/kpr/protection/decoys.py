"""Moves that create real doubt (``--rule robust``, issue 34 item 2).

A shift that carries a linking avatar just across the nearest class edge frees the
link under kpr's grid and nowhere else: an attacker who does not use kpr's edges
still finds one avatar near the person. Two moves that do create doubt:

- a **decoy**: another avatar of the person's categorical stratum, one that links
  no one, gets its numeric values redrawn inside the person's class cell and within
  the person's window (± one width per numeric variable), so that two avatars
  approach the person (under the class rule, the window rule and, when its values
  fall in the person's cell of every moved grid, those too);
- an **escape**: the lone avatar moved strictly outside the person's window on one
  numeric variable (so outside the person's class and window under every grid).

New values are drawn by :class:`kpr.protection.draws.NewValues` (uniform on the
column's grid over the admissible interval, the multiplicity bucket drawn from the
table's own shares), named by a reference code: an avatar value that has the drawn
value's class under every class rule held. This module proposes; the optimiser
checks each proposal against every held rule, as any other move.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from kpr.protection.draws import NewValues, raw_class
from kpr.protection.state import AttackState
from kpr.protection.window_state import Values, WindowState

if TYPE_CHECKING:
    from kpr.protection.moves import Column

#: Avatars of the stratum tried as decoys per link.
DECOY_ROWS = 4
#: Existing values looked at, per variable, for a reference code.
_REFS = 16
#: The cells a decoy is drawn into, each tried: the person's cell under every grid
#: (the class grid and the moved ones), under the class grid, or anywhere in the
#: person's window (a person no avatar holds under one grid cannot take a decoy in
#: its cell there: it would be newly linked).
PREFERENCES = ("every grid", "class", "window")


def row_values(columns: Mapping[str, Column], row: int, known: Sequence[str]) -> Values:
    """An avatar row's current values of ``known``: categorical codes, numbers."""
    out = {}
    for name in known:
        col = columns[name]
        code = int(col.codes[row])
        out[name] = float(code) if col.values is None else float(col.values[code])
    return out


@dataclass(frozen=True)
class Proposal:
    """One decoy or escape: the row, its changes (variable, old code, reference
    code) and the drawn values (variable -> value)."""

    kind: str  #: "decoy" or "escape"
    row: int
    changes: list[tuple[str, int, int]]
    drawn: dict[str, float]
    widths: float  #: the net change, in widths, summed over the changed cells


@dataclass
class Doubt:
    """Proposes decoys and escapes for one link at a time."""

    columns: dict[str, Column]
    states: Sequence[AttackState]  #: each attack's class rule
    moved: Sequence[AttackState]  #: the moved grids, ``per_attack`` per attack
    windows: Sequence[WindowState]  #: each attack's window rule
    new_values: NewValues
    rng: random.Random
    deleted: set[int]
    per_attack: int  #: moved grids per attack
    m: int  #: avatar rows
    #: per attack: the avatar rows of each categorical stratum (built once, checked
    #: at use: a swap may have changed a row's categorical values since)
    _strata: dict[int, dict[tuple[int, ...], np.ndarray]] = field(default_factory=dict)

    def grids(self, attack: int) -> list[AttackState]:
        """The attack's class rule and its moved grids."""
        k = self.per_attack
        return [self.states[attack], *self.moved[attack * k : (attack + 1) * k]]

    def attack_of(self, rule: str, j: int) -> int:
        return j // self.per_attack if rule == "moved" else j

    def people(self, rule: str, j: int, row: int) -> list[Values]:
        """The members of U a link is about: a window link's member; a class link's
        members, those of the lone avatar's stratum in its classes under that grid."""
        attack = self.attack_of(rule, j)
        window = self.windows[attack]
        if rule == "window":
            return [window.member_values(row)]
        state = self.states[j] if rule == "class" else self.moved[j]
        values = self.values(row, (*window.categorical, *window.numeric))
        members, points = window.stratum_of(values)
        keep = np.ones(len(members), dtype=bool)
        for k, name in enumerate(window.numeric):
            x = values[name]
            if math.isfinite(x):
                b = state.bins[name]  # raw_class, over the stratum at once
                keep &= np.floor((points[:, k] - b.origin) / b.width) == raw_class(x, b)
        return [window.member_values(int(i)) for i in members[keep]]

    def values(self, row: int, known: Sequence[str]) -> Values:
        return row_values(self.columns, row, known)

    # decoys -------------------------------------------------------------------

    def decoys(
        self, attack: int, person: Values, lone: int, cells: int, prefer: Sequence[str]
    ) -> list[Proposal]:
        """Avatars of the person's stratum that link no one and need ``cells`` values
        redrawn into the person's class cell and window: one proposal per row and
        preference of :data:`PREFERENCES` (the cells of every grid, of the class
        grid, of the window alone)."""
        window = self.windows[attack]
        if not window.numeric:
            return []
        out = []
        for row in self._stratum_rows(attack, person):
            if row == lone or row in self.deleted or self._links(row):
                continue
            needs = self._needs(attack, person, row)
            if needs is None or len(needs) != cells:
                continue
            for grids in prefer:
                proposal = self._decoy(attack, person, row, needs, grids)
                if proposal is not None:
                    out.append(proposal)
        return out

    def _needs(self, attack: int, person: Values, row: int) -> list[int] | None:
        """The numeric variables (positions) whose value ``row`` must change to
        approach the person inside its class cell; None when it cannot be a decoy (a
        value missing or infinite, or a kept column to change)."""
        window = self.windows[attack]
        class_grid = self.grids(attack)[:1]
        out = []
        for k, name in enumerate(window.numeric):
            col = self.columns[name]
            assert col.values is not None
            x, h = person[name], float(window.half[k])
            y = float(col.values[int(col.codes[row])])
            if not math.isfinite(x):
                if not (y == x or (math.isnan(x) and math.isnan(y))):
                    return None  # another status: not of the stratum
                continue
            if not math.isfinite(y):
                return None
            if abs(y - x) <= h and self._same(name, y, x=x, grids=class_grid):
                continue  # approaches already, in the person's class
            if col.kept:
                return None
            out.append(k)
        return out

    def _decoy(
        self, attack: int, person: Values, row: int, needs: list[int], prefer: str
    ) -> Proposal | None:
        """``row``'s values of ``needs`` drawn within the person's window, in the
        person's cell of the grids ``prefer`` names."""
        window = self.windows[attack]
        grids = self.grids(attack)
        wanted = {"every grid": grids, "class": grids[:1], "window": []}[prefer]
        changes, drawn, widths = [], {}, 0.0
        for k in needs:
            name = window.numeric[k]
            col = self.columns[name]
            assert col.values is not None
            x, h = person[name], float(window.half[k])
            old = int(col.codes[row])
            ref = self._reference(col, x - h, x + h, partial(self._same, name, x=x, grids=wanted))
            if ref is None:
                return None
            v = self._draw(name, x, h, ref)
            if v is None or abs(v - x) > h:
                return None
            changes.append((name, old, ref))
            drawn[name] = v
            widths += abs(v - float(col.values[old])) / h
        return Proposal("decoy", row, changes, drawn, widths) if changes else None

    # escapes ------------------------------------------------------------------

    def escapes(self, attack: int, person: Values, lone: int) -> list[Proposal]:
        """The lone avatar moved strictly outside the person's window on one numeric
        variable (within two widths of the person's value)."""
        window = self.windows[attack]
        out = []
        for k, name in enumerate(window.numeric):
            col = self.columns[name]
            if col.kept or col.values is None:
                continue
            x, h = person[name], float(window.half[k])
            old = int(col.codes[lone])
            y = float(col.values[old])
            if not (math.isfinite(x) and math.isfinite(y)):
                continue
            for side in (1.0, -1.0):
                lo, hi = sorted((x + side * h, x + side * 2 * h))
                ref = self._reference(col, lo, hi, partial(_outside, x, h))
                if ref is None:
                    continue
                v = self._draw(name, x + side * 1.5 * h, 0.5 * h, ref)
                if v is not None and abs(v - x) > h:
                    out.append(
                        Proposal("escape", lone, [(name, old, ref)], {name: v}, abs(v - y) / h)
                    )
        return out

    # helpers ------------------------------------------------------------------

    def _same(self, name: str, v: float, *, x: float, grids: Sequence[AttackState]) -> bool:
        """``v`` and ``x`` in the same class of ``name`` under each of ``grids``."""
        return all(raw_class(v, g.bins[name]) == raw_class(x, g.bins[name]) for g in grids)

    def _reference(
        self, col: Column, lo: float, hi: float, fits: Callable[[float], bool]
    ) -> int | None:
        """The code of a random existing avatar value in ``[lo, hi]`` that ``fits``."""
        assert col.values is not None
        d = self.new_values.of.get(col.name)
        end = d.original if d is not None else len(col.values)
        values = col.values[1:end]
        a = int(np.searchsorted(values, lo, "left"))
        b = int(np.searchsorted(values, hi, "right"))
        if b <= a:
            return None
        tries = sorted({self.rng.randrange(a, b) for _ in range(min(_REFS, b - a))})
        self.rng.shuffle(tries)
        for i in tries:
            code = i + 1
            if col.first_row[code] >= 0 and fits(float(col.values[code])):
                return code
        return None

    def _draw(self, name: str, x: float, bound: float, ref: int) -> float | None:
        """A new value within ``bound`` of ``x`` in the classes of ``ref`` (a date, which
        takes values avatars hold: ``ref``'s own value)."""
        if self.new_values.draws(name):
            return self.new_values.draw(name, x, bound, ref)
        values = self.columns[name].values
        assert values is not None
        v = float(values[ref])
        return v if abs(v - x) <= bound else None

    def _links(self, row: int) -> bool:
        """Whether ``row`` links someone: the one avatar of a profile of U under any
        held grid, or the one avatar approaching a member, in any attack."""
        for s in (*self.states, *self.moved):
            if s.single.get(int(s.keys[row])) == row:
                return True
        for w in self.windows:
            near = w.approached(self.values(row, (*w.categorical, *w.numeric)))
            if len(near) and bool(np.any(w.counts[near] == 1)):
                return True
        return False

    def _stratum_rows(self, attack: int, person: Values) -> list[int]:
        """Up to :data:`DECOY_ROWS` random avatar rows holding the person's
        categorical values of the attack."""
        window = self.windows[attack]
        cat = window.categorical
        if attack not in self._strata:
            index: dict[tuple[int, ...], np.ndarray] = {}
            if cat:
                codes = np.column_stack([self.columns[v].codes[: self.m] for v in cat])
                keys, inverse = np.unique(codes, axis=0, return_inverse=True)
                order = np.argsort(inverse.ravel(), kind="stable")
                cuts = np.cumsum(np.bincount(inverse.ravel(), minlength=len(keys)))[:-1]
                for key, group in zip(keys.tolist(), np.split(order, cuts), strict=True):
                    index[tuple(key)] = group
            else:
                index[()] = np.arange(self.m)
            self._strata[attack] = index
        wanted = tuple(int(person[v]) for v in cat)
        rows: np.ndarray | None = self._strata[attack].get(wanted)
        if rows is None or not len(rows):
            return []
        out = []
        for _ in range(min(3 * DECOY_ROWS, len(rows))):
            row = int(rows[self.rng.randrange(len(rows))])
            current = tuple(int(self.columns[v].codes[row]) for v in cat)
            if row in out or current != wanted:
                continue
            out.append(row)
            if len(out) == DECOY_ROWS:
                break
        return out


def _outside(x: float, h: float, v: float) -> bool:
    """``v`` strictly outside the window ``[x - h, x + h]``."""
    return abs(v - x) > h
