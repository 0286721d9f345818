"""One column at a time, one pass each: what the pair statistics need (codes and
values) and the column scores (SDMetrics' KSComplement and TVComplement, the
Hellinger distance, the missing shares).

SDMetrics' rules reproduced here (version 0.32):

* KSComplement: missing values dropped, numbers rounded to 14 decimals, dates
  as integer nanoseconds; 1 - the two-sample Kolmogorov-Smirnov statistic
  (``scipy.stats.ks_2samp``'s, evaluated at every observed value); NaN when a
  side has no value.
* TVComplement: missing values dropped; a category only the synthetic side has
  counts 1e-6 times on the real side; 1 - half the total variation distance;
  no score (NaN) when a side has no value.
* The Column Pair Trends discretisation of a number or date: each side on its
  own, ``np.digitize`` against ``np.histogram_bin_edges`` (10 equal bins over
  that side's observed range). A missing value gets code 11, as the largest
  value does (NumPy sorts NaN last); a side with an infinite value cannot be
  discretised (SDMetrics reports an error and no score for its pairs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from kpr.metric.attack import Kind
from kpr.results.utility import HELLINGER_BINS

#: SDMetrics rounds numbers to this many decimals before the KS test.
KS_DECIMALS = 14
#: The bins of SDMetrics' discretisation (``np.histogram_bin_edges``' default).
DISCRETE_BINS = 10


@dataclass(frozen=True)
class Side:
    """One column of one table, as the pair statistics use it."""

    codes: np.ndarray | None  # contingency codes (int64), None: not discretisable
    values: np.ndarray | None  # float64, NaN missing (numbers and dates only)
    present: np.ndarray  # bool: not missing
    constant: bool = False  # one distinct value (missing aside)


@dataclass(frozen=True)
class Column:
    """One column of both tables and its scores."""

    name: str
    kind: Kind
    original: Side
    synthetic: Side
    levels: int  # number of contingency codes (0..levels-1)
    score: float  # KSComplement or TVComplement
    hellinger: float
    missing_original: float
    missing_synthetic: float

    @property
    def continuous(self) -> bool:
        return self.kind is not Kind.CATEGORICAL

    @property
    def metric(self) -> str:
        return "KSComplement" if self.continuous else "TVComplement"


def _rounded(x: np.ndarray) -> np.ndarray:
    """The values SDMetrics' KS test sees: numbers rounded to 14 decimals, IN PLACE
    (rounding is monotone, so a sorted array stays sorted)."""
    return np.round(x, KS_DECIMALS, out=x) if x.dtype.kind == "f" else x


def _tie_ends(x: np.ndarray) -> np.ndarray:
    """The positions of the last value of each run of equal values (``x`` sorted)."""
    return np.flatnonzero(np.append(x[1:] != x[:-1], True))


def ks_complement(a: np.ndarray, b: np.ndarray) -> float:
    """1 - the two-sample KS statistic of two SORTED samples without missing values
    (:func:`_rounded`), as ``scipy.stats.ks_2samp`` computes it: both empirical CDFs
    at every observed value. With few distinct values (the common case: rounded
    numbers, dates), each side's count up to its own distinct values is exact and
    the other side's comes from a binary search; otherwise from one merge of the
    two samples. The same integer counts either way, so the same result."""
    if a.size == 0 or b.size == 0:
        return float("nan")
    ends_a, ends_b = _tie_ends(a), _tie_ends(b)
    if 4 * (ends_a.size + ends_b.size) <= a.size + b.size:
        from_a = np.concatenate([ends_a + 1, np.searchsorted(a, b[ends_b], side="right")])
        from_b = np.concatenate([np.searchsorted(b, a[ends_a], side="right"), ends_b + 1])
    else:
        values = np.concatenate([a, b])
        order = np.argsort(values, kind="stable")  # a merge of two runs
        last = _tie_ends(values[order])
        from_a = np.cumsum(order < a.size)[last]
        from_b = last + 1 - from_a
    diff = from_a / a.size - from_b / b.size
    low = float(np.clip(-diff.min(), 0, 1))
    return float(1 - max(low, float(diff.max())))


def unit_score(x: float) -> float:
    """A score held in [0, 1] (NaN stays NaN): one minus a total variation falls
    2.2e-16 below 0 in floating point when the two distributions are disjoint, and
    the schema, like every reader, expects the bound."""
    return float(np.clip(x, 0.0, 1.0))


def tv_complement(real: np.ndarray, synthetic: np.ndarray) -> float:
    """SDMetrics' TVComplement from the category counts of both sides (missing left
    out), on one shared set of codes."""
    n_real, n_syn = real.sum(), synthetic.sum()
    if n_real == 0 or n_syn == 0:
        return float("nan")
    regular = np.where((real == 0) & (synthetic > 0), 1e-6, real.astype(np.float64))
    seen = (real > 0) | (synthetic > 0)
    f_obs = synthetic[seen] / float(n_syn)
    f_exp = regular[seen] / float(regular[seen].sum())
    return unit_score(1 - 0.5 * np.abs(f_obs - f_exp).sum())


def hellinger(p: np.ndarray, q: np.ndarray) -> float:
    """Hellinger distance between two count vectors over the same bins (NaN when a
    side is empty)."""
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.sum() <= 0 or q.sum() <= 0:
        return float("nan")
    diff = np.sqrt(p / p.sum()) - np.sqrt(q / q.sum())
    return float(min(1.0, np.sqrt(0.5 * float(np.dot(diff, diff)))))


def sorted_quantiles(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.quantile(x, q)`` (its default, linear method, step for step) of a SORTED
    non-empty ``x``, read off directly instead of partitioning ``x`` again."""
    virtual = (x.size - 1) * q
    before = np.floor(virtual)
    last = virtual >= x.size - 1
    a = x[np.where(last, x.size - 1, before).astype(np.intp)]
    b = x[np.where(last, x.size - 1, before + 1).astype(np.intp)]
    t = virtual - before
    diff = b - a
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


