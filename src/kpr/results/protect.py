"""What ``kpr.protect`` returns beside the protected table: the rates before and
after for every attack, what the protection cost, and the sentence that explains
it; computed in :mod:`kpr.protection`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from kpr.metric.counts import Counts
from kpr.results import json, views
from kpr.results.control import ControlComparison
from kpr.results.distance import DistanceMetrics
from kpr.results.marks import MultiplicityCheck, Plausibility
from kpr.results.rates import AttackRate, format_rate

#: Every move of ``kpr.protect``, in the order candidates are tried within a cost.
MOVES = ("swap", "shift", "regenerate", "suppress", "delete")


@dataclass(frozen=True)
class AttackOutcome:
    """One attack before and after protection, both from a full evaluation."""

    before: AttackRate
    after: AttackRate
    correct_before: int | None = None  #: correct links, with a pairing
    correct_after: int | None = None

    @property
    def known(self) -> tuple[str, ...]:
        return self.before.known

    @property
    def name(self) -> str:
        """The attack, as its known variables."""
        return ", ".join(self.known)

    def to_dict(self) -> dict[str, Any]:
        return {
            "known": list(self.known),
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "correct_links_before": self.correct_before,
            "correct_links_after": self.correct_after,
        }


#: The rules each attack is measured under besides the one protect holds: the window
#: rule at the attack's tolerance, the class rule at these tolerances, and the class
#: rule at the attack's tolerance on grids moved by these fractions of each width.
COLLATERAL_TOLERANCES = (0.04, 0.06)
GRID_OFFSETS = (0.25, 0.5, 0.75)
#: Under ``--rule robust`` each moved grid is held at the target less this many points.
MOVED_GRID_SLACK = 0.5
_FRACTIONS = {0.25: "¼", 0.5: "½", 0.75: "¾"}

#: The subsets of the known variables no attack names are measured by default when
#: both tables have at most this many rows (``collateral=True`` forces it), and at
#: most this many of them, the smallest first, then by name.
SUBSET_ROWS = 100_000
MAX_SUBSETS = 64


@dataclass(frozen=True)
class Collateral:
    """One attack under a rule protect did not optimise for, before and after:
    measured by a fresh evaluation, not guaranteed."""

    known: tuple[str, ...]
    rule: str  #: "window" (``kpr analyze --method window``) or "class"
    tolerance: float
    before: Counts
    after: Counts
    newly_linked: int  #: individuals linked after and not before, under this rule
    #: the class grid's origin moved down by this fraction of each width (0: the spec's)
    offset: float = 0.0

    @property
    def name(self) -> str:
        moved = ""
        if self.offset:
            moved = f", grid moved {_FRACTIONS.get(self.offset, f'{self.offset:g}')} width"
        return f"{self.rule} rule, tolerance {self.tolerance:g}{moved}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "known": list(self.known),
            "rule": self.rule,
            "tolerance": self.tolerance,
            "grid_offset": self.offset,
            "kpr_before": self.before.rate,
            "kpr_after": self.after.rate,
            "linked_before": self.before.linked,
            "linked_after": self.after.linked,
            "newly_linked": self.newly_linked,
        }


@dataclass(frozen=True)
class UntestedSubsets:
    """The subsets of the attacks' known variables that no given attack names, under
    the class and the window rule at the attacks' tolerance, before and after: what
    protection did to attackers it was not asked about. Measured, not guaranteed."""

    subsets: int  #: how many subsets no attack names
    rows: tuple[Collateral, ...] = ()  #: per subset measured, the class then the window rule
    #: why none was measured (the tables' size), else None
    skipped: str | None = None

    @property
    def measured(self) -> int:
        return len({c.known for c in self.rows})

    @property
    def sentence(self) -> str:
        """What was measured, in one sentence."""
        if not self.subsets:
            return "Every subset of the known variables is an attack given."
        if self.skipped is not None:
            return self.skipped
        which = (
            "each measured"
            if self.measured == self.subsets
            else f"the first {self.measured} by size, then name, measured (no sampling)"
        )
        return (
            f"{self.subsets:,} subset(s) of the known variables are not among the attacks "
            f"given: {which}, under the class and the window rule."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "subsets": self.subsets,
            "measured": self.measured,
            "skipped": self.skipped,
            "note": self.sentence,
            "rows": [c.to_dict() for c in self.rows],
        }


@dataclass(frozen=True)
class ProtectResult(json.JsonResult, views.Page):
    """How a release was protected: every attack's rate before and after (each
    from a fresh, full evaluation), the cells that changed and the measured cost.

    ``trace`` holds (cells changed so far, worst rate) as the optimiser proceeds.
    ``shift_bounds``: per variable, the largest change one shift may make (one class
    width, the smallest over the attacks; days for dates). ``largest_change``: per
    numeric or date variable, the largest net change of a cell, value written against
    value read (a cell moved twice may have gone further than one bound).
    """

    target: float
    moves: tuple[str, ...]
    seed: int
    attacks: tuple[AttackOutcome, ...]
    n_avatars: int
    n_columns: int
    cells_changed: dict[str, int]  #: per column (known variables; every column with regenerate)
    moves_used: dict[str, int]  #: cells per move, rows for delete
    rows_deleted: int
    shift_bounds: dict[str, float]
    trace: tuple[tuple[int, float], ...]
    unfixed: int = 0  #: linked profiles no admissible move could free
    keep: tuple[str, ...] = ()  #: columns no move was allowed to change
    largest_change: dict[str, float] = field(default_factory=dict)
    tried: int = 0  #: candidate moves tried in vain for the profiles left linked
    #: "class": the class rule held for the attacks given; "robust": the window rule too
    rule: str = "class"
    #: every given attack under the window rule, other tolerances and moved grids,
    #: before and after
    collateral: tuple[Collateral, ...] = ()
    #: the subsets of the known variables no attack names, under the class and window rules
    untested: UntestedSubsets = UntestedSubsets(0)
    control_before: ControlComparison | None = None
    control_after: ControlComparison | None = None
    distance_before: DistanceMetrics | None = None
    distance_after: DistanceMetrics | None = None
    #: per-column distribution distance and association change (``kpr.utility``), or None
    utility: dict[str, Any] | None = None
    #: per changed numeric column: changed rows held by 2-3 rows against the table's share
    multiplicity: tuple[MultiplicityCheck, ...] = ()
    #: rows holding a pair of categorical values no original row holds, before and after
    plausibility: Plausibility | None = None
    #: the change log: one row per changed avatar cell or deleted row (avatar_row,
    #: column, move, old, new, old_class, new_class); avatar values only. It tells
    #: which avatars linked someone: the data owner's record, never to be published.
    changes: pl.DataFrame | None = field(default=None, compare=False, repr=False)

    @property
    def rule_sentence(self) -> str:
        """What protect held, in one sentence."""
        if self.rule == "robust":
            return (
                "Rule: robust. For the attacks given, the class rule and the window rule "
                "(every numeric value within one width, no class edges) were held at the "
                "target, and the class rule on the grids moved by ¼, ½ and ¾ of a width at "
                f"the target less {MOVED_GRID_SLACK:g} point: nobody newly linked under any "
                "of them; other tolerances are measured below, not held."
            )
        return (
            "Rule: class (the spec's class grid). The window rule, other tolerances and "
            "moved grids are measured below, not held; --rule robust holds the window "
            "rule and the moved grids too."
        )

    @property
    def worst_before(self) -> AttackOutcome:
        return min(self.attacks, key=lambda a: (a.before.rate, len(a.known), a.known))

    @property
    def worst_after(self) -> AttackOutcome:
        return min(self.attacks, key=lambda a: (a.after.rate, len(a.known), a.known))

    @property
    def met(self) -> bool:
        """Every attack's rate after protection reaches the target (under ``robust``,
        also under the window rule, and its moved grids the target less
        :data:`MOVED_GRID_SLACK`)."""
        return all(a.after.rate >= self.target for a in self.attacks) and not self.short

    @property
    def short(self) -> tuple[Collateral, ...]:
        """Under ``robust``: the given attacks' window and moved-grid rows left below
        what the rule holds them to (empty under ``class``)."""
        if self.rule != "robust":
            return ()
        return tuple(c for c in self.collateral if c.after.rate < self.floor(c))

    def floor(self, c: Collateral) -> float:
        """What ``robust`` holds a collateral row to: the target for the window rule,
        the target less :data:`MOVED_GRID_SLACK` on a moved grid (-inf otherwise)."""
        if c.rule == "window":
            return self.target
        if c.offset:  # moved grids are measured at the attack's tolerance alone
            return self.target - MOVED_GRID_SLACK
        return -math.inf

    @property
    def already_met(self) -> bool:
        """The target was met before any change: nothing was changed."""
        return all(a.before.rate >= self.target for a in self.attacks)

    @property
    def cells_total(self) -> int:
        return sum(self.cells_changed.values())

    @property
    def cells_share(self) -> float:
        """Changed cells, in percent of the avatar table's cells."""
        cells = self.n_avatars * self.n_columns
        return 100.0 * self.cells_total / cells if cells else 0.0

    @property
    def reason(self) -> str | None:
        """Why the target was not reached (None when it was)."""
        if self.met:
            return None
        worst = self.worst_after
        kept = self.kept_in_the_way
        held = f" with {', '.join(map(repr, kept))} kept unchanged (keep)" if kept else ""
        free = f"change fewer kept columns ({', '.join(map(repr, kept))}), " if kept else ""
        looked = (
            f"none found among the {self.tried:,} candidates tried (drawn at random: another "
            "seed may find one); each would have linked another individual or moved a link "
            "to another avatar"
            if self.tried
            else "no candidate could be made"
        )
        reached = f"The worst attack ({worst.name}) reached {format_rate(worst.after.rate)}"
        if worst.after.rate >= self.target and self.short:
            c = min(self.short, key=lambda c: c.after.rate - self.floor(c))
            reached = (
                f"Under the {c.name}, {', '.join(c.known)} reached "
                f"{format_rate(c.after.rate)} (held to {format_rate(self.floor(c))})"
            )
        return (
            f"{self.unfixed:,} linked profile(s) kept their link: an admissible move "
            f"({', '.join(self.moves)}{held}) was looked for and {looked}. {reached}. "
            f"{free}{self._more_moves}lower the target"
        )

    @property
    def kept_in_the_way(self) -> tuple[str, ...]:
        """The kept columns that are known variables of an attack left below the
        target (every kept column when *regenerate*, which changes whole rows, was
        allowed): the columns the moves could not touch."""
        short = {v for a in self.attacks if a.after.rate < self.target for v in a.known}
        if "regenerate" in self.moves:
            return self.keep
        return tuple(n for n in self.keep if n in short)

    @property
    def _more_moves(self) -> str:
        others = [m for m in MOVES if m not in self.moves]
        if not others:
            return ""
        hint = {"regenerate": "regenerate (kpr's avatars, with their pairing)"}
        return "Allow more moves (" + ", ".join(hint.get(m, m) for m in others) + ") or "

    @property
    def meaning(self) -> str:
        """The outcome in one sentence."""
        worst = self.worst_after
        one = len(self.attacks) == 1
        attacks = "the attack" if one else f"all {len(self.attacks)} attacks"
        gives = "the attack now gives" if one else f"all {len(self.attacks)} attacks now give"
        if self.already_met:
            return (
                f"The target of {format_rate(self.target)} was already met by {attacks} "
                f"(worst {format_rate(worst.after.rate)}): nothing was changed."
            )
        if not self.met:
            return f"The target of {format_rate(self.target)} was not reached: {self.reason}."
        deleted = f" and {self.rows_deleted:,} row(s) deleted" if self.rows_deleted else ""
        which = "" if one else f"{worst.name}: "
        return (
            f"Protected: {gives} at least {format_rate(self.target)} (worst {which}"
            f"{format_rate(worst.after.rate)}, was {format_rate(worst.before.rate)}),"
            f" verified by a fresh evaluation, at the cost of {self.cells_total:,} changed "
            f"cell(s) ({self.cells_share:.3f} % of the table){deleted}; for the attacks "
            "given, no individual was newly linked and no link moved to another avatar."
        )

    def to_dict(self) -> dict[str, Any]:
        def optional(x: Any) -> Any:
            return None if x is None else x.to_dict()

        return {
            "target": self.target,
            "met": self.met,
            "already_met": self.already_met,
            "meaning": self.meaning,
            "reason": self.reason,
            "moves": list(self.moves),
            "rule": self.rule,
            "keep": list(self.keep),
            "seed": self.seed,
            "n_avatars": self.n_avatars,
            "n_columns": self.n_columns,
            "worst_before": self.worst_before.to_dict(),
            "worst_after": self.worst_after.to_dict(),
            "attacks": [a.to_dict() for a in self.attacks],
            "cost": {
                "cells_changed": self.cells_total,
                "cells_changed_share": self.cells_share,
                "cells_changed_per_column": dict(self.cells_changed),
                "moves_used": dict(self.moves_used),
                "rows_deleted": self.rows_deleted,
                "shift_bounds": dict(self.shift_bounds),
                "largest_net_change": dict(self.largest_change),
                "utility": self.utility,
            },
            "unfixed_profiles": self.unfixed,
            "candidates_tried": self.tried,
            "trace": [{"cells_changed": c, "worst_kpr": r} for c, r in self.trace],
            "collateral": [c.to_dict() for c in self.collateral],
            "untested_subsets": self.untested.to_dict(),
            "control_before": optional(self.control_before),
            "control_after": optional(self.control_after),
            "distance_before": optional(self.distance_before),
            "distance_after": optional(self.distance_after),
            "marks": {
                "multiplicity": [c.to_dict() for c in self.multiplicity],
                "plausibility": optional(self.plausibility),
            },
        }
