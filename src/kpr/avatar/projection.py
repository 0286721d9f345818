"""Factor analysis of mixed data (FAMD) in numpy, with PCA and MCA as its special cases.

The Avatar method draws new individuals in a low-dimensional space where
distances mean something for mixed data; this module builds that space, projects
new rows into it and brings coordinates back to a table.

Coding (the FAMD of Pagès, as in the ``saiph`` package by the method's authors):

* a numeric column is centred and divided by its (population) standard deviation;
* a categorical column becomes one indicator column per category ``l``, centred
  by the category's proportion ``p_l`` and divided by ``sqrt(p_l)``.

With only numeric columns this is a standardised PCA; with only categorical ones
it is MCA (coordinates equal to the classical MCA coordinates times
``sqrt(number of columns)``, a constant factor that leaves neighbours unchanged).

Missing values: a numeric column with missing values is imputed by its median
and gets a two-category companion variable ("present"/"missing") coded like any
categorical column, so missingness takes part in the distances. In a categorical
column, missing is simply one more category. Back from the space, the argmax of
the companion (or of the categorical's own categories) decides whether the value
is missing: missingness is synthesised like any other value. (The generator does not
use this argmax: it decodes categoricals and missingness from the neighbours' values,
see :mod:`kpr.avatar.generator`.)

A column that is entirely missing carries no information: it is left out of the
projection and comes back entirely missing (same dtype).

Back to a table: numerics are de-standardised, clipped to the range observed in
the fitted table and rounded to the coarsest precision that all its values have
(integers stay whole; a float column showing 2 decimals gets 2 decimals; one
needing more than MAX_DECIMALS is left unrounded); each categorical variable
takes its most likely category (argmax over its indicators), so only categories
seen in the fitted table come out; dtypes are restored exactly.

``ncp`` larger than the number of coded columns is lowered to it.

The axes are the top eigenvectors of the ``p x p`` Gram matrix ``Z'Z`` of the coded
table ``Z`` (``p`` = number of coded columns), i.e. the right singular vectors of
``Z``. ``Z`` itself is never built: categorical codes stay integers and their
products are counts, so memory is ``O(n * columns + p**2)``, not ``O(n * p)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from kpr.avatar import _table as tb
from kpr.avatar.roles import Role, column_roles
from kpr.checks import whole_number
from kpr.errors import InputError

#: Numerics are rounded to the coarsest precision (decimals from -15 to this) that represents
#: every original value; a float column that needs more decimals is not rounded.
MAX_DECIMALS = 8
#: Above this many coded columns the Gram matrix is not formed (iterative eigensolver instead).
_DENSE_GRAM_MAX = 3000
#: Elements of a temporary (rows x coded columns) block when projecting back.
_CHUNK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class NumericVariable:
    """How one numeric column is coded and restored."""

    name: Any
    ctype: tb.ColumnType
    mean: float  #: of the imputed column
    scale: float  #: population std of the imputed column (1 if constant)
    fill: float  #: median, used for missing values
    low: float  #: observed minimum: avatars are clipped to [low, high]
    high: float
    decimals: int | None  #: ``np.round`` decimals of restored values (None: not rounded)
    indicator: int | None  #: index in ``Projection.blocks`` of its missingness variable
    nan_missing: bool = False  #: polars float column that marks missing with NaN, not null


@dataclass(frozen=True)
class CategoricalBlock:
    """One categorical variable (a column, or a numeric column's missingness)."""

    name: Any  #: the table column it comes from
    indicator: bool  #: True for a numeric column's present/missing variable
    offset: int  #: first coded column
    prop: np.ndarray  #: proportion of each category in the fitted table
    levels: Any  #: native Series, one value per code (missing included); None for indicators
    missing_code: int | None  #: the code standing for "missing", if any

    @property
    def size(self) -> int:
        """Number of categories (coded columns)."""
        return int(self.prop.shape[0])


@dataclass
class Encoded:
    """A table turned into numbers: standardised numerics and categorical codes."""

    numeric: np.ndarray  #: (n, q) float64, imputed and standardised
    codes: list[np.ndarray] = field(default_factory=list)  #: per block, int64, -1 unseen


def _check_finite(name: Any, values: np.ndarray) -> None:
    """The projection mixes and standardises values: it needs finite numbers whose
    mean and spread are finite too (not ±inf, not values near 1e308)."""
    if not np.isfinite(values).all():
        raise InputError(
            f"column {name!r} holds infinite values or values too large to average "
            "(near 1e308); make them missing or rescale the column before making avatars"
        )


def _decimals(values: np.ndarray, integer: bool, float32: bool) -> int | None:
    """The coarsest rounding (``np.round`` decimals, from -15 to MAX_DECIMALS) that leaves
    every observed value unchanged, or None if even MAX_DECIMALS is not enough.

    Integers that are all multiples of 1000 give -3; timestamps in whole seconds
    stored in microseconds give -6; prices in cents give 2.
    """
    x = values[np.isfinite(values)]
    if x.size > 20_000:  # a deterministic sample is enough to see the precision
        x = x[:: x.size // 20_000]
    if integer:
        tol = np.zeros_like(x)
    else:  # absorb binary representation error only
        tol = (1e-6 if float32 else 1e-12) * np.maximum(1.0, np.abs(x))
    for d in range(-15, MAX_DECIMALS + 1):
        if np.all(np.abs(np.round(x, d) - x) <= tol):
            return d
    return None


def _crosstab(a: np.ndarray, la: int, b: np.ndarray, lb: int) -> np.ndarray:
    """Counts of each (a, b) code pair, as a dense (la, lb) float array."""
    if la * lb <= 1 << 24:
        flat = np.bincount(a * lb + b, minlength=la * lb)
        return flat.reshape(la, lb).astype(np.float64)
    from scipy import sparse

    ones = np.ones(a.shape[0], dtype=np.float64)
    return np.asarray(sparse.coo_matrix((ones, (a, b)), shape=(la, lb)).toarray())


def _numeric_variable(
    backend: tb.Backend, name: Any, s: Any
) -> tuple[NumericVariable, np.ndarray, np.ndarray]:
    """How one numeric column is coded (missing values filled with the median, then
    standardised), its coded values and its missing mask (``indicator`` left to the caller)."""
    ctype = tb.column_type(backend, s)
    x = tb.to_float(backend, s)
    miss = np.isnan(x)
    observed = x[~miss]
    _check_finite(name, observed)
    fill = float(np.median(observed))
    x[miss] = fill
    with np.errstate(over="ignore", invalid="ignore"):  # checked just below
        mean = float(x.mean())
        std = float(x.std())
    _check_finite(name, np.array([mean, std]))
    scale = std if std > 1e-12 * max(1.0, abs(mean)) else 1.0
    var = NumericVariable(
        name=name,
        ctype=ctype,
        mean=mean,
        scale=scale,
        fill=fill,
        low=float(observed.min()),
        high=float(observed.max()),
        decimals=_decimals(observed, ctype.integer, ctype.float32),
        indicator=None,
        nan_missing=tb.nan_only_missing(backend, s),
    )
    return var, (x - mean) / scale, miss


def _categorical_block(
    backend: tb.Backend, name: Any, s: Any, n: int, offset: int
) -> tuple[CategoricalBlock, np.ndarray]:
    """One categorical column's block (missing values as a category of their own, coded
    last) and its codes."""
    code, first = tb.factorize(backend, s)
    missing_code = None
    missing = code < 0
    if missing.any():
        missing_code = first.shape[0]
        code[missing] = missing_code
        first = np.append(first, np.flatnonzero(missing)[0])
    levels = tb.take(backend, s, first)
    prop = np.bincount(code, minlength=first.shape[0]) / n
    return CategoricalBlock(name, False, offset, prop, levels, missing_code), code


class Projection:
    """A fitted FAMD space: project tables into it (:meth:`transform`) and back
    (:meth:`inverse_transform`). Build one with :meth:`fit`.

    Attributes: ``kind`` ("pca", "mca" or "famd"), ``ncp`` (components kept),
    ``components`` (coded columns x ncp, orthonormal), ``eigenvalues`` (variance of
    each component), ``explained_variance_ratio``, ``coordinates`` (of the fitted
    rows), ``numeric``/``blocks`` (coding of each variable), ``columns``,
    ``dropped`` (entirely missing columns, left out of the projection).
    """

    kind: str
    ncp: int
    components: np.ndarray
    eigenvalues: np.ndarray
    explained_variance_ratio: np.ndarray
    coordinates: np.ndarray
    numeric: tuple[NumericVariable, ...]
    blocks: tuple[CategoricalBlock, ...]
    columns: list[Any]
    roles: dict[Any, Role]
    dropped: tuple[Any, ...]
    backend: tb.Backend
    _empty_templates: dict[Any, Any]

    @classmethod
    def fit(
        cls,
        df: Any,
        ncp: int = 5,
        categorical: Sequence[Any] | None = None,
        numeric: Sequence[Any] | None = None,
    ) -> Projection:
        """Fit the space on a polars or pandas table; ``coordinates`` holds its rows'
        positions. ``categorical`` and ``numeric`` declare column roles (see
        :func:`kpr.avatar.roles.column_roles`)."""
        return cls.fit_encoded(df, ncp, categorical, numeric)[0]

    @classmethod
    def fit_encoded(
        cls,
        df: Any,
        ncp: int = 5,
        categorical: Sequence[Any] | None = None,
        numeric: Sequence[Any] | None = None,
    ) -> tuple[Projection, Encoded]:
        """:meth:`fit`, also returning the coded table (standardised numerics and
        category codes), which the generator mixes."""
        backend = tb.frame_backend(df)
        whole_number(ncp, "ncp", 1)
        n = tb.n_rows(df)
        names = tb.column_names(df)
        if n == 0 or not names:
            raise InputError("the table is empty; give a table with at least one row and column")
        roles = column_roles(backend, df, categorical, numeric)
        if all(r == "empty" for r in roles.values()):
            raise InputError("every column is entirely missing; there is nothing to project")

        self = cls.__new__(cls)
        self.backend = backend
        self.columns = names
        self.roles = roles
        self.dropped = tuple(c for c in names if roles[c] == "empty")
        self._empty_templates = {
            c: tb.take(backend, tb.get_column(df, c), np.zeros(1, dtype=np.int64))
            for c in self.dropped
        }
        enc, p = self._code(df, n)
        self.ncp = min(ncp, p)
        self.components, eig, total = self._axes(enc, n, p)
        self.eigenvalues = eig / n
        self.explained_variance_ratio = eig / total if total > 0 else np.zeros_like(eig)
        self.coordinates = self._project(enc)
        return self, enc

    def _code(self, df: Any, n: int) -> tuple[Encoded, int]:
        """Code every variable in column order (numerics first in the coded columns, then
        each categorical and missingness block); set ``numeric``, ``blocks`` and ``kind``.
        Returns the coded table and the number of coded columns."""
        numeric: list[NumericVariable] = []
        blocks: list[CategoricalBlock] = []
        numeric_cols: list[np.ndarray] = []
        codes: list[np.ndarray] = []
        q = sum(1 for c in self.columns if self.roles[c] == "numeric")
        offset = q
        for name in self.columns:
            s = tb.get_column(df, name)
            if self.roles[name] == "numeric":
                var, column, miss = _numeric_variable(self.backend, name, s)
                if miss.any():
                    var = replace(var, indicator=len(blocks))
                    code = miss.astype(np.int64)
                    prop = np.bincount(code, minlength=2) / n
                    blocks.append(CategoricalBlock(name, True, offset, prop, None, 1))
                    codes.append(code)
                    offset += 2
                numeric.append(var)
                numeric_cols.append(column)
            elif self.roles[name] == "categorical":
                block, code = _categorical_block(self.backend, name, s, n, offset)
                blocks.append(block)
                codes.append(code)
                offset += block.size
        self.numeric = tuple(numeric)
        self.blocks = tuple(blocks)
        n_cat = sum(1 for r in self.roles.values() if r == "categorical")
        self.kind = "pca" if n_cat == 0 else ("mca" if q == 0 else "famd")
        num = np.column_stack(numeric_cols) if numeric_cols else np.empty((n, 0))
        return Encoded(num, codes), offset

    # --- fitting -----------------------------------------------------------------------

    def _axes(self, enc: Encoded, n: int, p: int) -> tuple[np.ndarray, np.ndarray, float]:
        """Top ``ncp`` right singular vectors of Z, their squared singular values, trace."""
        if p <= _DENSE_GRAM_MAX:
            gram = self._gram(enc, n, p)
            total = float(np.trace(gram))
            w, u = np.linalg.eigh(gram)
            order = np.argsort(w)[::-1][: self.ncp]
            vecs, vals = u[:, order], np.maximum(w[order], 0.0)
        else:
            vecs, vals, total = self._axes_iterative(enc, n, p)
        # Deterministic signs: the largest loading of each axis is positive.
        pivot = np.abs(vecs).argmax(axis=0)
        signs = np.sign(vecs[pivot, np.arange(vecs.shape[1])])
        signs[signs == 0] = 1.0
        return vecs * signs, vals, total

    def _gram(self, enc: Encoded, n: int, p: int) -> np.ndarray:
        """``Z'Z`` from sums and counts, without materialising Z."""
        q = enc.numeric.shape[1]
        g = np.empty((p, p), dtype=np.float64)
        num = enc.numeric
        g[:q, :q] = num.T @ num
        colsum = num.sum(axis=0)
        inv_sqrt = [1.0 / np.sqrt(b.prop) for b in self.blocks]
        for i, (blk, code) in enumerate(zip(self.blocks, enc.codes, strict=True)):
            sl = slice(blk.offset, blk.offset + blk.size)
            if q:
                sums = np.stack(
                    [np.bincount(code, weights=num[:, j], minlength=blk.size) for j in range(q)]
                )
                cross = (sums - colsum[:, None] * blk.prop[None, :]) * inv_sqrt[i][None, :]
                g[:q, sl] = cross
                g[sl, :q] = cross.T
            for j in range(i, len(self.blocks)):
                other, code2 = self.blocks[j], enc.codes[j]
                sl2 = slice(other.offset, other.offset + other.size)
                if i == j:
                    counts = np.diag(np.bincount(code, minlength=blk.size).astype(np.float64))
                else:
                    counts = _crosstab(code, blk.size, code2, other.size)
                block = counts - n * np.outer(blk.prop, other.prop)
                block *= inv_sqrt[i][:, None] * inv_sqrt[j][None, :]
                g[sl, sl2] = block
                g[sl2, sl] = block.T
        return g

    def _axes_iterative(self, enc: Encoded, n: int, p: int) -> tuple[np.ndarray, np.ndarray, float]:
        """Lanczos on ``v -> Z'Z v`` for many coded columns (no p x p matrix)."""
        from scipy.sparse.linalg import LinearOperator, eigsh

        q = enc.numeric.shape[1]
        scaled = [(1.0 / np.sqrt(b.prop), np.sqrt(b.prop)) for b in self.blocks]

        def matvec(v: np.ndarray) -> np.ndarray:
            v = np.asarray(v, dtype=np.float64).ravel()
            z = enc.numeric @ v[:q] if q else np.zeros(n)
            for blk, code, (inv, sq) in zip(self.blocks, enc.codes, scaled, strict=True):
                vb = v[blk.offset : blk.offset + blk.size]
                z += (vb * inv)[code] - float(sq @ vb)
            out = np.empty(p)
            out[:q] = enc.numeric.T @ z
            total = z.sum()
            for blk, code, (inv, _) in zip(self.blocks, enc.codes, scaled, strict=True):
                sums = np.bincount(code, weights=z, minlength=blk.size)
                out[blk.offset : blk.offset + blk.size] = (sums - blk.prop * total) * inv
            return out

        op = LinearOperator((p, p), matvec=matvec, dtype=np.float64)
        w, u = eigsh(op, k=self.ncp, which="LA", v0=np.ones(p))
        order = np.argsort(w)[::-1]
        # trace(Z'Z): n per standardised numeric, n * (categories - 1) per categorical.
        total = float((enc.numeric**2).sum()) + n * sum(b.size - 1 for b in self.blocks)
        return u[:, order], np.maximum(w[order], 0.0), total

    # --- projecting ----------------------------------------------------------------------

    def _project(self, enc: Encoded) -> np.ndarray:
        """Coordinates ``Z V`` of encoded rows; unseen categories count as all-zero indicators."""
        v = self.components
        q = enc.numeric.shape[1]
        out = enc.numeric @ v[:q] if q else np.zeros((enc.numeric.shape[0], self.ncp))
        for blk, code in zip(self.blocks, enc.codes, strict=True):
            vb = v[blk.offset : blk.offset + blk.size]
            weights = np.vstack([vb / np.sqrt(blk.prop)[:, None], np.zeros((1, self.ncp))])
            out += weights[code]  # code -1 picks the zero row
            out -= np.sqrt(blk.prop) @ vb
        return out

    def _encode(self, df: Any) -> Encoded:
        """Code a table with the fitted statistics (same columns as the fitted table)."""
        backend = tb.frame_backend(df)
        if backend != self.backend:
            raise InputError(
                f"the projection was fitted on a {self.backend} table but got a {backend} "
                "table; convert it to the same library first"
            )
        names = set(tb.column_names(df))
        absent = [c for c in self.columns if c not in names and c not in self.dropped]
        if absent:
            raise InputError(f"the table lacks column(s) {absent}; give the fitted columns")
        m = tb.n_rows(df)
        num = np.empty((m, len(self.numeric)))
        codes: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * len(self.blocks)
        for j, var in enumerate(self.numeric):
            x = tb.to_float(backend, tb.get_column(df, var.name))
            miss = np.isnan(x)
            x[miss] = var.fill
            num[:, j] = (x - var.mean) / var.scale
            if var.indicator is not None:
                codes[var.indicator] = miss.astype(np.int64)
        for i, blk in enumerate(self.blocks):
            if blk.indicator:
                continue
            s = tb.get_column(df, blk.name)
            levels = blk.levels
            if blk.missing_code is not None:
                levels = tb.take(backend, levels, np.arange(blk.missing_code, dtype=np.int64))
            code = tb.encode(backend, levels, s)
            if blk.missing_code is not None:
                code[tb.missing_mask(backend, s)] = blk.missing_code
            codes[i] = code
        return Encoded(num, codes)

    def transform(self, df: Any) -> np.ndarray:
        """Coordinates (rows x ncp) of a table's rows in this space."""
        return self._project(self._encode(df))

    def inverse_transform(self, coordinates: np.ndarray) -> Any:
        """A table (same library, columns and dtypes as the fitted one) from coordinates
        on the ``ncp`` kept axes (what the other axes carried is lost).

        Numerics are de-standardised, clipped to the observed range and rounded to the
        column's precision; each categorical variable takes its most likely category
        (argmax of its de-scaled indicators); a value is missing where the missingness
        variable says so.
        """
        coords = np.asarray(coordinates, dtype=np.float64)
        if coords.ndim != 2 or coords.shape[1] != self.ncp:
            raise InputError(f"coordinates must be a 2-D array with {self.ncp} columns")
        m = coords.shape[0]
        v = self.components
        block_codes: list[np.ndarray] = []
        for blk in self.blocks:
            vb = v[blk.offset : blk.offset + blk.size]
            sq = np.sqrt(blk.prop)
            code = np.empty(m, dtype=np.int64)
            step = max(1, _CHUNK_ELEMENTS // blk.size)
            for start in range(0, m, step):
                part = coords[start : start + step] @ vb.T
                code[start : start + step] = (part * sq + blk.prop).argmax(axis=1)
            block_codes.append(code)
        return self._assemble(self.numeric_from_coordinates(coords), block_codes)

    def numeric_from_coordinates(self, coordinates: np.ndarray) -> np.ndarray:
        """The standardised numerics (rows x numeric columns) that ``ncp`` coordinates
        project back to."""
        q = len(self.numeric)
        if not q:
            return np.empty((coordinates.shape[0], 0))
        return np.asarray(coordinates @ self.components[:q].T)

    def _assemble(self, standardised: np.ndarray, block_codes: list[np.ndarray]) -> Any:
        """The output table from standardised numerics (rows x q) and a code per block."""
        backend = self.backend
        m = standardised.shape[0]
        out: dict[Any, Any] = {}
        for j, var in enumerate(self.numeric):
            x = np.clip(standardised[:, j] * var.scale + var.mean, var.low, var.high)
            if var.decimals is not None:
                x = np.round(x, var.decimals)
            if var.indicator is not None:
                x[block_codes[var.indicator] == 1] = np.nan
            out[var.name] = tb.from_float(backend, var.name, x, var.ctype, var.nan_missing)
        for blk, code in zip(self.blocks, block_codes, strict=True):
            if not blk.indicator:
                out[blk.name] = tb.take(backend, blk.levels, code)
        for name, template in self._empty_templates.items():
            out[name] = tb.take(backend, template, np.zeros(m, dtype=np.int64))
        return tb.assemble(backend, self.columns, [out[c] for c in self.columns])
