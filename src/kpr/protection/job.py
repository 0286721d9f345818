"""The checked settings of one protection, made once by ``kpr.protect`` from its keywords."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from kpr.inputs.reading import ReadSettings
from kpr.metric.attack import Attack, make_attack
from kpr.protection import arguments


@dataclass(frozen=True)
class ProtectJob:
    """The checked settings of one protection."""

    target: float
    moves: arguments.Moves
    attacks: list[tuple[str, ...]]
    tolerance: float
    kinds: Mapping[str, str] | None
    csv: ReadSettings
    utility: bool  # the fidelity before and after
    keep: tuple[str, ...] = ()  # columns no move may change
    rule: str = "robust"  #: "robust" (the window rule and moved grids held too) or "class"

    @cached_property
    def every(self) -> Attack:
        """The union of the attacks' variables, as one attack."""
        union = list(dict.fromkeys(v for a in self.attacks for v in a))
        return make_attack(union, self.tolerance, self.kinds)

    @property
    def allowed(self) -> tuple[str, ...]:
        return self.moves.allowed

    @property
    def seed(self) -> int:
        return self.moves.seed

    @property
    def union(self) -> list[str]:
        return list(self.every.known)
