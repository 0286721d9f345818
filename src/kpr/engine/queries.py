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
from kpr.metric.attack import ROW, Attack, Kind
from kpr.metric.binning import (
    Deviations,
    Moments,
    NumericBins,
    deviations,
    numeric_bins,
)
from kpr.metric.classes import class_expr, rank_expr
from kpr.metric.counts import Counts
from kpr.metric.exact import FloatSums, Window, float_sums
from kpr.progress import Step

Frame = nw.LazyFrame[Any]

_N = "__kpr_n__"
_AV = "__kpr_is_avatar__"
_AROW = "__kpr_avatar_row__"
_NAV = "__kpr_n_avatars__"
_ROW = ROW


def _code_name(name: str) -> str:
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
        ).alias(_code_name(n))
        for n, k in kinds.items()
    ]
    if row is not None:
        cols.insert(0, nw.col(row))
    return frame.select(cols)


def _stacked(coded_u: Frame, coded_a: Frame, keys: list[str], row: str | None) -> Frame:
    """U's and the avatars' codes (and row ids) in one frame, ``_AV`` telling them apart."""
    columns: list[nw.Expr | str] = [*([nw.col(row).cast(nw.Int64)] if row else []), *keys]
    u = coded_u.select(columns).with_columns(nw.lit(0, nw.Int64).alias(_AV))
    a = coded_a.select(columns).with_columns(nw.lit(1, nw.Int64).alias(_AV))
    return nw.concat([u, a], how="vertical")


def class_counts(run: EngineRun, original: Frame, kinds: Mapping[str, Kind], name: str) -> Frame:
    """Per class (numeric) or value (categorical) of one known variable: how many
    originals, avatars, members of U and linked individuals it holds."""
    aliases = {v: run.aliases[v] for v in kinds}
    internal = {aliases[v]: k for v, k in kinds.items()}
    code = _code_name(aliases[name])
    keys = [_code_name(a) for a in internal]
    coded_o = code_frame(
        internal_frame(original, aliases, None), internal, run.internal_bins(), None
    )
    parts = {"originals": coded_o, "avatars": run.coded_avatars, "unique_originals": run.coded_u}
    columns = [*parts, "linked"]
    frames = []
    for label, frame in parts.items():
        frames.append(
            frame.group_by(code, drop_null_keys=False)
            .agg(nw.len().alias(label))
            .select(
                code,
                *(
                    nw.col(label).cast(nw.Int64) if c == label else nw.lit(0, nw.Int64).alias(c)
                    for c in columns
                ),
            )
        )
    linked = (
        _stacked(run.coded_u, run.coded_avatars, keys, None)
        .group_by(*keys, drop_null_keys=False)
        .agg(nw.col(_AV).sum().alias(_NAV), nw.len().alias(_N))
        .filter(nw.col(_NAV) == 1)
        .with_columns((nw.col(_N) - nw.col(_NAV)).alias("linked"))
        .group_by(code, drop_null_keys=False)
        .agg(nw.col("linked").sum())
    )
    frames.append(
        linked.select(
            code,
            *(
                nw.col(c).cast(nw.Int64) if c == "linked" else nw.lit(0, nw.Int64).alias(c)
                for c in columns
            ),
        )
    )
    return (
        nw.concat(frames, how="vertical")
        .group_by(code, drop_null_keys=False)
        .agg(*(nw.col(c).sum() for c in columns))
        .with_columns(nw.col(c).cast(nw.Int64) for c in columns)
        .rename({code: name})
        .sort(name, nulls_last=True)
    )


def _null_safe(frame: Frame, keys: list[str]) -> tuple[Frame, list[str]]:
    """Join columns for ``keys`` that match missing with missing: each key with
    its nulls filled, and a flag saying it was null (SQL joins never match NULL)."""
    schema = frame.collect_schema()
    cols, names = [], []
    for k in keys:
        dtype = schema[k]
        if dtype.is_numeric():
            filled = nw.col(k).fill_null(0)
        elif dtype == nw.Boolean:
            filled = nw.col(k).fill_null(False)
        else:
            filled = nw.col(k).cast(nw.String).fill_null("")
        cols += [filled.alias(f"{k}__fill"), nw.col(k).is_null().alias(f"{k}__null")]
        names += [f"{k}__fill", f"{k}__null"]
    return frame.with_columns(cols), names


