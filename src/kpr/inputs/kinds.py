"""THE rule that decides a column's kind, used by ``kpr.evaluate`` (through
``kpr.inputs.reconcile``), its warnings and ``kpr avatarize``.

Per the spec: a column is *numeric* when its type is a number (integers,
floats, decimals; not booleans) or a duration, a *date* when it holds dates or
datetimes, *categorical* otherwise: strings, booleans, and category-like types
(a pandas ``category``, an Arrow dictionary, a polars ``Categorical``/``Enum``)
whatever their values. A CSV column is text: numeric when every present value
is a number, surrounding spaces allowed (``" 30 "`` is 30), else a date when
every value is an ISO date. The user's declaration (``kinds=``,
``--categorical``, ``--numeric``) always wins.

A column with no value at all (every value missing, NaN included; in CSV,
the text ``NaN`` in a column of numbers, see ``kpr.inputs.reconcile``) is
*categorical* whatever its source. A CSV file cannot say the type of an empty
column while a typed frame can, so one rule must ignore the type to make the
same table give the same result from every source. Categorical is the rule
that never fails on the other table's values (any avatar value is accepted),
and the counts do not depend on it: members of U hold only missing values
there, and missing matches only missing under both kinds.

A new kind is added in :class:`TypeClass` and :func:`decide_kind`, nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import narwhals as nw

from kpr.errors import InputError
from kpr.inputs import dates
from kpr.metric.attack import Kind


class TypeClass(Enum):
    """What a column's storage type says about its kind."""

    NUMBER = "number"  #: integers, floats, decimals
    DURATION = "duration"  #: a number of days
    TEMPORAL = "temporal"  #: dates, datetimes
    CATEGORY = "category"  #: category-like: categorical whatever the values
    TEXT = "text"  #: typed strings
    UNTYPED = "untyped"  #: CSV text whose values decide
    OTHER = "other"  #: booleans, times of day and anything else


@dataclass(frozen=True)
class ColumnFacts:
    """What the rule looks at for one column of the original table."""

    type_class: TypeClass
    #: some value is present (not null, not NaN)
    any_value: bool = True
    #: untyped text only: every present value reads as a number (spaces trimmed)
    numbers: bool = False
    #: untyped text only: every present value is an ISO date
    iso_dates: bool = False


def type_class(dtype: Any) -> TypeClass:
    """The class of a narwhals dtype."""
    if dtype == nw.Categorical or dtype == nw.Enum:
        return TypeClass.CATEGORY
    if dtype == nw.Boolean:
        return TypeClass.OTHER
    if dtype.is_numeric():
        return TypeClass.NUMBER
    if dates.is_duration(dtype):
        return TypeClass.DURATION
    if dates.is_temporal(dtype):
        return TypeClass.TEMPORAL
    if dtype == nw.String:
        return TypeClass.TEXT
    return TypeClass.OTHER


def decide_kind(facts: ColumnFacts, declared: Kind | None = None) -> Kind:
    """The kind of a known variable (see the module docstring)."""
    if declared is not None:
        return declared
    if not facts.any_value:
        return Kind.CATEGORICAL
    if facts.type_class is TypeClass.UNTYPED:
        if facts.numbers:
            return Kind.NUMERIC
        return Kind.DATE if facts.iso_dates else Kind.CATEGORICAL
    if facts.type_class in (TypeClass.NUMBER, TypeClass.DURATION):
        return Kind.NUMERIC
    return Kind.DATE if facts.type_class is TypeClass.TEMPORAL else Kind.CATEGORICAL


def text_facts(some: bool, numbers: bool, iso_dates: Callable[[], bool]) -> ColumnFacts:
    """The facts of a CSV text column; ``iso_dates`` (a query) runs only when the
    column is not numeric."""
    dated = some and not numbers and iso_dates()
    return ColumnFacts(TypeClass.UNTYPED, any_value=some, numbers=numbers, iso_dates=dated)


def series_facts(series: Any) -> ColumnFacts:
    """The facts of a pandas or polars Series of known type (its values present)."""
    return ColumnFacts(type_class(nw.from_native(series, series_only=True).dtype))


def native_categories(obj: Any, columns: Iterable[str]) -> set[str]:
    """Columns of a pandas DataFrame or pyarrow Table stored as categories
    (pandas ``category``, Arrow ``dictionary``): converting them to polars
    decodes the values (an integer category becomes Int64), so they are found
    on the native object first."""
    wanted = set(columns)
    module = type(obj).__module__.split(".")[0]
    if module == "pandas":
        import pandas as pd

        return {
            str(c)
            for c, t in obj.dtypes.items()
            if str(c) in wanted and isinstance(t, pd.CategoricalDtype)
        }
    if module == "pyarrow":
        import pyarrow as pa

        return {f.name for f in obj.schema if f.name in wanted and pa.types.is_dictionary(f.type)}
    return set()


#: A numeric column with at most this many distinct values may code categories:
#: kpr's warnings suggest declaring it categorical, and ``kpr avatarize`` treats
#: it as categorical (the Avatar method's own threshold).
FEW_DISTINCT = 10


def looks_like_codes(distinct: int) -> bool:
    """Whether a numeric column has few enough distinct values to be codes."""
    return distinct <= FEW_DISTINCT


def not_numeric(name: str, numeric_in: str, found: str, found_in: str, example: str) -> InputError:
    """The one error for a column that is numeric in one table and holds something
    else (a word, a boolean) in another: every reader (evaluate, distance, sweep's
    control) refuses it with this line rather than reading the value as missing."""
    return InputError(
        f"column {name!r} is numeric in {numeric_in} but {found} in {found_in} "
        f"({example}); fix that value, or declare the column categorical "
        f"(--categorical / kinds={{{name!r}: 'categorical'}})"
    )
