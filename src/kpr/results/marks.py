"""What a protection's moves leave visible, measured after the run
(:mod:`kpr.protection.grid`, :mod:`kpr.protection.plausibility`): plain data and
``to_dict()``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: One-sided level of the multiplicity check.
LEVEL = 0.05


@dataclass(frozen=True)
class MultiplicityCheck:
    """One changed numeric column: among its changed rows, how many hold a value held
    by exactly 2-3 rows of the release, against the input avatars' own share (a
    one-sided binomial test: changed rows must not stand out by their copies)."""

    column: str
    changed: int  #: changed rows holding a value
    few: int  #: of which the value is held by exactly 2-3 rows
    table_share: float  #: the input avatars' share of rows held by 2-3 rows
    p_value: float  #: ``scipy.stats.binomtest(few, changed, table_share, "greater")``

    @property
    def share(self) -> float:
        return self.few / self.changed if self.changed else 0.0

    @property
    def passed(self) -> bool:
        return self.p_value >= LEVEL

    def to_dict(self) -> dict[str, Any]:
        return {
            "column": self.column,
            "changed_rows": self.changed,
            "held_by_2_to_3": self.few,
            "share": self.share,
            "table_share": self.table_share,
            "p_value": self.p_value,
            "passed": self.passed,
        }


@dataclass(frozen=True)
class Plausibility:
    """Rows holding a pair of categorical values (in two columns, known or not) that
    no original row holds, before and after; protect's moves never raise it."""

    columns: tuple[str, ...]  #: the categorical columns whose pairs were checked
    before: int
    after: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "columns": list(self.columns),
            "implausible_rows_before": self.before,
            "implausible_rows_after": self.after,
        }
