"""Privacy metrics that use the pairing, and utility metrics that compare distributions.

Pairing metrics, on the definitions of the Avatar paper's authors (Guillaudeux et
al. 2023), measured in the FAMD space fitted on the originals, on its ``ncp``
first axes (the space where the generator searches neighbours), with the avatar
table re-projected into it (after rounding):

* local cloaking: per individual, the number of OTHER avatars at most as far
  from it as its own avatar (an avatar at the same distance, a tie, counts: the
  own avatar is then not singled out);
* hidden rate: the expected share of individuals whose nearest avatar is not their
  own when ties are broken at random: an individual with c other avatars strictly
  closer than its own counts 1 when c > 0, else t / (t + 1), t being the other
  avatars at exactly its own avatar's distance. It is the published rule (ties
  broken by row index) averaged over every order of the avatar rows, so it does
  not depend on the order.

Distances equal up to a relative 1e-9 are ties, so floating-point noise between
two ways of computing one distance cannot flip the answer. The same counts serve
kpr's avatars (:func:`cloaking_of`) and anyone's avatars with a pairing
(:func:`cloaking`, used by ``distance_metrics(..., pairing=...)``).

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


def locality_order(points: np.ndarray) -> np.ndarray:
    """An order in which nearby points come together (a k-d tree's leaf order): querying
    in it reuses the same tree nodes from one query to the next, which is much faster."""
    return np.asarray(cKDTree(points, balanced_tree=False, compact_nodes=False).indices)


@dataclass(frozen=True)
class Cloaking:
    """Per individual with an avatar: the other avatars at most as far from it as its
    own (its local cloaking, ties counting), and whether one is strictly closer."""

    at_most: np.ndarray
    closer: np.ndarray  #: bool: some other avatar strictly closer than the own one

    @property
    def hidden(self) -> np.ndarray:
        """Probability that the individual's nearest avatar is not its own, ties broken
        at random: 1 when another avatar is strictly closer, else t / (t + 1), the t
        other avatars within its own avatar's distance being all ties."""
        ties = self.at_most.astype(np.float64)
        return np.where(self.closer, 1.0, ties / (ties + 1.0))

    @property
    def hidden_rate(self) -> float:
        """Expected percentage of individuals whose nearest avatar is not their own."""
        return float(100.0 * self.hidden.mean()) if self.at_most.size else float("nan")

    @property
    def median(self) -> float:
        """Median local cloaking."""
        return float(np.median(self.at_most)) if self.at_most.size else float("nan")


def _within(tree: cKDTree, points: np.ndarray, radius: np.ndarray) -> np.ndarray:
    if points.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    order = locality_order(points)
    found = tree.query_ball_point(points[order], r=radius[order], return_length=True, workers=-1)
    counts = np.empty(points.shape[0], dtype=np.int64)
    counts[order] = np.asarray(found, dtype=np.int64)
    return counts


def cloaking(original: np.ndarray, avatars: np.ndarray, pairing: np.ndarray) -> Cloaking:
    """The counts of :class:`Cloaking` from coordinates in one space: ``original`` (n, d),
    ``avatars`` (m, d) and ``pairing[i]``, the avatar row of individual ``i`` (individuals
    with -1 have no avatar and are left out)."""
    rows = np.flatnonzero(np.asarray(pairing) >= 0)
    orig = original[rows]
    own = np.sqrt(((orig - avatars[np.asarray(pairing)[rows]]) ** 2).sum(axis=1))
    tree = cKDTree(avatars)
    # the own avatar is always within the upper radius (not counted); an avatar nearer
    # than the lower bound is another one, strictly closer (none when the own is at 0)
    at_most = np.maximum(_within(tree, orig, own * (1.0 + _TIE) + 1e-12) - 1, 0)
    nearest = np.empty(orig.shape[0])
    if orig.shape[0]:
        order = locality_order(orig)
        nearest[order] = np.asarray(tree.query(orig[order], k=1, workers=-1)[0]).reshape(-1)
    return Cloaking(at_most, nearest < own * (1.0 - _TIE) - 1e-12)


def cloaking_of(gen: Generation) -> Cloaking:
    """The cloaking counts of a generation, in its projection."""
    return cloaking(gen.projection.coordinates, gen.avatar_coordinates, gen.pairing)


def local_cloaking(gen: Generation) -> np.ndarray:
    """Per individual, the number of other avatars at most as far from it as its own."""
    return cloaking_of(gen).at_most


def hidden_rate(gen: Generation | Cloaking) -> float:
    """Expected percentage of individuals whose own avatar is not their nearest, ties
    broken at random (higher = safer). Takes a generation or its :class:`Cloaking`."""
    return (gen if isinstance(gen, Cloaking) else cloaking_of(gen)).hidden_rate


def median_local_cloaking(gen: Generation | Cloaking | np.ndarray) -> float:
    """Median local cloaking (the paper's summary: above ~5 is considered protective)."""
    if isinstance(gen, np.ndarray):
        return float(np.median(gen))
    return (gen if isinstance(gen, Cloaking) else cloaking_of(gen)).median


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
    numeric: Sequence[Any] | None = None,
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
    roles = column_roles(backend, original, categorical, numeric)
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
