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

from dataclasses import dataclass

import numpy as np
import polars as pl

from kpr.metric.attack import Kind

#: SDMetrics rounds numbers to this many decimals before the KS test.
KS_DECIMALS = 14
#: The bins of SDMetrics' discretisation (``np.histogram_bin_edges``' default).
DISCRETE_BINS = 10
#: Quantile bins of the numeric Hellinger distance.
HELLINGER_BINS = 20


@dataclass(frozen=True)
class Side:
    """One column of one table, as the pair statistics use it."""

    codes: np.ndarray | None  # contingency codes (int64), None: not discretisable
    values: np.ndarray | None  # float64, NaN missing (numbers and dates only)
    present: np.ndarray  # bool: not missing


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


def ks_complement(x: np.ndarray, y: np.ndarray) -> float:
    """1 - the KS statistic of two samples without missing values (SDMetrics' rounding)."""
    if x.size == 0 or y.size == 0:
        return float("nan")
    if x.dtype.kind == "f":
        x = np.round(x, KS_DECIMALS)
        y = np.round(y, KS_DECIMALS)
    a = np.sort(x, kind="stable")
    b = np.sort(y, kind="stable")
    points = np.union1d(a, b)  # the CDFs' steps: evaluating there gives scipy's maximum
    diff = (
        np.searchsorted(a, points, side="right") / a.size
        - np.searchsorted(b, points, side="right") / b.size
    )
    low = float(np.clip(-diff.min(), 0, 1))
    return float(1 - max(low, float(diff.max())))


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
    return float(1 - 0.5 * np.abs(f_obs - f_exp).sum())


def hellinger(p: np.ndarray, q: np.ndarray) -> float:
    """Hellinger distance between two count vectors over the same bins (NaN when a
    side is empty)."""
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.sum() <= 0 or q.sum() <= 0:
        return float("nan")
    diff = np.sqrt(p / p.sum()) - np.sqrt(q / q.sum())
    return float(min(1.0, np.sqrt(0.5 * float(diff @ diff))))


def _numeric_hellinger(xo: np.ndarray, xs: np.ndarray) -> float:
    """Hellinger over the original's quantile bins 1/20 .. 19/20 (repeated cut points
    merged), one bin below its minimum, one above its maximum and one for missing."""
    observed = xo[~np.isnan(xo)]
    if observed.size == 0:
        inner, low, high = np.empty(0), np.inf, -np.inf
    else:
        inner = np.unique(np.quantile(observed, np.arange(1, HELLINGER_BINS) / HELLINGER_BINS))
        low, high = float(observed.min()), float(observed.max())

    def counts(values: np.ndarray) -> np.ndarray:
        miss = np.isnan(values)
        x = values[~miss]
        codes = np.searchsorted(inner, x, side="right") + 1
        codes[x < low] = 0
        codes[x > high] = inner.size + 2
        return np.append(np.bincount(codes, minlength=inner.size + 3), miss.sum())

    return hellinger(counts(xo), counts(xs))


def discretize(values: np.ndarray) -> np.ndarray | None:
    """SDMetrics' codes for a number or date column of one side (None: an infinite
    value, which ``np.histogram_bin_edges`` refuses)."""
    observed = values[~np.isnan(values)]
    if observed.size and not np.isfinite(observed).all():
        return None
    edges = np.histogram_bin_edges(observed, bins=DISCRETE_BINS)
    return np.digitize(values, bins=edges).astype(np.int64)


def _category_codes(o: pl.Series, s: pl.Series) -> tuple[np.ndarray, np.ndarray, int]:
    """Codes 0..K-1 over the categories of both sides, K for missing."""
    both = pl.concat([o, s], rechunk=True)
    if both.dtype in (pl.String, pl.Categorical) or isinstance(both.dtype, pl.Enum):
        both = both.cast(pl.String).cast(pl.Categorical).to_physical()
    elif both.dtype == pl.Boolean:
        both = both.cast(pl.Int8)
    ranks = both.rank("dense")  # 1..K, null stays null
    k = int(ranks.max() or 0)  # type: ignore[arg-type]
    codes = ranks.fill_null(k + 1).cast(pl.Int64).to_numpy() - 1
    return codes[: len(o)], codes[len(o) :], k + 1


def _as_float(series: pl.Series) -> np.ndarray:
    return series.cast(pl.Float64).fill_null(float("nan")).to_numpy()


def column(name: str, kind: Kind, o: pl.Series, s: pl.Series) -> Column:
    """Everything the report needs of one column (one pass over each side)."""
    miss_o = float(o.null_count() / len(o)) if len(o) else float("nan")
    miss_s = float(s.null_count() / len(s)) if len(s) else float("nan")
    if kind is Kind.CATEGORICAL:
        co, cs, levels = _category_codes(o, s)
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
        score = ks_complement(o.drop_nulls().to_numpy(), s.drop_nulls().to_numpy())
    else:
        score = ks_complement(xo[po], xs[ps])
    do, ds = discretize(xo), discretize(xs)
    return Column(
        name, kind, Side(do, xo, po), Side(ds, xs, ps),
        DISCRETE_BINS + 2, score, _numeric_hellinger(xo, xs), miss_o, miss_s,
    )  # fmt: skip
