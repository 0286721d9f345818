"""The metric as narwhals lazy queries: one translation of the spec that runs on
every backend narwhals supports (polars, DuckDB, PySpark, Dask, ...).

Steps (the spec's numbering):
1. U: group the original by its raw known values, keep groups of one row.
2. Two aggregation passes over U collect the moments of each numeric column;
   ``kpr.metric.binning`` turns them into ``lo``/``width`` (never done here).
3. Codes: ``floor((x - lo) / width)`` and the special classes, as expressions.
4-5. B1 and S in one group-by over U's and the avatars' codes stacked: a
   profile is linked when exactly one avatar row has it; every U row that has
   it is in S. Stacking instead of joining keeps missing == missing on every
   backend (SQL joins never match NULL with NULL).

``run`` asks one counting path (:class:`Counting`) for the same things in the same
order, whatever the backend: the :class:`Scan` of the original, then m and |S|.
:class:`LazyCounting` sends three queries (each one job on Spark): G (the
original grouped by its raw known values) aggregated once for n, |U|, the first
moments and the column profile; the second moments over U; m and |S| over the
stacked codes. Its :class:`Hooks` let a backend cache G or build it its own way,
and count the link its own way. ``kpr.engine.polars.MemoryCounting`` counts
polars tables held in memory with numpy instead.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

import narwhals as nw

from kpr.engine.cells import cell_counts
from kpr.engine.statistics import (
    GROUP_ROWS,
    as_int,
    bins_of,
    exact_integers,
    first_pass,
    moments_from,
    stat_exprs,
)
from kpr.metric.attack import ROW, Attack, Kind
from kpr.metric.binning import (
    Moments,
    NumericBins,
)
from kpr.metric.classes import class_expr, rank_expr
from kpr.metric.counts import Counts
from kpr.progress import Step

Frame = nw.LazyFrame[Any]

_N = GROUP_ROWS
IS_AVATAR = "__kpr_is_avatar__"
AVATARS = "__kpr_n_avatars__"
_ROW = ROW


def code_name(name: str) -> str:
    return f"__kpr_code__{name}"


@dataclass
class EngineRun:
    """What the engine computed; row frames stay lazy until asked for."""

    counts: Counts
    bins: dict[str, NumericBins]
    #: U and the avatars with their codes (and row positions when available), as
    #: lazy frames made when first asked for (the counts never need them)
    coded: Callable[[], tuple[Frame, Frame]]
    row: str | None
    #: per known variable: ``missing`` values in the original (and ``distinct``
    #: values of integer columns)
    profile: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the internal name of each known variable in the coded frames
    aliases: dict[str, str] = field(default_factory=dict)
    #: per known variable, the original rows whose value no other row has (when
    #: the engine counted them on its way; else None)
    unique_rows: dict[str, int] | None = None
    #: per known text variable, its distinct values with their rows in the original,
    #: when the engine made them on its way (``Scan.texts``)
    texts: dict[str, nw.DataFrame[Any]] = field(default_factory=dict)

    def internal_bins(self) -> dict[str, NumericBins]:
        return {self.aliases[v]: b for v, b in self.bins.items()}

    @cached_property
    def _coded(self) -> tuple[Frame, Frame]:
        return self.coded()

    @property
    def coded_u(self) -> Frame:
        return self._coded[0]

    @property
    def coded_avatars(self) -> Frame:
        return self._coded[1]


def internal_names(known: Sequence[str]) -> dict[str, str]:
    """Internal names for the known variables. The engine renames every user
    column first, so its frames hold only names it made: no user column name can
    collide with an internal one (``__kpr_hash__`` is a valid user name)."""
    return {v: f"__kpr_k{i}__" for i, v in enumerate(known)}


def internal_frame(frame: Frame, aliases: Mapping[str, str], row: str | None) -> Frame:
    """The known columns under their internal names (and the row position as ``_ROW``)."""
    cols = [nw.col(v).alias(a) for v, a in aliases.items()]
    if row is not None:
        cols.append(nw.col(row).alias(_ROW))
    return frame.select(cols)


def _noop(_: str) -> None:
    return None


def _collect_row(frame: Frame) -> dict[str, Any]:
    """Collect a one-row aggregate into a plain dict."""
    data = frame.collect().to_dict(as_series=False)
    return {k: v[0] for k, v in data.items()}


def _rank_name(name: str) -> str:
    return f"__kpr_rank__{name}"


def code_frame(
    frame: Frame,
    kinds: Mapping[str, Kind],
    bins: Mapping[str, NumericBins],
    row: str | None,
) -> Frame:
    """A table's binned profiles: one code column per known variable.

    Each code is ``class_expr(x, rank_expr(x))`` (``kpr.metric.classes``) over
    ``x`` cast to float64, built in steps (cast, rank, class) so each
    intermediate is computed once: fewer expression nodes, less per-call work."""
    numeric = [n for n, k in kinds.items() if k.binned]
    schema = frame.collect_schema()
    casts = [nw.col(n).cast(nw.Float64) for n in numeric if schema[n] != nw.Float64]
    if casts:
        frame = frame.with_columns(casts)
    ranked = [n for n in numeric if bins[n].code_min is not None]
    if ranked:
        frame = frame.with_columns(
            rank_expr(nw.col(n), bins[n]).alias(_rank_name(n)) for n in ranked
        )
    cols = [
        (
            class_expr(nw.col(n), nw.col(_rank_name(n)) if n in ranked else None, bins[n])
            if k.binned
            else nw.col(n)
        ).alias(code_name(n))
        for n, k in kinds.items()
    ]
    if row is not None:
        cols.insert(0, nw.col(row))
    return frame.select(cols)


def stacked_codes(coded_u: Frame, coded_a: Frame, keys: list[str], row: str | None) -> Frame:
    """U's and the avatars' codes (and row ids) in one frame, ``IS_AVATAR`` telling them apart."""
    columns: list[nw.Expr | str] = [*([nw.col(row).cast(nw.Int64)] if row else []), *keys]
    u = coded_u.select(columns).with_columns(nw.lit(0, nw.Int64).alias(IS_AVATAR))
    a = coded_a.select(columns).with_columns(nw.lit(1, nw.Int64).alias(IS_AVATAR))
    return nw.concat([u, a], how="vertical")


@dataclass(frozen=True)
class ScanInput:
    """What a counting path scans (internal names): both tables, the known
    variables' kinds, the row-id column (None: none), the numeric columns summed as
    integers (``exact``) and the columns whose distinct values are counted
    (``integers``)."""

    original: Frame
    avatars: Frame
    kinds: Mapping[str, Kind]
    row: str | None
    exact: Sequence[str]
    integers: Sequence[str]


@dataclass(frozen=True)
class Scan:
    """What a counting path knows of the original before the bins (internal names):
    n, |U|, the exact moments of the numeric variables over U, the profile of each
    column (``missing``, and ``distinct`` for integer columns) and, when the path
    counted them on its way, its rows holding a value no other row holds (None:
    one ``is_unique`` query over the original later) and the distinct values of its
    text columns with their rows (``kpr.inputs.markers.value_rows``; the others are
    queried if asked for)."""

    n: int
    u: int
    moments: dict[str, Moments]
    profile: dict[str, dict[str, int]]
    unique_rows: dict[str, int] | None
    texts: dict[str, nw.DataFrame[Any]] = field(default_factory=dict)


class Counting(Protocol):
    """One counting path: what :func:`run` asks, in this order, whatever the path.

    Two implement it: :class:`LazyCounting` (the lazy queries below, on every
    backend, each backend's differences in its :class:`Hooks`) and
    ``kpr.engine.polars.MemoryCounting`` (polars tables read into memory, counted
    with numpy). ``kpr.engine.backends.counting_for`` picks one; a new path
    implements these five methods and passes ``tests/engine/test_conformance.py``.
    ``cells`` serves the measures beyond the rate (counts by profile, and by
    profile x one extra column) and needs no scan first.
    """

    def scan(self, tables: ScanInput) -> Scan:
        """Steps 1-2 before the bins: the :class:`Scan` of the original (the
        :class:`ScanInput`: both tables under internal names and what to count)."""
        ...

    def link(self, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]) -> tuple[int, int]:
        """m and |S| (steps 4-5) with the bins of the numeric variables."""
        ...

    def unique(self) -> Frame:
        """U's rows (internal names, and the row position when carried), lazy: only
        row listings collect them."""
        ...

    def release(self) -> None:
        """Free what the path holds, once the counts are known (U stays readable)."""
        ...

    def cells(self, parts: Mapping[str, Frame], keys: Sequence[str]) -> Frame:
        """Per distinct profile on ``keys`` (coded columns, missing == missing), the
        rows each part holds (``kpr.engine.cells.cell_counts``), lazy."""
        ...


class Hooks:
    """How one backend runs the lazy queries (:class:`LazyCounting`); the default
    sends each query as it is.

    ``groups`` builds G: one row per distinct tuple of raw known values, with its
    row count in ``__kpr_n__`` (and the smallest row position when rows are
    carried). U is G's rows of count 1. A backend may cache G (Spark, Dask) or
    build it another way with the same content. Each backend's subclass lives in its own module;
    ``kpr.engine.backends.counting_for`` picks it. Parsing input text is not here:
    ``kpr.engine.parsing``.
    """

    def groups(self, original: Frame, known: Sequence[str], row: str | None) -> Frame:
        return original_groups(original, known, row)

    def collect(self, frame: Frame) -> dict[str, Any]:
        return _collect_row(frame)

    def link(
        self, u: Frame, avatars: Frame, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]
    ) -> tuple[int, int]:
        """m and |S| (steps 4-5) from U's and the avatars' known values."""
        coded_u, coded_a = (code_frame(frame, kinds, bins, None) for frame in (u, avatars))
        counts = self.collect(_link_counts(coded_u, coded_a, [code_name(v) for v in kinds]))
        return as_int(counts["m"]), as_int(counts["s"])

    def release(self, frame: Frame) -> None:
        """Free what ``groups`` cached, once the counts are known."""

    def unique_values(self, original: Frame, known: Sequence[str]) -> dict[str, int] | None:
        """Per known column, the original rows whose value no other row holds (the
        identifying-variable check), when the backend counts them its own way;
        None (the default): one ``is_unique`` query over the original later."""
        return None


class CountingState:
    """What every counting path keeps between its calls: U's rows (from G, or every
    row with its group's size, filtered to size 1) and the avatars, for the link;
    and the one way cells are counted (:func:`kpr.engine.cells.cell_counts`)."""

    _u: Frame | None = None
    _avatars: Frame | None = None

    def _keep(self, groups: Frame, avatars: Frame) -> Frame:
        """Keep U (the rows of ``groups`` of size 1) and the avatars; U, lazy."""
        self._u = groups.filter(nw.col(_N) == 1).drop(_N)
        self._avatars = avatars
        return self._u

    def _kept_avatars(self) -> Frame:
        assert self._avatars is not None, "scan first"
        return self._avatars

    def unique(self) -> Frame:
        assert self._u is not None, "scan first"
        return self._u

    def cells(self, parts: Mapping[str, Frame], keys: Sequence[str]) -> Frame:
        return cell_counts(parts, keys)


class LazyCounting(CountingState):
    """:class:`Counting` by lazy queries: G aggregated once for n, |U|, the first
    moments and the column profile, the second moments over U, then m and |S|
    (``hooks``: what the backend does its own way)."""

    def __init__(self, hooks: Hooks | None = None) -> None:
        self.hooks = hooks or Hooks()
        self._groups: Frame | None = None

    def scan(self, tables: ScanInput) -> Scan:
        hooks, kinds, known = self.hooks, tables.kinds, list(tables.kinds)
        original, exact, integers = tables.original, tables.exact, tables.integers
        numeric = [v for v in known if kinds[v].binned]
        groups = self._groups = hooks.groups(original, known, tables.row)
        u = self._keep(groups, tables.avatars)
        first = hooks.collect(first_pass(groups, kinds, numeric, integers))
        profile = {
            v: {
                what: as_int(first[f"{what}{i}"])
                for what in ("missing", "distinct")
                if f"{what}{i}" in first
            }
            for i, v in enumerate(known)
        }
        moments = moments_from(first, u, numeric, exact, hooks.collect)
        unique_rows = hooks.unique_values(original, known)
        return Scan(as_int(first["n"]), as_int(first["u"]), moments, profile, unique_rows)

    def link(self, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]) -> tuple[int, int]:
        return self.hooks.link(self.unique(), self._kept_avatars(), kinds, bins)

    def release(self) -> None:
        if self._groups is not None:
            self.hooks.release(self._groups)


def original_groups(original: Frame, known: Sequence[str], row: str | None) -> Frame:
    """G: each distinct tuple of raw known values with its number of rows."""
    aggs = [nw.len().alias(_N)]
    if row is not None:
        aggs.append(nw.col(row).min())
    return (
        original.group_by(*known, drop_null_keys=False)
        .agg(*aggs)
        .with_columns(nw.col(_N).cast(nw.Int64))
    )


def numeric_statistics(
    u: Frame, numeric: Sequence[str], tolerance: float, dates: Collection[str] = ()
) -> dict[str, NumericBins]:
    """The bins of each numeric column over U (a frame holding U's rows only),
    collected exactly as :func:`run` does (for tools that hold U themselves)."""
    if not numeric:
        return {}
    aliases = internal_names(numeric)
    u = internal_frame(u, aliases, None)
    names = list(aliases.values())
    first = _collect_row(
        u.select(
            *(e for i, v in enumerate(names) for e in stat_exprs(i, nw.col(v).cast(nw.Float64)))
        )
    )
    internal_dates = {aliases[v] for v in dates}
    moments = moments_from(first, u, names, exact_integers(u, names), _collect_row)
    bins = bins_of(moments, tolerance, internal_dates)
    return {v: bins[a] for v, a in aliases.items()}


def _link_counts(coded_u: Frame, coded_a: Frame, keys: list[str]) -> Frame:
    """m and |S| in one group-by over U's and the avatars' codes stacked."""
    per_profile = (
        stacked_codes(coded_u, coded_a, keys, None)
        .group_by(*keys, drop_null_keys=False)
        .agg(nw.col(IS_AVATAR).sum().alias(AVATARS), nw.len().alias(_N))
        .with_columns(nw.col(_N).cast(nw.Int64), nw.col(AVATARS).cast(nw.Int64))
    )
    return per_profile.select(
        nw.col(AVATARS).sum().alias("m"),
        nw.when(nw.col(AVATARS) == 1)
        .then(nw.col(_N) - nw.col(AVATARS))
        .otherwise(0)
        .sum()
        .alias("s"),
    )


def run(
    original: Frame,
    avatars: Frame,
    attack: Attack,
    kinds: Mapping[str, Kind],
    *,
    row: str | None,
    counting: Counting | None = None,
    progress: Step = _noop,
) -> EngineRun:
    """Compute every count of the metric on one counting path (default: the lazy
    queries as they are, :class:`LazyCounting`)."""
    counting = counting or LazyCounting()
    aliases = internal_names(attack.known)
    original = internal_frame(original, aliases, row)
    avatars = internal_frame(avatars, aliases, row)
    row = None if row is None else _ROW
    known = list(aliases.values())
    kinds = {aliases[v]: kinds[v] for v in attack.known}
    numeric = [v for v in known if kinds[v].binned]
    schema = original.collect_schema()
    integers = [v for v in known if schema[v].is_integer()]
    exact = exact_integers(original, numeric)
    progress("finding the original records present once (U)")
    progress("collecting the statistics over U")
    scan = counting.scan(ScanInput(original, avatars, kinds, row, exact, integers))
    dates = {v for v in numeric if kinds[v] is Kind.DATE}
    widths = {aliases[v]: w for v, w in attack.widths.items()}
    bins = bins_of(scan.moments, attack.tolerance, dates, widths, attack.offset)
    progress("linking U to the avatar profiles present once")
    m, linked = counting.link(kinds, bins)
    u = counting.unique()
    counting.release()
    user_bins = {v: bins[a] for v, a in aliases.items() if a in bins}
    profile = {v: scan.profile[a] for v, a in aliases.items()}
    unique_rows = (
        None if scan.unique_rows is None else {v: scan.unique_rows[a] for v, a in aliases.items()}
    )

    def coded() -> tuple[Frame, Frame]:
        return code_frame(u, kinds, bins, row), code_frame(avatars, kinds, bins, row)

    texts = {v: scan.texts[a] for v, a in aliases.items() if a in scan.texts}
    size_u = scan.u
    return EngineRun(
        Counts(scan.n, m, size_u, linked if size_u else 0), user_bins, coded, row, profile,
        aliases, unique_rows, texts,
    )  # fmt: skip
