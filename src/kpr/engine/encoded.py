"""The known-variable sweep with shared work, on in-memory (polars) inputs.

A sweep evaluates many subsets of the same candidate columns. Evaluated one by
one, every subset re-reads, re-groups and re-keys the tables. Here each
candidate is encoded once:

- every column of each table becomes dense integer codes of its raw values
  (null is code 0; equal values, -0.0 and 0.0 included, share a code, as in a
  group-by). Categorical codes are shared by both tables, so they are the link
  codes too; numeric codes index a dictionary of the column's distinct values.
- per subset, U is found on one packed integer key built from those codes
  (prefix keys are shared by the subsets that extend them); the statistics over
  U go through ``kpr.metric.binning`` like every engine's; a numeric column's
  classes are computed once per distinct value, then gathered; the link is a
  count over one packed integer key per row.

The packing is injective (mixed radix, re-numbered densely before it could
overflow), so every count is exact and each subset gives what ``kpr.evaluate``
gives. Independent subsets run on a small thread pool: numpy and polars release
the GIL for the large operations.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import polars as pl

from kpr.metric.binning import (
    MISSING,
    NEG_INF,
    OUTSIDE,
    POS_INF,
    Moments,
    NumericBins,
    numeric_bins,
    shift_for,
)
from kpr.metric.plan import Kind

#: A packed key is re-numbered densely before its radix would pass this.
_KEY_LIMIT = 2**62
#: Counting by ``np.bincount`` (no sort, no hash) up to this many possible keys.
_BINCOUNT_KEYS = 1 << 24
#: Specials are -1..-4: digit ``code + 4`` puts them in 0..3, before the classes.
_SPECIALS = 4
#: Float codes below this are exact integers, so offsets between them are exact.
_EXACT_CODES = 2.0**52

Ints = np.ndarray  # int64 codes or keys


@dataclass(frozen=True)
class SubsetCounts:
    """What one attack found: the counts of the metric and the numeric bins."""

    known: tuple[str, ...]
    n: int
    n_avatars: int
    unique_originals: int
    linked: int
    bins: dict[str, NumericBins]


@dataclass(frozen=True)
class _Column:
    """One candidate, encoded once.

    ``o``/``a``: each row's code in the original/avatars. ``radix``: codes of
    the original are in ``[0, radix)``. Numeric columns also keep the distinct
    values behind the codes (``o_values[code]``, NaN for missing), since their
    link codes (classes) depend on the subset; categorical codes are shared by
    both tables and are their own link codes.
    """

    kind: Kind
    o: Ints
    a: Ints
    radix: int
    o_values: np.ndarray | None = None
    a_values: np.ndarray | None = None


def _dense(series: pl.Series) -> tuple[Ints, int]:
    """Dense codes of a column's values, null = 0; and how many codes there are."""
    codes = series.rank("dense").fill_null(0).cast(pl.Int64).to_numpy()
    return codes, int(codes.max(initial=0)) + 1


def _values(series: pl.Series, codes: Ints, radix: int) -> np.ndarray:
    """The float value behind each code (NaN for missing)."""
    values = np.full(radix, np.nan)
    values[codes] = series.cast(pl.Float64).fill_null(np.nan).to_numpy()
    return values


def _comparable(series: pl.Series) -> pl.Series:
    """Categorical values compared as text (both tables agree on text)."""
    if isinstance(series.dtype, pl.Categorical | pl.Enum):
        return series.cast(pl.String)
    return series


def _encode_column(o: pl.Series, a: pl.Series, kind: Kind) -> _Column:
    if kind is Kind.NUMERIC:
        o_codes, o_radix = _dense(o)
        a_codes, a_radix = _dense(a)
        return _Column(
            kind, o_codes, a_codes, o_radix,
            _values(o, o_codes, o_radix), _values(a, a_codes, a_radix),
        )  # fmt: skip
    o, a = _comparable(o), _comparable(a)
    both = pl.concat([o, a if a.dtype == o.dtype else a.cast(o.dtype)])
    codes, radix = _dense(both)
    return _Column(kind, codes[: len(o)], codes[len(o) :], radix)


