"""Both tables as polars frames of every compared column, with kinds decided as for
the rate (``kpr.inputs.reconcile``): the same readers, so every input kpr reads works.

Dates come from ``kpr.inputs.reconcile`` as float days; they are turned back into the
integer nanoseconds SDMetrics computes on (``pd.to_numeric`` of a datetime), so
that ties and bin edges fall where they fall in SDMetrics.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl

from kpr.engine.parsing import parsing_for
from kpr.errors import InputError, first_line
from kpr.inputs.dates import US_PER_DAY
from kpr.inputs.files import read_table, resolve_columns
from kpr.inputs.kinds import looks_like_codes
from kpr.inputs.metadata import SDTYPE_KINDS, metadata_dict, metadata_source, table_columns
from kpr.inputs.names import shown_columns, suggest
from kpr.inputs.reading import ReadSettings
from kpr.inputs.reconcile import Prepared, reconcile
from kpr.inputs.sides import Side, check_column_types, column_names, load_side
from kpr.metric.attack import Attack, Kind, make_attack
from kpr.metric.attack import column_names as given_names

#: SDMetrics' Quality Report also scores ``ordinal`` columns (as categories).
_SDTYPES = {**SDTYPE_KINDS, "ordinal": "categorical"}


@dataclass(frozen=True)
class Loaded:
    """The compared columns of both tables (dates as int64 nanoseconds since 1970)."""

    original: pl.DataFrame
    synthetic: pl.DataFrame
    kinds: dict[str, Kind]
    skipped: tuple[str, ...]  # columns the metadata gives a sdtype SDMetrics does not score
    #: numeric columns with at most 10 distinct values in the original, scored as
    #: categories as ``kpr avatarize`` treats them (none declared by kinds or metadata)
    codes: tuple[str, ...] = ()


def _is_path(obj: object) -> bool:
    return isinstance(obj, str | os.PathLike)


def _side(
    obj: object, label: str, csv: ReadSettings, numeric: Callable[[str], bool]
) -> tuple[Side | None, list[str]]:
    """A path is read once, every column (its Side is ready); a frame's names only.
    ``numeric``: the columns that will be numeric whenever every value is a number
    (their text is not kept then: see ``kpr.inputs.files.Compact``)."""
    if _is_path(obj):
        loaded = read_table(obj, None, csv, label, compact=numeric)  # type: ignore[arg-type]
        check_column_types(loaded.frame.collect_schema(), loaded.label)
        side = Side(loaded.frame, loaded.untyped, loaded.label)
        return side, loaded.frame.collect_schema().names()
    return None, column_names(obj)


def _undeclared(declared: Sequence[str]) -> Callable[[str], bool]:
    """The original's columns no kind is declared for (by their name, or trimmed):
    numeric whenever every value is a number (``kpr.inputs.kinds``)."""
    names = {d.strip() for d in declared}
    return lambda name: name.strip() not in names


def _numeric_in(original: Side | None, undeclared: Callable[[str], bool]) -> Callable[[str], bool]:
    """The synthetic table's columns whose original, a CSV file, is numeric: held as
    numbers while reading, so it has a value, and no kind declared."""
    if original is None or not original.untyped:
        return lambda _: False
    schema = original.frame.collect_schema()
    numbers = {n.strip() for n, t in schema.items() if t.is_numeric() and undeclared(n)}
    others = {n.strip() for n, t in schema.items() if not (t.is_numeric() and undeclared(n))}
    numeric = numbers - others  # a name that trims like another column's: kept as text
    return lambda name: name.strip() in numeric


def _restrict(side: Side | None, obj: object, columns: Sequence[str], label: str) -> Side:
    csv = ReadSettings()
    if side is None:
        return load_side(obj, columns, label, csv)
    assert isinstance(side.frame, pl.LazyFrame)
    actual = resolve_columns(side.frame.collect_schema().names(), columns, side.label)
    side.frame = side.frame.select(pl.col(a).alias(w) for a, w in zip(actual, columns, strict=True))
    return side


def metadata_kinds(metadata: Any, table: str | None = None) -> tuple[dict[str, str], set[str]]:
    """The kinds SDV metadata declares, and the columns it describes with a sdtype the
    Quality Report does not score (ids, personal information): those are skipped."""
    columns = table_columns(metadata_dict(metadata), table, metadata_source(metadata))
    kinds: dict[str, str] = {}
    skipped: set[str] = set()
    for name, spec in columns.items():
        sdtype = str(spec.get("sdtype", "")) if isinstance(spec, Mapping) else ""
        if sdtype in _SDTYPES:
            kinds[str(name)] = _SDTYPES[sdtype]
        elif sdtype:
            skipped.add(str(name))
    return kinds, skipped


def _metadata_fits(
    metadata: Any, described: Sequence[str], names: Sequence[str], label: str
) -> None:
    """Metadata describing a column the original (``label``) lacks is another table's:
    refused, naming the column and both files, rather than its kinds applied to the
    wrong data."""
    absent = [c for c in described if c not in names]
    if absent:
        raise InputError(
            f"{metadata_source(metadata)} describes column {absent[0]!r}, which {label} does "
            f"not have (its columns: {shown_columns(names)}): give the metadata of this table "
            "(or name its table with --table)"
        )


def days_to_ns(days: np.ndarray) -> np.ndarray:
    """float days (``kpr.inputs.dates``: microseconds / US_PER_DAY, correctly rounded)
    back to int64 nanoseconds: the microsecond whose quotient gives ``days`` exactly."""
    us = np.rint(days * float(US_PER_DAY))
    for step in (-1.0, 1.0):  # the product may land one microsecond off
        off = (us / float(US_PER_DAY)) != days
        if not off.any():
            break
        us = np.where(off & ((us + step) / float(US_PER_DAY) == days), us + step, us)
    return us.astype(np.int64) * 1000


def _collect(frame: nw.LazyFrame[Any], row: str) -> pl.DataFrame:
    if frame.implementation.is_polars():
        native = frame.to_native()
        assert isinstance(native, pl.LazyFrame)
        return native.drop(row, strict=False).collect()
    got = frame.collect(backend="polars").to_native()
    assert isinstance(got, pl.DataFrame)
    return got.drop(row, strict=False)


@dataclass(frozen=True)
class Selection:
    """What to compare: ``columns`` (None: every column of the original), the kinds
    ``kinds`` declares, SDV ``metadata`` (of ``table``)."""

    columns: Iterable[str] | None = None
    kinds: Mapping[str, str] | None = None
    metadata: Any = None
    table: str | None = None


def _check_selection(selection: Selection) -> None:
    """The kinds a mapping; a table named only with metadata, by its name."""
    if selection.kinds is not None and not isinstance(selection.kinds, Mapping):
        raise InputError(
            "kinds must map column names to kinds, e.g. {'age': 'numeric'}, "
            f"got {selection.kinds!r}"
        )
    if selection.table is not None and selection.metadata is None:
        raise InputError(
            "table= (--table) names a table of SDV metadata: give metadata= (--metadata) too"
        )
    if selection.table is not None and not isinstance(selection.table, str):
        raise InputError(
            f"table must be the name of a table of the metadata, got {selection.table!r}"
        )


def load_tables(
    original: Any, synthetic: Any, selection: Selection, csv: ReadSettings | None = None
) -> Loaded:
    """Read both tables: the selected columns, kinds inferred by kpr's rule, then the
    metadata's, then the declared ones."""
    columns, kinds, metadata = selection.columns, selection.kinds, selection.metadata
    _check_selection(selection)
    csv = csv or ReadSettings()
    declared: dict[str, str] = {}
    skipped: set[str] = set()
    if metadata is not None:
        declared, skipped = metadata_kinds(metadata, selection.table)
    undeclared = _undeclared([*declared, *(kinds or {})])
    o_side, o_names = _side(original, "original", csv, undeclared)
    s_side, s_names = _side(synthetic, "synthetic", csv, _numeric_in(o_side, undeclared))
    if columns is None:
        wanted = [c for c in o_names if c not in skipped]
    else:
        wanted = given_names(columns, "columns", "column", "age")
    o_label = o_side.label if o_side is not None else "original"
    s_label = s_side.label if s_side is not None else "synthetic"
    resolve_columns(o_names, wanted, o_label)  # names a missing column, with a hint
    if metadata is not None:
        _metadata_fits(metadata, [*declared, *skipped], o_names, o_label)
    bad = sorted(set(kinds or {}) - set(o_names))
    if bad:
        raise InputError(
            f"a kind is declared for {bad[0]!r}, which is not a column of {o_label}"
            f"{suggest(bad[0], o_names)}"
        )
    declared = {**declared, **(kinds or {})}
    declared = {k: v for k, v in declared.items() if k in wanted}
    attack = make_attack(wanted, kinds=declared)
    missing = [c for c in wanted if c not in s_names and c.strip() not in s_names]
    if missing:
        raise InputError(
            f"{s_label} lacks column {missing[0]!r} of the original (its columns: "
            f"{shown_columns(s_names)}); compare tables with the same columns (or restrict "
            "with columns=/--columns)"
        )
    o = _restrict(o_side, original, wanted, "original")
    s = _restrict(s_side, synthetic, wanted, "synthetic")
    prepared, left, right = _reconciled(o, s, attack)
    codes = avatarize_codes(left, prepared.kinds, declared)
    used: dict[str, Kind] = {**prepared.kinds, **dict.fromkeys(codes, Kind.CATEGORICAL)}
    return Loaded(left, right, used, tuple(sorted(skipped)), codes)


