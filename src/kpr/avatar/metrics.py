"""Privacy metrics that use the pairing (the utility metrics are :mod:`kpr.utility`).

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

from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from kpr.avatar.generator import Generation
from kpr.pairing import count_correct

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
    ``i``. The rest of the linked individuals are claimed, but wrongly.
    """
    return count_correct(linked, pairing)
