"""The greedy optimiser: remove links one by one with the cheapest admissible move.

Linked profiles are visited in a seeded random order. For each, the candidate
moves of its one avatar are tried cheapest first (cells changed; then the change
of the column distributions: a swap keeps them, a shift moves one value to the
next class, a regenerated row takes a new avatar's values, a blank adds a
missing value, a deletion removes a whole row); a
candidate is kept only when it is admissible for every attack
(``AttackState.check``). Among equally cheap admissible candidates the choice is
random, and so are the swap partner and the new value of a shift (a numeric one
drawn uniformly on the column's grid over the target class within one class width,
``kpr.protection.draws``; a date takes a value another avatar holds), so that a
protected row carries no mark: not a blank, not a value sitting on a class edge,
not a copy of a value that was unique.

Under ``--rule robust`` every move is also checked against each attack's window
rule and its class rule on the moved grids (``moved``, held at the target less
``MOVED_GRID_SLACK``), whose links are removed too; and a link is first offered the
moves that create doubt (``kpr.protection.decoys``: a decoy, or the lone avatar
sent out of the person's window), the least net change in widths first, before
any other move of as many cells.

The candidate moves are made by :mod:`kpr.protection.proposals`; the data they are
made of lives in :mod:`kpr.protection.moves`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from kpr.protection.decoys import Doubt, row_values
from kpr.protection.draws import NewValues
from kpr.protection.grid import Grid
from kpr.protection.moves import Candidate, Column, Link, NewAvatars, Outcome
from kpr.protection.plausibility import PairIndex
from kpr.protection.proposals import Proposals
from kpr.protection.state import AttackState
from kpr.protection.window_state import WindowState
from kpr.results.evaluation import protection_rate
from kpr.results.protect import MOVED_GRID_SLACK as MOVED_SLACK

#: Tie-break within a cost: the change of the column distributions.
_IMPACT = {"swap": 0, "shift": 1, "regenerate": 2, "suppress": 3, "delete": 4}
#: Candidates drawn per variable and move (a second pass draws _RETRY times more).
_DRAWS = 12
_RETRY = 8


class Optimiser:
    def __init__(
        self,
        columns: dict[str, Column],
        states: Sequence[AttackState],
        target: float,
        moves: Sequence[str],
        seed: int,
        n_columns: int,
        new_avatars: NewAvatars | None = None,
        grids: dict[str, Grid] | None = None,
        pairs: PairIndex | None = None,
        windows: Sequence[WindowState] = (),
        moved: Sequence[AttackState] = (),
    ) -> None:
        self.columns, self.states, self.target = columns, list(states), target
        #: ``--rule robust``: each attack's class rule on the moved grids
        #: (:data:`GRID_OFFSETS`, attack by attack), held at ``target - MOVED_SLACK``
        self.moved = list(moved)
        #: every class rule a move is checked against: the attacks', then the moved grids'
        self.held = self.states + self.moved
        self.allowed = set(moves)
        self.rng = random.Random(seed)
        self.draw = np.random.default_rng(seed)  # many values at once, also seeded
        self.n_columns = n_columns
        self.m = len(next(iter(columns.values())).codes)
        self.deleted: set[int] = set()
        self.new_avatars = new_avatars
        self.regenerated: dict[int, int] = {}
        self.cell_moves: dict[tuple[int, str], str] = {}
        self.cost = 0
        self.tried = self.last_tried = 0  #: candidates tried in vain (see ``best``)
        self.trace = [(0, self.worst())]
        self.new_values = NewValues(columns, self.held, self.rng, grids)
        self.pairs = pairs  #: categorical pairs no original holds (kept from rising)
        #: ``--rule robust``: each attack's window rule, kept from linking anyone
        self.windows = list(windows)
        self._window_deltas: dict[int, list[dict[int, int]]] = {}
        per_attack = len(self.moved) // max(len(self.states), 1)
        self.doubt = None
        if self.windows:  # --rule robust
            self.doubt = Doubt(
                columns, self.states, self.moved, self.windows, self.new_values, self.rng,
                self.deleted, per_attack, self.m,
            )  # fmt: skip
        #: doubt moves applied, per kind ("decoy", "escape")
        self.doubts: dict[str, int] = {}
        self.proposals = Proposals(
            columns, self.held, self.allowed, (self.rng, self.draw), self.deleted,
            self.regenerated, self.new_values,
            (new_avatars, self.doubt, self.windows, n_columns),
        )  # fmt: skip

    def met(self, state: AttackState) -> bool:
        return protection_rate(state.linked, state.n) >= self.target

    def worst(self) -> float:
        return min(protection_rate(s.linked, s.n) for s in self.states)

    def window_met(self, window: WindowState) -> bool:
        return protection_rate(window.linked, window.n) >= self.target

    def moved_met(self, state: AttackState) -> bool:
        return protection_rate(state.linked, state.n) >= self.target - MOVED_SLACK

    def all_met(self) -> bool:
        return (
            all(self.met(s) for s in self.states)
            and all(self.window_met(w) for w in self.windows)
            and all(self.moved_met(s) for s in self.moved)
        )

    def run(self) -> Outcome:
        unfixed: list[tuple[str, int, int]] = []
        # first every link one changed cell can remove, then the others with any move
        for draws, cap in ((_DRAWS, 1), (_DRAWS, None), (_DRAWS * _RETRY, None)):
            self.tried = 0
            todo = self._todo()
            self.rng.shuffle(todo)
            unfixed = []
            for rule, j, key in todo:
                if not self._free(rule, j, key, draws, cap):
                    unfixed.append((rule, j, key))
                    self.tried += self.last_tried
                    continue
                if self.all_met():
                    return self.outcome(0)
            if not unfixed and cap is None:
                break
        return self.outcome(len(unfixed))

    def _todo(self) -> list[tuple[str, int, int]]:
        """The links to remove: each attack's linked profiles (class rule) and, under
        the robust rule, its members linked by the window rule."""
        todo = [
            ("class", j, key)
            for j, s in enumerate(self.states)
            if not self.met(s)
            for key, _ in s.linked_profiles()
        ]
        todo += [
            ("window", j, int(i))
            for j, w in enumerate(self.windows)
            if not self.window_met(w)
            for i in w.linked_members()
        ]
        todo += [
            ("moved", j, key)
            for j, s in enumerate(self.moved)
            if not self.moved_met(s)
            for key, _ in s.linked_profiles()
        ]
        return todo

    def _free(self, rule: str, j: int, key: int, draws: int, cap: int | None) -> bool:
        """Try to remove one link; False when no admissible move was found (a link
        freed or a target met by earlier moves counts as done)."""
        if rule in ("class", "moved"):
            state = self.states[j] if rule == "class" else self.moved[j]
            met = self.met(state) if rule == "class" else self.moved_met(state)
            row = state.single.get(key)
            if met or row is None:  # met, or freed by an earlier move
                return True
            best = self.best(row, state, draws, cap, link=(rule, j, key))
        else:
            state = self.states[j]
            window = self.windows[j]
            if self.window_met(window) or window.counts[key] != 1:
                return True
            row = self._lone_avatar(window, key)
            best = self.best(row, state, draws, cap, link=(rule, j, key))
        if best is None:
            return False
        self.apply(best)
        return True

    def outcome(self, unfixed: int) -> Outcome:
        tried = self.tried if unfixed else 0
        return Outcome(
            self.deleted, self.cell_moves, self.trace, unfixed, self.regenerated, tried,
            dict(self.doubts),
        )  # fmt: skip

    def admissible(self, c: Candidate) -> list[list[tuple[int, int, int]]] | None:
        """Each attack's moved rows, or None when one attack refuses the move."""
        if self.pairs is not None and not self.pairs.admissible(c):
            return None
        out = []
        for state in self.held:
            moved = state.moves_of(c.changes, c.deleted)
            if moved and state.check(moved) is None:
                return None
            out.append(moved)
        if self.windows:
            deltas = []
            for window in self.windows:
                delta = window.change(self._window_moves(c, window))
                if delta and window.check(delta) is None:
                    return None
                deltas.append(delta)
            self._window_deltas[id(c)] = deltas
        return out

    def _removes(self, c: Candidate, moved: list[list[tuple[int, int, int]]], link: Link) -> bool:
        """Whether an admissible candidate touches the link it is tried for (a link
        of a class rule: its profile's count changes; of the window rule: its
        member's count changes)."""
        if link is None:
            return True
        rule, j, key = link
        if rule == "class" and self.doubt is None:
            return True  # --rule class: as before (every move of the lone avatar)
        if rule == "window":
            return bool(self._window_deltas[id(c)][j].get(key, 0))
        rows = moved[j if rule == "class" else len(self.states) + j]
        return any(key in (old, new) for _, old, new in rows)

    def _row_values(self, row: int, known: Sequence[str]) -> dict[str, float]:
        """An avatar row's current values of ``known``: categorical codes, numbers."""
        return row_values(self.columns, row, known)

    def _window_moves(
        self, c: Candidate, window: WindowState
    ) -> list[tuple[dict[str, float] | None, dict[str, float] | None]]:
        """(old values, new values) of each row the candidate changes or deletes."""
        known = (*window.categorical, *window.numeric)
        moved: list[tuple[dict[str, float] | None, dict[str, float] | None]] = []
        for row in c.deleted:
            moved.append((self._row_values(row, known), None))
        for row, changes in c.changes.items():
            touched = [(n, new) for n, _, new in changes if n in known]
            if not touched:
                continue
            old = self._row_values(row, known)
            new = dict(old)
            for name, code in touched:
                col = self.columns[name]
                drawn = c.drawn.get((row, name))
                if drawn is not None:
                    new[name] = float(drawn)
                else:
                    new[name] = float(code) if col.values is None else float(col.values[code])
            moved.append((old, new))
        return moved

    def _lone_avatar(self, window: WindowState, member: int) -> int:
        """The one avatar row that approaches a member the window rule links (found
        in the window's index of its stratum's avatars, not by a scan)."""
        rows = window.approaching(member, self._numbers)
        assert len(rows) == 1, f"window member {member}: {len(rows)} avatars approach, not 1"
        return int(rows[0])

    def _numbers(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """The current numeric values of some avatar rows."""
        return {
            name: col.values[col.codes[rows]]
            for name, col in self.columns.items()
            if col.values is not None
        }

    def best(
        self,
        row: int,
        state: AttackState,
        draws: int,
        cap: int | None = None,
        link: Link = None,
    ) -> tuple[Candidate, list[list[tuple[int, int, int]]]] | None:
        """The cheapest admissible move (at most ``cap`` cells), ties drawn at random;
        ``link``: (rule, attack, profile or member) the move must touch.
        ``last_tried`` counts the candidates looked at."""
        self.last_tried = 0
        for tier in self.proposals.candidates(row, state, draws, cap, link):
            self.last_tried += len(tier)
            ok = [
                (c, moved)
                for c in tier
                if (moved := self.admissible(c)) is not None and self._removes(c, moved, link)
            ]
            if ok and ok[0][0].doubt:  # the least net change in widths
                least_change = min(c.widths for c, _ in ok)
                return self.rng.choice([x for x in ok if x[0].widths == least_change])
            if ok:
                least = min(_IMPACT[c.move] for c, _ in ok)
                return self.rng.choice([x for x in ok if _IMPACT[x[0].move] == least])
        return None

    # applying -----------------------------------------------------------------

    def apply(self, chosen: tuple[Candidate, list[list[tuple[int, int, int]]]]) -> None:
        c, moved = chosen
        if c.doubt:
            self.doubts[c.doubt] = self.doubts.get(c.doubt, 0) + 1
        for window, delta in zip(self.windows, self._window_deltas.pop(id(c), []), strict=False):
            window.apply(delta)
        self._window_deltas.clear()
        c = self.new_values.settle(c)
        self.new_values.applied(c)
        for state, rows in zip(self.held, moved, strict=True):
            if rows:
                state.apply(rows)
        for r in c.deleted:
            self.deleted.add(r)
        if c.move == "swap":
            (row, [(name, _, _)]), (other, _) = c.changes.items()
            col = self.columns[name]
            a, b = col.source.get(row, row), col.source.get(other, other)
            col.source[row], col.source[other] = b, a
            col.codes[row], col.codes[other] = col.codes[other], col.codes[row]
            self.cell_moves[(row, name)] = self.cell_moves[(other, name)] = "swap"
        elif c.move == "regenerate":
            assert c.source is not None
            ((row, changes),) = c.changes.items()
            self.regenerated[row] = c.source
            for col in self.columns.values():
                col.source[row] = c.source  # a known value left equal is equal
            for name, _, new in changes:
                self.columns[name].codes[row] = new
                self.cell_moves[(row, name)] = "regenerate"
        else:
            for r, changes in c.changes.items():
                for name, _, new in changes:
                    col = self.columns[name]
                    col.codes[r] = new
                    col.source[r] = -1 if c.move == "suppress" else int(col.first_row[new])
                    self.cell_moves[(r, name)] = c.move
        if self.pairs is not None:
            self.pairs.applied(c)
        for window in self.windows:
            known = (*window.categorical, *window.numeric)
            for r in c.deleted:
                window.avatar_moved(r, None)
            for r in c.changes:
                window.avatar_moved(r, self._row_values(r, known))
        self.cost += c.cells
        self.trace.append((self.cost, self.worst()))
