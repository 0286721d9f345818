"""The optimiser's vocabulary: a known column as it changes (``Column``), a move
tried (``Candidate``), the *regenerate* move's material (``NewAvatars``) and what the
run did (``Outcome``). Plain data, imported by every module that proposes or checks a
move (:mod:`kpr.protection.optimise`, ``proposals``, ``draws``, ``decoys``,
``plausibility``), so none of them imports the optimiser."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kpr.metric.attack import Kind

DEFAULT_MOVES = ("swap", "shift")

Changes = dict[int, list[tuple[str, int, int]]]  # row -> (variable, old code, new code)
#: A link to remove: ("class" | "moved", attack or moved grid, profile key) or
#: ("window", attack, member); None: any move of the row
Link = tuple[str, int, int] | None


@dataclass
class Column:
    """One known variable of the avatars: each row's value code, now and in the input."""

    name: str
    kind: Kind
    codes: np.ndarray  #: current value code of each avatar row
    values: np.ndarray | None  #: numeric/date: the value of each code (NaN: missing)
    first_row: np.ndarray  #: an input avatar row holding each code (-1: none)
    can_blank: bool  #: the column's type can hold a missing value
    bound: float | None = None  #: largest change of a shift: the smallest class width
    kept: bool = False  #: named by ``keep``: no cell of it may change
    input_codes: np.ndarray = field(init=False)
    #: where each changed cell's value comes from: an input row, or -1 (blank)
    source: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.input_codes = self.codes.copy()


@dataclass
class Candidate:
    move: str
    cells: int
    changes: Changes
    deleted: tuple[int, ...] = ()
    partner: int | None = None
    source: int | None = None  #: regenerate: the new avatar's row in the extended table
    #: (row, variable) -> a new value drawn on the column's grid; its change names a
    #: reference code of the same classes (``kpr.protection.draws``)
    drawn: dict[tuple[int, str], float] = field(default_factory=dict)
    #: a shift that creates doubt (``kpr.protection.decoys``): "decoy" or "escape"
    doubt: str = ""
    widths: float = 0.0  #: its net change in widths


@dataclass
class NewAvatars:
    """The *regenerate* move's material: one new avatar per avatar row that may be
    replaced, held past the input's last row (row ``m + i`` of the extended table)."""

    rows: dict[int, list[int]]  #: avatar row -> i of each of its new avatars (drawn apart)
    codes: dict[str, np.ndarray]  #: value code of each new avatar, per known variable
    other_cells: np.ndarray  #: per new avatar: cells that differ outside the known variables
    #: per new avatar: whether it differs in a kept column that is not a known variable
    changes_kept: np.ndarray | None = None


@dataclass
class Outcome:
    """What the optimiser did."""

    deleted: set[int]
    moves: dict[tuple[int, str], str]  #: the last move that changed each cell
    trace: list[tuple[int, float]]  #: (cells changed so far, worst rate), one per move
    unfixed: int  #: linked profiles no admissible move could free
    regenerated: dict[int, int] = field(default_factory=dict)  #: row -> its source row
    #: candidate moves tried, in vain, for the profiles left linked (last pass)
    tried: int = 0
    #: moves that created doubt (``--rule robust``), per kind: "decoy", "escape"
    doubts: dict[str, int] = field(default_factory=dict)
