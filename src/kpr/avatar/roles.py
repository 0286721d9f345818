"""Each column's role in the avatars, decided before generating and shown to the user.

The base kind (numeric or categorical, or empty when entirely missing) comes from
ONE call, :func:`column_roles` (on kpr's kind rule, :mod:`kpr.inputs.kinds`), the
rule the projection itself uses; this module adds what a user must see before trusting the output:

* ``numeric`` (with a missingness companion when values are missing: whether a
  value is missing is then drawn like a categorical), ``categorical``, ``empty``;
* ``identifier``: a categorical column unique or nearly unique on every row (at
  least :data:`IDENTIFIER_SHARE` of its present values distinct, on at least
  :data:`IDENTIFIER_MIN_ROWS` rows): an e-mail, a free-text note, a record number.
  Its values can only be copied from real people, so generating is refused
  unless the column is dropped or passed through knowingly;
* ``passthrough``: an identifier the user chose to keep: left out of the
  projection, and each avatar carries the value of the individual it was made
  from. That value links the avatar to its individual: use it only for a key
  that means nothing outside the data owner's walls, and never publish it;
* flags, which do not stop generation: a very high-cardinality categorical (more
  than :data:`HIGH_CARDINALITY` values; avatars can only draw among their
  neighbours' values, rare ones are copied), a number that looks like a code
  (integers of one fixed width, or a name such as ``zip`` or ``*_code``: averaged
  like a quantity, it produces codes that do not exist), a numeric column unique
  on every row (an identifier stored as a number: averaged, meaningless).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from kpr.avatar import _table as tb
from kpr.errors import InputError
from kpr.inputs.kinds import FEW_DISTINCT, TypeClass, decide_kind, looks_like_codes, series_facts
from kpr.results import json

#: A numeric column with at most this many distinct values is treated as categorical.
CATEGORICAL_MAX_DISTINCT = FEW_DISTINCT

Role = Literal["numeric", "categorical", "empty"]

#: A categorical column with at least this share of distinct present values is an identifier.
IDENTIFIER_SHARE = 0.9
#: ... when it has at least this many present values (smaller tables are all "unique").
IDENTIFIER_MIN_ROWS = 20
#: Above this many categories, a categorical column gets a warning.
HIGH_CARDINALITY = 100
#: Column names that usually hold codes rather than quantities.
_CODE_NAME = re.compile(
    r"(^|[_\W])(zip|postal|postcode|code|id|naics|sic|isic|nace|icd|fips|industry|occupation)"
    r"([_\W]|$)|code$|_id$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ColumnRole:
    """One column's role, and why."""

    name: Any
    role: str  #: numeric, categorical, empty, identifier or passthrough
    dtype: str
    distinct: int  #: distinct present values
    missing: int  #: missing values
    reason: str
    flags: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "column": str(self.name),
            "role": self.role,
            "missingness": self.role == "numeric" and self.missing > 0,
            "dtype": self.dtype,
            "distinct": self.distinct,
            "missing": self.missing,
            "reason": self.reason,
            "flags": list(self.flags),
        }


@dataclass(frozen=True)
class Roles:
    """Every column's role, in table order."""

    columns: tuple[ColumnRole, ...]
    rows: int

    def of(self, role: str) -> list[Any]:
        return [c.name for c in self.columns if c.role == role]

    @property
    def flags(self) -> list[str]:
        return [f"{c.name}: {f}" for c in self.columns for f in c.flags]

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "columns": [c.to_dict() for c in self.columns]}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent)

    def text(self) -> list[str]:
        """One line per column, then the flags."""
        width = max([len(str(c.name)) for c in self.columns] + [6])
        lines = [f"  {'column':<{width}}  {'role':<22}  why"]
        for c in self.columns:
            role = c.role + (" + missingness" if c.role == "numeric" and c.missing else "")
            lines.append(f"  {c.name!s:<{width}}  {role:<22}  {c.reason}")
        lines += [f"  warning: {f}" for f in self.flags]
        return lines

    def check(self) -> None:
        """Refuse identifiers not passed through, in one line naming them and the fixes."""
        found = [c for c in self.columns if c.role == "identifier"]
        if not found:
            return
        names = ",".join(str(c.name) for c in found)
        detail = "; ".join(f"{c.name!r}: {c.distinct:,} distinct values" for c in found)
        raise InputError(
            f"column(s) {names} are unique or nearly unique on every row of {self.rows:,} "
            f"({detail}): identifiers or free text, which avatars could only copy from real "
            f"people; drop them (--drop {names}) or pass them through knowingly "
            f"(--keep-identifiers {names}: each avatar then carries its own individual's "
            "value, which links it to that individual)"
        )


