"""What protection does under rules it does not hold: every given attack measured
before and after under the window rule (``kpr.analysis.window``: an avatar
approaches when every numeric value lies within one width, no class edges), under
the class rule at tolerances 0.04 and 0.06, and under the class rule with its grid
moved by ¼, ½ and ¾ of each width (``Attack.offset``), with the individuals each
rule links after and not before; then the subsets of the known variables that no
attack names, under the class and the window rule. Fresh evaluations on the loaded
pairs; reported, never guaranteed (protect holds the class rule at the attack's
tolerance alone)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from itertools import combinations, islice

import numpy as np

from kpr.analysis.window import window_approaches
from kpr.inputs.reconcile import Prepared
from kpr.measure import evaluate_loaded
from kpr.metric.attack import Attack
from kpr.results.evaluation import KprResult
from kpr.results.protect import (
    COLLATERAL_TOLERANCES,
    GRID_OFFSETS,
    MAX_SUBSETS,
    SUBSET_ROWS,
    Collateral,
    UntestedSubsets,
)


def linked_rows(r: KprResult) -> set[int]:
    """The original rows an evaluation links (the class rule)."""
    return set(r.linked_frame(codes=True)["original_row"].to_list())


def _window(before: Prepared, after: Prepared, attack: Attack) -> Collateral:
    counts_before, near_before = window_approaches(before, attack.known, attack.tolerance)
    counts_after, near_after = window_approaches(after, attack.known, attack.tolerance)
    # U is the same rows of the same original on both sides, in the same order
    newly = int(np.count_nonzero((near_after == 1) & (near_before != 1)))
    return Collateral(attack.known, "window", attack.tolerance, counts_before, counts_after, newly)


def _classes(before: Prepared, after: Prepared, attack: Attack) -> Collateral:
    b, a = evaluate_loaded(before, attack), evaluate_loaded(after, attack)
    return Collateral(
        attack.known, "class", attack.tolerance, b.counts, a.counts, newly_linked(b, a),
        attack.offset,
    )  # fmt: skip


def newly_linked(before: KprResult, after: KprResult) -> int:
    """The individuals ``after`` links and ``before`` does not. The rows are listed and
    compared only when both link someone: otherwise it is none, or all ``after`` links
    (one linked individual is one row of U, the same rows on both sides)."""
    if before.counts.linked == 0 or after.counts.linked == 0:
        return after.counts.linked
    return len(linked_rows(after) - linked_rows(before))


def collateral(before: Prepared, after: Prepared, attacks: list[Attack]) -> tuple[Collateral, ...]:
    """Each attack under the window rule, under the class rule at each of
    :data:`COLLATERAL_TOLERANCES`, then on each grid of :data:`GRID_OFFSETS`, before
    and after protection."""
    out = []
    for attack in attacks:
        out.append(_window(before, after, attack))
        for tolerance in COLLATERAL_TOLERANCES:
            out.append(_classes(before, after, replace(attack, tolerance=tolerance)))
        for offset in GRID_OFFSETS:
            out.append(_classes(before, after, replace(attack, offset=offset)))
    return tuple(out)


def untested_subsets(attacks: Sequence[Sequence[str]]) -> tuple[int, Iterator[tuple[str, ...]]]:
    """How many subsets of the attacks' variables no attack names, and those subsets,
    the smallest first, then by name (each subset's names sorted), generated lazily:
    a union of many variables has more subsets than can be listed."""
    union = sorted({v for a in attacks for v in a})
    given = {frozenset(a) for a in attacks}
    count = 2 ** len(union) - 1 - len(given)

    def subsets() -> Iterator[tuple[str, ...]]:
        for size in range(1, len(union) + 1):
            for subset in combinations(union, size):
                if frozenset(subset) not in given:
                    yield subset

    return count, subsets()


def untested(
    before: Prepared,
    after: Prepared,
    every: Attack,
    attacks: Sequence[Sequence[str]],
    rows: tuple[int, int],
    force: bool,
) -> UntestedSubsets:
    """The first :data:`MAX_SUBSETS` subsets no attack names, under the class and the
    window rule at the attacks' tolerance, before and after; skipped, with the
    sentence saying so, when either table (``rows``: original, avatars) has more than
    :data:`SUBSET_ROWS` rows, unless ``force``."""
    count, subsets = untested_subsets(attacks)
    if not count:
        return UntestedSubsets(0)
    if max(rows) > SUBSET_ROWS and not force:
        return UntestedSubsets(
            count,
            skipped=(
                f"The {count:,} subset(s) of the known variables not among the attacks given "
                f"were not measured: a table has more than {SUBSET_ROWS:,} rows "
                "(--collateral, collateral=True, measures them)."
            ),
        )
    measured: list[Collateral] = []
    for subset in islice(subsets, MAX_SUBSETS):
        attack = every.on(subset)
        measured += [_classes(before, after, attack), _window(before, after, attack)]
    return UntestedSubsets(count, tuple(measured))
