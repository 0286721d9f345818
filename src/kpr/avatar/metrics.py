"""Privacy metrics that use the pairing (the utility metrics are :mod:`kpr.utility`).

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

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from kpr.avatar.generator import Generation
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