def _classes(values: np.ndarray, bins: NumericBins) -> np.ndarray:
    """Each value's code as ``kpr.engine.lazy.code_expr`` computes it (float codes)."""
    out = np.full(len(values), float(MISSING))
    out[values == math.inf] = POS_INF
    out[values == -math.inf] = NEG_INF
    finite = np.isfinite(values)
    if bins.code_min is None or bins.code_max is None:
        out[finite] = OUTSIDE
        return out
    with np.errstate(over="ignore", invalid="ignore"):
        q = np.floor((values[finite] - bins.lo) / bins.width)
    out[finite] = np.where((q >= bins.code_min) & (q <= bins.code_max), q, float(OUTSIDE))
    return out


def _digits(col: _Column, bins: NumericBins) -> tuple[Ints, Ints, int]:
    """A numeric column's class of each distinct value as small integers shared by
    both tables: per-code digit arrays (original, avatars) and their radix."""
    assert col.o_values is not None and col.a_values is not None
    co, ca = _classes(col.o_values, bins), _classes(col.a_values, bins)
    if bins.code_min is None or bins.code_max is None:
        return (co + _SPECIALS).astype(np.int64), (ca + _SPECIALS).astype(np.int64), _SPECIALS
    span = bins.code_max - bins.code_min
    if span < _BINCOUNT_KEYS and bins.code_max < _EXACT_CODES:
        shift = bins.code_min - _SPECIALS
        do = np.where(co >= 0, co - shift, co + _SPECIALS).astype(np.int64)
        da = np.where(ca >= 0, ca - shift, ca + _SPECIALS).astype(np.int64)
        return do, da, int(span) + 1 + _SPECIALS
    uniq, inverse = np.unique(np.concatenate([co, ca]), return_inverse=True)
    return inverse[: len(co)], inverse[len(co) :], len(uniq)


def _renumber(key: Ints) -> tuple[Ints, int]:
    uniq, inverse = np.unique(key, return_inverse=True)
    return inverse.astype(np.int64), len(uniq)


def _extend(
    keys: list[Ints], radix: int, digits: list[Ints], digit_radix: int
) -> tuple[list[Ints], int]:
    """``key * digit_radix + digit`` for several arrays packed alike, renumbered
    densely (jointly) first when the product could overflow."""
    if radix * digit_radix >= _KEY_LIMIT:
        joint, radix = _renumber(np.concatenate(keys))
        bounds = np.cumsum([len(k) for k in keys])[:-1]
        keys = np.split(joint, bounds)
    return [k * digit_radix + d for k, d in zip(keys, digits, strict=True)], radix * digit_radix


def _once(key: Ints, radix: int) -> np.ndarray:
    """Which entries of ``key`` occur exactly once."""
    if radix <= max(_BINCOUNT_KEYS, 4 * len(key)):
        counts = np.bincount(key, minlength=radix)
        return counts[key] == 1
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    single = np.ones(len(key), dtype=bool)
    same = ordered[1:] == ordered[:-1]
    single[1:] &= ~same
    single[:-1] &= ~same
    out = np.empty(len(key), dtype=bool)
    out[order] = single
    return out


def _linked(u_key: Ints, a_key: Ints, radix: int) -> int:
    """|S|: members of U whose profile occurs exactly once among the avatars."""
    if len(u_key) == 0 or len(a_key) == 0:
        return 0
    if radix <= max(_BINCOUNT_KEYS, 4 * (len(u_key) + len(a_key))):
        counts = np.bincount(a_key, minlength=radix)
        return int(np.count_nonzero(counts[u_key] == 1))
    avatar = pl.Series(a_key)
    once = avatar.filter(avatar.is_unique())
    return int(pl.Series(u_key).is_in(once).sum())


def _sum(values: np.ndarray) -> float:
    return float(pl.Series(values).sum()) if len(values) else 0.0


def _bins(values: np.ndarray, tolerance: float) -> NumericBins:
    """The spec's bins from the finite values of U (``kpr.metric.binning``)."""
    finite = values[np.isfinite(values)]
    count = len(finite)
    if count == 0:
        return numeric_bins(Moments(0, None, None, 0.0, 0.0, 0.0), tolerance)
    minimum, maximum = float(finite.min()), float(finite.max())
    shift = shift_for(count, _sum(finite), minimum)
    with np.errstate(over="ignore", invalid="ignore"):  # overflows: see numeric_bins
        d = finite - shift
        d2 = d * d
    return numeric_bins(Moments(count, minimum, maximum, shift, _sum(d), _sum(d2)), tolerance)


