"""Distance-based privacy metrics for any synthetic table (kpr's avatars or another
generator's): how close synthetic rows sit to real records.

* exact copies: synthetic rows equal, on every column, to some original row
  (missing equals missing);
* DCR (distance to closest record): per synthetic row, the distance to its nearest
  original; the median is reported (0 = a copy in the space);
* NNDR (nearest neighbour distance ratio): nearest over second-nearest original
  distance, in [0, 1]; near 0 the synthetic row points at one real record, near 1
  it sits as close to two of them (1 when both distances are 0: a copy of a record
  that is itself duplicated singles out no one);
* with a pairing (which synthetic row each individual became), the Avatar method's
  hidden rate and local cloaking (:mod:`kpr.avatar.metrics`), for avatars made
  elsewhere.

Distances are measured in the FAMD space fitted on the originals (on its ``ncp``
first axes, the space where the Avatar generator searches neighbours); synthetic
and holdout rows are projected into it. A holdout (real individuals of the same
population NOT used to make the synthetic table) gives the baseline: the same
figures for real newcomers, i.e. how close an honest sample already sits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import narwhals as nw
import numpy as np
import polars as pl
from scipy.spatial import cKDTree

from kpr.avatar import _table as tb
from kpr.avatar.metrics import cloaking, locality_order
from kpr.avatar.projection import Projection
from kpr.errors import InputError
from kpr.inputs.same_rows import comparable, rows_found
from kpr.pairing import read_pairing
from kpr.results.distance import Closeness, DistanceMetrics, PairingMetrics


def _as_polars(backend: tb.Backend, df: Any) -> pl.DataFrame:
    return df if backend == "polars" else pl.from_pandas(df)


def exact_copies(original: Any, other: Any) -> int:
    """Rows of ``other`` equal to some row of ``original`` on all of ``original``'s columns,
    compared by value and kind as the metric compares them (see
    :mod:`kpr.inputs.same_rows`: 30 equals 30.0, missing equals missing)."""
    orig = _as_polars(tb.frame_backend(original), original)
    rows = _as_polars(tb.frame_backend(other), other)
    orig, rows = comparable(orig, rows, orig.columns)
    return rows_found(rows, orig)


def _closeness(
    tree: cKDTree, coords: np.ndarray, original: Any, table: Any, n_original: int
) -> Closeness:
    m = coords.shape[0]
    if m == 0:
        return Closeness(0, 0, float("nan"), float("nan"))
    order = locality_order(coords)
    k = 2 if n_original >= 2 else 1
    dist, _ = tree.query(coords[order], k=k, workers=-1)
    dist = np.asarray(dist, dtype=np.float64).reshape(m, k)
    d1 = dist[:, 0]
    if k == 2:
        d2 = dist[:, 1]
        nndr = np.divide(d1, d2, out=np.ones_like(d1), where=d2 > 0)
        median_nndr = float(np.median(nndr))
    else:
        median_nndr = float("nan")
    return Closeness(
        rows=m,
        exact_copies=exact_copies(original, table),
        median_dcr=float(np.median(d1)),
        median_nndr=median_nndr,
    )


def _finite(coords: np.ndarray, table: Any, role: str) -> np.ndarray:
    """The coordinates, when every one is finite; else the column behind them is named
    (an ``inf`` or a NaN in a numeric column has no place in the space)."""
    if np.isfinite(coords).all():
        return coords
    frame = nw.from_native(table, eager_only=True)
    for name in frame.columns:
        column = frame[name]
        if column.dtype.is_float() and not column.drop_nulls().is_finite().all():
            odd = column.filter(~column.is_finite() & ~column.is_nan())
            odd = odd[0] if len(odd) else float("nan")  # an infinity, the likely cause
            raise InputError(
                f"the {role} table: column {str(name)!r} holds {odd!r}, which is not a finite "
                "number: give finite numbers, or leave the cell empty (missing)"
            )
    raise InputError(
        f"the {role} table has values that are not finite numbers: give finite numbers"
    )


def distance_metrics(
    original: Any,
    synthetic: Any,
    holdout: Any = None,
    *,
    ncp: int = 5,
    categorical: Sequence[Any] | None = None,
    projection: Projection | None = None,
    pairing: Any = None,
    numeric: Sequence[Any] | None = None,
) -> DistanceMetrics:
    """Exact-copy share, median DCR and median NNDR of ``synthetic`` against
    ``original`` (polars or pandas tables with the original's columns), and the same
    for ``holdout`` when given, in the FAMD space fitted on ``original``.

    ``categorical`` and ``numeric`` declare column roles (a 1-10 score can stay a
    number). ``pairing`` (a file or frame with ``original_row`` and ``avatar_row``, or
    one synthetic row per original row) adds the hidden rate and the median local
    cloaking, in the same space. ``projection``: a space already fitted on
    ``original`` (e.g. a generation's), to avoid fitting it again.
    """
    n = tb.n_rows(original)
    if n == 0:
        raise InputError("the original table is empty; give at least one row")
    proj = projection
    if proj is None:
        proj = Projection.fit(original, ncp, categorical, numeric)
    finite = _finite(proj.coordinates, original, "original")
    tree = cKDTree(finite, balanced_tree=False, compact_nodes=False)
    coords = _finite(proj.transform(synthetic), synthetic, "synthetic")
    syn = _closeness(tree, coords, original, synthetic, n)
    hold = None
    if holdout is not None:
        if tb.n_rows(holdout) == 0:  # its medians would be NaN
            raise InputError(
                "the holdout table has no rows; give real individuals not used to make the "
                "synthetic table, or leave the holdout out"
            )
        held = _finite(proj.transform(holdout), holdout, "holdout")
        hold = _closeness(tree, held, original, holdout, n)
    paired = None
    if pairing is not None:
        own = read_pairing(pairing, n, coords.shape[0])
        counts = cloaking(proj.coordinates, coords, own)
        paired = PairingMetrics(int(counts.at_most.size), counts.hidden_rate, counts.median)
    return DistanceMetrics(synthetic=syn, holdout=hold, ncp=proj.ncp, n_original=n, pairing=paired)
