"""``kpr.protect``: change an avatar table as little as possible so that every
given attack's rate reaches a target, and prove it with a fresh evaluation.

The statistics of the metric (U, ``lo``, ``width``) come from the originals, so
they do not move while avatars change: protect encodes both tables once with the
sweep's encoder (``kpr.engine.inmemory.sweep``, the metric's one binning), keeps each
attack's profile counts (:mod:`kpr.protection.state`) and removes links one by one
(:mod:`kpr.protection.optimise`). At the end every attack is evaluated from scratch
on the protected table and every invariant of the spec ("Protecting a release") is
checked (:mod:`kpr.protection.verification`); a failed check is a bug and raises.

This module is the package's face. The run reads top-down: :mod:`~kpr.protection.run`
(the entry and its steps) over :mod:`~kpr.protection.loading` (each input read once),
:mod:`~kpr.protection.search` (counts, columns, the optimiser's run),
:mod:`~kpr.protection.changes` (the change log) and :mod:`~kpr.protection.comparisons`
(control, distances, fidelity before and after).
"""

from __future__ import annotations

from kpr.protection.arguments import DEFAULT_MAX_ATTACKS, DEFAULT_REGENERATE_K, check_moves
from kpr.protection.moves import DEFAULT_MOVES
from kpr.protection.run import protect
from kpr.protection.verification import ProtectionError
from kpr.results.protect import MOVES

__all__ = [
    "DEFAULT_MAX_ATTACKS",
    "DEFAULT_MOVES",
    "DEFAULT_REGENERATE_K",
    "MOVES",
    "ProtectionError",
    "check_moves",
    "protect",
]