def _numeric_hellinger(xo: np.ndarray, xs: np.ndarray, missing: tuple[int, int]) -> float:
    """Hellinger over the original's quantile bins 1/20 .. 19/20 (repeated cut points
    merged), one bin below its minimum, one above its maximum and one for missing.
    ``xo``, ``xs``: the present values of each side, SORTED (so the counts per bin
    come from a binary search of each cut point, not of each value)."""
    if xo.size == 0:  # the original holds only missing values: present or missing
        return hellinger(np.array([0, missing[0]]), np.array([xs.size, missing[1]]))
    inner = np.unique(sorted_quantiles(xo, np.arange(1, HELLINGER_BINS) / HELLINGER_BINS))
    low, high = float(xo[0]), float(xo[-1])

    def counts(x: np.ndarray, n_missing: int) -> np.ndarray:
        below = int(np.searchsorted(x, low, side="left"))
        upto = int(np.searchsorted(x, high, side="right"))
        cuts = np.concatenate([[below], np.searchsorted(x, inner, side="left"), [upto]])
        return np.concatenate([[below], np.diff(cuts), [x.size - upto, n_missing]])

    return hellinger(counts(xo, missing[0]), counts(xs, missing[1]))


def discretize(values: np.ndarray, observed: np.ndarray | None = None) -> np.ndarray | None:
    """SDMetrics' codes for a number or date column of one side (None: an infinite
    value, which ``np.histogram_bin_edges`` refuses). ``observed``: the present
    values, SORTED, when at hand (the edges depend only on the smallest and largest).

    ``np.digitize``'s code is the number of edges at or below the value (NaN: all
    of them): counted here by one comparison per edge, which is cheaper than its
    binary search per value, into one byte per row."""
    if observed is None:
        observed = np.sort(values[~np.isnan(values)])
    if observed.size:
        observed = observed[[0, -1]]
    try:  # refuses infinite values, and ranges too narrow for 10 bins (huge values)
        edges = np.histogram_bin_edges(observed, bins=DISCRETE_BINS)
    except ValueError:
        return None
    codes = np.zeros(values.shape, dtype=np.uint8)
    above = np.empty(values.shape, dtype=bool)
    for edge in edges:
        np.greater_equal(values, edge, out=above)
        codes += above.view(np.uint8)  # True is 1
    codes[np.isnan(values)] = edges.size
    return codes


#: Rows of each side whose categories are guessed to be all of them (then checked).
_GUESS_ROWS = 100_000


def _is_text(dtype: pl.DataType) -> bool:
    return dtype in (pl.String, pl.Categorical, pl.Enum)


