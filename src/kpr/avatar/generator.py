"""The Avatar generator (Guillaudeux et al., npj Digital Medicine 6:37, 2023).

Each individual gets one avatar: a random, distance-weighted mix of its k nearest
other individuals in a FAMD space, brought back to a table. Being built from
neighbours rather than from the individual itself, an avatar looks like its
local area, not like its source.

Neighbours are always searched on the ``ncp`` first FAMD axes. The mix itself is
taken, by default (``synthesis="full"``), over all FAMD axes: since projecting
back with every axis is exact and linear, that is per numeric the weighted mean
of the neighbours' values. This is how we read the authors' software, where
``ncp`` is "the number of dimensions to consider for the KNN".
``synthesis="reduced"`` mixes only the ``ncp`` coordinates and projects the
numerics back from them: what the other axes carried is lost, which pulls
avatars towards the main axes (numerics towards their mean).

Categorical values and missingness (whether a numeric is missing) are decoded,
by default (``categorical_decoding="draw"``), by a weighted random draw: each
categorical variable, and each missingness variable, independently takes the
value of one neighbour picked with probability equal to the neighbours' weights.
Why not the weighted mode (the category with the largest total weight, kept as
``categorical_decoding="mode"``): with weights this uneven, the mode copies the
dominant neighbour's whole categorical profile, so avatars land on real
records (on the Avatar paper's own data, exact copies 86-89 % instead of the
published 54 %, median distance to the closest original halved), and
missingness drifts towards the majority as k grows. The draw keeps each
variable's expected distribution equal to the neighbours' weighted one, so the
missing share stays that of the originals. The draw uses the seeded generator
after the weights, so one seed gives one table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from kpr.avatar import _table as tb
from kpr.avatar.projection import Encoded, Projection
from kpr.avatar.roles import Roles, decide_roles, split_identifiers
from kpr.checks import whole_number
from kpr.errors import InputError
from kpr.results.avatar_settings import Decoding, GeneratorSettings, Synthesis

Seed = int | np.random.Generator | None
DECODINGS: tuple[str, ...] = ("draw", "mode")

#: Elements of a temporary (rows x categories) vote table.
_CHUNK_ELEMENTS = 1 << 22
#: Above this many categories, votes are counted by sorting each row's neighbours instead.
_VOTE_TABLE_MAX = 256


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
    roles: Roles | None = None  #: each column's role, as decided before generating

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
    # Query in the tree's own point order: consecutive queries then walk the same nodes,
    # which is several times faster than the table's order on large tables.
    perm = np.asarray(tree.indices, dtype=np.int64)
    dist, idx = _others(tree, coords, perm, k, workers=-1)
    out_dist = np.empty((n, k))
    out_idx = np.empty((n, k), dtype=np.int64)
    out_dist[perm] = dist
    out_idx[perm] = idx
    return out_dist, out_idx


def _others(
    tree: cKDTree, coords: np.ndarray, rows: np.ndarray, k: int, workers: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices (len(rows) x k) of the k nearest rows other than each
    of ``rows`` itself, nearest first."""
    n = len(rows)
    dist, idx = tree.query(coords[rows], k=k + 1, workers=workers)
    dist = np.asarray(dist, dtype=np.float64).reshape(n, k + 1)
    idx = np.asarray(idx, dtype=np.int64).reshape(n, k + 1)
    is_self = idx == rows[:, None]
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