def profile_column(name: str) -> str:
    """The column of ``linked_pairs`` holding a known variable's class: its own name,
    with a suffix when the variable is itself called like a row-position column."""
    return f"{name} (class)" if name in ("original_row", "avatar_row") else name


def linked_pairs(run: EngineRun, kinds: Mapping[str, Kind]) -> Frame:
    """One row per linked individual: original row, avatar row, binned profile.

    Computed where the tables are: the profiles held by exactly one avatar
    (with that avatar's row), joined to U; only the linked rows are collected."""
    if run.row is None:
        raise ValueError("row positions are not available for this engine")
    keys = [_code_name(run.aliases[n]) for n in kinds]
    once = (
        _stacked(run.coded_u, run.coded_avatars, keys, run.row)
        # summed over a profile held by one avatar: that avatar's row
        .with_columns((nw.col(_AV) * nw.col(run.row)).alias(_AROW))
        .group_by(*keys, drop_null_keys=False)
        .agg(nw.col(_AV).sum().alias(_NAV), nw.col(_AROW).sum())
        .filter(nw.col(_NAV) == 1)
    )
    u, on = _null_safe(run.coded_u.select(run.row, *keys), keys)
    once, _ = _null_safe(once.select(_AROW, *keys), keys)
    renamed = {_code_name(run.aliases[n]): profile_column(n) for n in kinds}
    return (
        u.join(once.select(_AROW, *on), on=on, how="inner")
        .select(
            nw.col(run.row).cast(nw.Int64).alias("original_row"),
            nw.col(_AROW).cast(nw.Int64).alias("avatar_row"),
            *(nw.col(k).alias(renamed[k]) for k in keys),
        )
        .sort("original_row")
    )


@dataclass(frozen=True)
class Scan:
    """What a counting path knows of the original before the bins (internal names):
    n, |U|, the exact moments of the numeric variables over U, the profile of each
    column (``missing``, and ``distinct`` for integer columns) and, when the path
    counted them on its way, its rows holding a value no other row holds (None:
    one ``is_unique`` query over the original later)."""

    n: int
    u: int
    moments: dict[str, Moments]
    profile: dict[str, dict[str, int]]
    unique_rows: dict[str, int] | None


class Counting(Protocol):
    """One counting path: what :func:`run` asks, in this order, whatever the path.

    Two implement it: :class:`LazyCounting` (the lazy queries below, on every
    backend, each backend's differences in its :class:`Hooks`) and
    ``kpr.engine.polars.MemoryCounting`` (polars tables read into memory, counted
    with numpy). ``kpr.engine.backends.counting_for`` picks one; a new path
    implements these five methods and passes ``tests/engines/test_conformance.py``.
    ``cells`` serves the measures beyond the rate (counts by profile, and by
    profile x one extra column) and needs no scan first.
    """

    def scan(
        self,
        original: Frame,
        avatars: Frame,
        kinds: Mapping[str, Kind],
        row: str | None,
        exact: Sequence[str],
        integers: Sequence[str],
    ) -> Scan:
        """Steps 1-2 before the bins: the :class:`Scan` of the original (both tables
        under internal names; ``exact``: the numeric columns summed as integers;
        ``integers``: the columns whose distinct values are counted)."""
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
    build it another way with the same content (the hashed build of
    ``kpr.engine.polars``). Each backend's subclass lives in its own module;
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
        counts = self.collect(_link_counts(coded_u, coded_a, [_code_name(v) for v in kinds]))
        return _int(counts["m"]), _int(counts["s"])

    def release(self, frame: Frame) -> None:
        """Free what ``groups`` cached, once the counts are known."""

    def unique_values(self, original: Frame, known: Sequence[str]) -> dict[str, int] | None:
        """Per known column, the original rows whose value no other row holds (the
        identifying-variable check), when the backend counts them its own way;
        None (the default): one ``is_unique`` query over the original later."""
        return None


