"""Privacy metrics that use the pairing, and utility metrics that compare distributions.

Pairing metrics, on the definitions of the Avatar paper's authors (Guillaudeux et
al. 2023), measured in the FAMD space fitted on the originals, on its ``ncp``
first axes (the space where the generator searches neighbours), with the avatar
table re-projected into it (after rounding):

* local cloaking: per individual, the number of OTHER avatars at most as far
  from it as its own avatar (an avatar at the same distance, a tie, counts: the
  own avatar is then not singled out);
* hidden rate: share of individuals with a local cloaking of at least 1, i.e.
  whose own avatar is not strictly the nearest.

Distances equal up to a relative 1e-9 are ties, so floating-point noise between
two ways of computing one distance cannot flip the answer.

Correct links (:func:`correct_links`): of the individuals a KPR attack links to a
unique approaching avatar, those whose avatar it really is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from kpr.avatar import _table as tb
from kpr.avatar.generator import Generation
from kpr.avatar.roles import column_roles
from kpr.errors import InputError
from kpr.pairing import correct_links as pairing_correct_links

_TIE = 1e-9


def _own_distance(gen: Generation) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Original coordinates, avatar coordinates, and each individual's distance to its avatar."""
    orig = gen.projection.coordinates
    av = gen.avatar_coordinates
    own = np.sqrt(((orig - av[gen.pairing]) ** 2).sum(axis=1))
    return orig, av, own


def locality_order(points: np.ndarray) -> np.ndarray:
    """An order in which nearby points come together (a k-d tree's leaf order): querying
    in it reuses the same tree nodes from one query to the next, which is much faster."""
    return np.asarray(cKDTree(points, balanced_tree=False, compact_nodes=False).indices)


def local_cloaking(gen: Generation) -> np.ndarray:
    """Per individual, the number of other avatars at most as far from it as its own."""
    orig, av, own = _own_distance(gen)
    order = locality_order(orig)
    radius = own[order] * (1.0 + _TIE) + 1e-12
    found = cKDTree(av).query_ball_point(orig[order], r=radius, return_length=True, workers=-1)
    counts = np.empty(orig.shape[0], dtype=np.int64)
    # The own avatar is always within the radius: it is not counted.
    counts[order] = np.maximum(np.asarray(found, dtype=np.int64) - 1, 0)
    return counts


def hidden_rate(gen: Generation | np.ndarray) -> float:
    """Percentage of individuals whose own avatar is not strictly their nearest (another
    avatar is as close or closer; higher = safer). Takes a generation or its local
    cloaking."""
    values = gen if isinstance(gen, np.ndarray) else local_cloaking(gen)
    return float(100.0 * (values > 0).mean())


def median_local_cloaking(gen: Generation | np.ndarray) -> float:
    """Median local cloaking (the paper's summary: above ~5 is considered protective)."""
    values = gen if isinstance(gen, np.ndarray) else local_cloaking(gen)
    return float(np.median(values))


def correct_links(linked: Any, pairing: np.ndarray) -> int:
    """How many linked individuals are linked to their own avatar.

    ``linked``: the attack's linked pairs (``KprResult.linked_individuals()``, columns
    ``original_row`` and ``avatar_row``); ``pairing[i]``: the avatar row of individual
    ``i``. The rest of the linked individuals are claimed, but wrongly. The pairing
    is checked as every pairing is (``kpr.pairing``): one avatar per individual.
    """
    size = len(pairing)
    return pairing_correct_links(linked, pairing, size, size)


@dataclass(frozen=True)
class Utility:
    """How closely the avatars follow the originals' distributions.

    ``hellinger``: per column, in [0, 1] (0 = same distribution). ``mean_hellinger``:
    their mean. ``correlation_difference``: mean absolute difference between the
    Pearson correlations of the numeric columns (over pairs of distinct columns),
    NaN when fewer than two numeric columns have a defined correlation.
    """

    hellinger: dict[Any, float]
    mean_hellinger: float
    correlation_difference: float
    correlation_columns: tuple[Any, ...]
    original_correlation: np.ndarray
    avatar_correlation: np.ndarray


def hellinger(p: np.ndarray, q: np.ndarray) -> float:
    """Hellinger distance between two count or probability vectors over the same bins."""
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.sum() <= 0 or q.sum() <= 0:
        return float("nan")
    diff = np.sqrt(p / p.sum()) - np.sqrt(q / q.sum())
    return float(min(1.0, np.sqrt(0.5 * float(diff @ diff))))


def _numeric_bins(original: np.ndarray, bins: int) -> tuple[np.ndarray, float, float]:
    """Inner edges (the distinct quantiles 1/bins .. (bins-1)/bins) and the range of the
    original's observed values."""
    observed = original[~np.isnan(original)]
    if observed.size == 0:
        return np.empty(0), np.inf, -np.inf
    inner = np.unique(np.quantile(observed, np.arange(1, bins) / bins))
    return inner, float(observed.min()), float(observed.max())


