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

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kpr.fidelity.columns import Column, Mapper, unit_score

#: The Quality Report's thresholds (SDMetrics 0.32 defaults).
CORRELATION_THRESHOLD = 0.5
ASSOCIATION_THRESHOLD = 0.3
#: Above this many cells per row, contingency counts are taken by sorting instead.
_DENSE_CELLS_PER_ROW = 4


@dataclass(frozen=True)
class Pair:
    """One pair's scores; NaN where a figure is undefined (its fields in the order
    of the pair table's columns, ``compute.PAIR_SCHEMA``)."""

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
    keys, n = np.unique(a.astype(np.int64) * levels_b + b, return_counts=True)
    return keys, n


def _dense(levels: tuple[int, int], n: int) -> bool:
    """Whether a pair's contingency table is small enough to count into densely."""
    return levels[0] * levels[1] <= max(_DENSE_CELLS_PER_ROW * n, 1 << 16)


def contingency_similarity(
    real: np.ndarray, synthetic: np.ndarray, n_real: int, n_synthetic: int
) -> float:
    """1 - half the total variation distance between two tables of joint counts."""
    return unit_score(1 - (np.abs(real / n_real - synthetic / n_synthetic) / 2).sum())


def _sparse_similarity(
    ro: np.ndarray, so: np.ndarray, rs: np.ndarray, ss: np.ndarray, levels_b: int
) -> float:
    kr, nr = _sparse_counts(ro, so, levels_b)
    ks, ns = _sparse_counts(rs, ss, levels_b)
    keys = np.union1d(kr, ks)
    pr = np.zeros(keys.size)
    ps = np.zeros(keys.size)
    pr[np.searchsorted(keys, kr)] = nr / ro.size
    ps[np.searchsorted(keys, ks)] = ns / rs.size
    return unit_score(1 - (np.abs(pr - ps) / 2).sum())


def cramers_v(table: np.ndarray) -> float:
    """Cramer's V of a contingency table (its empty rows and columns dropped), as
    ``scipy.stats.contingency.association(method='cramer')``; NaN when it has fewer
    than two rows or columns."""
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if min(table.shape) < 2:
        return float("nan")
    n = float(table.sum())
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    chi2 = float(((table - expected) ** 2 / expected).sum())
    return float(np.sqrt(chi2 / n / (min(table.shape) - 1)))