class LazyCounting:
    """:class:`Counting` by lazy queries: G aggregated once for n, |U|, the first
    moments and the column profile, the second moments over U, then m and |S|
    (``hooks``: what the backend does its own way)."""

    def __init__(self, hooks: Hooks | None = None) -> None:
        self.hooks = hooks or Hooks()
        self._groups: Frame | None = None
        self._u: Frame | None = None
        self._avatars: Frame | None = None

    def scan(
        self,
        original: Frame,
        avatars: Frame,
        kinds: Mapping[str, Kind],
        row: str | None,
        exact: Sequence[str],
        integers: Sequence[str],
    ) -> Scan:
        hooks, known = self.hooks, list(kinds)
        numeric = [v for v in known if kinds[v].binned]
        groups = self._groups = hooks.groups(original, known, row)
        self._u = groups.filter(nw.col(_N) == 1).drop(_N)
        self._avatars = avatars
        first = hooks.collect(_first_pass(groups, kinds, numeric, integers))
        profile = {
            v: {
                what: _int(first[f"{what}{i}"])
                for what in ("missing", "distinct")
                if f"{what}{i}" in first
            }
            for i, v in enumerate(known)
        }
        moments = _moments_from(first, self._u, numeric, exact, hooks.collect)
        unique_rows = hooks.unique_values(original, known)
        return Scan(_int(first["n"]), _int(first["u"]), moments, profile, unique_rows)

    def link(self, kinds: Mapping[str, Kind], bins: Mapping[str, NumericBins]) -> tuple[int, int]:
        assert self._avatars is not None, "scan first"
        return self.hooks.link(self.unique(), self._avatars, kinds, bins)

    def unique(self) -> Frame:
        assert self._u is not None, "scan first"
        return self._u

    def release(self) -> None:
        if self._groups is not None:
            self.hooks.release(self._groups)

    def cells(self, parts: Mapping[str, Frame], keys: Sequence[str]) -> Frame:
        return cell_counts(parts, keys)


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


def _stat_exprs(i: int, x: nw.Expr) -> list[nw.Expr]:
    """First-pass aggregates of one numeric column (``x``: its values over U)."""
    f = nw.when(x.is_finite()).then(x)
    return [
        f.count().alias(f"c{i}"),
        f.min().alias(f"lo{i}"),
        f.max().alias(f"hi{i}"),
        nw.when(x.is_finite() & (x != 0)).then(x.abs()).min().alias(f"tiny{i}"),
    ]


def _first_pass(
    groups: Frame, kinds: Mapping[str, Kind], numeric: Sequence[str], integers: Sequence[str]
) -> Frame:
    """One aggregation over G: n, |U|, count/sum/min/max over U of each numeric
    variable, and the profile of each known column over the original (missing
    values, distinct values of integer columns)."""
    n = nw.col(_N).cast(nw.Int64)
    in_u = n == 1
    exprs: list[nw.Expr] = [n.sum().alias("n"), in_u.cast(nw.Int64).sum().alias("u")]
    for i, name in enumerate(numeric):
        exprs += _stat_exprs(i, nw.when(in_u).then(nw.col(name).cast(nw.Float64)))
    for i, name in enumerate(kinds):
        col = nw.col(name)
        exprs.append(nw.when(col.is_null()).then(n).otherwise(0).sum().alias(f"missing{i}"))
        if name in integers:
            # n_unique counts null as a value on every backend: take it off
            has_null = (col.null_count() > 0).cast(nw.Int64)
            exprs.append((col.n_unique() - has_null).alias(f"distinct{i}"))
    return groups.select(*exprs)


def _limbs(x: nw.Expr, plan: Deviations) -> list[nw.Expr]:
    """``x - shift`` (int64) split into limbs, lowest first: ``d = sum(limb_i * 2**(bits*i))``.

    Each limb is the floor of the rest over its weight, computed in float64
    (an approximation is fine: the exact remainder goes to the next limb), and
    each weight is subtracted in two halves so that int64 never overflows. A
    missing value becomes the shift itself, so it adds 0 to every sum (pandas-backed
    engines cannot cast a missing integer)."""
    rest = x.fill_null(int(plan.shift)).cast(nw.Int64) - int(plan.shift)
    out: list[nw.Expr] = []
    for j in range(plan.limbs - 1, 0, -1):
        half = 2 ** (plan.bits * j - 1)
        limb = (rest.cast(nw.Float64) / float(2 * half)).floor().cast(nw.Int64)
        rest = rest - limb * half - limb * half
        out.append(limb)
    return [rest, *reversed(out)]