def _binned(values: np.ndarray, grid: tuple[np.ndarray, float, float]) -> np.ndarray:
    """Counts per bin: below the original's minimum, the quantile bins, above its maximum,
    then missing."""
    inner, low, high = grid
    miss = np.isnan(values)
    x = values[~miss]
    codes = np.searchsorted(inner, x, side="right") + 1
    codes[x < low] = 0
    codes[x > high] = inner.size + 2
    counts = np.bincount(codes, minlength=inner.size + 3)
    return np.append(counts, miss.sum())


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation over the rows where both are present (NaN if undefined)."""
    ok = ~(np.isnan(a) | np.isnan(b))
    x, y = a[ok], b[ok]
    if x.size < 2:
        return float("nan")
    x = x - x.mean()
    y = y - y.mean()
    denom = float(np.sqrt((x @ x) * (y @ y)))
    return float(x @ y) / denom if denom > 0 else float("nan")


def _correlations(cols: list[np.ndarray]) -> np.ndarray:
    m = len(cols)
    out = np.eye(m)
    for i in range(m):
        for j in range(i + 1, m):
            out[i, j] = out[j, i] = _pearson(cols[i], cols[j])
    return out


def utility(
    original: Any,
    avatars: Any,
    categorical: Sequence[Any] | None = None,
    *,
    bins: int = 20,
) -> Utility:
    """Compare each column's distribution, and the numeric correlations, of two tables.

    Column roles are decided on ``original`` as in the generator. Categorical
    columns: Hellinger over their categories, missing being one more category
    (categories absent from the original are pooled, which does not change the
    distance). Numeric columns: Hellinger over ``bins`` quantile bins of the original,
    two out-of-range bins and a missing bin (below). Correlations: Pearson between
    numeric columns only (pairwise complete rows); categorical columns are left out.

    The numeric bins: cut points at the original's quantiles 1/bins .. (bins-1)/bins
    (repeated cut points merged, e.g. for a column that is mostly 0), plus one bin
    below the original's minimum and one above its maximum, so values outside the
    original range are told apart from its extreme bins.
    """
    backend = tb.frame_backend(original)
    if tb.frame_backend(avatars) != backend:
        raise InputError("original and avatars must both be polars or both be pandas tables")
    if bins < 2:
        raise InputError(f"bins must be >= 2, got {bins}")
    roles = column_roles(backend, original, categorical)
    names = tb.column_names(original)
    absent = [c for c in names if c not in set(tb.column_names(avatars))]
    if absent:
        raise InputError(f"the avatar table lacks column(s) {absent}; compare the same columns")

    distances: dict[Any, float] = {}
    num_orig: list[np.ndarray] = []
    num_av: list[np.ndarray] = []
    num_names: list[Any] = []
    for name in names:
        so = tb.get_column(original, name)
        sa = tb.get_column(avatars, name)
        if roles[name] == "numeric":
            xo = tb.to_float(backend, so)
            xa = tb.to_float(backend, sa)
            grid = _numeric_bins(xo, bins)
            distances[name] = hellinger(_binned(xo, grid), _binned(xa, grid))
            num_orig.append(xo)
            num_av.append(xa)
            num_names.append(name)
            continue
        codes_o, first = tb.factorize(backend, so)
        n_levels = first.shape[0]
        levels = tb.take(backend, so, first)
        codes_a = tb.encode(backend, levels, sa)
        # Bins: the original's categories, then "missing", then "absent from the original".
        codes_o = np.where(codes_o < 0, n_levels, codes_o)
        miss_a = tb.missing_mask(backend, sa)
        codes_a = np.where(miss_a, n_levels, np.where(codes_a < 0, n_levels + 1, codes_a))
        distances[name] = hellinger(
            np.bincount(codes_o, minlength=n_levels + 2),
            np.bincount(codes_a, minlength=n_levels + 2),
        )

    corr_o = _correlations(num_orig)
    corr_a = _correlations(num_av)
    upper = np.triu_indices(len(num_names), k=1)
    diffs = np.abs(corr_o[upper] - corr_a[upper])
    diffs = diffs[~np.isnan(diffs)]
    values = np.array(list(distances.values()), dtype=np.float64)
    return Utility(
        hellinger=distances,
        mean_hellinger=float(np.nanmean(values)) if values.size else float("nan"),
        correlation_difference=float(diffs.mean()) if diffs.size else float("nan"),
        correlation_columns=tuple(num_names),
        original_correlation=corr_o,
        avatar_correlation=corr_a,
    )
