"""The known-variable sweep with shared work, on in-memory (polars) inputs.

A sweep evaluates many subsets of the same candidate columns. Evaluated one by
one, every subset re-reads, re-groups and re-keys the tables. Here each
candidate is encoded once:

- every column of each table becomes dense integer codes of its raw values
  (null is code 0; equal values, -0.0 and 0.0 included, share a code, as in a
  group-by). Categorical codes are shared by both tables, so they are the link
  codes too; numeric codes index a dictionary of the column's distinct values.
- per subset, U is found on one packed integer key built from those codes
  (prefix keys are shared by the subsets that extend them, and counted with
  ``np.bincount`` when the key range is small); the statistics over U come from
  how many members of U hold each distinct value (one ``np.bincount``), summed
  exactly as every engine sums them (``kpr.metric.exact``, integer limbs) and
  turned into bins by ``kpr.metric.binning``; a numeric column's
  classes are computed once per distinct value, then gathered; the link is a
  count over one packed integer key per row.

The packing is injective (mixed radix, re-numbered densely before it could
overflow), so every count is exact and each subset gives what ``kpr.evaluate``
gives. Independent subsets run on a small thread pool: numpy and polars release
the GIL for the large operations.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import polars as pl

from kpr.engine.inmemory.digits import class_digits
from kpr.engine.inmemory.encoding import encode_column
from kpr.engine.inmemory.keys import extend_keys
from kpr.engine.inmemory.link import linked_count
from kpr.engine.inmemory.runs import Ints, held_once, sorted_once
from kpr.engine.inmemory.sums import weighted_moments
from kpr.engine.tuning import DEFAULT_TUNING, Tuning
from kpr.metric import binning
from kpr.metric.attack import Kind
from kpr.metric.binning import NumericBins
from kpr.metric.counts import Counts

#: packed keys of the raw codes of a prefix of known variables: key, radix, renumbered
KeyCache = dict[tuple[str, ...], tuple[Ints, int, bool]]


@dataclass(frozen=True)
class SubsetCounts:
    """What one attack found: the counts of the metric and the numeric bins."""

    known: tuple[str, ...]
    counts: Counts
    bins: dict[str, NumericBins]


@dataclass(frozen=True)
class AttackDigits:
    """One attack's profiles as digits shared by both tables: ``u_digits[i]`` holds
    each member of U's digit of ``known[i]``, ``lookups[i][code]`` the digit of an
    avatar whose value code of ``known[i]`` is ``code``; digits of ``known[i]`` lie
    in ``[0, radices[i])``. Two rows share a binned profile iff all digits agree."""

    known: tuple[str, ...]
    u_digits: list[Ints]
    lookups: list[Ints]
    radices: list[int]
    bins: dict[str, NumericBins]


class EncodedTables:
    """Both tables' candidate columns, encoded once for any number of attacks."""

    def __init__(
        self,
        original: pl.DataFrame,
        avatars: pl.DataFrame,
        kinds: Mapping[str, Kind],
        tuning: Tuning = DEFAULT_TUNING,
    ) -> None:
        self.n, self.m = original.height, avatars.height
        self.tuning = tuning
        self.columns = {
            name: encode_column(original[name], avatars[name], kind, tuning)
            for name, kind in kinds.items()
        }

    def _u_codes(self, known: Sequence[str], cache: KeyCache) -> list[Ints]:
        """Each known variable's codes over U (the original rows whose codes are
        unique), from the packed key of the raw codes; prefix keys are cached.

        The keys that occur once (found by a count or a sort) are U's keys, and
        each one decodes into its codes, so no per-row mask is needed (unless
        the key had to be renumbered)."""
        key: Ints | None = None
        radix, renumbered, start = 1, False, 0
        for i in range(len(known), 0, -1):
            if tuple(known[:i]) in cache:
                key, radix, renumbered = cache[tuple(known[:i])]
                start = i
                break
        for i in range(start, len(known)):
            col = self.columns[known[i]]
            [key], radix, again = extend_keys(
                None if key is None else [key], radix, [col.o], col.radix, self.tuning.key_limit
            )
            renumbered = renumbered or again
            cache[tuple(known[: i + 1])] = (key, radix, renumbered)
        assert key is not None
        few = self.tuning.few_keys(radix, len(key))
        if renumbered:
            once = np.bincount(key, minlength=radix)[key] == 1 if few else held_once(key)
            rows = np.flatnonzero(once)
            return [self.columns[name].o[rows] for name in known]
        # the keys held once, in order (with few keys, without a sort)
        if few:
            rest = np.flatnonzero(np.bincount(key, minlength=radix) == 1)
        else:
            rest = sorted_once(key, False, self.tuning.sorter)
        codes: list[Ints] = []
        for name in reversed(known):
            rest, code = np.divmod(rest, self.columns[name].radix)
            codes.append(code)
        return codes[::-1]

    def digits(
        self,
        known: Sequence[str],
        tolerance: float,
        cache: KeyCache | None = None,
        *,
        offset: float = 0.0,
    ) -> AttackDigits:
        """One attack's link digits: each member of U's digit per known variable,
        and the digit of each avatar value code (``kpr.protect`` changes avatar
        values and re-packs only the rows it touches); ``offset``: the grid moved."""
        u_codes = self._u_codes(known, {} if cache is None else cache)
        u_digits: list[Ints] = []
        lookups: list[Ints] = []
        radices: list[int] = []
        bins: dict[str, NumericBins] = {}
        for name, codes in zip(known, u_codes, strict=True):
            col = self.columns[name]
            if col.kind.binned:
                counts = np.bincount(codes, minlength=col.radix)
                date = col.kind is Kind.DATE
                assert col.o_values is not None
                moments = weighted_moments(col.o_values, col.o_ints, counts)
                bins[name] = binning.numeric_bins(moments, tolerance, date=date, offset=offset)
                assert col.a_values is not None
                do, da, digit_radix = class_digits(
                    col.o_values, col.a_values, bins[name], self.tuning
                )
                u_digits.append(do[codes])
                lookups.append(da)
            else:
                u_digits.append(codes)
                lookups.append(np.arange(col.radix, dtype=np.int64))
                digit_radix = col.radix
            radices.append(digit_radix)
        return AttackDigits(tuple(known), u_digits, lookups, radices, bins)

    def attack(
        self, known: Sequence[str], tolerance: float, cache: KeyCache | None = None
    ) -> SubsetCounts:
        """The counts and bins of one attack, equal to ``kpr.evaluate``'s."""
        d = self.digits(known, tolerance, cache)
        keys: list[Ints] | None = None
        radix = 1
        for name, u_digit, lookup, digit_radix in zip(
            known, d.u_digits, d.lookups, d.radices, strict=True
        ):
            a_digit = lookup[self.columns[name].a]
            keys, radix, _ = extend_keys(
                keys, radix, [u_digit, a_digit], digit_radix, self.tuning.key_limit
            )
        assert keys is not None
        u_key = keys[0]
        linked = linked_count(lambda: u_key, len(u_key), keys[1], radix, tuning=self.tuning)
        size_u = len(d.u_digits[0])
        return SubsetCounts(tuple(known), Counts(self.n, self.m, size_u, linked), d.bins)


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
        cache: KeyCache = {}
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
