"""The moves the optimiser may try for one linking avatar, grouped by cost
(``Proposals.candidates``): decoys and escapes (``--rule robust``), shifts of the
linking avatar to the next class, joins (another avatar shifted into its class),
blanks, swaps, regenerations, deletion. Which one is kept is the optimiser's choice
(:mod:`kpr.protection.optimise`); every random draw uses the optimiser's generators,
in the same order, so a seed gives the same moves."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from functools import partial

import numpy as np

from kpr.protection.decoys import PREFERENCES, Doubt
from kpr.protection.draws import NewValues
from kpr.protection.moves import Candidate, Column, Link, NewAvatars
from kpr.protection.state import AttackState
from kpr.protection.window_state import Values, WindowState

#: Avatars one class away tried per variable, to move one into a linking profile,
#: and values drawn for each.
_JOINS = 6
_JOIN_DRAWS = 4


class Proposals:
    """The candidate moves, made from the optimiser's current state (its columns,
    held rules, deleted and regenerated rows are shared, not copied)."""

    def __init__(
        self,
        columns: dict[str, Column],
        held: list[AttackState],
        allowed: set[str],
        generators: tuple[random.Random, np.random.Generator],
        deleted: set[int],
        regenerated: dict[int, int],
        new_values: NewValues,
        extras: tuple[NewAvatars | None, Doubt | None, Sequence[WindowState], int],
    ) -> None:
        self.columns, self.held, self.allowed = columns, held, allowed
        self.rng, self.draw = generators
        self.deleted, self.regenerated, self.new_values = deleted, regenerated, new_values
        self.new_avatars, self.doubt, self.windows, self.n_columns = extras
        self.m = len(next(iter(columns.values())).codes)
        self.sorted_values = {
            name: c.values[1:] for name, c in columns.items() if c.values is not None
        }
        #: per (attack, variable): the avatars sorted by their key without that variable
        self.neighbours: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}

    def _digit_changes(self, state: AttackState, name: str, old: int, new: int) -> bool:
        lookup = state.lookups[name]
        return bool(lookup[old] != lookup[new])

    def _values_near(self, col: Column, x: float, draws: int) -> np.ndarray:
        """Codes of up to ``draws`` random values other avatars hold within ``col.bound``
        of ``x`` (the values are sorted: code = position + 1, 0 being missing)."""
        assert col.bound is not None and col.values is not None
        vals = self.sorted_values[col.name]
        lo = int(np.searchsorted(vals, x - col.bound, "left"))
        hi = int(np.searchsorted(vals, x + col.bound, "right"))
        if hi <= lo:
            return np.empty(0, dtype=np.int64)
        codes = np.unique(self.draw.integers(lo, hi, size=min(draws, hi - lo))) + 1
        held = col.first_row[codes] >= 0  # not a value only a new avatar holds
        return codes[held & (np.abs(col.values[codes] - x) <= col.bound)]

    def shifts(self, row: int, state: AttackState, draws: int) -> list[Candidate]:
        """The linking avatar's value moved to the next class."""
        out = []
        for name in state.known:
            col = self.columns[name]
            if col.values is None or col.bound is None or col.kept:
                continue
            old = int(col.codes[row])
            x = float(col.values[old])
            if np.isfinite(x):
                near = self._values_near(col, x, draws)
                lookup = state.lookups[name]
                for new in near[lookup[near] != lookup[old]].tolist():
                    out += self._shifted(row, name, old, new, x)
        return out

    def joins(self, row: int, state: AttackState, draws: int) -> list[Candidate]:
        """Another avatar's value moved into the linking avatar's class: the profile
        is then held twice (tried when the linking avatar itself cannot move)."""
        out = []
        for name in state.known:
            col = self.columns[name]
            if col.values is not None and col.bound is not None and not col.kept:
                out += self._joins(row, state, name, draws)
        return out

    def _joins(self, row: int, state: AttackState, name: str, draws: int) -> list[Candidate]:
        """Avatars that differ from ``row``'s profile only in ``name``, shifted into it."""
        col = self.columns[name]
        lookup, mult = state.lookups[name], state.multipliers[name]
        j = next(i for i, s in enumerate(self.held) if s is state)
        if (j, name) not in self.neighbours:
            rest = state.keys - lookup[col.codes] * mult
            order = np.argsort(rest, kind="stable")
            self.neighbours[(j, name)] = (rest[order], order)
        rest, order = self.neighbours[(j, name)]
        target = int(lookup[col.codes[row]])
        mine = int(state.keys[row]) - target * mult
        lo = int(np.searchsorted(rest, mine, "left"))
        hi = int(np.searchsorted(rest, mine, "right"))
        out = []
        for _ in range(min(_JOINS, hi - lo)):
            other = int(order[self.rng.randrange(lo, hi)])
            theirs = int(col.codes[other])
            if other == row or other in self.deleted or int(lookup[theirs]) == target:
                continue
            if int(state.keys[other]) - int(lookup[theirs]) * mult != mine:
                continue  # its other values changed since the index was built
            x = float(col.values[theirs])  # type: ignore[index]
            if not np.isfinite(x):
                continue
            near = self._values_near(col, x, draws)
            fits = near[lookup[near] == target]
            if len(fits):
                new = int(fits[self.rng.randrange(len(fits))])
                out += self._shifted(other, name, theirs, new, x)
        return out

    def _shifted(self, row: int, name: str, old: int, ref: int, x: float) -> list[Candidate]:
        """A shift of ``row`` from ``x`` into the classes of code ``ref``: a new value
        drawn on the grid (numeric columns), else ``ref``'s value."""
        change = {row: [(name, old, ref)]}
        if not self.new_values.draws(name):
            return [Candidate("shift", 1, change)]
        bound = self.columns[name].bound
        assert bound is not None
        v = self.new_values.draw(name, x, bound, ref)
        return [] if v is None else [Candidate("shift", 1, change, drawn={(row, name): v})]

    def blanks(self, row: int, state: AttackState) -> list[Candidate]:
        out = []
        for name in state.known:
            col = self.columns[name]
            old = int(col.codes[row])
            if col.kept or not col.can_blank or old == 0:
                continue
            if self._digit_changes(state, name, old, 0):
                out.append(Candidate("suppress", 1, {row: [(name, old, 0)]}))
        return out

    def regenerations(self, row: int) -> list[Candidate]:
        """The avatar replaced by one of its new avatars: every known value, and the
        other columns with it (their changed cells count in the cost)."""
        new = self.new_avatars
        if new is None or row not in new.rows or row in self.regenerated:
            return []
        out = []
        for i in new.rows[row]:
            if new.changes_kept is not None and new.changes_kept[i]:
                continue
            changes = []
            for name, col in self.columns.items():
                old, code = int(col.codes[row]), int(new.codes[name][i])
                if old != code:
                    changes.append((name, old, code))
            if changes and not any(self.columns[name].kept for name, _, _ in changes):
                cells = len(changes) + int(new.other_cells[i])
                out.append(Candidate("regenerate", cells, {row: changes}, source=self.m + i))
        return out

    def swaps(self, row: int, state: AttackState, draws: int) -> list[Candidate]:
        out = []
        for name in state.known:
            col = self.columns[name]
            if col.kept:
                continue
            mine = int(col.codes[row])
            for _ in range(draws):
                other = self.rng.randrange(self.m)
                theirs = int(col.codes[other])
                if other == row or other in self.deleted or theirs == mine:
                    continue
                if self._digit_changes(state, name, mine, theirs):
                    changes = {row: [(name, mine, theirs)], other: [(name, theirs, mine)]}
                    out.append(Candidate("swap", 2, changes, partner=other))
        return out

    def doubts_for(self, row: int, link: Link, cells: int, people: list[Values]) -> list[Candidate]:
        """Decoys and escapes of ``cells`` changed cells for a link (``--rule
        robust``), each as a shift; ``people``: the members the link is about,
        looked up once per link."""
        if self.doubt is None or link is None or "shift" not in self.allowed:
            return []
        rule, j, key = link
        attack = self.doubt.attack_of(rule, j)
        if not people:
            people += self.doubt.people(rule, j, key if rule == "window" else row)
        out = []
        for person in people:
            proposals = self.doubt.decoys(attack, person, row, cells, PREFERENCES)
            if cells == 1:
                proposals += self.doubt.escapes(attack, person, row)
            for p in proposals:
                change = {p.row: p.changes}
                drawn = {(p.row, name): v for name, v in p.drawn.items()}
                out.append(
                    Candidate(
                        "shift", len(p.changes), change, drawn=drawn, doubt=p.kind, widths=p.widths
                    )
                )
            if out:
                break
        return out

    def candidates(
        self, row: int, state: AttackState, draws: int, cap: int | None = None, link: Link = None
    ) -> Iterator[list[Candidate]]:
        """Candidates grouped by cost (at most ``cap`` cells), cheapest group first,
        each group built only when the cheaper ones had no admissible move (within one
        cell: moves that create doubt, then shifts of the linking avatar, then the
        others)."""
        makers: list[tuple[tuple[int, int], Callable[[], list[Candidate]]]] = []
        if self.doubt is not None and link is not None:
            people: list[Values] = []
            most = max(len(w.numeric) for w in self.windows)
            for cells in range(1, most + 1):
                makers.append(((cells, -1), partial(self.doubts_for, row, link, cells, people)))
        if "shift" in self.allowed:
            makers.append(((1, 0), lambda: self.shifts(row, state, draws)))
            makers.append(((1, 1), lambda: self.joins(row, state, _JOIN_DRAWS)))
        if "suppress" in self.allowed:
            makers.append(((1, 1), lambda: self.blanks(row, state)))
        if "swap" in self.allowed:
            makers.append(((2, 0), lambda: self.swaps(row, state, draws)))
        if "regenerate" in self.allowed:
            regenerations = self.regenerations(row)
            for cells in sorted({c.cells for c in regenerations}):
                same = [c for c in regenerations if c.cells == cells]
                makers.append(((cells, 0), same.copy))
        if "delete" in self.allowed:
            delete = Candidate("delete", self.n_columns, {}, (row,))
            makers.append(((self.n_columns, 0), lambda: [delete]))
        for tier_key in sorted({k for k, _ in makers}):
            if cap is not None and tier_key[0] > cap:
                break
            tier = [c for k, make in makers if k == tier_key for c in make()]
            if tier:
                yield tier
