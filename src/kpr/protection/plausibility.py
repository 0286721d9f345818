"""Pairs of categorical values no original row holds: a move may not add rows with one.

A swap of ``sex`` alone can make a Husband & Female row that no real person is:
an attacker who reads the release finds the changed rows among them. The index
keeps, per pair of categorical columns (known or not), which pairs of value codes
some original row holds, and per avatar row how many of its pairs none does; a
candidate is admissible only when the rows it changes, taken together, do not
become more often implausible than they were (:meth:`PairIndex.admissible`).

Codes of a column are shared by both tables (a known variable's codes from
``kpr.engine.encoded``; another column's values compared as text), so a pair is
one integer ``a * radix_b + b``: the pairs present are a boolean table when it is
small, else a sorted array (searched), built once with numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from kpr.protection.moves import Candidate

#: A column pair's present pairs are a boolean table up to this many cells.
_TABLE_CELLS = 1 << 24


@dataclass
class _Pair:
    a: str
    b: str
    radix_b: int
    table: np.ndarray | None  #: present[a * radix_b + b], when small
    keys: np.ndarray | None  #: the sorted keys present, otherwise

    def absent(self, a: int, b: int) -> int:
        """1 when no original holds the pair (a, b), else 0."""
        key = a * self.radix_b + b
        if self.table is not None:
            return 0 if self.table[key] else 1
        assert self.keys is not None
        at = int(np.searchsorted(self.keys, key))
        return 0 if at < len(self.keys) and self.keys[at] == key else 1

    def present(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        key = a.astype(np.int64) * self.radix_b + b
        if self.table is not None:
            return self.table[key]
        assert self.keys is not None
        at = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        return self.keys[at] == key if len(self.keys) else np.zeros(len(key), dtype=bool)


@dataclass
class PairIndex:
    """The pairs of categorical values the originals hold, and each avatar row's
    count of pairs they do not (see the module)."""

    codes: dict[str, np.ndarray]  #: each column's current avatar codes (shared arrays)
    pairs: list[_Pair]
    bad: np.ndarray = field(init=False)  #: implausible pairs per avatar row
    involving: dict[str, list[int]] = field(init=False)  #: pairs of each column
    before: int = field(init=False)  #: implausible rows of the input avatars

    def __post_init__(self) -> None:
        self.involving = {n: [] for n in self.codes}
        for i, p in enumerate(self.pairs):
            self.involving[p.a].append(i)
            self.involving[p.b].append(i)
        self.bad = self._count(np.arange(self._rows()))
        self.before = int(np.count_nonzero(self.bad))

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self.codes)

    def _rows(self) -> int:
        return len(next(iter(self.codes.values()))) if self.codes else 0

    def _count(self, rows: np.ndarray, codes: dict[str, np.ndarray] | None = None) -> np.ndarray:
        """Implausible pairs of ``rows`` (``codes``: their codes, else the current)."""
        got = codes or {n: c[rows] for n, c in self.codes.items()}
        out = np.zeros(len(rows), dtype=np.int64)
        for p in self.pairs:
            out += ~p.present(got[p.a], got[p.b])
        return out

    def admissible(self, c: Candidate) -> bool:
        """Whether ``c`` leaves no more implausible rows among the rows it changes
        (only the pairs of a changed column are looked at, one value at a time)."""
        if not self.pairs:
            return True
        worse = 0
        for row, cells in c.changes.items():
            new = {n: v for n, _, v in cells if n in self.codes}
            if not new:
                continue
            was = int(self.bad[row])
            bad = was
            for i in sorted({i for n in new for i in self.involving[n]}):
                p = self.pairs[i]
                a, b = int(self.codes[p.a][row]), int(self.codes[p.b][row])
                bad += p.absent(new.get(p.a, a), new.get(p.b, b)) - p.absent(a, b)
            worse += (bad > 0) - (was > 0)
        return worse <= 0

    def applied(self, c: Candidate) -> None:
        """Recount the rows an applied move changed (call once the codes changed)."""
        if self.pairs and c.changes:
            rows = np.fromiter(c.changes, dtype=np.int64, count=len(c.changes))
            self.bad[rows] = self._count(rows)

    def implausible(self, deleted: Sequence[int] | set[int] = ()) -> int:
        """Implausible rows now, deleted rows left out, by a fresh count."""
        keep = np.ones(self._rows(), dtype=bool)
        keep[list(deleted)] = False
        return int(np.count_nonzero(self._count(np.flatnonzero(keep))))


def pair_index(
    original: dict[str, np.ndarray], avatars: dict[str, np.ndarray], radices: dict[str, int]
) -> PairIndex:
    """The index of categorical columns coded alike in both tables (``avatars``'
    arrays are kept, not copied: the optimiser changes them in place)."""
    pairs = []
    for a, b in combinations(list(avatars), 2):
        key = original[a].astype(np.int64) * radices[b] + original[b]
        cells = radices[a] * radices[b]
        if cells <= _TABLE_CELLS:
            table = np.zeros(cells, dtype=bool)
            table[key] = True
            pairs.append(_Pair(a, b, radices[b], table, None))
        else:
            pairs.append(_Pair(a, b, radices[b], None, np.unique(key)))
    return PairIndex(dict(avatars), pairs)


def text_codes(original: pl.Series, avatars: pl.Series) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes of a column compared as text in both tables (missing: 0), and their number."""
    both = pl.concat([original.cast(pl.String), avatars.cast(pl.String)])
    codes = both.rank("dense").fill_null(0).cast(pl.Int64).to_numpy()
    return codes[: len(original)], codes[len(original) :], int(codes.max(initial=0)) + 1
