"""The window variant of the attack, as the source words it, without classes.

An avatar *approaches* an individual of U when every categorical known value is
equal (missing equals missing) and every numeric one lies within ± h_v of the
individual's value, bounds included, where h_v is the class width of the
specified method (``tolerance * |mean|`` over U, with the spec's fall-backs;
``kpr.metric.binning.numeric_bins``). A missing or infinite numeric value
approaches only the identical value. The individual is linked when exactly one
avatar approaches; KPR = 100 * (1 - linked / n).

Algorithm (sub-quadratic, exact):

1. *Strata.* Rows of U and avatars are grouped on their categorical values and
   on the status of each numeric value (finite, missing, +inf, -inf); only
   rows of the same stratum can approach each other.
2. *One k-d tree.* Each avatar becomes a point: its stratum id times a power
   of two ``sep`` (exact in float64, and farther apart than any query radius),
   then each finite numeric value divided by h_v (non-finite ones set to 0,
   the same on both sides of a stratum). Avatars with identical raw values are
   merged into one point with a multiplicity, so thousands of equal avatars
   never slow a search.
3. *Settled in their own cell.* In dense data most members of U have two
   approaching avatars in their own grid cell (side 1 in scaled units): one
   join finds two avatars of the cell, two exact checks settle the member.
4. *Two nearest, then exact checks.* For each other member of U, the two nearest
   points in Chebyshev distance within a radius slightly above 1 (the slack
   covers the rounding of x/h_v, and grows with |x/h_v|) are candidates; each
   is verified in unscaled float64, ``|x - y| ≤ h_v``, the definition itself.
   The count of approaching avatars stops at two. In the rare case where a
   candidate fails the check while others may remain, the member is
   re-queried with every point of the ball and all are checked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import narwhals as nw
import numpy as np
import numpy.typing as npt
import polars as pl

from kpr.engine import queries
from kpr.inputs.reconcile import Prepared
from kpr.metric.attack import Kind
from kpr.metric.counts import Counts

_SIDE = "__kpr_side__"
_IDX = "__kpr_idx__"
_SID = "__kpr_stratum__"
#: Scaled values are clipped here so that no coordinate is infinite (clipping
#: never moves two points apart, so no approaching pair is lost).
_CLIP = 2.0**1000
#: Relative slack on the radius; the absolute part depends on |x/h| (see ``_radius``).
_SLACK = 1e-9


def _status(name: str) -> pl.Expr:
    """0 finite, 1 missing (null or NaN), 2 +inf, 3 -inf."""
    x = pl.col(name).cast(pl.Float64)
    return (
        pl.when(x.is_null() | x.is_nan())
        .then(1)
        .when(x == math.inf)
        .then(2)
        .when(x == -math.inf)
        .then(3)
        .otherwise(0)
        .cast(pl.Int8)
        .alias(f"__kpr_status__{name}")
    )


def _value(name: str) -> pl.Expr:
    x = pl.col(name).cast(pl.Float64)
    return pl.when(x.is_finite()).then(x).otherwise(0.0).alias(f"__kpr_value__{name}")


def _radius(exponent: int) -> float:
    """Query radius for points with max |x/h| + 2 < 2**exponent.

    If ``fl(|x - y|) <= h``, the Chebyshev distance the tree computes between
    ``fl(x/h)`` and ``fl(y/h)`` is at most ``1 + 4u + 2u(|x/h| + |y/h|)`` with
    u = 2**-53 and |y/h| <= |x/h| + 1.01: below ``1 + 1e-9 + 2**(exponent - 50)``.
    """
    return 1.0 + _SLACK + math.ldexp(1.0, exponent - 50)


Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


def approach_counts(
    u: pl.DataFrame,
    avatars: pl.DataFrame,
    categorical: Sequence[str],
    numeric: Sequence[str],
    half_widths: Mapping[str, float],
) -> npt.NDArray[np.int8]:
    """For each row of ``u``: how many avatars approach it, counted up to 2.

    ``u`` and ``avatars`` hold the known columns with the same dtypes;
    ``half_widths`` gives h_v > 0 for each numeric column.
    """
    n_u, n_a = u.height, avatars.height
    counts = np.zeros(n_u, dtype=np.int8)
    if n_u == 0 or n_a == 0:
        return counts
    numeric = list(numeric)
    cat = list(categorical)
    h = np.array([float(half_widths[v]) for v in numeric], dtype=np.float64)
    if not (np.all(np.isfinite(h)) and np.all(h > 0)):
        raise ValueError(f"half-widths must be finite and > 0, got {h.tolist()}")
    q_sid, a_sid, a_mult, q_val, a_val = _strata(u, avatars, cat, numeric)
    d = len(numeric)
    with np.errstate(over="ignore"):
        q_scaled = np.clip(q_val / h, -_CLIP, _CLIP)
        a_scaled = np.clip(a_val / h, -_CLIP, _CLIP)
    magnitude = np.abs(q_scaled).max(axis=1) if d else np.zeros(n_u)
    exponents = np.frexp(magnitude + 2.0)[1]
    # Strata lie ``sep`` apart on their own axis: farther than any query radius,
    # and a power of two, so ``sid * sep`` and its differences are exact.
    sep = math.ldexp(1.0, math.frexp(4.0 * _radius(int(exponents.max())))[1])
    q_pts = np.column_stack([q_sid.astype(np.float64) * sep, q_scaled])
    a_pts = np.column_stack([a_sid.astype(np.float64) * sep, a_scaled])

    def verify(qi: npt.NDArray[np.intp], ai: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
        """The definition itself, in unscaled float64, for pairs (U row, avatar point)."""
        ok = a_sid[ai] == q_sid[qi]
        if d:
            ok &= np.all(np.abs(q_val[qi] - a_val[ai]) <= h, axis=1)
        return ok

    todo = ~_same_cell_pass(q_sid, q_scaled, a_sid, a_scaled, a_mult, verify, counts)
    if not todo.any():
        return counts
    _tree_pass(q_pts, a_pts, a_mult, exponents, todo, verify, counts)
    return counts


def _tree_pass(
    q_pts: Floats,
    a_pts: Floats,
    a_mult: Ints,
    exponents: npt.NDArray[np.intc],
    todo: npt.NDArray[np.bool_],
    verify: Callable[[npt.NDArray[np.intp], npt.NDArray[np.intp]], npt.NDArray[np.bool_]],
    counts: npt.NDArray[np.int8],
) -> None:
    """Count the rows ``todo`` (those the same-cell pass left open) with a k-d tree,
    one query radius per magnitude ``exponents``; when both nearest points were found
    and one failed the check, the row's whole ball is checked. Sets their ``counts``."""
    from scipy.spatial import cKDTree

    tree = cKDTree(a_pts, leafsize=16, compact_nodes=False, balanced_tree=False)
    for exponent in np.unique(exponents[todo]):
        rows = np.flatnonzero(todo & (exponents == exponent))
        radius = _radius(int(exponent))
        _, nearest = tree.query(q_pts[rows], k=2, p=np.inf, distance_upper_bound=radius, workers=-1)
        found = nearest < tree.n
        safe = np.where(found, nearest, 0)
        ok = np.zeros_like(found)
        for col in range(2):
            ok[:, col] = found[:, col] & verify(rows, safe[:, col])
        total = np.where(ok, a_mult[safe], 0).sum(axis=1)
        counts[rows] = np.minimum(total, 2)
        # A failed candidate while both slots were filled: more may lie in the ball.
        again = found[:, 1] & ~ok.all(axis=1) & (total < 2)
        for i in rows[again]:
            ball = np.asarray(tree.query_ball_point(q_pts[i], r=radius, p=np.inf), np.intp)
            hit = verify(np.full(ball.size, i, dtype=np.intp), ball)
            counts[i] = min(int(a_mult[ball[hit]].sum()), 2)