def code_dtype(levels: int) -> type[np.unsignedinteger]:
    """The smallest unsigned type for codes 0..levels-1: the pair counts read the
    codes of every column many times, so fewer bytes per row cost less."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if levels - 1 <= np.iinfo(dtype).max:
            return dtype
    return np.uint64


#: polars keeps a string of up to 12 bytes in its row's view (Arrow's string view);
#: a longer one lies in a buffer, wherever the frame's history put it.
_INLINE_BYTES = 12


def _level_codes(column: pl.Series, levels: list[str]) -> np.ndarray | None:
    """A text column's position among its ``levels`` (missing: one past the last);
    None when a value is not among them. Short strings: a polars Enum, one look-up
    per view. Long ones: Arrow's ``index_in`` on Arrow's copy of the column, whose
    strings lie in row order (in a shuffled frame, polars' look-up per row reads
    memory at random and costs two to three times more)."""
    longest = column.str.len_bytes().max()
    if longest is not None and int(longest) > _INLINE_BYTES:  # type: ignore[arg-type]
        strings = column.to_arrow(compat_level=pl.CompatLevel.oldest())  # large_string
        found = pc.index_in(strings, value_set=pa.array(levels, type=strings.type))
        if found.null_count != strings.null_count:
            return None
        codes = found.fill_null(len(levels)).to_numpy(zero_copy_only=False)
    else:
        got = column.cast(pl.Enum(levels), strict=False)
        if got.null_count() != column.null_count():
            return None
        codes = got.to_physical().fill_null(len(levels)).to_numpy()
    return codes.astype(code_dtype(len(levels) + 1), copy=False)


def _coded(levels: list[str], columns: tuple[pl.Series, pl.Series]) -> tuple | None:
    """Both sides of a text column coded over ``levels`` (sorted distinct values);
    None when a value is not among them."""
    got = []
    for column in columns:
        codes = _level_codes(column, levels)
        if codes is None:
            return None
        got.append(codes)
    return got[0], got[1], len(levels) + 1


#: ``map``, or a thread pool's: the columns are independent.
Mapper = Callable[..., Iterable[Any]]


def _text_codes(
    o: pl.DataFrame, s: pl.DataFrame, names: list[str], mapper: Mapper = map
) -> dict[str, tuple]:
    """Text columns coded in the order of their sorted values (their position among
    the distinct values of both sides, :func:`_level_codes`), missing one past the
    last: codes that depend neither on the input's type nor on the process's string
    pool. The categories are first taken from the first rows (one pass over the
    column instead of two: one to find them, one to code); a column where that
    misses one is coded again with every category. Each column on its own
    (``mapper``), not all in one parallel ``select``: less CPU time, and fewer
    temporary arrays at a time."""
    pairs = [(_as_text(o[n]), _as_text(s[n])) for n in names]
    head = pl.DataFrame([pl.concat([a.head(_GUESS_ROWS), b.head(_GUESS_ROWS)]) for a, b in pairs])
    levels = head.select(_sorted_levels(n) for n in names).row(0)
    return dict(zip(names, mapper(_code_text, levels, pairs), strict=True))


def _code_text(guess: list[str], columns: tuple[pl.Series, pl.Series]) -> tuple:
    got = _coded(guess, columns)
    if got is None:  # a category the first rows do not hold: every category
        every = pl.concat(columns).drop_nulls().unique().sort()
        got = _coded(every.to_list(), columns)
    assert got is not None  # every value is among every category
    return got


def _as_text(column: pl.Series) -> pl.Series:
    """The column as strings (cast only when it holds something else)."""
    return column if column.dtype == pl.String else column.cast(pl.String)


def _sorted_levels(name: str) -> pl.Expr:
    return pl.col(name).drop_nulls().unique().sort().implode()


def category_codes(
    o: pl.DataFrame, s: pl.DataFrame, names: list[str], mapper: Mapper = map
) -> dict[str, tuple]:
    """Per categorical column, codes 0..K-1 over the categories of both sides and K
    for missing: (original codes, synthetic codes, K + 1). Text is encoded in the
    order of its sorted values (:func:`_text_codes`), integers and booleans by their
    value, other types by their rank: codes that do not depend on the input's type
    or on the process's string pool. ``mapper`` codes the text columns (``map``, or
    a thread pool's)."""
    text = [n for n in names if _is_text(o[n].dtype) and _is_text(s[n].dtype)]
    out = _text_codes(o, s, text, mapper) if text else {}
    names = [n for n in names if n not in out]
    if not names:
        return out
    both = pl.concat([o.select(names), s.select(names)], how="vertical_relaxed", rechunk=False)
    labels = []
    for name in names:
        dtype = both[name].dtype
        if dtype == pl.Boolean or dtype.is_integer():
            col = pl.col(name).cast(pl.Int64)
            col = col - col.min()
        else:
            col = pl.col(name).rank("dense").cast(pl.Int64) - 1
        labels.append(col.alias(name))
    # small non-negative labels, missing one past the largest (two steps: an eager
    # select would compute a repeated expression twice)
    got = both.select(labels)
    got = got.select(pl.all().fill_null(pl.all().max().fill_null(-1) + 1))
    for name in names:
        raw = got[name]
        top = int(raw.max() or 0)  # type: ignore[arg-type]
        if top > 4 * len(raw) + 1024:  # sparse labels (huge integers): rank them
            raw = raw.rank("dense").cast(pl.Int64) - 1
            top = int(raw.max() or 0)  # type: ignore[arg-type]
        arr = raw.to_numpy()
        missing = both[name].null_count() > 0  # its label is ``top``
        seen = np.bincount(arr, minlength=top + 1) > 0
        if missing:
            seen[top] = False
        lut = np.cumsum(seen) - 1
        k = int(seen.sum())
        if missing:
            lut[top] = k
        codes = lut.astype(code_dtype(k + 1))[arr]
        out[name] = (codes[: o.height], codes[o.height :], k + 1)
    return out