class EncodedTables:
    """Both tables' candidate columns, encoded once for any number of attacks."""

    def __init__(
        self, original: pl.DataFrame, avatars: pl.DataFrame, kinds: Mapping[str, Kind]
    ) -> None:
        self.n, self.m = original.height, avatars.height
        self.columns = {
            name: _encode_column(original[name], avatars[name], kind)
            for name, kind in kinds.items()
        }

    def _unique_mask(
        self, known: Sequence[str], cache: dict[tuple[str, ...], tuple[Ints, int]]
    ) -> np.ndarray:
        """U: original rows whose codes are unique; prefix keys kept in ``cache``."""
        key, radix = np.zeros(self.n, dtype=np.int64), 1
        for i in range(len(known), 0, -1):
            if tuple(known[:i]) in cache:
                key, radix = cache[tuple(known[:i])]
                start = i
                break
        else:
            start = 0
        for i in range(start, len(known)):
            col = self.columns[known[i]]
            [key], radix = _extend([key], radix, [col.o], col.radix)
            cache[tuple(known[: i + 1])] = (key, radix)
        return _once(key, radix)

    def attack(
        self,
        known: Sequence[str],
        tolerance: float,
        cache: dict[tuple[str, ...], tuple[Ints, int]] | None = None,
    ) -> SubsetCounts:
        """The counts and bins of one attack, equal to ``kpr.evaluate``'s."""
        in_u = self._unique_mask(known, {} if cache is None else cache)
        rows = np.flatnonzero(in_u)
        u_key, a_key = np.zeros(len(rows), dtype=np.int64), np.zeros(self.m, dtype=np.int64)
        radix = 1
        bins: dict[str, NumericBins] = {}
        for name in known:
            col = self.columns[name]
            u_codes = col.o[rows]
            if col.kind is Kind.NUMERIC:
                assert col.o_values is not None
                bins[name] = _bins(col.o_values[u_codes], tolerance)
                do, da, digit_radix = _digits(col, bins[name])
                u_digit, a_digit = do[u_codes], da[col.a]
            else:
                u_digit, a_digit, digit_radix = u_codes, col.a, col.radix
            (u_key, a_key), radix = _extend([u_key, a_key], radix, [u_digit, a_digit], digit_radix)
        return SubsetCounts(
            tuple(known), self.n, self.m, len(rows), _linked(u_key, a_key, radix), bins
        )


def _chains(subsets: Sequence[tuple[str, ...]]) -> list[list[int]]:
    """Subsets grouped by their first variable, each group in lexicographic order
    ((a), (a, b), (a, b, c), (a, b, d), (a, c), ...) so that it reuses prefix keys."""
    position: dict[str, int] = {}
    for s in subsets:
        for name in s:
            position.setdefault(name, len(position))
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(subsets):
        groups.setdefault(s[0], []).append(i)
    return [
        sorted(chain, key=lambda i: [position[name] for name in subsets[i]])
        for chain in groups.values()
    ]


def sweep_counts(
    tables: EncodedTables,
    subsets: Sequence[tuple[str, ...]],
    tolerance: float,
    *,
    done: Callable[[tuple[str, ...]], None] | None = None,
    workers: int | None = None,
) -> list[SubsetCounts]:
    """Every subset's counts, in the order given; ``done`` is called as each finishes."""
    out: list[SubsetCounts | None] = [None] * len(subsets)
    lock = threading.Lock()

    def run(chain: list[int]) -> None:
        cache: dict[tuple[str, ...], tuple[Ints, int]] = {}
        for i in chain:
            subset = subsets[i]
            for k in [k for k in cache if k != subset[: len(k)]]:
                del cache[k]  # keep only the prefixes of the current subset
            out[i] = tables.attack(subset, tolerance, cache)
            if done is not None:
                with lock:
                    done(subset)

    chains = _chains(subsets)
    workers = workers if workers is not None else min(4, os.cpu_count() or 1)
    if workers <= 1 or len(chains) == 1:
        for chain in chains:
            run(chain)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(run, chains))
    return [o for o in out if o is not None]