def _mix(values: np.ndarray, idx: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted sum of neighbours' rows, one neighbour rank at a time (low memory)."""
    out = np.zeros((idx.shape[0], values.shape[1]))
    for r in range(idx.shape[1]):
        out += w[:, r, None] * values[idx[:, r]]
    return out


def _weighted_mode(codes: np.ndarray, size: int, idx: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per row, the category with the largest total weight among its neighbours
    (ties: the lowest code).

    This is the argmax of the de-scaled indicators of the full-space mix. Few
    categories: a (rows x categories) vote table per chunk. Many: sort each row's
    k neighbour codes and sum the weights of equal runs, whatever the cardinality.
    """
    n = idx.shape[0]
    if size <= _VOTE_TABLE_MAX:
        out = np.empty(n, dtype=np.int64)
        step = max(1, _CHUNK_ELEMENTS // size)
        for start in range(0, n, step):
            stop = min(n, start + step)
            rows = np.arange(stop - start)[:, None] * size
            flat = (rows + codes[idx[start:stop]]).ravel()
            votes = np.bincount(
                flat, weights=w[start:stop].ravel(), minlength=(stop - start) * size
            )
            out[start:stop] = votes.reshape(stop - start, size).argmax(axis=1)
        return out
    cand = codes[idx]
    order = np.argsort(cand, axis=1, kind="stable")
    cand = np.take_along_axis(cand, order, axis=1)
    total = np.cumsum(np.take_along_axis(w, order, axis=1), axis=1)
    run_end = np.ones(cand.shape, dtype=bool)
    run_end[:, :-1] = cand[:, :-1] != cand[:, 1:]
    # Weight of a run = cumulative weight at its end minus that at the previous run's end.
    ends = np.where(run_end, total, 0.0)
    before = np.zeros_like(total)
    before[:, 1:] = np.maximum.accumulate(ends, axis=1)[:, :-1]
    run_weight = np.where(run_end, total - before, -np.inf)
    best = run_weight.argmax(axis=1)
    return cand[np.arange(n), best]


def _weighted_draw(
    codes: np.ndarray, idx: np.ndarray, cumulative: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Per row, the code of one neighbour picked with probability = its weight.

    ``cumulative`` holds each row's running sum of weights (last column 1); the pick
    is the first neighbour whose running sum exceeds a uniform draw.
    """
    n, k = idx.shape
    u = np.asarray(rng.random(n), dtype=np.float64)
    pick = np.empty(n, dtype=np.int64)
    step = max(1, _CHUNK_ELEMENTS // k)
    for start in range(0, n, step):
        stop = min(n, start + step)
        below = cumulative[start:stop] <= u[start:stop, None]
        pick[start:stop] = np.minimum(below.sum(axis=1), k - 1)
    return codes[idx[np.arange(n), pick]]


def _decode(
    projection: Projection,
    enc: Encoded,
    idx: np.ndarray,
    w: np.ndarray,
    decoding: Decoding,
    rng: np.random.Generator,
) -> list[np.ndarray]:
    """One code per categorical (or missingness) variable per row (rows as in ``idx``)."""
    if decoding == "mode":
        return [
            _weighted_mode(code, blk.size, idx, w)
            for blk, code in zip(projection.blocks, enc.codes, strict=True)
        ]
    cumulative = np.cumsum(w, axis=1)
    return [_weighted_draw(code, idx, cumulative, rng) for code in enc.codes]


def generate(
    df: Any,
    *,
    k: int = 20,
    ncp: int = 5,
    seed: Seed = None,
    categorical: Sequence[Any] | None = None,
    synthesis: Synthesis = "full",
    categorical_decoding: Decoding = "draw",
    keep_identifiers: Sequence[Any] | None = None,
    numeric: Sequence[Any] | None = None,
) -> Generation:
    """Make one avatar per individual of a polars or pandas table, keeping the pairing.

    ``k`` neighbours per individual, searched on the ``ncp`` first FAMD axes.
    ``categorical`` names columns to treat as categorical in addition to the inferred
    ones (non-numeric dtypes, booleans, numerics with <= 10 distinct values);
    ``numeric`` names numeric columns to keep numeric whatever their number of distinct
    values (a 1-10 score).
    ``synthesis``: "full" mixes neighbours over every axis, "reduced" over the ``ncp``
    kept axes only (what the other axes carried is lost, which pulls avatars towards
    the main axes).
    ``categorical_decoding``: "draw" (a weighted random draw among the neighbours, the
    default) or "mode" (the category with the largest total weight). ``seed`` may also
    be a numpy Generator.

    Column roles are decided first: a column unique or nearly
    unique on every row (an identifier, free text) is refused with an InputError,
    unless named in ``keep_identifiers``: then it is left out of the projection and
    each avatar carries its own individual's value (which links the two).
    """
    rng = seed if isinstance(seed, np.random.Generator) else None
    settings = GeneratorSettings.of(
        k=k, ncp=ncp, seed=None if isinstance(seed, np.random.Generator) else seed,
        synthesis=synthesis,
        categorical_decoding=categorical_decoding, categorical=categorical, numeric=numeric,
        keep_identifiers=keep_identifiers,
    )  # fmt: skip
    return generate_with(df, settings, rng)


def generate_with(
    df: Any, settings: GeneratorSettings, rng: np.random.Generator | None = None
) -> Generation:
    """:func:`generate` with its options as one :class:`GeneratorSettings`; ``rng``, when
    given, is used instead of ``settings.seed``. The ``drop`` columns still in ``df`` are
    left out (a caller such as ``kpr avatarize`` may have left them out already)."""
    present = [c for c in settings.drop if c in tb.column_names(df)]
    df = tb.drop_columns(df, present) if present else df
    k, ncp = settings.k, settings.ncp
    synthesis, categorical_decoding = settings.synthesis, settings.decoding
    categorical = list(settings.categorical)
    numeric = list(settings.numeric)
    keep_identifiers = list(settings.keep_identifiers)
    backend = tb.frame_backend(df)
    whole_number(k, "k", 1)
    whole_number(ncp, "ncp", 1)
    n = tb.n_rows(df)
    if n == 0 or not tb.column_names(df):
        raise InputError("the table is empty; give a table with at least one row and column")
    if k >= n:
        raise InputError(
            f"k={k} must be smaller than the number of rows ({n}): each individual needs "
            "k other individuals; lower k"
        )
    if synthesis not in ("full", "reduced"):
        raise InputError(f"synthesis must be 'full' or 'reduced', got {synthesis!r}")
    if categorical_decoding not in DECODINGS:
        raise InputError(
            f"categorical_decoding must be 'draw' or 'mode', got {categorical_decoding!r}"
        )
    roles = decide_roles(
        backend, df, categorical, split_identifiers(keep_identifiers), numeric=numeric
    )
    roles.check()
    passthrough = roles.of("passthrough")
    fitted = tb.drop_columns(df, passthrough) if passthrough else df
    if rng is None:
        rng = np.random.default_rng(settings.seed)
    projection, enc = Projection.fit_encoded(fitted, ncp, categorical, numeric)
    coords = projection.coordinates
    dist, idx = neighbours(coords, k)
    w = weights(dist, rng)
    del dist
    order = rng.permutation(n)  # row r of the output is the avatar of individual order[r]
    idx, w = idx[order], w[order]
    if synthesis == "full":
        mixed = _mix(enc.numeric, idx, w)
    else:
        mixed = projection.numeric_from_coordinates(_mix(coords, idx, w))
    codes = _decode(projection, enc, idx, w, categorical_decoding, rng)
    del idx, w, enc
    avatars = projection._assemble(mixed, codes)
    if passthrough:
        avatars = _with_passthrough(backend, df, avatars, passthrough, order)
    pairing = np.empty(n, dtype=np.int64)
    pairing[order] = np.arange(n)
    return Generation(
        avatars=avatars, pairing=pairing, projection=projection, k=int(k), roles=roles
    )


def redraw(
    df: Any,
    individuals: np.ndarray,
    *,
    k: int,
    ncp: int = 5,
    seed: Seed = None,
    categorical: Sequence[Any] | None = None,
    keep_identifiers: Sequence[Any] | None = None,
) -> Any:
    """New avatars for some individuals only (row positions of ``df``), in that
    order: the projection is fitted on the whole table as :func:`generate` does,
    and each avatar mixes the individual's ``k`` nearest other individuals with
    the generator's weights (full synthesis, categorical values drawn). This is
    ``kpr protect``'s *regenerate* move."""
    backend = tb.frame_backend(df)
    whole_number(k, "regenerate_k", 1)
    n = tb.n_rows(df)
    if k >= n:
        raise InputError(
            f"regenerate_k={k} must be smaller than the number of original rows ({n}); lower it"
        )
    roles = decide_roles(backend, df, categorical, split_identifiers(keep_identifiers))
    roles.check()
    passthrough = roles.of("passthrough")
    fitted = tb.drop_columns(df, passthrough) if passthrough else df
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    projection, enc = Projection.fit_encoded(fitted, ncp, categorical)
    coords = projection.coordinates
    rows = np.asarray(individuals, dtype=np.int64)
    dist, idx = _others(cKDTree(coords), coords, rows, k)
    w = weights(dist, rng)
    numeric = _mix(enc.numeric, idx, w)
    codes = _decode(projection, enc, idx, w, "draw", rng)
    avatars = projection._assemble(numeric, codes)
    if passthrough:
        avatars = _with_passthrough(backend, df, avatars, passthrough, rows)
    return avatars


def _with_passthrough(
    backend: tb.Backend, df: Any, avatars: Any, names: list[Any], order: np.ndarray
) -> Any:
    """The avatar table with the passed-through columns copied from each avatar's own
    individual (avatar row r comes from individual ``order[r]``), in the original order."""
    columns = []
    for name in tb.column_names(df):
        if name in names:
            columns.append(tb.take(backend, tb.get_column(df, name), order))
        else:
            columns.append(tb.get_column(avatars, name))
    return tb.assemble(backend, tb.column_names(df), columns)


def avatarize(df: Any, **options: Any) -> Any:
    """The avatar table of ``df``: same type, columns, dtypes and row count; rows shuffled.

    Keyword options as in :func:`generate`.
    """
    return generate(df, **options).avatars