def _as_float(series: pl.Series) -> np.ndarray:
    """float64, NaN where missing (polars' ``to_numpy`` of a float column with nulls)."""
    return series.cast(pl.Float64).to_numpy()


def _sorted_present(x: np.ndarray, present: np.ndarray) -> np.ndarray:
    """The present values of ``x``, sorted, in an array of their own (written to
    later)."""
    kept = x.copy() if present.all() else x[present]
    kept.sort()
    return kept


def _constant(observed: np.ndarray) -> bool:
    """One distinct value among the present ones (``observed``: them, SORTED)."""
    return observed.size > 0 and float(observed[0]) == float(observed[-1])


def column(name: str, kind: Kind, o: pl.Series, s: pl.Series, codes: tuple | None = None) -> Column:
    """Everything the report needs of one column (one pass over each side);
    ``codes``: a categorical column's codes (:func:`category_codes`)."""
    miss_o = float(o.null_count() / len(o)) if len(o) else float("nan")
    miss_s = float(s.null_count() / len(s)) if len(s) else float("nan")
    if kind is Kind.CATEGORICAL:
        co, cs, levels = (
            codes if codes is not None else category_codes(o.to_frame(), s.to_frame(), [name])[name]
        )
        count_o = np.bincount(co, minlength=levels)
        count_s = np.bincount(cs, minlength=levels)
        score = tv_complement(count_o[:-1], count_s[:-1])
        # Hellinger: the original's categories and missing; categories absent from
        # the original pooled into one bin (which leaves the distance unchanged)
        absent = count_o[:-1] == 0
        p = np.append(count_o[:-1][~absent], count_o[-1])
        q = np.append(count_s[:-1][~absent], count_s[-1])
        dist = hellinger(np.append(p, 0), np.append(q, count_s[:-1][absent].sum()))
        return Column(
            name, kind, Side(co, None, co < levels - 1), Side(cs, None, cs < levels - 1),
            levels, score, dist, miss_o, miss_s,
        )  # fmt: skip
    xo, xs = _as_float(o), _as_float(s)
    po, ps = ~np.isnan(xo), ~np.isnan(xs)
    if kind is Kind.DATE:  # exact integer nanoseconds for the KS test, as SDMetrics
        ko, ks = (np.sort(x.drop_nulls().to_numpy()) for x in (o, s))
        # the floats, sorted: the sorted integers cast (a cast keeps the order)
        sorted_o, sorted_s = ko.astype(np.float64), ks.astype(np.float64)
    else:
        sorted_o, sorted_s = _sorted_present(xo, po), _sorted_present(xs, ps)
    missing = (int(xo.size - sorted_o.size), int(xs.size - sorted_s.size))
    dist = _numeric_hellinger(sorted_o, sorted_s, missing)
    do, ds = discretize(xo, sorted_o), discretize(xs, sorted_s)
    side_o = Side(do, xo, po, _constant(sorted_o))
    side_s = Side(ds, xs, ps, _constant(sorted_s))
    if kind is not Kind.DATE:  # the values SDMetrics' KS test sees, in place
        ko, ks = _rounded(sorted_o), _rounded(sorted_s)
    return Column(
        name, kind, side_o, side_s, DISCRETE_BINS + 2, ks_complement(ko, ks), dist, miss_o, miss_s
    )