def _sparse_cramers_v(a: np.ndarray, b: np.ndarray, levels_b: int) -> float:
    """Cramer's V from the non-empty cells only (chi2 = n (sum O^2 / (r c) - 1))."""
    keys, n = _sparse_counts(a, b, levels_b)
    rows, row_idx = np.unique(keys // levels_b, return_inverse=True)
    cols, col_idx = np.unique(keys % levels_b, return_inverse=True)
    if min(rows.size, cols.size) < 2:
        return float("nan")
    total = float(n.sum())
    row_sum = np.bincount(row_idx, weights=n)
    col_sum = np.bincount(col_idx, weights=n)
    ratio = n.astype(np.float64) ** 2 / (row_sum[row_idx] * col_sum[col_idx])
    chi2 = total * (float(ratio.sum()) - 1)
    return float(np.sqrt(max(chi2, 0.0) / total / (min(rows.size, cols.size) - 1)))


#: Columns with at most this many codes are counted several at a time
#: (``joint_counts``); a pair with a larger one is counted on its own.
_SMALL = 256
#: The largest table of joint counts of a group of columns (it stays in the CPU cache).
_GROUP_CELLS = 1 << 16
#: The most columns counted together.
_GROUP_SIZE = 4
#: Rows per chunk of ``joint_counts`` (its temporary arrays stay in the CPU cache).
_CHUNK = 1 << 16


def _pair_counts(a: np.ndarray, b: np.ndarray, levels: tuple[int, int]) -> np.ndarray:
    cell = a.astype(np.intp) * levels[1] + b
    return np.bincount(cell, minlength=levels[0] * levels[1]).reshape(levels)


def cover(
    small: list[int], levels: list[int], wanted: set[tuple[int, int]] | None = None
) -> list[tuple[int, ...]]:
    """Groups of two to four columns whose joint counts give every pair of ``small``
    (those in ``wanted``, when given; a group's counts, summed over its other
    columns, give each of its pairs): one pass over the rows counts up to six pairs.
    Greedy: each group starts from a pair not yet counted and takes the column that
    adds most such pairs."""
    todo = {p for p in itertools.combinations(small, 2) if wanted is None or p in wanted}
    groups: list[tuple[int, ...]] = []
    for i, j in itertools.combinations(small, 2):
        if (i, j) not in todo:
            continue
        group = [i, j]
        while len(group) < _GROUP_SIZE:
            cells = int(np.prod([levels[g] for g in group]))
            best, gain = None, 0
            for k in small:
                if k in group or cells * levels[k] > _GROUP_CELLS:
                    continue
                new = sum((min(g, k), max(g, k)) in todo for g in group)
                if new > gain:
                    best, gain = k, new
            if best is None:
                break
            group.append(best)
        groups.append(tuple(sorted(group)))
        todo -= set(itertools.combinations(groups[-1], 2))
    return groups


def _cell_type(size: int) -> type[np.integer]:
    """The type of a combined code below ``size``: two bytes when they hold it (the
    arithmetic on them costs less; ``bincount`` widens them once)."""
    return np.uint16 if size <= 1 << 16 else np.intp


def _group_counts(codes: list[np.ndarray], levels: list[int], n: int) -> np.ndarray:
    """The joint counts of a few columns, shape ``levels``, by chunks of rows."""
    size = int(np.prod(levels))
    total = np.zeros(size, dtype=np.int64)
    for r0 in range(0, n, _CHUNK):
        cell = codes[0][r0 : r0 + _CHUNK].astype(_cell_type(size))
        for c, li in zip(codes[1:], levels[1:], strict=True):
            cell *= li
            np.add(cell, c[r0 : r0 + _CHUNK], out=cell, casting="unsafe")  # codes < li
        total += np.bincount(cell, minlength=size)
    return total.reshape(levels)


def joint_counts(
    codes: list[np.ndarray | None],
    levels: list[int],
    n: int,
    wanted: set[tuple[int, int]] | None = None,
) -> dict:
    """For every pair (i, j), i < j, of columns with codes whose table is dense (and
    in ``wanted``, when given): the joint counts, shape (levels_i, levels_j) (exact
    integers, however counted)."""
    out: dict[tuple[int, int], np.ndarray] = {}
    small = [i for i, c in enumerate(codes) if c is not None and levels[i] <= _SMALL]
    for group in cover(small, levels, wanted):
        parts = [c for g in group if (c := codes[g]) is not None]
        table = _group_counts(parts, [levels[g] for g in group], n)
        for (x, i), (y, j) in itertools.combinations(enumerate(group), 2):
            if wanted is None or (i, j) in wanted:
                others = tuple(z for z in range(len(group)) if z not in (x, y))
                out[(i, j)] = table.sum(axis=others) if others else table
    for i, j in itertools.combinations(range(len(codes)), 2):
        a, b = codes[i], codes[j]
        if a is None or b is None or (i, j) in out or (wanted is not None and (i, j) not in wanted):
            continue
        if not _dense((levels[i], levels[j]), n):
            continue
        out[(i, j)] = _pair_counts(a, b, (levels[i], levels[j]))
    return out


def centre(values: list[np.ndarray], present: list[np.ndarray]) -> np.ndarray:
    """One row per column: its present values minus their mean, 0 where missing
    (one array, each row written in place)."""
    out = np.empty((len(values), values[0].size if len(values) else 0))
    for row, v, p in zip(out, values, present, strict=True):
        if p.all():
            np.subtract(v, v.mean(), out=row)
        else:
            np.subtract(v, v[p].mean() if p.any() else 0.0, out=row)
            row[~p] = 0.0
    return out


def _packs(levels: list[int]) -> list[list[int]]:
    """Consecutive categorical columns taken together while their joint table stays
    small (:data:`_GROUP_CELLS`, :data:`_GROUP_SIZE`)."""
    packs: list[list[int]] = []
    for i, k in enumerate(levels):
        last = packs[-1] if packs else None
        if (
            last
            and len(last) < _GROUP_SIZE
            and np.prod([levels[j] for j in last]) * k <= _GROUP_CELLS
        ):
            last.append(i)
        else:
            packs.append([i])
    return packs


def group_sums(
    codes: list[np.ndarray],
    levels: list[int],
    centred: np.ndarray,
    missing: list[np.ndarray | None],
) -> list[list[tuple[np.ndarray, np.ndarray]]]:
    """Per categorical column (``codes``, ``levels``), per numeric column (a row of
    ``centred``: its centred values, 0 where missing), the sums of its values and the
    counts of its present values (``missing``: the rows where it is missing, None
    when none is) in each category. The sums are taken per cell of the joint table
    of a few categorical columns (one weighted ``bincount`` per number for them all,
    chunk by chunk of rows), then summed over the others' categories."""
    out: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in codes]
    n = centred.shape[1] if len(centred) else 0
    for pack in _packs(levels):
        shape = [levels[i] for i in pack]
        size = int(np.prod(shape))
        tables = np.zeros((len(centred), size))
        for r0 in range(0, n, _CHUNK):  # by chunks of rows: the cells stay in the cache
            cell = codes[pack[0]][r0 : r0 + _CHUNK].astype(_cell_type(size))
            for i in pack[1:]:
                cell *= levels[i]
                np.add(cell, codes[i][r0 : r0 + _CHUNK], out=cell, casting="unsafe")
            for total, v in zip(tables, centred, strict=True):
                total += np.bincount(cell, weights=v[r0 : r0 + _CHUNK], minlength=size)
        for flat in tables:
            table = flat.reshape(shape)
            for x, i in enumerate(pack):
                others = tuple(z for z in range(len(pack)) if z != x)
                out[i].append((table.sum(axis=others) if others else table, np.empty(0)))
    for c, lv, got in zip(codes, levels, out, strict=True):
        sizes = np.bincount(c, minlength=lv)
        for k, gaps in enumerate(missing):
            # missing rows are usually few: count them, not the present ones
            counts = sizes if gaps is None else sizes - np.bincount(c[gaps], minlength=lv)
            got[k] = (got[k][0], counts)
    return out