def declared_names(
    names: Sequence[Any], categorical: Sequence[Any] | None, numeric: Sequence[Any] | None
) -> tuple[list[Any], list[Any]]:
    """The columns declared categorical and numeric (a single name may be a string),
    checked: each must be a column, and none declared both."""
    out = []
    for label, value in (("categorical", categorical), ("numeric", numeric)):
        declared = [value] if isinstance(value, str) else list(value or [])
        unknown = [c for c in declared if c not in names]
        if unknown:
            raise InputError(
                f"{label} names unknown column(s) {unknown}; use names from the table's columns"
            )
        out.append(declared)
    both = [c for c in out[0] if c in out[1]]
    if both:
        raise InputError(
            f"column(s) {both} are declared both categorical and numeric; declare each once"
        )
    return out[0], out[1]


def column_roles(
    backend: tb.Backend,
    df: Any,
    categorical: Sequence[Any] | None = None,
    numeric: Sequence[Any] | None = None,
) -> dict[Any, Role]:
    """Decide, for each column, numeric / categorical / empty (entirely missing).

    Categorical: declared in ``categorical``, or a non-numeric dtype (strings,
    categoricals, booleans...), or numeric with at most
    :data:`CATEGORICAL_MAX_DISTINCT` distinct values unless declared in ``numeric``
    (a 1-10 score can stay a number). Temporal columns count as numeric (their
    integer timestamps). A column declared numeric must hold numbers.
    """
    names = tb.column_names(df)
    declared, numbers = declared_names(names, categorical, numeric)
    roles: dict[Any, Role] = {}
    for name in names:
        s = tb.get_column(df, name)
        if tb.missing_mask(backend, s).all():
            roles[name] = "empty"
            continue
        ctype = tb.column_type(backend, s)  # refuses nested and object columns
        # kpr's kind rule first (numbers, durations, dates); the projection also
        # carries times of day as numbers
        facts = series_facts(s)
        is_number = decide_kind(facts).binned or (
            facts.type_class is TypeClass.OTHER and ctype.numeric
        )
        if name in numbers and not is_number:
            raise InputError(
                f"column {name!r} is declared numeric but holds {s.dtype} values, not "
                "numbers; remove it from --numeric (numeric=)"
            )
        if name in declared or not is_number:
            roles[name] = "categorical"
            continue
        if name in numbers:
            roles[name] = "numeric"
            continue
        values = tb.to_float(backend, s)
        distinct = np.unique(values[~np.isnan(values)]).size
        roles[name] = "categorical" if looks_like_codes(distinct) else "numeric"
    return roles


def _distinct(backend: tb.Backend, s: Any) -> int:
    """Distinct present values (NaN counts as missing)."""
    if backend == "polars":
        if s.dtype.is_float():
            s = s.fill_nan(None)
        return int(s.drop_nulls().n_unique())
    return int(tb.factorize(backend, s)[1].shape[0])


def _looks_like_code(name: Any, values: np.ndarray) -> bool:
    """Integers of one fixed width (3+ digits), or a name that says code/zip/id."""
    if _CODE_NAME.search(str(name)):
        return True
    present = values[~np.isnan(values)]
    if present.size == 0 or np.any(present < 0) or np.any(present != np.round(present)):
        return False
    widths = np.unique(np.floor(np.log10(np.maximum(present, 1))).astype(np.int64) + 1)
    return widths.size == 1 and int(widths[0]) >= 3


