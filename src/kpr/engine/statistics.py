"""The statistics over U as narwhals lazy queries, exact on every backend: one
aggregation over G (n, |U|, count, min and max of each numeric column over U, the
profile of each known column), then the sums of each column's limbs over U
(``kpr.metric.exact``: integers in int64 limbs, floats on a binary grid), turned into
exact :class:`~kpr.metric.binning.Moments` and the bins by the shared rule.

``queries.LazyCounting`` and ``queries.numeric_statistics`` run them; the in-memory
engine sums the same limbs with numpy (``kpr.engine.inmemory.sums``), so both give the same
moments to the bit.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import narwhals as nw

from kpr.metric.attack import Kind
from kpr.metric.binning import Deviations, Moments, NumericBins, deviations, numeric_bins
from kpr.metric.exact import FloatSums, Window, float_sums

Frame = nw.LazyFrame[Any]

#: G's column of row counts (U: its rows of count 1).
GROUP_ROWS = "__kpr_n__"


def stat_exprs(i: int, x: nw.Expr) -> list[nw.Expr]:
    """First-pass aggregates of one numeric column (``x``: its values over U)."""
    f = nw.when(x.is_finite()).then(x)
    return [
        f.count().alias(f"c{i}"),
        f.min().alias(f"lo{i}"),
        f.max().alias(f"hi{i}"),
        nw.when(x.is_finite() & (x != 0)).then(x.abs()).min().alias(f"tiny{i}"),
    ]


def first_pass(
    groups: Frame, kinds: Mapping[str, Kind], numeric: Sequence[str], integers: Sequence[str]
) -> Frame:
    """One aggregation over G: n, |U|, count/sum/min/max over U of each numeric
    variable, and the profile of each known column over the original (missing
    values, distinct values of integer columns)."""
    n = nw.col(GROUP_ROWS).cast(nw.Int64)
    in_u = n == 1
    exprs: list[nw.Expr] = [n.sum().alias("n"), in_u.cast(nw.Int64).sum().alias("u")]
    for i, name in enumerate(numeric):
        exprs += stat_exprs(i, nw.when(in_u).then(nw.col(name).cast(nw.Float64)))
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


def _limb_columns(
    u: Frame, numeric: Sequence[str], plans: Mapping[str, Deviations | FloatSums]
) -> tuple[Frame, dict[tuple[int, int], list[str]]]:
    """U with the limbs of each float column's windows (``kpr.metric.exact``) and
    its signs; the limbs of ``|x|``, top limb first: ``limb = floor(r)``,
    ``r = (r - limb) * 2**bits``, all exact.

    ``kpr.engine.inmemory.sums._window_limbs`` computes the same limbs with numpy, on
    purpose twice: this one is a narwhals expression, so every lazy engine (polars,
    DuckDB, Spark, Dask, SQL) computes the limbs inside its own query; that one runs
    on arrays in memory, block by block. What they share is the rule's: the window's
    bounds and its scale factors (``Window.scale``); tests/engine/test_conformance.py
    checks that every counting path gets the same ``lo`` and ``width`` from them."""
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
    u, float_limbs = _limb_columns(u, numeric, plans)
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


def bins_of(
    moments: Mapping[str, Moments],
    tolerance: float,
    dates: Collection[str] = (),
    widths: Mapping[str, float] | None = None,
    offset: float = 0.0,
) -> dict[str, NumericBins]:
    """The shared rule (``numeric_bins``) on each numeric column's moments, on the
    grid moved by ``offset`` (a fraction of each width; 0: the spec's grid)."""
    return {
        v: numeric_bins(m, tolerance, date=v in dates, width=(widths or {}).get(v), offset=offset)
        for v, m in moments.items()
    }


def moments_from(
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
        count = as_int(first[f"c{i}"])
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
        count, plan = as_int(first[f"c{i}"]), plans[v]
        if isinstance(plan, FloatSums):
            shift, scale_exp = 0, plan.grid
            sum_d, sum_d2 = plan.combine(
                [[as_int(second[f"d{i}_{k}_{j}"]) for j in range(w.limbs)]
                 for k, w in enumerate(plan.windows)],
                [[as_int(second[f"dd{i}_{k}_{a}_{b}"]) for a, b in plan.pairs(w)]
                 for k, w in enumerate(plan.windows)],
            )  # fmt: skip
        else:
            shift, scale_exp = plan.shift, 0
            sum_d, sum_d2 = plan.combine(
                [as_int(second[f"d{i}_{k}"]) for k in range(plan.limbs)],
                [as_int(second[f"dd{i}_{a}_{b}"]) for a, b in plan.pairs()],
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


def as_int(value: Any) -> int:
    return 0 if value is None else int(value)


def clamp64(value: float) -> int:
    """An int64 near a float bound (a base for exact integer sums)."""
    return max(-(2**63), min(2**63 - 1, int(value)))