def _reconciled(o: Any, s: Any, attack: Attack) -> tuple[Prepared, pl.DataFrame, pl.DataFrame]:
    """Both tables reconciled as the metric reconciles them and collected (dates as
    nanoseconds); neither may be empty."""
    try:
        prepared = reconcile(o, s, attack, parsing_for)
        left = _collect(prepared.original, prepared.row)
        right = _collect(prepared.avatars, prepared.row)
    except pl.exceptions.PolarsError as exc:
        raise InputError(f"could not read the input data: {first_line(exc)}") from None
    for side, frame in (("original", left), ("synthetic", right)):
        if frame.height == 0:
            raise InputError(
                f"the {side} table has no rows: there is no distribution to compare; "
                "give a table with rows"
            )
    dated = [n for n, k in prepared.kinds.items() if k is Kind.DATE]
    if dated:
        left = _dates_as_ns(left, dated)
        right = _dates_as_ns(right, dated)
    return prepared, left, right


def avatarize_codes(
    original: pl.DataFrame, kinds: Mapping[str, Kind], declared: Mapping[str, str]
) -> tuple[str, ...]:
    """The numeric columns ``kpr avatarize`` treats as categories: at most 10 distinct
    present values in the original (``kpr.inputs.kinds.looks_like_codes``), no kind
    declared. Scored as categories too, so a table is measured as it was generated."""
    out = []
    for name, kind in kinds.items():
        if kind is not Kind.NUMERIC or name in declared:
            continue
        values = original[name]
        if values.dtype.is_float():
            values = values.fill_nan(None)
        distinct = values.drop_nulls().n_unique()
        if distinct and looks_like_codes(distinct):
            out.append(name)
    return tuple(out)


def _dates_as_ns(frame: pl.DataFrame, names: Sequence[str]) -> pl.DataFrame:
    out = []
    for name in names:
        days = frame[name].cast(pl.Float64)
        present = days.is_not_null() & days.is_finite()
        values = days.fill_null(0.0).to_numpy()
        ns = days_to_ns(np.where(present.to_numpy(), values, 0.0))
        out.append(pl.when(present).then(pl.Series(name, ns)).alias(name))
    return frame.with_columns(out)
