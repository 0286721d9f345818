"""What an attack is: the known variables, their kinds and the tolerance.

Validated once here, so every engine and every entry point (API, CLI, sweep)
agrees on what is a valid attack.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from kpr.errors import InputError

DEFAULT_TOLERANCE = 0.05
#: The column of row ids (positions or a ``row_id`` column) the loaders and engines add:
#: a reserved name, never a known variable's.
ROW = "__kpr_row__"


class Kind(StrEnum):
    NUMERIC = "numeric"
    CATEGORICAL = "categorical"
    DATE = "date"  # binned on days since the epoch, width from the range (spec: dates)

    @property
    def binned(self) -> bool:
        """Whether values are put in classes (numeric, date) rather than compared as they are."""
        return self is not Kind.CATEGORICAL


@dataclass(frozen=True)
class Attack:
    """The attacker's knowledge: known variables and how values approach."""

    known: tuple[str, ...]
    tolerance: float = DEFAULT_TOLERANCE
    kinds: Mapping[str, Kind] = field(default_factory=dict)  # declared overrides only
    #: absolute class widths (days for dates) that replace the spec's ``width_v``
    widths: Mapping[str, float] = field(default_factory=dict)
    #: the variables whose width was given as a duration (a ``timedelta``)
    durations: frozenset[str] = frozenset()
    #: the class grid's origin moved down by this fraction of each binned variable's
    #: width, the same for all (0: the spec's grid; a check of how much a rate owes
    #: to where the class edges fall, not part of the metric)
    offset: float = 0.0

    def on(self, known: Iterable[str]) -> Attack:
        """The same attack on other known variables (a sweep's subset): the settings
        of variables it no longer knows are dropped."""
        names = tuple(known)
        return replace(
            self,
            known=names,
            kinds={n: k for n, k in self.kinds.items() if n in names},
            widths={n: w for n, w in self.widths.items() if n in names},
            durations=frozenset(n for n in self.durations if n in names),
        )


def check_tolerance(tolerance: object) -> float:
    """The tolerance must be a number strictly between 0 and 1."""
    if isinstance(tolerance, bool):
        raise InputError(f"tolerance must be a number in (0, 1), got {tolerance!r}")
    try:
        value = float(tolerance)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(
            f"tolerance must be a number in (0, 1) such as 0.05, got {tolerance!r}"
        ) from None
    if not (math.isfinite(value) and 0.0 < value < 1.0):
        raise InputError(f"tolerance must be in (0, 1) such as 0.05 for 5 %, got {value!r}")
    return value


def check_offset(offset: object) -> float:
    """A grid offset (``grid_offset``, ``--grid-offset``) is a fraction of the width
    in [0, 1)."""
    what = "the grid offset (grid_offset, --grid-offset)"
    try:
        value = math.nan if isinstance(offset, bool) else float(offset)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and 0.0 <= value < 1.0):
        raise InputError(f"{what} is a fraction of the width in [0, 1) such as 0.5, got {offset!r}")
    return value


def _check_known(name: str, known: list[str], what: str) -> None:
    """A setting (``what``: "a kind is declared", "a width is given") names a known variable."""
    if name not in known:
        raise InputError(
            f"{what} for {name!r}, which is not a known variable; "
            f"known variables: {', '.join(map(repr, known))}"
        )


def check_widths(widths: Mapping[str, object] | None, names: Iterable[str]) -> dict[str, float]:
    """Absolute widths: known variables only, each a finite number > 0 (a
    ``timedelta`` is a number of days)."""
    known = list(names)
    out: dict[str, float] = {}
    for name, value in (widths or {}).items():
        _check_known(name, known, "a width is given")
        try:
            days = value / dt.timedelta(days=1) if isinstance(value, dt.timedelta) else None
            width = days if days is not None else float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            width = math.nan
        if isinstance(value, bool) or not (math.isfinite(width) and width > 0):
            raise InputError(
                f"the width of {name!r} must be a number > 0 (days for a date), got {value!r}"
            )
        out[name] = width
    return out


def column_names(given: str | Iterable[str], what: str, one: str, example: str) -> list[str]:
    """Column names given as one name or several (``what``: the parameter, ``one``: what
    one of them is): at least one, each a non-empty text, none twice."""
    if not isinstance(given, str) and not isinstance(given, Iterable):
        raise InputError(f"{what} must be a column name or a list of them, got {given!r}")
    names = [given] if isinstance(given, str) else list(given)
    if not names:
        raise InputError(f"{what} is empty: name at least one {one}, e.g. {what}=['{example}']")
    for name in names:
        if not isinstance(name, str) or name == "":
            raise InputError(f"{what} must name each {one} by a non-empty text, got {name!r}")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"{what} names the same {one} twice: {', '.join(map(repr, dupes))}")
    return names


def make_attack(
    known: str | Iterable[str],
    tolerance: object = DEFAULT_TOLERANCE,
    kinds: Mapping[str, str] | None = None,
    widths: Mapping[str, object] | None = None,
    offset: object = 0.0,
) -> Attack:
    """Validate and normalise the parameters of an evaluation (``offset``: the grid's
    origin moved down by this fraction of each width, :attr:`Attack.offset`)."""
    names = column_names(known, "known", "known variable", "age")
    declared: dict[str, Kind] = {}
    for name, kind in (kinds or {}).items():
        _check_known(name, names, "a kind is declared")
        try:
            declared[name] = Kind(str(kind).lower())
        except ValueError:
            raise InputError(
                f"kind of {name!r} must be 'numeric', 'date' or 'categorical', got {kind!r}"
            ) from None
    timed = frozenset(n for n, w in (widths or {}).items() if isinstance(w, dt.timedelta))
    return Attack(
        tuple(names),
        check_tolerance(tolerance),
        declared,
        check_widths(widths, names),
        timed,
        check_offset(offset),
    )