def _sign(i: int) -> str:
    return f"__kpr_s{i}__"


def _window_values(x: nw.Expr, window: Window, bits: int) -> nw.Expr:
    """The magnitudes of one window's finite values (0 elsewhere), scaled to its
    top limb's units (magnitudes: the fractional part of a negative number may
    need more bits than it has)."""
    inside = x.is_finite()
    if window.low is not None:
        inside = inside & (x.abs() >= 2.0**window.low)
    if window.high is not None:
        inside = inside & (x.abs() < 2.0**window.high)
    out = nw.when(inside).then(x.abs()).otherwise(0.0)
    for factor in window.scale(bits):
        out = out * factor
    return out


def _float_limbs(
    u: Frame, numeric: Sequence[str], plans: Mapping[str, Deviations | FloatSums]
) -> tuple[Frame, dict[tuple[int, int], list[str]]]:
    """U with the limbs of each float column's windows (``kpr.metric.exact``) and
    its signs; the limbs of ``|x|``, top limb first: ``limb = floor(r)``,
    ``r = (r - limb) * 2**bits``, all exact."""
    rests: dict[str, int] = {}
    names: dict[tuple[int, int], list[str]] = {}
    start: list[nw.Expr] = []
    for i, v in enumerate(numeric):
        plan = plans[v]
        if isinstance(plan, FloatSums) and plan.windows:
            x = nw.col(v).cast(nw.Float64)
            start.append(nw.when(x < 0).then(-1).otherwise(1).cast(nw.Int64).alias(_sign(i)))
            for k, window in enumerate(plan.windows):
                rest = f"__kpr_r{i}_{k}__"
                start.append(_window_values(x, window, plan.bits).alias(rest))
                rests[rest] = plan.bits
                names[(i, k)] = [f"__kpr_l{i}_{k}_{j}__" for j in range(window.limbs)]
    if not names:
        return u, names
    u = u.with_columns(start)
    for step in range(max(len(n) for n in names.values())):
        exprs: list[nw.Expr] = []
        for (i, k), limbs in names.items():
            j = len(limbs) - 1 - step  # top limb first
            if j < 0:
                continue
            rest = f"__kpr_r{i}_{k}__"
            r = nw.col(rest)
            exprs.append(r.floor().cast(nw.Int64).alias(limbs[j]))
            if j > 0:
                exprs.append(((r - r.floor()) * float(2 ** rests[rest])).alias(rest))
        u = u.with_columns(exprs)
    return u, names


def _second_pass(
    u: Frame, numeric: Sequence[str], plans: Mapping[str, Deviations | FloatSums]
) -> Frame | None:
    """The limb sums of every column (None: nothing to sum, e.g. only zeros)."""
    exprs: list[nw.Expr] = []
    u, float_limbs = _float_limbs(u, numeric, plans)
    for i, name in enumerate(numeric):
        plan = plans[name]
        if isinstance(plan, FloatSums):
            for k, window in enumerate(plan.windows):
                cols = [nw.col(c) for c in float_limbs[(i, k)]]
                sign = nw.col(_sign(i))
                exprs += [(c * sign).sum().alias(f"d{i}_{k}_{j}") for j, c in enumerate(cols)]
                exprs += [
                    (cols[a] * cols[b]).sum().alias(f"dd{i}_{k}_{a}_{b}")
                    for a, b in plan.pairs(window)
                ]
            continue
        limbs = _limbs(nw.col(name), plan)
        exprs += [limb.sum().alias(f"d{i}_{k}") for k, limb in enumerate(limbs)]
        exprs += [(limbs[a] * limbs[b]).sum().alias(f"dd{i}_{a}_{b}") for a, b in plan.pairs()]
    return u.select(*exprs) if exprs else None


def exact_integers(frame: Frame, numeric: Sequence[str]) -> list[str]:
    """Numeric columns of an integer type whose sums are taken exactly (in limbs)."""
    schema = frame.collect_schema()
    return [v for v in numeric if schema[v].is_integer() and schema[v] != nw.UInt64]


def _bins(
    moments: Mapping[str, Moments],
    tolerance: float,
    dates: Collection[str] = (),
    widths: Mapping[str, float] | None = None,
) -> dict[str, NumericBins]:
    """The shared rule (``numeric_bins``) on each numeric column's moments."""
    return {
        v: numeric_bins(m, tolerance, date=v in dates, width=(widths or {}).get(v))
        for v, m in moments.items()
    }