def _strata(
    u: pl.DataFrame, avatars: pl.DataFrame, cat: list[str], numeric: list[str]
) -> tuple[Ints, Ints, Ints, Floats, Floats]:
    """Step 1: the stratum of each row of U and of each avatar point (equal avatars
    merged, with their multiplicity), and their numeric values (U's, the points')."""
    n_u = u.height
    status = [f"__kpr_status__{v}" for v in numeric]
    values = [f"__kpr_value__{v}" for v in numeric]
    columns = [pl.col(c) for c in cat] + [_status(v) for v in numeric]
    columns += [_value(v) for v in numeric]
    stacked = pl.concat(
        [
            u.select(columns).with_columns(pl.lit(0, pl.Int8).alias(_SIDE)),
            avatars.select(columns).with_columns(pl.lit(1, pl.Int8).alias(_SIDE)),
        ],
        how="vertical",
    ).with_row_index(_IDX)
    # Stratum id: same categorical values and same status of each numeric value.
    stacked = stacked.with_columns(
        pl.col(_IDX).min().over(cat + status).rank("dense").cast(pl.Int64).alias(_SID)
    )
    q = stacked.slice(0, n_u)
    # Equal avatars become one point with a multiplicity.
    a = stacked.slice(n_u).group_by([_SID, *values]).agg(pl.len().cast(pl.Int64).alias("mult"))
    q_sid = q[_SID].to_numpy()
    a_sid = a[_SID].to_numpy()
    a_mult = a["mult"].to_numpy()
    d = len(numeric)
    q_val = q.select(values).to_numpy().astype(np.float64, copy=False).reshape(n_u, d)
    a_val = a.select(values).to_numpy().astype(np.float64, copy=False).reshape(a.height, d)
    return q_sid, a_sid, a_mult, q_val, a_val


