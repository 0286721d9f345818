"""Counts by class profile x one extra column, on every backend: the tables the
measures of what an attacker infers are computed from (``kpr.metric.inference``).

One attack (its known variables) and one extra column ``t`` give one table, a row per
cell (profile on the known variables, class of ``t``), with three counts:

- ``people``: the original rows in the cell;
- ``unique``: those of them in U (their tuple of raw known values occurs once);
- ``avatars``: the avatar rows in the cell.

The known variables are binned exactly as ``kpr.evaluate`` bins them, and a numeric or
date ``t`` by the same rule with its own ``lo`` and width over U
(``kpr.metric.binning``, from the exact statistics of :func:`queries.numeric_statistics`);
a categorical ``t`` is kept as it is. Everything is narwhals lazy queries, the cells
counted by a counting path (``queries.Counting.cells``); only the count table is
collected. U's rows come from one group-by on the raw known values:
a group of one row holds one value of ``t`` (its minimum), so U needs no join.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import narwhals as nw
import numpy as np
import polars as pl

from kpr.engine import queries
from kpr.metric.attack import Attack, Kind
from kpr.metric.binning import NumericBins
from kpr.metric.classes import true_class_expr
from kpr.metric.inference import Cells

#: The internal name of the extra column (the known variables' are ``__kpr_k{i}__``).
EXTRA = "__kpr_t__"
_N = "__kpr_n__"
_SIDE = "__kpr_side__"
#: The count columns of a :class:`ProfileCounts` table.
COUNTS = ("people", "unique", "avatars")
#: The dense ids of a table's profiles and classes.
PROFILE, CLASS = "__kpr_profile__", "__kpr_class__"


@dataclass(frozen=True)
class ProfileCounts:
    """One attack's cells (profile, class of the extra column) with their counts.

    ``table`` holds one row per cell: a code column per known variable (``keys``, in
    the attack's order), the extra column's class (``extra_key``) and the counts of
    :data:`COUNTS`. ``bins`` are the classes of every binned column (user names), the
    extra column's included; ``kinds`` the kinds of the known variables and of ``t``.
    """

    table: pl.DataFrame
    keys: tuple[str, ...]
    extra_key: str
    bins: dict[str, NumericBins]
    kinds: dict[str, Kind]
    known: tuple[str, ...]
    extra: str


def _collect(frame: queries.Frame) -> pl.DataFrame:
    native = frame.collect(backend="polars").to_native()
    assert isinstance(native, pl.DataFrame)
    return native


def _unique_rows(original: queries.Frame, known: list[str]) -> queries.Frame:
    """U with its extra value: the groups of raw known values holding one row."""
    return (
        original.group_by(*known, drop_null_keys=False)
        .agg(nw.len().alias(_N), nw.col(EXTRA).min())
        .filter(nw.col(_N) == 1)
        .drop(_N)
    )


def _class_name(name: str) -> str:
    return f"__kpr_class__{name}"


def cut(x: nw.Expr, edges: Sequence[float]) -> nw.Expr:
    """The class of ``x`` among right-closed bins with these inner edges: the number of
    edges below it (missing, and -inf, which lies in no bin, are missing)."""
    x = x.cast(nw.Float64)
    code = functools.reduce(
        operator.add, ((x > e).cast(nw.Int64) for e in edges), nw.lit(0, nw.Int64)
    )
    return nw.when(x.is_null() | (x == float("-inf"))).then(None).otherwise(code)


def _classes(
    frame: queries.Frame,
    kinds: Mapping[str, Kind],
    bins: Mapping[str, NumericBins],
    edges: Mapping[str, Sequence[float]],
) -> queries.Frame:
    """Each column's class: by the rule for a binned one (``classes.true_class_expr``:
    people outside U's range keep their own class), by its ``edges`` when given
    (:func:`cut`), as it is for a categorical one."""

    def of(v: str, kind: Kind) -> nw.Expr:
        if v in edges:
            return cut(nw.col(v), edges[v])
        return true_class_expr(nw.col(v), bins[v]) if kind.binned else nw.col(v)

    return frame.select(of(v, k).alias(_class_name(v)) for v, k in kinds.items())


def profile_counts(
    original: queries.Frame,
    avatars: queries.Frame,
    attack: Attack,
    kinds: Mapping[str, Kind],
    extra: str,
    edges: Mapping[str, Sequence[float]] | None = None,
    counting: queries.Counting | None = None,
) -> ProfileCounts:
    """The count table of ``attack`` by profile x class of ``extra`` (see the module
    docstring). ``kinds`` gives the kind of every known variable and of ``extra``;
    both frames hold those columns (the loaded, reconciled tables). ``edges`` cuts the
    columns it names by fixed edges instead (:func:`cut`; give them as categorical);
    ``counting``: the counting path that counts the cells (default: the lazy queries)."""
    aliases = {**queries.internal_names(attack.known), extra: EXTRA}
    cuts = {aliases[v]: e for v, e in (edges or {}).items()}
    internal = {a: kinds[v] for v, a in aliases.items()}
    o = queries.internal_frame(original, aliases, None)
    a = queries.internal_frame(avatars, aliases, None)
    known = [aliases[v] for v in attack.known]
    u = _unique_rows(o, known)
    if o.implementation.is_polars():  # U serves three queries: computed once
        u = nw.from_native(_collect(u).lazy())
    binned = [v for v, k in internal.items() if k.binned]
    dates = {v for v in binned if internal[v] is Kind.DATE}
    bins = queries.numeric_statistics(u, binned, attack.tolerance, dates)
    codes = [_class_name(v) for v in internal]
    parts = {
        label: _classes(frame, internal, bins, cuts)
        for label, frame in zip(COUNTS, (o, u, a), strict=True)
    }
    stacked = (counting or queries.LazyCounting()).cells(parts, codes)
    table = _numbered(_collect(stacked), codes[:-1], codes[-1])
    return ProfileCounts(
        table=table,
        keys=tuple(codes[:-1]),
        extra_key=codes[-1],
        bins={v: bins[a] for v, a in aliases.items() if a in bins},
        kinds=dict(kinds),
        known=tuple(attack.known),
        extra=extra,
    )


def _sort_key(table: pl.DataFrame, column: str) -> pl.Expr:
    """A column as it sorts the same whatever the row order: a polars Categorical's
    physical order is the order values were met, so it sorts by its text."""
    if isinstance(table.schema[column], pl.Categorical):
        return pl.col(column).cast(pl.String)
    return pl.col(column)


def _numbered(table: pl.DataFrame, keys: list[str], extra: str) -> pl.DataFrame:
    """The cells in one order (profiles, then classes; missing last), with dense ids:
    ``PROFILE`` numbers the profiles, ``CLASS`` the extra column's classes, so the
    measures see the same arrays whatever the engine and row order."""
    by = [_sort_key(table, c) for c in [*keys, extra]]
    table = table.sort(by, nulls_last=True)
    new = pl.int_range(pl.len()) == 0
    for k in keys:
        new = new | pl.col(k).ne_missing(pl.col(k).shift(1))
    ranked = _sort_key(table, extra).rank("dense")
    return table.with_columns(
        (new.cast(pl.Int64).cum_sum() - 1).alias(PROFILE)
        if keys
        else pl.lit(0, pl.Int64).alias(PROFILE),
        (ranked.fill_null(ranked.max().fill_null(0) + 1).cast(pl.Int64) - 1).alias(CLASS),
    )


def cells(counts: ProfileCounts) -> Cells:
    """The count table as the arrays the measures take."""
    t = counts.table

    def column(name: str) -> np.ndarray:
        return t[name].to_numpy().astype(np.int64)

    return Cells(column(PROFILE), column(CLASS), *(column(c) for c in COUNTS))
