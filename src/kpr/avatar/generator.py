"""The Avatar generator (Guillaudeux et al., npj Digital Medicine 6:37, 2023).

Each individual gets one avatar: a random, distance-weighted mix of its k nearest
other individuals in a FAMD space, brought back to a table. Being built from
neighbours rather than from the individual itself, an avatar looks like its
local area, not like its source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from kpr.avatar import _table as tb
from kpr.avatar.projection import Projection, _check_int
from kpr.errors import InputError

Seed = int | np.random.Generator | None


@dataclass
class Generation:
    """An avatar table and what the pairing-based metrics need to judge it.

    ``pairing[i]`` is the row position in ``avatars`` of individual ``i``'s avatar
    (individual ``i`` = row ``i`` of the original table). The avatar table itself is
    shuffled and carries no trace of the pairing.
    """

    avatars: Any
    pairing: np.ndarray
    projection: Projection
    k: int

    @cached_property
    def avatar_coordinates(self) -> np.ndarray:
        """The avatar table re-projected into the originals' space (after rounding)."""
        return self.projection.transform(self.avatars)


def neighbours(coords: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices (n x k) of each row's k nearest OTHER rows, nearest first.

    Self is excluded by index, not by distance, so an exact duplicate of a row is
    still a valid neighbour of it.
    """
    n = coords.shape[0]
    tree = cKDTree(coords, balanced_tree=False, compact_nodes=False)
    dist, idx = tree.query(coords, k=k + 1, workers=-1)
    dist = np.asarray(dist, dtype=np.float64).reshape(n, k + 1)
    idx = np.asarray(idx, dtype=np.int64).reshape(n, k + 1)
    is_self = idx == np.arange(n)[:, None]
    # Drop the own index where the tree returned it, else (duplicates crowded it out) the last.
    drop = np.where(is_self.any(axis=1), is_self.argmax(axis=1), k)
    keep = np.ones((n, k + 1), dtype=bool)
    keep[np.arange(n), drop] = False
    return dist[keep].reshape(n, k), idx[keep].reshape(n, k)


def weights(dist: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random weights over each row's neighbours, summing to 1.

    Raw score = (1 / distance) x Exp(1) x 2^-R, with R a random permutation of 1..k
    per row (not the distance rank). A zero distance (exact duplicate) is replaced
    by half the smallest positive distance of the whole matrix, so it gets the
    largest weight without dividing by zero.
    """
    n, k = dist.shape
    positive = dist[dist > 0]
    floor = 0.5 * float(positive.min()) if positive.size else 1.0
    d = np.maximum(dist, floor)
    draws = rng.exponential(1.0, size=(n, k))
    ranks = rng.permuted(np.broadcast_to(np.arange(1, k + 1, dtype=np.float64), (n, k)), axis=1)
    raw = draws / d * np.exp2(-ranks)
    return raw / raw.sum(axis=1, keepdims=True)


def _mix(coords: np.ndarray, idx: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted sum of neighbours' coordinates, one neighbour rank at a time (low memory)."""
    out = np.zeros((idx.shape[0], coords.shape[1]))
    for r in range(idx.shape[1]):
        out += w[:, r, None] * coords[idx[:, r]]
    return out


def generate(
    df: Any,
    *,
    k: int = 20,
    ncp: int = 5,
    seed: Seed = None,
    categorical: Sequence[Any] | None = None,
) -> Generation:
    """Make one avatar per individual of a polars or pandas table, keeping the pairing.

    ``categorical`` names columns to treat as categorical in addition to the inferred
    ones (non-numeric dtypes, booleans, numerics with <= 10 distinct values).
    """
    kind = tb.frame_kind(df)
    _check_int("k", k, 1)
    _check_int("ncp", ncp, 1)
    n = tb.n_rows(df)
    if n == 0 or not tb.column_names(kind, df):
        raise InputError("the table is empty; give a table with at least one row and column")
    if k >= n:
        raise InputError(
            f"k={k} must be smaller than the number of rows ({n}): each individual needs "
            "k other individuals; lower k"
        )
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    projection = Projection.fit(df, ncp=ncp, categorical=categorical)
    coords = projection.coordinates
    dist, idx = neighbours(coords, k)
    w = weights(dist, rng)
    del dist
    mixed = _mix(coords, idx, w)
    del idx, w
    order = rng.permutation(n)  # row r of the output is the avatar of individual order[r]
    avatars = projection.inverse_transform(mixed[order])
    pairing = np.empty(n, dtype=np.int64)
    pairing[order] = np.arange(n)
    return Generation(avatars=avatars, pairing=pairing, projection=projection, k=int(k))


def avatarize(
    df: Any,
    *,
    k: int = 20,
    ncp: int = 5,
    seed: Seed = None,
    categorical: Sequence[Any] | None = None,
) -> Any:
    """The avatar table of ``df``: same type, columns, dtypes and row count; rows shuffled."""
    return generate(df, k=k, ncp=ncp, seed=seed, categorical=categorical).avatars
