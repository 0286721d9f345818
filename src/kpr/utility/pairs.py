"""Pairs of columns, from the per-column codes and values (``columns``): contingency
counts by one ``bincount`` of combined codes per pair and side, correlations by
one dot product; never a Python loop over rows.

SDMetrics' rules reproduced here (version 0.32, Column Pair Trends):

* two numbers or dates: CorrelationSimilarity, 1 - |r_real - r_synthetic| / 2,
  Pearson's r on the rows where both are present; no score when a column holds
  one distinct value on either side (SDMetrics raises), or r is undefined;
* otherwise ContingencySimilarity: 1 - half the total variation distance between
  the two tables of joint shares, numbers discretised per side (``columns``),
  missing a category of its own;
* a pair counts in the property score only when its real association passes
  the report's threshold: |r_real| > 0.5, or, for a contingency pair, Cramér's V
  of the real contingency table (no continuity correction) > 0.3 (a table with
  fewer than two rows or columns has none).

kpr also reports the raw association on both sides: |r| for two numbers,
Cramér's V for two categories, η² (the share of the number's variance its
category explains, rows with the number present) for a category and a number.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kpr.utility.columns import Column, Side

#: The Quality Report's thresholds (SDMetrics 0.32 defaults).
CORRELATION_THRESHOLD = 0.5
ASSOCIATION_THRESHOLD = 0.3
#: Above this many cells per row, contingency counts are taken by sorting instead.
_DENSE_CELLS_PER_ROW = 4


@dataclass(frozen=True)
class Pair:
    """One pair's scores; NaN where a figure is undefined."""

    first: str
    second: str
    metric: str  # CorrelationSimilarity or ContingencySimilarity
    score: float
    meets_threshold: bool
    real_correlation: float  # Pearson r (CorrelationSimilarity pairs)
    synthetic_correlation: float
    real_cramers_v: float  # of the real contingency table (ContingencySimilarity pairs)
    association: str  # r, cramers_v or eta2
    original_association: float
    synthetic_association: float


def _sparse_counts(a: np.ndarray, b: np.ndarray, levels_b: int) -> tuple[np.ndarray, np.ndarray]:
    keys, n = np.unique(a * levels_b + b, return_counts=True)
    return keys, n


def contingency_similarity(
    ro: np.ndarray, so: np.ndarray, rs: np.ndarray, ss: np.ndarray, levels: tuple[int, int]
) -> tuple[float, np.ndarray | None]:
    """ContingencySimilarity and the real contingency table (None when too large to
    hold densely)."""
    la, lb = levels
    cells = la * lb
    if cells <= max(_DENSE_CELLS_PER_ROW * max(ro.size, rs.size), 1 << 16):
        real = np.bincount(ro * lb + so, minlength=cells)
        syn = np.bincount(rs * lb + ss, minlength=cells)
        score = 1 - (np.abs(real / ro.size - syn / rs.size) / 2).sum()
        return float(score), real.reshape(la, lb)
    kr, nr = _sparse_counts(ro, so, lb)
    ks, ns = _sparse_counts(rs, ss, lb)
    keys = np.union1d(kr, ks)
    pr = np.zeros(keys.size)
    ps = np.zeros(keys.size)
    pr[np.searchsorted(keys, kr)] = nr / ro.size
    ps[np.searchsorted(keys, ks)] = ns / rs.size
    return float(1 - (np.abs(pr - ps) / 2).sum()), None


def cramers_v(table: np.ndarray) -> float:
    """Cramér's V of a contingency table (its empty rows and columns dropped), as
    ``scipy.stats.contingency.association(method='cramer')``; NaN when it has fewer
    than two rows or columns."""
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if min(table.shape) < 2:
        return float("nan")
    n = float(table.sum())
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    chi2 = float(((table - expected) ** 2 / expected).sum())
    return float(np.sqrt(chi2 / n / (min(table.shape) - 1)))


