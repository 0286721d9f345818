"""A slow, obviously-correct implementation of the spec, for the tests only.

Plain Python over lists of rows, exact rational statistics, no collapsing of
codes, a dictionary for every count. Written from docs/spec.md, step by step,
sharing no code with the package.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

MISSING = ("missing",)


def _is_missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _raw(v: Any) -> Any:
    """Raw value for the count of step 1: missing equals missing."""
    return MISSING if _is_missing(v) else v


@dataclass
class RefBins:
    mean: float | None
    std: float | None
    minimum: float | None
    maximum: float | None
    lo: float
    width: float
    #: the grid's origin moved down by ``offset * width`` (0: the spec's grid)
    offset: float = 0.0


@dataclass
class RefResult:
    n: int
    n_avatars: int
    unique_originals: int
    linked: int
    kpr: float
    bins: dict[str, RefBins]
    pairs: dict[int, int]  # original row -> avatar row


def _bins(values: list[float], tolerance: float, date: bool = False) -> RefBins:
    finite = [x for x in values if not _is_missing(x) and math.isfinite(x)]
    if not finite:
        return RefBins(None, None, None, None, 0.0, 1.0)
    exact = [Fraction(x) for x in finite]
    mean_q = sum(exact, Fraction(0)) / len(exact)
    if len(exact) < 2:
        var = Fraction(0)
    else:
        var = sum(((x - mean_q) ** 2 for x in exact), Fraction(0)) / (len(exact) - 1)
    mean, std = float(mean_q), _sqrt(var)
    lo_v, hi_v = min(finite), max(finite)
    width = math.nan if date else tolerance * abs(mean)  # dates: from the range
    if not (math.isfinite(width) and width > 0):
        width = tolerance * (hi_v - lo_v)
        if not (math.isfinite(width) and width > 0):
            width = 1.0
    lo = lo_v - std / 10
    if not math.isfinite(lo):  # std near the float limit: the class grid starts at min
        lo = float(lo_v)
    return RefBins(mean, std, lo_v, hi_v, lo, width)


def _sqrt(q: Fraction) -> float:
    """sqrt(float(q)), also for a variance beyond the float range (values near
    1e308): divide by 4**64 until it fits, multiply the root back by 2**64; and
    below it (subnormal values): multiply by 4**64 until it is a normal float."""
    steps = 0
    while q >= Fraction(2) ** 1024:
        q /= Fraction(4) ** 64
        steps += 1
    while 0 < q < Fraction(2) ** -900:
        q *= Fraction(4) ** 64
        steps -= 1
    return math.sqrt(float(q)) * 2.0 ** (64 * steps)


def numeric_variables(original: list[dict[str, Any]], typed: set[str]) -> set[str]:
    """The kind rule, given the variables of a numeric type (not booleans, not
    category-like): numeric when the original holds some value (not missing)
    in that column, else categorical, as a CSV file would say."""
    return {v for v in typed if any(not _is_missing(r[v]) for r in original)}


def _code(x: Any, b: RefBins) -> Any:
    if _is_missing(x):
        return MISSING
    if math.isinf(x):
        return ("inf", x > 0)
    origin = b.lo - b.offset * b.width if b.offset else b.lo  # a moved grid starts lower
    q = (x - origin) / b.width
    # x - lo may overflow near 1e308: class number inf, not the class of the value inf
    return q if math.isinf(q) else math.floor(q)


def _unique(original: list[dict[str, Any]], known: list[str]) -> list[int]:
    """U: the rows whose tuple of raw known values occurs once (missing equals missing)."""
    raw = [tuple(_raw(r[k]) for k in known) for r in original]
    count = Counter(raw)
    return [i for i, t in enumerate(raw) if count[t] == 1]


def reference_kpr(
    original: list[dict[str, Any]],
    avatars: list[dict[str, Any]],
    known: list[str],
    numeric: set[str],
    tolerance: float = 0.05,
    dates: frozenset[str] = frozenset(),
    grid: dict[str, tuple[float, float]] | None = None,
    offset: float = 0.0,
) -> RefResult:
    """The spec, steps 1 to 6; ``dates`` (also in ``numeric``) are given in days.
    ``grid`` imposes (lo, width) on numeric variables, to check steps 3 to 6 alone
    on float data whose statistics an engine may round differently in the last
    bits (the spec allows it). ``offset``: every class grid's origin moved down by
    this fraction of its width (the class ``floor((x - (lo - offset * width)) /
    width)``)."""
    n = len(original)
    u = _unique(original, known)
    bins = {
        v: _bins([original[i][v] for i in u], tolerance, v in dates) for v in known if v in numeric
    }
    for v, (lo, width) in (grid or {}).items():
        bins[v] = RefBins(bins[v].mean, bins[v].std, bins[v].minimum, bins[v].maximum, lo, width)
    for b in bins.values():
        b.offset = offset

    def binned(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(_code(row[k], bins[k]) if k in numeric else _raw(row[k]) for k in known)

    avatar_profiles = [binned(r) for r in avatars]
    seen = Counter(avatar_profiles)
    b1 = {p: j for j, p in enumerate(avatar_profiles) if seen[p] == 1}
    pairs = {i: b1[binned(original[i])] for i in u if binned(original[i]) in b1}
    return RefResult(n, len(avatars), len(u), len(pairs), 100 * (1 - len(pairs) / n), bins, pairs)


# Membership (histogram DOMIAS on class profiles): the ROC figures brute force, from
# one score per record, sharing nothing with kpr.metric.membership.


def reference_auc(members: list[Fraction], non_members: list[Fraction]) -> Fraction:
    """Every (member, non-member) pair: 1 when the member scores higher, 1/2 on a tie."""
    won = sum(
        (Fraction(1) if p > q else Fraction(1, 2) if p == q else Fraction(0))
        for p in members
        for q in non_members
    )
    return won / (len(members) * len(non_members))


def reference_auc_by_orders(members: list[Fraction], non_members: list[Fraction]) -> Fraction:
    """The strict AUC averaged over every order in which ties can be broken: every
    permutation of the records, sorted (stably) by score, highest first."""
    from itertools import permutations

    records = [(s, True) for s in members] + [(s, False) for s in non_members]
    total, count = Fraction(0), 0
    for order in permutations(range(len(records))):
        ranked = sorted(order, key=lambda i: -records[i][0])
        seen_pos, won = 0, 0
        for i in ranked:
            if records[i][1]:
                seen_pos += 1
            else:
                won += seen_pos
        total += Fraction(won, len(members) * len(non_members))
        count += 1
    return total / count


def reference_tpr_at(
    members: list[Fraction], non_members: list[Fraction], fpr: Fraction
) -> Fraction:
    """The best expected TPR of the randomised thresholds whose expected FPR is ``fpr``:
    flag every record scoring above t and each one scoring t with probability p. Every
    threshold t (each score, and above them all) and the p it needs are tried."""
    n_pos, n_neg = len(members), len(non_members)
    best = Fraction(0)
    for t in sorted({*members, *non_members}):
        neg_above = sum(1 for q in non_members if q > t)
        neg_at = sum(1 for q in non_members if q == t)
        pos_above = sum(1 for p in members if p > t)
        pos_at = sum(1 for p in members if p == t)
        target = fpr * n_neg
        if neg_at == 0:  # flagging all of t costs nothing
            options = [Fraction(1)] if neg_above <= target else []
        else:
            p = (target - neg_above) / neg_at
            options = [p] if 0 <= p <= 1 else []
        for p in options:
            best = max(best, (pos_above + p * pos_at) / n_pos)
    return best


OUTSIDE = ("outside",)


def reference_profiles(
    original: list[dict[str, Any]],
    tables: list[list[dict[str, Any]]],
    known: list[str],
    numeric: set[str],
    tolerance: float = 0.05,
) -> list[Counter[tuple[Any, ...]]]:
    """Each table's class profiles on ``known``, counted, with the classes of the
    attack on ``known`` (lo and width over U of ``original``). A finite number whose
    class no member of U holds is in one class, outside (as the engines code it:
    such classes can never link anyone, and the membership attack reads the engines'
    profiles)."""
    result = reference_kpr(original, original, known, numeric, tolerance)
    raw = [tuple(_raw(r[k]) for k in known) for r in original]
    count = Counter(raw)
    u = [original[i] for i, t in enumerate(raw) if count[t] == 1]
    held = {
        v: {c for c in (_code(r[v], result.bins[v]) for r in u) if isinstance(c, int)}
        for v in known
        if v in numeric
    }

    def code(v: str, x: Any) -> Any:
        c = _code(x, result.bins[v])
        if c is MISSING or isinstance(c, tuple):
            return c
        inside = held[v] and min(held[v]) <= c <= max(held[v])
        return c if inside else OUTSIDE

    def profile(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(code(k, row[k]) if k in numeric else _raw(row[k]) for k in known)

    return [Counter(profile(r) for r in table) for table in tables]


def reference_triples(
    original: list[dict[str, Any]],
    avatars: list[dict[str, Any]],
    holdout: list[dict[str, Any]],
    known: list[str],
    numeric: set[str],
    tolerance: float = 0.05,
) -> Counter[tuple[int, int, int]]:
    """How many class profiles hold each (original, avatars, holdout) count triple."""
    o, a, h = reference_profiles(original, [original, avatars, holdout], known, numeric, tolerance)
    return Counter((o[p], a[p], h[p]) for p in {*o, *a, *h})


def reference_window(
    original: list[dict[str, Any]],
    avatars: list[dict[str, Any]],
    known: list[str],
    numeric: set[str],
    tolerance: float = 0.05,
) -> set[int]:
    """The original rows the window rule links, by its definition, in O(n * m): an
    avatar approaches a member of U when every categorical value is equal (missing
    equals missing) and every numeric one lies within one width (the spec's, over U)
    of the member's, bounds included; a missing or infinite value approaches only the
    same. A member is linked when exactly one avatar approaches."""
    u = _unique(original, known)
    width = {v: _bins([original[i][v] for i in u], tolerance).width for v in known if v in numeric}

    def approaches(x: Any, y: Any, v: str) -> bool:
        if v not in numeric:
            return _raw(x) == _raw(y)
        if _is_missing(x) or _is_missing(y):
            return _is_missing(x) and _is_missing(y)
        if not (math.isfinite(x) and math.isfinite(y)):
            return bool(x == y)
        return abs(x - y) <= width[v]

    linked = set()
    for i in u:
        near = sum(all(approaches(original[i][v], a[v], v) for v in known) for a in avatars)
        if near == 1:
            linked.add(i)
    return linked


def reference_value_order(rows: list[dict[str, Any]], columns: list[str]) -> list[int]:
    """The rows' positions sorted by their values in ``columns``, in turn (numbers
    first, then NaN, then missing; ties keep the rows' order): the order kpr's seeded
    subsets are drawn in, so that they pick the same rows whatever the row order."""

    def key(v: Any) -> tuple[bool, bool, Any]:
        missing = v is None
        nan = not missing and v != v
        return missing, nan, 0 if missing or nan else v

    return sorted(range(len(rows)), key=lambda i: [key(rows[i][c]) for c in columns])
