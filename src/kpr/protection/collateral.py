"""What protection does under rules it does not hold: every given attack measured
before and after under the window rule (``kpr.analysis.window``: an avatar
approaches when every numeric value lies within one width, no class edges) and under
the class rule at tolerances 0.04 and 0.06, with the individuals each rule links
after and not before. Fresh evaluations on the loaded pairs; reported, never
guaranteed (protect holds the class rule at the attack's tolerance alone)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from kpr.analysis.window import window_approaches
from kpr.inputs.reconcile import Prepared
from kpr.measure import evaluate_loaded
from kpr.metric.attack import Attack
from kpr.results.evaluation import KprResult
from kpr.results.protect import COLLATERAL_TOLERANCES, Collateral


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
    newly = len(linked_rows(a) - linked_rows(b))
    return Collateral(attack.known, "class", attack.tolerance, b.counts, a.counts, newly)


def collateral(before: Prepared, after: Prepared, attacks: list[Attack]) -> tuple[Collateral, ...]:
    """Each attack under the window rule, then under the class rule at each of
    :data:`COLLATERAL_TOLERANCES`, before and after protection."""
    out = []
    for attack in attacks:
        out.append(_window(before, after, attack))
        for tolerance in COLLATERAL_TOLERANCES:
            out.append(_classes(before, after, replace(attack, tolerance=tolerance)))
    return tuple(out)
