"""The profile counts protect keeps up to date, attack by attack.

Per attack, every avatar row has one packed profile key (the digits of
``kpr.engine.inmemory.sweep``, the metric's one binning, packed in mixed radix). Only
the profiles that members of U hold can link anyone, so only theirs are counted:
``count[key]`` avatars hold it, ``members[key]`` members of U have it. A move
changes a few rows' value codes; their keys move by the change of one digit
each, so a move is checked and applied in a few dictionary look-ups, never by a
new evaluation.

The rule that keeps protect honest (``admissible``): after a move, no profile
held by a member of U that the move touches may be held by exactly one avatar.
A touched profile held once before and once after has changed its avatar (a
link retargeted); held once after and not before, it links someone new. So no
individual becomes linked, and every linked individual keeps its avatar or loses
its link: correct links cannot rise, whatever the pairing.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from kpr.engine.inmemory import AttackDigits
from kpr.metric.binning import NumericBins
from kpr.metric.classes import pack_digits

#: A deleted avatar's key: no profile.
GONE = -1
#: Keys are int64 while the product of the radices stays below this; Python ints beyond.
_INT64_KEYS = 2**62


def pack(digits: Sequence[np.ndarray], multipliers: Sequence[int], exact: bool) -> np.ndarray:
    """``sum(digit * multiplier)`` (``multipliers``: the products of the radices
    after each digit), packed by ``kpr.metric.classes.pack_digits``: int64, or
    Python integers when it could overflow."""
    radices = [1, *(int(a) // int(b) for a, b in itertools.pairwise(multipliers))]
    return pack_digits(digits, radices, np.int64 if exact else object)


@dataclass
class AttackState:
    """One attack's avatar keys and the counts of the profiles members of U hold."""

    known: tuple[str, ...]
    n: int
    multipliers: dict[str, int]  #: per known variable
    lookups: dict[str, np.ndarray]  #: digit of each avatar value code, per variable
    bins: dict[str, NumericBins]  #: of each numeric or date variable
    keys: np.ndarray  #: current key of each avatar row
    members: dict[int, int]  #: members of U per profile (every U profile)
    count: dict[int, int]  #: avatars per U profile (absent: 0)
    single: dict[int, int] = field(default_factory=dict)  #: the one avatar of a linking profile
    linked: int = 0

    @classmethod
    def build(cls, digits: AttackDigits, codes: dict[str, np.ndarray], n: int) -> AttackState:
        radix = 1
        multipliers: dict[str, int] = {}
        for name, r in zip(reversed(digits.known), reversed(digits.radices), strict=True):
            multipliers[name] = radix
            radix *= r
        exact = radix < _INT64_KEYS
        mults = [multipliers[v] for v in digits.known]
        lookups = dict(zip(digits.known, digits.lookups, strict=True))
        u_key = pack(digits.u_digits, mults, exact)
        a_key = pack([lookups[v][codes[v]] for v in digits.known], mults, exact)
        u_keys, u_counts = np.unique(u_key, return_counts=True)
        held = np.isin(a_key, u_keys)
        a_keys, a_counts = np.unique(a_key[held], return_counts=True)
        count = dict(zip(a_keys.tolist(), a_counts.tolist(), strict=True))
        once = set(a_keys[a_counts == 1].tolist())
        rows = np.flatnonzero(held)
        pairs = zip(a_key[rows].tolist(), rows.tolist(), strict=True)
        single = {k: r for k, r in pairs if k in once}
        members = dict(zip(u_keys.tolist(), u_counts.tolist(), strict=True))
        state = cls(
            digits.known, n, multipliers, lookups, digits.bins, a_key, members, count, single
        )
        state.linked = sum(members[k] for k in single)
        return state

    @property
    def offset(self) -> float:
        """The fraction of a width the class grid's origin is moved down by (0: the
        spec's grid; ``kpr.engine.inmemory.EncodedTables.digits(offset=)``)."""
        return next((b.offset for b in self.bins.values()), 0.0)

    def key_after(self, row: int, changes: Iterable[tuple[str, int, int]]) -> int:
        """``row``'s key once its value codes change (variable, old code, new code)."""
        key = int(self.keys[row])
        for name, old, new in changes:
            mult = self.multipliers.get(name)
            if mult is not None:
                lookup = self.lookups[name]
                key += (int(lookup[new]) - int(lookup[old])) * mult
        return key

    def moves_of(
        self, rows: dict[int, list[tuple[str, int, int]]], deleted: Iterable[int] = ()
    ) -> list[tuple[int, int, int]]:
        """(row, old key, new key) of every row whose key a move changes."""
        out = [(r, int(self.keys[r]), GONE) for r in deleted]
        for r, changes in rows.items():
            old = int(self.keys[r])
            new = self.key_after(r, changes)
            if new != old:
                out.append((r, old, new))
        return out

    def check(self, moved: list[tuple[int, int, int]]) -> int | None:
        """Links the move removes, or None when it is not admissible (a touched
        profile of U would be held by exactly one avatar afterwards)."""
        diff: dict[int, int] = {}
        for _, old, new in moved:
            if old != GONE:
                diff[old] = diff.get(old, 0) - 1
            if new != GONE:
                diff[new] = diff.get(new, 0) + 1
        removed = 0
        for key, d in diff.items():
            members = self.members.get(key)
            if members is None:
                continue  # nobody of U has this profile: it links no one
            before = self.count.get(key, 0)
            if before + d == 1:
                return None  # a new link, or a link moved to another avatar
            if before == 1:
                removed += members
        return removed

    def apply(self, moved: list[tuple[int, int, int]]) -> None:
        """Record an admissible move."""
        diff: dict[int, int] = {}
        for row, old, new in moved:
            self.keys[row] = new
            for key, d in ((old, -1), (new, 1)):
                if key != GONE and key in self.members:
                    diff[key] = diff.get(key, 0) + d
        for key, d in diff.items():
            before = self.count.get(key, 0)
            self.count[key] = before + d
            if before == 1 and d != 0:
                del self.single[key]
                self.linked -= self.members[key]

    def linked_profiles(self) -> list[tuple[int, int]]:
        """(key, its one avatar row) of every profile that links members of U."""
        return sorted(self.single.items(), key=lambda kv: kv[1])