def _moments_from(
    first: Mapping[str, Any],
    u: Frame,
    numeric: Sequence[str],
    integers: Sequence[str],
    collect: Callable[[Frame], dict[str, Any]],
) -> dict[str, Moments]:
    """The exact moments of each numeric column: the second pass over U, planned
    from the first."""
    plans: dict[str, Deviations | FloatSums] = {}
    for i, v in enumerate(numeric):
        count = _int(first[f"c{i}"])
        lo, hi = first[f"lo{i}"], first[f"hi{i}"]
        if v in integers and count:
            plans[v] = deviations(count, (clamp64(lo), clamp64(hi)))
        else:
            top = None if count == 0 else max(abs(float(lo)), abs(float(hi)))
            tiny = first[f"tiny{i}"]
            plans[v] = float_sums(count, None if tiny is None else float(tiny), top)
    query = _second_pass(u, numeric, plans)
    second = {} if query is None else collect(query)
    out: dict[str, Moments] = {}
    for i, v in enumerate(numeric):
        count, plan = _int(first[f"c{i}"]), plans[v]
        if isinstance(plan, FloatSums):
            shift, scale_exp = 0, plan.grid
            sum_d, sum_d2 = plan.combine(
                [[_int(second[f"d{i}_{k}_{j}"]) for j in range(w.limbs)]
                 for k, w in enumerate(plan.windows)],
                [[_int(second[f"dd{i}_{k}_{a}_{b}"]) for a, b in plan.pairs(w)]
                 for k, w in enumerate(plan.windows)],
            )  # fmt: skip
        else:
            shift, scale_exp = plan.shift, 0
            sum_d, sum_d2 = plan.combine(
                [_int(second[f"d{i}_{k}"]) for k in range(plan.limbs)],
                [_int(second[f"dd{i}_{a}_{b}"]) for a, b in plan.pairs()],
            )
        out[v] = Moments(
            count=count,
            minimum=None if count == 0 else float(first[f"lo{i}"]),
            maximum=None if count == 0 else float(first[f"hi{i}"]),
            shift=shift,
            sum_d=sum_d,
            sum_d2=sum_d2,
            scale_exp=scale_exp,
        )
    return out


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
            *(e for i, v in enumerate(names) for e in _stat_exprs(i, nw.col(v).cast(nw.Float64)))
        )
    )
    internal_dates = {aliases[v] for v in dates}
    moments = _moments_from(first, u, names, exact_integers(u, names), _collect_row)
    bins = _bins(moments, tolerance, internal_dates)
    return {v: bins[a] for v, a in aliases.items()}


def _link_counts(coded_u: Frame, coded_a: Frame, keys: list[str]) -> Frame:
    """m and |S| in one group-by over U's and the avatars' codes stacked."""
    per_profile = (
        _stacked(coded_u, coded_a, keys, None)
        .group_by(*keys, drop_null_keys=False)
        .agg(nw.col(_AV).sum().alias(_NAV), nw.len().alias(_N))
        .with_columns(nw.col(_N).cast(nw.Int64), nw.col(_NAV).cast(nw.Int64))
    )
    return per_profile.select(
        nw.col(_NAV).sum().alias("m"),
        nw.when(nw.col(_NAV) == 1).then(nw.col(_N) - nw.col(_NAV)).otherwise(0).sum().alias("s"),
    )


def _int(value: Any) -> int:
    return 0 if value is None else int(value)


def clamp64(value: float) -> int:
    """An int64 near a float bound (a base for exact integer sums)."""
    return max(-(2**63), min(2**63 - 1, int(value)))


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
    scan = counting.scan(original, avatars, kinds, row, exact, integers)
    dates = {v for v in numeric if kinds[v] is Kind.DATE}
    widths = {aliases[v]: w for v, w in attack.widths.items()}
    bins = _bins(scan.moments, attack.tolerance, dates, widths)
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

    size_u = scan.u
    return EngineRun(
        Counts(scan.n, m, size_u, linked if size_u else 0), user_bins, coded, row, profile,
        aliases, unique_rows,
    )  # fmt: skip