def _same_cell_pass(
    q_sid: npt.NDArray[np.int64],
    q_scaled: npt.NDArray[np.float64],
    a_sid: npt.NDArray[np.int64],
    a_scaled: npt.NDArray[np.float64],
    a_mult: npt.NDArray[np.int64],
    verify: Callable[[npt.NDArray[np.intp], npt.NDArray[np.intp]], npt.NDArray[np.bool_]],
    counts: npt.NDArray[np.int8],
) -> npt.NDArray[np.bool_]:
    """Settle, without the tree, the members of U that two avatars approach within
    their own grid cell (cells of side 1 in scaled units, per stratum): in dense
    data that is most of them, and each needs just two exact checks. Sets their
    count to 2 and returns which rows are settled."""
    keys = ["sid", *(f"c{j}" for j in range(q_scaled.shape[1]))]

    def cells(sid: npt.NDArray[np.int64], scaled: npt.NDArray[np.float64]) -> pl.DataFrame:
        data: dict[str, Any] = {"sid": sid}
        data.update({f"c{j}": np.floor(scaled[:, j]) for j in range(scaled.shape[1])})
        return pl.DataFrame(data)

    a = (
        cells(a_sid, a_scaled)
        .with_row_index("pt")
        .group_by(keys)
        .agg(pl.col("pt").min().alias("p1"), pl.col("pt").max().alias("p2"))
    )
    joined = cells(q_sid, q_scaled).join(a, on=keys, how="left", maintain_order="left")
    has = joined["p1"].is_not_null().to_numpy()
    rows = np.flatnonzero(has)
    p1 = joined["p1"].to_numpy()[has].astype(np.intp)
    p2 = joined["p2"].to_numpy()[has].astype(np.intp)
    ok1 = verify(rows, p1)
    ok2 = (p2 != p1) & verify(rows, p2)
    total = np.where(ok1, a_mult[p1], 0) + np.where(ok2, a_mult[p2], 0)
    settled = np.zeros(q_sid.size, dtype=np.bool_)
    settled[rows[total >= 2]] = True
    counts[settled] = 2
    return settled


def _to_polars(frame: Any) -> pl.DataFrame:
    native = frame.collect(backend="polars").to_native()
    assert isinstance(native, pl.DataFrame)
    return native


def unique_originals(original: pl.DataFrame, known: Sequence[str]) -> pl.DataFrame:
    """U: the rows whose tuple of raw known values occurs once (missing equals missing)."""
    return original.filter(pl.len().over(list(known)) == 1)


def half_widths(
    u: pl.DataFrame, numeric: Sequence[str], tolerance: float, dates: Sequence[str] = ()
) -> dict[str, float]:
    """h_v: the class width of the spec over U, collected and computed exactly as
    every engine does (``kpr.engine.queries.numeric_statistics``)."""
    bins = queries.numeric_statistics(nw.from_native(u.lazy()), numeric, tolerance, dates)
    return {v: b.width for v, b in bins.items()}


def window_counts(prepared: Prepared, known: Sequence[str], tolerance: float) -> Counts:
    """The counts of the window attack on loaded inputs (read into memory)."""
    return window_approaches(prepared, known, tolerance)[0]


def window_approaches(
    prepared: Prepared, known: Sequence[str], tolerance: float
) -> tuple[Counts, npt.NDArray[np.int8]]:
    """The counts of the window attack, and for each member of U (in the original's
    row order) how many avatars approach it, up to 2: 1 is a link (``kpr.protect``
    compares them before and after, to count the individuals newly linked)."""
    # internal names only (``__kpr_k0__``...), so no user column meets ours
    aliases = queries.internal_names(known)
    known = list(aliases.values())
    kinds = {aliases[name]: prepared.kinds[name] for name in aliases}
    original = _to_polars(queries.internal_frame(prepared.original, aliases, None))
    avatars = _to_polars(queries.internal_frame(prepared.avatars, aliases, None))
    u = unique_originals(original, known)
    numeric = [v for v in known if kinds[v].binned]
    categorical = [v for v in known if not kinds[v].binned]
    dates = [v for v in known if kinds[v] is Kind.DATE]
    widths = half_widths(u, numeric, tolerance, dates)
    counts = approach_counts(u, avatars, categorical, numeric, widths)
    linked = int(np.count_nonzero(counts == 1))
    return Counts(original.height, avatars.height, u.height, linked), counts
