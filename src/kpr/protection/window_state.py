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

Fast and exact at any magnitude: the members of a stratum are sorted on one numeric
variable, so the members a value approaches are found by a binary search with a
slack that grows with |x| (a superset) and then the definition in float64; the
counts at build come from a k-d tree whose radius slack grows with |x/h| as
``kpr.analysis.window``'s does, the members near its edge checked exactly. The
avatar rows of each stratum are indexed too (kept up to date per applied move), so
the one avatar that links a member is found without a scan of the whole table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy.spatial import cKDTree

from kpr.analysis.window import _radius as window_radius

#: Scaled values are clipped here so no coordinate is infinite (clipping never moves
#: two points apart; the exact check decides).
_CLIP = 2.0**1000
#: Distinct values whose approached members are remembered (a lone avatar's old
#: values are asked once per candidate move).
_CACHE = 4096
#: Members near the edge of their window checked at once (their balls as lists).
_EDGE_BLOCK = 4096

#: A value: per known variable, the categorical code or the numeric value.
Values = dict[str, float]
#: The current values of some avatar rows, per known variable.
RowValues = Callable[[np.ndarray], Mapping[str, np.ndarray]]


def _status(x: np.ndarray) -> np.ndarray:
    """0 finite, 1 missing, 2 +inf, 3 -inf."""
    out = np.zeros(x.shape, dtype=np.int64)
    out[np.isnan(x)] = 1
    out[x == np.inf] = 2
    out[x == -np.inf] = 3
    return out


def _status_of(x: float) -> int:
    """``_status`` of one value."""
    if math.isnan(x):
        return 1
    if math.isinf(x):
        return 2 if x > 0 else 3
    return 0


def _span(x: float, h: float) -> tuple[float, float]:
    """Bounds outside which no y has ``fl(|y - x|) <= h``: such a y lies within
    h (1 + 2**-53) of x, and the slack ``(|x| + h) 2**-49`` exceeds the rounding of
    both sums, so the bounds hold for any magnitude (overflow gives ±inf: still a
    superset)."""
    s = (abs(x) + h) * 2.0**-49
    return x - h - s, x + h + s