def eta_squared(sums: np.ndarray, counts: np.ndarray, total: float) -> float:
    """The share of a number's variance explained by a category, from the per-category
    sums of its centred values and counts, ``total`` the sum of squares."""
    if total <= 0 or counts.sum() < 2:
        return float("nan")
    seen = counts > 0
    return min(1.0, float((sums[seen] ** 2 / counts[seen]).sum()) / total)


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r on the rows where both are present, as ``scipy.stats.pearsonr``:
    NaN with fewer than two rows or when either is constant there."""
    ok = ~(np.isnan(x) | np.isnan(y))
    a, b = (x, y) if ok.all() else (x[ok], y[ok])
    if a.size < 2 or (a == a[0]).all() or (b == b[0]).all():
        return float("nan")
    a = a - a.mean()
    b = b - b.mean()
    r = np.dot(a / np.sqrt(np.dot(a, a)), b / np.sqrt(np.dot(b, b)))
    return float(np.clip(r, -1.0, 1.0))


def correlations(
    values: list[np.ndarray],
    present: list[np.ndarray],
    constant: list[bool],
    centred: np.ndarray | None = None,
) -> np.ndarray:
    """Pearson's r of every pair, on the rows where both are present, NaN for a
    column constant there (scipy's rule), from one Gram matrix of the centred
    columns (``centred``: :func:`centre`'s rows, when at hand; 0 where missing).

    For two columns without missing values, r is read off the Gram matrix. For a
    column with missing values and one without, the other's sums over the rows the
    first lacks (few, usually) re-centre it on the rows both hold; when those rows
    hold most of its variance (or none of it remains), r is computed directly
    (:func:`pearson`), as for two columns with missing values."""
    k = len(values)
    out = np.full((k, k), np.nan)
    n = values[0].size if k else 0
    usable = [i for i in range(k) if not constant[i]]
    if n < 2 or len(usable) < 2:
        return out
    if centred is None:
        centred = centre(values, present)
    gram = centred @ centred.T
    diag = np.diag(gram)
    full = [i for i in usable if present[i].all()]
    gaps = [i for i in usable if i not in full]
    if len(full) >= 2:
        block = gram[np.ix_(full, full)]
        norms = np.sqrt(np.diag(block))
        out[np.ix_(full, full)] = np.clip(block / np.outer(norms, norms), -1.0, 1.0)
    totals = centred.sum(axis=1) if gaps else np.zeros(k)  # 0 up to rounding
    for i in gaps:
        miss = np.flatnonzero(~present[i])
        kept = n - miss.size
        if kept < 2 or not full:
            continue
        off = centred[np.asarray(full)][:, miss]
        sums = totals[full] - off.sum(axis=1)  # over the rows i holds
        squares = diag[full] - np.einsum("ij,ij->i", off, off)
        spread = squares - sums * sums / kept  # about their mean on those rows
        cross = gram[i, full] - sums * (totals[i] / kept)
        for j, ss, xy in zip(full, spread, cross, strict=True):
            if diag[i] > 0 and ss > 0.25 * diag[j]:
                r = float(np.clip(xy / np.sqrt(diag[i] * ss), -1.0, 1.0))
            else:  # j varies mostly on the rows i lacks: the difference would lose digits
                r = pearson(values[i], values[j])
            out[i, j] = out[j, i] = r
    for i, j in itertools.combinations(gaps, 2):
        out[i, j] = out[j, i] = pearson(values[i], values[j])
    return out


def _side_stats(cols: list[Column], side: str) -> dict[str, Any]:
    """The pair statistics of one side: joint counts, group sums, correlations."""
    sides = [getattr(c, side) for c in cols]
    n = sides[0].present.size if sides else 0
    # two numbers are compared by their correlation, not by their joint counts
    wanted = {
        (i, j)
        for i, j in itertools.combinations(range(len(cols)), 2)
        if not (cols[i].continuous and cols[j].continuous)
    }
    counts = joint_counts([s.codes for s in sides], [c.levels for c in cols], n, wanted)
    cat = [i for i, c in enumerate(cols) if not c.continuous]
    num = [i for i, c in enumerate(cols) if c.continuous]
    stats: dict[str, Any] = {"counts": counts, "n": n, "num": num, "groups": {}, "ss": {}}
    if not num:
        return stats
    values = [sides[i].values for i in num]
    present = [sides[i].present for i in num]
    centred = centre(values, present)
    stats["r"] = correlations(values, present, [sides[i].constant for i in num], centred)
    if cat and n:
        # einsum, not a dot per row: OpenBLAS spreads a long dot over threads that
        # cost more CPU time than they save
        squares = np.einsum("ij,ij->i", centred, centred)
        stats["ss"] = {i: float(ss) for i, ss in zip(num, squares, strict=True)}
        gaps = [None if p.all() else np.flatnonzero(~p) for p in present]
        # a categorical column always has codes
        cat_codes = [codes for c in cat if (codes := sides[c].codes) is not None]
        sums = group_sums(cat_codes, [cols[c].levels for c in cat], centred, gaps)
        for c, per_number in zip(cat, sums, strict=True):
            for i, got in zip(num, per_number, strict=True):
                stats["groups"][(c, i)] = got
    return stats


def _eta(stats: dict[str, Any], c: int, x: int) -> float:
    if (c, x) not in stats["groups"]:
        return float("nan")
    sums, counts = stats["groups"][(c, x)]
    return eta_squared(sums, counts, stats["ss"][x])


def _correlation_pair(cols: list[Column], i: int, j: int, real: dict, syn: dict) -> Pair:
    a, b = cols[i], cols[j]
    ni, nj = real["num"].index(i), real["num"].index(j)
    r_real, r_syn = float(real["r"][ni, nj]), float(syn["r"][ni, nj])
    # SDMetrics refuses a column with one distinct value on either side, and a side
    # with fewer than two complete rows: no score, and neither correlation reported
    refused = any(s.constant for s in (a.original, b.original, a.synthetic, b.synthetic)) or any(
        int(np.count_nonzero(x.present & y.present)) < 2
        for x, y in ((a.original, b.original), (a.synthetic, b.synthetic))
    )
    score = float("nan") if refused else 1 - abs(r_real - r_syn) / 2
    meets = not np.isnan(score) and abs(r_real) > CORRELATION_THRESHOLD
    nan = float("nan")
    return Pair(
        a.name, b.name, "CorrelationSimilarity", float(score), bool(meets),
        nan if refused else r_real, nan if refused else r_syn, nan, "r", abs(r_real), abs(r_syn),
    )  # fmt: skip


def _contingency_pair(cols: list[Column], i: int, j: int, real: dict, syn: dict) -> Pair:
    a, b = cols[i], cols[j]
    ra, rb, sa, sb = a.original.codes, b.original.codes, a.synthetic.codes, b.synthetic.codes
    if ra is None or rb is None or sa is None or sb is None:
        score, real_v, syn_v = float("nan"), float("nan"), float("nan")
    elif (i, j) in real["counts"] and (i, j) in syn["counts"]:
        table_r, table_s = real["counts"][(i, j)], syn["counts"][(i, j)]
        score = contingency_similarity(table_r, table_s, real["n"], syn["n"])
        real_v, syn_v = cramers_v(table_r), cramers_v(table_s)
    else:
        score = _sparse_similarity(ra, rb, sa, sb, b.levels)
        real_v, syn_v = _sparse_cramers_v(ra, rb, b.levels), _sparse_cramers_v(sa, sb, b.levels)
    meets = not np.isnan(real_v) and real_v > ASSOCIATION_THRESHOLD and not np.isnan(score)
    if a.continuous or b.continuous:  # eta squared: the category explains the number
        c, x = (j, i) if a.continuous else (i, j)
        kind, orig, synth = "eta2", _eta(real, c, x), _eta(syn, c, x)
    else:
        kind, orig, synth = "cramers_v", real_v, syn_v
    return Pair(
        a.name, b.name, "ContingencySimilarity", score, bool(meets),
        float("nan"), float("nan"), real_v, kind, orig, synth,
    )  # fmt: skip


def all_pairs(
    cols: list[Column], step: Callable[[], None] | None = None, mapper: Mapper = map
) -> list[Pair]:
    """Every pair of columns, in SDMetrics' order (``itertools.combinations``);
    ``step()`` after the original's statistics; ``mapper`` computes the two sides'
    (``map``, or a thread pool's: they are independent)."""
    stats = []
    for got in mapper(functools.partial(_side_stats, cols), ("original", "synthetic")):
        stats.append(got)
        if step is not None and len(stats) == 1:
            step()
    real, syn = stats
    out = []
    for i, j in itertools.combinations(range(len(cols)), 2):
        if cols[i].continuous and cols[j].continuous:
            out.append(_correlation_pair(cols, i, j, real, syn))
        else:
            out.append(_contingency_pair(cols, i, j, real, syn))
    return out
