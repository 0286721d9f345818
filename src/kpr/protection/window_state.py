"""The window rule kept per member of U, for ``kpr protect --rule robust``.

Under the window rule (``kpr.analysis.window``, the attack as the source words it)
an avatar *approaches* a member of U when every categorical known value is equal
(missing equals missing), every numeric value's status (finite, missing, ±inf) is
the same, and every finite numeric value lies within ± h_v of the member's, bounds
included; h_v is the class width of the attack's bins. The member is linked when
exactly one avatar approaches.

:class:`WindowState` holds, for one attack, the *exact* number of avatars that
approach each member (not capped at 2), so that a move can be judged: an avatar row
whose values change stops approaching the members its old values approached and
starts approaching those its new values approach, found by comparing it with the
members of its stratum (the definition itself, in float64). A move is admissible
when no member goes to exactly one approaching avatar from another count (2 → 1 and
0 → 1 would link someone new or move a link); 1 → 0 and 1 → 2 remove a link.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial import cKDTree

#: Relative slack of the scaled radius: members inside ``1 - _SLACK`` approach for
#: sure, outside ``1 + _SLACK`` surely not; between, the exact check decides.
_SLACK = 1e-9

#: A value: per known variable, the categorical code or the numeric value.
Values = dict[str, float]


def _status(x: np.ndarray) -> np.ndarray:
    """0 finite, 1 missing, 2 +inf, 3 -inf."""
    out = np.zeros(x.shape, dtype=np.int64)
    out[np.isnan(x)] = 1
    out[x == np.inf] = 2
    out[x == -np.inf] = 3
    return out


@dataclass
class _Stratum:
    """The members of U sharing one categorical profile and numeric statuses."""

    members: np.ndarray  #: indices of the members, into the state's arrays
    points: np.ndarray  #: their finite numeric values (members x numeric), 0 elsewhere


@dataclass
class WindowState:
    """One attack's exact window-rule approach counts, per member of U."""

    categorical: tuple[str, ...]
    numeric: tuple[str, ...]
    half: np.ndarray  #: h_v per numeric variable
    counts: np.ndarray  #: avatars approaching each member
    strata: dict[tuple[int, ...], _Stratum]
    n: int  #: original rows (the rate's denominator)
    members: dict[str, np.ndarray]  #: each member's value of each known variable
    linked: int = field(init=False)

    def __post_init__(self) -> None:
        self.linked = int(np.count_nonzero(self.counts == 1))

    @classmethod
    def build(
        cls,
        u_values: Mapping[str, np.ndarray],
        a_values: Mapping[str, np.ndarray],
        categorical: Sequence[str],
        numeric: Sequence[str],
        half: Mapping[str, float],
        n: int,
    ) -> WindowState:
        """From U's and the avatars' values per known variable (categorical codes
        shared by both sides; numeric values, NaN for missing)."""
        cat, num = tuple(categorical), tuple(numeric)
        h = np.array([float(half[v]) for v in num], dtype=np.float64)
        u_keys, u_points = _keys(u_values, cat, num)
        a_keys, a_points = _keys(a_values, cat, num)
        strata: dict[tuple[int, ...], _Stratum] = {}
        order = np.lexsort(u_keys.T[::-1]) if len(u_keys) else np.empty(0, dtype=np.int64)
        counts = np.zeros(len(u_keys), dtype=np.int64)
        if len(order):
            sorted_keys = u_keys[order]
            cut = np.flatnonzero(np.any(sorted_keys[1:] != sorted_keys[:-1], axis=1)) + 1
            for group in np.split(order, cut):
                key = tuple(int(k) for k in u_keys[group[0]])
                strata[key] = _Stratum(group, u_points[group])
        members = {v: np.asarray(u_values[v]) for v in (*cat, *num)}
        state = cls(cat, num, h, counts, strata, n, members)
        state._count_all(a_keys, a_points)
        state.linked = int(np.count_nonzero(counts == 1))
        return state

    def _count_all(self, a_keys: np.ndarray, a_points: np.ndarray) -> None:
        """Every member's exact count: per stratum, a tree over its avatars counts
        those surely inside; members with avatars near the boundary are checked."""
        if not len(a_keys):
            return
        order = np.lexsort(a_keys.T[::-1])
        sorted_keys = a_keys[order]
        cut = np.flatnonzero(np.any(sorted_keys[1:] != sorted_keys[:-1], axis=1)) + 1
        for group in np.split(order, cut):
            stratum = self.strata.get(tuple(int(k) for k in a_keys[group[0]]))
            if stratum is None:
                continue
            points = a_points[group]
            if not len(self.numeric):
                self.counts[stratum.members] += len(group)
                continue
            tree = cKDTree(points / self.half)
            scaled = stratum.points / self.half
            inner = tree.query_ball_point(scaled, 1 - _SLACK, p=np.inf, return_length=True)
            outer = tree.query_ball_point(scaled, 1 + _SLACK, p=np.inf, return_length=True)
            self.counts[stratum.members] += np.asarray(inner, dtype=np.int64)
            for i in np.flatnonzero(np.asarray(outer) != np.asarray(inner)):
                near = points[np.all(np.abs(points - stratum.points[i]) <= self.half, axis=1)]
                self.counts[stratum.members[i]] += len(near) - int(inner[i])

    def approached(self, values: Values | None) -> np.ndarray:
        """The members an avatar with these values approaches (None: a deleted row)."""
        if values is None:
            return np.empty(0, dtype=np.int64)
        key, point = _key_of(values, self.categorical, self.numeric)
        stratum = self.strata.get(key)
        if stratum is None:
            return np.empty(0, dtype=np.int64)
        if not len(self.numeric):
            return stratum.members
        near = np.all(np.abs(stratum.points - point) <= self.half, axis=1)
        return stratum.members[near]

    def stratum_of(self, values: Values) -> tuple[np.ndarray, np.ndarray]:
        """The members sharing these categorical values and numeric statuses, and
        their finite numeric values (members x numeric)."""
        key, _ = _key_of(values, self.categorical, self.numeric)
        stratum = self.strata.get(key)
        if stratum is None:
            return np.empty(0, dtype=np.int64), np.zeros((0, len(self.numeric)))
        return stratum.members, stratum.points

    def change(self, moved: Sequence[tuple[Values | None, Values | None]]) -> dict[int, int]:
        """The change of each touched member's count for rows moving from their old
        values to their new ones (None: the row does not exist on that side)."""
        delta: dict[int, int] = {}
        for old, new in moved:
            for i in self.approached(old).tolist():
                delta[i] = delta.get(i, 0) - 1
            for i in self.approached(new).tolist():
                delta[i] = delta.get(i, 0) + 1
        return {i: d for i, d in delta.items() if d}

    def check(self, delta: Mapping[int, int]) -> int | None:
        """Window links the change removes, or None when it would link a member
        (a count ending at exactly 1 that was not 1)."""
        removed = 0
        for i, d in delta.items():
            before = int(self.counts[i])
            if before + d == 1:
                return None
            if before == 1:
                removed += 1
        return removed

    def apply(self, delta: Mapping[int, int]) -> None:
        for i, d in delta.items():
            before = int(self.counts[i])
            self.counts[i] = before + d
            self.linked += (before + d == 1) - (before == 1)

    def linked_members(self) -> np.ndarray:
        return np.flatnonzero(self.counts == 1)

    def member_values(self, member: int) -> Values:
        """One member's values: categorical codes and numbers."""
        return {v: float(x[member]) for v, x in self.members.items()}


def _keys(
    values: Mapping[str, np.ndarray], cat: Sequence[str], num: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's stratum key (categorical codes, then numeric statuses) and its
    finite numeric values (0 where not finite)."""
    rows = len(next(iter(values.values()))) if values else 0
    parts = [np.asarray(values[v], dtype=np.int64) for v in cat]
    numbers = [np.asarray(values[v], dtype=np.float64) for v in num]
    parts += [_status(x) for x in numbers]
    keys = np.column_stack(parts) if parts else np.zeros((rows, 0), dtype=np.int64)
    points = (
        np.column_stack([np.where(np.isfinite(x), x, 0.0) for x in numbers])
        if numbers
        else np.zeros((rows, 0))
    )
    return keys, points


def _key_of(
    values: Values, cat: Sequence[str], num: Sequence[str]
) -> tuple[tuple[int, ...], np.ndarray]:
    x = np.array([float(values[v]) for v in num], dtype=np.float64)
    key = tuple(int(values[v]) for v in cat) + tuple(int(s) for s in _status(x))
    return key, np.where(np.isfinite(x), x, 0.0)