def _cramers_v_codes(a: np.ndarray, b: np.ndarray, levels: tuple[int, int]) -> float:
    la, lb = levels
    if la * lb <= max(_DENSE_CELLS_PER_ROW * a.size, 1 << 16):
        return cramers_v(np.bincount(a * lb + b, minlength=la * lb).reshape(la, lb))
    keys, n = _sparse_counts(a, b, lb)
    rows, row_idx = np.unique(keys // lb, return_inverse=True)
    cols, col_idx = np.unique(keys % lb, return_inverse=True)
    if min(rows.size, cols.size) < 2:
        return float("nan")
    total = float(n.sum())
    row_sum = np.bincount(row_idx, weights=n)
    col_sum = np.bincount(col_idx, weights=n)
    # chi2 = n (sum O^2 / (r c) - 1): only the non-empty cells enter
    chi2 = total * (
        float((n.astype(np.float64) ** 2 / (row_sum[row_idx] * col_sum[col_idx])).sum()) - 1
    )
    return float(np.sqrt(max(chi2, 0.0) / total / (min(rows.size, cols.size) - 1)))


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r on the rows where both are present (NaN: fewer than two, or constant)."""
    ok = ~(np.isnan(x) | np.isnan(y))
    if ok.all():
        a, b = x, y
    else:
        a, b = x[ok], y[ok]
    if a.size < 2:
        return float("nan")
    a = a - a.mean()
    b = b - b.mean()
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0 or nb == 0:
        return float("nan")
    return float(np.clip(np.dot(a / na, b / nb), -1.0, 1.0))


def eta_squared(codes: np.ndarray, values: np.ndarray, present: np.ndarray) -> float:
    """The share of the variance of ``values`` explained by the categories ``codes``
    (rows with a value); NaN when the values are constant or absent."""
    if not present.all():
        codes, values = codes[present], values[present]
    if values.size < 2:
        return float("nan")
    centred = values - values.mean()
    total = float(centred @ centred)
    if total == 0:
        return float("nan")
    n = np.bincount(codes)
    sums = np.bincount(codes, weights=centred)
    seen = n > 0
    between = float((sums[seen] ** 2 / n[seen]).sum())
    return min(1.0, between / total)


def _constant(side: Side) -> bool:
    """One distinct value (missing aside): SDMetrics' CorrelationSimilarity refuses it."""
    assert side.values is not None
    v = side.values[side.present]
    return v.size > 0 and bool((v == v[0]).all())


def correlation_pair(a: Column, b: Column) -> Pair:
    """Two numbers or dates: CorrelationSimilarity."""
    assert a.original.values is not None and b.original.values is not None
    assert a.synthetic.values is not None and b.synthetic.values is not None
    r_real = pearson(a.original.values, b.original.values)
    r_syn = pearson(a.synthetic.values, b.synthetic.values)
    if any(_constant(s) for s in (a.original, b.original, a.synthetic, b.synthetic)):
        score, meets = float("nan"), False
    else:
        score = 1 - abs(r_real - r_syn) / 2
        meets = not np.isnan(r_real) and abs(r_real) > CORRELATION_THRESHOLD
    return Pair(
        a.name, b.name, "CorrelationSimilarity", float(score), bool(meets) and not np.isnan(score),
        r_real, r_syn, float("nan"), "r", abs(r_real), abs(r_syn),
    )  # fmt: skip


def contingency_pair(a: Column, b: Column) -> Pair:
    """A pair with a category: ContingencySimilarity, and the raw association."""
    ra, rb, sa, sb = a.original.codes, b.original.codes, a.synthetic.codes, b.synthetic.codes
    if ra is None or rb is None or sa is None or sb is None:
        score, real_v = float("nan"), float("nan")
    else:
        score, table = contingency_similarity(ra, rb, sa, sb, (a.levels, b.levels))
        real_v = (
            cramers_v(table)
            if table is not None
            else _cramers_v_codes(ra, rb, (a.levels, b.levels))
        )
    meets = not np.isnan(real_v) and real_v > ASSOCIATION_THRESHOLD and not np.isnan(score)
    if a.continuous or b.continuous:  # η²: the category explains the number
        cat, num = (b, a) if a.continuous else (a, b)
        assert num.original.values is not None and num.synthetic.values is not None
        assert cat.original.codes is not None and cat.synthetic.codes is not None
        kind = "eta2"
        orig = eta_squared(cat.original.codes, num.original.values, num.original.present)
        syn = eta_squared(cat.synthetic.codes, num.synthetic.values, num.synthetic.present)
    else:
        assert ra is not None and rb is not None and sa is not None and sb is not None
        kind = "cramers_v"
        orig = real_v
        syn = _cramers_v_codes(sa, sb, (a.levels, b.levels))
    return Pair(
        a.name, b.name, "ContingencySimilarity", score, bool(meets),
        float("nan"), float("nan"), real_v, kind, orig, syn,
    )  # fmt: skip


def pair(a: Column, b: Column) -> Pair:
    """The pair's scores, by SDMetrics' choice of metric."""
    if a.continuous and b.continuous:
        return correlation_pair(a, b)
    return contingency_pair(a, b)