@dataclass
class _Stratum:
    """The members of U sharing one categorical profile and numeric statuses,
    sorted on the state's ``axis`` variable."""

    members: np.ndarray  #: indices of the members, into the state's arrays
    points: np.ndarray  #: their finite numeric values (members x numeric), 0 elsewhere
    sid: int  #: the stratum's number (its avatars' ``avatar_stratum``)
    columns: tuple[np.ndarray, ...] = ()  #: ``points``' columns, each contiguous

    def __post_init__(self) -> None:
        self.columns = tuple(np.ascontiguousarray(c) for c in self.points.T)


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
    axis: int = 0  #: the numeric variable the strata are sorted on
    #: each avatar row's stratum number (-1: no member's, or deleted)
    avatar_stratum: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    #: per stratum number: its avatar rows at build, then the rows moved in since
    avatar_rows: list[np.ndarray] = field(default_factory=list)
    moved_in: dict[int, list[int]] = field(default_factory=dict)
    linked: int = field(init=False)
    _cache: dict[tuple[float, ...], np.ndarray] = field(init=False, default_factory=dict)

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
        axis = _axis(u_points, h)
        strata: dict[tuple[int, ...], _Stratum] = {}
        counts = np.zeros(len(u_keys), dtype=np.int64)
        for group in _groups(u_keys):
            group = group[np.argsort(u_points[group, axis], kind="stable")] if len(num) else group
            key = tuple(int(k) for k in u_keys[group[0]])
            strata[key] = _Stratum(group, u_points[group], len(strata))
        members = {v: np.asarray(u_values[v]) for v in (*cat, *num)}
        state = cls(cat, num, h, counts, strata, n, members, axis)
        state.avatar_stratum = np.full(len(a_keys), -1, dtype=np.int64)
        state.avatar_rows = [np.empty(0, dtype=np.int64) for _ in strata]
        state._count_all(a_keys, a_points)
        state.linked = int(np.count_nonzero(counts == 1))
        return state

    def _count_all(self, a_keys: np.ndarray, a_points: np.ndarray) -> None:
        """Every member's exact count: per stratum, a tree over its avatars counts
        those surely inside; the members with avatars near the edge of their window
        are checked by the definition, with the avatars of the tree's wider ball."""
        for group in _groups(a_keys):
            stratum = self.strata.get(tuple(int(k) for k in a_keys[group[0]]))
            if stratum is None:
                continue
            self.avatar_stratum[group] = stratum.sid
            self.avatar_rows[stratum.sid] = np.sort(group)
            if not len(self.numeric):
                self.counts[stratum.members] += len(group)
                continue
            points = a_points[group]
            with np.errstate(over="ignore"):
                a_scaled = np.clip(points / self.half, -_CLIP, _CLIP)
                scaled = np.clip(stratum.points / self.half, -_CLIP, _CLIP)
            top = max(float(np.abs(a_scaled).max()), float(np.abs(scaled).max()))
            # the tree's radius slack of the window analysis (it grows with |x/h|)
            slack = window_radius(math.frexp(top + 2.0)[1]) - 1.0
            tree = cKDTree(a_scaled)
            outer = np.asarray(
                tree.query_ball_point(scaled, 1 + slack, p=np.inf, return_length=True, workers=-1)
            )
            inner = np.zeros_like(outer)
            if 2 * slack < 1:
                inner = np.asarray(
                    tree.query_ball_point(
                        scaled, 1 - 2 * slack, p=np.inf, return_length=True, workers=-1
                    )
                )
            self.counts[stratum.members] += inner
            edge = np.flatnonzero(outer != inner)
            for start in range(0, len(edge), _EDGE_BLOCK):  # bounded lists of indices
                block = edge[start : start + _EDGE_BLOCK]
                balls = tree.query_ball_point(scaled[block], 1 + slack, p=np.inf)
                sizes = np.array([len(b) for b in balls], dtype=np.int64)
                near = np.concatenate([np.asarray(b, dtype=np.int64) for b in balls])
                who = np.repeat(block, sizes)
                ok = np.all(np.abs(points[near] - stratum.points[who]) <= self.half, axis=1)
                found = np.bincount(who[ok], minlength=len(stratum.members))[block]
                self.counts[stratum.members[block]] += found - inner[block]

    def approached(self, values: Values | None) -> np.ndarray:
        """The members an avatar with these values approaches (None: a deleted row)."""
        if values is None:
            return np.empty(0, dtype=np.int64)
        cache_key = tuple(values[v] for v in (*self.categorical, *self.numeric))
        hit = self._cache.get(cache_key)
        if hit is not None:
            return hit
        out = self._approached(values)
        if len(self._cache) >= _CACHE:
            self._cache.clear()
        self._cache[cache_key] = out
        return out

    def _approached(self, values: Values) -> np.ndarray:
        key, point = _key_of(values, self.categorical, self.numeric)
        stratum = self.strata.get(key)
        if stratum is None:
            return np.empty(0, dtype=np.int64)
        if not len(self.numeric):
            return stratum.members
        half = self._half
        lo, hi = _span(point[self.axis], half[self.axis])
        sorted_axis = stratum.columns[self.axis]
        first = int(sorted_axis.searchsorted(lo, "left"))
        last = int(sorted_axis.searchsorted(hi, "right"))
        near = np.abs(stratum.columns[0][first:last] - point[0]) <= half[0]
        for j in range(1, len(point)):
            near &= np.abs(stratum.columns[j][first:last] - point[j]) <= half[j]
        return stratum.members[first:last][near]

    @cached_property
    def _half(self) -> tuple[float, ...]:
        return tuple(float(h) for h in self.half)

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

    def avatar_moved(self, row: int, values: Values | None) -> None:
        """Keep the avatar index up to date: ``row`` now holds ``values`` (None:
        deleted)."""
        sid = -1
        if values is not None:
            stratum = self.strata.get(_key_of(values, self.categorical, self.numeric)[0])
            sid = -1 if stratum is None else stratum.sid
        if sid != self.avatar_stratum[row]:
            self.avatar_stratum[row] = sid
            if sid >= 0:
                self.moved_in.setdefault(sid, []).append(row)

    def approaching(self, member: int, row_values: RowValues) -> np.ndarray:
        """The avatar rows that approach a member now (sorted), from the index of
        its stratum; ``row_values`` gives the current values of avatar rows."""
        stratum = self.strata[self._member_key(member)]
        rows = self.avatar_rows[stratum.sid]
        extra = self.moved_in.get(stratum.sid)
        if extra:
            rows = np.unique(np.concatenate([rows, np.asarray(extra, dtype=np.int64)]))
        rows = rows[self.avatar_stratum[rows] == stratum.sid]
        if not len(self.numeric) or not len(rows):
            return rows
        current = row_values(rows)
        near = np.ones(len(rows), dtype=bool)
        for j, v in enumerate(self.numeric):
            x = float(self.members[v][member])
            if np.isfinite(x):
                near &= np.abs(np.asarray(current[v], dtype=np.float64) - x) <= self.half[j]
        return rows[near]

    def _member_key(self, member: int) -> tuple[int, ...]:
        return _key_of(self.member_values(member), self.categorical, self.numeric)[0]

    def linked_members(self) -> np.ndarray:
        return np.flatnonzero(self.counts == 1)

    def member_values(self, member: int) -> Values:
        """One member's values: categorical codes and numbers."""
        return {v: float(x[member]) for v, x in self.members.items()}


def _axis(points: np.ndarray, half: np.ndarray) -> int:
    """The numeric variable whose windows hold the fewest members: the widest
    spread of U's finite values in units of h."""
    if not points.shape[1] or not len(points):
        return 0
    with np.errstate(over="ignore", invalid="ignore"):
        spread = (points.max(axis=0) - points.min(axis=0)) / half
    return int(np.argmax(np.nan_to_num(spread, nan=0.0, posinf=_CLIP)))


def _groups(keys: np.ndarray) -> list[np.ndarray]:
    """Row indices grouped by equal key rows (each group ascending)."""
    if not len(keys):
        return []
    order = np.lexsort(keys.T[::-1])
    sorted_keys = keys[order]
    cut = np.flatnonzero(np.any(sorted_keys[1:] != sorted_keys[:-1], axis=1)) + 1
    return np.split(order, cut)


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
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """One row's stratum key and its numeric values (0 where not finite)."""
    x = [float(values[v]) for v in num]
    key = tuple(int(values[v]) for v in cat) + tuple(_status_of(v) for v in x)
    return key, tuple(v if math.isfinite(v) else 0.0 for v in x)
