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
    the attack's order), the extra column's class (``extra_key``), the counts of
    :data:`COUNTS` and the cell's ids (``PROFILE``, ``CLASS``). ``order``: the
    positions of the rows in the cells' order (profiles, then classes), None when the
    rows are in that order. ``bins`` are the classes of every binned column (user
    names), the extra column's included; ``kinds`` the kinds of the known variables
    and of ``t``.
    """

    table: pl.DataFrame
    keys: tuple[str, ...]
    extra_key: str
    bins: dict[str, NumericBins]
    kinds: dict[str, Kind]
    known: tuple[str, ...]
    extra: str
    order: np.ndarray | None = None


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
    table, order = _numbered(_collect(stacked), codes[:-1], codes[-1])
    return ProfileCounts(
        table=table,
        order=order,
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


#: Internal names of :func:`levels`' values and ranks.
_LEVEL, _VALUE = "__kpr_level__", "__kpr_value__"


def levels(table: pl.DataFrame, by: pl.Expr) -> tuple[np.ndarray, int] | None:
    """Each row's rank among the distinct values of ``by`` (sorted by polars, missing
    last) and the number of distinct values: polars' sort, ``unique``, join and
    ``eq_missing`` hold the same values equal (NaN equals NaN, -0.0 equals 0.0), and
    each row is checked against its value. ``None`` when a row finds no value or
    the wrong one (a table of one NaN does), or two distinct values compare equal."""
    values = table.select(by.alias(_VALUE))
    found = values.unique().sort(_VALUE, nulls_last=True).with_row_index(_LEVEL)
    kept = found[_VALUE]
    if kept.len() > 1 and kept[1:].eq_missing(kept[:-1]).any():
        return None
    joined = values.join(found, on=_VALUE, how="left", nulls_equal=True, maintain_order="left")
    code = joined[_LEVEL]
    if code.null_count() or not kept.gather(code).eq_missing(values[_VALUE]).all():
        return None
    return code.to_numpy().astype(np.uint64), found.height


def _ranked_ids(table: pl.DataFrame, by: list[pl.Expr]) -> tuple[np.ndarray, ...] | None:
    """The positions of the rows in the order of ``by`` (missing last), and each row's
    profile id (its rank among the distinct values of all keys but the last) and class
    id (its rank among the last key's), from :func:`levels` combined into one integer
    sorted once. ``None`` when the ranks do not fit in 63 bits, :func:`levels`
    declines, or two rows hold the same keys (only a sort of the keys orders them)."""
    if table.height == 0:
        return None
    combined = np.zeros(table.height, dtype=np.uint64)
    radix = 1
    for expr in by:
        level = levels(table, expr)
        if level is None or radix * level[1] >= 2**63:
            return None
        radix *= level[1]
        combined = combined * np.uint64(level[1]) + level[0]
    assert level is not None  # the extra column is always one of ``by``
    order = np.argsort(combined, kind="stable")
    ranked = combined[order]
    if ranked.size > 1 and not bool(np.all(ranked[1:] > ranked[:-1])):
        return None
    profile = ranked // np.uint64(level[1])
    new = np.ones(ranked.size, dtype=np.int64)
    new[1:] = profile[1:] != profile[:-1]
    profiles = np.empty(ranked.size, dtype=np.int64)
    profiles[order] = np.cumsum(new) - 1
    return order, profiles, level[0].astype(np.int64)


def _numbered(
    table: pl.DataFrame, keys: list[str], extra: str
) -> tuple[pl.DataFrame, np.ndarray | None]:
    """The cells with dense ids: ``PROFILE`` numbers the profiles, ``CLASS`` the extra
    column's classes, in one order (profiles, then classes; missing last), so the
    measures see the same arrays whatever the engine and row order; and the positions
    of the rows in that order (None: the table is sorted). The ids come from each
    key's rank among its few distinct values (:func:`_ranked_ids`), the table left
    as it is: the control comparison counts twenty tables of a million cells, and
    sorting them took two thirds of each count."""
    by = [_sort_key(table, c) for c in [*keys, extra]]
    ranked = _ranked_ids(table, by)
    if ranked is not None:
        order, profiles, classes = ranked
        ids = pl.Series(PROFILE, profiles), pl.Series(CLASS, classes)
        return table.with_columns(*ids), order
    return sorted_ids(table, keys, extra), None


def sorted_ids(table: pl.DataFrame, keys: list[str], extra: str) -> pl.DataFrame:
    """:func:`_numbered`'s ids the plain way: the table sorted by its keys, a profile
    starting at every change of a known key, the class as the extra key's dense rank
    (missing last)."""
    table = table.sort([_sort_key(table, c) for c in [*keys, extra]], nulls_last=True)
    new = pl.int_range(pl.len()) == 0
    for k in keys:
        new = new | pl.col(k).ne_missing(pl.col(k).shift(1))
    rank = _sort_key(table, extra).rank("dense")
    return table.with_columns(
        (new.cast(pl.Int64).cum_sum() - 1).alias(PROFILE)
        if keys
        else pl.lit(0, pl.Int64).alias(PROFILE),
        (rank.fill_null(rank.max().fill_null(0) + 1).cast(pl.Int64) - 1).alias(CLASS),
    )


def cells(counts: ProfileCounts) -> Cells:
    """The count table as the arrays the measures take, in the cells' order."""
    t, order = counts.table, counts.order

    def column(name: str) -> np.ndarray:
        values = t[name].to_numpy().astype(np.int64)
        return values if order is None else values[order]

    return Cells(column(PROFILE), column(CLASS), *(column(c) for c in COUNTS))