def decide_roles(
    backend: tb.Backend,
    df: Any,
    categorical: Sequence[Any] | None = None,
    keep_identifiers: Collection[Any] = (),
    numeric: Sequence[Any] | None = None,
) -> Roles:
    """Every column's role and the reason (see the module docstring). Raises nothing
    about identifiers: call :meth:`Roles.check` to refuse them."""
    names = tb.column_names(df)
    unknown = [c for c in keep_identifiers if c not in names]
    if unknown:
        raise InputError(
            f"keep-identifiers names unknown column(s) {unknown}; use names from the table"
        )
    base = column_roles(backend, df, categorical, numeric)
    declared, numbers = declared_names(names, categorical, numeric)
    n = tb.n_rows(df)
    out = []
    for name in names:
        s = tb.get_column(df, name)
        dtype = str(s.dtype)
        missing = int(tb.missing_mask(backend, s).sum())
        present = n - missing
        role: str = base[name]
        if role == "empty":
            out.append(ColumnRole(name, role, dtype, 0, missing, "entirely missing: left as is"))
            continue
        distinct = _distinct(backend, s)
        seen = _Seen(name, dtype, distinct, present)
        if role == "numeric":
            reason, flags = seen.numeric(backend, s, name in numbers)
        else:
            role, reason, flags = seen.other(backend, s, role, name in declared, keep_identifiers)
        if role not in ("identifier", "passthrough") and name in keep_identifiers:
            raise InputError(
                f"keep-identifiers names {name!r}, which is not an identifier ({reason}); "
                "it is avatarised like the other columns: remove it from the option"
            )
        if missing:
            how = "a missingness companion" if role == "numeric" else "one more category"
            reason += f", {missing:,} missing ({how})"
        out.append(ColumnRole(name, role, dtype, distinct, missing, reason, tuple(flags)))
    return Roles(tuple(out), n)


@dataclass(frozen=True)
class _Seen:
    """What :func:`decide_roles` saw of one present column: its name, dtype, distinct
    values and present rows."""

    name: str
    dtype: str
    distinct: int
    present: int

    @property
    def counts(self) -> str:
        return f"{self.distinct:,} distinct values"

    def numeric(self, backend: tb.Backend, s: Any, declared: bool) -> tuple[str, list[str]]:
        """A numeric column's reason and flags (a code, an identifier stored as a number)."""
        name, dtype, counts = self.name, self.dtype, self.counts
        reason = (
            f"declared numeric, dtype {dtype}, {counts}"
            if declared
            else f"numeric dtype {dtype}, {counts} (> {CATEGORICAL_MAX_DISTINCT})"
        )
        flags: list[str] = []
        values = tb.to_float(backend, s)
        if tb.column_type(backend, s).integer and _looks_like_code(name, values):
            flags.append(
                f"a number that looks like a code ({counts}); averaged, it produces codes "
                f"that do not exist: declare it --categorical {name}"
            )
        if self.present >= IDENTIFIER_MIN_ROWS and self.distinct == self.present:
            flags.append(
                "unique on every row: an identifier stored as a number? averaged, it is "
                f"meaningless: --drop {name}"
            )
        return reason, flags

    def other(
        self,
        backend: tb.Backend,
        s: Any,
        role: str,
        declared: bool,
        keep_identifiers: Collection[Any],
    ) -> tuple[str, str, list[str]]:
        """A column that is not numeric: its role (``role``, or identifier or
        passthrough), its reason and flags (high cardinality)."""
        name, dtype, counts, distinct, present = (
            self.name, self.dtype, self.counts, self.distinct, self.present
        )  # fmt: skip
        why = "declared categorical" if declared else None
        if why is None:
            why = (
                f"numeric dtype {dtype} with only {counts} (<= {CATEGORICAL_MAX_DISTINCT})"
                if tb.column_type(backend, s).numeric
                else f"dtype {dtype}"
            )
        reason = f"{why}, {counts}"
        if present >= IDENTIFIER_MIN_ROWS and distinct >= IDENTIFIER_SHARE * present:
            role = "passthrough" if name in keep_identifiers else "identifier"
            share = 100.0 * distinct / present
            reason = f"{why}: {counts} in {present:,} present rows ({share:.0f} % distinct)"
            if role == "passthrough":
                reason += "; kept: each avatar carries its own individual's value"
            return role, reason, []
        flags: list[str] = []
        if distinct > HIGH_CARDINALITY:
            flags.append(
                f"{counts}: avatars can only draw among their neighbours' values, so rare "
                f"values are copied from real people; group rare values or --drop {name}"
            )
        return role, reason, flags


def split_identifiers(values: Iterable[Any] | None) -> list[Any]:
    """``keep_identifiers`` as a list (a single name may be given as a string)."""
    if values is None:
        return []
    return [values] if isinstance(values, str) else list(values)
